//! `rocesim model <name>`: solve an analytical model from the papers, write CSV
//! tables and SVG+PNG figures, and print a short summary. See
//! docs/analytic-models.md.

use crate::analytic::dcqcn_fluid::{self, DcqcnFluidParams};
use crate::analytic::rcc_fluid::{self, RccFluidParams};
use crate::analytic::{dcqcn_compare, dcqcn_sweep, hpcc_discrete};
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use crate::plot::{
    AxisSpec, Figure, Heatmap, Legend, LineChart, LineStyle, Outline, Series, write_figure,
};
use crate::scenario::load::apply_override;
use crate::units::Delta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelName {
    /// DCQCN fluid model (DCQCN §5, Eq. 5-11).
    DcqcnFluid,
    /// RCC fluid model and loop stability (RCC §IV, Eq. 6-18).
    RccFluid,
    /// HPCC discrete-time recursion (HPCC Appendix A.2-A.3).
    HpccDiscrete,
}

impl ModelName {
    fn id(self) -> &'static str {
        match self {
            ModelName::DcqcnFluid => "dcqcn-fluid",
            ModelName::RccFluid => "rcc-fluid",
            ModelName::HpccDiscrete => "hpcc-discrete",
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// Which model to solve.
    #[arg(value_enum)]
    pub name: ModelName,
    /// Output directory (default: runs/model-<name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a model parameter, e.g. --set g=0.0625 --set kmax=40KB (repeatable;
    /// names as in docs/analytic-models.md).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// dcqcn-fluid: start from "deployment" (DCQCN Fig. 14, the default),
    /// "strawman" (§5.2) or "fig11" (Fig. 14 values, one flow at 40 Gbps and one at 0).
    #[arg(long)]
    pub preset: Option<String>,
    /// dcqcn-fluid: "fig11", "fig12", or KEY=V1,V2,... to vary one parameter.
    #[arg(long, value_name = "SWEEP")]
    pub sweep: Vec<String>,
    /// Also run the matching packet-level scenario and compare (dcqcn-fluid).
    #[arg(long)]
    pub compare_sim: bool,
    /// dcqcn-fluid --compare-sim: start of the second flow (DCQCN §6.1: 10ms).
    #[arg(long, default_value = "10ms")]
    pub offset: String,
    /// dcqcn-fluid --compare-sim: length of the run (Fig. 10: 100ms).
    #[arg(long, default_value = "100ms")]
    pub sim_duration: String,
}

pub fn model(args: &ModelArgs) -> Result<(), Error> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("model-{}", args.name.id())));
    if out.exists() && !out.is_dir() {
        let msg = format!("{} exists and is not a directory", out.display());
        return Err(InputError::new("--out", "", msg).into());
    }
    if args.name != ModelName::DcqcnFluid {
        for (flag, given) in [
            ("--preset", args.preset.is_some()),
            ("--sweep", !args.sweep.is_empty()),
        ] {
            if given {
                let msg = format!("only dcqcn-fluid takes {flag}");
                return Err(InputError::new(flag, "", msg).into());
            }
        }
    }
    match args.name {
        ModelName::DcqcnFluid => dcqcn(args, &out),
        ModelName::RccFluid => rcc(args, &out),
        ModelName::HpccDiscrete => hpcc(args, &out),
    }
}

/// Applies `--set key=value` overrides to `base` through its serde form, so the
/// names and units are those of the parameter struct.
pub fn with_overrides<T: Serialize + DeserializeOwned>(
    base: &T,
    sets: &[String],
) -> Result<T, InputError> {
    let mut table = toml::Table::try_from(base).expect("parameters serialize to a table");
    for s in sets {
        apply_override(&mut table, s)?;
    }
    let text = toml::to_string(&table).expect("a table serializes");
    let de = toml::Deserializer::new(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let msg = e.inner().message().trim().to_string();
        InputError::new("--set", e.path().to_string(), msg)
    })
}

fn write_csv(dir: &Path, name: &str, text: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    AtomicFile::write_all_to(dir, name, text.as_bytes())
}

fn line(title: &str, x: AxisSpec, y: AxisSpec, series: Vec<Series>) -> Figure {
    Figure::Line(LineChart {
        title: title.into(),
        x,
        y,
        series,
        legend: Legend::UpperRight,
    })
}

fn pts(x: &[f64], y: &[f64], xs: f64, ys: f64) -> Vec<(f64, f64)> {
    x.iter().zip(y).map(|(a, b)| (a * xs, b * ys)).collect()
}

