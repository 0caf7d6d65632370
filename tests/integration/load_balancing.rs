//! Flowlet switching and adaptive routing (`switch.load_balancing =
//! "flowlet"`, `"adaptive"`; docs/models.md, "Load balancing") on a k = 4
//! fat-tree, eight 4 MB flows from pod 0 to pod 1, PFC on, IRN, DCQCN:
//!
//! - adaptive routing steers packets away from the uplinks where ECMP's hash
//!   piles flows up: the core links carry more equal bytes and the flows end
//!   sooner, every byte delivered, nothing dropped;
//! - flowlet switching moves a flow only when it pauses for more than the gap:
//!   window-limited flows pause every round trip, so each window is a new
//!   flowlet, and their bytes spread over the core links as a uniform draw per
//!   window would, without a packet arriving out of order;
//! - both are byte-identical on 1 and 3 threads.

use crate::common::{
    assert_all_delivered, config, ecmp_path, link_data_bytes, output_files, scratch,
};
use rocesim::config::RunConfig;
use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;
use std::collections::BTreeMap;
use std::path::Path;

/// The k = 4 fat-tree (100 Gbps, 1 us links): hosts 0-15, two per ToR (nodes
/// 16-23), pods of two ToRs and two Aggs (24-31), four cores (32-35). Pod 0
/// (hosts 0-3) sends two flows per host to pod 1 (hosts 4-7), each host of
/// pod 1 receiving two: 400 Gbps offered to pod 0's four core links.
fn two_pods(seed: u64, load_balancing: &str) -> String {
    let mut s = format!(
        r#"
name = "two-pods"
seed = {seed}
[topology]
kind = "fat-tree"
k = 4
host_rate = "100Gbps"
delay = "1us"
[switch]
load_balancing = "{load_balancing}"
[nic]
loss_recovery = "irn"
[cc]
algorithm = "dcqcn"
[output]
queue_interval = "0s"
link_utilization = "10us"
"#
    );
    for h in 0..4 {
        for k in 0..2 {
            let dst = 4 + (h + k) % 4;
            s += &format!("[[workload.flows]]\nsrc = {h}\ndst = {dst}\nsize = \"4MB\"\n");
        }
    }
    s
}

