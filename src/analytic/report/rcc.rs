//! Report of the RCC fluid model and its stability analysis (RCC §IV, Fig. 4, 5).

use super::{line, pts, write_csv};
use crate::analytic::rcc_fluid::{self, RccFluidParams};
use crate::error::Error;
use crate::plot::{AxisSpec, Figure, Heatmap, LineStyle, Outline, Series, write_figure};
use std::fmt::Write as _;
use std::path::Path;

/// Solves the fluid model, the (K_p, K_d) grid (Fig. 4), the Fig. 5 sweep and the
/// Bode magnitude; writes their tables and figures and returns the summary lines.
pub fn run(p: &RccFluidParams, out: &Path) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    let tr = rcc_fluid::solve(p);
    let n = tr.window.len();
    let mut csv = String::from("time_us,queue_bytes,rtt_us");
    for i in 0..n {
        write!(csv, ",window{i}_bytes,rate{i}_gbps,u{i}").unwrap();
    }
    csv.push('\n');
    for k in 0..tr.time.len() {
        write!(
            csv,
            "{:.3},{:.2},{:.5}",
            tr.time[k] * 1e6,
            tr.queue[k],
            tr.rtt[k] * 1e6
        )
        .unwrap();
        for i in 0..n {
            write!(
                csv,
                ",{:.2},{:.5},{:.6e}",
                tr.window[i][k],
                tr.rate[i][k] / 1e9,
                tr.u[i][k]
            )
            .unwrap();
        }
        csv.push('\n');
    }
    write_csv(out, "trace.csv", &csv)?;
    let us = AxisSpec::linear("time (us)");
    let rates = (0..n)
        .map(|i| {
            Series::line(
                format!("flow {}", i + 1),
                pts(&tr.time, &tr.rate[i], 1e6, 1e-9),
            )
        })
        .collect();
    write_figure(
        out,
        "rates",
        &line(
            "RCC fluid model: rates W/R",
            us.clone(),
            AxisSpec::linear("rate (Gbps)"),
            rates,
        ),
    )?;
    let q = vec![Series::line("queue", pts(&tr.time, &tr.queue, 1e6, 1e-3))];
    write_figure(
        out,
        "queue",
        &line(
            "RCC fluid model: queue",
            us,
            AxisSpec::linear("queue (KB)"),
            q,
        ),
    )?;

    // Fig. 4: the (K_p, K_d) grid.
    let kps = rcc_fluid::log_space(0.0, 5.0, 31);
    let kds = rcc_fluid::log_space(1.0, 6.0, 31);
    let grid = rcc_fluid::pm_grid(p, &kps, &kds);
    let mut g = String::from("kp,kd,phase_margin_deg,crossover_rad_s\n");
    let nan = f64::NAN;
    for gp in &grid {
        let (pm, wc) = gp
            .margins
            .map_or((nan, nan), |m| (m.phase_margin_deg, m.crossover));
        writeln!(g, "{:.6e},{:.6e},{:.4},{:.6e}", gp.kp, gp.kd, pm, wc).unwrap();
    }
    write_csv(out, "pm-grid.csv", &g)?;
    let z = |f: &dyn Fn(&rcc_fluid::Margins) -> f64| -> Vec<Vec<f64>> {
        grid.chunks(kps.len())
            .map(|row| {
                row.iter()
                    .map(|gp| gp.margins.as_ref().map_or(nan, f))
                    .collect()
            })
            .collect()
    };
    let outlines = vec![
        Outline {
            name: "recommended K_p∈[1,16], K_d∈[1e3,7e3]".into(),
            rect: [1.0, 16.0, 1e3, 7e3],
        },
        Outline {
            name: "Fig. 4 claim K_p∈[1,1e4], K_d∈[1e3,1e5]".into(),
            rect: [1.0, 1e4, 1e3, 1e5],
        },
    ];
    let heat = |title: &str, zz, label: &str, range| {
        Figure::Heatmap(Heatmap {
            title: title.into(),
            x: AxisSpec::log("K_p"),
            y: AxisSpec::log("K_d"),
            xs: kps.clone(),
            ys: kds.clone(),
            z: zz,
            z_label: label.into(),
            z_range: range,
            outlines: outlines.clone(),
        })
    };
    let pm_fig = heat(
        "RCC phase margin (Fig. 4)",
        z(&|m| m.phase_margin_deg.max(-90.0)),
        "phase margin (deg)",
        Some((-30.0, 90.0)),
    );
    write_figure(out, "phase-margin", &pm_fig)?;
    let lb_fig = heat(
        "RCC loop bandwidth",
        z(&|m| m.crossover.log10()),
        "log10 crossover (rad/s)",
        None,
    );
    write_figure(out, "loop-bandwidth", &lb_fig)?;

    // Fig. 5: K_p = 1..32 against K_d/K_p.
    let rows = rcc_fluid::fig5_rows(p);
    let mut f5 = String::from("kp,kd_over_kp,kd,phase_margin_deg,crossover_rad_s\n");
    let (mut pm_s, mut lb_s) = (Vec::new(), Vec::new());
    for chunk in rows.chunks(31) {
        let kp = chunk[0].kp;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for r in chunk {
            let m = r.margins.expect("the loop crosses 0 dB");
            writeln!(
                f5,
                "{},{:.6e},{:.6e},{:.4},{:.6e}",
                kp,
                r.kd / kp,
                r.kd,
                m.phase_margin_deg,
                m.crossover
            )
            .unwrap();
            a.push((r.kd / kp, m.phase_margin_deg));
            b.push((r.kd / kp, m.crossover));
        }
        pm_s.push(Series::line(format!("K_p = {kp}"), a));
        lb_s.push(Series::line(format!("K_p = {kp}"), b));
    }
    write_csv(out, "fig5.csv", &f5)?;
    let ratio = AxisSpec::log("K_d / K_p");
    write_figure(
        out,
        "fig5-phase-margin",
        &line(
            "Fig. 5(a): phase margin",
            ratio.clone(),
            AxisSpec::linear("phase margin (deg)"),
            pm_s,
        ),
    )?;
    write_figure(
        out,
        "fig5-loop-bandwidth",
        &line(
            "Fig. 5(b): loop bandwidth",
            ratio,
            AxisSpec::log("crossover (rad/s)"),
            lb_s,
        ),
    )?;

    // Bode magnitude at the chosen gains: derived G, numerical linearization,
    // and Eq. (18) as printed.
    let lin = rcc_fluid::LinearizedLoop::new(p);
    let r0 = p.r_ref();
    let mut bode = String::from("w_rad_s,g_abs,g_phase_deg,linearized_abs,printed_eq18_abs\n");
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for w in rcc_fluid::log_space(1.0, 7.0, 121) {
        let (g, l, pr) = (
            rcc_fluid::g_closed(p.kp, p.kd, r0, w),
            lin.at(w),
            rcc_fluid::g_printed(p.kp, p.kd, r0, w),
        );
        writeln!(
            bode,
            "{w:.6e},{:.6e},{:.4},{:.6e},{:.6e}",
            g.abs(),
            g.arg().to_degrees(),
            l.abs(),
            pr.abs()
        )
        .unwrap();
        a.push((w, g.abs()));
        b.push((w, l.abs()));
        c.push((w, pr.abs()));
    }
    write_csv(out, "bode.csv", &bode)?;
    let series = vec![
        Series::line("G(s) from Eq. (17)", a),
        Series::line("numerical linearization", b).styled(LineStyle::Dashed),
        Series::line("Eq. (18) as printed", c),
    ];
    let title = format!("RCC open loop |G(jw)|, K_p = {}, K_d = {}", p.kp, p.kd);
    write_figure(
        out,
        "bode",
        &line(
            &title,
            AxisSpec::log("w (rad/s)"),
            AxisSpec::log("|G(jw)|"),
            series,
        ),
    )?;

    let end = tr.time.len() - 1;
    lines.push(format!("rcc-fluid: results in {}", out.display()));
    lines.push(format!(
        "  fluid model (N = {}): after {:.1} ms, RTT = {:.3} us (R_ref = {:.3} us), queue = {:.2} KB, rates = [{}] Gbps",
        n,
        tr.time[end] * 1e3,
        tr.rtt[end] * 1e6,
        r0 * 1e6,
        tr.queue[end] / 1e3,
        (0..n)
            .map(|i| format!("{:.3}", tr.rate[i][end] / 1e9))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for (kp, kd, what) in [
        (p.kp, p.kd, "chosen"),
        (1e4, 1e5, "§V-A"),
        (1.0, 1e3, "reference"),
        (16.0, 7e3, "region corner"),
    ] {
        if let Some(m) = rcc_fluid::margins_at(p, kp, kd) {
            lines.push(format!(
                "  K_p = {kp:>7}, K_d = {kd:>7} ({what}): phase margin {:6.2} deg, loop bandwidth {:.4e} rad/s",
                m.phase_margin_deg, m.crossover
            ));
        }
    }
    let (mut ok, mut total, mut worst) = (0, 0, f64::INFINITY);
    for gp in &grid {
        if (1.0..=1e4).contains(&gp.kp) && (1e3..=1e5).contains(&gp.kd) {
            total += 1;
            let pm = gp.margins.map_or(f64::NEG_INFINITY, |m| m.phase_margin_deg);
            ok += usize::from(pm > 30.0);
            worst = worst.min(pm);
        }
    }
    lines.push(format!(
        "  Fig. 4 claim region: {ok} of {total} grid points above 30 deg (worst {worst:.1} deg)"
    ));
    Ok(lines)
}

/// `--compare-sim`: the fluid model against the packet simulator on in-network
/// congestion. Writes `compare.csv`, `compare-summary.csv` and the
/// `compare-rates` and `compare-queue` figures.
pub fn compare(
    c: &crate::analytic::rcc_compare::Comparison,
    out: &Path,
) -> Result<Vec<String>, Error> {
    let mut csv = String::from("source,time_us,flow1_gbps,flow2_gbps,queue_kb\n");
    for (name, t) in [("model", &c.model), ("sim", &c.sim)] {
        for k in 0..t.time.len() {
            writeln!(
                csv,
                "{name},{:.3},{:.5},{:.5},{:.3}",
                t.time[k] * 1e6,
                t.rate[0][k] / 1e9,
                t.rate[1][k] / 1e9,
                t.queue[k] / 1e3
            )
            .unwrap();
        }
    }
    write_csv(out, "compare.csv", &csv)?;
    let mut sum = String::from(
        "source,flow1_gbps,flow2_gbps,flow1_std_gbps,flow2_std_gbps,queue_kb,queue_std_kb\n",
    );
    for (name, s) in [("model", &c.model_settled), ("sim", &c.sim_settled)] {
        writeln!(
            sum,
            "{name},{:.4},{:.4},{:.4},{:.4},{:.3},{:.3}",
            s.rate[0] / 1e9,
            s.rate[1] / 1e9,
            s.rate_std[0] / 1e9,
            s.rate_std[1] / 1e9,
            s.queue / 1e3,
            s.queue_std / 1e3
        )
        .unwrap();
    }
    write_csv(out, "compare-summary.csv", &sum)?;
    let us = AxisSpec::linear("time (us)");
    let mut rates = Vec::new();
    for (k, (name, t)) in [("model", &c.model), ("sim", &c.sim)]
        .into_iter()
        .enumerate()
    {
        for i in 0..2 {
            let s = Series::line(
                format!("{name} flow {}", i + 1),
                pts(&t.time, &t.rate[i], 1e6, 1e-9),
            )
            .colored(2 * k + i);
            rates.push(if k == 1 {
                s.styled(LineStyle::Dashed)
            } else {
                s
            });
        }
    }
    write_figure(
        out,
        "compare-rates",
        &line(
            "RCC: fluid model vs packet simulation (rates)",
            us.clone(),
            AxisSpec::linear("rate (Gbps)"),
            rates,
        ),
    )?;
    let queues = vec![
        Series::line("model", pts(&c.model.time, &c.model.queue, 1e6, 1e-3)).colored(0),
        Series::line("sim", pts(&c.sim.time, &c.sim.queue, 1e6, 1e-3))
            .styled(LineStyle::Dashed)
            .colored(1),
    ];
    write_figure(
        out,
        "compare-queue",
        &line(
            "RCC: fluid model vs packet simulation (queue)",
            us,
            AxisSpec::linear("queue (KB)"),
            queues,
        ),
    )?;
    let (m, s) = (&c.model_settled, &c.sim_settled);
    let pm = |x: Option<crate::analytic::rcc_fluid::Margins>| {
        x.map_or("none".to_string(), |m| {
            format!("{:.1} deg", m.phase_margin_deg)
        })
    };
    Ok(vec![
        format!(
            "  compare-sim: base RTT {:.2} us, one-way {:.2} us, K_p {:e}, K_d {:e}; second half of the run:",
            c.base_rtt * 1e6,
            c.one_way * 1e6,
            c.params.kp,
            c.params.kd
        ),
        format!(
            "    model: {:.2} / {:.2} Gbps (std {:.2} / {:.2}), queue {:.2} KB (std {:.2})",
            m.rate[0] / 1e9,
            m.rate[1] / 1e9,
            m.rate_std[0] / 1e9,
            m.rate_std[1] / 1e9,
            m.queue / 1e3,
            m.queue_std / 1e3
        ),
        format!(
            "    sim:   {:.2} / {:.2} Gbps goodput (std {:.2} / {:.2}), queue {:.2} KB (std {:.2})",
            s.rate[0] / 1e9,
            s.rate[1] / 1e9,
            s.rate_std[0] / 1e9,
            s.rate_std[1] / 1e9,
            s.queue / 1e3,
            s.queue_std / 1e3
        ),
        format!(
            "    phase margin: {} without delay, {} with one base RTT of feedback delay",
            pm(c.margins),
            pm(c.delayed)
        ),
    ])
}
