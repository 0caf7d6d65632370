//! rcc-fig6: fast convergence and fairness of RCC vs HPCC (RCC §V-B1, Fig. 6).
//! Four flows join a 100 Gbps dumbbell bottleneck 100 ms apart and leave last in,
//! first out; the paper shows each flow's goodput over time.

use crate::error::Error;
use crate::output::FctRecord;
use crate::plot::{AxisSpec, Figure, LineChart, Series, write_figure};
use crate::reproduce::metrics::{jain, mean_between, pct, throughput};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict, run};
use crate::units::Delta;
use std::collections::BTreeMap;
use std::path::Path;

pub struct RccFig6;

const SCHEMES: [&str; 2] = ["rcc", "hpcc"];
/// The paper's flow sizes (GB) and start times (ms); `--quick` divides both by this.
const QUICK_SCALE: f64 = 50.0;
const SIZES_GB: [f64; 4] = [4.4, 2.2, 1.1, 0.27];
const STARTS_MS: [f64; 4] = [0.0, 100.0, 200.0, 300.0];

impl Experiment for RccFig6 {
    fn id(&self) -> &'static str {
        "rcc-fig6"
    }
    fn title(&self) -> &'static str {
        "convergence and fairness of four flows joining and leaving (RCC vs HPCC)"
    }
    fn source(&self) -> &'static str {
        "RCC §V-B1, Fig. 6"
    }

    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for cc in SCHEMES {
            let mut r = super::rcc_common::with_scheme(
                RunSpec::new(cc, "convergence.toml").rates(Delta::from_us(10)),
                cc,
            );
            if quick {
                for i in 0..4 {
                    r = r
                        .set(format!(
                            "workload.flows[{i}].size=\"{}MB\"",
                            SIZES_GB[i] * 1e3 / QUICK_SCALE
                        ))
                        .set(format!(
                            "workload.flows[{i}].start=\"{}us\"",
                            STARTS_MS[i] * 1e3 / QUICK_SCALE
                        ));
                }
            }
            v.push(r);
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let mut stats = BTreeMap::new();
        for cc in SCHEMES {
            let r = &run(runs, cc).out;
            let tp = throughput(&r.rates);
            let phases = phases(&r.fct);
            let bin_ms = if quick { 0.02 } else { 1.0 };
            let series = tp
                .iter()
                .map(|(f, s)| Series::line(format!("flow {}", f + 1), downsample(s, bin_ms)))
                .collect();
            write_figure(
                dir,
                &format!("goodput-{cc}"),
                &Figure::Line(LineChart {
                    title: format!("{cc}: goodput of the four flows"),
                    x: AxisSpec::linear("time (ms)"),
                    y: AxisSpec::linear("goodput (Gbps)"),
                    series,
                    ..LineChart::default()
                }),
            )?;
            a.figures.push(format!("goodput-{cc}"));
            stats.insert(cc, phase_stats(&tp, &phases, win_ms(quick)));
        }
        let series = stats
            .iter()
            .map(|(cc, st)| {
                let pts = st
                    .iter()
                    .filter(|p| p.n >= 2)
                    .flat_map(|p| {
                        p.window_jain
                            .iter()
                            .enumerate()
                            .map(move |(k, &j)| (p.from_ms + (k + 1) as f64 * win_ms(quick), j))
                    })
                    .collect();
                Series::line(*cc, pts)
            })
            .collect();
        write_figure(
            dir,
            "jain-over-time",
            &Figure::Line(LineChart {
                title: format!(
                    "Jain index per {} window while 2-4 flows share",
                    fmt_ms(win_ms(quick))
                ),
                x: AxisSpec::linear("time (ms)"),
                y: AxisSpec::linear("Jain index"),
                series,
                ..LineChart::default()
            }),
        )?;
        a.figures.push("jain-over-time".into());
        rows(&stats, win_ms(quick), &mut a);
        a.notes.push(
            "Goodput counts payload bytes, so a 100 Gbps link carries at most 94.2 Gbps of it \
             (headers); the paper's 0.95 x 100 / N is RCC's η = 0.95 share."
                .into(),
        );
        a.notes.push(
            "Convergence time: from a join or leave to the first 10 µs sample after which every \
             active flow stays within ±10% of the phase's mean per-flow goodput for 5 samples \
             (50 µs); the rate trace has 10 µs resolution, so one RTT (~8 µs) reads as ≤ 10 µs."
                .into(),
        );
        if quick {
            a.notes.push(format!(
                "--quick divides the flow sizes and start times by {QUICK_SCALE}: phases of \
                 about 2 ms instead of 100 ms. The full run uses the paper's 4.4/2.2/1.1/0.27 GB \
                 and 100 ms."
            ));
        }
        Ok(a)
    }
}

