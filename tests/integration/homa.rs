//! Homa (SIGCOMM'18) on one 100 Gbps bottleneck, PFC off, strict priority: a
//! 16-to-1 incast delivers every byte with the receiver's link full and no
//! more queued than the unscheduled bytes plus what the overcommitted grants
//! allow; messages of different sizes that start together finish in order of
//! size (SRPT); a short message arriving during a long one finishes close to
//! its stand-alone time; runs repeat exactly.

use crate::common::{assert_all_delivered, traced};
use crate::measure::{finish, goodput, us};
use rocesim::output::RunOutputs;

const LINE_BPS: f64 = 100e9;
const WIRE: f64 = 1062.0;
const MSS: f64 = 1000.0;

fn run(text: &str) -> RunOutputs {
    let out = traced(text, &[]);
    assert_all_delivered(&out);
    assert_eq!(
        out.summary.drops, 0,
        "no loss: the buffer holds every burst"
    );
    assert_eq!(out.summary.retransmitted_bytes, 0, "nothing is sent twice");
    out
}

/// The fraction of line rate the receiver's link ran at: every payload byte
/// in 1062 B frames, over the time to the last completion.
fn efficiency(out: &RunOutputs) -> f64 {
    let bytes: u64 = out.fct.iter().map(|f| f.size).sum();
    let wire_time = bytes as f64 / MSS * WIRE * 8.0 / LINE_BPS;
    let first = out.fct.iter().map(|f| f.start).min().unwrap();
    let last = out.fct.iter().map(|f| f.start + f.fct).max().unwrap();
    wire_time / last.since(first).as_secs_f64()
}

#[test]
fn homa_delivers_a_16_to_1_incast_at_line_rate_within_its_granted_bytes() {
    let out = run(include_str!("../../scenarios/incast-16to1-homa.toml"));
    let e = efficiency(&out);
    let mut fct: Vec<f64> = out.fct.iter().map(|f| f.fct.as_secs_f64() * 1e6).collect();
    fct.sort_by(f64::total_cmp);
    eprintln!("homa incast: {e:.3} of line rate; FCTs (us) {fct:.0?}");
    assert!(e > 0.95, "{e}");
    // RTTbytes: each pair's BDP (100 Gbps x its base RTT, under T = 5 us) in
    // whole packets. At most every message's unscheduled bytes and the
    // overcommitted messages' (7) granted bytes queue at once.
    let rtt_packets = (LINE_BPS / 8.0 * 5e-6 / MSS).ceil();
    let bound = (16.0 + 7.0) * rtt_packets * WIRE;
    let max_q = out.summary.max_queue_bytes as f64;
    assert!(max_q <= bound, "{max_q} > {bound}");
    // SRPT, not sharing: the last message finishes when all 64 MB have
    // crossed, the first long before (one sharing the link would finish
    // with the others).
    assert!(fct[0] < 0.5 * fct[15], "{fct:?}");
}

#[test]
fn homa_finishes_messages_that_start_together_in_order_of_size() {
    let out = run(include_str!("../../scenarios/homa-srpt-sizes.toml"));
    let mut by_size: Vec<_> = out.fct.iter().map(|f| (f.size, f.start + f.fct)).collect();
    by_size.sort();
    let ends: Vec<f64> = by_size
        .iter()
        .map(|&(_, t)| t.as_secs_f64() * 1e6)
        .collect();
    eprintln!(
        "homa sizes 100 KB..1.6 MB: ends (us) {ends:.1?}; {:.3} of line rate",
        efficiency(&out)
    );
    assert!(ends.windows(2).all(|w| w[0] <= w[1]), "{ends:?}");
    assert!(efficiency(&out) > 0.95);
}

#[test]
fn a_short_homa_message_finishes_within_a_few_rtts_of_its_ideal_during_a_long_one() {
    let out = run(include_str!("../../scenarios/homa-long-short.toml"));
    let short = out.fct.iter().find(|f| f.flow_id == 1).unwrap();
    let excess = (short.fct.as_secs_f64() - short.ideal.as_secs_f64()) * 1e6;
    eprintln!(
        "homa short message: FCT {:.1} us, ideal {:.1} us (slowdown {:.3})",
        short.fct.as_secs_f64() * 1e6,
        short.ideal.as_secs_f64() * 1e6,
        short.slowdown()
    );
    // Within 3 base RTTs (5 us each) of its stand-alone FCT.
    assert!(excess < 15.0, "{excess} us late");
    // The long message has the link again 50 us after the short one leaves.
    let t = (short.start + short.fct).as_secs_f64() * 1e6;
    assert!(finish(&out, 0).unwrap().as_secs_f64() * 1e6 > t + 150.0);
    let g = goodput(&out, 0, us(t + 50.0), us(t + 150.0));
    assert!(g > 0.95 * LINE_BPS * MSS / WIRE, "{g}");
}

#[test]
fn homa_runs_repeat_exactly_and_the_hpcc_incast_runs_as_homa() {
    let text = include_str!("../../scenarios/homa-srpt-sizes.toml");
    let (a, b) = (traced(text, &[]), traced(text, &[]));
    let fct = |o: &RunOutputs| o.fct.iter().map(|f| (f.flow_id, f.fct)).collect::<Vec<_>>();
    assert_eq!(fct(&a), fct(&b));
    assert_eq!(a.summary.events, b.summary.events);
    // PFC on (the hpcc scenario's lossless default): still every byte.
    let hpcc = include_str!("../../scenarios/incast-16to1-hpcc.toml");
    let out = traced(hpcc, &["cc.algorithm=homa"]);
    assert_all_delivered(&out);
}

/// An 8-to-1 incast of 1 MB messages over links that lose 0.1 % of packets.
fn lossy_incast() -> String {
    crate::common::star(
        9,
        r#"loss = 0.001
[switch]
buffer = "32MB"
pfc.enabled = false
[cc]
algorithm = "homa"
[[workload.incast]]
fan_in = 8
receiver = 0
size = "1MB"
start = "0us"
"#,
    )
}

#[test]
fn homa_recovers_lost_packets_with_the_receivers_resend_and_stalls_without_it() {
    // Homa §3.7: the receiver times out a message that owes it bytes and asks
    // for them again. Off (HomaSimulation), a lost packet stalls its message
    // for good: the grants stop RTTbytes past the hole.
    let stalled = crate::common::run(&lossy_incast(), &["stop=\"20ms\""]);
    assert!(stalled.summary.drops > 0);
    assert!(
        stalled.summary.flows_completed < stalled.summary.flows_total,
        "without RESEND a message missing a packet never completes"
    );
    let out = crate::common::run(&lossy_incast(), &["cc.homa.resend_interval=\"100us\""]);
    assert_all_delivered(&out);
    let s = &out.summary;
    assert!(s.drops > 0, "the links lost packets");
    assert!(s.nacks_sent > 0, "RESENDs went out");
    assert!(s.retransmitted_bytes > 0);
    // Recovery costs a few timeouts, not the run: the last message is done
    // well inside 8 MB at line rate (0.68 ms) plus a few intervals.
    let last = out.fct.iter().map(|f| f.start + f.fct).max().unwrap();
    assert!(last.as_secs_f64() < 2e-3, "last completion {last:?}");
}
