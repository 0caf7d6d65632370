//! Agreement with the HPCC ns-3 simulator's own outputs on the 320-host fat-tree
//! (data/ns3-reference: seven runs, the same flows flow by flow). Each run's config
//! is imported, simulated in the ns3-hpcc profile, and matched flow by flow; per
//! flow-size bucket (edges at the 50/80/90/95/99/100th size percentile, buckets of
//! at least 100 flows) the p50, p95 and p99 FCT slowdown must agree within the
//! bound.
//! `--nocapture` prints every table.

use super::common::scratch;
use rocesim::report::agreement::{Agreement, PCT_NAMES};
use rocesim::report::data::load_run;
use rocesim::report::ns3_series::{Ns3Source, load};
use std::collections::BTreeMap;
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
    agreement_and_run(run, "").0
}

/// As `agreement`, also returning our run directory.
/// `tag` keeps the scratch directories of tests that run the same config apart.
fn agreement_and_run(run: &str, tag: &str) -> (Agreement, PathBuf) {
    let dir = scratch(&format!("ns3-ref-{run}{tag}"));
    let out = import_and_run(run, &dir);
    let ours = load_run(&out, "rocesim".into()).unwrap();
    let theirs = ns3_series(run);
    let a = Agreement::of(&ours, &theirs);
    let (h, rows) = a.table();
    eprintln!(
        "{run}\n{}\n{}",
        a.verdict(),
        rocesim::report::text_table(&h, &rows)
    );
    (a, out)
}

/// The simulator's own flows of `run`.
fn ns3_series(run: &str) -> rocesim::report::data::RunData {
    let fct = reference(run).join("fct.txt");
    let src = Ns3Source {
        fct,
        topology: None,
        config: None,
    };
    load(&src, "ns-3".into()).unwrap()
}

/// Imports `run`'s config into `dir`/scenario.toml, which it returns.
fn import(run: &str, dir: &Path) -> PathBuf {
    let scen = dir.join("scenario.toml");
    let config = reference(run).join("config.txt");
    rocesim(&[
        "import-ns3",
        config.to_str().unwrap(),
        "--out",
        scen.to_str().unwrap(),
    ]);
    scen
}

/// Imports `run`'s config into `dir`/scenario.toml and runs it into `dir`/run.
fn import_and_run(run: &str, dir: &Path) -> PathBuf {
    let scen = import(run, dir);
    let out = dir.join("run");
    rocesim(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    out
}

/// Queue-length integral (KB x 100 ns samples) per (switch, port) of the
/// simulator's queue monitor, last block; device j is our port j - 1.
fn ns3_queue_integrals(qlen: &Path) -> BTreeMap<(u32, u32), f64> {
    let text = std::fs::read_to_string(qlen).unwrap();
    let last = text.rsplit("time:").next().unwrap();
    let mut m = BTreeMap::new();
    for line in last.lines().skip(1) {
        let v: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        if v.len() < 3 {
            continue;
        }
        let kb: f64 = v[2..]
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as u64 * c) as f64)
            .sum();
        m.insert((v[0] as u32, v[1] as u32 - 1), kb * 100.0);
    }
    m
}

/// The same from our queue_hist.csv (bin midpoints in KB x ns).
fn our_queue_integrals(run: &Path) -> BTreeMap<(u32, u32), f64> {
    let text = std::fs::read_to_string(run.join("queue_hist.csv")).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines().skip(1) {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        *m.entry((v[0] as u32, v[1] as u32)).or_insert(0.0) += (v[2] + v[3]) / 2000.0 * v[4];
    }
    m
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sx = x.iter().map(|a| (a - mx).powi(2)).sum::<f64>().sqrt();
    let sy = y.iter().map(|b| (b - my).powi(2)).sum::<f64>().sqrt();
    sxy / (sx * sy)
}

