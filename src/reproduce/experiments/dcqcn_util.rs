//! Helpers shared by the DCQCN paper's experiments.

use crate::output::FctRecord;
use crate::units::SimTime;

/// Throughput of a completed flow, size / FCT, in Gbps.
pub fn flow_gbps(f: &FctRecord) -> f64 {
    let s = f.fct.as_secs_f64();
    if s > 0.0 {
        f.size as f64 * 8.0 / s / 1e9
    } else {
        0.0
    }
}

/// (min, median, max) of unsorted values; zeros when empty.
pub fn min_med_max(v: &[f64]) -> (f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[0], crate::output::percentile(&s, 50.0), s[s.len() - 1])
}

/// Throughput (Gbps) of each `transfer`-byte piece of one flow's stream, from
/// its trace of (time, bytes delivered) in time order: a piece ends when the
/// delivered bytes cross its last byte (the crossing time interpolated between
/// samples); the first begins at the first sample if nothing was delivered
/// yet. Only pieces that begin at or after `from` count, as a warm-up.
pub fn transfer_gbps(trace: &[(SimTime, u64)], transfer: u64, from: SimTime) -> Vec<f64> {
    let mut out = Vec::new();
    let mut begin: Option<f64> = trace
        .first()
        .filter(|(_, d)| *d == 0)
        .map(|(t, _)| t.as_secs_f64());
    let mut next = transfer;
    let from_s = from.as_secs_f64();
    for w in trace.windows(2) {
        let ((t0, d0), (t1, d1)) = (w[0], w[1]);
        while d1 >= next && d1 > d0 {
            let (a, b) = (t0.as_secs_f64(), t1.as_secs_f64());
            let at = a + (b - a) * (next - d0.min(next)) as f64 / (d1 - d0) as f64;
            if let Some(s) = begin
                && s >= from_s
            {
                out.push(transfer as f64 * 8.0 / (at - s) / 1e9);
            }
            begin = Some(at);
            next += transfer;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_cut_into_transfers_at_interpolated_crossings() {
        let t = |us: u64| SimTime(us * 1_000_000);
        // 10 Gbps (1.25 KB per us) for 400 us, then 5 Gbps.
        let trace = vec![(t(0), 0), (t(400), 500_000), (t(800), 750_000)];
        // 100 KB pieces: 80 us each at 10 Gbps, 160 us at 5 Gbps.
        let v = transfer_gbps(&trace, 100_000, SimTime::ZERO);
        assert_eq!(v.len(), 7, "{v:?}");
        assert!(v[..5].iter().all(|g| (g - 10.0).abs() < 1e-9), "{v:?}");
        assert!(v[5..].iter().all(|g| (g - 5.0).abs() < 1e-9), "{v:?}");
        // A warm-up drops the pieces that begin before it.
        assert_eq!(transfer_gbps(&trace, 100_000, t(400)).len(), 2);
    }

    #[test]
    fn min_med_max_of_odd_sample() {
        assert_eq!(min_med_max(&[3.0, 1.0, 2.0]), (1.0, 2.0, 3.0));
        assert_eq!(min_med_max(&[]), (0.0, 0.0, 0.0));
    }
}
