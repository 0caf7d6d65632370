//! Flow-by-flow agreement of two runs of the same flows, typically rocesim's
//! `ns3-hpcc` profile against the HPCC ns-3 simulator's own fct.txt.
//!
//! * **Matching.** Both simulators run the same flow file, so every flow has a
//!   twin: flows are keyed by (source, destination, destination port, size) and
//!   paired in start order within a key. Start times are not compared: ns-3
//!   prints them with its 2 s offset and truncates them to whole ns (half of them
//!   1 ns early), so pairing by order is exact where matching times is not.
//!   Flows left without a twin are counted and reported.
//! * **Buckets.** Flow-size edges at the 50th, 80th, 90th, 95th, 99th and 100th
//!   percentile of the matched flows' sizes; a bucket holds the sizes above the
//!   previous edge up to its own. In each, the p50, p95 and p99 of FCT slowdown
//!   (nearest rank; slowdowns below 1 count as 1, as `fct_analysis.py` does) of
//!   both runs, and their relative difference to the reference. Only buckets of
//!   at least [`MIN_COUNTED`] flows count toward the worst difference: a p99 of
//!   fewer flows is one or two flows' luck.

use super::data::{FctRow, RunData};
use super::figures::{Fig, line};
use super::stats::{fmt_size, slowdown_percentiles};
use crate::output::percentile;
use crate::plot::{AxisSpec, Legend, LineStyle, Series};
use std::collections::BTreeMap;

/// Buckets with fewer flows than this do not count toward the worst difference.
pub const MIN_COUNTED: usize = 100;

/// The size percentiles that close the buckets.
pub const EDGES_PCT: [f64; 6] = [50.0, 80.0, 90.0, 95.0, 99.0, 100.0];

/// One flow in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    /// Ours: start (as our run prints it), FCT and slowdown.
    pub start_ns: f64,
    pub fct_ns: f64,
    pub slowdown: f64,
    /// The reference's FCT and slowdown.
    pub ref_fct_ns: f64,
    pub ref_slowdown: f64,
}

impl Pair {
    /// How far apart the two FCTs are, as a ratio >= 1.
    pub fn spread(&self) -> f64 {
        let (a, b) = (self.fct_ns.max(1.0), self.ref_fct_ns.max(1.0));
        a.max(b) / a.min(b)
    }
}

/// The outcome of matching two runs' flows.
#[derive(Clone, Debug, Default)]
pub struct Matched {
    pub pairs: Vec<Pair>,
    /// Flows of ours and of the reference without a twin.
    pub only_ours: usize,
    pub only_ref: usize,
    /// Flows that carry no source/destination (fct.csv written before those columns).
    pub unkeyed: usize,
}

type Key = (u32, u32, u16, u64);

fn keyed(rows: &[FctRow]) -> (BTreeMap<Key, Vec<&FctRow>>, usize) {
    let mut m: BTreeMap<Key, Vec<&FctRow>> = BTreeMap::new();
    let mut unkeyed = 0;
    for r in rows {
        match (r.src, r.dst) {
            (Some(s), Some(d)) => m
                .entry((s, d, r.dport.unwrap_or(0), r.size))
                .or_default()
                .push(r),
            _ => unkeyed += 1,
        }
    }
    for v in m.values_mut() {
        v.sort_by(|a, b| {
            a.start_ns
                .total_cmp(&b.start_ns)
                .then(a.flow_id.cmp(&b.flow_id))
        });
    }
    (m, unkeyed)
}

/// Pairs `ours` with `reference` flow by flow (see the module doc).
pub fn match_flows(ours: &[FctRow], reference: &[FctRow]) -> Matched {
    let (a, ua) = keyed(ours);
    let (b, ub) = keyed(reference);
    let mut m = Matched {
        unkeyed: ua + ub,
        ..Matched::default()
    };
    for (k, xs) in &a {
        let ys = b.get(k).map(Vec::as_slice).unwrap_or(&[]);
        for (x, y) in xs.iter().zip(ys) {
            m.pairs.push(Pair {
                src: k.0,
                dst: k.1,
                size: k.3,
                start_ns: x.start_ns,
                fct_ns: x.fct_ns,
                slowdown: x.slowdown,
                ref_fct_ns: y.fct_ns,
                ref_slowdown: y.slowdown,
            });
        }
        m.only_ours += xs.len().saturating_sub(ys.len());
        m.only_ref += ys.len().saturating_sub(xs.len());
    }
    m.only_ref += b
        .iter()
        .filter(|(k, _)| !a.contains_key(k))
        .map(|(_, v)| v.len())
        .sum::<usize>();
    m.pairs
        .sort_by(|p, q| p.start_ns.total_cmp(&q.start_ns).then(p.size.cmp(&q.size)));
    m
}