/// Runs `text` on `threads` threads into a fresh directory `name`; the
/// outputs and the directory.
fn run_on(
    name: &str,
    text: &str,
    overrides: &[&str],
    threads: usize,
) -> (RunOutputs, std::path::PathBuf) {
    let dir = scratch(name);
    let opts = RunOptions {
        threads: Some(threads),
        ..RunOptions::default()
    };
    let out = rocesim::run(config(text, overrides), &opts, Some(&dir), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    (out, dir)
}

fn run(name: &str, text: &str, overrides: &[&str]) -> (RunOutputs, std::path::PathBuf) {
    run_on(name, text, overrides, 1)
}

/// Pod 0's core links: each of its Aggs' ports to a core, as (node, port).
fn core_links(cfg: &RunConfig) -> Vec<(u32, usize)> {
    let topo = &cfg.topo;
    let is_core = |n: rocesim::topology::NodeId| topo.levels[n.idx()] == 3;
    let mut links = Vec::new();
    for agg in [24u32, 25] {
        for (p, info) in topo.ports[agg as usize].iter().enumerate() {
            if is_core(info.peer) {
                links.push((agg, p));
            }
        }
    }
    assert_eq!(links.len(), 4, "two Aggs with two cores each");
    links
}

/// The data bytes each of `links` sent, from link_util.csv.
fn data_bytes(dir: &Path, links: &[(u32, usize)]) -> Vec<u64> {
    let by_link = link_data_bytes(dir);
    links
        .iter()
        .map(|l| by_link.get(l).copied().unwrap_or(0))
        .collect()
}

/// The most loaded link's bytes over the mean: 1 when the links share evenly.
fn max_over_mean(bytes: &[u64]) -> f64 {
    let mean = bytes.iter().sum::<u64>() as f64 / bytes.len() as f64;
    *bytes.iter().max().unwrap() as f64 / mean
}

/// The first seed from 1 under which ECMP hashes at least three of the eight
/// flows onto one of pod 0's core links (max/mean at least 1.5).
fn colliding_seed() -> u64 {
    (1..100)
        .find(|&seed| {
            let cfg = config(&two_pods(seed, "ecmp"), &[]);
            let mut per_link = BTreeMap::new();
            for i in 0..cfg.flows.len() {
                // ToR, Agg, core, Agg, ToR: the Agg's uplink is the core link.
                let agg = ecmp_path(&cfg, seed, i)[1];
                *per_link.entry((agg.node, agg.egress)).or_insert(0) += 1;
            }
            per_link.values().any(|&n| n >= 3)
        })
        .expect("eight flows over four core links collide for some seed")
}

#[test]
fn adaptive_routing_spreads_flows_that_ecmp_piles_on_one_core_link_and_they_end_sooner() {
    let seed = colliding_seed();
    let links = core_links(&config(&two_pods(seed, "ecmp"), &[]));
    let mut results = Vec::new();
    for lb in ["ecmp", "adaptive"] {
        let (out, dir) = run(&format!("lb-adaptive-{lb}"), &two_pods(seed, lb), &[]);
        assert_all_delivered(&out);
        assert_eq!(out.summary.drops, 0, "{lb}: PFC, nothing dropped");
        let bytes = data_bytes(&dir, &links);
        let end = out.fct.iter().map(|f| f.start + f.fct).max().unwrap();
        eprintln!(
            "seed {seed} {lb}: core-link data bytes {bytes:?}, max/mean {:.3}, last flow ends at {end}, {} packets resent",
            max_over_mean(&bytes),
            out.summary.retransmitted_packets
        );
        results.push((max_over_mean(&bytes), end));
    }
    let ((ecmp, ecmp_end), (adaptive, adaptive_end)) = (results[0], results[1]);
    assert!(ecmp >= 1.5, "ECMP piles 3 of 8 flows on one link: {ecmp}");
    assert!(
        adaptive < ecmp,
        "adaptive routing evens the core links: {adaptive} vs ECMP {ecmp}"
    );
    assert!(
        adaptive_end < ecmp_end,
        "and the flows end sooner: {adaptive_end} vs {ecmp_end}"
    );
}

#[test]
fn flowlets_of_window_limited_flows_spread_over_the_core_links_without_reordering() {
    // IRN's window of 8 packets: 8.5 KB a round trip of about 13 us, a burst
    // of under 2 us (two flows share each host link) and then more than 10 us
    // idle, so with a 5 us gap every window is a new flowlet at every switch.
    // No queue builds (about 5 Gbps a flow), so no flowlet overtakes the one
    // before it.
    let seed = colliding_seed();
    let links = core_links(&config(&two_pods(seed, "ecmp"), &[]));
    let window = "nic.irn.bdp_cap=8";
    let mut ratios = Vec::new();
    for (lb, extra) in [
        ("ecmp", None),
        ("flowlet", Some("switch.flowlet_gap=\"5us\"")),
    ] {
        let overrides: Vec<&str> = [window].into_iter().chain(extra).collect();
        let (out, dir) = run(&format!("lb-flowlet-{lb}"), &two_pods(seed, lb), &overrides);
        assert_all_delivered(&out);
        assert_eq!(out.summary.drops, 0, "{lb}: PFC, nothing dropped");
        assert_eq!(
            out.summary.retransmitted_packets, 0,
            "{lb}: every packet arrives in order"
        );
        let bytes = data_bytes(&dir, &links);
        eprintln!(
            "seed {seed} {lb}: core-link data bytes {bytes:?}, max/mean {:.3}",
            max_over_mean(&bytes)
        );
        ratios.push(max_over_mean(&bytes));
    }
    let (ecmp, flowlet) = (ratios[0], ratios[1]);
    assert!(ecmp >= 1.5, "ECMP piles 3 of 8 flows on one link: {ecmp}");
    // 500 windows a flow, 4,000 flowlets, each Agg drawing one of its two
    // core links for each flowlet it forwards: a link's share of the bytes is
    // binomial, within a few percent of a quarter, where ECMP leaves a
    // quarter of the links with three flows' bytes or more.
    assert!(
        flowlet < 1.15,
        "flowlets even the core links: {flowlet} vs ECMP {ecmp}"
    );
}

#[test]
fn flowlet_and_adaptive_runs_are_byte_identical_on_one_and_three_threads() {
    // Each switch draws from its own stream and reads only its own queues, in
    // the order it handles its events, whichever thread runs it.
    for lb in ["flowlet", "adaptive"] {
        let text = two_pods(3, lb).replace("\"4MB\"", "\"500KB\"");
        let files = |threads| {
            let name = format!("lb-threads-{lb}-{threads}");
            output_files(&run_on(&name, &text, &[], threads).1)
        };
        let (one, three) = (files(1), files(3));
        assert!(one.iter().any(|(n, _)| n == "link_util.csv"));
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&one), names(&three), "{lb}");
        for ((n, a), (_, b)) in one.iter().zip(&three) {
            assert!(a == b, "{lb}: {n} differs between 1 and 3 threads");
        }
    }
}
