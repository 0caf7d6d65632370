//! `rocesim reproduce`: re-run a paper's figure or table and compare.

use crate::error::{Error, InputError};
use crate::reproduce::{self, ReproduceOptions, Verdict};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment id (see --list).
    pub id: Option<String>,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// Scaled-down version (minutes, not hours).
    #[arg(long)]
    pub quick: bool,
    /// Output directory (default: runs/reproduce).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Runs in parallel (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Directory holding the experiments' scenario files.
    #[arg(long)]
    pub scenarios: Option<PathBuf>,
    /// Run every experiment.
    #[arg(long, conflicts_with = "id")]
    pub all: bool,
    /// Also collect the comparisons and figures into this Markdown file (its
    /// figures go to a `reproduction/` folder beside it), e.g. docs/REPRODUCTION.md.
    #[arg(long)]
    pub doc: Option<PathBuf>,
    /// Overwrite --doc FILE even if it is not a reproduction document.
    #[arg(long)]
    pub force: bool,
}

pub fn reproduce(a: &ReproduceArgs) -> Result<(), Error> {
    if a.list || (a.id.is_none() && !a.all) {
        outln!("{:<18} {:<22} title", "id", "source");
        for e in reproduce::all() {
            outln!("{:<18} {:<22} {}", e.id(), e.source(), e.title());
        }
        if !a.list {
            outln!("\nrun one with: rocesim reproduce <id> [--quick]");
        }
        return Ok(());
    }
    if a.jobs == Some(0) {
        return Err(InputError::new("--jobs", "", "must be at least 1").into());
    }
    if let Some(doc) = &a.doc {
        reproduce::check_doc(doc, a.force)?;
    }
    if let Some(s) = &a.scenarios
        && !s.is_dir()
    {
        let msg = format!(
            "{} is not a directory (valid: the directory holding the experiments' scenario \
             folders, e.g. {})",
            s.display(),
            reproduce::default_scenarios_dir().display()
        );
        return Err(InputError::new("--scenarios", "", msg).into());
    }
    let exps = match &a.id {
        Some(id) => vec![reproduce::find(id)?],
        None => reproduce::all(),
    };
    let opts = ReproduceOptions {
        quick: a.quick,
        out: a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("runs/reproduce")),
        jobs: a.jobs.unwrap_or_else(reproduce::default_jobs),
        scenarios: a
            .scenarios
            .clone()
            .unwrap_or_else(reproduce::default_scenarios_dir),
        progress: true,
    };
    // Every experiment's files first: a missing one fails before anything runs.
    for exp in &exps {
        reproduce::check_scenarios(*exp, a.quick, &opts.scenarios)?;
    }
    let mut done = Vec::new();
    for exp in exps {
        let id = exp.id();
        eprintln!(
            "{}: {} runs{}",
            id,
            exp.runs(a.quick).len(),
            if a.quick { " (quick)" } else { "" }
        );
        let started = std::time::Instant::now();
        let (analysis, dir) = reproduce::reproduce(exp, &opts)?;
        for r in &analysis.rows {
            outln!(
                "  [{:<7}] {}: paper {} | ours {}",
                r.verdict.label(),
                r.metric,
                r.paper,
                r.ours
            );
        }
        outln!(
            "{id}: {} in {:.0} s -> {}",
            Verdict::overall(&analysis.rows).label(),
            started.elapsed().as_secs_f64(),
            dir.join("comparison.md").display()
        );
        done.push((exp, analysis, dir, started.elapsed().as_secs_f64()));
    }
    if let Some(doc) = &a.doc {
        reproduce::write_doc(doc, &done, a.quick)?;
        outln!("wrote {}", doc.display());
    }
    Ok(())
}
