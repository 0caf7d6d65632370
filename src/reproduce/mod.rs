//! `rocesim reproduce`: re-runs the papers' key figures and tables and puts our
//! result beside the paper's.
//!
//! An experiment is a set of scenario files under `scenarios/paper/<id>/` (each
//! runnable on its own with `rocesim run`), a README there saying what the paper
//! shows, and an [`Experiment`] here that lists its runs (scenario + overrides,
//! full and `--quick` sizes), analyses the finished runs into the paper's figure
//! and a comparison table of paper numbers vs ours with a verdict per row.
//!
//! Every experiment is run once per seed (`--seeds`, default 3; [`seeds`]): the
//! same runs with every run's seed moved by the same offset, so runs that share
//! flows keep sharing them. Each seed is analysed on its own and the rows are
//! combined: a row matches only if it matches under every seed, and a row whose
//! verdict changes between seeds is "partly" with the spread shown. A row that
//! does not match quotes the paper's sentence that explains the difference
//! ([`Quote`]) or is counted as unexplained. Runs go in parallel across `--jobs`
//! threads; each is deterministic, so the results do not depend on the number of
//! jobs. [`doc`] writes the comparison pages, [`verdicts`] the machine-readable
//! verdicts that `--check` holds a new build to.

pub mod doc;
pub mod experiments;
pub mod metrics;
pub mod quotes;
pub mod rule;
pub mod seeds;
pub mod verdicts;

use crate::error::{Error, InputError};
use crate::output::{AtomicFile, RunOutputs};
#[cfg(test)]
use crate::scenario::{self, Source};
use crate::sim::RunOptions;
use crate::units::Delta;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

pub use rule::Rule;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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
    pub fn from_label(s: &str) -> Option<Verdict> {
        [Verdict::Matches, Verdict::Partly, Verdict::Differs]
            .into_iter()
            .find(|v| v.label() == s)
    }
    /// The overall verdict of several rows: matches if all match, differs if all
    /// differ, else partly.
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

/// The paper's own words that account for a difference between its result and
/// ours: a sentence stating a setting we cannot or do not copy, a measurement
/// window, hardware behaviour. Quoted verbatim (a test checks the text is in the
/// paper when ../shared/papers is present), with the section it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quote {
    /// e.g. "§5.1" or "§V-B3".
    pub section: &'static str,
    pub text: &'static str,
}

impl Quote {
    pub const fn new(section: &'static str, text: &'static str) -> Quote {
        Quote { section, text }
    }
    /// `§5.1: "text"`.
    pub fn cite(&self) -> String {
        format!("{}: \"{}\"", self.section, self.text)
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
    /// How the match was judged (the rule and its tolerance) and, where we
    /// differ, why.
    pub why: String,
    /// The number the verdict turns on (a ratio, a percentage, a count), shown
    /// with its range over the seeds; `None` when the verdict combines several.
    pub value: Option<f64>,
    /// The paper's sentence that explains a difference (needed unless the row
    /// matches; without one the row counts as unexplained).
    pub explanation: Option<Quote>,
    /// Per seed, filled in when the seeds' rows are combined ([`seeds`]).
    pub seeds: Vec<seeds::SeedResult>,
}

impl Row {
    /// A row with no value and no explanation.
    pub fn new(
        metric: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        verdict: Verdict,
        why: impl Into<String>,
    ) -> Row {
        Row {
            metric: metric.into(),
            paper: paper.into(),
            ours: ours.into(),
            verdict,
            why: why.into(),
            value: None,
            explanation: None,
            seeds: Vec::new(),
        }
    }
    /// A row judged by `rule` on `value`; `why` is the rule's own statement
    /// followed by `reason` (if not empty), so the page says what the code does.
    pub fn judged(
        metric: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        value: f64,
        rule: &Rule,
        reason: &str,
    ) -> Row {
        let mut why = rule.describe();
        if !reason.is_empty() {
            why.push_str(". ");
            why.push_str(reason);
        }
        let mut r = Row::new(metric, paper, ours, rule.judge(value), why);
        r.value = Some(value);
        r
    }
    /// The number the verdict turns on.
    pub fn value(mut self, v: f64) -> Row {
        self.value = Some(v);
        self
    }
    /// The paper's sentence that explains a difference.
    pub fn explained(mut self, q: Quote) -> Row {
        self.explanation = Some(q);
        self
    }
    /// Not a match, and no quote from the paper says why.
    pub fn unexplained(&self) -> bool {
        self.verdict != Verdict::Matches && self.explanation.is_none()
    }
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

impl Analysis {
    /// Rows that match, partly match and differ, and rows not matching that no
    /// quote from the paper explains.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for r in &self.rows {
            match r.verdict {
                Verdict::Matches => c.matches += 1,
                Verdict::Partly => c.partly += 1,
                Verdict::Differs => c.differs += 1,
            }
            if r.unexplained() {
                c.unexplained += 1;
            }
        }
        c
    }
}

