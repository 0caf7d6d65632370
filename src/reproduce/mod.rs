//! `rocesim reproduce`: re-runs the papers' key figures and tables and puts our
//! result beside the paper's.
//!
//! An experiment is a set of scenario files under `scenarios/paper/<id>/` (each
//! runnable on its own with `rocesim run`), a README there saying what the paper
//! shows, and an [`Experiment`] here that lists its runs (scenario + overrides,
//! full and `--quick` sizes), analyses the finished runs into the paper's figure
//! and a comparison table of paper numbers vs ours with a verdict and the reason
//! for any difference. Runs go in parallel across `--jobs` threads; each is
//! deterministic, so the results do not depend on the number of jobs.

pub mod experiments;
pub mod metrics;

use crate::error::{Error, InputError};
use crate::output::{AtomicFile, RunOutputs};
use crate::scenario::{self, Source};
use crate::sim::RunOptions;
use crate::units::Delta;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One simulation an experiment needs.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Unique within the experiment; names the run directory.
    pub name: String,
    /// Scenario file under `scenarios/paper/<id>/`.
    pub scenario: String,
    /// `key.path=value` overrides applied to it.
    pub overrides: Vec<String>,
    /// Per-flow rate trace interval (for throughput-over-time figures).
    pub trace_rates: Option<Delta>,
    /// Keep queue samples in memory for the analysis.
    pub keep_samples: bool,
}

impl RunSpec {
    pub fn new(name: impl Into<String>, scenario: impl Into<String>) -> RunSpec {
        RunSpec {
            name: name.into(),
            scenario: scenario.into(),
            overrides: Vec::new(),
            trace_rates: None,
            keep_samples: false,
        }
    }
    pub fn set(mut self, kv: impl Into<String>) -> RunSpec {
        self.overrides.push(kv.into());
        self
    }
    pub fn rates(mut self, every: Delta) -> RunSpec {
        self.trace_rates = Some(every);
        self
    }
    pub fn samples(mut self) -> RunSpec {
        self.keep_samples = true;
        self
    }
}

/// A finished run.
pub struct Finished {
    pub spec: RunSpec,
    pub out: RunOutputs,
}

/// How our number compares with the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Matches,
    Partly,
    Differs,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Matches => "matches",
            Verdict::Partly => "partly",
            Verdict::Differs => "differs",
        }
    }
    /// The overall verdict of several rows: the weakest of them.
    pub fn overall(rows: &[Row]) -> Verdict {
        if rows.iter().all(|r| r.verdict == Verdict::Matches) {
            Verdict::Matches
        } else if rows.iter().all(|r| r.verdict == Verdict::Differs) {
            Verdict::Differs
        } else {
            Verdict::Partly
        }
    }
}

/// One line of comparison.md.
#[derive(Clone, Debug)]
pub struct Row {
    pub metric: String,
    /// The paper's number or finding, as it states it.
    pub paper: String,
    pub ours: String,
    pub verdict: Verdict,
    /// Why they differ (or how the match was judged).
    pub why: String,
}

/// What the analysis of an experiment produced.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub rows: Vec<Row>,
    /// Figure stems written into the experiment's output directory.
    pub figures: Vec<String>,
    /// Free-form notes (setup differences, caveats).
    pub notes: Vec<String>,
}

pub trait Experiment: Sync {
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// Paper and figure/table, e.g. "HPCC §5.2, Fig. 9".
    fn source(&self) -> &'static str;
    /// The runs, at the paper's sizes or scaled down (`quick`).
    fn runs(&self, quick: bool) -> Vec<RunSpec>;
    /// Draws the figure(s) into `dir` and compares with the paper.
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error>;
}

/// Every experiment, in list order.
pub fn all() -> Vec<&'static dyn Experiment> {
    experiments::ALL.to_vec()
}

pub fn find(id: &str) -> Result<&'static dyn Experiment, InputError> {
    all().into_iter().find(|e| e.id() == id).ok_or_else(|| {
        let ids: Vec<&str> = all().iter().map(|e| e.id()).collect();
        InputError::new(
            "reproduce",
            "",
            format!("unknown experiment \"{id}\" (valid: {})", ids.join(", ")),
        )
    })
}

/// Where the experiments' scenario files live.
pub fn default_scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/paper")
}

/// A pool of `jobs` worker threads (at least 1) for independent runs.
pub fn thread_pool(jobs: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| Error::Sim(format!("cannot start {jobs} worker threads: {e}")))
}

/// The default `--jobs`: the number of cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Options of one `rocesim reproduce` call.
#[derive(Clone, Debug)]
pub struct ReproduceOptions {
    pub quick: bool,
    pub out: PathBuf,
    pub jobs: usize,
    pub scenarios: PathBuf,
    pub progress: bool,
}

