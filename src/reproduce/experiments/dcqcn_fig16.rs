//! dcqcn-fig16: benchmark traffic on the DCQCN testbed (DCQCN §6.2, Fig. 15 and
//! Fig. 16): user traffic plus one disk-rebuild incast of degree 2-10, with and
//! without DCQCN. User and incast throughput (median, 10th percentile) against
//! the incast degree, and the PAUSE frames the two spines receive.
//!
//! The paper gives its user traffic as "20 communicating pairs" of an
//! unpublished trace, not as a load; the incast's share of the receiver's link
//! depends on it. The main runs use 20 % of each host link (the load
//! dcqcn-fig17 gives 20 pairs); two more sets, at 5 % (fig17's lightest) and
//! with no user traffic, are shown beside them for the incast rows.

use super::dcqcn_bench::{
    LIGHT_LOAD, SCHEMES, Traffic, USER_LOAD, bench_run, over_seeds, scale, scheme_lines,
};
use crate::error::Error;
use crate::plot::{AxisSpec, Series};
use crate::reproduce::metrics::pct;
use crate::reproduce::quotes as q;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec};
use std::path::Path;

pub struct DcqcnFig16;

fn degrees(quick: bool) -> Vec<u64> {
    if quick {
        vec![2, 6, 10]
    } else {
        (2..=10).collect()
    }
}

/// The degrees run again under the other user loads.
fn light_degrees(quick: bool) -> Vec<u64> {
    if quick { vec![10] } else { vec![2, 6, 10] }
}

/// The user loads: run-name suffix and load per host link (`None`: no user
/// traffic). The first is the judged one.
const LOADS: [(&str, Option<f64>); 3] = [
    ("", Some(USER_LOAD)),
    ("-light", Some(LIGHT_LOAD)),
    ("-alone", None),
];

fn seeds(quick: bool) -> u64 {
    if quick { 1 } else { 5 }
}

fn name(prefix: &str, load: &str, k: u64, seed: u64) -> String {
    format!("{prefix}{load}-k{k}-s{seed}")
}

/// Per degree: one scheme's traffic over the seeds, and its spine pauses (mean
/// per run).
struct Point {
    k: u64,
    t: Traffic,
    pauses: f64,
}

impl Point {
    /// The incast's 10th percentile over its fair share 40/k.
    fn tail_share(&self) -> f64 {
        pct(&self.t.incast, 10.0) / (40.0 / self.k as f64)
    }
}

fn collect(
    runs: &[Finished],
    prefix: &str,
    load: &str,
    ks: &[u64],
    quick: bool,
) -> Result<Vec<Point>, Error> {
    ks.iter()
        .map(|&k| {
            let (t, pauses) = over_seeds(runs, seeds(quick), k, |s| name(prefix, load, k, s))?;
            Ok(Point { k, t, pauses })
        })
        .collect()
}

fn panel(dir: &Path, stem: &str, title: &str, y: &str, series: Vec<Series>) -> Result<(), Error> {
    super::dcqcn_bench::panel(
        dir,
        (stem, title),
        AxisSpec::linear("degree of incast"),
        y,
        series,
    )
}

