//! The numbers behind the figures: FCT slowdown by flow-size bucket, CDFs and
//! percentiles of histograms, PFC paused intervals, flow fairness.
//!
//! **Flow-size buckets** follow the HPCC artifact's `analysis/fct_analysis.py`
//! (the script behind HPCC Fig. 10/11): flows are sorted by size (ties by flow
//! id here), and bucket `i` of step `s` % holds the flows of ranks
//! `[⌊i·s·n/100⌋, ⌊(i+1)·s·n/100⌋)`, i.e. each bucket is `s` % of the flows;
//! it is labelled with the size of its largest flow, and the x axis places the
//! buckets at equal spacing by percentile. As the script does, a slowdown below 1
//! counts as 1. Percentiles within a bucket are nearest-rank
//! ([`crate::output::percentile`], as summary.json uses); the script indexes
//! `a[⌊n·p⌋]`, which is the same rank or one above.

use super::data::{Bin, FctRow, PfcRow, RateRow};
use crate::output::percentile;
use std::collections::BTreeMap;

/// FCT slowdown statistics of one flow-size bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct Bucket {
    /// The bucket covers flows from `lo_pct` to `hi_pct` percent by size rank.
    pub lo_pct: f64,
    pub hi_pct: f64,
    pub min_size: u64,
    pub max_size: u64,
    pub flows: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

/// Slowdown statistics of a set of flows.
pub fn slowdown_stats(rows: &[&FctRow]) -> (f64, f64, f64) {
    slowdown_percentiles(rows.iter().map(|r| r.slowdown))
}

/// p50, p95 and p99 of slowdowns (nearest rank; below 1 counts as 1).
pub fn slowdown_percentiles(slowdowns: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let mut sd: Vec<f64> = slowdowns.map(|s| s.max(1.0)).collect();
    sd.sort_by(f64::total_cmp);
    (
        percentile(&sd, 50.0),
        percentile(&sd, 95.0),
        percentile(&sd, 99.0),
    )
}

/// Buckets of `step_pct` % of the flows each, by size (see the module doc).
/// Empty buckets (fewer flows than buckets) are left out.
pub fn size_buckets(rows: &[FctRow], step_pct: u32) -> Vec<Bucket> {
    let mut sorted: Vec<&FctRow> = rows.iter().collect();
    sorted.sort_by_key(|r| (r.size, r.flow_id));
    let n = sorted.len();
    let step = step_pct.clamp(1, 100) as usize;
    let mut out = Vec::new();
    for i in (0..100).step_by(step) {
        let hi = (i + step).min(100);
        let (l, r) = (i * n / 100, hi * n / 100);
        if l >= r {
            continue;
        }
        let b = &sorted[l..r];
        let (p50, p95, p99) = slowdown_stats(b);
        out.push(Bucket {
            lo_pct: i as f64,
            hi_pct: hi as f64,
            min_size: b[0].size,
            max_size: b[b.len() - 1].size,
            flows: b.len(),
            p50,
            p95,
            p99,
        });
    }
    out
}

/// A byte count in decimal units, compactly: `512B`, `1.5KB`, `120KB`, `10MB`.
pub fn fmt_size(b: f64) -> String {
    let (v, unit) = if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else if b >= 1e3 {
        (b / 1e3, "KB")
    } else {
        (b, "B")
    };
    let s = if v >= 100.0 || unit == "B" {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{unit}")
}

/// Sums bins with the same range (e.g. over ports), in increasing order.
pub fn merge_bins<'a>(bins: impl Iterator<Item = &'a Bin>) -> Vec<Bin> {
    let mut m: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for b in bins {
        *m.entry((b.lo.to_bits(), b.hi.to_bits())).or_default() += b.weight;
    }
    let mut v: Vec<Bin> = m
        .into_iter()
        .map(|((lo, hi), weight)| Bin {
            lo: f64::from_bits(lo),
            hi: f64::from_bits(hi),
            weight,
        })
        .collect();
    v.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    v
}

