//! Integration tests: one binary, files named by behaviour.

mod generated_topologies;
mod ns3_files;
mod topology_workload_scenarios;
mod workloads;
