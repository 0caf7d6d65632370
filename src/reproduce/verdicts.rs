//! The verdicts as data: docs/reproduction/verdicts.json (full scale) and
//! verdicts-quick.json (scaled down), one entry per row, written beside the
//! comparison page; `reproduce --check` compares a new run's verdicts with them.

use super::{Analysis, Experiment, Verdict, all};
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictsFile {
    /// The commit the binary was built from (`git describe`-like; "+dirty" when
    /// the work tree had changes), or "unknown".
    pub commit: String,
    pub rows: Vec<VerdictRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictRow {
    pub experiment: String,
    pub row: String,
    /// "matches", "partly" or "differs".
    pub verdict: String,
    /// `§x: "quoted paper text"` explaining a difference; null for a match, and
    /// for a difference the paper's text does not explain.
    pub explanation: Option<String>,
    /// Each seed's verdict and judged value.
    pub seeds: Vec<SeedVerdict>,
    /// "full" or "quick".
    pub scale: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedVerdict {
    /// Added to every run's seed.
    pub offset: u64,
    pub verdict: String,
    pub value: Option<f64>,
}

/// The file name for a scale.
pub fn file_name(quick: bool) -> &'static str {
    if quick {
        "verdicts-quick.json"
    } else {
        "verdicts.json"
    }
}

/// Where the committed verdicts of a scale are (docs/reproduction/).
pub fn committed_path(quick: bool) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/reproduction")
        .join(file_name(quick))
}

/// The rows of one finished experiment.
pub fn rows_of(exp: &dyn Experiment, a: &Analysis, quick: bool) -> Vec<VerdictRow> {
    a.rows
        .iter()
        .map(|r| VerdictRow {
            experiment: exp.id().into(),
            row: r.metric.clone(),
            verdict: r.verdict.label().into(),
            explanation: (r.verdict != Verdict::Matches)
                .then(|| r.explanation.map(|q| q.cite()))
                .flatten(),
            seeds: r
                .seeds
                .iter()
                .map(|s| SeedVerdict {
                    offset: s.offset,
                    verdict: s.verdict.label().into(),
                    value: s.value.filter(|v| v.is_finite()),
                })
                .collect(),
            scale: if quick { "quick" } else { "full" }.into(),
        })
        .collect()
}

/// Reads a verdicts file; a missing file is `Ok(None)`.
pub fn read(path: &Path) -> Result<Option<VerdictsFile>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        InputError::in_file(
            path,
            format!("line {}", e.line()),
            format!("not a verdicts file: {e}"),
        )
        .into()
    })
}

/// Writes `path` with the rows of `done`, keeping the rows of experiments not
/// in it; rows in experiment list order.
pub fn write(path: &Path, done: &[(&dyn Experiment, Analysis)], quick: bool) -> Result<(), Error> {
    let mut rows: Vec<VerdictRow> = read(path)?.map(|f| f.rows).unwrap_or_default();
    let ran: Vec<&str> = done.iter().map(|(e, _)| e.id()).collect();
    rows.retain(|r| !ran.contains(&r.experiment.as_str()));
    for (exp, a) in done {
        rows.extend(rows_of(*exp, a, quick));
    }
    let order = |id: &str| {
        all()
            .iter()
            .position(|e| e.id() == id)
            .unwrap_or(usize::MAX)
    };
    // Stable: the rows of one experiment keep their order.
    rows.sort_by_key(|r| order(&r.experiment));
    let file = VerdictsFile {
        commit: commit(),
        rows,
    };
    let mut text = serde_json::to_string_pretty(&file)
        .map_err(|e| Error::Sim(format!("cannot serialize the verdicts: {e}")))?;
    text.push('\n');
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    AtomicFile::write_all_to(dir, &name, text.as_bytes())
}

