//! The comparison pages: each experiment's comparison.md, and the collected
//! document (docs/REPRODUCTION.md) with its summary of verdicts.

use super::{Analysis, Counts, Experiment, Verdict, all, seeds};
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// "Rows: 4 matches, 2 partly, 1 differs; 0 unexplained." (parsed back by
/// [`parse_counts`] for the document's summary).
fn counts_line(c: Counts) -> String {
    format!(
        "Rows: {} matches, {} partly, {} differs; {} unexplained.",
        c.matches, c.partly, c.differs, c.unexplained
    )
}

fn parse_counts(section: &str) -> Option<Counts> {
    let l = section.lines().find_map(|l| l.strip_prefix("Rows: "))?;
    let nums: Vec<usize> = l
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse().ok())
        .collect();
    match nums[..] {
        [matches, partly, differs, unexplained] => Some(Counts {
            matches,
            partly,
            differs,
            unexplained,
        }),
        _ => None,
    }
}

/// comparison.md: what was run, the table, the figures, the notes.
pub fn comparison_md(exp: &dyn Experiment, a: &Analysis, quick: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}: {}\n", exp.id(), exp.title());
    let n_seeds = a.rows.first().map_or(1, |r| r.seeds.len().max(1));
    let offsets: Vec<String> = seeds::offsets(n_seeds)
        .iter()
        .map(|o| format!("+{o}"))
        .collect();
    let _ = writeln!(
        s,
        "Source: {}. Scale: {}. Seeds: {n_seeds} (every run's seed {}). Overall: **{}**.\n",
        exp.source(),
        if quick { "quick (scaled down)" } else { "full" },
        offsets.join(", "),
        Verdict::overall(&a.rows).label()
    );
    let _ = writeln!(s, "{}\n", counts_line(a.counts()));
    let _ = writeln!(
        s,
        "| metric | paper | rocesim | verdict | how judged; why | the paper's explanation |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    // A `|` inside a cell (e.g. |x1 - x2|) would split the Markdown table.
    let cell = |t: &str| t.replace('|', "\\|");
    for r in &a.rows {
        let explanation = match (r.verdict, r.explanation) {
            (Verdict::Matches, _) => String::new(),
            (_, Some(q)) => cell(&q.cite()),
            (_, None) => "**unexplained**".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {explanation} |",
            cell(&r.metric),
            cell(&r.paper),
            cell(&r.ours),
            r.verdict.label(),
            cell(&r.why)
        );
    }
    if !a.figures.is_empty() {
        let _ = writeln!(s, "\n## Figures\n");
        if n_seeds > 1 {
            let _ = writeln!(s, "From the first seed (+0).\n");
        }
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

/// Collects finished experiments into one Markdown document (e.g.
/// docs/REPRODUCTION.md); figures (SVG) are copied to `reproduction/<id>/` beside it.
/// Experiments already in the document but not in `done` keep their sections.
pub fn write_doc(
    doc: &Path,
    done: &[(&dyn Experiment, Analysis, PathBuf, f64)],
    quick: bool,
) -> Result<(), Error> {
    let base = doc.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut sections = read_sections(doc);
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
            "\nRun time: {secs:.0} s ({}).",
            if quick { "--quick" } else { "full" }
        );
        sections.insert(exp.id().to_string(), md);
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| experiment | source | verdict | rows: matches / partly / differs | unexplained | scale | seeds |\n\
         |---|---|---|---|---|---|---|"
    );
    let mut total = Counts::default();
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
            let seeds = sec
                .lines()
                .find_map(|l| l.split("Seeds: ").nth(1))
                .and_then(|r| r.split(' ').next())
                .unwrap_or("?");
            let (counts, unexplained) = match parse_counts(sec) {
                Some(c) => {
                    // The headline counts the papers' rows only.
                    if super::paper_of(e.id()) != "ai" {
                        total.add(c);
                    }
                    (
                        format!("{} / {} / {}", c.matches, c.partly, c.differs),
                        c.unexplained.to_string(),
                    )
                }
                None => ("?".into(), "?".into()),
            };
            let _ = writeln!(
                table,
                "| [{}](#{}) | {} | {verdict} | {counts} | {unexplained} | {scale} | {seeds} |",
                e.id(),
                e.id(),
                e.source()
            );
        } else {
            let _ = writeln!(table, "| {} | {} | not run | | | | |", e.id(), e.source());
        }
    }
    let mut out = format!("{DOC_MARKER}\n{DOC_HEADER}");
    let share = |n: usize| 100.0 * n as f64 / total.rows().max(1) as f64;
    let _ = writeln!(
        out,
        "**{} rows of the papers: {} match ({:.0} %), {} partly, {} differ; {} not explained by the paper's text.**\n",
        total.rows(),
        total.matches,
        share(total.matches),
        total.partly,
        total.differs,
        total.unexplained
    );
    out.push_str(&table);
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
put beside the paper's numbers. Nothing here is tuned to match.\n\n\
**How rows are judged.** Each row states its rule (the thresholds the code applies) in its \
\"how judged\" column. Every experiment runs under several seeds (every run's seed moved by \
+0, +1000, +2000; the table's seeds column): a row matches only if it matches under every seed; if the seeds disagree \
it is \"partly\" and the row lists each seed's verdict. The rocesim column shows the seed whose \
judged value is the median, with the range over the seeds in brackets. A row that does not \
match quotes the sentence of the paper that explains the difference (a setting it does not \
give, a measurement window, its hardware), or is counted as **unexplained**; with several \
seeds, only if the quote holds under every seed that does not match.\n\n\
**Current by construction.** `rocesim reproduce` writes the verdicts beside this page \
(reproduction/verdicts.json at full scale, reproduction/verdicts-quick.json scaled down), and \
CI runs `rocesim reproduce --all --quick --check`, which fails when a scaled-down verdict \
changes: a change that moves a paper result regenerates the page in the same commit \
(`rocesim reproduce --all --doc docs/REPRODUCTION.md` at full scale, and \
`rocesim reproduce --all --quick --verdicts docs/reproduction/verdicts-quick.json`). \
One section is re-run with `rocesim reproduce <id> --doc docs/REPRODUCTION.md` (the other \
sections are kept); the scale column says which sections come from full (paper-size) runs.\n\n";

