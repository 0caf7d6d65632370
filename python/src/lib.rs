//! `rocesim._rocesim`: the native half of the Python package (PyO3).
//!
//! Deliberately thin: it loads a scenario exactly as `rocesim run` does (the same
//! `--set` overrides and `--seed`, through `rocesim::cli::run`), simulates it into
//! a run directory with the GIL released, and writes reports with the code of
//! `rocesim report`, and runs sweeps with `rocesim::sweep` (the code of `rocesim
//! sweep`: the same point ids, resume and Slurm script). Everything else (reading
//! the CSVs into pandas, checking Python's types) is the pure-Python layer in
//! `rocesim/__init__.py`; docs/python.md describes the API.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rocesim::cli::ScenarioArgs;
use rocesim::cli::run::{Out, load_seeded, load_text_seeded, simulate};
use rocesim::error::{Error, InputError as RsInputError};
use rocesim::report::{ReportOptions, report as write_report};
use rocesim::sweep as sweeps;
use std::path::{Path, PathBuf};

create_exception!(
    _rocesim,
    InputError,
    PyValueError,
    "Bad input (scenario, topology or flow file, override, argument): the one-line message `rocesim` prints, naming the file, the field or line and what would be valid."
);
create_exception!(
    _rocesim,
    SimulationError,
    PyRuntimeError,
    "The simulation stopped on a condition it detected (e.g. a PFC deadlock)."
);

/// The CLI's exit code 2 (bad input) becomes `InputError`, a `ValueError`; the
/// message is the one line the CLI prints.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Input(_) => InputError::new_err(msg),
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            InputError::new_err(msg)
        }
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::Sim(_) => SimulationError::new_err(msg),
        // Only `reproduce --check` reports this; the module does not run it.
        Error::Check(_) => PyRuntimeError::new_err(msg),
    }
}

/// Runs a scenario file (`path`) or scenario text (`text`, relative paths in it
/// resolve against `base_dir`) into the run directory `out`. `overrides` are
/// `key.path=value` strings as given to `--set`. Returns the name of the run.
#[pyfunction]
#[pyo3(signature = (out, path=None, text=None, source="<string>", base_dir=None, overrides=Vec::new(), seed=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    out: PathBuf,
    path: Option<PathBuf>,
    text: Option<String>,
    source: &str,
    base_dir: Option<PathBuf>,
    overrides: Vec<String>,
    seed: Option<u64>,
) -> PyResult<String> {
    let source = source.to_string();
    py.detach(move || {
        let cfg = match (path, text) {
            (Some(p), None) => {
                let args = ScenarioArgs {
                    scenario: Some(p),
                    set: overrides,
                };
                load_seeded(&args, seed)?
            }
            (None, Some(t)) => {
                let base = base_dir.unwrap_or_else(|| PathBuf::from("."));
                load_text_seeded(&t, &source, &base, "scenario", &overrides, seed)?
            }
            _ => {
                let msg = "give exactly one of path= and text=";
                return Err(RsInputError::new("rocesim.run", "", msg).into());
            }
        };
        let name = cfg.name.clone();
        let target = Out {
            dir: &out,
            force: false,
            named_by: "out",
        };
        simulate(cfg, seed, Default::default(), target, &mut |_| {})?;
        Ok(name)
    })
    .map_err(to_py)
}

/// A value handed over from Python as JSON, in TOML (`null` has no TOML form).
fn toml_value(at: &str, v: serde_json::Value) -> Result<toml::Value, Error> {
    if v.is_null() {
        let msg = "None has no TOML form (leave the key out)";
        return Err(RsInputError::new("rocesim.sweep", at, msg).into());
    }
    toml::Value::try_from(v).map_err(|e| {
        let msg = format!("cannot be written as TOML: {e}");
        RsInputError::new("rocesim.sweep", at, msg).into()
    })
}

/// `"key" = value` lines of a TOML table, in the order given.
fn toml_lines(pairs: Vec<(String, serde_json::Value)>, table: &str) -> Result<String, Error> {
    let mut out = String::new();
    for (k, v) in pairs {
        let at = format!("{table}.\"{k}\"");
        let v = toml_value(&at, v)?;
        out += &format!(
            "{} = {}\n",
            toml::Value::String(k),
            sweeps::toml_literal(&v)
        );
    }
    Ok(out)
}