fn parse_delta(flag: &str, v: &str) -> Result<Delta, InputError> {
    crate::units::parse_delta(v).map_err(|e| InputError::new(flag, "", e))
}

// ---------------------------------------------------------------- dcqcn-fluid

fn dcqcn(args: &ModelArgs, out: &Path) -> Result<(), Error> {
    let base = match args.preset.as_deref() {
        None | Some("deployment") => DcqcnFluidParams::default(),
        Some("strawman") => DcqcnFluidParams::strawman(),
        Some("fig11") => DcqcnFluidParams::fig11_base(),
        Some(other) => {
            let msg = format!("unknown preset \"{other}\" (valid: deployment, strawman, fig11)");
            return Err(InputError::new("--preset", "", msg).into());
        }
    };
    let p = with_overrides(&base, &args.set)?;
    p.validate().map_err(|e| e.with_file("--set"))?;
    // Check every flag before the first result is written.
    let panels = args
        .sweep
        .iter()
        .map(|s| sweep_panels(s, &p))
        .collect::<Result<Vec<_>, _>>()?;
    let compare_times = if args.compare_sim {
        Some((
            parse_delta("--offset", &args.offset)?,
            parse_delta("--sim-duration", &args.sim_duration)?,
        ))
    } else {
        None
    };
    let fp = dcqcn_fluid::fixed_point(&p);
    let tr = dcqcn_fluid::solve(&p);
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
    println!("dcqcn-fluid: results in {}", out.display());
    println!(
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
    );
    let tail = 0.8 * tr.time[end];
    let rates: Vec<String> = tr
        .rc
        .iter()
        .map(|r| format!("{:.3}", tr.mean_from(r, tail) / 1e9))
        .collect();
    println!(
        "  model, last 20% of {:.0} ms: R_C = [{}] Gbps, mean p = {:.4e}, mean queue = {:.2} KB",
        tr.time[end] * 1e3,
        rates.join(", "),
        tr.mean_from(&tr.p, tail),
        tr.mean_from(&tr.queue, tail) / 1e3
    );
    for panel in panels.into_iter().flatten() {
        sweep(panel, out)?;
    }
    if let Some((offset, duration)) = compare_times {
        compare(offset, duration, &p, out)?;
    }
    Ok(())
}

fn sweep_panels(
    spec: &str,
    base: &DcqcnFluidParams,
) -> Result<Vec<dcqcn_sweep::Panel>, InputError> {
    Ok(match spec {
        "fig11" => dcqcn_sweep::fig11_panels(),
        "fig12" => dcqcn_sweep::fig12_panels(),
        _ => vec![generic_panel(spec, base)?],
    })
}

