//! `rocesim run` and `rocesim validate`.

use super::{RunArgs, ScenarioArgs, ValidateArgs};
use crate::config::RunConfig;
use crate::error::{Error, InputError};
use crate::output::RunOutputs;
use crate::scenario::{self, Source};
use crate::sim::RunOptions;
use std::path::{Path, PathBuf};

/// Loads and resolves the scenario named on the command line (or the built-in one).
pub fn load(args: &ScenarioArgs) -> Result<RunConfig, Error> {
    load_seeded(args, None)
}

/// [`load`], with `seed` (from `--seed`) replacing the scenario's `seed` before
/// the workload generators draw their flows.
pub fn load_seeded(args: &ScenarioArgs, seed: Option<u64>) -> Result<RunConfig, Error> {
    let src = match &args.scenario {
        Some(path) => {
            if !path.exists() {
                return Err(InputError::in_file(path, "", "no such scenario file").into());
            }
            Source::File(path.clone())
        }
        None => {
            let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
            Source::text(
                crate::QUICKSTART,
                "built-in quickstart",
                &base,
                "quickstart",
            )
        }
    };
    Ok(scenario::to_config(&src, &with_seed(&args.set, seed)?)?)
}

/// [`load_seeded`] for scenario text rather than a file (the Python package's
/// string and dict scenarios): `source` names it in messages, relative paths in it
/// resolve against `base_dir`, and `stem` is the default experiment name.
pub fn load_text_seeded(
    text: &str,
    source: &str,
    base_dir: &Path,
    stem: &str,
    set: &[String],
    seed: Option<u64>,
) -> Result<RunConfig, Error> {
    let src = Source::text(text, source, base_dir, stem);
    Ok(scenario::to_config(&src, &with_seed(set, seed)?)?)
}

/// The seed goes in as the last override, so the scenario's `seed` is it and the
/// effective scenario text (saved as scenario.toml) names it.
/// A seed is a TOML integer in the scenario, so at most `i64::MAX`.
fn with_seed(set: &[String], seed: Option<u64>) -> Result<Vec<String>, InputError> {
    let mut set = set.to_vec();
    if let Some(s) = seed {
        if s > i64::MAX as u64 {
            let msg = format!(
                "{s} is out of range (valid: 0 to {}, the scenario's seed being a TOML integer)",
                i64::MAX
            );
            return Err(InputError::new("--seed", "", msg));
        }
        set.push(format!("seed={s}"));
    }
    Ok(set)
}

pub fn validate(args: &ValidateArgs) -> Result<(), Error> {
    let cfg = load(&args.scenario)?;
    // A run writes files: check the output volume too.
    crate::sim::limits::check_before(&cfg, &args.limits.limits(), true)?;
    for w in super::warnings::scenario_warnings(&cfg) {
        eprintln!("warning: {w}");
    }
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    outln!(
        "{}: ok: {}, {}, {}, {}, cc = {}, profile = {}",
        cfg.source,
        match cfg.topo.multi_nic() {
            false => n(cfg.topo.hosts.len(), "host", "hosts"),
            true => format!(
                "{} ({})",
                n(cfg.topo.servers().len(), "server", "servers"),
                n(cfg.topo.hosts.len(), "NIC", "NICs")
            ),
        },
        n(cfg.topo.switches.len(), "switch", "switches"),
        n(cfg.topo.spec.links.len(), "link", "links"),
        n(cfg.flows.len(), "flow", "flows"),
        cfg.cc.name(),
        cfg.model.profile.name()
    );
    Ok(())
}

pub fn run(args: &RunArgs) -> Result<(), Error> {
    let mut scenario = args.scenario.clone();
    if let Some(fmt) = &args.fct_format {
        scenario.set.push(format!("output.fct_format={fmt}"));
    }
    let mut cfg = load_seeded(&scenario, args.seed)?;
    if let Some(t) = args.threads {
        cfg.threads = check_threads(t)?;
    }
    #[cfg(not(feature = "mpi"))]
    if args.mpi {
        return Err(InputError::new("--mpi", "", crate::sim::NO_MPI).into());
    }
    #[cfg(feature = "mpi")]
    let _universe = match args.mpi {
        true => Some(mpi_world::start()?),
        false => None,
    };
    #[cfg(feature = "mpi")]
    if args.mpi && mpi_world::rank() != 0 {
        return mpi_world::follow(cfg, args);
    }
    // A scenario the up-front checks refuse gets its one-line error (from
    // `simulate`) and no warnings about what it would have run with.
    if crate::sim::limits::check_before(&cfg, &args.limits.limits(), true).is_ok() {
        for w in super::warnings::scenario_warnings(&cfg) {
            eprintln!("warning: {w}");
        }
        if let (_, Some(note)) = crate::sim::limits::table_format(&cfg) {
            eprintln!("note: {note}");
        }
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(&cfg.name));
    let name = cfg.name.clone();
    let every = args.progress_every.unwrap_or(super::progress::PLAIN_EVERY);
    let mut display = super::progress::RunDisplay::new(&name, cfg.stop, args.quiet, every);
    let opts = RunOptions {
        seed: args.seed,
        limits: args.limits.limits(),
        mpi: args.mpi,
        ..RunOptions::default()
    };
    let target = Out {
        dir: &out,
        force: args.force,
        named_by: if args.out.is_some() { "--out" } else { "" },
    };
    let res = simulate_claimed(cfg, opts, target, &mut |p| display.update(p));
    display.finish();
    let (outputs, _claim) = res.map_err(|e| match e {
        // Writing failed mid-run (e.g. the disk filled): name the flag.
        e @ Error::Io { .. } => super::flag_error("--out", e),
        e => e,
    })?;
    if !args.quiet {
        print_table(&name, &out, &outputs);
    }
    // Still ours (the claim is held): the report goes in beside the run.
    if args.report {
        let w = crate::report::report(&out, &crate::report::ReportOptions::default())?;
        if !args.quiet {
            super::print_out(&format!("{}report: {}\n", w.text, w.html.display()));
        }
    }
    Ok(())
}

