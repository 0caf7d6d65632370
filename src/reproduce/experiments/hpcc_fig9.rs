//! hpcc-fig9: HPCC's four testbed micro-benchmarks (HPCC §5.2, Fig. 9), HPCC vs
//! DCQCN on the HPCC testbed topology.

use crate::error::Error;
use crate::plot::{AxisSpec, CdfChart, Figure, LineChart, Series, write_figure};
use crate::reproduce::metrics::{busiest_port, jain, mean_between, pct, throughput};
use crate::reproduce::{Analysis, Experiment, Finished, Row, RunSpec, Verdict, run};
use crate::units::Delta;
use std::path::Path;

pub struct HpccFig9;

const SCHEMES: [&str; 2] = ["hpcc", "dcqcn"];
const TOR3: u32 = 66;

impl Experiment for HpccFig9 {
    fn id(&self) -> &'static str {
        "hpcc-fig9"
    }
    fn title(&self) -> &'static str {
        "micro-benchmarks: rate recovery, incast queue, mice latency, fairness (HPCC vs DCQCN)"
    }
    fn source(&self) -> &'static str {
        "HPCC §5.2, Fig. 9"
    }

    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let interval = if quick { "5ms" } else { "50ms" };
        let mut v = Vec::new();
        for cc in SCHEMES {
            let algo = format!("cc.algorithm={cc}");
            v.push(
                RunSpec::new(format!("long-short-{cc}"), "long-short.toml")
                    .set(&algo)
                    .rates(Delta::from_us(20)),
            );
            v.push(
                RunSpec::new(format!("incast-{cc}"), "incast.toml")
                    .set(&algo)
                    .samples(),
            );
            v.push(
                RunSpec::new(format!("mice-{cc}"), "mice.toml")
                    .set(&algo)
                    .samples(),
            );
            v.push(
                RunSpec::new(format!("fairness-{cc}"), "fairness.toml")
                    .set(&algo)
                    .set(format!("workload.staggered[0].interval=\"{interval}\""))
                    .rates(Delta::from_us(if quick { 100 } else { 1000 })),
            );
        }
        // Sensitivity: the same DCQCN incast with ECN marked at dequeue.
        v.push(
            RunSpec::new("incast-dcqcn-dequeue-ecn", "incast.toml")
                .set("cc.algorithm=dcqcn")
                .set("model.ecn_point=\"dequeue\"")
                .samples(),
        );
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        long_short(runs, dir, &mut a)?;
        incast(runs, dir, &mut a)?;
        mice(runs, dir, &mut a)?;
        fairness(runs, dir, &mut a)?;
        a.notes.push(
            "Topology: the HPCC testbed with each of a server's two 25 Gbps NICs modelled as its own \
             host (docs/topologies-and-workloads.md); 1 µs links give a 4.7 µs base RTT in a rack and \
             9 µs across (the paper measures 5.4 and 8.5 µs on hardware)."
                .into(),
        );
        a.notes.push(
            "DCQCN uses the DCQCN paper's deployed parameters (Fig. 14); the HPCC paper used a NIC \
             vendor's parameters, which it does not list. ECN thresholds follow HPCC §5.1 (K_min 100 KB, \
             K_max 400 KB per 25 Gbps; P_max 0.2, which the paper does not state)."
                .into(),
        );
        Ok(a)
    }
}

fn line(title: &str, y: &str, series: Vec<Series>) -> Figure {
    Figure::Line(LineChart {
        title: title.into(),
        x: AxisSpec::linear("time (ms)"),
        y: AxisSpec::linear(y),
        series,
        ..LineChart::default()
    })
}