/// Runs one experiment end to end; returns its analysis and output directory.
pub fn reproduce(exp: &dyn Experiment, o: &ReproduceOptions) -> Result<(Analysis, PathBuf), Error> {
    let dir = o.out.join(exp.id());
    let specs = exp.runs(o.quick);
    // Load everything first, so a bad file fails before any run starts (or any
    // directory is created).
    check_scenarios(exp, o.quick, &o.scenarios)?;
    let mut loaded = Vec::new();
    for spec in &specs {
        let path = o.scenarios.join(exp.id()).join(&spec.scenario);
        let cfg = scenario::to_config(&Source::File(path), &spec.overrides)?;
        loaded.push((spec.clone(), cfg));
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let pool = thread_pool(o.jobs)?;
    let results: Vec<Result<Finished, Error>> = pool.install(|| {
        loaded
            .into_par_iter()
            .map(|(spec, cfg)| {
                let opts = RunOptions {
                    trace_rates: spec.trace_rates,
                    keep_samples: spec.keep_samples,
                    ..RunOptions::default()
                };
                let run_dir = dir.join("runs").join(&spec.name);
                let started = std::time::Instant::now();
                let out = crate::run(cfg, &opts, Some(&run_dir), &mut |_, _, _| {})?;
                if o.progress {
                    eprintln!(
                        "  {}/{}: {} flows, {:.1} s",
                        exp.id(),
                        spec.name,
                        out.summary.flows_completed,
                        started.elapsed().as_secs_f64()
                    );
                }
                Ok(Finished { spec, out })
            })
            .collect()
    });
    let finished = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let analysis = exp.analyze(&finished, &dir, o.quick)?;
    let md = comparison_md(exp, &analysis, o.quick);
    AtomicFile::write_all_to(&dir, "comparison.md", md.as_bytes())?;
    Ok((analysis, dir))
}

/// comparison.md: what was run, the table, the figures, the notes.
pub fn comparison_md(exp: &dyn Experiment, a: &Analysis, quick: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}: {}\n", exp.id(), exp.title());
    let _ = writeln!(
        s,
        "Source: {}. Scale: {}. Overall: **{}**.\n",
        exp.source(),
        if quick { "quick (scaled down)" } else { "full" },
        Verdict::overall(&a.rows).label()
    );
    let _ = writeln!(s, "| metric | paper | rocesim | verdict | why |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    // A `|` inside a cell (e.g. |x1 - x2|) would split the Markdown table.
    let cell = |t: &str| t.replace('|', "\\|");
    for r in &a.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            cell(&r.metric),
            cell(&r.paper),
            cell(&r.ours),
            r.verdict.label(),
            cell(&r.why)
        );
    }
    if !a.figures.is_empty() {
        let _ = writeln!(s, "\n## Figures\n");
        for f in &a.figures {
            let _ = writeln!(s, "![{f}]({f}.svg)\n");
        }
    }
    if !a.notes.is_empty() {
        let _ = writeln!(s, "## Notes\n");
        for n in &a.notes {
            let _ = writeln!(s, "* {n}");
        }
    }
    s
}

/// The finished run called `name` (an analysis bug if absent).
pub fn run<'a>(runs: &'a [Finished], name: &str) -> &'a Finished {
    runs.iter()
        .find(|r| r.spec.name == name)
        .unwrap_or_else(|| panic!("experiment analysis asked for unknown run {name}"))
}