/// The CDF of a histogram as points `(x, F(x))`, linear within each bin. The
/// first point is at the lower edge of the first bin above 0 with the weight
/// at 0 (e.g. the fraction of time a queue was empty); `scale` multiplies x.
pub fn hist_cdf(bins: &[Bin], scale: f64) -> Vec<(f64, f64)> {
    let total: f64 = bins.iter().map(|b| b.weight).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    let mut pts = Vec::new();
    let mut cum = 0.0;
    for b in bins {
        if b.lo == 0.0 {
            cum += b.weight;
            continue;
        }
        if pts.is_empty() {
            pts.push((b.lo * scale, cum / total));
        }
        cum += b.weight;
        pts.push((b.hi * scale, cum / total));
    }
    if pts.is_empty() {
        // Everything at 0.
        pts.push((0.0, 1.0));
    }
    pts
}

/// Nearest-rank percentile of a histogram: the bin holding the sample of rank
/// ⌈p·total⌉ (by weight), reported as its upper edge (an upper bound within the
/// bin width, 1/8 of its value), or 0 for the bin `[0, 1)`.
pub fn hist_percentile(bins: &[Bin], p: f64) -> Option<f64> {
    let total: f64 = bins.iter().map(|b| b.weight).sum();
    if total <= 0.0 {
        return None;
    }
    let rank = (p / 100.0 * total).max(f64::MIN_POSITIVE);
    let mut cum = 0.0;
    for b in bins {
        cum += b.weight;
        if cum >= rank * (1.0 - 1e-12) {
            return Some(if b.lo == 0.0 { 0.0 } else { b.hi });
        }
    }
    bins.last().map(|b| b.hi)
}

/// The paused intervals of one port-class.
#[derive(Clone, Debug, PartialEq)]
pub struct Paused {
    pub node: u32,
    pub port: u16,
    pub priority: u8,
    /// `(from_ns, to_ns)`; a pause still in force at the end closes at `end_ns`.
    pub intervals: Vec<(f64, f64)>,
}

impl Paused {
    pub fn total_ns(&self) -> f64 {
        self.intervals.iter().map(|(a, b)| b - a).sum()
    }
    pub fn name(&self) -> String {
        format!("{}:{}/{}", self.node, self.port, self.priority)
    }
}

/// Pairs pauses with resumes per (node, port, priority), in that order. A pause
/// while paused continues the pause; a resume while running is ignored.
pub fn paused_intervals(rows: &[PfcRow], end_ns: f64) -> Vec<Paused> {
    // Per port-class: the start of the pause in force, and the closed intervals.
    type State = (Option<f64>, Vec<(f64, f64)>);
    let mut m: BTreeMap<(u32, u16, u8), State> = BTreeMap::new();
    for r in rows {
        let e = m.entry((r.node, r.port, r.priority)).or_default();
        match (r.pause, e.0) {
            (true, None) => e.0 = Some(r.time_ns),
            (false, Some(t0)) => {
                e.1.push((t0, r.time_ns));
                e.0 = None;
            }
            _ => {}
        }
    }
    m.into_iter()
        .map(|((node, port, priority), (open, mut iv))| {
            if let Some(t0) = open {
                iv.push((t0, end_ns.max(t0)));
            }
            Paused {
                node,
                port,
                priority,
                intervals: iv,
            }
        })
        .collect()
}

/// How many port-classes are paused over time, as a step function.
pub fn paused_count(p: &[Paused]) -> Vec<(f64, f64)> {
    let mut edges: Vec<(f64, i64)> = p
        .iter()
        .flat_map(|x| x.intervals.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]))
        .collect();
    edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut pts = vec![(0.0, 0.0)];
    let mut n = 0i64;
    for (t, d) in edges {
        pts.push((t, n as f64));
        n += d;
        pts.push((t, n as f64));
    }
    pts
}

/// Rows per flow id, in time order.
pub fn by_flow(rows: &[RateRow]) -> BTreeMap<u32, Vec<&RateRow>> {
    let mut m: BTreeMap<u32, Vec<&RateRow>> = BTreeMap::new();
    for r in rows {
        m.entry(r.flow_id).or_default().push(r);
    }
    for v in m.values_mut() {
        v.sort_by(|a, b| a.time_ns.total_cmp(&b.time_ns));
    }
    m
}