/// The differences between `done`'s verdicts and those recorded in `path`, one
/// line each ("ppfc-fig6 / 16:1 DCQCN: peak queue: recorded matches, now
/// partly"); empty when they agree. Only the experiments in `done` are compared.
pub fn differences(
    path: &Path,
    done: &[(&dyn Experiment, Analysis)],
    quick: bool,
) -> Result<Vec<String>, Error> {
    let Some(recorded) = read(path)? else {
        let msg = format!(
            "{} does not exist (valid: a verdicts file written by `rocesim reproduce --all{} --verdicts FILE`)",
            path.display(),
            if quick { " --quick" } else { "" }
        );
        return Err(InputError::new("--check", "", msg).into());
    };
    let mut out = Vec::new();
    let scale = if quick { "quick" } else { "full" };
    for (exp, a) in done {
        let now = rows_of(*exp, a, quick);
        let then: Vec<&VerdictRow> = recorded
            .rows
            .iter()
            .filter(|r| r.experiment == exp.id())
            .collect();
        for r in &now {
            match then.iter().find(|t| t.row == r.row) {
                None => out.push(format!(
                    "{} / {}: new row ({})",
                    r.experiment, r.row, r.verdict
                )),
                Some(t) if t.scale != scale => out.push(format!(
                    "{} / {}: recorded at {} scale, now run at {scale}",
                    r.experiment, r.row, t.scale
                )),
                Some(t) if t.verdict != r.verdict => out.push(format!(
                    "{} / {}: recorded {}, now {}",
                    r.experiment, r.row, t.verdict, r.verdict
                )),
                Some(_) => {}
            }
        }
        for t in &then {
            if !now.iter().any(|r| r.row == t.row) {
                out.push(format!(
                    "{} / {}: recorded row is gone",
                    t.experiment, t.row
                ));
            }
        }
    }
    Ok(out)
}

/// The commit of the source tree this binary runs from, for the record.
pub fn commit() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(head) if !head.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{head}+dirty") } else { head }
        }
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Quote, Row};
    use super::*;

    fn analysis(v: Verdict) -> Analysis {
        let mut r = Row::new("peak queue", "p", "o", v, "w")
            .explained(Quote::new("§5.1", "1002 KB"))
            .value(2.0);
        r.seeds = vec![crate::reproduce::seeds::SeedResult {
            offset: 0,
            verdict: v,
            value: Some(2.0),
        }];
        Analysis {
            rows: vec![r],
            figures: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn the_check_reports_a_verdict_that_moved_and_nothing_when_none_did() {
        let dir = std::env::temp_dir().join(format!("rocesim-verdicts-{}", std::process::id()));
        let path = dir.join("v.json");
        let exp = all()[0];
        write(&path, &[(exp, analysis(Verdict::Matches))], true).unwrap();
        let f = read(&path).unwrap().unwrap();
        assert_eq!(f.rows.len(), 1);
        assert_eq!(f.rows[0].explanation, None, "a match needs no explanation");
        assert_eq!(f.rows[0].scale, "quick");
        assert!(
            differences(&path, &[(exp, analysis(Verdict::Matches))], true)
                .unwrap()
                .is_empty()
        );
        let d = differences(&path, &[(exp, analysis(Verdict::Partly))], true).unwrap();
        assert_eq!(d.len(), 1);
        assert!(
            d[0].ends_with("peak queue: recorded matches, now partly"),
            "{d:?}"
        );
        let d = differences(&path, &[(exp, analysis(Verdict::Matches))], false).unwrap();
        assert!(d[0].contains("recorded at quick scale"), "{d:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writing_keeps_the_rows_of_experiments_not_rerun() {
        let dir =
            std::env::temp_dir().join(format!("rocesim-verdicts-keep-{}", std::process::id()));
        let path = dir.join("v.json");
        let (a, b) = (all()[0], all()[1]);
        write(
            &path,
            &[
                (b, analysis(Verdict::Partly)),
                (a, analysis(Verdict::Matches)),
            ],
            false,
        )
        .unwrap();
        write(&path, &[(b, analysis(Verdict::Matches))], false).unwrap();
        let f = read(&path).unwrap().unwrap();
        let got: Vec<(&str, &str)> = f
            .rows
            .iter()
            .map(|r| (r.experiment.as_str(), r.verdict.as_str()))
            .collect();
        assert_eq!(got, [(a.id(), "matches"), (b.id(), "matches")]);
        assert_eq!(
            f.rows[1].explanation, None,
            "the explanation goes with the difference"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
