//! `rocesim import-ns3 CONFIG [--out scenario.toml]`: an HPCC ns-3 config file as
//! an equivalent `profile = "ns3-hpcc"` scenario ([`crate::scenario::ns3_import`]).

use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use crate::scenario::{self, Source, ns3_import};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct ImportNs3Args {
    /// The ns-3 config file (e.g. mix/config.txt).
    pub config: PathBuf,
    /// Where to write the scenario (its directory is created if missing; paths
    /// in it are relative to it). Default: print it, with absolute paths.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file.
    #[arg(long, requires = "out")]
    pub force: bool,
}

pub fn import_ns3(args: &ImportNs3Args) -> Result<(), Error> {
    let text = std::fs::read_to_string(&args.config).map_err(|e| {
        InputError::in_file(
            &args.config,
            "",
            format!("cannot read ns-3 config: {}", super::io_reason(&e)),
        )
    })?;
    let Some(path) = &args.out else {
        let imported = ns3_import::import(&args.config, &text, None)?;
        for w in &imported.warnings {
            eprintln!("warning: {w}");
        }
        // The scenario must validate (its topology and flow files included).
        let src = Source::text(&imported.toml, "<stdout>", Path::new("."), "ns3");
        scenario::to_config(&src, &[])?;
        super::print_out(&imported.toml);
        return Ok(());
    };
    if path.is_dir() {
        let msg = format!(
            "{} is a directory (valid: a file name, e.g. {})",
            path.display(),
            path.join("scenario.toml").display()
        );
        return Err(InputError::new("--out", "", msg).into());
    }
    if path.exists() && !args.force {
        let msg = format!(
            "{} already exists; give another file name, or --force to replace it",
            path.display()
        );
        return Err(InputError::new("--out", "", msg).into());
    }
    let name = path
        .file_name()
        .ok_or_else(|| {
            InputError::new("--out", "", format!("{} must name a file", path.display()))
        })?
        .to_string_lossy()
        .into_owned();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let imported = ns3_import::import(&args.config, &text, Some(path))?;
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    // The relative paths resolve only once the directory exists: create it
    // (and remove what we created if anything fails).
    let created = create_dirs(dir)?;
    let res = (|| -> Result<(), Error> {
        let source = path.display().to_string();
        scenario::to_config(&Source::text(&imported.toml, &source, dir, "ns3"), &[])?;
        let mut f = AtomicFile::create(dir, &name).map_err(|e| super::flag_error("--out", e))?;
        f.write_all(imported.toml.as_bytes())
            .map_err(|e| f.err(e))?;
        f.commit().map_err(|e| super::flag_error("--out", e))
    })();
    if res.is_err() {
        for d in created.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
    res?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Creates `dir` and its missing parents; returns those it created, outermost
/// first. Errors name `--out`.
fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        let msg = format!(
            "cannot create {}: {} is a file, not a directory",
            dir.display(),
            file.display()
        );
        return Err(InputError::new("--out", "", msg));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        let msg = format!("cannot create {}: {}", dir.display(), super::io_reason(&e));
        InputError::new("--out", "", msg)
    })?;
    Ok(missing.into_iter().rev().collect())
}
