//! Measurements the experiments share: throughput over time from the rate trace,
//! queue statistics from queue samples, fairness.

use crate::output::{QueueSample, RateSample};
use crate::units::SimTime;
use std::collections::BTreeMap;

/// Delivered throughput of each flow over time, in Gbps, from the rate trace: the
/// bytes delivered between consecutive samples divided by their spacing. Points
/// are at the end of each interval, in ms.
pub fn throughput(rates: &[RateSample]) -> BTreeMap<u32, Vec<(f64, f64)>> {
    let mut last: BTreeMap<u32, (SimTime, u64)> = BTreeMap::new();
    let mut out: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rates {
        if let Some((t, d)) = last.insert(r.flow, (r.time, r.delivered)) {
            let dt = r.time.since(t).as_secs_f64();
            if dt > 0.0 {
                let gbps = (r.delivered - d) as f64 * 8.0 / dt / 1e9;
                out.entry(r.flow)
                    .or_default()
                    .push((r.time.as_secs_f64() * 1e3, gbps));
            }
        }
    }
    out
}

/// Mean of the series' values over `[from_ms, to_ms]` (0 when no point falls in).
pub fn mean_between(series: &[(f64, f64)], from_ms: f64, to_ms: f64) -> f64 {
    let v: Vec<f64> = series
        .iter()
        .filter(|(t, _)| *t >= from_ms && *t <= to_ms)
        .map(|(_, y)| *y)
        .collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Jain's fairness index of non-negative values (1 = equal shares).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    if q == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * q)
    }
}

/// Queue samples of one switch (all its ports), as (ms, KB) per port.
pub fn queue_of(samples: &[QueueSample], node: u32) -> BTreeMap<u16, Vec<(f64, f64)>> {
    let mut out: BTreeMap<u16, Vec<(f64, f64)>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.node == node) {
        out.entry(s.port)
            .or_default()
            .push((s.time.as_secs_f64() * 1e3, s.bytes as f64 / 1e3));
    }
    out
}

/// The port of `node` whose queue got longest, with its series.
pub fn busiest_port(samples: &[QueueSample], node: u32) -> Option<(u16, Vec<(f64, f64)>)> {
    queue_of(samples, node).into_iter().max_by(|a, b| {
        let m = |v: &Vec<(f64, f64)>| v.iter().map(|p| p.1).fold(0.0, f64::max);
        m(&a.1).total_cmp(&m(&b.1))
    })
}

/// Nearest-rank percentile of unsorted values.
pub fn pct(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    crate::output::percentile(&v, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_single_taker() {
        assert!((jain(&[5.0, 5.0, 5.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[9.0, 0.0, 0.0]) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn throughput_is_bytes_over_the_sample_spacing() {
        let s = |t_us: u64, d: u64| RateSample {
            time: SimTime(t_us * 1_000_000),
            flow: 0,
            rate: crate::units::Rate(0),
            window: None,
            delivered: d,
            congestion: Default::default(),
        };
        let t = throughput(&[s(0, 0), s(10, 125_000), s(20, 250_000)]);
        // 1e6 bits / 1e-5 s is not exact in binary floating point: compare closely.
        assert_eq!(t[&0].len(), 2);
        for (p, want) in t[&0].iter().zip([(0.01, 100.0), (0.02, 100.0)]) {
            assert!(
                (p.0 - want.0).abs() < 1e-12 && (p.1 - want.1).abs() < 1e-9,
                "{p:?}"
            );
        }
    }
}