/// Jain's fairness index of the delivered throughput of the flows recorded at
/// each sampling instant (instants where at least two flows were recorded).
pub fn jain_over_time(rows: &[RateRow]) -> Vec<(f64, f64)> {
    let mut m: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for r in rows {
        m.entry(r.time_ns.to_bits())
            .or_default()
            .push(r.delivered_gbps);
    }
    let mut pts: Vec<(f64, f64)> = m
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .filter_map(|(t, v)| {
            let s: f64 = v.iter().sum();
            let s2: f64 = v.iter().map(|x| x * x).sum();
            (s2 > 0.0).then(|| (f64::from_bits(t), s * s / (v.len() as f64 * s2)))
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, size: u64, slowdown: f64) -> FctRow {
        FctRow {
            flow_id: id,
            size,
            start_ns: 0.0,
            fct_ns: slowdown * 1000.0,
            ideal_ns: 1000.0,
            slowdown,
            dport: None,
            src: None,
            dst: None,
        }
    }

    #[test]
    fn buckets_hold_equal_shares_of_flows_by_size_and_are_labelled_by_their_largest() {
        // 40 flows, sizes 1..=40 (given in reverse), slowdown = size.
        let rows: Vec<FctRow> = (1..=40)
            .rev()
            .map(|s| flow(s as u32, s, s as f64))
            .collect();
        let b = size_buckets(&rows, 5);
        assert_eq!(b.len(), 20);
        assert!(b.iter().all(|x| x.flows == 2));
        assert_eq!((b[0].min_size, b[0].max_size), (1, 2));
        assert_eq!(b[19].max_size, 40);
        assert_eq!((b[19].p50, b[19].p99), (39.0, 40.0));
        // Fewer flows than buckets: empty buckets are dropped.
        assert_eq!(size_buckets(&rows[..3], 5).len(), 3);
    }

    #[test]
    fn slowdowns_below_one_count_as_one() {
        let rows = [flow(0, 10, 0.5), flow(1, 10, 0.8)];
        assert_eq!(
            slowdown_stats(&rows.iter().collect::<Vec<_>>()),
            (1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn histogram_percentiles_and_cdf_weigh_by_time() {
        let bins = vec![
            Bin {
                lo: 0.0,
                hi: 1.0,
                weight: 50.0,
            },
            Bin {
                lo: 1024.0,
                hi: 1152.0,
                weight: 45.0,
            },
            Bin {
                lo: 8192.0,
                hi: 9216.0,
                weight: 5.0,
            },
        ];
        assert_eq!(hist_percentile(&bins, 50.0), Some(0.0));
        assert_eq!(hist_percentile(&bins, 95.0), Some(1152.0));
        assert_eq!(hist_percentile(&bins, 99.0), Some(9216.0));
        let cdf = hist_cdf(&bins, 1.0);
        assert_eq!(cdf[0], (1024.0, 0.5));
        assert_eq!(cdf.last().copied(), Some((9216.0, 1.0)));
    }

    #[test]
    fn pauses_pair_with_resumes_and_open_pauses_close_at_the_end() {
        let ev = |t: f64, port: u16, pause: bool| PfcRow {
            time_ns: t,
            node: 1,
            port,
            priority: 3,
            pause,
        };
        let rows = vec![
            ev(10.0, 0, true),
            ev(15.0, 0, true),
            ev(20.0, 0, false),
            ev(30.0, 1, true),
            ev(40.0, 0, true),
        ];
        let p = paused_intervals(&rows, 100.0);
        assert_eq!(p[0].intervals, vec![(10.0, 20.0), (40.0, 100.0)]);
        assert_eq!(p[1].total_ns(), 70.0);
        let c = paused_count(&p);
        assert_eq!(c.iter().map(|x| x.1).fold(0.0, f64::max), 2.0);
    }

    #[test]
    fn sizes_print_compactly_in_decimal_units() {
        assert_eq!(fmt_size(512.0), "512B");
        assert_eq!(fmt_size(1500.0), "1.5KB");
        assert_eq!(fmt_size(120_000.0), "120KB");
        assert_eq!(fmt_size(10_000_000.0), "10MB");
        assert_eq!(fmt_size(2_340_000.0), "2.34MB");
    }
}