/// Per-port queue integrals of the aggregation and core switches (ids 340-375 of
/// mix/fat.txt), ours against the simulator's monitor: where the queues form
/// there depends only on which paths ECMP gives the flows.
fn upper_tier_queue_correlation(run: &str, ours: &Path) -> f64 {
    let theirs = ns3_queue_integrals(&reference(run).join("qlen.txt"));
    let ours = our_queue_integrals(ours);
    let keys: Vec<_> = theirs
        .keys()
        .filter(|k| k.0 >= 340 && ours.contains_key(k))
        .collect();
    assert!(keys.len() >= 200, "{run}: {} upper-tier ports", keys.len());
    let x: Vec<f64> = keys.iter().map(|k| theirs[k]).collect();
    let y: Vec<f64> = keys.iter().map(|k| ours[k]).collect();
    pearson(&x, &y)
}

fn check(run: &str, bound: f64) {
    assert_within(run, &agreement(run), bound);
}

/// The row of docs/ns3-compat.md's agreement table that shows `run`.
fn doc_label(run: &str) -> String {
    let load = match (run.contains("websearch"), run.starts_with("ali")) {
        (true, _) => "WebSearch 50 %, 2 ms",
        (false, true) => "dual-homed, FbHdp 30 %, 1 ms",
        (false, false) => "FbHdp 30 %, 1 ms",
    };
    let cc = match run.rsplit('_').next().unwrap() {
        "hp" => "HPCC",
        "pint" => "HPCC-PINT",
        cc => &cc.to_uppercase(),
    };
    format!("{load}, {cc}")
}

/// docs/ns3-compat.md shows, per reference run, the worst counted p50, p95 and
/// p99 differences: they must be this run's (issue 42 item 21: numbers in the
/// docs are checked, so they cannot go stale).
fn assert_doc_shows(run: &str, a: &Agreement) {
    let worst: Vec<String> = (0..3)
        .map(|k| {
            let d = (a.buckets.iter().filter(|b| b.counted()))
                .map(|b| b.diff()[k])
                .max_by(|x, y| x.abs().total_cmp(&y.abs()))
                .expect("some bucket holds 100 flows");
            format!("{:+.1} %", d * 100.0).replace("-0.0 %", "+0.0 %")
        })
        .collect();
    let label = doc_label(run);
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ns3-compat.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with(&format!("| {label} |")))
        .unwrap_or_else(|| panic!("docs/ns3-compat.md has no row \"| {label} |\""));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(
        cells[3..6],
        worst[..],
        "docs/ns3-compat.md's row for {run} ({label}) shows p50/p95/p99 {:?}; this run gives {worst:?}: update the table",
        &cells[3..6]
    );
}