/// The window of the fairness-over-time measure: 1 ms (100 samples of the
/// 10 µs trace); --quick's phases are 50x shorter, so 0.1 ms there.
fn win_ms(quick: bool) -> f64 {
    if quick { 0.1 } else { 1.0 }
}

/// One stretch of time with a fixed set of active flows.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Phase {
    pub from_ms: f64,
    pub to_ms: f64,
    pub flows: Vec<u32>,
}

/// The phases between consecutive flow starts and ends (empty phases left out).
pub(super) fn phases(fct: &[FctRecord]) -> Vec<Phase> {
    let span = |f: &FctRecord| {
        (
            f.start.as_secs_f64() * 1e3,
            (f.start + f.fct).as_secs_f64() * 1e3,
        )
    };
    let mut edges: Vec<f64> = fct
        .iter()
        .flat_map(|f| {
            let (s, e) = span(f);
            [s, e]
        })
        .collect();
    edges.sort_by(f64::total_cmp);
    edges.dedup();
    edges
        .windows(2)
        .filter_map(|w| {
            let mid = 0.5 * (w[0] + w[1]);
            let flows: Vec<u32> = fct
                .iter()
                .filter(|f| {
                    let (s, e) = span(f);
                    s <= mid && mid < e
                })
                .map(|f| f.flow_id)
                .collect();
            (!flows.is_empty()).then(|| Phase {
                from_ms: w[0],
                to_ms: w[1],
                flows,
            })
        })
        .collect()
}

/// Mean of consecutive points in bins of `bin_ms` (for drawing long traces).
pub(super) fn downsample(s: &[(f64, f64)], bin_ms: f64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut acc = (0.0, 0.0, 0usize);
    let mut bin = f64::NAN;
    for &(t, y) in s {
        let b = (t / bin_ms).floor();
        if b != bin && acc.2 > 0 {
            out.push((acc.0 / acc.2 as f64, acc.1 / acc.2 as f64));
            acc = (0.0, 0.0, 0);
        }
        bin = b;
        acc = (acc.0 + t, acc.1 + y, acc.2 + 1);
    }
    if acc.2 > 0 {
        out.push((acc.0 / acc.2 as f64, acc.1 / acc.2 as f64));
    }
    out
}

/// Time (ms) from `from_ms` until every series stays within `tol` of `target`
/// for `hold` consecutive samples (series sampled at the same times); `None` if
/// never before `to_ms`.
pub(super) fn convergence_ms(
    series: &[&[(f64, f64)]],
    target: f64,
    tol: f64,
    hold: usize,
    from_ms: f64,
    to_ms: f64,
) -> Option<f64> {
    let n = series.iter().map(|s| s.len()).min().unwrap_or(0);
    let ok = |i: usize| {
        series
            .iter()
            .all(|s| (s[i].1 - target).abs() <= tol * target)
    };
    let mut run = 0;
    for i in 0..n {
        let t = series[0][i].0;
        if t <= from_ms {
            continue;
        }
        if t > to_ms {
            break;
        }
        if ok(i) {
            run += 1;
            if run == hold {
                return Some(series[0][i + 1 - hold].0 - from_ms);
            }
        } else {
            run = 0;
        }
    }
    None
}

