//! Integration tests: one binary, files named by behaviour.

mod bad_input;
mod cc_table;
mod common;
mod conservation;
mod dcqcn_np;
mod determinism;
mod flow_control;
mod generated_topologies;
mod hpcc_design_choices;
mod hpcc_incast;
mod lossy_recovery;
mod measure;
mod ns3_ack_path;
mod ns3_calibration;
mod ns3_files;
mod pfc_victims;
mod rcc_convergence;
mod rcc_last_hop;
mod rcc_multi_bottleneck;
mod recorders;
mod reports;
mod reproduce;
mod single_bottleneck_cc;
mod single_flow;
mod topology_workload_scenarios;
mod workloads;
