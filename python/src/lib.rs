//! `rocesim._rocesim`: the native half of the Python package (PyO3).
//!
//! Deliberately thin: it loads a scenario exactly as `rocesim run` does (the same
//! `--set` overrides and `--seed`, through `rocesim::cli::run`), simulates it into
//! a run directory with the GIL released, and writes reports with the code of
//! `rocesim report`. Everything else (reading the CSVs into pandas, sweeps) is the
//! pure-Python layer in `rocesim/__init__.py`; docs/python.md describes the API.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rocesim::cli::ScenarioArgs;
use rocesim::cli::run::{Out, load_seeded, load_text_seeded, simulate};
use rocesim::error::{Error, InputError as RsInputError};
use rocesim::report::{ReportOptions, report as write_report};
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
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
