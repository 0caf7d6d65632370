//! The figures of a run with collectives or dependency graphs
//! (docs/ai-workloads.md): bus bandwidth by size and operation, iteration
//! time per job, and the CDF of step times.

use super::data::RunData;
use super::figures::{Fig, line};
use crate::plot::{AxisSpec, CdfChart, Figure, Legend, LineStyle, Series};
use std::collections::BTreeMap;

/// Every AI figure of `run`, or none when it had no collectives.
pub fn figures(run: &RunData) -> Vec<Fig> {
    if run.collectives.is_none() {
        return Vec::new();
    }
    vec![busbw_by_size(run), iteration_time(run), step_cdf(run)]
}

/// Bus bandwidth (nccl-tests' definition, GB/s) of every collective against
/// its size, one series per operation.
pub fn busbw_by_size(run: &RunData) -> Fig {
    let fig = Fig::new(
        "busbw",
        "Bus bandwidth by size",
        "Bus bandwidth of each collective (algorithm bandwidth, its size over its time, \
         times nccl-tests' factor: all-reduce 2(n-1)/n; all-gather, reduce-scatter, \
         all-to-all (n-1)/n; broadcast 1), in GB/s of 10^9 bytes, against its size; one \
         point per collective and iteration.",
    );
    let rows = run.collectives.as_deref().unwrap_or_default();
    let mut by_op: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.op != "graph") {
        by_op
            .entry(&r.op)
            .or_default()
            .push((r.size as f64 / 1e3, r.busbw_gbyte_s));
    }
    if by_op.is_empty() {
        return fig.without("no collective completed (collectives.csv has no row of a collective)");
    }
    let series = (by_op.into_iter())
        .map(|(op, mut pts)| {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut s = Series::line(op, pts);
            s.style = LineStyle::Points;
            s
        })
        .collect();
    let x = AxisSpec::log("size (KB)");
    let y = AxisSpec::linear("bus bandwidth (GB/s)");
    fig.with(line(
        "Bus bandwidth by size",
        x,
        y,
        series,
        Legend::LowerRight,
    ))
}

/// Each job's iteration times (since its previous iteration's end).
pub fn iteration_time(run: &RunData) -> Fig {
    let fig = Fig::new(
        "iteration_time",
        "Iteration time per job",
        "Time of each iteration of each job: from the end of its previous iteration (its \
         start for the first) to the end of its collective, compute gap included.",
    );
    let rows = run.collectives.as_deref().unwrap_or_default();
    let mut by_job: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.op != "graph") {
        let pts = by_job.entry(&r.job).or_default();
        pts.push((r.iteration as f64, r.iteration_ns / 1e3));
    }
    if by_job.is_empty() {
        return fig.without("no collective completed");
    }
    let series = (by_job.into_iter())
        .map(|(job, pts)| Series::line(job, pts))
        .collect();
    let x = AxisSpec::linear("iteration");
    let y = AxisSpec::linear("iteration time (µs)");
    fig.with(line(
        "Iteration time per job",
        x,
        y,
        series,
        Legend::UpperRight,
    ))
}

/// CDF of step times, one curve per job.
pub fn step_cdf(run: &RunData) -> Fig {
    let fig = Fig::new(
        "step_cdf",
        "Step time CDF",
        "Distribution of the collectives' step times (steps.csv: from the first task of a \
         step to start to the last to be done, over all ranks), one curve per job.",
    );
    let rows = run.steps.as_deref().unwrap_or_default();
    let mut by_job: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in rows {
        by_job.entry(&r.job).or_default().push(r.duration_ns / 1e3);
    }
    if by_job.is_empty() {
        return fig.without("no steps.csv rows");
    }
    let samples = (by_job.into_iter())
        .map(|(j, v)| (j.to_string(), v))
        .collect();
    fig.with(Figure::Cdf(CdfChart {
        title: "Step time CDF".into(),
        x: AxisSpec::log("step time (µs)"),
        samples,
        legend: Legend::LowerRight,
    }))
}
