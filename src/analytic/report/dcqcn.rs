//! Report of the DCQCN fluid model (DCQCN §5): the base run, the Fig. 11/12
//! sweeps and the comparison with the packet simulator.

use super::{line, pts, write_csv};
use crate::analytic::dcqcn_compare;
use crate::analytic::dcqcn_fluid::{self, DcqcnFluidParams};
use crate::analytic::dcqcn_sweep::{self, Panel};
use crate::error::Error;
use crate::plot::{AxisSpec, LineStyle, Series, write_figure};
use crate::units::Delta;
use std::fmt::Write as _;
use std::path::Path;

/// Solves the model for `p`, writes rates.csv, fixed_point.csv and the rates,
/// queue and alpha figures; returns the summary lines.
pub fn base_run(p: &DcqcnFluidParams, out: &Path) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    let fp = dcqcn_fluid::fixed_point(p);
    let tr = dcqcn_fluid::solve(p);
    let mut csv = String::from("time_ms,queue_bytes,p");
    for i in 0..tr.rc.len() {
        write!(csv, ",rc{i}_gbps,rt{i}_gbps,alpha{i}").unwrap();
    }
    csv.push('\n');
    for k in 0..tr.time.len() {
        write!(
            csv,
            "{:.4},{:.1},{:.6e}",
            tr.time[k] * 1e3,
            tr.queue[k],
            tr.p[k]
        )
        .unwrap();
        for i in 0..tr.rc.len() {
            write!(
                csv,
                ",{:.6},{:.6},{:.6}",
                tr.rc[i][k] / 1e9,
                tr.rt[i][k] / 1e9,
                tr.alpha[i][k]
            )
            .unwrap();
        }
        csv.push('\n');
    }
    write_csv(out, "rates.csv", &csv)?;
    let fp_csv = format!(
        "flows,rate_gbps,target_gbps,alpha,p,queue_bytes\n{},{:.6},{:.6},{:.6},{:.6e},{:.1}\n",
        p.flows,
        fp.rate / 1e9,
        fp.target / 1e9,
        fp.alpha,
        fp.p,
        fp.queue
    );
    write_csv(out, "fixed_point.csv", &fp_csv)?;
    let who = |i: usize| {
        if tr.copies > 1 {
            format!("each of {} flows", tr.copies)
        } else {
            format!("flow {}", i + 1)
        }
    };
    let ms = AxisSpec::linear("time (ms)");
    let mut rs = Vec::new();
    for i in 0..tr.rc.len() {
        rs.push(
            Series::line(
                format!("R_C {}", who(i)),
                pts(&tr.time, &tr.rc[i], 1e3, 1e-9),
            )
            .colored(i),
        );
        rs.push(
            Series::line(
                format!("R_T {}", who(i)),
                pts(&tr.time, &tr.rt[i], 1e3, 1e-9),
            )
            .styled(LineStyle::Dashed)
            .colored(i),
        );
    }
    write_figure(
        out,
        "rates",
        &line(
            "DCQCN fluid model: rates",
            ms.clone(),
            AxisSpec::linear("rate (Gbps)"),
            rs,
        ),
    )?;
    let q = vec![
        Series::line("queue", pts(&tr.time, &tr.queue, 1e3, 1e-3)),
        Series::line(
            "fixed point q*",
            vec![
                (0.0, fp.queue / 1e3),
                (tr.time[tr.time.len() - 1] * 1e3, fp.queue / 1e3),
            ],
        )
        .styled(LineStyle::Dashed),
    ];
    write_figure(
        out,
        "queue",
        &line(
            "DCQCN fluid model: queue",
            ms.clone(),
            AxisSpec::linear("queue (KB)"),
            q,
        ),
    )?;
    let a = (0..tr.alpha.len())
        .map(|i| {
            Series::line(
                format!("alpha {}", who(i)),
                pts(&tr.time, &tr.alpha[i], 1e3, 1.0),
            )
        })
        .collect();
    write_figure(
        out,
        "alpha",
        &line("DCQCN fluid model: alpha", ms, AxisSpec::linear("alpha"), a),
    )?;
    let end = tr.time.len() - 1;
    lines.push(format!("dcqcn-fluid: results in {}", out.display()));
    lines.push(format!(
        "  fixed point (N = {}): R_C = C/N = {:.3} Gbps, R_T = {:.3} Gbps, alpha = {:.4}, p = {:.4e}, q* = {:.2} KB{}",
        p.flows,
        fp.rate / 1e9,
        fp.target / 1e9,
        fp.alpha,
        fp.p,
        fp.queue / 1e3,
        if fp.p > p.pmax || p.kmin == p.kmax {
            " (on the jump of Eq. 5)"
        } else {
            ""
        }
    ));
    let tail = 0.8 * tr.time[end];
    let rates: Vec<String> = tr
        .rc
        .iter()
        .map(|r| format!("{:.3}", tr.mean_from(r, tail) / 1e9))
        .collect();
    lines.push(format!(
        "  model, last 20% of {:.0} ms: R_C = [{}] Gbps, mean p = {:.4e}, mean queue = {:.2} KB",
        tr.time[end] * 1e3,
        rates.join(", "),
        tr.mean_from(&tr.p, tail),
        tr.mean_from(&tr.queue, tail) / 1e3
    ));
    Ok(lines)
}

