//! Servers with several NICs (issue 45): each NIC is a line-rate port of its
//! own, so a server's capacity is the sum of its NICs'; flows are placed on
//! NICs by the stated policy and fct.csv says which; rail-optimized fabrics
//! keep a rail's traffic on it.

use super::common::{assert_all_delivered, run, scratch};
use rocesim::output::RunOutputs;
use std::path::Path;
use std::process::Command;

/// The HPCC testbed (32 servers with two 25 Gbps NICs each, under ToR pairs)
/// with two 10 MB flows from server 0 to servers 16 and 17 (another ToR
/// pair), placed round robin. With one NIC a host, those servers' NIC0 are
/// nodes 32 and 33; as two-NIC servers, nodes 16 and 17.
fn testbed_two_flows(nics_per_host: u32) -> RunOutputs {
    let first = if nics_per_host == 1 { 32 } else { 16 };
    let text = format!(
        r#"
[topology]
kind = "hpcc-testbed"
nics_per_host = {nics_per_host}
[nic]
placement = "round-robin"
[cc]
algorithm = "hpcc"
[[workload.flows]]
src = 0
dst = {first}
size = "10MB"
[[workload.flows]]
src = 0
dst = {second}
size = "10MB"
[output]
queue_interval = "0s"
"#,
        second = first + 1
    );
    run(&text, &[])
}

#[test]
fn a_dual_nic_server_sends_at_the_rate_of_both_nics() {
    // Nodes 0 and 37 are server 0's two NICs; with one NIC a host (the
    // testbed's default) both flows leave by node 0's 25 Gbps link.
    let two = testbed_two_flows(2);
    let one = testbed_two_flows(1);
    assert_all_delivered(&two);
    assert_all_delivered(&one);
    let mut srcs: Vec<u32> = two.fct.iter().map(|r| r.src).collect();
    srcs.sort_unstable();
    assert_eq!(srcs, [0, 37], "round robin: one flow on each NIC");
    let last = |o: &RunOutputs| {
        let t = o.fct.iter().map(|r| r.start + r.fct).max().unwrap();
        t.as_secs_f64() * 1e3
    };
    // Each flow alone: 10 MB at 25 Gbps with headers (its ideal FCT, 3.5 ms).
    let alone = two
        .fct
        .iter()
        .map(|r| r.ideal.as_secs_f64() * 1e3)
        .fold(0.0, f64::max);
    let (t2, t1) = (last(&two), last(&one));
    // HPCC holds a link at 95 % (its eta), so within 7 % of alone on two NICs,
    // and twice that when both share one.
    assert!(
        (alone..alone * 1.07).contains(&t2),
        "two NICs: {t2:.3} ms (alone {alone:.3})"
    );
    let r = t1 / t2;
    assert!(
        (1.9..2.1).contains(&r),
        "one NIC takes {r:.2}x as long ({t1:.3} ms)"
    );
}

/// 50 us of FB_Hadoop at 30 % on hpcc-fat-tree with nics_per_host = 2 (320
/// servers, 20 ToR pairs) under `cc`.
const DUAL_HOMED_FAT_TREE: &str = r#"
[topology]
kind = "hpcc-fat-tree"
nics_per_host = 2
[[workload.poisson]]
cdf = "fb-hadoop"
load = 0.3
duration = "50us"
[output]
queue_interval = "0s"
"#;

#[test]
fn a_dual_homed_fat_tree_gives_every_server_a_tor_pair() {
    let out = run(DUAL_HOMED_FAT_TREE, &["cc.algorithm=\"hpcc\""]);
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    // Extra NICs are numbered after the 376 nodes of the fabric and its 20 ToR copies.
    let second = out.fct.iter().filter(|r| r.src >= 396).count();
    let n = out.fct.len();
    assert!(
        n > 100 && second * 4 > n && second * 4 < 3 * n,
        "{second} of {n}"
    );
}

#[test]
fn host_wide_queue_pairs_deliver_everything_and_the_same_on_two_threads() {
    // nic.queue_pairs = "per-server": data and ACKs land on either NIC of a
    // server (as ECMP routes them to it) and the NIC hands them to the one
    // holding the queue pair, at no delay; the two NICs of a server are in one
    // partition, so threads give the same run.
    let set = ["cc.algorithm=\"dcqcn\"", "nic.queue_pairs=\"per-server\""];
    let out = run(DUAL_HOMED_FAT_TREE, &set);
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    let per_nic = run(DUAL_HOMED_FAT_TREE, &[set[0]]);
    assert_all_delivered(&per_nic);
    assert_ne!(out.fct, per_nic.fct, "hand-overs change the run");
    let opts = rocesim::sim::RunOptions {
        threads: Some(2),
        ..Default::default()
    };
    let two = super::common::run_with(DUAL_HOMED_FAT_TREE, &set, &opts);
    assert_eq!(out.fct, two.fct);
}

/// Sums link_util.csv's bytes sent down to the NICs, by rail, in
/// rail-optimized-64x4 (leaves 64-79: rail = (id - 64) % 4; a rail-0 leaf's
/// first 16 ports go to the servers, the others' last 16).
fn bytes_by_rail(dir: &Path) -> [u64; 4] {
    let text = std::fs::read_to_string(dir.join("link_util.csv")).unwrap();
    let mut by = [0u64; 4];
    for line in text.lines().skip(1) {
        let f: Vec<u64> = line
            .split(',')
            .map(|x| x.parse::<f64>().unwrap() as u64)
            .collect();
        let (node, port, bytes) = (f[1], f[2], f[4]);
        if !(64..80).contains(&node) {
            continue;
        }
        let rail = (node - 64) % 4;
        let to_nic = if rail == 0 { port < 16 } else { port >= 4 };
        if to_nic {
            by[rail as usize] += bytes;
        }
    }
    by
}

#[test]
fn a_rail_optimized_all_to_all_stays_on_its_rails_and_spreads_over_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("rail-64x4");
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args([
            "run",
            "scenarios/rail-optimized-64x4.toml",
            "-q",
            "--force",
            "--out",
        ])
        .arg(&dir)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fct = std::fs::read_to_string(dir.join("fct.csv")).unwrap();
    let mut flows = 0;
    for line in fct.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[12], f[13], "same rail at both ends: {line}");
        flows += 1;
    }
    assert_eq!(flows, 64 * 63);
    // Every byte reached its NIC through a rail leaf's downlink, and the
    // hash spreads them over the four rails within 10 % of the mean.
    let by = bytes_by_rail(&dir);
    let total: u64 = by.iter().sum();
    assert!(total >= 64 * 63 * 256_000, "{by:?}");
    for b in by {
        let share = b as f64 / total as f64;
        assert!((0.225..=0.275).contains(&share), "rail shares {by:?}");
    }
}

#[test]
fn a_flow_between_two_nics_of_one_server_is_refused() {
    let text = r#"
[topology]
kind = "hpcc-testbed"
nics_per_host = 2
[[workload.flows]]
src = 0
dst = 37
size = "1MB"
"#;
    let e = rocesim::run_str(text, &[], &rocesim::sim::RunOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("workload.flows[0]: flow between 0 and 37, NICs of one server"),
        "{e}"
    );
}
