//! `rocesim import-ns3 CONFIG [--out scenario.toml]`: an HPCC ns-3 config file as
//! an equivalent `profile = "ns3-hpcc"` scenario ([`crate::scenario::ns3_import`]).

use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use crate::scenario::{load, ns3_import, resolve};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct ImportNs3Args {
    /// The ns-3 config file (e.g. mix/config.txt).
    pub config: PathBuf,
    /// Where to write the scenario (default: print it). Paths in it are
    /// relative to this file's directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn import_ns3(args: &ImportNs3Args) -> Result<(), Error> {
    let text = std::fs::read_to_string(&args.config).map_err(|e| {
        InputError::in_file(&args.config, "", format!("cannot read ns-3 config: {e}"))
    })?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("scenario.toml"));
    let imported = ns3_import::import(&args.config, &text, &out)?;
    for w in &imported.warnings {
        eprintln!("warning: {w}");
    }
    // The scenario must validate (its topology and flow files included).
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let source = out.display().to_string();
    let loaded = load::load_str(&imported.toml, &source, dir, "ns3", &[])?;
    resolve(&loaded)?;
    match &args.out {
        None => super::print_out(&imported.toml),
        Some(path) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let name = path
                .file_name()
                .ok_or_else(|| InputError::new("--out", "", "must name a file"))?;
            let mut f = AtomicFile::create(dir, &name.to_string_lossy())?;
            f.write_all(imported.toml.as_bytes())
                .map_err(|e| f.err(e))?;
            f.commit()?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}