impl Experiment for DcqcnFig16 {
    fn id(&self) -> &'static str {
        "dcqcn-fig16"
    }
    fn title(&self) -> &'static str {
        "benchmark traffic: user and incast throughput vs incast degree, PAUSEs at the spines"
    }
    fn source(&self) -> &'static str {
        "DCQCN §6.2, Fig. 15 and Fig. 16"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for (i, (suffix, load)) in LOADS.iter().enumerate() {
            let ks = if i == 0 {
                degrees(quick)
            } else {
                light_degrees(quick)
            };
            for (prefix, _, cc) in SCHEMES {
                for &k in &ks {
                    for s in 1..=seeds(quick) {
                        v.push(bench_run(
                            name(prefix, suffix, k, s),
                            cc,
                            *load,
                            k,
                            s,
                            quick,
                        ));
                    }
                }
            }
        }
        v
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let (ks, lks) = (degrees(quick), light_degrees(quick));
        let by_load = |suffix: &str, ks: &[u64]| -> Result<Vec<Vec<Point>>, Error> {
            SCHEMES
                .iter()
                .map(|(prefix, _, _)| collect(runs, prefix, suffix, ks, quick))
                .collect()
        };
        let pts = by_load(LOADS[0].0, &ks)?;
        let light = by_load(LOADS[1].0, &lks)?;
        let alone = by_load(LOADS[2].0, &lks)?;
        let line = |f: &dyn Fn(&Point) -> f64| scheme_lines(&pts, |x| (x.k as f64, f(x)));
        type Stat<'a> = &'a dyn Fn(&Point) -> f64;
        let panels: [(&str, &str, Stat); 4] = [
            ("a-user-median", "(a) user traffic, median", &|p| {
                pct(&p.t.user, 50.0)
            }),
            ("b-user-p10", "(b) user traffic, 10th percentile", &|p| {
                pct(&p.t.user, 10.0)
            }),
            ("c-incast-median", "(c) incast, median", &|p| {
                pct(&p.t.incast, 50.0)
            }),
            ("d-incast-p10", "(d) incast, 10th percentile", &|p| {
                pct(&p.t.incast, 10.0)
            }),
        ];
        for (stem, title, f) in panels {
            let mut s = line(f);
            if stem.starts_with("d-") {
                s.push(Series::line(
                    "ideal 40/k",
                    ks.iter().map(|&k| (k as f64, 40.0 / k as f64)).collect(),
                ));
            }
            panel(dir, stem, title, "throughput (Gbps)", s)?;
            a.figures.push(stem.into());
        }
        panel(
            dir,
            "fig15-spine-pauses",
            "PAUSE frames received at S1 and S2 (mean per run)",
            "PAUSE frames",
            line(&|p| p.pauses),
        )?;
        a.figures.push("fig15-spine-pauses".into());

        let (dq, pf) = (&pts[0], &pts[1]);
        let (first, last) = (0, dq.len() - 1);
        let (k0, k1) = (dq[first].k, dq[last].k);
        let up = |p: &Point| (pct(&p.t.user, 50.0), pct(&p.t.user, 10.0));
        let (pf_m0, pf_t0) = up(&pf[first]);
        let (pf_m1, pf_t1) = up(&pf[last]);
        let (dq_m0, dq_t0) = up(&dq[first]);
        let (dq_m1, dq_t1) = up(&dq[last]);
        a.rows.push(Row::judged(
            "user throughput without DCQCN as the incast degree rises",
            "\"without DCQCN, the throughput of user traffic falls rapidly, as the degree of \
             incast goes up\"",
            format!(
                "k={k0} → {k1}: median {pf_m0:.2} → {pf_m1:.2}, p10 {pf_t0:.2} → {pf_t1:.2} Gbps"
            ),
            (pf_m1 / pf_m0).max(pf_t1 / pf_t0),
            &Rule::at_most(0.7, "x")
                .partly(1.0)
                .of("the larger of k=10 / k=2 for the median and the 10th percentile"),
            "",
        ));
        let change = |a: f64, b: f64| (b / a - 1.0).abs();
        a.rows.push(Row::judged(
            "user throughput with DCQCN as the incast degree rises",
            "\"with DCQCN, as the degree of incast goes up, there is little change in the \
             median and tail throughput of user traffic\"",
            format!(
                "k={k0} → {k1}: median {dq_m0:.2} → {dq_m1:.2}, p10 {dq_t0:.2} → {dq_t1:.2} Gbps"
            ),
            change(dq_m0, dq_m1).max(change(dq_t0, dq_t1)),
            &Rule::at_most(0.2, "")
                .partly(0.4)
                .of("the larger relative change of the median and the 10th percentile"),
            "",
        ));
        a.rows.push(Row::judged(
            format!("user throughput at incast degree {k1}, DCQCN vs no DCQCN"),
            "Fig. 16(a)/(b): DCQCN's user throughput is much better",
            format!("median {dq_m1:.2} vs {pf_m1:.2}, p10 {dq_t1:.2} vs {pf_t1:.2} Gbps"),
            (dq_m1 / pf_m1).min(dq_t1 / pf_t1),
            &Rule::at_least(1.5, "x")
                .partly(1.0)
                .of("the smaller of DCQCN / no DCQCN for the median and the 10th percentile"),
            "",
        ));
        let (pz, dz) = (pf[last].pauses, dq[last].pauses);
        a.rows.push(Row::judged(
            format!("PAUSE frames received by S1+S2 at incast degree {k1} (Fig. 15)"),
            "over 6 million without DCQCN vs just 3000 with DCQCN (2-minute runs)",
            format!("{pz:.0} without vs {dz:.0} with DCQCN per run"),
            if pz > 0.0 { dz / pz } else { f64::NAN },
            &Rule::at_most(0.01, "")
                .partly(0.5)
                .of("with DCQCN / without"),
            "Our runs last tens of ms, so only the ratio compares (the paper's is 1/2000)",
        ));

        // The incast, read with every sender backlogged (Traffic::incast), and
        // as size / FCT; under the judged user load and the two others.
        let ip10 = |p: &Point| pct(&p.t.incast, 10.0);
        let fp10 = |p: &Point| pct(&p.t.incast_fct, 10.0);
        let wp10 = |p: &Point| pct(&p.t.incast_whole, 10.0);
        let (dq_i, pf_i) = (ip10(&dq[last]), ip10(&pf[last]));
        let at_k1 = |ps: &[Vec<Point>]| -> (f64, f64, f64, f64) {
            let (d, p) = (&ps[0][ps[0].len() - 1], &ps[1][ps[1].len() - 1]);
            (ip10(d), ip10(p), fp10(d), fp10(p))
        };
        let (l_dq, l_pf, l_fdq, l_fpf) = at_k1(&light);
        let (a_dq, a_pf, a_fdq, a_fpf) = at_k1(&alone);
        let user_pct = USER_LOAD * 100.0;
        let light_pct = LIGHT_LOAD * 100.0;
        a.rows.push(
            Row::judged(
                format!("DCQCN incast 10th-percentile throughput at degree {k1}"),
                "\"with DCQCN it is 3.43Gbps\" (ideal 40/k = 4 Gbps)",
                format!(
                    "{dq_i:.2} Gbps, every sender backlogged, after DCQCN's 10 ms start-up, user \
                     load {user_pct:.0}% (from the rebuild's start {:.2}; size / FCT {:.2}). User \
                     load {light_pct:.0}%: {l_dq:.2} ({l_fdq:.2}); no user traffic: {a_dq:.2} \
                     ({a_fdq:.2})",
                    wp10(&dq[last]),
                    fp10(&dq[last]),
                ),
                dq_i,
                &Rule::within(3.43, 0.25, " Gbps").partly(0.5),
                "User traffic to the receiver and across the fabric takes its share of the \
                 incast's links and marks its packets; each cut is regained at R_AI = 40 Mbps per \
                 55 µs. How much user traffic the paper's 20 pairs sent it does not say; the \
                 lighter the load, the closer ours comes. DCQCN's start-up (every sender cut to \
                 ~0.16 Gbps, 7.5 ms to regain 40 Gbps) is left out, as in the paper's 2-minute \
                 runs it is 0.01 % of the time",
            )
            .explained(q::DCQCN_USER_PAIRS),
        );
        a.rows.push(
            Row::judged(
                format!("incast 10th percentile at degree {k1}, DCQCN vs no DCQCN"),
                "\"without DCQCN, the 10th percentile throughput is much lower\": \"less than \
                 1.12Gbps\" vs \"3.43Gbps\"",
                format!(
                    "{dq_i:.2} vs {pf_i:.2} Gbps, every sender backlogged, user load \
                     {user_pct:.0}% (size / FCT {:.2} vs {:.2}). User load {light_pct:.0}%: \
                     {l_dq:.2} vs {l_pf:.2} ({l_fdq:.2} vs {l_fpf:.2}); no user traffic: \
                     {a_dq:.2} vs {a_pf:.2} ({a_fdq:.2} vs {a_fpf:.2})",
                    fp10(&dq[last]),
                    fp10(&pf[last]),
                ),
                if pf_i > 0.0 {
                    dq_i / pf_i
                } else {
                    f64::INFINITY
                },
                &Rule::at_least(1.5, "x").partly(1.0).of("DCQCN / no DCQCN"),
                "Size / FCT hides PFC's unfairness: senders near the receiver finish early and \
                 leave the link to the rest",
            )
            .explained(q::DCQCN_USER_PAIRS),
        );
        let worst = |ps: &[Point]| {
            ps.iter()
                .map(|p| (p.k, p.tail_share()))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or((0, 0.0))
        };
        let (wk, ws) = worst(dq);
        let (lwk, lws) = worst(&light[0]);
        let (awk, aws) = worst(&alone[0]);
        let each = |ps: &[Point]| {
            ps.iter()
                .map(|p| format!("k={}: {:.2}", p.k, p.tail_share()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        a.rows.push(
            Row::judged(
                "DCQCN incast 10th percentile vs the fair share 40/k, all degrees",
                "\"with DCQCN, the 10th percentile throughput is very close to this value\"",
                format!(
                    "lowest {ws:.2} (k = {wk}), user load {user_pct:.0}%: {}. User load \
                     {light_pct:.0}%: lowest {lws:.2} (k = {lwk}); no user traffic: lowest \
                     {aws:.2} (k = {awk}): {}",
                    each(dq),
                    each(&alone[0])
                ),
                ws,
                &Rule::at_least(0.75, "")
                    .partly(0.5)
                    .of("the lowest 10th percentile / (40/k) over the degrees"),
                "Headers alone cap goodput at 0.94 of 40/k. A fast incast flow (k = 2: 20 Gbps) \
                 loses most to a cut: it needs 25 ms of additive increase to regain 18 Gbps",
            )
            .explained(q::DCQCN_USER_PAIRS),
        );
        let (dur, total) = scale(quick);
        a.notes.push(format!(
            "DCQCN Fig. 2 testbed, 5 hosts per ToR, 40 Gbps links, switches per DCQCN §4 (12 MB, \
             beta = 8). User traffic: Poisson web-search flows between random hosts at \
             {user_pct:.0}% of each host link for {dur} ms: the load dcqcn-fig17 gives the \
             paper's 20 communicating pairs (1% per pair, so that its 80 pairs are 80%); the \
             paper's trace is not public. The incast rows also show a light load, \
             {light_pct:.0}% (fig17's 5 pairs), and no user traffic, for k = {lks:?}. Disk \
             rebuild: one incast from \
             1 ms, {total} MB in total split over k senders; receiver and senders drawn per seed. \
             Incast throughput (the judged reading): every flow's bytes delivered from 10 ms \
             after the rebuild's start (DCQCN's start-up, 0.01 % of the paper's 2-minute runs, \
             20 % of ours) until its first flow completes, over that time, i.e. while every \
             sender is backlogged, as §6.2 has them (\"the total traffic generated by incast \
             senders stays the same (because the bottleneck is always at the receiver)\"); the \
             other reading, size / FCT, is on the incast rows. User throughput = size / FCT. \
             Degrees {ks:?}, {} seed(s) each. --quick: degrees 2, 6, 10 (other loads: 10), 1 seed, \
             20 ms, 100 MB. The paper's runs last 2 minutes.",
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
        crate::reproduce::check_all_runs_load(&DcqcnFig16);
    }
}
