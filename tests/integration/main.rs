//! Integration tests: one binary, files named by behaviour.

mod bad_input;
mod common;
mod conservation;
mod determinism;
mod hpcc_incast;
mod single_flow;
