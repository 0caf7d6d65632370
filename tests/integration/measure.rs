//! Measurements on in-memory run outputs (rate traces and queue samples) shared by
//! the congestion-control scenario tests.

use rocesim::output::RunOutputs;
use rocesim::units::SimTime;

pub fn us(t: f64) -> SimTime {
    SimTime((t * 1e6).round() as u64)
}

/// Payload bytes flow `flow` had delivered in order at `t`: from the rate trace
/// while it runs, its size once it completed, 0 before it started.
pub fn delivered_at(out: &RunOutputs, flow: u32, t: SimTime) -> u64 {
    if let Some(f) = out.fct.iter().find(|f| f.flow_id == flow)
        && f.start + f.fct <= t
    {
        return f.size;
    }
    // The last sample at or before t (samples are in time order).
    out.rates
        .iter()
        .rfind(|r| r.flow == flow && r.time <= t)
        .map_or(0, |r| r.delivered)
}

/// Goodput of `flow` between `t1` and `t2`, bits/s.
pub fn goodput(out: &RunOutputs, flow: u32, t1: SimTime, t2: SimTime) -> f64 {
    let b = delivered_at(out, flow, t2) - delivered_at(out, flow, t1);
    b as f64 * 8.0 / t2.since(t1).as_secs_f64()
}

/// Jain's fairness index of `x` (1 = perfectly equal).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (x.len() as f64 * s2)
}

/// Queue samples of one switch egress port within `[from, to)`, bytes.
pub fn queue(out: &RunOutputs, node: u32, port: u16, from: SimTime, to: SimTime) -> Vec<f64> {
    out.samples
        .iter()
        .filter(|s| s.node == node && s.port == port && s.time >= from && s.time < to)
        .map(|s| s.bytes as f64)
        .collect()
}

/// Nearest-rank percentile of unsorted values.
pub fn pct(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    rocesim::output::percentile(&v, p)
}

pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

pub fn std_dev(values: &[f64]) -> f64 {
    let m = mean(values);
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / values.len().max(1) as f64).sqrt()
}

/// Time the flow's last byte was acknowledged, if it completed.
pub fn finish(out: &RunOutputs, flow: u32) -> Option<SimTime> {
    out.fct
        .iter()
        .find(|f| f.flow_id == flow)
        .map(|f| f.start + f.fct)
}
