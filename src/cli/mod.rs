//! The `rocesim` command line.

/// `println!` that, like a Unix tool, stays quiet when the reader has gone
/// (`rocesim reproduce --list | head -1`): no "Broken pipe" panic.
macro_rules! outln {
    () => {
        $crate::cli::print_out("\n")
    };
    ($($arg:tt)*) => {
        $crate::cli::print_out(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod bench;
mod compare;
pub mod gen_flows;
mod import_ns3;
mod model;
pub mod out_dir;
mod progress;
mod report;
mod reproduce;
pub mod run;
mod sweep;
mod thresholds;
mod warnings;

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
    /// Check a scenario (files, fields, topology, flows, limits) without running it.
    Validate(ValidateArgs),
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

/// Limits against runaway runs (docs/scenario.md#limits).
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Stop with an error when the simulated clock passes this (default 10s).
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_delta)]
    pub max_sim_time: Option<crate::units::Delta>,
    /// Stop with an error when the output files together pass this size
    /// (default 2GB).
    #[arg(long, value_name = "SIZE", value_parser = crate::units::parse_bytes)]
    pub max_output: Option<u64>,
    /// Stop with an error when the run has taken this long on the wall clock
    /// (e.g. 90s, 30min, 2h; default: no limit).
    #[arg(long, value_name = "DURATION", value_parser = parse_wall_time)]
    pub max_wall_time: Option<std::time::Duration>,
}

/// A wall-clock duration: a positive number and s, min (or m), h or d.
pub fn parse_wall_time(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => {
            return Err(format!(
                "\"{s}\" is not a wall-clock duration (valid: a number and s, min, h or d, e.g. 90s, 30min, 2h)"
            ));
        }
    };
    match num.parse::<f64>() {
        Ok(v) if v > 0.0 && (v * scale) < 1e9 => Ok(std::time::Duration::from_secs_f64(v * scale)),
        _ => Err(format!(
            "\"{s}\" is not a wall-clock duration (valid: more than 0 and less than 31 years, e.g. 90s, 30min, 2h)"
        )),
    }
}

impl LimitArgs {
    pub fn limits(&self) -> crate::sim::limits::Limits {
        let d = crate::sim::limits::Limits::default();
        crate::sim::limits::Limits {
            max_sim_time: self.max_sim_time.unwrap_or(d.max_sim_time),
            max_output_bytes: self.max_output.unwrap_or(d.max_output_bytes),
            max_wall_time: self.max_wall_time,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
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
    /// Reuse an output directory that holds a previous run: its files are
    /// replaced (files rocesim did not write are never deleted; the run refuses).
    #[arg(long)]
    pub force: bool,
    /// Threads to run on (overrides the scenario's `run.threads`; default 1).
    /// The outputs are byte-identical for any number (docs/parallel.md).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Run on the MPI ranks this process was started among (`mpirun -np K
    /// rocesim run S --mpi`), one partition each; rank 0 writes the outputs,
    /// byte-identical to a run on one thread. Needs a build with the `mpi`
    /// feature (docs/parallel.md).
    #[arg(long)]
    pub mpi: bool,
    /// Where stderr is not a terminal (batch jobs, CI logs): a progress line
    /// this often, e.g. 30s (default 5s).
    #[arg(long, value_name = "DURATION", value_parser = parse_wall_time)]
    pub progress_every: Option<std::time::Duration>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Prints to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

pub(crate) use crate::error::io_reason;

/// An I/O failure writing where `flag` pointed, as a one-line input error naming
/// the flag and the path (exit code 2); other errors pass through.
pub(crate) fn flag_error(flag: &str, e: crate::error::Error) -> crate::error::Error {
    match e {
        crate::error::Error::Io { path: p, source } => {
            let msg = format!("cannot write {}: {}", p.display(), io_reason(&source));
            crate::error::InputError::new(flag, "", msg).into()
        }
        other => other,
    }
}

/// On SIGINT (Ctrl-C), SIGTERM or SIGHUP: remove the temporary files of the
/// outputs being written (and the empty run directory made for them), then exit
/// with 128 + the signal number (130, 143, 129), as shells report it.
/// `after`: what is left, for the message (`no output written`, or a sweep's
/// finished points).
fn clean_up_on_signals(after: &'static str) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            crate::output::remove_all_temporaries();
            let name = match sig {
                SIGINT => "SIGINT",
                SIGTERM => "SIGTERM",
                _ => "SIGHUP",
            };
            // Not eprintln!: with stderr closed (`2>&1 | head -1`) it panics,
            // and this thread holds the registry until the process exits.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "\nerror: interrupted by {name}; {after}");
            std::process::exit(128 + sig);
        }
    });
}

/// Parses arguments, runs the command, and returns the process exit code.
pub fn main() -> i32 {
    crate::huge_pages::enable();
    let cli = Cli::parse();
    clean_up_on_signals(match &cli.command {
        // Each point is written when it finishes, and a sweep skips complete points.
        Command::Sweep(_) => {
            "the points finished so far are kept (the same command resumes the sweep)"
        }
        _ => "no output written",
    });
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
