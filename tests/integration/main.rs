//! Integration tests: one binary, files named by behaviour.

mod bad_input;
mod common;
mod conservation;
mod determinism;
mod flow_control;
mod generated_topologies;
mod hpcc_incast;
mod lossy_recovery;
mod ns3_files;
mod pfc_victims;
mod single_flow;
mod topology_workload_scenarios;
mod workloads;
