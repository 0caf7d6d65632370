//! rocesim: a fast, faithful packet-level simulator of lossless RDMA (RoCEv2)
//! datacenter networks.
//!
//! Layers, each a module boundary: the deterministic event [`engine`] with integer
//! picosecond time → [`topology`] of hosts and switches → [`switch`]es (shared-
//! buffer MMU, PFC, RED/ECN, INT, ECMP) → [`nic`]s (queue pairs, pacing, windows,
//! ACK/NACK/CNP, go-back-N) → congestion control ([`cc`]) → [`workload`]s →
//! recorders ([`output`]). [`scenario`] turns a TOML file into a
//! [`config::RunConfig`]; [`sim`] runs it; [`report`] draws a run directory's
//! figures and compares runs. The module layers, bottom first, and the check that
//! they point one way: tests/integration/module_layers.rs (`scripts/check-layers.sh`).

pub mod analytic;
pub mod build_info;
pub mod cc;
pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod huge_pages;
pub mod ids;
pub mod lazy_rng;
pub mod limits;
pub mod nic;
pub mod node;
pub mod output;
pub mod packet;
pub mod plot;
pub mod port;
pub mod profile;
pub mod report;
pub mod reproduce;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod sweep;
pub mod switch;
#[cfg(test)]
pub(crate) mod testkit;
pub mod topology;
pub mod units;
pub mod workload;

use config::RunConfig;
use error::Error;
use output::{Recorder, RunOutputs};
use sim::{RunOptions, Sim};
use std::path::Path;

/// The built-in quick-start scenario (also at scenarios/quickstart.toml).
pub const QUICKSTART: &str = include_str!("../scenarios/quickstart.toml");

/// Runs a resolved scenario, writing outputs to `out_dir` when given.
pub fn run(
    cfg: RunConfig,
    opts: &RunOptions,
    out_dir: Option<&Path>,
    progress: &mut dyn FnMut(sim::RunProgress),
) -> Result<RunOutputs, Error> {
    sim::limits::check_before(&cfg, &opts.limits, out_dir.is_some())?;
    let (format, _) = sim::limits::table_format(&cfg);
    let mut rec = Recorder::new(out_dir, opts.keep_samples, format)?;
    rec.replace_on_commit(opts.replace.clone());
    rec.stream_fct(opts.stream_fct);
    rec.set_output_limit(opts.limits.max_output_bytes);
    Sim::new(cfg, opts, rec)?.run(progress)
}

/// Loads, resolves and runs scenario text (no output files). For tests and tools.
pub fn run_str(text: &str, overrides: &[String], opts: &RunOptions) -> Result<RunOutputs, Error> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let src = scenario::Source::text(text, "<scenario>", &base, "scenario");
    let cfg = scenario::to_config(&src, overrides)?;
    run(cfg, opts, None, &mut |_| {})
}
