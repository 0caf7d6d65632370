//! `rocesim bench`: simulator speed on fixed scenarios, single thread.
//!
//! Reports packet transmissions per second (PTS: packets of any kind put on any
//! link, per wall-clock second) and events per second. Each scenario runs
//! `--repeat` times; the best run is reported (the least disturbed by the machine).
//! `--recorders` measures the cost of the recorders: `off` (the default: no
//! output files, only the in-memory FCT records), `default` (the `[output]`
//! defaults, files written to a temporary directory, queue.csv sampling off as
//! the fat-tree scenario has it) or `all` (every recorder on every switch port and
//! flow: queue.csv every 10 us, histograms, link utilization and flow rates every
//! 10 us, latency of all flows).

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
    /// Recorders: off, default or all.
    #[arg(long, value_enum, default_value_t = Recorders::Off)]
    pub recorders: Recorders,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorders {
    Off,
    Default,
    All,
}

fn recorder_overrides(r: Recorders) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    match r {
        Recorders::Off => vec![],
        Recorders::Default => s(&["output.queue_interval=\"0s\""]),
        Recorders::All => s(&[
            "output.queue_interval=\"10us\"",
            "output.link_utilization=\"10us\"",
            "output.flow_rates={ flows = \"all\", interval = \"10us\" }",
            "output.latency={ flows = \"all\" }",
        ]),
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

const FAT_TREE: &str = r#"
name = "fattree-fbhdp-30pct-1ms-hpcc"
[topology]
kind = "ns3"
file = "../data/hpcc-ns3/mix/fat.txt"
[cc]
algorithm = "hpcc"
[workload]
ns3_flow_files = ["../data/hpcc-ns3/generated/scenarios/fat_fbhdp_l30_100G_1ms_seed1.txt"]
ns3_time_offset = "2s"
[output]
queue_interval = "0s"
"#;

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
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    outln!(
        "{:<32} {:>10} {:>12} {:>12} {:>10} {:>10}",
        "scenario",
        "wall s",
        "packets",
        "events",
        "M pkts/s",
        "M ev/s"
    );
    let tmp = std::env::temp_dir().join(format!("rocesim-bench-{}", std::process::id()));
    let out_dir = (args.recorders != Recorders::Off).then_some(tmp.as_path());
    for (name, text, mut set) in scenarios(args.full) {
        if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        set.extend(recorder_overrides(args.recorders));
        let mut best: Option<crate::output::Summary> = None;
        for _ in 0..args.repeat {
            let mut cfg = scenario::to_config(&Source::text(text, name, &base, name), &set)?;
            if args.recorders == Recorders::Off {
                cfg.output.queue_interval = None;
            }
            let out = crate::run(cfg, &RunOptions::default(), out_dir, &mut |_, _, _| {})?;
            if best
                .as_ref()
                .is_none_or(|b| out.summary.wall_seconds < b.wall_seconds)
            {
                best = Some(out.summary);
            }
        }
        let s = best.expect("at least one run");
        outln!(
            "{:<32} {:>10.3} {:>12} {:>12} {:>10.2} {:>10.2}",
            name,
            s.wall_seconds,
            s.packets_transmitted,
            s.events,
            s.packets_per_second / 1e6,
            s.events_per_second / 1e6
        );
    }
    if out_dir.is_some() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(())
}
