//! Swift (SIGCOMM'20) on one 100 Gbps bottleneck: a 16-to-1 incast completes
//! at line rate with no loss and its queue settles where the delay target puts it;
//! four flows share the link equally; a short flow gets its share next to a long
//! one, which takes the link back after it.

use crate::common::assert_all_delivered;
use crate::measure::{finish, goodput, jain, pct, queue, us};
use rocesim::output::RunOutputs;

const LINE_BPS: f64 = 100e9;
/// Payload goodput of a saturated 100 Gbps link: 1000 B of every 1062 B frame.
const FULL_GOODPUT: f64 = LINE_BPS * 1000.0 / 1062.0;
const WIRE: f64 = 1062.0;
const MSS: f64 = 1000.0;

fn traced(text: &str) -> RunOutputs {
    let out = crate::common::traced(text, &[]);
    assert_eq!(out.summary.drops, 0, "no loss with PFC");
    out
}

/// The queueing delay Swift's default target allows above a flow's base RTT
/// `base` (s) on `hops` links with a window of `w` packets (docs/scenario.md,
/// `[cc.swift]`): `hops x base/6.55` plus the flow term, `fs_range = 5 base` at
/// 0.1 packets falling to 0 at 100.
fn allowance(base: f64, hops: f64, w: f64) -> f64 {
    let range = 5.0 * base;
    let alpha = range / (1.0 / 0.1f64.sqrt() - 1.0 / 100f64.sqrt());
    let fs = (alpha / w.sqrt() - alpha / 100f64.sqrt()).clamp(0.0, range);
    hops * base / 6.55 + fs
}

#[test]
fn swift_completes_a_16_to_1_incast_at_line_rate_with_its_queue_held_near_the_target() {
    let out = traced(include_str!("../../scenarios/incast-16to1-swift.toml"));
    assert_all_delivered(&out);
    let n = 16.0;
    // T: the largest base RTT rounded up to a whole us, above every flow's own.
    let t = out.summary.control_interval_ns * 1e-9;
    // Every byte crosses the receiver's link: 64 MB of payload in 1062 B frames.
    let wire_time = 64e6 / MSS * WIRE * 8.0 / LINE_BPS;
    let last = out.fct.iter().map(|f| f.start + f.fct).max().unwrap();
    let efficiency = wire_time / last.as_secs_f64();
    eprintln!(
        "swift incast: last completion {:.1} us, {efficiency:.3} of line rate",
        last.as_secs_f64() * 1e6
    );
    assert!(efficiency > 0.95, "{efficiency}");

    // The start-up queue is at most what the first windows (line rate x the
    // flow's base RTT <= T, plus the packet the window lets start) put in flight.
    let first_windows = n * ((LINE_BPS / 8.0 * t / MSS).ceil() + 1.0) * WIRE;
    let max_q = out.summary.max_queue_bytes as f64;
    assert!(max_q <= first_windows, "{max_q} > {first_windows}");

    // Steady state, from 200 us to the first completion, at the switch port
    // toward host 0 (node 17, port 0). Each flow crosses 2 links; its base RTT
    // lies between the propagation alone (2 x 2 x 1 us) and T.
    let first_done = out.fct.iter().map(|f| f.start + f.fct).min().unwrap();
    let q = queue(&out, 17, 0, us(200.0), first_done);
    assert!(q.len() > 1000);
    let delay = |bytes: f64| bytes * 8.0 / LINE_BPS;
    let (p50, p99) = (delay(pct(&q, 50.0)), delay(pct(&q, 99.0)));
    // The target is above the base RTT by at least the hop term; with the link
    // full and the flows sharing it equally each window is at least BDP/N, so
    // the flow term is at most its value there.
    let lower = allowance(4e-6, 2.0, f64::INFINITY);
    let upper = allowance(t, 2.0, LINE_BPS / 8.0 * t / n / MSS);
    // Between two cuts (one per RTT) every flow adds `ai` = 1 packet.
    let overshoot = delay(n * WIRE);
    eprintln!(
        "swift incast queue delay p50 {:.2} us, p99 {:.2} us; target allows {:.2}-{:.2} us",
        p50 * 1e6,
        p99 * 1e6,
        lower * 1e6,
        upper * 1e6
    );
    assert!(p50 > lower && p50 < upper, "p50 {p50}");
    assert!(p99 < upper + overshoot, "p99 {p99}");
}

#[test]
fn four_swift_flows_converge_to_equal_shares_of_a_full_link() {
    let out = traced(include_str!("../../scenarios/swift-convergence.toml"));
    // Flows join at 0, 1, 2 and 3 ms; each phase after 200 us of settling.
    for k in 2..=4u32 {
        let start = (k - 1) as f64 * 1000.0;
        let (a, b) = (us(start + 200.0), us(start + 1000.0).min(us(5990.0)));
        let g: Vec<f64> = (0..k).map(|f| goodput(&out, f, a, b)).collect();
        let total: f64 = g.iter().sum();
        eprintln!(
            "swift {k} flows: {:?} Gbps, Jain {:.4}",
            g.iter()
                .map(|x| (x / 1e8).round() / 10.0)
                .collect::<Vec<_>>(),
            jain(&g)
        );
        assert!(total > 0.95 * FULL_GOODPUT, "{total}");
        assert!(jain(&g) >= 0.9, "{g:?}");
    }
    let g: Vec<f64> = (0..4)
        .map(|f| goodput(&out, f, us(4000.0), us(5990.0)))
        .collect();
    assert!(jain(&g) >= 0.9, "{g:?}");
}

#[test]
fn a_short_swift_flow_gets_its_share_next_to_a_long_one_which_recovers_the_link() {
    let out = traced(include_str!("../../scenarios/swift-long-short.toml"));
    assert_all_delivered(&out);
    let short = out.fct.iter().find(|f| f.flow_id == 1).unwrap();
    // Alone it would take `ideal`; at half the link about twice that, plus the
    // time the long flow's window takes to come down to its share.
    eprintln!("swift short flow: slowdown {:.2}", short.slowdown());
    assert!(short.slowdown() < 3.0, "{}", short.slowdown());
    // 100 us after the short flow leaves, the long flow has the link again.
    let t = (short.start + short.fct).as_secs_f64() * 1e6;
    let long_end = finish(&out, 0).unwrap().as_secs_f64() * 1e6;
    assert!(long_end > t + 200.0);
    let g = goodput(&out, 0, us(t + 100.0), us(t + 200.0));
    assert!(g > 0.95 * FULL_GOODPUT, "{g}");
}
