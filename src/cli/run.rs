//! `rocesim run` and `rocesim validate`.

use super::{RunArgs, ScenarioArgs};
use crate::error::{Error, InputError};
use crate::output::RunOutputs;
use crate::scenario::{self, RunConfig, load};
use crate::sim::RunOptions;
use crate::units::SimTime;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

/// Loads and resolves the scenario named on the command line (or the built-in one).
pub fn load(args: &ScenarioArgs) -> Result<RunConfig, Error> {
    load_seeded(args, None)
}

/// [`load`], with `seed` (from `--seed`) replacing the scenario's `seed` before
/// the workload generators draw their flows.
pub fn load_seeded(args: &ScenarioArgs, seed: Option<u64>) -> Result<RunConfig, Error> {
    // The seed goes in as an override so that the effective scenario text (saved
    // as scenario.toml) names it.
    let mut set = args.set.clone();
    if let Some(s) = seed {
        set.push(format!("seed={s}"));
    }
    let mut loaded = match &args.scenario {
        Some(path) => {
            if !path.exists() {
                return Err(InputError::in_file(path, "", "no such scenario file").into());
            }
            load::load_path(path, &set)?
        }
        None => {
            let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
            load::load_str(
                crate::QUICKSTART,
                "built-in quickstart",
                &base,
                "quickstart",
                &set,
            )?
        }
    };
    if let Some(s) = seed {
        loaded.file.seed = s;
    }
    Ok(scenario::resolve(&loaded)?)
}

/// The warning for a scenario whose workload has no flow, if it has none.
pub fn no_flows_warning(cfg: &RunConfig) -> Option<String> {
    cfg.flows.is_empty().then(|| {
        format!(
            "{}: workload: no flows; a run would simulate nothing (add [[workload.flows]] or a generator table)",
            cfg.source
        )
    })
}

pub fn validate(args: &ScenarioArgs) -> Result<(), Error> {
    let cfg = load(args)?;
    if let Some(w) = no_flows_warning(&cfg) {
        eprintln!("warning: {w}");
    }
    println!(
        "{}: ok: {} hosts, {} switches, {} links, {} flows, cc = {}, profile = {:?}",
        cfg.source,
        cfg.topo.hosts.len(),
        cfg.topo.switches.len(),
        cfg.topo.spec.links.len(),
        cfg.flows.len(),
        cfg.cc.name(),
        cfg.model.profile
    );
    Ok(())
}

pub fn run(args: &RunArgs) -> Result<(), Error> {
    let mut scenario = args.scenario.clone();
    if let Some(fmt) = &args.fct_format {
        scenario.set.push(format!("output.fct_format={fmt}"));
    }
    let cfg = load_seeded(&scenario, args.seed)?;
    if let Some(w) = no_flows_warning(&cfg) {
        eprintln!("warning: {w}");
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(&cfg.name));
    InputError::check_out_dir(&out)?;
    let name = cfg.name.clone();
    let stop = cfg.stop;
    let opts = RunOptions {
        seed: args.seed,
        ..RunOptions::default()
    };
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let bar = match stop {
            Some(s) => ProgressBar::new(s.as_ns()),
            None => ProgressBar::new_spinner(),
        };
        let template = if stop.is_some() {
            "{spinner} [{elapsed_precise}] {bar:30} sim {msg}"
        } else {
            "{spinner} [{elapsed_precise}] sim {msg}"
        };
        bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
        bar
    };
    let mut progress = |now: SimTime, done: usize, total: usize| {
        bar.set_position(now.as_ns());
        bar.set_message(format!(
            "{:.3} ms, flows {done}/{total}",
            now.as_us_f64() / 1000.0
        ));
    };
    let res = crate::run(cfg, &opts, Some(&out), &mut progress);
    bar.finish_and_clear();
    let outputs = res?;
    if !args.quiet {
        print_table(&name, &out, &outputs);
    }
    if args.report {
        let w = crate::report::report(&out, &crate::report::ReportOptions::default())?;
        if !args.quiet {
            super::print_out(&format!("{}report: {}\n", w.text, w.html.display()));
        }
    }
    Ok(())
}

fn print_table(name: &str, out: &Path, o: &RunOutputs) {
    let s = &o.summary;
    println!("{name}: results in {}", out.display());
    let rows: Vec<(&str, String)> = vec![
        (
            "flows completed",
            format!("{} / {}", s.flows_completed, s.flows_total),
        ),
        (
            "FCT slowdown p50 / p95 / p99",
            if s.flows_completed == 0 {
                "no flow completed".to_string()
            } else {
                format!(
                    "{:.3} / {:.3} / {:.3}",
                    s.slowdown_p50, s.slowdown_p95, s.slowdown_p99
                )
            },
        ),
        (
            "max queue",
            format!("{:.1} KB", s.max_queue_bytes as f64 / 1000.0),
        ),
        (
            "PFC pauses / paused time",
            format!(
                "{} / {:.1} us",
                s.pfc_pause_frames,
                s.pfc_paused_ns / 1000.0
            ),
        ),
        ("drops", s.drops.to_string()),
        ("simulated time", format!("{:.3} ms", s.sim_seconds * 1e3)),
        (
            "events / packets sent",
            format!("{} / {}", s.events, s.packets_transmitted),
        ),
        (
            "wall time",
            format!(
                "{:.2} s ({:.2} M events/s, {:.2} M packets/s)",
                s.wall_seconds,
                s.events_per_second / 1e6,
                s.packets_per_second / 1e6
            ),
        ),
    ];
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, v) in rows {
        println!("  {k:<w$}  {v}");
    }
}
