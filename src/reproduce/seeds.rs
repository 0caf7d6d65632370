//! Robust verdicts: an experiment runs once per seed and its rows are combined.
//!
//! Seed `k` (0, 1, 2, ...) moves every run's seed by `k x` [`STEP`], so runs that
//! share a seed (the same flows under several schemes) keep sharing one, and
//! experiments that sweep seeds themselves (1..50) get disjoint sets. Seed 0 is
//! the scenarios as written. A combined row:
//! * matches (or partly matches, or differs) only if it does under every seed;
//!   if the seeds disagree it is partly, and the page lists each seed's verdict;
//! * shows the text of the seed whose judged value is the median, with the
//!   values' range over the seeds;
//! * keeps the paper's explanation of the first seed that does not match, if
//!   every seed that does not match has one (a row explained under one seed
//!   and not under another is unexplained).

use super::{Analysis, Row, Verdict};
use crate::config::RunConfig;
use crate::error::InputError;
use crate::scenario::{self, Source};
use std::path::{Path, PathBuf};

/// How far apart the seeds of one run are.
pub const STEP: u64 = 1000;

/// The default number of seeds per experiment.
pub const DEFAULT_SEEDS: usize = 3;

/// One seed's result for a row.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedResult {
    /// The offset added to every run's seed.
    pub offset: u64,
    pub verdict: Verdict,
    pub value: Option<f64>,
}

/// The seed offsets of `n` seeds.
pub fn offsets(n: usize) -> Vec<u64> {
    (0..n.max(1) as u64).map(|k| k * STEP).collect()
}

/// The scenario at `path` with `overrides`, its seed moved by `offset`.
pub fn load(path: &Path, overrides: &[String], offset: u64) -> Result<RunConfig, InputError> {
    let src = Source::File(path.to_path_buf());
    let cfg = scenario::to_config(&src, overrides)?;
    if offset == 0 {
        return Ok(cfg);
    }
    let seed = cfg.seed.checked_add(offset).ok_or_else(|| {
        InputError::new(
            path.display().to_string(),
            "seed",
            format!("{} + the seed offset {offset} overflows", cfg.seed),
        )
    })?;
    let mut with = overrides.to_vec();
    with.push(format!("seed={seed}"));
    scenario::to_config(&src, &with)
}

/// Where seed `offset`'s runs and figures go: the experiment's directory for
/// the first seed, `seed+<offset>/` inside it for the others.
pub fn dir(exp_dir: &Path, offset: u64) -> PathBuf {
    if offset == 0 {
        exp_dir.to_path_buf()
    } else {
        exp_dir.join(format!("seed+{offset}"))
    }
}

/// " (seed +1000)" in progress lines; empty for the first seed.
pub fn label(offset: u64) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(" (seed +{offset})")
    }
}

/// Combines the analyses of the seeds `offsets` (in that order) into one:
/// figures and notes from the first, rows as the module says.
pub fn combine(mut per_seed: Vec<Analysis>, offsets: &[u64]) -> Analysis {
    assert_eq!(per_seed.len(), offsets.len(), "one analysis per seed");
    let first = per_seed.remove(0);
    let rest = per_seed;
    let mut out = Analysis {
        rows: Vec::new(),
        figures: first.figures,
        notes: first.notes,
    };
    for (i, row) in first.rows.into_iter().enumerate() {
        // Rows are matched by metric; experiments emit the same rows whatever
        // the seed, so this is normally the same index.
        let mut rows = vec![Some(row)];
        for a in &rest {
            let same = a
                .rows
                .get(i)
                .filter(|r| r.metric == rows[0].as_ref().map_or("", |r| &r.metric))
                .or_else(|| {
                    a.rows
                        .iter()
                        .find(|r| Some(&r.metric) == rows[0].as_ref().map(|r| &r.metric))
                });
            rows.push(same.cloned());
        }
        out.rows.push(combine_row(rows, offsets));
    }
    out
}