/// Collects finished experiments into one Markdown document (e.g.
/// docs/REPRODUCTION.md); figures (SVG) are copied to `reproduction/<id>/` beside it.
/// Experiments already in the document but not in `done` keep their sections.
pub fn write_doc(
    doc: &Path,
    done: &[(&dyn Experiment, Analysis, PathBuf, f64)],
    quick: bool,
) -> Result<(), Error> {
    let base = doc.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut sections: std::collections::BTreeMap<String, String> = read_sections(doc);
    for (exp, a, dir, secs) in done {
        let fig_dir = base.join("reproduction").join(exp.id());
        std::fs::create_dir_all(&fig_dir).map_err(|e| Error::io(&fig_dir, e))?;
        // The document links the SVGs; the PNGs stay in the run directory.
        for f in &a.figures {
            let from = dir.join(format!("{f}.svg"));
            let to = fig_dir.join(format!("{f}.svg"));
            std::fs::copy(&from, &to).map_err(|e| Error::io(&from, e))?;
        }
        // One heading level down: the experiment is a section of the document.
        let mut md: String = comparison_md(*exp, a, quick)
            .lines()
            .map(|l| {
                if l.starts_with('#') {
                    format!("#{l}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        for f in &a.figures {
            md = md.replace(
                &format!("({f}.svg)"),
                &format!("(reproduction/{}/{f}.svg)", exp.id()),
            );
        }
        let _ = writeln!(
            md,
            "\nRun time: {secs:.0} s ({}).\n",
            if quick { "--quick" } else { "full" }
        );
        sections.insert(exp.id().to_string(), md);
    }
    let mut out = format!("{DOC_MARKER}\n{DOC_HEADER}");
    let _ = writeln!(
        out,
        "| experiment | source | verdict | scale |\n|---|---|---|---|"
    );
    for e in all() {
        if let Some(sec) = sections.get(e.id()) {
            let verdict = sec
                .lines()
                .find_map(|l| l.split("Overall: **").nth(1))
                .and_then(|r| r.split("**").next())
                .unwrap_or("?");
            let scale = if sec.contains("Scale: full") {
                "full"
            } else {
                "quick"
            };
            let _ = writeln!(
                out,
                "| [{}](#{}) | {} | {verdict} | {scale} |",
                e.id(),
                e.id(),
                e.source()
            );
        } else {
            let _ = writeln!(out, "| {} | {} | not run | |", e.id(), e.source());
        }
    }
    out.push('\n');
    for e in all() {
        if let Some(sec) = sections.get(e.id()) {
            let _ = writeln!(out, "<a id=\"{}\"></a>\n", e.id());
            out.push_str(sec);
            out.push('\n');
        }
    }
    AtomicFile::write_all_to(
        &base,
        &doc.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        out.as_bytes(),
    )
}

/// Every scenario file `exp` needs is in `scenarios` (`--scenarios`).
pub fn check_scenarios(
    exp: &dyn Experiment,
    quick: bool,
    scenarios: &Path,
) -> Result<(), InputError> {
    for spec in exp.runs(quick) {
        let path = scenarios.join(exp.id()).join(&spec.scenario);
        if !path.is_file() {
            let msg = format!(
                "no scenario {} for experiment {} (valid: the directory holding the \
                 experiments' scenario folders, e.g. {})",
                path.display(),
                exp.id(),
                default_scenarios_dir().display()
            );
            return Err(InputError::new("--scenarios", "", msg));
        }
    }
    Ok(())
}

/// The line that marks a file as a reproduction document `--doc` may rewrite.
pub const DOC_MARKER: &str = "<!-- written by `rocesim reproduce --doc`: sections are replaced when experiments are re-run -->";

/// Whether `--doc FILE` may be (re)written: it does not exist yet, or it is a
/// reproduction document (it holds [`DOC_MARKER`], or begins with the title
/// documents had before the marker).
pub fn check_doc(doc: &Path, force: bool) -> Result<(), InputError> {
    if doc.is_dir() {
        let msg = format!(
            "{} is a directory (valid: a Markdown file name)",
            doc.display()
        );
        return Err(InputError::new("--doc", "", msg));
    }
    if force || !doc.exists() {
        return Ok(());
    }
    let text = std::fs::read_to_string(doc).unwrap_or_default();
    if text.lines().any(|l| l == DOC_MARKER) || text.starts_with("# Reproducing the papers\n") {
        return Ok(());
    }
    let msg = format!(
        "{} exists and is not a reproduction document (it lacks the line {DOC_MARKER:?}); \
         give a new file, or --force to overwrite it",
        doc.display()
    );
    Err(InputError::new("--doc", "", msg))
}

const DOC_HEADER: &str = "# Reproducing the papers\n\n\
Every key figure and table of the four papers, re-run with `rocesim reproduce <id>` and \
put beside the paper's numbers. Each section says whether it was a full or a `--quick` \
(scaled-down) run. Where we differ, the table says why; nothing here is tuned to match.\n\n\
Regenerate everything scaled down with `rocesim reproduce --all --quick --doc docs/REPRODUCTION.md`, \
or one section with `rocesim reproduce <id> [--quick] --doc docs/REPRODUCTION.md` (the other \
sections are kept). The scale column says which sections come from full (paper-size) runs.\n\n";

/// The existing sections of a reproduction document, by experiment id.
fn read_sections(doc: &Path) -> std::collections::BTreeMap<String, String> {
    let mut map = std::collections::BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(doc) else {
        return map;
    };
    for part in text.split("<a id=\"").skip(1) {
        if let Some((id, rest)) = part.split_once("\"></a>\n\n") {
            map.insert(id.to_string(), rest.trim_end().to_string() + "\n");
        }
    }
    map
}

/// Loads and validates every scenario of `runs` (tests: no simulation).
#[cfg(test)]
pub fn check_runs_load(id: &str, runs: &[RunSpec]) {
    assert!(!runs.is_empty());
    for r in runs {
        let path = default_scenarios_dir().join(id).join(&r.scenario);
        scenario::to_config(&Source::File(path), &r.overrides)
            .unwrap_or_else(|e| panic!("{}: {e}", r.name));
    }
}

/// [`check_runs_load`] for every run of `exp`, quick and full.
#[cfg(test)]
pub fn check_all_runs_load(exp: &dyn Experiment) {
    for quick in [true, false] {
        check_runs_load(exp.id(), &exp.runs(quick));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_inside_a_cell_does_not_split_the_comparison_table() {
        let a = Analysis {
            rows: vec![Row {
                metric: "unfairness".into(),
                paper: "large".into(),
                ours: "0.99".into(),
                verdict: Verdict::Matches,
                why: "|x1 - x2| / (x1 + x2)".into(),
            }],
            figures: vec![],
            notes: vec![],
        };
        let md = comparison_md(all()[0], &a, true);
        let row = md.lines().find(|l| l.starts_with("| unfairness")).unwrap();
        // Five cells: six unescaped bars.
        let bars = row
            .match_indices('|')
            .filter(|&(i, _)| i == 0 || &row[i - 1..i] != "\\")
            .count();
        assert_eq!(bars, 6, "{row}");
    }
}
