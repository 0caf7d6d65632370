//! Per-packet spraying (`switch.load_balancing = "spray"`, docs/models.md
//! "Packet spraying"): a leaf's uplinks carry equal bytes within the binomial
//! spread of a uniform draw; two flows that per-flow ECMP puts on one uplink
//! both run near line rate when sprayed, IRN delivering every byte without a
//! drop under PFC; go-back-N still delivers every byte but resends on
//! reordering; a sprayed run is byte-identical for a seed (and, in
//! parallel.rs, on any number of threads).

use crate::common::{
    assert_all_delivered, config, ecmp_path, link_data_bytes, output_files, scratch,
};
use rocesim::config::RunConfig;
use rocesim::output::RunOutputs;
use rocesim::scenario::Source;
use rocesim::sim::RunOptions;
use std::path::Path;

/// Two leaves (nodes 4 and 5) of two hosts each under four spines (nodes
/// 6-9), every link 100 Gbps and 1 us: hosts 0 and 1 on leaf 4, whose ports
/// 0-1 lead to them and 2-5 to the spines; hosts 2 and 3 on leaf 5. IRN,
/// PFC on, DCQCN.
fn leaf_spine(seed: u64, load_balancing: &str, flows: &[(u32, u32, &str)]) -> String {
    let mut s = format!(
        r#"
name = "spray"
seed = {seed}
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 2
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
"#
    );
    for (src, dst, size) in flows {
        s += &format!("[[workload.flows]]\nsrc = {src}\ndst = {dst}\nsize = \"{size}\"\n");
    }
    s
}