/// Runs every case of a sweep panel and writes its tables and figures.
pub fn sweep(panel: &Panel, out: &Path) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    {
        let results: Vec<_> = panel.cases.iter().map(dcqcn_sweep::run_case).collect();
        let mut csv = String::from(
            "case,x,mean_diff_after_10ms_gbps,final_diff_gbps,queue_mean_kb,queue_std_kb,queue_min_kb,queue_max_kb\n",
        );
        let mut ts = String::from("case,time_ms,rate_diff_gbps,queue_kb\n");
        let (mut diff_series, mut queue_series) = (Vec::new(), Vec::new());
        lines.push(format!("  sweep {}:", panel.title));
        for r in &results {
            writeln!(
                csv,
                "{},{},{:.6},{:.6},{:.3},{:.3},{:.3},{:.3}",
                r.label,
                r.x,
                r.mean_diff / 1e9,
                r.final_diff / 1e9,
                r.queue_mean / 1e3,
                r.queue_std / 1e3,
                r.queue_min / 1e3,
                r.queue_max / 1e3
            )
            .unwrap();
            lines.push(format!(
                "    {:>8}: mean |R1-R2| after 10 ms {:6.2} Gbps, at the end {:6.2} Gbps; queue {:.1} ± {:.1} KB",
                r.label,
                r.mean_diff / 1e9,
                r.final_diff / 1e9,
                r.queue_mean / 1e3,
                r.queue_std / 1e3
            ));
            let tr = &r.trace;
            let diff = dcqcn_sweep::rate_difference(tr);
            let every = (tr.time.len() / 2000).max(1);
            let (mut d, mut q) = (Vec::new(), Vec::new());
            for k in (0..tr.time.len()).step_by(every) {
                writeln!(
                    ts,
                    "{},{:.3},{:.6},{:.3}",
                    r.label,
                    tr.time[k] * 1e3,
                    diff[k] / 1e9,
                    tr.queue[k] / 1e3
                )
                .unwrap();
                d.push((tr.time[k] * 1e3, diff[k] / 1e9));
                q.push((tr.time[k] * 1e3, tr.queue[k] / 1e3));
            }
            diff_series.push(Series::line(r.label.clone(), d));
            queue_series.push(Series::line(r.label.clone(), q));
        }
        write_csv(out, &format!("{}.csv", panel.id), &csv)?;
        write_csv(out, &format!("{}-timeseries.csv", panel.id), &ts)?;
        let ms = AxisSpec::linear("time (ms)");
        let (series, y, what) = if panel.id.starts_with("fig12") {
            (queue_series, AxisSpec::linear("queue (KB)"), "queue")
        } else {
            (
                diff_series,
                AxisSpec::linear("|R_C1 - R_C2| (Gbps)"),
                "throughput difference",
            )
        };
        write_figure(
            out,
            &panel.id,
            &line(&format!("{} — {what}", panel.title), ms, y, series),
        )?;
        let x = if panel.log_x {
            AxisSpec::log(panel.x_label.clone())
        } else {
            AxisSpec::linear(panel.x_label.clone())
        };
        let summary = vec![
            Series::line(
                "mean after 10 ms",
                results.iter().map(|r| (r.x, r.mean_diff / 1e9)).collect(),
            ),
            Series::line(
                "last 10% of the run",
                results.iter().map(|r| (r.x, r.final_diff / 1e9)).collect(),
            ),
        ];
        let title = format!("{} — summary", panel.title);
        write_figure(
            out,
            &format!("{}-summary", panel.id),
            &line(&title, x, AxisSpec::linear("|R_C1 - R_C2| (Gbps)"), summary),
        )?;
    }
    Ok(lines)
}

