//! `rocesim bench`: simulator speed on fixed scenarios, single thread.
//!
//! Reports packet transmissions per second (PTS: packets of any kind put on any
//! link, per wall-clock second) and events per second. Each scenario runs
//! `--repeat` times; the best run is reported (the least disturbed by the machine).

use crate::error::Error;
use crate::scenario::load;
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
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    println!(
        "{:<32} {:>10} {:>12} {:>12} {:>10} {:>10}",
        "scenario", "wall s", "packets", "events", "M pkts/s", "M ev/s"
    );
    for (name, text, set) in scenarios(args.full) {
        if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut best: Option<crate::output::Summary> = None;
        for _ in 0..args.repeat.max(1) {
            let loaded = load::load_str(text, name, &base, name, &set)?;
            let mut cfg = crate::scenario::resolve(&loaded)?;
            cfg.output.queue_interval = None;
            let out = crate::run(cfg, &RunOptions::default(), None, &mut |_, _, _| {})?;
            if best
                .as_ref()
                .is_none_or(|b| out.summary.wall_seconds < b.wall_seconds)
            {
                best = Some(out.summary);
            }
        }
        let s = best.expect("at least one run");
        println!(
            "{:<32} {:>10.3} {:>12} {:>12} {:>10.2} {:>10.2}",
            name,
            s.wall_seconds,
            s.packets_transmitted,
            s.events,
            s.packets_per_second / 1e6,
            s.events_per_second / 1e6
        );
    }
    Ok(())
}
