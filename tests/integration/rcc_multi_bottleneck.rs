//! RCC on the parking lot of RCC Fig. 1(a) / Fig. 15 (§V-D6): f1 and f2 share the
//! S0-S1 link (in-network congestion from f2's start), f2 and f3 share R2's last
//! hop (last-hop congestion from f3's start). RCC classifies f1 and f2 as
//! in-network (PID) and f3's congestion as last-hop (EWA), and with both parts
//! keeps the queues lower than either part alone (Fig. 15(d)).

use crate::common::run_with;
use crate::measure::{pct, queue, us};
use rocesim::cc::Congestion;
use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;
use rocesim::units::Delta;

const SCENARIO: &str = include_str!("../../scenarios/multi-bottleneck-rcc.toml");
/// S0's port toward S1 (in-network) and S1's port toward R2 (last hop).
const IN_NETWORK: (u32, u16) = (5, 2);
const LAST_HOP: (u32, u16) = (6, 2);

fn traced(algorithm: &str) -> RunOutputs {
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    };
    let set = format!("cc.algorithm={algorithm}");
    let out = run_with(SCENARIO, &[&set], &opts);
    assert_eq!(out.summary.drops, 0);
    assert_eq!(out.summary.pfc_pause_frames, 0);
    out
}

fn classes(out: &RunOutputs, flow: u32, from: f64, to: f64) -> Vec<Congestion> {
    out.rates
        .iter()
        .filter(|r| r.flow == flow && r.time >= us(from) && r.time < us(to))
        .map(|r| r.congestion)
        .collect()
}

#[test]
fn rcc_tells_in_network_from_last_hop_congestion_as_fig_15_does() {
    let out = traced("rcc");
    // f1 alone (0-500 us): its last hop is the bottleneck, nothing in-network.
    let f1_alone = classes(&out, 0, 50.0, 500.0);
    assert!(!f1_alone.is_empty());
    assert!(
        f1_alone.iter().all(|c| *c == Congestion::LastHop),
        "{f1_alone:?}"
    );
    // f2 starts at 500 us: both f1 and f2 detect in-network congestion within
    // 100 us and stay in PID to the end.
    for f in [0, 1] {
        let c = classes(&out, f, 600.0, 2500.0);
        assert!(
            c.iter().all(|c| *c == Congestion::InNetwork),
            "flow {f}: {c:?}"
        );
    }
    // f3 starts at 1 ms at line rate into R2's last hop: last-hop congestion,
    // handled by the fair share; it never enters PID.
    let f3 = classes(&out, 2, 1000.0, 2500.0);
    assert!(
        classes(&out, 2, 1000.0, 1050.0).contains(&Congestion::LastHop),
        "{f3:?}"
    );
    assert!(!f3.contains(&Congestion::InNetwork), "{f3:?}");
}

#[test]
fn rcc_keeps_the_queues_lower_than_ewa_alone_or_pid_alone() {
    let runs: Vec<(&str, RunOutputs)> = ["rcc", "rcc-pid", "rcc-ewa"]
        .into_iter()
        .map(|a| (a, traced(a)))
        .collect();
    let mut last_hop_peak = Vec::new();
    let mut in_network_p99 = Vec::new();
    for (name, out) in &runs {
        // f3's arrival (1 ms) to the end: the last-hop congestion it creates.
        let lh = queue(out, LAST_HOP.0, LAST_HOP.1, us(1000.0), us(2500.0));
        // Steady part with all three flows.
        let inn = queue(out, IN_NETWORK.0, IN_NETWORK.1, us(1500.0), us(2500.0));
        let lh_peak = lh.iter().cloned().fold(0.0, f64::max);
        eprintln!(
            "{name}: last hop peak {:.1} KB p99 {:.1} KB; in-network p50 {:.1} KB p99 {:.1} KB",
            lh_peak / 1e3,
            pct(&lh, 99.0) / 1e3,
            pct(&inn, 50.0) / 1e3,
            pct(&inn, 99.0) / 1e3
        );
        last_hop_peak.push(lh_peak);
        in_network_p99.push(pct(&inn, 99.0));
    }
    let (rcc, pid, ewa) = (0, 1, 2);
    // PID alone meets f3's line-rate start with several RTTs of detection and
    // multiplicative cuts; EWA assigns the fair share within one RTT.
    assert!(
        last_hop_peak[rcc] < last_hop_peak[pid],
        "last-hop peak: rcc {} vs rcc-pid {}",
        last_hop_peak[rcc],
        last_hop_peak[pid]
    );
    // EWA alone never sees the in-network bottleneck: f1 keeps R1's whole share
    // and a standing queue builds at S0-S1.
    assert!(
        in_network_p99[rcc] < in_network_p99[ewa],
        "in-network p99: rcc {} vs rcc-ewa {}",
        in_network_p99[rcc],
        in_network_p99[ewa]
    );
}