/// A `--threads` value: 1 to [`crate::limits::MAX_THREADS`].
pub fn check_threads(t: usize) -> Result<usize, Error> {
    let max = crate::limits::MAX_THREADS;
    if (1..=max).contains(&t) {
        Ok(t)
    } else {
        Err(crate::error::InputError::new(
            "--threads",
            "",
            format!("{t} is not a thread count; give 1 to {max}"),
        )
        .into())
    }
}

/// Where a run writes: its directory, whether a previous run there may be
/// replaced (`--force`), and how the user named it, for messages: `"--out"`,
/// `""` for the default `runs/<name>`, `"out"` for the Python argument.
#[derive(Clone, Copy, Debug)]
pub struct Out<'a> {
    pub dir: &'a Path,
    pub force: bool,
    pub named_by: &'a str,
}

/// Runs a loaded scenario into the run directory `out.dir` as `rocesim run`
/// does: refuses a hopeless scenario under `limits` before touching the
/// directory, which must be new or empty (or a previous run's, with
/// `out.force`) and is claimed for the run, and removes what it created if the
/// run fails. `seed` is the `--seed` given to [`load_seeded`].
pub fn simulate(
    cfg: RunConfig,
    seed: Option<u64>,
    limits: crate::sim::limits::Limits,
    out: Out<'_>,
    progress: &mut dyn FnMut(crate::sim::RunProgress),
) -> Result<RunOutputs, Error> {
    let opts = RunOptions {
        seed,
        limits,
        ..RunOptions::default()
    };
    simulate_claimed(cfg, opts, out, progress).map(|(o, _)| o)
}

/// [`simulate`] with more options (`--mpi`), returning the directory's claim
/// too: the directory stays this process's while it is held (`run --report`
/// writes the report under it). On MPI ranks, this is rank 0's part: the
/// others wait for its verdict on the scenario and the directory
/// ([`mpi_world::follow`]).
pub fn simulate_claimed(
    cfg: RunConfig,
    opts: RunOptions,
    out: Out<'_>,
    progress: &mut dyn FnMut(crate::sim::RunProgress),
) -> Result<(RunOutputs, super::out_dir::OutDir), Error> {
    let ready = crate::sim::limits::check_before(&cfg, &opts.limits, true)
        .map_err(Error::from)
        .and_then(|()| {
            super::out_dir::prepare(out.named_by, out.dir, out.force).map_err(Error::from)
        });
    #[cfg(feature = "mpi")]
    if opts.mpi {
        mpi_world::agree(ready.is_ok());
    }
    let dir = ready?;
    let opts = RunOptions {
        replace: dir.stale.clone(),
        stream_fct: true,
        ..opts
    };
    match crate::run(cfg, &opts, Some(out.dir), progress) {
        Ok(o) => Ok((o, dir)),
        Err(e) => {
            dir.abandon();
            Err(e)
        }
    }
}

fn print_table(name: &str, out: &Path, o: &RunOutputs) {
    let s = &o.summary;
    outln!("{name}: results in {}", out.display());
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
        outln!("  {k:<w$}  {v}");
    }
}

/// The MPI side of `rocesim run --mpi`.
#[cfg(feature = "mpi")]
mod mpi_world {
    use super::{RunArgs, RunConfig, RunOptions};
    use crate::error::{Error, InputError};
    use mpi::traits::*;

    /// Initializes MPI (finalized when the returned universe drops).
    pub fn start() -> Result<mpi::environment::Universe, Error> {
        mpi::initialize().ok_or_else(|| {
            InputError::new(
                "--mpi",
                "",
                "MPI could not be initialized (already initialized)",
            )
            .into()
        })
    }

    pub fn rank() -> usize {
        mpi::topology::SimpleCommunicator::world().rank() as usize
    }

    /// Tells every rank whether rank 0 can run (scenario limits, output
    /// directory); returns rank 0's word.
    pub fn agree(ok: bool) -> bool {
        let world = mpi::topology::SimpleCommunicator::world();
        let mut word = ok as u8;
        world.process_at_rank(0).broadcast_into(&mut word);
        word == 1
    }

    /// A rank other than 0: waits for rank 0's word, then runs its partition
    /// without an output directory. Rank 0 reports any error.
    pub fn follow(cfg: RunConfig, args: &RunArgs) -> Result<(), Error> {
        if !agree(false) {
            return Ok(());
        }
        let opts = RunOptions {
            seed: args.seed,
            limits: args.limits.limits(),
            mpi: true,
            ..RunOptions::default()
        };
        let _ = crate::run(cfg, &opts, None, &mut |_| {});
        Ok(())
    }
}
