//! `rocesim compare RUN_DIR... [--ns3 PATH]... --out DIR`: the report's figures
//! with one series per run, the headline numbers side by side, and, with the HPCC
//! ns-3 simulator's output as a series, the flow-by-flow agreement with it.

use super::report::FctArgs;
use crate::error::{Error, InputError};
use crate::report::compare::Source;
use crate::report::ns3_series::Ns3Source;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Run directories; the first is the base of relative differences. With
    /// --ns3, one is enough.
    #[arg(num_args = 0..)]
    pub run_dirs: Vec<PathBuf>,
    /// The HPCC ns-3 simulator's output as a series: the config.txt of the run
    /// (its FCT_OUTPUT_FILE and TOPOLOGY_FILE are read, relative to it) or the
    /// fct.txt itself. Repeatable; the first is the reference of the agreement
    /// tables.
    #[arg(long = "ns3", value_name = "CONFIG_OR_FCT")]
    pub ns3: Vec<PathBuf>,
    /// The topology file of an --ns3 fct.txt (checks that its flows are between
    /// hosts of that fabric); a config.txt names its own.
    #[arg(long = "ns3-topology", value_name = "FILE")]
    pub ns3_topology: Option<PathBuf>,
    /// Output directory for compare.html and figures/: new, empty, or (with
    /// --force) a previous comparison's.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace a previous comparison in --out.
    #[arg(long)]
    pub force: bool,
    /// Name a series in figures and tables: --label hpcc=runs/a (repeatable; an
    /// ns-3 series by the path given to --ns3).
    #[arg(long = "label", value_name = "NAME=PATH")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub fct: FctArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The files `rocesim compare` writes in its directory.
const COMPARE_FILES: &[&str] = &["compare.html", "agreement.csv", "figures"];

/// `--out` must be new, empty, or hold a previous comparison (replaced only
/// with `--force`): never a run directory, whose figures would be replaced.
fn check_out(out: &Path, force: bool) -> Result<(), InputError> {
    InputError::check_out_dir(out)?;
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != crate::output::claim::CLAIM_FILE)
        .collect();
    names.sort();
    let shown = out.display();
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !COMPARE_FILES.contains(&n.as_str()))
        .collect();
    if names.iter().any(|n| n == "summary.json") {
        let msg = format!(
            "{shown} is a run directory (it holds summary.json); give a new directory for the comparison"
        );
        return Err(InputError::new("--out", "", msg));
    }
    if let Some(f) = foreign.first() {
        let msg = format!(
            "{shown} holds files compare does not write ({f}{}); give a new directory",
            if foreign.len() > 1 { ", ..." } else { "" }
        );
        return Err(InputError::new("--out", "", msg));
    }
    if !names.is_empty() && !force {
        let msg = format!(
            "{shown} already holds a comparison; give a new directory, or --force to replace it"
        );
        return Err(InputError::new("--out", "", msg));
    }
    Ok(())
}

pub fn compare(args: &CompareArgs) -> Result<(), Error> {
    let opts = args.fct.options()?;
    check_out(&args.out, args.force)?;
    let mut sources: Vec<Source> = args.run_dirs.iter().cloned().map(Source::Run).collect();
    for p in &args.ns3 {
        sources.push(Source::Ns3 {
            given: p.clone(),
            src: ns3_source(p, args.ns3_topology.as_deref())?,
        });
    }
    // Ours alone while we write (a directory made here is left: it is empty
    // only if the comparison failed, and then it is removed).
    let made = !args.out.exists();
    std::fs::create_dir_all(&args.out).map_err(|e| {
        let msg = format!(
            "cannot create {}: {}",
            args.out.display(),
            super::io_reason(&e)
        );
        InputError::new("--out", "", msg)
    })?;
    let claim = crate::output::claim::claim(&args.out)
        .map_err(|e| InputError::new("--out", "", e.message(&args.out)))?;
    let res = crate::report::compare::compare(&sources, &args.labels, &args.out, &opts);
    drop(claim);
    if res.is_err() && made {
        let _ = std::fs::remove_dir(&args.out);
    }
    let w = res?;
    if !args.quiet {
        super::print_out(&w.describe(&args.out));
    }
    Ok(())
}

/// Reads an `--ns3` path: an fct.txt (its first line has ns-3's 8 fields) or
/// the config.txt of the run.
fn ns3_source(path: &Path, topology: Option<&Path>) -> Result<Ns3Source, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        InputError::new(
            "--ns3",
            path.display().to_string(),
            format!("cannot read: {e}"),
        )
    })?;
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let is_fct = crate::output::ns3::parse_fct_line(first).is_some();
    let (fct, topo_path, config) = if is_fct {
        (path.to_path_buf(), topology.map(Path::to_path_buf), None)
    } else {
        let files = crate::scenario::ns3_import::run_files(path, &text)?;
        let topo = topology.map(Path::to_path_buf).or(files.topology);
        (files.fct, topo, Some((path.to_path_buf(), text)))
    };
    let topology = topo_path
        .map(|t| crate::topology::ns3::read_topology(&t))
        .transpose()?;
    Ok(Ns3Source {
        fct,
        topology,
        config,
    })
}
