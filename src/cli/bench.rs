//! `rocesim bench`: simulator speed on fixed scenarios (or `--scenario FILE`).
//!
//! Reports packet transmissions per second (PTS: packets of any kind put on any
//! link, per wall-clock second) and events per second. Each scenario runs
//! `--repeat` times; the best run is reported (the least disturbed by the machine).
//! `--recorders` measures the cost of the recorders: `off` (the default: no
//! output files, only the in-memory FCT records), `default` (the `[output]`
//! defaults, files written to a temporary directory, queue.csv sampling off as
//! the fat-tree scenario has it), `scenario` (each scenario's own `[output]` as
//! `rocesim run` would record it, queue.csv sampling included: what a default
//! run costs) or `all` (every recorder on every switch port and flow: queue.csv
//! every 10 us, histograms, link utilization and flow rates every 10 us, latency
//! of all flows).
//!
//! `--threads 1,2,4` runs each scenario on each thread count (docs/parallel.md)
//! and adds the speed-up over the first count, the parallel efficiency
//! (speed-up / threads), the events each partition handles per window, the
//! share of packet transmissions that cross partitions, the share of events
//! handled in the parallel phase, and the share of that phase's wall time
//! spent outside the partitions' work (synchronisation and the serial merge).

use crate::error::{Error, InputError};
use crate::scenario::{self, Source};
use crate::sim::RunOptions;
use std::path::Path;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Runs per scenario (the best is reported).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Only scenarios whose name contains this.
    #[arg(long)]
    pub only: Option<String>,
    /// Also run the large fat-tree benchmark (320 hosts, FB_Hadoop 30% load, 1 ms of arrivals).
    #[arg(long)]
    pub full: bool,
    /// Recorders: off, default, scenario (the scenario's own `[output]`, as
    /// `rocesim run` records it) or all.
    #[arg(long, value_enum, default_value_t = Recorders::Off)]
    pub recorders: Recorders,
    /// Thread counts to run each scenario on, e.g. 1,2.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub threads: Vec<usize>,
    /// Benchmark this scenario file instead of the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<std::path::PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorders {
    /// No output files; queue sampling off.
    Off,
    /// The `[output]` defaults with queue.csv sampling off.
    Default,
    /// Each scenario's own `[output]`, unchanged (what `rocesim run` records).
    Scenario,
    /// Every recorder on every port and flow, every 10 us.
    All,
}

fn recorder_overrides(r: Recorders) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    match r {
        Recorders::Off | Recorders::Scenario => vec![],
        Recorders::Default => s(&["output.queue_interval=\"0s\""]),
        // Every sampled recorder's own override, and the delay histogram's.
        Recorders::All => (crate::output::observers::REGISTERED.iter())
            .filter_map(|r| (r.all_on)())
            .chain(["output.latency={ flows = \"all\" }"])
            .map(String::from)
            .collect(),
    }
}

/// (name, scenario text, overrides)
fn scenarios(full: bool) -> Vec<(&'static str, &'static str, Vec<String>)> {
    let mut v = vec![
        (
            "incast-16to1-hpcc",
            include_str!("../../scenarios/incast-16to1-hpcc.toml"),
            vec![],
        ),
        (
            "incast-16to1-dcqcn",
            include_str!("../../scenarios/incast-16to1-dcqcn.toml"),
            vec![],
        ),
        (
            "incast-16to1-pfc-only",
            include_str!("../../scenarios/incast-16to1-pfc-only.toml"),
            vec![],
        ),
    ];
    if full {
        v.push(("fattree-fbhdp-30pct-1ms-hpcc", FAT_TREE, vec![]));
    }
    v
}

const FAT_TREE: &str = include_str!("../../scenarios/fattree-fbhdp-30pct-1ms-hpcc.toml");

