//! `rocesim reproduce`: re-run a paper's figure or table and compare.

use crate::error::{Error, InputError};
use crate::reproduce::{self, ReproduceOptions, Verdict, verdicts};
use std::path::{Path, PathBuf};

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
    /// Seeds per experiment: every run's seed moved by +0, +1000, ...; a row
    /// matches only if it matches under every seed.
    #[arg(long, default_value_t = crate::reproduce::seeds::DEFAULT_SEEDS)]
    pub seeds: usize,
    /// Write the verdicts (JSON) to this file, e.g.
    /// docs/reproduction/verdicts-quick.json; --doc writes them beside the page.
    #[arg(long)]
    pub verdicts: Option<PathBuf>,
    /// Fail (exit 1) when a verdict differs from the recorded ones: those in
    /// FILE, by default docs/reproduction/verdicts-quick.json (with --quick) or
    /// verdicts.json.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub check: Option<Option<PathBuf>>,
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
    if a.seeds == 0 {
        return Err(InputError::new("--seeds", "", "must be at least 1, e.g. 3").into());
    }
    let check = a.check.as_ref().map(|f| {
        f.clone()
            .unwrap_or_else(|| verdicts::committed_path(a.quick))
    });
    if let Some(c) = &check
        && !c.is_file()
    {
        let msg = format!(
            "{} is not a file (valid: a verdicts file written by `rocesim reproduce --all{} --verdicts FILE`)",
            c.display(),
            if a.quick { " --quick" } else { "" }
        );
        return Err(InputError::new("--check", "", msg).into());
    }
    if let Some(v) = &a.verdicts
        && v.is_dir()
    {
        let msg = format!("{} is a directory (valid: a JSON file name)", v.display());
        return Err(InputError::new("--verdicts", "", msg).into());
    }
    if let Some(doc) = &a.doc {
        reproduce::doc::check_doc(doc, a.force)?;
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
        seeds: a.seeds,
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
    let judged: Vec<_> = done.iter().map(|(e, an, _, _)| (*e, an.clone())).collect();
    if let Some(doc) = &a.doc {
        reproduce::doc::write_doc(doc, &done, a.quick)?;
        outln!("wrote {}", doc.display());
        let beside = doc
            .parent()
            .unwrap_or(Path::new("."))
            .join("reproduction")
            .join(verdicts::file_name(a.quick));
        verdicts::write(&beside, &judged, a.quick)?;
        outln!("wrote {}", beside.display());
    }
    if let Some(v) = &a.verdicts {
        verdicts::write(v, &judged, a.quick)?;
        outln!("wrote {}", v.display());
    }
    let mut total = reproduce::Counts::default();
    for (_, an) in &judged {
        total.add(an.counts());
    }
    outln!(
        "{} rows: {} match, {} partly, {} differ; {} unexplained",
        total.rows(),
        total.matches,
        total.partly,
        total.differs,
        total.unexplained
    );
    if let Some(c) = &check {
        let diffs = verdicts::differences(c, &judged, a.quick)?;
        if !diffs.is_empty() {
            for d in &diffs {
                eprintln!("  {d}");
            }
            return Err(Error::Check(format!(
                "{} verdict(s) differ from {}: a change moved a paper result; regenerate the \
                 page and the verdicts in the same commit (docs/REPRODUCTION.md says how)",
                diffs.len(),
                c.display()
            )));
        }
        outln!("verdicts agree with {}", c.display());
    }
    Ok(())
}