/// What one scheme did in each phase.
#[derive(Clone, Debug, Default)]
struct PhaseStat {
    n: usize,
    from_ms: f64,
    /// Mean per-flow goodput (Gbps) after the first 20% of the phase.
    per_flow: Vec<f64>,
    /// Coefficient of variation of the aggregate goodput over the same window.
    agg_cv: f64,
    /// Mean over the flows of the coefficient of variation of each flow's
    /// goodput in `win_ms` windows after the first 20% of the phase.
    flow_cv: f64,
    /// Convergence time (µs) after the phase starts; `None` = never.
    converge_us: Option<f64>,
    /// Jain index of the flows' goodput in each full `win_ms` window from the
    /// phase's start (fairness over time, not of phase means).
    window_jain: Vec<f64>,
    /// Median over the windows of the largest / smallest flow goodput.
    median_spread: f64,
    /// Time (ms) from the phase's start to the end of the first window from
    /// which every window has Jain >= [`FAIR_JAIN`]; `None` = never.
    fair_after_ms: Option<f64>,
}

/// Jain index that counts as a fair share in [`PhaseStat::fair_after_ms`].
const FAIR_JAIN: f64 = 0.95;

/// The flows' mean goodput in each full window `[from + k win, from + (k+1) win)`
/// up to `to_ms` (a sample at `t` stands for the interval that ends at `t`, so a
/// window takes the samples with `lo < t <= hi`; a flow without samples in a
/// window counts 0).
pub(super) fn window_means(
    series: &[&[(f64, f64)]],
    from_ms: f64,
    to_ms: f64,
    win_ms: f64,
) -> Vec<Vec<f64>> {
    let n = ((to_ms - from_ms) / win_ms + 1e-9).floor() as usize;
    (0..n)
        .map(|k| {
            let (lo, hi) = (
                from_ms + k as f64 * win_ms,
                from_ms + (k + 1) as f64 * win_ms,
            );
            series
                .iter()
                .map(|s| {
                    let v: Vec<f64> = s
                        .iter()
                        .filter(|(t, _)| *t > lo && *t <= hi)
                        .map(|p| p.1)
                        .collect();
                    v.iter().sum::<f64>() / v.len().max(1) as f64
                })
                .collect()
        })
        .collect()
}

/// Coefficient of variation (standard deviation / mean; 0 for no or zero values).
fn cv(v: &[f64]) -> f64 {
    let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
    if m <= 0.0 {
        return 0.0;
    }
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt() / m
}

/// Largest over smallest of the flows' goodputs (1 = equal; infinite when one
/// flow gets nothing).
fn spread(x: &[f64]) -> f64 {
    let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = x.iter().copied().fold(0.0, f64::max);
    if lo > 0.0 { hi / lo } else { f64::INFINITY }
}

/// End (in windows of `win_ms`, as ms) of the first window from which every
/// window's Jain index is at least `at_least`; `None` if the last one is below.
pub(super) fn fair_after_ms(window_jain: &[f64], win_ms: f64, at_least: f64) -> Option<f64> {
    let unfair_tail = window_jain.iter().rposition(|&j| j < at_least);
    match unfair_tail {
        None if window_jain.is_empty() => None,
        None => Some(win_ms),
        Some(k) if k + 1 == window_jain.len() => None,
        Some(k) => Some((k + 2) as f64 * win_ms),
    }
}