/// Row counts by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub matches: usize,
    pub partly: usize,
    pub differs: usize,
    pub unexplained: usize,
}

impl Counts {
    pub fn rows(&self) -> usize {
        self.matches + self.partly + self.differs
    }
    pub fn add(&mut self, o: Counts) {
        self.matches += o.matches;
        self.partly += o.partly;
        self.differs += o.differs;
        self.unexplained += o.unexplained;
    }
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

/// The paper an experiment reproduces, from its id: "hpcc", "dcqcn", "rcc" or "ppfc".
pub fn paper_of(id: &str) -> &str {
    id.split('-').next().unwrap_or(id)
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
    /// How many seeds each experiment runs with (at least 1).
    pub seeds: usize,
}

/// Runs one experiment end to end under every seed; returns its combined
/// analysis (figures from the first seed) and output directory.
pub fn reproduce(exp: &dyn Experiment, o: &ReproduceOptions) -> Result<(Analysis, PathBuf), Error> {
    let dir = o.out.join(exp.id());
    let specs = exp.runs(o.quick);
    let offsets = seeds::offsets(o.seeds);
    // Load everything first, so a bad file fails before any run starts (or any
    // directory is created).
    check_scenarios(exp, o.quick, &o.scenarios)?;
    let mut loaded = Vec::new();
    for &offset in &offsets {
        let mut one = Vec::new();
        for spec in &specs {
            let path = o.scenarios.join(exp.id()).join(&spec.scenario);
            one.push((spec.clone(), seeds::load(&path, &spec.overrides, offset)?));
        }
        loaded.push(one);
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let pool = thread_pool(o.jobs)?;
    let mut per_seed = Vec::new();
    // One seed at a time: an experiment's runs of one seed are in memory together.
    for (&offset, runs) in offsets.iter().zip(loaded) {
        let seed_dir = seeds::dir(&dir, offset);
        std::fs::create_dir_all(&seed_dir).map_err(|e| Error::io(&seed_dir, e))?;
        let results: Vec<Result<Finished, Error>> = pool.install(|| {
            runs.into_par_iter()
                .map(|(spec, cfg)| {
                    let run_dir = seed_dir.join("runs").join(&spec.name);
                    // A previous reproduction's files go when this run's
                    // arrive: none is left beside them (e.g. a recorder
                    // this run no longer has).
                    let opts = RunOptions {
                        trace_rates: spec.trace_rates,
                        keep_samples: spec.keep_samples,
                        replace: crate::output::previous_run_files(&run_dir),
                        ..RunOptions::default()
                    };
                    let started = std::time::Instant::now();
                    let out = crate::run(cfg, &opts, Some(&run_dir), &mut |_| {})?;
                    if o.progress {
                        eprintln!(
                            "  {}/{}{}: {} flows, {:.1} s",
                            exp.id(),
                            spec.name,
                            seeds::label(offset),
                            out.summary.flows_completed,
                            started.elapsed().as_secs_f64()
                        );
                    }
                    Ok(Finished { spec, out })
                })
                .collect()
        });
        let finished = results.into_iter().collect::<Result<Vec<_>, _>>()?;
        per_seed.push(exp.analyze(&finished, &seed_dir, o.quick)?);
    }
    let analysis = seeds::combine(per_seed, &offsets);
    let md = doc::comparison_md(exp, &analysis, o.quick);
    AtomicFile::write_all_to(&dir, "comparison.md", md.as_bytes())?;
    Ok((analysis, dir))
}

/// The finished run called `name` (an analysis bug if absent).
pub fn run<'a>(runs: &'a [Finished], name: &str) -> &'a Finished {
    runs.iter()
        .find(|r| r.spec.name == name)
        .unwrap_or_else(|| panic!("experiment analysis asked for unknown run {name}"))
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