pub fn bench(args: &BenchArgs) -> Result<(), Error> {
    if args.repeat == 0 {
        return Err(InputError::new(
            "--repeat",
            "",
            "must be at least 1 (the best of N runs is reported)",
        )
        .into());
    }
    if let Some(o) = &args.only
        && !scenarios(args.full)
            .iter()
            .any(|(n, _, _)| n.contains(o.as_str()))
    {
        let names: Vec<&str> = scenarios(true).iter().map(|s| s.0).collect();
        let msg = format!(
            "{o:?} matches no benchmark (valid: a part of {}; the fat-tree needs --full)",
            names.join(", ")
        );
        return Err(InputError::new("--only", "", msg).into());
    }
    for &t in &args.threads {
        super::run::check_threads(t)?;
    }
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let parallel = args.threads.iter().any(|&t| t > 1);
    outln!(
        "build: {} (scripts/build-pgo.sh builds the profile-guided one; docs/performance.md)",
        crate::build_info::BUILD
    );
    outln!(
        "heap: transparent huge pages {} (ROCESIM_THP=0 turns them off; docs/performance.md)",
        if crate::huge_pages::active() {
            "on"
        } else {
            "off"
        }
    );
    outln!(
        "{:<32} {:>3} {:>9} {:>11} {:>11} {:>8} {:>8}{}",
        "scenario",
        "thr",
        "wall s",
        "packets",
        "events",
        "M pkt/s",
        "M ev/s",
        if parallel {
            format!(
                " {:>7} {:>6} {:>9} {:>7} {:>7} {:>7}",
                "speedup", "effic", "ev/window", "cross%", "par%", "sync%"
            )
        } else {
            String::new()
        }
    );
    let tmp = std::env::temp_dir().join(format!("rocesim-bench-{}", std::process::id()));
    let out_dir = (args.recorders != Recorders::Off).then_some(tmp.as_path());
    if out_dir.is_some() {
        // Ctrl-C between repeats leaves committed files there: removed too.
        crate::output::register_scratch_dir(&tmp);
    }
    let list: Vec<(String, Source, Vec<String>)> = match &args.scenario {
        Some(path) => {
            let name = path
                .file_stem()
                .map_or("scenario".into(), |s| s.to_string_lossy().into_owned());
            vec![(name, Source::File(path.clone()), vec![])]
        }
        None => scenarios(args.full)
            .into_iter()
            .filter(|(name, _, _)| args.only.as_deref().is_none_or(|o| name.contains(o)))
            .map(|(name, text, set)| (name.to_string(), Source::text(text, name, &base, name), set))
            .collect(),
    };
    for (name, src, mut set) in list {
        set.extend(recorder_overrides(args.recorders));
        let mut first_wall = None;
        for &threads in &args.threads {
            let mut best: Option<crate::output::Summary> = None;
            for _ in 0..args.repeat {
                let mut cfg = scenario::to_config(&src, &set)?;
                if args.recorders == Recorders::Off {
                    cfg.output.queue_interval = None;
                }
                let opts = RunOptions {
                    threads: Some(threads),
                    ..RunOptions::default()
                };
                let out = crate::run(cfg, &opts, out_dir, &mut |_| {})?;
                if best
                    .as_ref()
                    .is_none_or(|b| out.summary.wall_seconds < b.wall_seconds)
                {
                    best = Some(out.summary);
                }
            }
            let s = best.expect("at least one run");
            let first = *first_wall.get_or_insert(s.wall_seconds);
            outln!(
                "{:<32} {:>3} {:>9.3} {:>11} {:>11} {:>8.2} {:>8.2}{}",
                name,
                threads,
                s.wall_seconds,
                s.packets_transmitted,
                s.events,
                s.packets_per_second / 1e6,
                s.events_per_second / 1e6,
                if parallel {
                    parallel_columns(&s, first, threads)
                } else {
                    String::new()
                }
            );
        }
    }
    if out_dir.is_some() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(())
}

/// Speed-up over the first thread count's wall time, efficiency, events per
/// partition per window, crossing packets, the parallel phase's share of the
/// events, and the share of its wall time not spent in partitions' work.
fn parallel_columns(s: &crate::output::Summary, first_wall: f64, threads: usize) -> String {
    let e = &s.engine;
    let speedup = first_wall / s.wall_seconds.max(1e-9);
    let per_window = if e.windows > 0 {
        e.window_events as f64 / e.windows as f64 / e.partitions.max(1) as f64
    } else {
        0.0
    };
    let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
    if threads == 1 {
        return format!(
            " {speedup:>7.2} {:>6.2} {:>9} {:>7} {:>7} {:>7}",
            speedup, "-", "-", "-", "-"
        );
    }
    format!(
        " {:>7.2} {:>6.2} {:>9.0} {:>7.1} {:>7.1} {:>7.1}",
        speedup,
        speedup / threads as f64,
        per_window,
        pct(e.crossed_packets as f64, s.packets_transmitted as f64),
        pct(e.window_events as f64, s.events as f64),
        pct(e.windowed_seconds - e.critical_seconds, e.windowed_seconds),
    )
}