/// Slowdown percentiles of one bucket in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketAgreement {
    /// Sizes in `(lo, hi]`.
    pub lo: u64,
    pub hi: u64,
    pub flows: usize,
    /// p50, p95, p99 of ours and of the reference.
    pub ours: [f64; 3],
    pub reference: [f64; 3],
}

impl BucketAgreement {
    pub fn counted(&self) -> bool {
        self.flows >= MIN_COUNTED
    }
    /// Relative differences (ours − reference) / reference for p50, p95, p99.
    pub fn diff(&self) -> [f64; 3] {
        [0, 1, 2].map(|i| (self.ours[i] - self.reference[i]) / self.reference[i])
    }
}

/// The largest relative difference over counted buckets and where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    pub diff: f64,
    /// Index into the buckets, and which percentile (0: p50, 1: p95, 2: p99).
    pub bucket: usize,
    pub which: usize,
}

pub const PCT_NAMES: [&str; 3] = ["p50", "p95", "p99"];

/// The per-bucket table of matched flows.
pub fn buckets(pairs: &[Pair]) -> Vec<BucketAgreement> {
    let mut sizes: Vec<f64> = pairs.iter().map(|p| p.size as f64).collect();
    sizes.sort_by(f64::total_cmp);
    let mut out: Vec<BucketAgreement> = Vec::new();
    let mut lo = 0u64;
    for p in EDGES_PCT {
        if sizes.is_empty() {
            break;
        }
        let hi = percentile(&sizes, p) as u64;
        if out.last().is_some_and(|b| b.hi >= hi) {
            continue;
        }
        let inside: Vec<&Pair> = pairs
            .iter()
            .filter(|x| x.size > lo && x.size <= hi)
            .collect();
        let stats = |f: fn(&Pair) -> f64| {
            let (a, b, c) = slowdown_percentiles(inside.iter().map(|x| f(x)));
            [a, b, c]
        };
        out.push(BucketAgreement {
            lo,
            hi,
            flows: inside.len(),
            ours: stats(|x| x.slowdown),
            reference: stats(|x| x.ref_slowdown),
        });
        lo = hi;
    }
    out
}

/// The largest |difference| over counted buckets, if any bucket counts.
pub fn worst(buckets: &[BucketAgreement]) -> Option<Worst> {
    let mut w: Option<Worst> = None;
    for (i, b) in buckets.iter().enumerate().filter(|(_, b)| b.counted()) {
        for (k, d) in b.diff().into_iter().enumerate() {
            if w.is_none_or(|w| d.abs() > w.diff.abs()) {
                w = Some(Worst {
                    diff: d,
                    bucket: i,
                    which: k,
                });
            }
        }
    }
    w
}

/// The `n` pairs whose FCTs differ most (by ratio), largest first.
pub fn most_different(pairs: &[Pair], n: usize) -> Vec<&Pair> {
    let mut v: Vec<&Pair> = pairs.iter().collect();
    v.sort_by(|a, b| b.spread().total_cmp(&a.spread()));
    v.truncate(n);
    v
}

/// Everything the agreement section of `compare` shows for one run against the
/// reference.
#[derive(Clone, Debug)]
pub struct Agreement {
    pub ours: String,
    pub reference: String,
    pub matched: Matched,
    pub buckets: Vec<BucketAgreement>,
    pub worst: Option<Worst>,
}

impl Agreement {
    pub fn of(ours: &RunData, reference: &RunData) -> Agreement {
        let matched = match_flows(&ours.fct, &reference.fct);
        let buckets = buckets(&matched.pairs);
        let worst = worst(&buckets);
        Agreement {
            ours: ours.label.clone(),
            reference: reference.label.clone(),
            matched,
            buckets,
            worst,
        }
    }