fn phase_stats(
    tp: &BTreeMap<u32, Vec<(f64, f64)>>,
    phases: &[Phase],
    win_ms: f64,
) -> Vec<PhaseStat> {
    let empty = Vec::new();
    phases
        .iter()
        .map(|p| {
            let len = p.to_ms - p.from_ms;
            let (lo, hi) = (p.from_ms + 0.2 * len, p.to_ms - 0.05 * len);
            let series: Vec<&[(f64, f64)]> = p
                .flows
                .iter()
                .map(|f| tp.get(f).unwrap_or(&empty).as_slice())
                .collect();
            let per_flow: Vec<f64> = series.iter().map(|s| mean_between(s, lo, hi)).collect();
            let mean = per_flow.iter().sum::<f64>() / per_flow.len() as f64;
            // Aggregate goodput at each sample time in the window.
            let mut agg: BTreeMap<u64, f64> = BTreeMap::new();
            for s in &series {
                for &(t, y) in s.iter().filter(|(t, _)| *t >= lo && *t <= hi) {
                    *agg.entry((t * 1e6).round() as u64).or_default() += y;
                }
            }
            let v: Vec<f64> = agg.into_values().collect();
            let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
            let sd =
                (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len().max(1) as f64).sqrt();
            // Align the series on the sample times they share.
            let aligned = align(&series);
            let refs: Vec<&[(f64, f64)]> = aligned.iter().map(|s| s.as_slice()).collect();
            let means = window_means(&series, p.from_ms, p.to_ms, win_ms);
            let window_jain: Vec<f64> = means.iter().map(|m| jain(m)).collect();
            let steady = window_means(&series, lo, hi, win_ms);
            let flow_cv = (0..p.flows.len())
                .map(|i| cv(&steady.iter().map(|w| w[i]).collect::<Vec<_>>()))
                .sum::<f64>()
                / p.flows.len().max(1) as f64;
            let mut spreads: Vec<f64> = means.iter().map(|m| spread(m)).collect();
            spreads.sort_by(f64::total_cmp);
            PhaseStat {
                n: p.flows.len(),
                from_ms: p.from_ms,
                fair_after_ms: fair_after_ms(&window_jain, win_ms, FAIR_JAIN),
                median_spread: spreads.get(spreads.len() / 2).copied().unwrap_or(1.0),
                window_jain,
                per_flow,
                agg_cv: if m > 0.0 { sd / m } else { 0.0 },
                flow_cv,
                converge_us: convergence_ms(&refs, mean, 0.1, 5, p.from_ms, p.to_ms)
                    .map(|ms| ms * 1e3),
            }
        })
        .collect()
}

/// The points of each series at the times all of them have.
fn align(series: &[&[(f64, f64)]]) -> Vec<Vec<(f64, f64)>> {
    let key = |t: f64| (t * 1e6).round() as u64;
    let mut common: Option<std::collections::BTreeSet<u64>> = None;
    for s in series {
        let ks: std::collections::BTreeSet<u64> = s.iter().map(|p| key(p.0)).collect();
        common = Some(match common {
            None => ks,
            Some(c) => c.intersection(&ks).copied().collect(),
        });
    }
    let common = common.unwrap_or_default();
    series
        .iter()
        .map(|s| {
            s.iter()
                .filter(|p| common.contains(&key(p.0)))
                .copied()
                .collect()
        })
        .collect()
}

/// A duration in ms, as "1 ms" or "0.1 ms".
fn fmt_ms(ms: f64) -> String {
    format!("{} ms", (ms * 1e3).round() / 1e3)
}

fn fmt_us(c: Option<f64>) -> String {
    c.map_or("never".into(), |u| format!("{u:.0}"))
}

/// Largest / smallest flow (median window) above which a phase's flows do not
/// have the fair share: 20 % apart is plain on a goodput plot.
const UNFAIR_SPREAD: f64 = 1.2;