/// Every flow of `run` has its twin, and every counted bucket agrees within `bound`.
fn assert_within(run: &str, a: &Agreement, bound: f64) {
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
    assert_doc_shows(run, a);
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

/// The share of matched flows whose FCT is within `tol` of the simulator's
/// FCT for the same flow.
fn share_within(a: &Agreement, tol: f64) -> f64 {
    let p = &a.matched.pairs;
    let near = p
        .iter()
        .filter(|x| (x.fct_ns - x.ref_fct_ns).abs() <= tol * x.ref_fct_ns);
    near.count() as f64 / p.len().max(1) as f64
}

#[test]
fn hpcc_agrees_with_ns3_on_its_dual_homed_fabric_within_10_percent() {
    // Every server has two 25 Gbps NICs (issue 45): the flows are placed on
    // them and their packets land and are handed over as ns-3 does (host-wide
    // queue pairs). With one NIC a server (multi_homed = "first-link") the
    // worst bucket was 40 % off; with per-NIC queue pairs, 5.1 %.
    let run = "ali_fbhdp_l30_25G_1ms_seed8_hp";
    let a = agreement(run);
    assert_within(run, &a, 0.10);
    // Flow by flow (99.9 % measured; 99.5 % with per-NIC queue pairs).
    let near = share_within(&a, 0.10);
    assert!(
        near >= 0.99,
        "{run}: {:.1} % of flows within 10 %",
        near * 100.0
    );
}

#[test]
fn dcqcn_on_ns3s_dual_homed_fabric_matches_flow_by_flow_and_its_tail_within_its_marking_draws() {
    // DCQCN marks ECN at random, so its tails move with the seed; on this
    // run's 2,152 flows a counted bucket's p99 is its 2nd-11th slowest flow,
    // and our five seeds move it by up to 50 %. Asserted: 98 % of flows
    // within 10 % of their twin's FCT and every counted p50 and p95 within
    // 10 % on the default seed; flow by flow over five seeds, that the flows
    // our draws do not move agree with their twins and the simulator's FCT of
    // the others lies within what our draws give; and the simulator's p99 of
    // every counted bucket within 10 % of the range our five seeds give.
    let run = "ali_fbhdp_l30_25G_1ms_seed8_dcqcn";
    let dir = scratch("ns3-ref-ali-dcqcn-seeds");
    let scen = import(run, &dir);
    let theirs = ns3_series(run);
    let mut p99: Vec<(f64, f64, f64)> = Vec::new();
    // Per flow (source, destination, size, start): our FCT's range over the
    // seeds, and the simulator's FCT.
    type FlowKey = (u32, u32, u64, u64);
    let mut per_flow: BTreeMap<FlowKey, (f64, f64, f64)> = BTreeMap::new();
    for seed in 1..=5 {
        let out = dir.join(format!("run{seed}"));
        let set = format!("seed={seed}");
        let (scen, out_s) = (scen.to_str().unwrap(), out.to_str().unwrap());
        rocesim(&["run", scen, "--out", out_s, "-q", "--set", &set]);
        let a = Agreement::of(&load_run(&out, "rocesim".into()).unwrap(), &theirs);
        let counted: Vec<_> = a.buckets.iter().filter(|b| b.counted()).collect();
        assert!(
            counted.len() >= 3,
            "{run}: {} counted buckets",
            counted.len()
        );
        if seed == 1 {
            assert_eq!((a.matched.only_ours, a.matched.only_ref), (0, 0));
            // Flow by flow: 99.3 % within 10 % of the simulator's FCT, most of
            // the tail to the nanosecond; the rest are flows behind queues
            // that other flows' ECN draws shape.
            let near = share_within(&a, 0.10);
            assert!(
                near >= 0.98,
                "{run}: {:.1} % of flows within 10 %",
                near * 100.0
            );
            for b in &counted {
                let d = b.diff();
                assert!(
                    d[0].abs() <= 0.10 && d[1].abs() <= 0.10,
                    "{run}: p50/p95 of {}-{} B differ by {:+.1}/{:+.1} %",
                    b.lo,
                    b.hi,
                    d[0] * 100.0,
                    d[1] * 100.0
                );
            }
            assert_doc_shows(run, &a);
        }
        assert!(
            p99.is_empty() || p99.len() == counted.len(),
            "the same buckets each seed"
        );
        for x in &a.matched.pairs {
            let key = (x.src, x.dst, x.size, x.start_ns.to_bits());
            let r = per_flow
                .entry(key)
                .or_insert((x.fct_ns, x.fct_ns, x.ref_fct_ns));
            (r.0, r.1) = (r.0.min(x.fct_ns), r.1.max(x.fct_ns));
        }
        for (i, b) in counted.iter().enumerate() {
            let (ours, ns3) = (b.ours[2], b.reference[2]);
            match p99.get_mut(i) {
                Some(r) => (r.0, r.1) = (r.0.min(ours), r.1.max(ours)),
                None => p99.push((ours, ours, ns3)),
            }
        }
    }
    for (lo, hi, ns3) in p99 {
        eprintln!("{run}: p99 ours {lo:.3}-{hi:.3} over 5 seeds, ns-3 {ns3:.3}");
        assert!(
            ns3 >= lo * 0.9 && ns3 <= hi * 1.1,
            "{run}: ns-3's p99 {ns3:.3} outside our seeds' {lo:.3}-{hi:.3} (+-10 %)"
        );
    }
    // Flow by flow (measured: 2,106 of the 2,152 flows move less than 5 %
    // with the seed, and every one of them is within 10 % of its twin; of
    // the 46 that our draws move, the simulator's FCT is within 10 % of our
    // range for 44).
    let steady: Vec<_> = per_flow.values().filter(|r| r.1 <= r.0 * 1.05).collect();
    let off = steady
        .iter()
        .filter(|r| (r.0 - r.2).abs() > 0.1 * r.2)
        .count();
    let outside = (per_flow.values())
        .filter(|r| r.2 < r.0 * 0.9 || r.2 > r.1 * 1.1)
        .count();
    eprintln!(
        "{run}: {} of {} flows steady over the seeds, {off} of them more than 10 % off; \
         {outside} flows outside our seeds' range",
        steady.len(),
        per_flow.len()
    );
    assert!(
        steady.len() * 10 >= per_flow.len() * 9,
        "most flows draw-free"
    );
    assert!(
        off * 200 <= steady.len(),
        "{off} steady flows off by > 10 %"
    );
    assert!(outside * 200 <= per_flow.len(), "{outside} flows outside");
    // Host-wide queue pairs are what makes the flows match: with a queue pair
    // per NIC, ACKs return to the sending NIC and wait behind its downlink's
    // DCQCN queue (95.8 % of flows within 10 % measured).
    let out = dir.join("per-nic");
    let (scen, out_s) = (scen.to_str().unwrap(), out.to_str().unwrap());
    let set = "nic.queue_pairs=\"per-nic\"";
    rocesim(&["run", scen, "--out", out_s, "-q", "--set", set]);
    let a = Agreement::of(&load_run(&out, "rocesim".into()).unwrap(), &theirs);
    let near = share_within(&a, 0.10);
    assert!(
        near <= 0.97,
        "{run}, per-NIC: {:.1} % of flows within 10 %",
        near * 100.0
    );
}

#[test]
fn ecmp_puts_the_upper_tier_queues_on_the_same_ports_as_ns3() {
    // With next hops in ascending switch id order the correlation is -0.02:
    // the queues form on other ports, because flows take other paths.
    for run in [
        "fat_fbhdp_l30_100G_1ms_seed2_dcqcn",
        "fat_fbhdp_l30_100G_1ms_seed2_hp",
    ] {
        let (_, ours) = agreement_and_run(run, "-ecmp");
        let r = upper_tier_queue_correlation(run, &ours);
        eprintln!("{run}: per-port queue correlation at aggregation and core switches {r:.3}");
        assert!(r >= 0.95, "{run}: correlation {r:.3}");
    }
}

#[test]
fn dcqcn_agrees_with_ns3_on_web_search_within_10_percent() {
    check("fat_websearch_l50_100G_2ms_seed3_dcqcn", 0.10);
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
fn hpcc_pint_agrees_with_ns3_on_fb_hadoop_within_10_percent() {
    // Agreement in distribution: the simulator rounds with C's rand(), we with
    // seeded generators. With the default seed the worst counted bucket is
    // +1.8 %; other seeds move the p99 of the largest counted bucket by up to
    // +16 % (docs/ns3-compat.md, "HPCC-PINT").
    // CC_MODE 10 imports as hpcc-pint with the config's PINT keys.
    let run = "fat_fbhdp_l30_100G_1ms_seed2_pint";
    let (a, ours) = agreement_and_run(run, "");
    let scenario = std::fs::read_to_string(ours.join("scenario.toml")).unwrap();
    for line in [
        "algorithm = \"hpcc-pint\"",
        "pint_log_base = 1.01",
        "pint_prob = 1.0",
    ] {
        assert!(
            scenario.contains(line),
            "scenario lacks {line}:\n{scenario}"
        );
    }
    assert_within(run, &a, 0.10);
}

#[test]
fn compare_takes_an_ns3_config_as_a_series_and_writes_the_agreement() {
    let run = "fat_fbhdp_l30_100G_1ms_seed2_dctcp";
    let dir = scratch("ns3-compare-cli");
    let config = reference(run).join("config.txt");
    let ours = import_and_run(run, &dir);
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