fn sweep(panel: dcqcn_sweep::Panel, out: &Path) -> Result<(), Error> {
    {
        let results: Vec<_> = panel.cases.iter().map(dcqcn_sweep::run_case).collect();
        let mut csv = String::from(
            "case,x,mean_diff_after_10ms_gbps,final_diff_gbps,queue_mean_kb,queue_std_kb,queue_min_kb,queue_max_kb\n",
        );
        let mut ts = String::from("case,time_ms,rate_diff_gbps,queue_kb\n");
        let (mut diff_series, mut queue_series) = (Vec::new(), Vec::new());
        println!("  sweep {}:", panel.title);
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
            println!(
                "    {:>8}: mean |R1-R2| after 10 ms {:6.2} Gbps, at the end {:6.2} Gbps; queue {:.1} ± {:.1} KB",
                r.label,
                r.mean_diff / 1e9,
                r.final_diff / 1e9,
                r.queue_mean / 1e3,
                r.queue_std / 1e3
            );
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
    Ok(())
}

/// `KEY=V1,V2,...`: one case per value, from `base`.
fn generic_panel(spec: &str, base: &DcqcnFluidParams) -> Result<dcqcn_sweep::Panel, InputError> {
    let flag = format!("--sweep {spec}");
    let Some((key, values)) = spec.split_once('=') else {
        return Err(InputError::new(
            flag,
            "",
            "expected fig11, fig12 or KEY=V1,V2,... (e.g. g=0.0625,0.00390625)",
        ));
    };
    let mut cases = Vec::new();
    for (i, v) in values
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .enumerate()
    {
        let params =
            with_overrides(base, &[format!("{key}={v}")]).map_err(|e| e.with_file(&flag))?;
        params.validate().map_err(|e| e.with_file(&flag))?;
        let x = v.parse::<f64>().unwrap_or(i as f64);
        cases.push(dcqcn_sweep::SweepCase {
            label: v.to_string(),
            x,
            params,
        });
    }
    if cases.is_empty() {
        return Err(InputError::new(flag, "", "give at least one value"));
    }
    Ok(dcqcn_sweep::Panel {
        id: format!("sweep-{}", key.replace('.', "-")),
        title: format!("sweep of {key}"),
        x_label: key.to_string(),
        log_x: false,
        cases,
    })
}

fn compare(offset: Delta, duration: Delta, p: &DcqcnFluidParams, out: &Path) -> Result<(), Error> {
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
    println!(
        "  compare-sim (second flow at {} ms, {} ms run, converged = mean of the last 20%, tolerance {:.1} Gbps):",
        c.offset * 1e3,
        c.duration * 1e3,
        c.tolerance / 1e9
    );
    for (name, x) in [("model", m), ("sim", s)] {
        println!(
            "    {name:>5}: converged {:.3} / {:.3} Gbps, time to converge {:.1} ms",
            x.converged[0] / 1e9,
            x.converged[1] / 1e9,
            ttc(x)
        );
    }
    println!(
        "    model - sim: {:+.3} / {:+.3} Gbps, {:+.1} ms",
        diff(0),
        diff(1),
        ttc(m) - ttc(s)
    );
    Ok(())
}

// ------------------------------------------------------------------ rcc-fluid

fn rcc(args: &ModelArgs, out: &Path) -> Result<(), Error> {
    if args.compare_sim {
        let msg =
            "needs the rcc congestion control (issue 3), which the simulator does not have yet";
        return Err(InputError::new("--compare-sim", "", msg).into());
    }
    let p = with_overrides(&RccFluidParams::default(), &args.set)?;
    p.validate().map_err(|e| e.with_file("--set"))?;
    let tr = rcc_fluid::solve(&p);
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
    let grid = rcc_fluid::pm_grid(&p, &kps, &kds);
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
    let rows = rcc_fluid::fig5_rows(&p);
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
    let lin = rcc_fluid::LinearizedLoop::new(&p);
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
    println!("rcc-fluid: results in {}", out.display());
    println!(
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
    );
    for (kp, kd, what) in [
        (p.kp, p.kd, "chosen"),
        (1e4, 1e5, "§V-A"),
        (1.0, 1e3, "reference"),
        (16.0, 7e3, "region corner"),
    ] {
        if let Some(m) = rcc_fluid::margins_at(&p, kp, kd) {
            println!(
                "  K_p = {kp:>7}, K_d = {kd:>7} ({what}): phase margin {:6.2} deg, loop bandwidth {:.4e} rad/s",
                m.phase_margin_deg, m.crossover
            );
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
    println!(
        "  Fig. 4 claim region: {ok} of {total} grid points above 30 deg (worst {worst:.1} deg)"
    );
    Ok(())
}

// -------------------------------------------------------------- hpcc-discrete

fn hpcc(args: &ModelArgs, out: &Path) -> Result<(), Error> {
    if args.compare_sim {
        let msg = "hpcc-discrete has no packet-level comparison (the recursion is an idealized RTT-synchronous model)";
        return Err(InputError::new("--compare-sim", "", msg).into());
    }
    let p = with_overrides(&hpcc_discrete::HpccDiscreteParams::default(), &args.set)?;
    p.validate().map_err(|e| e.with_file("--set"))?;
    let net = p.network();
    let rs = net.recursion(&p.initial_rates, p.steps);
    let (j, i) = (net.paths.len(), net.resources());
    let mut csv = String::from("step");
    for f in 0..j {
        write!(csv, ",rate{f}").unwrap();
    }
    for r in 0..i {
        write!(csv, ",util{r}").unwrap();
    }
    csv.push('\n');
    let (mut rate_s, mut util_s) = (vec![Vec::new(); j], vec![Vec::new(); i]);
    for (n, r) in rs.iter().enumerate() {
        write!(csv, "{n}").unwrap();
        for (f, v) in r.iter().enumerate() {
            write!(csv, ",{v:.9}").unwrap();
            rate_s[f].push((n as f64, *v));
        }
        for (k, y) in net.loads(r).iter().enumerate() {
            let u = y / net.capacities[k];
            write!(csv, ",{u:.9}").unwrap();
            util_s[k].push((n as f64, u));
        }
        csv.push('\n');
    }
    write_csv(out, "recursion.csv", &csv)?;
    let steps = AxisSpec::linear("step n (RTTs)");
    let rates = rate_s
        .into_iter()
        .enumerate()
        .map(|(f, s)| Series::line(format!("path {f}"), s))
        .collect();
    write_figure(
        out,
        "recursion-rates",
        &line(
            "HPCC A.2 recursion: rates",
            steps.clone(),
            AxisSpec::linear("rate (Gbps)"),
            rates,
        ),
    )?;
    let utils = util_s
        .into_iter()
        .enumerate()
        .map(|(k, s)| Series::line(format!("resource {k}"), s))
        .collect();
    write_figure(
        out,
        "recursion-utilization",
        &line(
            "HPCC A.2 recursion: Y_i/C_i",
            steps,
            AxisSpec::linear("utilization"),
            utils,
        ),
    )?;
    let rep = hpcc_discrete::check_lemma(&net, &p.initial_rates, p.steps.max(200));
    let r3 = net.additive_increase(&p.initial_rates, p.u_target, p.additive, p.a3_steps);
    let u3 = net.path_utilization(&net.loads(&r3));
    let mut a3 = String::from("path,rate,path_utilization,a_over_1_minus_ut_over_u\n");
    for f in 0..j {
        let eq = hpcc_discrete::a3_equilibrium_rate(p.additive, p.u_target, u3[f]);
        writeln!(a3, "{f},{:.9},{:.9},{:.9}", r3[f], u3[f], eq).unwrap();
    }
    write_csv(out, "a3-equilibrium.csv", &a3)?;
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "hpcc-discrete: results in {} ({i} resources, {j} paths)",
        out.display()
    );
    println!(
        "  R(1) = [{}], feasible after one step: {}",
        fmt(&rs[1.min(rs.len() - 1)]),
        rep.feasible_after_one_step
    );
    println!("  non-decreasing from step 1: {}", rep.non_decreasing);
    println!(
        "  constant from step {} (I = {i}); constant and Pareto optimal by step I: {}; Pareto optimal at step {}: {}",
        rep.constant_from.map_or("-".into(), |n| n.to_string()),
        rep.constant_and_pareto_from_i,
        rep.steps,
        rep.pareto_at_end
    );
    println!(
        "  A.3 after {} RTTs (U_target {}, a {}): R = [{}]",
        p.a3_steps,
        p.u_target,
        p.additive,
        fmt(&r3)
    );
    let formula: Vec<f64> = u3
        .iter()
        .map(|&u| hpcc_discrete::a3_equilibrium_rate(p.additive, p.u_target, u))
        .collect();
    println!("    a/(1 - U_target/U) = [{}]", fmt(&formula));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_use_the_parameter_names_and_units() {
        let p = with_overrides(
            &DcqcnFluidParams::default(),
            &["kmax=40KB".into(), "g=0.0625".into()],
        )
        .unwrap();
        assert_eq!(p.kmax.0, 40_000);
        assert_eq!(p.g, 0.0625);
        let e = with_overrides(&DcqcnFluidParams::default(), &["kmaxx=1".into()]).unwrap_err();
        assert!(
            e.to_string().starts_with("--set") && e.to_string().contains("kmax"),
            "{e}"
        );
        let e = with_overrides(&DcqcnFluidParams::default(), &["timer=fast".into()]).unwrap_err();
        assert_eq!(e.location, "timer", "{e}");
    }

    #[test]
    fn rcc_compare_sim_waits_for_the_rcc_algorithm() {
        let args = ModelArgs {
            name: ModelName::RccFluid,
            out: Some(std::env::temp_dir().join("rocesim-model-rcc-unused")),
            set: vec![],
            preset: None,
            sweep: vec![],
            compare_sim: true,
            offset: "10ms".into(),
            sim_duration: "100ms".into(),
        };
        let e = model(&args).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("issue 3"), "{e}");
    }

    #[test]
    fn hpcc_discrete_writes_its_tables_and_figures() {
        let dir = std::env::temp_dir().join(format!("rocesim-model-hpcc-{}", std::process::id()));
        let args = ModelArgs {
            name: ModelName::HpccDiscrete,
            out: Some(dir.clone()),
            set: vec!["a3_steps=1000".into()],
            preset: None,
            sweep: vec![],
            compare_sim: false,
            offset: "10ms".into(),
            sim_duration: "100ms".into(),
        };
        model(&args).unwrap();
        for f in [
            "recursion.csv",
            "a3-equilibrium.csv",
            "recursion-rates.svg",
            "recursion-rates.png",
        ] {
            assert!(dir.join(f).exists(), "{f}");
        }
        let bad = ModelArgs {
            set: vec!["paths=[[0, 7]]".into()],
            ..args
        };
        let e = model(&bad).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("resource 7"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
