//! Slurm: an sbatch job-array script with one array task per point, each
//! running `rocesim sweep SWEEP.toml --point $SLURM_ARRAY_TASK_ID --out DIR`
//! with absolute paths, so it runs from any working directory on any node that
//! shares the file system. Tasks write only their own point directories;
//! `rocesim sweep collect DIR` merges them afterwards.

use super::SweepSpec;
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use std::path::{Path, PathBuf};

/// `#SBATCH` options beyond the array.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// Time limit per task, as sbatch reads it (`30`, `1:00:00`, `1-0`).
    pub time: Option<String>,
    pub cpus_per_task: Option<u32>,
}

/// Array indices Slurm accepts by default (`MaxArraySize` = 1001: 0-1000).
pub const DEFAULT_MAX_ARRAY_SIZE: usize = 1001;

impl SlurmOptions {
    /// Refuses options sbatch would misread: they are written into the script
    /// as `#SBATCH` lines, where a newline would start a shell command.
    pub fn check(&self) -> Result<(), InputError> {
        if let Some(p) = &self.partition {
            let ok = !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.,".contains(c));
            if !ok {
                let msg = format!(
                    "{p:?} is not a partition name (valid: letters, digits, '_', '-', '.', and ',' \
                     between names, e.g. batch)"
                );
                return Err(InputError::new("--partition", "", msg));
            }
        }
        if let Some(t) = &self.time
            && !is_slurm_time(t)
        {
            let msg = format!(
                "{t:?} is not a Slurm time limit (valid: minutes, minutes:seconds, \
                 hours:minutes:seconds, days-hours, days-hours:minutes, \
                 days-hours:minutes:seconds or UNLIMITED, e.g. 30, 1:00:00, 2-0)"
            );
            return Err(InputError::new("--time", "", msg));
        }
        if self.cpus_per_task == Some(0) {
            return Err(InputError::new(
                "--cpus-per-task",
                "",
                "0 is not valid (valid: at least 1)",
            ));
        }
        Ok(())
    }
}

/// Whether `t` is a time limit as sbatch reads `--time`.
fn is_slurm_time(t: &str) -> bool {
    if t == "UNLIMITED" || t == "INFINITE" {
        return true;
    }
    let num = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
    let (days, rest) = match t.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, t),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    days.is_none_or(num) && parts.iter().all(|p| num(p)) && parts.len() <= 3
}

/// Quotes a word for bash.
fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The job script: `bin` is the rocesim binary, `out` the sweep directory
/// (both absolute).
pub fn script(spec: &SweepSpec, bin: &Path, out: &Path, o: &SlurmOptions) -> String {
    let n = spec.points.len();
    let mut s = String::from("#!/bin/bash\n");
    s += &format!(
        "# rocesim sweep {}: {n} points, one array task each.\n\
         # Submit: sbatch {}\n# Then:   {} sweep collect {}\n",
        spec.abs_path.display(),
        sh(&out.join("sweep.sbatch").display().to_string()),
        sh(&bin.display().to_string()),
        sh(&out.display().to_string()),
    );
    s += &format!("#SBATCH --job-name=rocesim-{}\n", spec.stem);
    s += &format!("#SBATCH --array=0-{}\n", n.saturating_sub(1));
    s += &format!(
        "#SBATCH --output={}\n",
        out.join("slurm-%A_%a.out").display()
    );
    if let Some(p) = &o.partition {
        s += &format!("#SBATCH --partition={p}\n");
    }
    if let Some(t) = &o.time {
        s += &format!("#SBATCH --time={t}\n");
    }
    if let Some(c) = o.cpus_per_task {
        s += &format!("#SBATCH --cpus-per-task={c}\n");
    }
    s += "set -euo pipefail\n";
    s += &format!(
        "exec {} sweep {} --point \"$SLURM_ARRAY_TASK_ID\" --out {}\n",
        sh(&bin.display().to_string()),
        sh(&spec.abs_path.display().to_string()),
        sh(&out.display().to_string())
    );
    s
}

/// Writes `out/sweep.sbatch` (and the plan `sweep collect` reads), whose tasks
/// run this rocesim binary; returns its path.
pub fn write_script(spec: &SweepSpec, out: &Path, o: &SlurmOptions) -> Result<PathBuf, Error> {
    let bin = std::env::current_exe().map_err(|e| Error::io("rocesim binary", e))?;
    write_script_for(spec, out, o, &bin)
}

/// [`write_script`] whose tasks run the rocesim command `bin` (a binding,
/// whose own executable is not rocesim).
pub fn write_script_for(
    spec: &SweepSpec,
    out: &Path,
    o: &SlurmOptions,
    bin: &Path,
) -> Result<PathBuf, Error> {
    o.check()?;
    super::output::check_sweep_dir(out)?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let out = std::path::absolute(out).map_err(|e| Error::io(out, e))?;
    let text = script(spec, bin, &out, o);
    super::output::write_plan(spec, &out)?;
    AtomicFile::write_all_to(&out, "sweep.sbatch", text.as_bytes())?;
    Ok(out.join("sweep.sbatch"))
}

/// Runs `sbatch --parsable SCRIPT`; returns the job id.
pub fn submit(script: &Path) -> Result<String, Error> {
    let o = std::process::Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .output()
        .map_err(|e| {
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                "sbatch not found on PATH (is Slurm installed here?)".to_string()
            } else {
                format!("cannot run sbatch: {e}")
            };
            InputError::new(
                "--submit",
                "",
                format!("{why}; the script is {}", script.display()),
            )
        })?;
    if !o.status.success() {
        return Err(Error::Sim(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&o.stderr).trim().replace('\n', " ")
        )));
    }
    let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
    // --parsable prints "jobid" or "jobid;cluster".
    Ok(id.split(';').next().unwrap_or(&id).to_string())
}
