//! Helpers shared by the DCQCN paper's experiments.

use crate::output::FctRecord;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_med_max_of_odd_sample() {
        assert_eq!(min_med_max(&[3.0, 1.0, 2.0]), (1.0, 2.0, 3.0));
        assert_eq!(min_med_max(&[]), (0.0, 0.0, 0.0));
    }
}