fn rows(stats: &BTreeMap<&str, Vec<PhaseStat>>, win_ms: f64, a: &mut Analysis) {
    let rcc = &stats["rcc"];
    let hpcc = &stats["hpcc"];
    // RCC's per-flow goodput against 0.95 x 100 / N.
    let mut worst_dev = 0.0f64;
    let mut shown = Vec::new();
    for p in rcc {
        let want = 95.0 / p.n as f64;
        let mean = p.per_flow.iter().sum::<f64>() / p.n as f64;
        worst_dev = worst_dev.max((mean - want).abs() / want);
        shown.push(format!("N={}: {:.1}", p.n, mean));
    }
    a.rows.push(Row::judged(
        "RCC per-flow goodput (Gbps) in each phase",
        "\"each flow's goodput quickly converges to ~100 x 0.95 / N Gbps\"",
        shown.join(", "),
        100.0 * worst_dev,
        &Rule::at_most(5.0, " %").partly(15.0).of(
            "worst deviation of a phase's mean per-flow goodput (after its first 20%) from 95/N",
        ),
        "",
    ));
    let shared = |s: &[PhaseStat]| -> Vec<f64> {
        s.iter()
            .filter(|p| p.n >= 2)
            .flat_map(|p| p.window_jain.iter().copied())
            .collect()
    };
    let lowest = |v: &[f64]| v.iter().copied().fold(1.0, f64::min);
    let below = |v: &[f64]| v.iter().filter(|&&j| j < FAIR_JAIN).count();
    let (rw, hw) = (shared(rcc), shared(hpcc));
    let jain_text = |v: &[f64]| {
        format!(
            "per {}: min {:.3}, median {:.3}, {} of {} windows < {FAIR_JAIN}",
            fmt_ms(win_ms),
            lowest(v),
            pct(v, 50.0),
            below(v),
            v.len()
        )
    };
    a.rows.push(Row::judged(
        "RCC Jain index while 2-4 flows share",
        "0.998 ~ 0.999, \"better fairness even in a short time scale\"",
        jain_text(&rw),
        lowest(&rw),
        &Rule::at_least(0.99, "").partly(0.95).of(format!(
            "the lowest Jain index of the flows' goodput over every full {} window of the phases",
            fmt_ms(win_ms)
        )),
        "",
    ));
    // Per shared phase: how far apart the flows are in its median window.
    let spreads = |s: &[PhaseStat]| -> Vec<(usize, f64)> {
        s.iter()
            .filter(|p| p.n >= 2)
            .map(|p| (p.n, p.median_spread))
            .collect()
    };
    let hs = spreads(hpcc);
    let unfair = hs.iter().filter(|(_, x)| *x >= UNFAIR_SPREAD).count();
    let list = |v: &[(usize, f64)]| {
        v.iter()
            .map(|(n, x)| format!("N={n}: {x:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    a.rows.push(Row::judged(
        "HPCC: do the flows get their fair share while 2-4 share the link?",
        "\"flows in HPCC can not get the fair share under a various number of concurrency\"",
        format!(
            "largest / smallest flow in the median {} window of each phase: {} (RCC: {}); {}",
            fmt_ms(win_ms),
            list(&hs),
            list(&spreads(rcc)),
            jain_text(&hw)
        ),
        unfair as f64,
        &Rule::at_least(2.0, " phases").partly(1.0).of(format!(
            "phases in which HPCC's flows are at least {UNFAIR_SPREAD}x apart (\"a various \
             number of concurrency\": more than one)"
        )),
        "",
    ));
    let fair = |s: &[PhaseStat]| -> Vec<Option<f64>> {
        s.iter()
            .filter(|p| p.n >= 2)
            .map(|p| p.fair_after_ms)
            .collect()
    };
    let (rf, hf) = (fair(rcc), fair(hpcc));
    let worst_ms = |v: &[Option<f64>]| {
        v.iter()
            .map(|c| c.unwrap_or(f64::INFINITY))
            .fold(0.0, f64::max)
    };
    let list_ms = |v: &[Option<f64>]| {
        v.iter()
            .map(|c| c.map_or("never".into(), fmt_ms))
            .collect::<Vec<_>>()
            .join(", ")
    };
    a.rows.push(
        Row::new(
            format!("time to Jain ≥ {FAIR_JAIN} after each change to 2-4 flows"),
            "RCC: flows \"grab their fair share quickly\"; HPCC \"needs several RTTs to \
             converge\" and cannot get the fair share",
            format!("RCC {}; HPCC {}", list_ms(&rf), list_ms(&hf)),
            if worst_ms(&rf) <= win_ms && worst_ms(&hf) > win_ms {
                Verdict::Matches
            } else if worst_ms(&hf) > worst_ms(&rf) {
                Verdict::Partly
            } else {
                Verdict::Differs
            },
            format!(
                "end of the first {w} window from which every window of the phase has Jain ≥ \
                 {FAIR_JAIN} ({w} = within the first window); matches when RCC is fair from the \
                 first window after every change and HPCC is not after some",
                w = fmt_ms(win_ms)
            ),
        )
        .value(worst_ms(&rf)),
    );
    let flow_cv = |s: &[PhaseStat]| {
        let v: Vec<f64> = s.iter().filter(|p| p.n >= 2).map(|p| p.flow_cv).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let agg_cv = |s: &[PhaseStat]| s.iter().map(|p| p.agg_cv).fold(0.0, f64::max);
    let agg = |s: &[PhaseStat]| {
        let v: Vec<f64> = s.iter().map(|p| p.per_flow.iter().sum::<f64>()).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let (rcv, hcv) = (flow_cv(rcc), flow_cv(hpcc));
    a.rows.push(Row::judged(
        "per-flow goodput oscillation while 2-4 flows share",
        "HPCC: \"the goodput suffers oscillation\"; RCC's \"is more stable\"",
        format!(
            "CV of a flow's goodput over {w} windows (steady part of each phase, mean over \
             flows and phases): RCC {rcv:.4}, HPCC {hcv:.4}; aggregate goodput RCC {:.1} Gbps \
             (CV of 10 µs bins ≤ {:.3}), HPCC {:.1} Gbps (≤ {:.3})",
            agg(rcc),
            agg_cv(rcc),
            agg(hpcc),
            agg_cv(hpcc),
            w = fmt_ms(win_ms)
        ),
        hcv / rcv.max(1e-6),
        &Rule::at_least(2.0, "x")
            .partly(1.2)
            .of("HPCC's per-flow CV / RCC's"),
        "",
    ));
    let conv =
        |s: &[PhaseStat]| -> Vec<Option<f64>> { s.iter().skip(1).map(|p| p.converge_us).collect() };
    let (rc, hc) = (conv(rcc), conv(hpcc));
    let worst = |v: &[Option<f64>]| {
        v.iter()
            .map(|c| c.unwrap_or(f64::INFINITY))
            .fold(0.0, f64::max)
    };
    // The changes after a flow ends (phases 5-7: the last to join leaves first).
    let after_leaves: Vec<Option<f64>> = rc.iter().skip(3).copied().collect();
    let list = |v: &[Option<f64>]| v.iter().map(|c| fmt_us(*c)).collect::<Vec<_>>().join(", ");
    let slower = rc
        .iter()
        .zip(&hc)
        .filter(|(r, h)| h.unwrap_or(f64::INFINITY) > r.unwrap_or(f64::INFINITY))
        .count();
    a.rows.push(
        Row::new(
            "convergence time after each join/leave (µs)",
            "RCC: \"only needs one RTT to re-assign the sending window\" after a flow ends; \
             HPCC \"needs several RTTs to converge\"",
            format!("RCC {}; HPCC {}", list(&rc), list(&hc)),
            if worst(&after_leaves) <= 20.0 && slower == rc.len() {
                Verdict::Matches
            } else if slower * 2 >= rc.len() {
                Verdict::Partly
            } else {
                Verdict::Differs
            },
            "time until every flow stays within ±10 % of the phase's mean per-flow goodput for \
             5 samples of 10 µs; matches when RCC converges within 20 µs (two samples: one RTT \
             is 8 µs, the trace's resolution 10 µs) after every flow ends and HPCC takes longer \
             after every change; partly when HPCC is slower after at least half",
        )
        .value(worst(&after_leaves)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    fn rec(id: u32, start_ms: u64, end_ms: u64) -> FctRecord {
        FctRecord {
            flow_id: id,
            src: id,
            dst: 9,
            sport: 0,
            dport: 100,
            size: 1,
            start: SimTime(start_ms * 1_000_000_000),
            fct: Delta::from_ms(end_ms - start_ms),
            ideal: Delta::from_ms(1),
            retx_bytes: 0,
            delivered: 1,
            cnps: 0,
            timeouts: 0,
        }
    }

    #[test]
    fn phases_follow_the_joins_and_leaves() {
        let p = phases(&[rec(1, 2, 3), rec(0, 0, 5)]);
        let flows: Vec<Vec<u32>> = p.iter().map(|p| p.flows.clone()).collect();
        assert_eq!(flows, vec![vec![0], vec![1, 0], vec![0]]);
        assert_eq!((p[1].from_ms, p[1].to_ms), (2.0, 3.0));
    }

    #[test]
    fn convergence_is_the_start_of_the_first_long_enough_run_within_tolerance() {
        let a: Vec<(f64, f64)> = (0..10)
            .map(|i| (i as f64, if i < 4 || i == 5 { 0.0 } else { 50.0 }))
            .collect();
        let b: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 50.0)).collect();
        // 4 is in range but 5 is not; 6, 7, 8 hold for three samples.
        assert_eq!(
            convergence_ms(&[&a, &b], 50.0, 0.1, 3, 0.5, 10.0),
            Some(5.5)
        );
        assert_eq!(convergence_ms(&[&a, &b], 50.0, 0.1, 5, 0.5, 10.0), None);
    }

    #[test]
    fn fairness_over_time_is_jain_per_window_and_fair_after_is_where_it_stays_fair() {
        // Two flows sampled every 0.25 ms: unequal in the first 1 ms window,
        // equal afterwards. A sample stands for the interval it ends.
        let a: Vec<(f64, f64)> = (1..=12).map(|i| (0.25 * i as f64, 50.0)).collect();
        let b: Vec<(f64, f64)> = (1..=12)
            .map(|i| (0.25 * i as f64, if i <= 4 { 10.0 } else { 50.0 }))
            .collect();
        let m = window_means(&[&a, &b], 0.0, 3.0, 1.0);
        assert_eq!(
            m,
            vec![vec![50.0, 10.0], vec![50.0, 50.0], vec![50.0, 50.0]]
        );
        let w: Vec<f64> = m.iter().map(|x| jain(x)).collect();
        assert_eq!(spread(&m[0]), 5.0);
        assert_eq!(spread(&[50.0, 0.0]), f64::INFINITY);
        assert_eq!(fair_after_ms(&w, 1.0, 0.95), Some(2.0));
        assert_eq!(fair_after_ms(&[1.0, 1.0], 1.0, 0.95), Some(1.0));
        assert_eq!(fair_after_ms(&[1.0, 0.5], 1.0, 0.95), None);
        // A partial last window is left out.
        assert_eq!(window_means(&[&a, &b], 0.0, 2.5, 1.0).len(), 2);
    }

    #[test]
    fn downsample_averages_each_bin() {
        let s = [(0.0, 1.0), (0.5, 3.0), (1.0, 10.0)];
        assert_eq!(downsample(&s, 1.0), vec![(0.25, 2.0), (1.0, 10.0)]);
    }

    #[test]
    fn every_run_loads_and_validates() {
        crate::reproduce::check_all_runs_load(&RccFig6);
    }
}
