//! Integration tests: one binary, files named by behaviour.

mod bad_input;
mod common;
mod conservation;
mod determinism;
mod generated_topologies;
mod hpcc_incast;
mod ns3_files;
mod recorders;
mod reports;
mod reproduce;
mod single_flow;
mod topology_workload_scenarios;
mod workloads;
