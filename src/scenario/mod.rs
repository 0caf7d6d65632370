//! Scenario files: one TOML file describes an experiment.
//!
//! One file per section holds that section's serde structs (they mirror the
//! file: `deny_unknown_fields`, human units) and its resolver, which validates
//! them into runtime types with every default filled in: `topology`, `switch/`,
//! `nic`, `model` (`[packet]` and `[model]`), `cc`, `workload/`, `output` and
//! `diagnostics`. `resolve` calls them in order and checks the file's own keys
//! (below) into a `RunConfig`; `load` reads the text and `--set` overrides.
//! docs/scenario.md is the reference for every key.
//!
//! Outside this module, scenarios go through the facade in `source.rs` only
//! ([`Source`], [`to_config`], [`effective`]): loading and resolving are private.

mod cc;
mod ctx;
mod diagnostics;
mod load;
mod model;
mod nic;
pub mod ns3_import;
mod output;
mod resolve;
mod source;
mod switch;
mod tagged;
mod topology;
mod workload;

use crate::cc::CcSection;
use crate::profile::Profile;
use crate::units::Delta;
use serde::Deserialize;

pub(crate) use load::{apply_override, toml_error};
pub use source::{Effective, Source, effective, to_config};

/// The file: its own keys, then one field per section.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    /// Name of the experiment; defaults to the file name.
    name: Option<String>,
    #[serde(rename = "description")]
    _description: Option<String>,
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default)]
    profile: Profile,
    /// Simulated-time limit; omitted = run until every flow completes.
    stop: Option<Delta>,
    topology: topology::TopologySection,
    #[serde(default)]
    switch: switch::SwitchSection,
    #[serde(default)]
    nic: nic::NicSection,
    #[serde(default)]
    packet: model::PacketSection,
    #[serde(default)]
    model: model::ModelSection,
    #[serde(default)]
    cc: CcSection,
    #[serde(default)]
    workload: workload::WorkloadSection,
    #[serde(default)]
    output: output::OutputSection,
    /// PFC diagnostics: storms, deadlocks, victims.
    #[serde(default)]
    diagnostics: diagnostics::DiagnosticsSection,
    /// How to execute the run (not what it computes).
    #[serde(default)]
    run: RunSection,
}

/// `[run]`: execution settings. Outputs do not depend on them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSection {
    /// Threads to run on; default 1
    /// (docs/parallel.md). `rocesim run --threads` overrides it.
    threads: Option<usize>,
    /// Partitions of the nodes, at least one a thread (default: one a
    /// thread); the threads share them out window by window.
    partitions: Option<usize>,
    /// What partitions are balanced by: "traffic" (default) or "hosts".
    #[serde(default)]
    balance: crate::config::Balance,
}

fn default_seed() -> u64 {
    1
}
