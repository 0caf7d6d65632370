//! DCTCP and TIMELY on one bottleneck (2-to-1, 100 Gbps): DCTCP's queue
//! oscillates around its marking threshold K = 30 KB x 100/10 = 300 KB (DCTCP §3,
//! HPCC §5.1); TIMELY's RTT stays below T_high and its queue peaks between T_low and
//! T_high (TIMELY §4: only increases below T_low, so every decrease starts above it).

use crate::measure::{goodput, jain, mean, pct, queue, us};
use rocesim::output::RunOutputs;

fn traced(text: &str) -> RunOutputs {
    let out = crate::common::traced(text, &[]);
    assert_eq!(out.summary.drops, 0);
    assert_eq!(out.summary.pfc_pause_frames, 0);
    out
}

#[test]
fn dctcp_holds_the_queue_around_k_with_a_full_link() {
    let out = traced(include_str!("../../scenarios/dctcp-2to1.toml"));
    let k = 300_000.0;
    // Steady part: the window grows one MTU per RTT from one BDP, so K is
    // reached after about 2 ms.
    let (a, b) = (us(3000.0), us(8000.0));
    let q = queue(&out, 3, 0, a, b);
    let (lo, hi) = (pct(&q, 1.0), pct(&q, 99.0));
    eprintln!(
        "DCTCP queue p1 {lo:.0} p50 {:.0} p99 {hi:.0} mean {:.0}",
        pct(&q, 50.0),
        mean(&q)
    );
    assert!((mean(&q) - k).abs() < 0.1 * k, "mean {}", mean(&q));
    assert!(lo < k && hi > k, "the queue crosses K: [{lo}, {hi}]");
    let g: Vec<f64> = (0..2).map(|f| goodput(&out, f, a, b)).collect();
    assert!(g.iter().sum::<f64>() > 0.9 * 100e9, "{g:?}");
    assert!(jain(&g) > 0.99);
}

#[test]
fn timely_keeps_rtt_below_t_high_and_its_queue_peaks_between_t_low_and_t_high() {
    let out = traced(include_str!("../../scenarios/timely-2to1.toml"));
    let (t_low, t_high) = (50e-6, 500e-6);
    let base = out.summary.control_interval_ns * 1e-9; // T, just above the base RTT
    let rtt = |q: f64| base + q * 8.0 / 100e9;
    // After the start-up burst and the additive recovery (about 2 ms).
    let (a, b) = (3000.0, 8000.0);
    let all = queue(&out, 3, 0, us(a), us(b));
    let max_rtt = rtt(all.iter().cloned().fold(0.0, f64::max));
    assert!(max_rtt < t_high, "max RTT {max_rtt}");
    // Each 1 ms holds at least one cycle of TIMELY's oscillation: its peak is
    // above T_low (decreases happen only there) and below T_high.
    let mut t = a;
    while t < b {
        let q = queue(&out, 3, 0, us(t), us(t + 1000.0));
        let peak = rtt(q.iter().cloned().fold(0.0, f64::max));
        eprintln!(
            "TIMELY {t:.0}-{:.0} us: RTT peak {:.1} us, median {:.1} us",
            t + 1000.0,
            peak * 1e6,
            rtt(pct(&q, 50.0)) * 1e6
        );
        assert!(peak > t_low && peak < t_high, "peak RTT {peak}");
        t += 1000.0;
    }
    let g: Vec<f64> = (0..2).map(|f| goodput(&out, f, us(a), us(b))).collect();
    assert!(g.iter().sum::<f64>() > 0.9 * 100e9, "{g:?}");
}
