//! HPCC on a 16-to-1 incast (HPCC §5.4, Fig. 13): it reacts within about one RTT,
//! keeps the bottleneck busy and the queue near empty, and never needs PFC.

use crate::common::{assert_all_delivered, run_with};
use rocesim::sim::RunOptions;
use rocesim::units::{Delta, SimTime};

const SCENARIO: &str = include_str!("../../scenarios/incast-16to1-hpcc.toml");

#[test]
fn hpcc_resolves_a_16_to_1_incast_fast_with_a_near_empty_queue_and_no_pfc() {
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    };
    let out = run_with(SCENARIO, &[], &opts);
    assert_all_delivered(&out);
    let s = &out.summary;
    assert_eq!(
        s.pfc_pause_frames, 0,
        "HPCC keeps the queue far below the PFC threshold"
    );
    assert_eq!(s.drops, 0);

    // Receiver goodput from 200 us until the first flow completes.
    let first_done = out.fct.iter().map(|f| f.start + f.fct).min().unwrap();
    let from = SimTime(Delta::from_us(200).ps());
    let delivered_at = |t: SimTime| -> u64 {
        out.rates
            .iter()
            .filter(|r| r.time == t)
            .map(|r| r.delivered)
            .sum()
    };
    let to = out
        .rates
        .iter()
        .map(|r| r.time)
        .filter(|&t| t < first_done)
        .max()
        .unwrap();
    assert!(to > from, "the incast lasts well past 200 us");
    let bytes = delivered_at(to) - delivered_at(from);
    let goodput_bps = bytes as f64 * 8.0 / to.since(from).as_secs_f64();
    assert!(
        goodput_bps >= 0.8 * 100e9,
        "receiver goodput {:.1} Gbps",
        goodput_bps / 1e9
    );

    // The bottleneck is the switch's port toward host 0 (node 17, port 0).
    let mut q: Vec<u64> = out
        .samples
        .iter()
        .filter(|x| x.node == 17 && x.port == 0 && x.time >= from)
        .map(|x| x.bytes)
        .collect();
    assert!(q.len() > 1000);
    q.sort_unstable();
    let p99 = q[(q.len() * 99).div_ceil(100) - 1];
    assert!(p99 < 50_000, "p99 bottleneck queue {p99} B after 200 us");
}
