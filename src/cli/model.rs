//! `rocesim model <name>`: solve an analytical model from the papers, write CSV
//! tables and SVG+PNG figures, and print a short summary. See
//! docs/analytic-models.md.

use crate::analytic::dcqcn_fluid::DcqcnFluidParams;
use crate::analytic::rcc_fluid::RccFluidParams;
use crate::analytic::{dcqcn_sweep, hpcc_discrete, report, with_overrides};
use crate::error::{Error, InputError};
use crate::units::Delta;
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
    /// Also run the matching packet-level scenario and compare (dcqcn-fluid,
    /// rcc-fluid).
    #[arg(long)]
    pub compare_sim: bool,
    /// dcqcn-fluid --compare-sim: start of the second flow (DCQCN §6.1: 10ms).
    #[arg(long, default_value = "10ms")]
    pub offset: String,
    /// --compare-sim: length of the run (dcqcn-fluid: 100ms as Fig. 10;
    /// rcc-fluid: 2ms).
    #[arg(long)]
    pub sim_duration: Option<String>,
}

pub fn model(args: &ModelArgs) -> Result<(), Error> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("model-{}", args.name.id())));
    InputError::check_out_dir(&out)?;
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

fn parse_delta(flag: &str, v: &str) -> Result<Delta, InputError> {
    crate::units::parse_delta(v).map_err(|e| InputError::new(flag, "", e))
}

fn print(lines: Vec<String>) {
    for l in lines {
        outln!("{l}");
    }
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
            parse_delta(
                "--sim-duration",
                args.sim_duration.as_deref().unwrap_or("100ms"),
            )?,
        ))
    } else {
        None
    };
    print(report::dcqcn::base_run(&p, out)?);
    for panel in panels.iter().flatten() {
        print(report::dcqcn::sweep(panel, out)?);
    }
    if let Some((offset, duration)) = compare_times {
        print(report::dcqcn::compare(offset, duration, &p, out)?);
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

// ------------------------------------------------------- rcc-fluid, hpcc-discrete

fn rcc(args: &ModelArgs, out: &Path) -> Result<(), Error> {
    let p = with_overrides(&RccFluidParams::default(), &args.set)?;
    p.validate().map_err(|e| e.with_file("--set"))?;
    let duration = match args.compare_sim {
        true => Some(parse_delta(
            "--sim-duration",
            args.sim_duration.as_deref().unwrap_or("2ms"),
        )?),
        false => None,
    };
    print(report::rcc::run(&p, out)?);
    if let Some(d) = duration {
        let c = crate::analytic::rcc_compare::compare(&p, d, &[])?;
        print(report::rcc::compare(&c, out)?);
    }
    Ok(())
}

fn hpcc(args: &ModelArgs, out: &Path) -> Result<(), Error> {
    if args.compare_sim {
        let msg = "hpcc-discrete has no packet-level comparison (the recursion is an idealized RTT-synchronous model)";
        return Err(InputError::new("--compare-sim", "", msg).into());
    }
    let p = with_overrides(&hpcc_discrete::HpccDiscreteParams::default(), &args.set)?;
    p.validate().map_err(|e| e.with_file("--set"))?;
    print(report::hpcc::run(&p, out)?);
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
    fn rcc_compare_sim_writes_the_comparison_and_rejects_a_bad_duration() {
        let dir = std::env::temp_dir().join(format!("rocesim-model-rcc-{}", std::process::id()));
        let args = ModelArgs {
            name: ModelName::RccFluid,
            out: Some(dir.clone()),
            set: vec!["duration=200us".into()],
            preset: None,
            sweep: vec![],
            compare_sim: true,
            offset: "10ms".into(),
            sim_duration: Some("300us".into()),
        };
        model(&args).unwrap();
        for f in [
            "compare.csv",
            "compare-summary.csv",
            "compare-rates.svg",
            "compare-queue.png",
        ] {
            assert!(dir.join(f).exists(), "{f}");
        }
        let bad = ModelArgs {
            sim_duration: Some("5".into()),
            ..args
        };
        let e = model(&bad).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--sim-duration"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
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
            sim_duration: None,
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