fn combine_row(rows: Vec<Option<Row>>, offsets: &[u64]) -> Row {
    let seeds: Vec<SeedResult> = rows
        .iter()
        .zip(offsets)
        .map(|(r, &offset)| match r {
            Some(r) => SeedResult {
                offset,
                verdict: r.verdict,
                value: r.value,
            },
            // A row this seed did not produce: it cannot count as a match.
            None => SeedResult {
                offset,
                verdict: Verdict::Differs,
                value: None,
            },
        })
        .collect();
    let present: Vec<&Row> = rows.iter().flatten().collect();
    let verdict = if seeds.iter().all(|s| s.verdict == seeds[0].verdict) {
        seeds[0].verdict
    } else {
        Verdict::Partly
    };
    // The representative: the seed with the median value, else the first.
    let values: Vec<f64> = present.iter().filter_map(|r| r.value).collect();
    let rep = if values.len() == present.len() && !values.is_empty() {
        let mut order: Vec<usize> = (0..present.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        present[order[(order.len() - 1) / 2]]
    } else {
        present[0]
    };
    let mut row = rep.clone();
    if seeds.len() > 1 {
        row.ours.push_str(&spread_text(&seeds));
    }
    if verdict != rep.verdict || seeds.len() != present.len() {
        let each: Vec<String> = rows
            .iter()
            .zip(&seeds)
            .map(|(r, s)| {
                let v = if r.is_some() {
                    s.verdict.label()
                } else {
                    "no row"
                };
                format!("+{}: {v}", s.offset)
            })
            .collect();
        row.why
            .push_str(&format!(" Seeds disagree ({}).", each.join(", ")));
    }
    row.verdict = verdict;
    if verdict != Verdict::Matches {
        let unexplained_seed = present
            .iter()
            .any(|r| r.verdict != Verdict::Matches && r.explanation.is_none());
        row.explanation = if unexplained_seed {
            None
        } else {
            present
                .iter()
                .find(|r| r.verdict != Verdict::Matches)
                .and_then(|r| r.explanation)
        };
    }
    if verdict == Verdict::Matches {
        row.explanation = None;
    }
    row.seeds = seeds;
    row
}

/// " [3 seeds: 1.70-1.80]" or " [3 seeds: all 1.74]"; empty without values.
fn spread_text(seeds: &[SeedResult]) -> String {
    let values: Vec<f64> = seeds.iter().filter_map(|s| s.value).collect();
    if values.is_empty() {
        return format!(" [{} seeds]", seeds.len());
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if sig(lo) == sig(hi) {
        format!(" [{} seeds: all {}]", seeds.len(), sig(lo))
    } else {
        format!(" [{} seeds: {} – {}]", seeds.len(), sig(lo), sig(hi))
    }
}

/// Three significant digits, no exponent for everyday magnitudes.
pub fn sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(metric: &str, v: Verdict, value: f64, ours: &str) -> Row {
        Row::new(metric, "p", ours, v, "rule").value(value)
    }

    fn analysis(rows: Vec<Row>) -> Analysis {
        Analysis {
            rows,
            figures: vec!["f".into()],
            notes: vec![],
        }
    }

    #[test]
    fn a_row_matches_only_if_every_seed_matches() {
        let a = combine(
            vec![
                analysis(vec![row("m", Verdict::Matches, 1.0, "one")]),
                analysis(vec![row("m", Verdict::Matches, 3.0, "three")]),
                analysis(vec![row("m", Verdict::Matches, 2.0, "two")]),
            ],
            &offsets(3),
        );
        let r = &a.rows[0];
        assert_eq!(r.verdict, Verdict::Matches);
        assert_eq!(r.ours, "two [3 seeds: 1.00 – 3.00]", "median seed's text");
        assert_eq!(r.seeds.len(), 3);
        assert_eq!(a.figures, ["f"]);
    }

    #[test]
    fn seeds_that_disagree_make_the_row_partly_and_say_so() {
        let a = combine(
            vec![
                analysis(vec![row("m", Verdict::Matches, 2.0, "a")]),
                analysis(vec![
                    row("m", Verdict::Differs, 1.0, "b")
                        .explained(super::super::Quote::new("§1", "because")),
                ]),
            ],
            &offsets(2),
        );
        let r = &a.rows[0];
        assert_eq!(r.verdict, Verdict::Partly);
        assert!(r.why.contains("+0: matches, +1000: differs"), "{}", r.why);
        assert_eq!(r.explanation.unwrap().text, "because");
        assert!(!r.unexplained());
    }

    #[test]
    fn a_row_explained_under_one_seed_only_is_unexplained() {
        let because = super::super::Quote::new("§1", "because");
        let a = combine(
            vec![
                analysis(vec![row("m", Verdict::Partly, 2.0, "a").explained(because)]),
                analysis(vec![row("m", Verdict::Partly, 1.0, "b")]),
                analysis(vec![row("m", Verdict::Partly, 3.0, "c").explained(because)]),
            ],
            &offsets(3),
        );
        assert!(a.rows[0].explanation.is_none());
        assert!(a.rows[0].unexplained());
    }

    #[test]
    fn a_row_missing_under_one_seed_cannot_match() {
        let a = combine(
            vec![
                analysis(vec![row("m", Verdict::Matches, 2.0, "a")]),
                analysis(vec![]),
            ],
            &offsets(2),
        );
        assert_eq!(a.rows[0].verdict, Verdict::Partly);
        assert!(a.rows[0].why.contains("+1000: no row"), "{}", a.rows[0].why);
        assert!(a.rows[0].unexplained());
    }

    #[test]
    fn seed_offsets_step_by_a_thousand_from_the_scenarios_own() {
        assert_eq!(offsets(3), [0, 1000, 2000]);
        assert_eq!(offsets(0), [0], "at least one seed");
        assert_eq!(sig(1234.6), "1235");
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(2.0), "2.00");
    }
}