    /// Header and rows of the per-bucket table.
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let mut header = vec!["sizes".to_string(), "flows".to_string()];
        for p in PCT_NAMES {
            header.push(format!("{p} {}", self.ours));
            header.push(format!("{p} {}", self.reference));
            header.push(format!("{p} diff"));
        }
        let rows = self
            .buckets
            .iter()
            .map(|b| {
                let mut r = vec![
                    format!("{}-{}", fmt_size(b.lo as f64), fmt_size(b.hi as f64)),
                    format!(
                        "{}{}",
                        b.flows,
                        if b.counted() { "" } else { " (not counted)" }
                    ),
                ];
                for (i, d) in b.diff().into_iter().enumerate() {
                    r.push(format!("{:.3}", b.ours[i]));
                    r.push(format!("{:.3}", b.reference[i]));
                    r.push(format!("{:+.1}%", d * 100.0));
                }
                r
            })
            .collect();
        (header, rows)
    }

    /// One line: the worst counted difference and where.
    pub fn verdict(&self) -> String {
        let m = &self.matched;
        let mut s = format!(
            "{} vs {}: {} flows matched",
            self.ours,
            self.reference,
            m.pairs.len()
        );
        if m.only_ours + m.only_ref + m.unkeyed > 0 {
            s += &format!(
                " ({} only in {}, {} only in {}, {} without hosts)",
                m.only_ours, self.ours, m.only_ref, self.reference, m.unkeyed
            );
        }
        match self.worst {
            Some(w) => {
                let b = &self.buckets[w.bucket];
                s += &format!(
                    "; worst counted difference {:+.1}% ({} of flows {}-{})",
                    w.diff * 100.0,
                    PCT_NAMES[w.which],
                    fmt_size(b.lo as f64),
                    fmt_size(b.hi as f64)
                );
            }
            None => s += &format!("; no bucket holds {MIN_COUNTED} flows"),
        }
        s
    }

    /// agreement.csv: one row per bucket and percentile.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "ours,reference,size_lo,size_hi,flows,counted,percentile,ours_slowdown,ref_slowdown,diff\n",
        );
        for b in &self.buckets {
            for (i, d) in b.diff().into_iter().enumerate() {
                s += &format!(
                    "{},{},{},{},{},{},{},{:.6},{:.6},{:.6}\n",
                    self.ours,
                    self.reference,
                    b.lo,
                    b.hi,
                    b.flows,
                    b.counted(),
                    PCT_NAMES[i],
                    b.ours[i],
                    b.reference[i],
                    d
                );
            }
        }
        s
    }
}

/// Slowdown p50/p95/p99 per agreement bucket: ours solid, the reference dashed,
/// one colour per percentile.
pub fn bucket_figure(a: &Agreement, stem: &str) -> Fig {
    let title = format!("FCT slowdown by flow size: {} vs {}", a.ours, a.reference);
    let fig = Fig::new(
        stem,
        &title,
        format!(
            "Matched flows in buckets closing at the 50th, 80th, 90th, 95th, 99th and 100th \
             percentile of flow size (x: the bucket's largest size). Solid: {}; dashed: {}. \
             Nearest-rank percentiles of FCT / ideal FCT; buckets under {MIN_COUNTED} flows \
             are drawn but do not count toward the worst difference.",
            a.ours, a.reference
        ),
    );
    if a.buckets.is_empty() {
        return fig.without("no matched flows");
    }
    let ticks = a
        .buckets
        .iter()
        .enumerate()
        .map(|(i, b)| (i as f64, fmt_size(b.hi as f64)))
        .collect();
    let x = AxisSpec::linear("flow size (bucket's largest)")
        .with_range(-0.3, a.buckets.len() as f64 - 0.7)
        .with_ticks(ticks);
    let y = AxisSpec::log("FCT slowdown");
    let mut series = Vec::new();
    for (k, p) in PCT_NAMES.iter().enumerate() {
        let pts = |f: fn(&BucketAgreement) -> [f64; 3]| -> Vec<(f64, f64)> {
            a.buckets
                .iter()
                .enumerate()
                .map(|(i, b)| (i as f64, f(b)[k]))
                .collect()
        };
        series.push(Series::line(format!("{p} {}", a.ours), pts(|b| b.ours)).colored(k));
        series.push(
            Series::line(format!("{p} {}", a.reference), pts(|b| b.reference))
                .styled(LineStyle::Dashed)
                .colored(k),
        );
    }
    fig.with(line(&title, x, y, series, Legend::UpperLeft))
}

/// Every matched flow's FCT, ours against the reference's, with the line y = x.
pub fn scatter_figure(a: &Agreement, stem: &str) -> Fig {
    let title = format!("FCT flow by flow: {} vs {}", a.ours, a.reference);
    let fig = Fig::new(
        stem,
        &title,
        format!(
            "One point per matched flow: x its FCT in {}, y in {}; on the diagonal they agree.",
            a.reference, a.ours
        ),
    );
    let pts: Vec<(f64, f64)> = a
        .matched
        .pairs
        .iter()
        .map(|p| (p.ref_fct_ns / 1e3, p.fct_ns / 1e3))
        .filter(|&(x, y)| x > 0.0 && y > 0.0)
        .collect();
    if pts.is_empty() {
        return fig.without("no matched flows");
    }
    let (lo, hi) = pts.iter().fold((f64::MAX, 0.0f64), |(l, h), &(x, y)| {
        (l.min(x).min(y), h.max(x).max(y))
    });
    let axis = |label: String| AxisSpec::log(label).with_range(lo / 1.2, hi * 1.2);
    let series = vec![
        Series::line(format!("{} flows", pts.len()), pts).styled(LineStyle::Points),
        Series::line("y = x", vec![(lo / 1.2, lo / 1.2), (hi * 1.2, hi * 1.2)])
            .styled(LineStyle::Dashed)
            .colored(1),
    ];
    fig.with(line(
        &title,
        axis(format!("FCT in {} (µs)", a.reference)),
        axis(format!("FCT in {} (µs)", a.ours)),
        series,
        Legend::UpperLeft,
    ))
}

