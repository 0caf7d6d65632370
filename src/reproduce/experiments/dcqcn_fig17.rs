//! dcqcn-fig17: higher user load (DCQCN §6.2, Fig. 17). The benchmark traffic of
//! Fig. 16 with the incast degree held at 10 and the user traffic raised 16-fold,
//! with and without DCQCN: user throughput (median, 10th percentile) and the
//! spread of the incast flows' throughput against the user load.

use super::dcqcn_bench::{SCHEMES, Traffic, bench_run, over_seeds, scale, scheme_lines};
use crate::error::Error;
use crate::plot::{AxisSpec, Series};
use crate::reproduce::metrics::pct;
use crate::reproduce::quotes as q;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec};
use std::path::Path;

pub struct DcqcnFig17;

/// The incast degree (§6.2: "we hold the degree of incast constant at 10").
const K: u64 = 10;

/// User load per host link: the paper's 5 to 80 communicating pairs is a
/// 16-fold range; we scale Fig. 16's Poisson load the same way.
fn loads(quick: bool) -> Vec<f64> {
    if quick {
        vec![0.05, 0.2, 0.8]
    } else {
        vec![0.05, 0.1, 0.2, 0.4, 0.8]
    }
}

fn seeds(quick: bool) -> u64 {
    if quick { 1 } else { 3 }
}

fn name(prefix: &str, load: f64, seed: u64) -> String {
    format!("{prefix}-load{:.0}-s{seed}", load * 100.0)
}

/// Per load: every user and incast flow's throughput over the seeds.
struct Point {
    load: f64,
    t: Traffic,
}

/// 10th percentile over median: 1 is perfectly even.
fn evenness(v: &[f64]) -> f64 {
    let m = pct(v, 50.0);
    if m > 0.0 { pct(v, 10.0) / m } else { 0.0 }
}

impl Point {
    fn user(&self) -> (f64, f64) {
        (pct(&self.t.user, 50.0), pct(&self.t.user, 10.0))
    }
    /// The incast flows' evenness, every sender backlogged (the judged reading).
    fn incast_evenness(&self) -> f64 {
        evenness(&self.t.incast)
    }
    /// The same with size / FCT (the other reading).
    fn incast_evenness_fct(&self) -> f64 {
        evenness(&self.t.incast_fct)
    }
}

fn collect(runs: &[Finished], prefix: &str, quick: bool) -> Result<Vec<Point>, Error> {
    loads(quick)
        .into_iter()
        .map(|load| {
            let (t, _) = over_seeds(runs, seeds(quick), K, |s| name(prefix, load, s))?;
            Ok(Point { load, t })
        })
        .collect()
}

fn panel(dir: &Path, stem: &str, title: &str, y: &str, series: Vec<Series>) -> Result<(), Error> {
    super::dcqcn_bench::panel(
        dir,
        (stem, title),
        AxisSpec::log("user load per host link (%)"),
        y,
        series,
    )
}