/// The existing sections of a reproduction document, by experiment id.
fn read_sections(doc: &Path) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
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

#[cfg(test)]
mod tests {
    use super::super::{Quote, Row};
    use super::*;

    #[test]
    fn a_bar_inside_a_cell_does_not_split_the_comparison_table() {
        let a = Analysis {
            rows: vec![Row::new(
                "unfairness",
                "large",
                "0.99",
                Verdict::Matches,
                "|x1 - x2| / (x1 + x2)",
            )],
            figures: vec![],
            notes: vec![],
        };
        let md = comparison_md(all()[0], &a, true);
        let row = md.lines().find(|l| l.starts_with("| unfairness")).unwrap();
        // Six cells: seven unescaped bars.
        let bars = row
            .match_indices('|')
            .filter(|&(i, _)| i == 0 || &row[i - 1..i] != "\\")
            .count();
        assert_eq!(bars, 7, "{row}");
    }

    #[test]
    fn rows_not_matching_quote_the_paper_or_are_counted_unexplained() {
        let a = Analysis {
            rows: vec![
                Row::new("a", "p", "o", Verdict::Partly, "w")
                    .explained(Quote::new("§5.1", "runs last 2 minutes")),
                Row::new("b", "p", "o", Verdict::Differs, "w"),
                Row::new("c", "p", "o", Verdict::Matches, "w"),
            ],
            figures: vec![],
            notes: vec![],
        };
        let md = comparison_md(all()[0], &a, false);
        assert!(md.contains("| §5.1: \"runs last 2 minutes\" |"), "{md}");
        assert!(md.contains("| **unexplained** |"), "{md}");
        let c = parse_counts(&md).unwrap();
        assert_eq!(
            c,
            Counts {
                matches: 1,
                partly: 1,
                differs: 1,
                unexplained: 1
            }
        );
    }
}
