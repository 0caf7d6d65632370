//! Running a sweep's points: all of them on local cores ([`run_sweep`]) or one
//! ([`run_point`], what a Slurm array task runs). A point writes only its own
//! directory, so points can run in separate processes at the same time.

use super::output::{PointRecord, PointResult, SweepResult, values_json, write_plan};
use super::{Point, PointStatus, SweepSpec, collect};
use crate::error::{Error, InputError};
use crate::sim::RunOptions;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// How to run a sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// The sweep directory (`runs/<sweep file stem>` on the command line).
    pub out: PathBuf,
    /// Points run in parallel (at least 1).
    pub jobs: usize,
    /// Progress bar and per-point lines on stderr.
    pub progress: bool,
}

/// What happened to one point in this call.
enum Outcome {
    Ran(f64),
    Skipped,
    Failed(String),
}

/// Runs every point of `spec` that is not already complete, `opts.jobs` at a
/// time, then collects `sweep.csv` and `sweep.json` (see [`collect`]). A point
/// that fails is recorded with its error and the others go on: the result says
/// which points failed ([`SweepResult::check`] turns that into an error). `Err`
/// only for what stops the whole sweep (the output directory cannot be written).
/// The same sweep gives the same sweep.csv and point outputs whatever `jobs` is.
pub fn run_sweep(spec: &SweepSpec, opts: &SweepOptions) -> Result<SweepResult, Error> {
    let out = &opts.out;
    super::output::check_sweep_dir(out)?;
    let pool = crate::reproduce::thread_pool(opts.jobs)?;
    pool.install(|| check_points(spec, out))?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    write_plan(spec, out)?;
    let bar = if opts.progress {
        let bar = ProgressBar::new(spec.points.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} points {msg}",
            )
            .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    // indicatif draws nothing when stderr is not a terminal: plain lines then.
    let say = |line: String| match (opts.progress, bar.is_hidden()) {
        (false, _) => {}
        (true, true) => eprintln!("{line}"),
        (true, false) => bar.println(line),
    };
    pool.install(|| {
        spec.points.par_iter().for_each(|p| {
            let line = match point(spec, p, out) {
                Outcome::Ran(secs) => format!("  ok      {} ({secs:.1} s)", p.id),
                Outcome::Skipped => format!("  skipped {} (complete)", p.id),
                Outcome::Failed(e) => format!("  failed  {}: {e}", p.id),
            };
            say(line);
            bar.inc(1);
        });
    });
    bar.finish_and_clear();
    collect(spec, out)
}

/// Runs point `index` of `spec` into `out/<point id>/` (skipped when already
/// complete) and returns its status. Writes nothing outside the point directory.
pub fn run_point(spec: &SweepSpec, index: usize, out: &Path) -> Result<PointResult, Error> {
    let Some(p) = spec.points.get(index) else {
        return Err(InputError::new(
            "--point",
            "",
            format!(
                "{index} is out of range: {} has {} points (valid: 0 to {})",
                spec.path.display(),
                spec.points.len(),
                spec.points.len().saturating_sub(1)
            ),
        )
        .into());
    };
    InputError::check_out_dir(out)?;
    let status = match point(spec, p, out) {
        Outcome::Ran(_) | Outcome::Skipped => PointStatus::Ok,
        Outcome::Failed(e) => PointStatus::Failed(e),
    };
    Ok(PointResult {
        index,
        id: p.id.clone(),
        status,
        dir: out.join(&p.id),
    })
}

/// Every point that is not complete in `out` and resolves passes the checks
/// `rocesim run` makes before it runs ([`crate::sim::limits::check_before`]:
/// the simulated-time and output limits at their defaults), so that a sweep
/// with a point whose rows or simulated time `run` would refuse is refused
/// before any point runs, naming the first such point. A point that does not
/// resolve is left to fail alone (recorded in its directory, the others
/// run). Points are resolved in parallel.
fn check_points(spec: &SweepSpec, out: &Path) -> Result<(), InputError> {
    let limits = RunOptions::default().limits;
    let first_bad = spec
        .points
        .par_iter()
        .filter_map(|p| {
            let l = spec.load_point(p).ok()?;
            if complete(&out.join(&p.id), &super::text_hash(l.text())) {
                return None;
            }
            let cfg = l.to_config().ok()?;
            let checked = crate::sim::limits::check_before(&cfg, &limits, true);
            checked.err().map(|e| (p.index, e))
        })
        .min_by_key(|(i, _)| *i);
    match first_bad {
        None => Ok(()),
        Some((i, e)) => {
            let inner = match e.location.is_empty() {
                true => e.message,
                false => format!("{}: {}", e.location, e.message),
            };
            Err(InputError::in_file(
                &spec.path,
                format!("point {}", spec.points[i].id),
                format!("{inner} (`rocesim run` refuses it; no point ran)"),
            ))
        }
    }
}

/// Whether `dir` holds a complete run of the scenario with this hash.
fn complete(dir: &Path, hash: &str) -> bool {
    PointRecord::read(dir).is_some_and(|r| r.status == "ok" && r.scenario_hash == hash)
        && dir.join("summary.json").is_file()
}

/// Runs one point unless complete; records the outcome in its directory.
fn point(spec: &SweepSpec, p: &Point, out: &Path) -> Outcome {
    let dir = out.join(&p.id);
    let started = std::time::Instant::now();
    let loaded = match spec.load_point(p) {
        Ok(l) => l,
        Err(e) => return fail(p, &dir, String::new(), e.to_string()),
    };
    let hash = super::text_hash(loaded.text());
    if complete(&dir, &hash) {
        return Outcome::Skipped;
    }
    // Whatever an earlier, unfinished or different run left goes first.
    if dir.exists()
        && let Err(e) = std::fs::remove_dir_all(&dir)
    {
        return Outcome::Failed(Error::io(&dir, e).to_string());
    }
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<(), Error> {
        let cfg = loaded.to_config()?;
        let opts = RunOptions {
            stream_fct: true,
            ..RunOptions::default()
        };
        crate::run(cfg, &opts, Some(&dir), &mut |_| {})?;
        Ok(())
    }));
    let err = match res {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(panic) => Some(format!(
            "the simulator panicked (a bug, please report it): {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("no message")
        )),
    };
    match err {
        Some(e) => fail(p, &dir, hash, e),
        None => {
            let rec = PointRecord {
                index: p.index,
                id: p.id.clone(),
                scenario_hash: hash,
                status: "ok".into(),
                error: None,
                values: values_json(&p.values),
            };
            match rec.write(&dir) {
                Ok(()) => Outcome::Ran(started.elapsed().as_secs_f64()),
                Err(e) => Outcome::Failed(e.to_string()),
            }
        }
    }
}

/// Records a failed point in its directory.
fn fail(p: &Point, dir: &Path, hash: String, error: String) -> Outcome {
    let error = error.replace('\n', " ");
    let rec = PointRecord {
        index: p.index,
        id: p.id.clone(),
        scenario_hash: hash,
        status: "failed".into(),
        error: Some(error.clone()),
        values: values_json(&p.values),
    };
    if let Err(e) = std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(dir, e))
        .and_then(|()| rec.write(dir))
    {
        return Outcome::Failed(format!("{error} (and cannot record it: {e})"));
    }
    Outcome::Failed(error)
}