/// Runs a sweep with `rocesim::sweep` into the sweep directory `out`: the
/// base scenario file `base_path` or the scenario text `base_text`, fixed
/// overrides `set` and `axes` (JSON lists of `[key, value]` and `[key,
/// [values]]`, in order: the first axis varies slowest). The sweep is checked
/// before any point runs, as `rocesim sweep` checks a sweep file, and resumes
/// in a directory it ran in before. With `slurm` (JSON: partition, time,
/// cpus_per_task, submit, bin: the rocesim command the tasks run) it runs nothing and writes OUT/sweep.sbatch instead,
/// returning its path (and the job id when submitted); else returns
/// OUT/sweep.csv's path.
#[pyfunction]
#[pyo3(signature = (out, set, axes, base_path=None, base_text=None, jobs=1, slurm=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    out: PathBuf,
    set: &str,
    axes: &str,
    base_path: Option<PathBuf>,
    base_text: Option<String>,
    jobs: usize,
    slurm: Option<&str>,
) -> PyResult<(PathBuf, Option<String>)> {
    fn parse<T: serde::de::DeserializeOwned>(what: &str, j: &str) -> Result<T, Error> {
        serde_json::from_str(j).map_err(|e| {
            Error::from(RsInputError::new(
                "rocesim.sweep",
                what,
                format!("not valid: {e}"),
            ))
        })
    }
    let (set, axes, slurm) = (|| -> Result<_, Error> {
        let set: Vec<(String, serde_json::Value)> = parse("overrides", set)?;
        let axes: Vec<(String, serde_json::Value)> = parse("axes", axes)?;
        let slurm: Option<SlurmArgs> = slurm.map(|s| parse("slurm", s)).transpose()?;
        Ok((set, axes, slurm))
    })()
    .map_err(to_py)?;
    py.detach(move || {
        let base = match (&base_path, &base_text) {
            (Some(p), None) => std::path::absolute(p).map_err(|e| Error::io(p, e))?,
            (None, Some(_)) => PathBuf::from(sweeps::TEXT_BASE_FILE),
            _ => {
                let msg = "give exactly one of base_path= and base_text=";
                return Err(RsInputError::new("rocesim.sweep", "", msg).into());
            }
        };
        let mut text = format!(
            "base = {}\n[set]\n",
            toml::Value::String(base.display().to_string())
        );
        text += &toml_lines(set, "set")?;
        text += "[axes]\n";
        text += &toml_lines(axes, "axes")?;
        // The options are checked before anything is written.
        let slurm = slurm.map(|s| {
            let o = sweeps::slurm::SlurmOptions {
                partition: s.partition,
                time: s.time,
                cpus_per_task: s.cpus_per_task,
            };
            (o, s.bin, s.submit)
        });
        if let Some((o, _, _)) = &slurm {
            o.check()?;
        }
        if jobs == 0 {
            return Err(RsInputError::new("jobs", "", "must be at least 1").into());
        }
        let spec = sweeps::write_text_sweep(&out, &text, base_text.as_deref())?;
        if let Some((o, bin, submit)) = slurm {
            let script = sweeps::slurm::write_script_for(&spec, &out, &o, &bin)?;
            let id = match submit {
                true => Some(sweeps::slurm::submit(&script)?),
                false => None,
            };
            return Ok((script, id));
        }
        let opts = sweeps::SweepOptions {
            out: out.clone(),
            jobs,
            progress: false,
        };
        let r = sweeps::run_sweep(&spec, &opts)?;
        Ok((r.csv, None))
    })
    .map_err(to_py)
}

/// `slurm=` of [`sweep`], as `rocesim sweep --slurm` takes it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SlurmArgs {
    partition: Option<String>,
    time: Option<String>,
    cpus_per_task: Option<u32>,
    #[serde(default)]
    submit: bool,
    /// The rocesim command the array tasks run.
    bin: PathBuf,
}

/// Writes RUN_DIR/report.html and RUN_DIR/figures/ as `rocesim report RUN_DIR
/// [--step S] [--dport D]` does; returns (report.html's path, the terminal table).
#[pyfunction]
#[pyo3(signature = (run_dir, step=5, dport=None))]
fn report(
    py: Python<'_>,
    run_dir: PathBuf,
    step: u32,
    dport: Option<u16>,
) -> PyResult<(PathBuf, String)> {
    py.detach(move || {
        if step == 0 || 100 % step != 0 {
            let msg = format!("{step} is not valid (valid: a divisor of 100, e.g. 5, 10, 20)");
            return Err(RsInputError::new("step", "", msg).into());
        }
        let w = write_report(Path::new(&run_dir), &ReportOptions { step, dport })?;
        Ok((w.html, w.text))
    })
    .map_err(to_py)
}

/// Converts a scenario given as JSON (the Python layer's `json.dumps` of a dict)
/// to TOML text. `null` has no TOML form and is an error naming where it is.
#[pyfunction]
fn json_to_toml(json: &str) -> PyResult<String> {
    let table: toml::Table = serde_json::from_str(json).map_err(|e| {
        InputError::new_err(format!(
            "<dict>: cannot be written as TOML ({e}; None has no TOML form: leave the key out)"
        ))
    })?;
    toml::to_string(&table)
        .map_err(|e| InputError::new_err(format!("<dict>: cannot be written as TOML: {e}")))
}

#[pymodule]
fn _rocesim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
