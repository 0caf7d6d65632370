//! Agreement with the HPCC ns-3 simulator's own outputs on the 320-host fat-tree
//! (data/ns3-reference: six runs, the same flows flow by flow). Each run's config
//! is imported, simulated in the ns3-hpcc profile, and matched flow by flow; per
//! flow-size bucket (edges at the 50/80/90/95/99/100th size percentile, buckets of
//! at least 100 flows) the p50, p95 and p99 FCT slowdown must agree within the
//! bound.
//! `--nocapture` prints every table.

use super::common::scratch;
use rocesim::report::agreement::{Agreement, PCT_NAMES};
use rocesim::report::data::load_run;
use rocesim::report::ns3_series::{Ns3Source, load};
use std::path::{Path, PathBuf};
use std::process::Command;

fn reference(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/ns3-reference")
        .join(run)
}

fn rocesim(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "rocesim {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Imports and runs `run`, and matches its flows with the simulator's.
fn agreement(run: &str) -> Agreement {
    let dir = scratch(&format!("ns3-ref-{run}"));
    let scen = dir.join("scenario.toml");
    let config = reference(run).join("config.txt");
    rocesim(&[
        "import-ns3",
        config.to_str().unwrap(),
        "--out",
        scen.to_str().unwrap(),
    ]);
    let out = dir.join("run");
    rocesim(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let ours = load_run(&out, "rocesim".into()).unwrap();
    let theirs = load(
        &Ns3Source {
            fct: reference(run).join("fct.txt"),
            topology: None,
            config: None,
        },
        "ns-3".into(),
    )
    .unwrap();
    let a = Agreement::of(&ours, &theirs);
    let (h, rows) = a.table();
    eprintln!(
        "{run}\n{}\n{}",
        a.verdict(),
        rocesim::report::text_table(&h, &rows)
    );
    a
}

fn check(run: &str, bound: f64) {
    let a = agreement(run);
    let m = &a.matched;
    assert_eq!(
        (m.only_ours, m.only_ref, m.unkeyed),
        (0, 0, 0),
        "{run}: every flow has its twin"
    );
    let w = a.worst.expect("some bucket holds 100 flows");
    let b = &a.buckets[w.bucket];
    assert!(
        w.diff.abs() <= bound,
        "{run}: {} of flows {}-{} B differs by {:+.1}% (bound {:.0}%)",
        PCT_NAMES[w.which],
        b.lo,
        b.hi,
        w.diff * 100.0,
        bound * 100.0
    );
}

#[test]
fn hpcc_agrees_with_ns3_on_fb_hadoop_within_10_percent() {
    check("fat_fbhdp_l30_100G_1ms_seed2_hp", 0.10);
}

#[test]
fn hpcc_agrees_with_ns3_on_web_search_within_10_percent() {
    check("fat_websearch_l50_100G_2ms_seed3_hp", 0.10);
}

#[test]
fn dcqcn_agrees_with_ns3_on_fb_hadoop_within_10_percent() {
    check("fat_fbhdp_l30_100G_1ms_seed2_dcqcn", 0.10);
}

#[test]
fn dcqcn_agrees_with_ns3_on_web_search_within_10_percent_but_the_small_flows_p99() {
    // The goal is 10 % everywhere. Every counted bucket's p50 and p95 and every
    // p99 but one meet it; the p99 of the 1026 flows up to 70.6 KB (their 11th
    // worst flow) is a known gap, 9-14 % low over seeds 1-6 (-12.8 % with the
    // default seed): docs/ns3-compat.md, "Agreement with the reference runs".
    // The buckets of fewer than 100 flows are checked too: the 20 largest flows
    // (23.5-29.7 MB) came out 12-19 % fast at p95/p99 until the NIC looked for
    // packets as ns-3's does (`model.nic_scheduler = "ns3"`).
    let run = "fat_websearch_l50_100G_2ms_seed3_dcqcn";
    let a = agreement(run);
    assert_eq!(a.matched.only_ours + a.matched.only_ref, 0, "{run}: twins");
    for (i, b) in a.buckets.iter().enumerate() {
        let d = b.diff();
        let p99_bound = if i == 0 { 0.15 } else { 0.10 };
        for (which, bound) in [(0, 0.10), (1, 0.10), (2, p99_bound)] {
            assert!(
                d[which].abs() <= bound,
                "{run}: {} of flows {}-{} B differs by {:+.1}% (bound {:.0}%)",
                PCT_NAMES[which],
                b.lo,
                b.hi,
                d[which] * 100.0,
                bound * 100.0
            );
        }
    }
}

#[test]
fn timely_agrees_with_ns3_on_fb_hadoop_within_10_percent() {
    check("fat_fbhdp_l30_100G_1ms_seed2_timely", 0.10);
}

#[test]
fn dctcp_agrees_with_ns3_on_fb_hadoop_within_10_percent() {
    check("fat_fbhdp_l30_100G_1ms_seed2_dctcp", 0.10);
}

#[test]
fn compare_takes_an_ns3_config_as_a_series_and_writes_the_agreement() {
    let run = "fat_fbhdp_l30_100G_1ms_seed2_dctcp";
    let dir = scratch("ns3-compare-cli");
    let scen = dir.join("scenario.toml");
    let config = reference(run).join("config.txt");
    rocesim(&[
        "import-ns3",
        config.to_str().unwrap(),
        "--out",
        scen.to_str().unwrap(),
    ]);
    let ours = dir.join("run");
    rocesim(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        ours.to_str().unwrap(),
        "-q",
    ]);
    let out = dir.join("cmp");
    rocesim(&[
        "compare",
        ours.to_str().unwrap(),
        "--ns3",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let csv = std::fs::read_to_string(out.join("agreement.csv")).unwrap();
    // Six buckets x three percentiles.
    assert_eq!(csv.lines().count(), 1 + 18, "{csv}");
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(html.contains("Agreement flow by flow"));
    assert!(html.contains("9737 flows matched"));
    for f in ["agreement_1.svg", "fct_scatter_1.svg"] {
        assert!(out.join("figures").join(f).exists(), "{f}");
    }
}