fn long_short(runs: &[Finished], dir: &Path, a: &mut Analysis) -> Result<(), Error> {
    let mut series = Vec::new();
    let mut after = Vec::new();
    for cc in SCHEMES {
        let r = &run(runs, &format!("long-short-{cc}")).out;
        let tp = throughput(&r.rates);
        let short = r
            .fct
            .iter()
            .find(|f| f.size == 1_000_000)
            .expect("the short flow completes");
        let end_ms = (short.start + short.fct).as_secs_f64() * 1e3;
        let long = tp.get(&0).cloned().unwrap_or_default();
        let before = mean_between(&long, 0.5, 1.0);
        let soon = mean_between(&long, end_ms + 0.05, end_ms + 0.3);
        let late = mean_between(&long, end_ms + 1.8, end_ms + 2.0);
        after.push((cc, before, soon, late));
        series.push(Series::line(format!("{cc} long flow"), long));
        series.push(Series::line(
            format!("{cc} short flow"),
            tp.get(&1).cloned().unwrap_or_default(),
        ));
    }
    write_figure(
        dir,
        "long-short",
        &line("Long-Short: throughput", "throughput (Gbps)", series),
    )?;
    a.figures.push("long-short".into());
    let (_, hb, hs, _) = after[0];
    let (_, db, _, dl) = after[1];
    a.rows.push(Row {
        metric: "HPCC long flow after the short one leaves".into(),
        paper: "recovers right after the short flow ends".into(),
        ours: format!(
            "{:.0}% of its pre-join rate within 50-300 µs ({hs:.1} vs {hb:.1} Gbps)",
            100.0 * hs / hb
        ),
        verdict: if hs >= 0.95 * hb {
            Verdict::Matches
        } else {
            Verdict::Differs
        },
        why: "matches when back to ≥ 95% within 300 µs".into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    a.rows.push(Row {
        metric: "DCQCN long flow 2 ms after the short one leaves".into(),
        paper: "cannot recover to line rate even after 2 ms".into(),
        ours: format!(
            "{:.0}% of its pre-join rate ({dl:.1} vs {db:.1} Gbps)",
            100.0 * dl / db
        ),
        verdict: if dl < 0.95 * db {
            Verdict::Matches
        } else {
            Verdict::Differs
        },
        why: "matches when still below 95% of the pre-join rate".into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    Ok(())
}

/// Time (ms) after `from_ms` at which the queue is last above `kb`.
fn drained_after(q: &[(f64, f64)], from_ms: f64, kb: f64) -> f64 {
    q.iter()
        .filter(|(t, v)| *t >= from_ms && *v > kb)
        .map(|(t, _)| *t)
        .fold(from_ms, f64::max)
        - from_ms
}

fn incast(runs: &[Finished], dir: &Path, a: &mut Analysis) -> Result<(), Error> {
    let mut series = Vec::new();
    let mut stats = Vec::new();
    for cc in SCHEMES {
        let r = &run(runs, &format!("incast-{cc}")).out;
        let (_, q) = busiest_port(&r.samples, TOR3).expect("ToR3 is sampled");
        let peak = q
            .iter()
            .filter(|(t, _)| *t >= 1.0)
            .map(|p| p.1)
            .fold(0.0, f64::max);
        let drain = drained_after(&q, 1.0, 10.0);
        stats.push((peak, drain));
        series.push(Series::line(cc, q));
    }
    write_figure(
        dir,
        "incast-queue",
        &line("Incast: receiver port queue", "queue (KB)", series),
    )?;
    a.figures.push("incast-queue".into());
    let (hp, hd) = stats[0];
    let (dp, dd) = stats[1];
    let deq = &run(runs, "incast-dcqcn-dequeue-ecn").out;
    let (_, q) = busiest_port(&deq.samples, TOR3).expect("ToR3 is sampled");
    let deq_peak = q.iter().map(|p| p.1).fold(0.0, f64::max);
    a.rows.push(Row {
        metric: "DCQCN peak queue in the 7-to-1 incast".into(),
        paper: "builds up to 550 KB".into(),
        ours: format!("{dp:.0} KB (ECN at enqueue); {deq_peak:.0} KB with ECN at dequeue"),
        verdict: if (dp / 550.0 - 1.0).abs() <= 0.3 {
            Verdict::Matches
        } else {
            Verdict::Partly
        },
        why: "marking arriving packets (DCQCN §3.1) delays the first CNP by the queueing delay, so the \
              queue overshoots further; marking at dequeue feeds back sooner. DCQCN's parameters also \
              differ (vendor values in the paper, Fig. 14 here). Judged within ±30%."
            .into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    a.rows.push(Row {
        metric: "HPCC queue drain in the incast".into(),
        paper: "reacts after one round trip; the queue drains quickly".into(),
        ours: format!(
            "peak {hp:.0} KB, below 10 KB after {:.0} µs (DCQCN: {:.0} µs)",
            hd * 1e3,
            dd * 1e3
        ),
        verdict: if hd * 5.0 <= dd {
            Verdict::Matches
        } else {
            Verdict::Partly
        },
        why: "matches when HPCC drains at least 5x faster than DCQCN".into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    Ok(())
}

fn mice(runs: &[Finished], dir: &Path, a: &mut Analysis) -> Result<(), Error> {
    let mut series = Vec::new();
    let mut stats = Vec::new();
    for cc in SCHEMES {
        let r = &run(runs, &format!("mice-{cc}")).out;
        let mice: Vec<&crate::output::FctRecord> =
            r.fct.iter().filter(|f| f.size == 1000).collect();
        let lat: Vec<f64> = mice.iter().map(|f| f.fct.as_us_f64()).collect();
        let base = mice.first().map(|f| f.ideal.as_us_f64()).unwrap_or(0.0);
        stats.push((pct(&lat, 50.0), pct(&lat, 99.0), base));
        series.push((cc.to_string(), lat));
    }
    let fig = Figure::Cdf(CdfChart {
        title: "Mice latency next to two elephants".into(),
        x: AxisSpec::linear("mouse FCT (µs)"),
        samples: series,
        ..CdfChart::default()
    });
    write_figure(dir, "mice-latency", &fig)?;
    a.figures.push("mice-latency".into());
    let (h50, h99, base) = stats[0];
    let (d50, d99, _) = stats[1];
    a.rows.push(Row {
        metric: "HPCC mice latency".into(),
        paper: "close to the 5.4 µs base RTT".into(),
        ours: format!("median {h50:.1} µs, p99 {h99:.1} µs (base RTT {base:.1} µs)"),
        verdict: if h50 <= 1.5 * base { Verdict::Matches } else { Verdict::Differs },
        why: "matches when the median is within 1.5x of our base RTT (our links give 4.7 µs, not 5.4)".into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    a.rows.push(Row {
        metric: "DCQCN mice latency".into(),
        paper: "consistently higher than 35 µs".into(),
        ours: format!("median {d50:.1} µs, p99 {d99:.1} µs"),
        verdict: if d50 > 35.0 {
            Verdict::Matches
        } else {
            Verdict::Partly
        },
        why: "DCQCN keeps a standing queue near its marking threshold; its size depends on K_min/K_max/P_max".into(),
        value: None,
        explanation: None,
        seeds: Vec::new(),
    });
    Ok(())
}

fn fairness(runs: &[Finished], dir: &Path, a: &mut Analysis) -> Result<(), Error> {
    for cc in SCHEMES {
        let r = &run(runs, &format!("fairness-{cc}")).out;
        let tp = throughput(&r.rates);
        // Phases between consecutive joins and leaves with at least two flows.
        let mut edges: Vec<f64> = r
            .fct
            .iter()
            .flat_map(|f| {
                [
                    f.start.as_secs_f64() * 1e3,
                    (f.start + f.fct).as_secs_f64() * 1e3,
                ]
            })
            .collect();
        edges.sort_by(f64::total_cmp);
        let mut worst = 1.0f64;
        for w in edges.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let len = hi - lo;
            if len <= 0.0 {
                continue;
            }
            // Skip the first 20% of each phase: convergence after the change.
            let rates: Vec<f64> = tp
                .values()
                .map(|s| mean_between(s, lo + 0.2 * len, hi - 0.05 * len))
                .filter(|x| *x > 0.0)
                .collect();
            if rates.len() >= 2 {
                worst = worst.min(jain(&rates));
            }
        }
        let series = tp
            .into_iter()
            .map(|(f, s)| Series::line(format!("flow {}", f + 1), s))
            .collect();
        write_figure(
            dir,
            &format!("fairness-{cc}"),
            &line(&format!("Fairness: {cc}"), "throughput (Gbps)", series),
        )?;
        a.figures.push(format!("fairness-{cc}"));
        a.rows.push(Row {
            metric: format!("{cc}: fairness while 2-4 flows share the link"),
            paper: "equal shares (HPCC: even on short time scales)".into(),
            ours: format!("worst Jain index over the phases {worst:.3}"),
            verdict: if worst >= 0.99 {
                Verdict::Matches
            } else if worst >= 0.9 {
                Verdict::Partly
            } else {
                Verdict::Differs
            },
            why: "Jain index of mean per-flow throughput in each phase after its first 20%".into(),
            value: None,
            explanation: None,
            seeds: Vec::new(),
        });
    }
    Ok(())
}