/// Runs `cfg`, writing its files to `out` when given.
fn run(cfg: RunConfig, out: Option<&Path>) -> RunOutputs {
    rocesim::run(cfg, &RunOptions::default(), out, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

/// The data bytes each of leaf 4's uplinks (ports 2-5) sent, from link_util.csv.
fn uplink_data_bytes(dir: &Path) -> [u64; 4] {
    let by_link = link_data_bytes(dir);
    assert!(by_link.keys().all(|l| l.0 == 4), "only leaf 4 is watched");
    std::array::from_fn(|i| by_link.get(&(4, i + 2)).copied().unwrap_or(0))
}

const WATCH_UPLINKS: [&str; 2] = [
    "output.queue_ports=[{node=4,port=2},{node=4,port=3},{node=4,port=4},{node=4,port=5}]",
    "output.link_utilization=\"10us\"",
];

#[test]
fn a_sprayed_flow_spreads_its_bytes_evenly_over_the_uplinks_and_an_ecmp_flow_takes_one() {
    // 100 MB is 100,000 full packets. Each picks an uplink uniformly, so an
    // uplink's count is binomial(n, 1/4): sd = sqrt(n 3/16), 0.55 % of its
    // mean n/4 here. Five sd (2.7 %) fails a fair draw with probability below
    // 1e-6 per uplink.
    let text = leaf_spine(1, "spray", &[(0, 2, "100MB")]);
    let dir = scratch("spray-uplinks");
    let out = run(config(&text, &WATCH_UPLINKS), Some(&dir));
    assert_all_delivered(&out);
    let bytes = uplink_data_bytes(&dir);
    let total: u64 = bytes.iter().sum();
    let packets = total as f64 / 1048.0;
    let mean = total as f64 / 4.0;
    let sd = (packets * 3.0 / 16.0).sqrt() * 1048.0;
    let worst = bytes
        .iter()
        .map(|&b| (b as f64 - mean).abs() / mean)
        .fold(0.0, f64::max);
    eprintln!(
        "spray: uplink data bytes {bytes:?}, worst {:.2} % from the mean, 5 sd = {:.2} %",
        100.0 * worst,
        500.0 * sd / mean
    );
    for b in bytes {
        assert!(
            (b as f64 - mean).abs() < 5.0 * sd,
            "{bytes:?}: every uplink within 5 sd ({sd:.0} B) of {mean:.0}"
        );
    }
    assert!(total >= 100_000 * 1048, "every packet crossed an uplink");

    let text = leaf_spine(1, "ecmp", &[(0, 2, "100MB")]);
    let dir = scratch("ecmp-uplinks");
    run(config(&text, &WATCH_UPLINKS), Some(&dir));
    let bytes = uplink_data_bytes(&dir);
    assert_eq!(
        bytes.iter().filter(|&&b| b > 0).count(),
        1,
        "ECMP keeps the flow on one uplink: {bytes:?}"
    );
}

/// The first seed from 1 under which ECMP sends the flows 0 -> 2 and 1 -> 3
/// out of the same uplink of leaf 4 (their first switch).
fn colliding_seed() -> u64 {
    let flows = [(0, 2, "20MB"), (1, 3, "20MB")];
    (1..100)
        .find(|&seed| {
            let cfg = config(&leaf_spine(seed, "ecmp", &flows), &[]);
            let uplink = |i| ecmp_path(&cfg, seed, i)[0].egress;
            uplink(0) == uplink(1)
        })
        .expect("two flows over four uplinks collide for some seed")
}

#[test]
fn two_flows_that_ecmp_puts_on_one_uplink_share_it_and_sprayed_both_run_near_line_rate() {
    let seed = colliding_seed();
    let flows = [(0, 2, "20MB"), (1, 3, "20MB")];
    let ecmp = run(config(&leaf_spine(seed, "ecmp", &flows), &[]), None);
    let spray = run(config(&leaf_spine(seed, "spray", &flows), &[]), None);
    let slowdowns = |o: &RunOutputs| o.fct.iter().map(|f| f.slowdown()).collect::<Vec<_>>();
    eprintln!(
        "seed {seed}: ECMP slowdowns {:?}, spray {:?}, spray retransmitted {} of {} packets",
        slowdowns(&ecmp),
        slowdowns(&spray),
        spray.summary.retransmitted_packets,
        spray.summary.data_packets_transmitted
    );
    for out in [&ecmp, &spray] {
        assert_all_delivered(out);
        assert_eq!(out.summary.drops, 0, "PFC: nothing is dropped");
    }
    // ECMP: 40 MB through one 100 Gbps uplink take at least twice as long as
    // one flow of 20 MB alone.
    let last = slowdowns(&ecmp).into_iter().fold(0.0, f64::max);
    assert!(last > 1.9, "ECMP: the flows share one uplink ({last})");
    // Spray: each flow near its line rate; what it loses is IRN resending
    // packets that arrived out of order (its NACK names them lost).
    for s in slowdowns(&spray) {
        assert!(s < 1.15, "spray: each flow near line rate ({s})");
    }
    assert!(spray.summary.retransmitted_packets > 0);
    assert_eq!(
        ecmp.summary.retransmitted_packets, 0,
        "one path: no reordering"
    );
}

#[test]
fn go_back_n_under_spraying_delivers_every_byte_and_resends_on_reordering() {
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/fattree-k4-spray-irn.toml");
    let src = Source::File(scenario);
    let gbn = "nic.loss_recovery=\"go-back-n\"".to_string();
    let ecmp = "switch.load_balancing=\"ecmp\"".to_string();
    let mut outs = Vec::new();
    for overrides in [vec![gbn.clone()], vec![gbn, ecmp]] {
        let cfg = rocesim::scenario::to_config(&src, &overrides).unwrap();
        let out = run(cfg, None);
        assert_all_delivered(&out);
        assert_eq!(out.summary.drops, 0);
        let s = &out.summary;
        eprintln!(
            "{overrides:?}: retransmitted {} packets for {} delivered bytes, NACKs {}, timeouts {}, slowdown p50 {:.2} p95 {:.2} max {:.2}",
            s.retransmitted_packets,
            s.delivered_bytes,
            s.nacks_sent,
            s.timeouts,
            s.slowdown_p50,
            s.slowdown_p95,
            s.slowdown_max
        );
        outs.push(out);
    }
    assert!(
        outs[0].summary.retransmitted_packets > 0,
        "sprayed packets arrive out of order and go-back-N resends them"
    );
    assert_eq!(
        outs[1].summary.retransmitted_packets, 0,
        "ECMP keeps each flow in order: nothing to resend"
    );
}

#[test]
fn a_sprayed_run_is_byte_identical_for_a_seed_and_differs_with_another() {
    let text = leaf_spine(7, "spray", &[(0, 2, "2MB"), (1, 3, "2MB"), (3, 0, "1MB")]);
    let files = |name: &str, overrides: &[&str]| {
        let dir = scratch(name);
        run(config(&text, overrides), Some(&dir));
        output_files(&dir)
    };
    let a = files("spray-same-a", &WATCH_UPLINKS);
    let b = files("spray-same-b", &WATCH_UPLINKS);
    assert!(a.iter().any(|(n, _)| n == "link_util.csv"));
    assert!(a == b, "the same seed gives the same files");
    let mut other = WATCH_UPLINKS.to_vec();
    other.push("seed=8");
    let c = files("spray-same-c", &other);
    let util = |v: &[(String, Vec<u8>)]| v.iter().find(|(n, _)| n == "link_util.csv").cloned();
    assert_ne!(util(&a), util(&c), "another seed sprays differently");
}
