//! HPCC's design choices (HPCC §3.4 Fig. 6, §5.4 Fig. 13): reacting per ACK from
//! a per-RTT reference window beats reacting per ACK (overreaction, throughput
//! collapses) and per RTT (slow, the queue persists); txRate in Eq. (2) keeps the
//! queue steadier than rxRate.

use crate::common::{assert_all_delivered, run_with};
use crate::measure::{goodput, mean, queue, std_dev, us};
use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;
use rocesim::units::{Delta, SimTime};

fn traced(text: &str, sets: &[&str]) -> RunOutputs {
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    };
    let out = run_with(text, sets, &opts);
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    out
}

/// Aggregate goodput over `[0, to)`, bits/s.
fn aggregate(out: &RunOutputs, to: SimTime) -> f64 {
    (0..out.summary.flows_total as u32)
        .map(|f| goodput(out, f, SimTime::ZERO, to))
        .sum()
}

/// First time after the queue's peak that it falls below `frac` of the peak.
fn drain_time(samples: &[(SimTime, f64)], frac: f64) -> SimTime {
    let (ipeak, &(_, peak)) = samples
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.1.total_cmp(&b.1.1))
        .expect("samples");
    samples[ipeak..]
        .iter()
        .find(|(_, q)| *q < frac * peak)
        .map(|(t, _)| *t)
        .unwrap_or(SimTime::MAX)
}

#[test]
fn combined_reaction_keeps_throughput_above_per_ack_and_drains_faster_than_per_rtt() {
    let runs: Vec<(&str, RunOutputs)> = [
        (
            "per-ack",
            include_str!("../../scenarios/hpcc-reaction-per-ack.toml"),
        ),
        (
            "per-rtt",
            include_str!("../../scenarios/hpcc-reaction-per-rtt.toml"),
        ),
        (
            "combined",
            include_str!("../../scenarios/hpcc-reaction-combined.toml"),
        ),
    ]
    .into_iter()
    .map(|(name, text)| (name, traced(text, &[])))
    .collect();
    // The bottleneck: the switch (node 17) toward the receiver (port 0).
    let window = us(500.0);
    let mut tput = Vec::new();
    let mut drain = Vec::new();
    for (name, out) in &runs {
        let q: Vec<(SimTime, f64)> = out
            .samples
            .iter()
            .filter(|s| s.node == 17 && s.port == 0)
            .map(|s| (s.time, s.bytes as f64))
            .collect();
        let t = aggregate(out, window);
        let d = drain_time(&q, 0.05);
        eprintln!(
            "{name}: goodput over the first 500 us {:.1} Gbps, queue peak {:.0} KB, below 5 % of it at {:.1} us",
            t / 1e9,
            q.iter().map(|x| x.1).fold(0.0, f64::max) / 1e3,
            d.ps() as f64 / 1e6
        );
        tput.push(t);
        drain.push(d);
    }
    let (per_ack, per_rtt, combined) = (0, 1, 2);
    assert!(
        tput[combined] > 1.2 * tput[per_ack],
        "per-ACK reaction overreacts: {:.1} vs {:.1} Gbps",
        tput[combined] / 1e9,
        tput[per_ack] / 1e9
    );
    assert!(
        drain[combined] < drain[per_rtt],
        "per-RTT reaction drains later: {:?} vs {:?}",
        drain[combined],
        drain[per_rtt]
    );
}

#[test]
fn rx_rate_makes_the_queue_oscillate_more_than_tx_rate() {
    let text = include_str!("../../scenarios/hpcc-txrate-vs-rxrate.toml");
    let mut sd = Vec::new();
    for signal in ["tx", "rx"] {
        let set = format!("cc.hpcc.rate_signal={signal}");
        let out = traced(text, &[&set]);
        let end = out.fct.iter().map(|f| f.start + f.fct).min().unwrap();
        let q = queue(&out, 3, 0, us(100.0), end);
        assert!(q.len() > 300, "{} samples", q.len());
        eprintln!(
            "{signal}Rate: queue after 100 us mean {:.0} B, std {:.0} B",
            mean(&q),
            std_dev(&q)
        );
        sd.push(std_dev(&q));
    }
    assert!(
        sd[1] > sd[0],
        "rxRate std {:.0} B vs txRate {:.0} B",
        sd[1],
        sd[0]
    );
}