/// Runs the model and the packet simulator side by side (compare.csv,
/// compare-summary.csv and the compare figure).
pub fn compare(
    offset: Delta,
    duration: Delta,
    p: &DcqcnFluidParams,
    out: &Path,
) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    let c = dcqcn_compare::compare(p, offset, duration)?;
    let mut csv = String::from("source,time_ms,flow1_gbps,flow2_gbps\n");
    for (name, f) in [("model", &c.model), ("sim", &c.sim)] {
        for k in 0..f.time.len() {
            writeln!(
                csv,
                "{name},{:.3},{:.6},{:.6}",
                f.time[k] * 1e3,
                f.rate[0][k] / 1e9,
                f.rate[1][k] / 1e9
            )
            .unwrap();
        }
    }
    write_csv(out, "compare.csv", &csv)?;
    let ttc = |s: &dcqcn_compare::Summary| s.time_to_converge.map_or(f64::NAN, |t| t * 1e3);
    let (m, s) = (&c.model_summary, &c.sim_summary);
    let mut sum =
        String::from("source,converged_flow1_gbps,converged_flow2_gbps,time_to_converge_ms\n");
    for (name, x) in [("model", m), ("sim", s)] {
        writeln!(
            sum,
            "{name},{:.4},{:.4},{:.2}",
            x.converged[0] / 1e9,
            x.converged[1] / 1e9,
            ttc(x)
        )
        .unwrap();
    }
    let diff = |i: usize| (m.converged[i] - s.converged[i]) / 1e9;
    writeln!(
        sum,
        "model-sim,{:.4},{:.4},{:.2}",
        diff(0),
        diff(1),
        ttc(m) - ttc(s)
    )
    .unwrap();
    write_csv(out, "compare-summary.csv", &sum)?;
    let series = vec![
        Series::line(
            "model flow 1",
            pts(&c.model.time, &c.model.rate[0], 1e3, 1e-9),
        )
        .colored(0),
        Series::line(
            "model flow 2",
            pts(&c.model.time, &c.model.rate[1], 1e3, 1e-9),
        )
        .colored(1),
        Series::line("sim flow 1", pts(&c.sim.time, &c.sim.rate[0], 1e3, 1e-9))
            .styled(LineStyle::Dashed)
            .colored(2),
        Series::line("sim flow 2", pts(&c.sim.time, &c.sim.rate[1], 1e3, 1e-9))
            .styled(LineStyle::Dashed)
            .colored(3),
    ];
    let title = "DCQCN: fluid model vs packet simulation (R_C of two flows)";
    write_figure(
        out,
        "compare",
        &line(
            title,
            AxisSpec::linear("time (ms)"),
            AxisSpec::linear("rate (Gbps)"),
            series,
        ),
    )?;
    lines.push(format!(
        "  compare-sim (second flow at {} ms, {} ms run, converged = mean of the last 20%, tolerance {:.1} Gbps):",
        c.offset * 1e3,
        c.duration * 1e3,
        c.tolerance / 1e9
    ));
    for (name, x) in [("model", m), ("sim", s)] {
        lines.push(format!(
            "    {name:>5}: converged {:.3} / {:.3} Gbps, time to converge {:.1} ms",
            x.converged[0] / 1e9,
            x.converged[1] / 1e9,
            ttc(x)
        ));
    }
    lines.push(format!(
        "    model - sim: {:+.3} / {:+.3} Gbps, {:+.1} ms",
        diff(0),
        diff(1),
        ttc(m) - ttc(s)
    ));
    Ok(lines)
}