/// Header and rows of the flows that differ most.
pub fn most_different_table(a: &Agreement, n: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let header = [
        "src",
        "dst",
        "size",
        "start (ns, ours)",
        &format!("FCT {} (ns)", a.ours),
        &format!("FCT {} (ns)", a.reference),
        "ratio",
    ]
    .map(String::from)
    .to_vec();
    let rows = most_different(&a.matched.pairs, n)
        .into_iter()
        .map(|p| {
            vec![
                p.src.to_string(),
                p.dst.to_string(),
                p.size.to_string(),
                format!("{:.0}", p.start_ns),
                format!("{:.0}", p.fct_ns),
                format!("{:.0}", p.ref_fct_ns),
                format!("{:.2}", p.fct_ns / p.ref_fct_ns),
            ]
        })
        .collect();
    (header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u32, src: u32, size: u64, start: f64, fct: f64, ideal: f64) -> FctRow {
        FctRow {
            flow_id: id,
            size,
            start_ns: start,
            fct_ns: fct,
            ideal_ns: ideal,
            slowdown: fct / ideal,
            dport: Some(100),
            src: Some(src),
            dst: Some(0),
        }
    }

    #[test]
    fn flows_pair_by_key_in_start_order_whatever_the_offset_and_truncation() {
        // Ours from time 0; the reference 2 s later and 1 ns early for one flow.
        let ours = [
            row(0, 1, 500, 100.0, 10.0, 10.0),
            row(1, 1, 500, 300.0, 20.0, 10.0),
            row(2, 2, 700, 200.0, 30.0, 10.0),
            row(3, 3, 900, 250.0, 30.0, 10.0),
        ];
        let theirs = [
            row(0, 1, 500, 2e9 + 99.0, 11.0, 10.0),
            row(1, 2, 700, 2e9 + 200.0, 33.0, 10.0),
            row(2, 1, 500, 2e9 + 300.0, 22.0, 10.0),
            row(3, 4, 900, 2e9 + 250.0, 30.0, 10.0),
        ];
        let m = match_flows(&ours, &theirs);
        assert_eq!(m.pairs.len(), 3);
        assert_eq!((m.only_ours, m.only_ref), (1, 1));
        let p: Vec<(u32, f64, f64)> = m
            .pairs
            .iter()
            .map(|p| (p.src, p.fct_ns, p.ref_fct_ns))
            .collect();
        assert_eq!(p, [(1, 10.0, 11.0), (2, 30.0, 33.0), (1, 20.0, 22.0)]);
    }

    #[test]
    fn buckets_close_at_size_percentiles_and_only_large_ones_count() {
        // 1000 flows, sizes 1..=1000; ours 10 % slower than the reference,
        // except the largest 10 flows, 50 % slower.
        let pairs: Vec<Pair> = (1..=1000u64)
            .map(|s| {
                let r = 2.0;
                let o = if s > 990 { 3.0 } else { 2.2 };
                Pair {
                    src: 1,
                    dst: 0,
                    size: s,
                    start_ns: s as f64,
                    fct_ns: o,
                    slowdown: o,
                    ref_fct_ns: r,
                    ref_slowdown: r,
                }
            })
            .collect();
        let b = buckets(&pairs);
        let edges: Vec<(u64, u64, usize)> = b.iter().map(|b| (b.lo, b.hi, b.flows)).collect();
        assert_eq!(
            edges,
            [
                (0, 500, 500),
                (500, 800, 300),
                (800, 900, 100),
                (900, 950, 50),
                (950, 990, 40),
                (990, 1000, 10)
            ]
        );
        let w = worst(&b).unwrap();
        // The +50 % bucket has 10 flows: it does not count.
        assert!((w.diff - 0.1).abs() < 1e-9, "{w:?}");
        assert!(b[0].counted() && b[2].counted() && !b[3].counted());
        assert!(b[5].diff().iter().all(|d| (d - 0.5).abs() < 1e-9));
    }

    #[test]
    fn the_most_different_flows_come_first_by_ratio_either_way() {
        let mk = |o: f64, r: f64| Pair {
            src: 0,
            dst: 1,
            size: 1,
            start_ns: 0.0,
            fct_ns: o,
            slowdown: 1.0,
            ref_fct_ns: r,
            ref_slowdown: 1.0,
        };
        let pairs = [mk(10.0, 11.0), mk(10.0, 40.0), mk(30.0, 10.0)];
        let top = most_different(&pairs, 2);
        assert_eq!(top[0].spread(), 4.0);
        assert_eq!(top[1].spread(), 3.0);
    }
}