impl Experiment for DcqcnFig17 {
    fn id(&self) -> &'static str {
        "dcqcn-fig17"
    }
    fn title(&self) -> &'static str {
        "higher user load at incast degree 10: user throughput and incast fairness, with and without DCQCN"
    }
    fn source(&self) -> &'static str {
        "DCQCN §6.2, Fig. 17"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for (prefix, _, cc) in SCHEMES {
            for load in loads(quick) {
                for s in 1..=seeds(quick) {
                    v.push(bench_run(
                        name(prefix, load, s),
                        cc,
                        Some(load),
                        K,
                        s,
                        quick,
                    ));
                }
            }
        }
        v
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let pts: Vec<Vec<Point>> = SCHEMES
            .iter()
            .map(|(prefix, _, _)| collect(runs, prefix, quick))
            .collect::<Result<_, _>>()?;
        type Stat<'a> = &'a dyn Fn(&Point) -> f64;
        let line = |f: Stat| scheme_lines(&pts, |x| (x.load * 100.0, f(x)));
        let panels: [(&str, &str, &str, Stat); 4] = [
            (
                "a-user-median",
                "(a) user traffic, median",
                "throughput (Gbps)",
                &|p| p.user().0,
            ),
            (
                "a-user-p10",
                "(a) user traffic, 10th percentile",
                "throughput (Gbps)",
                &|p| p.user().1,
            ),
            (
                "b-incast-median",
                "(b) incast, median",
                "throughput (Gbps)",
                &|p| pct(&p.t.incast, 50.0),
            ),
            (
                "b-incast-evenness",
                "(b) incast, 10th percentile / median",
                "ratio",
                &|p| p.incast_evenness(),
            ),
        ];
        for (stem, title, y, f) in panels {
            panel(dir, stem, title, y, line(f))?;
            a.figures.push(stem.into());
        }

        let (dq, pf) = (&pts[0], &pts[1]);
        let (lo, hi) = (0, dq.len() - 1);
        let (pf_m, pf_t) = pf[lo].user();
        let (dq_m, dq_t) = dq[hi].user();
        let (l_lo, l_hi) = (pf[lo].load * 100.0, dq[hi].load * 100.0);
        for (stat, ours, theirs) in [("median", dq_m, pf_m), ("10th percentile", dq_t, pf_t)] {
            let mut r = Row::judged(
                format!("user {stat}: DCQCN at {l_hi:.0}% load vs no DCQCN at {l_lo:.0}% (16x)"),
                "\"the performance of user traffic with 5 communicating pairs when no DCQCN is \
                 used, matches the performance of user traffic with 80 communicating pairs, with \
                 DCQCN\"",
                format!("{ours:.2} vs {theirs:.2} Gbps"),
                if theirs > 0.0 {
                    ours / theirs
                } else {
                    f64::INFINITY
                },
                &Rule::at_least(0.8, "x")
                    .partly(0.5)
                    .of("DCQCN at the highest load / no DCQCN at the lowest"),
                "Our loads are 1% of a host link per pair (the paper gives no load); at 80% of \
                 every host link our user flows slow each other down",
            );
            r = r.explained(q::DCQCN_PAIRS_5_TO_80);
            a.rows.push(r);
        }
        let per_load = |f: &dyn Fn(&Point) -> f64| -> (f64, String) {
            let worst = dq
                .iter()
                .zip(pf)
                .map(|(d, p)| f(d) / f(p))
                .fold(f64::INFINITY, f64::min);
            let each = dq
                .iter()
                .zip(pf)
                .map(|(d, p)| format!("{:.0}%: {:.2} vs {:.2}", d.load * 100.0, f(d), f(p)))
                .collect::<Vec<_>>()
                .join(", ");
            (worst, each)
        };
        let (wm, em) = per_load(&|p| p.user().0);
        a.rows.push(Row::judged(
            "user median, DCQCN vs no DCQCN at each load",
            "Fig. 17(a): with DCQCN user traffic does at least as well at every load",
            format!("DCQCN vs no DCQCN (Gbps): {em}"),
            wm,
            &Rule::at_least(0.95, "x")
                .partly(0.8)
                .of("the smallest DCQCN / no DCQCN over the loads"),
            "At light load most user flows meet no congestion either way",
        ));
        let (wt, et) = per_load(&|p| p.user().1);
        a.rows.push(Row::judged(
            "user 10th percentile, DCQCN vs no DCQCN at each load",
            "Fig. 17(a): with DCQCN the tail of user traffic does better at every load",
            format!("DCQCN vs no DCQCN (Gbps): {et}"),
            wt,
            &Rule::at_least(1.1, "x")
                .partly(0.9)
                .of("the smallest DCQCN / no DCQCN over the loads"),
            "",
        ));
        let even = dq
            .iter()
            .zip(pf)
            .map(|(d, p)| d.incast_evenness() - p.incast_evenness())
            .fold(f64::INFINITY, f64::min);
        a.rows.push(
            Row::judged(
                "incast flows' evenness (10th percentile / median)",
                "\"the performance of disk rebuild traffic is more uniform and fair with DCQCN \
                 than without it\" (Fig. 17(b))",
                format!(
                    "DCQCN vs no DCQCN, every sender backlogged: {}. With size / FCT: {}",
                    dq.iter()
                        .zip(pf)
                        .map(|(d, p)| format!(
                            "{:.0}%: {:.2} vs {:.2}",
                            d.load * 100.0,
                            d.incast_evenness(),
                            p.incast_evenness()
                        ))
                        .collect::<Vec<_>>()
                        .join(", "),
                    dq.iter()
                        .zip(pf)
                        .map(|(d, p)| format!(
                            "{:.0}%: {:.2} vs {:.2}",
                            d.load * 100.0,
                            d.incast_evenness_fct(),
                            p.incast_evenness_fct()
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                even,
                &Rule::at_least(0.05, "")
                    .partly(0.0)
                    .of("the smallest DCQCN − no DCQCN evenness over the loads"),
                "Size / FCT hides PFC's unfairness: senders near the receiver finish early and \
                 leave the link to the rest",
            )
            .explained(q::DCQCN_PAIRS_5_TO_80),
        );
        let (dur, total) = scale(quick);
        a.notes.push(format!(
            "The benchmark traffic of dcqcn-fig16 (DCQCN Fig. 2 testbed, 5 hosts per ToR, 40 Gbps; \
             Poisson web-search user flows between random hosts for {dur} ms; one {total} MB disk \
             rebuild from 1 ms) with the incast degree fixed at {K}. The paper varies the number \
             of communicating pairs from 5 to 80 with its own trace; we vary the Poisson load per \
             host link over the same 16-fold range, {:?}, 1% per pair (our choice: the traffic \
             per pair is not given; dcqcn-fig16's 20 pairs are 20%). User throughput = size / \
             FCT; incast throughput as in dcqcn-fig16 (every sender backlogged; size / FCT \
             shown beside). {} seed(s) per point; --quick uses loads 5, 20 and 80 % and one \
             seed.",
            loads(quick)
                .iter()
                .map(|l| format!("{:.0}%", l * 100.0))
                .collect::<Vec<_>>(),
            seeds(quick)
        ));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&DcqcnFig17);
    }
}
