//! The `rocesim` command line.

mod bench;
mod compare;
pub mod gen_flows;
mod import_ns3;
mod model;
mod report;
mod reproduce;
mod run;
mod sweep;
mod thresholds;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "rocesim",
    version,
    about = "Packet-level simulator of lossless RDMA (RoCEv2) datacenter networks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a scenario and write its outputs (fct.csv, pfc.csv, queue.csv, summary.json, ...).
    Run(RunArgs),
    /// Write RUN_DIR/report.html and figures, and print FCT slowdown by flow size.
    Report(report::ReportArgs),
    /// Compare runs: every figure with one series per run, headline numbers side by side.
    Compare(compare::CompareArgs),
    /// Check a scenario (files, fields, topology, flows) without running it.
    Validate(ScenarioArgs),
    /// Measure simulator speed (packet transmissions and events per second).
    Bench(bench::BenchArgs),
    /// Write the flows a scenario would simulate (CSV and/or ns-3 flow file).
    GenFlows(gen_flows::GenFlowsArgs),
    /// Solve an analytical model from the papers (dcqcn-fluid, rcc-fluid, hpcc-discrete).
    Model(model::ModelArgs),
    /// Re-run a paper's figure or table and compare with the paper (--list for ids).
    Reproduce(reproduce::ReproduceArgs),
    /// Run a parameter sweep (a base scenario over axes) locally or as a Slurm job
    /// array, and collect sweep.csv (docs/sweeps.md).
    Sweep(sweep::SweepArgs),
    /// Convert an HPCC ns-3 config file into an equivalent scenario (profile ns3-hpcc).
    #[command(name = "import-ns3")]
    ImportNs3(import_ns3::ImportNs3Args),
    /// Print DCQCN §4's buffer thresholds (t_flight, t_PFC, t_ECN) for a switch.
    Thresholds(thresholds::ThresholdsArgs),
}

#[derive(clap::Args, Debug, Clone)]
pub struct ScenarioArgs {
    /// Scenario file (TOML). Omit to use the built-in quick-start scenario.
    pub scenario: Option<PathBuf>,
    /// Override a scenario key, e.g. --set cc.algorithm=dcqcn (repeatable).
    #[arg(long = "set", value_name = "KEY.PATH=VALUE")]
    pub set: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Output directory (default: runs/<scenario name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Random seed (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar and no table.
    #[arg(long, short)]
    pub quiet: bool,
    /// "ns3": also write the HPCC ns-3 simulator's fct.txt and pfc.txt (as
    /// `--set output.fct_format=ns3`).
    #[arg(long, value_name = "csv|ns3")]
    pub fct_format: Option<String>,
    /// Also write OUT/report.html and figures, and print FCT slowdown by flow size
    /// (as `rocesim report OUT`).
    #[arg(long)]
    pub report: bool,
}

/// Prints to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Parses arguments, runs the command, and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Run(a) => run::run(&a),
        Command::Report(a) => report::report(&a),
        Command::Compare(a) => compare::compare(&a),
        Command::Validate(a) => run::validate(&a),
        Command::Bench(a) => bench::bench(&a),
        Command::GenFlows(a) => gen_flows::gen_flows(&a),
        Command::Model(a) => model::model(&a),
        Command::Reproduce(a) => reproduce::reproduce(&a),
        Command::Sweep(a) => sweep::sweep(&a),
        Command::Thresholds(a) => thresholds::thresholds(&a),
        Command::ImportNs3(a) => import_ns3::import_ns3(&a),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
