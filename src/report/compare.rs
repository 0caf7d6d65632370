//! `rocesim compare`: the report's figures with one series per run, and the
//! headline numbers side by side with their relative differences to the first run.

use super::data::{self, RunData};
use super::figures::{self, Fig};
use super::html::{self, esc};
use super::{ReportOptions, Written, draw_all, fmt_value, headlines, text_table, write_all};
use crate::error::{Error, InputError};
use std::path::{Path, PathBuf};

/// Parses `--label name=dir` flags against the run directories: each must name
/// one of them. Returns one label per directory (its own name when unlabelled;
/// duplicates get `#2`, `#3`...).
pub fn labels(dirs: &[PathBuf], flags: &[String]) -> Result<Vec<String>, InputError> {
    let key = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let keys: Vec<PathBuf> = dirs.iter().map(|d| key(d)).collect();
    let mut out: Vec<Option<String>> = vec![None; dirs.len()];
    for f in flags {
        let flag = format!("--label {f}");
        let Some((name, dir)) = f.split_once('=') else {
            return Err(InputError::new(
                flag,
                "",
                "expected name=dir, e.g. --label hpcc=runs/a",
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(InputError::new(flag, "", "the name before '=' is empty"));
        }
        let k = key(Path::new(dir.trim()));
        let Some(i) = keys.iter().position(|x| *x == k) else {
            let valid: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            return Err(InputError::new(
                flag,
                "",
                format!(
                    "{} is not one of the run directories compared (valid: {})",
                    dir.trim(),
                    valid.join(", ")
                ),
            ));
        };
        if out[i].is_some() {
            return Err(InputError::new(
                flag,
                "",
                format!("{} is labelled twice", dir.trim()),
            ));
        }
        out[i] = Some(name.to_string());
    }
    let mut labels: Vec<String> = out
        .into_iter()
        .zip(dirs)
        .map(|(l, d)| {
            l.unwrap_or_else(|| {
                d.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| d.display().to_string())
            })
        })
        .collect();
    for i in 1..labels.len() {
        let base = labels[i].clone();
        let mut k = 2;
        while labels[..i].contains(&labels[i]) {
            labels[i] = format!("{base}#{k}");
            k += 1;
        }
    }
    Ok(labels)
}

/// Relative difference of `v` to `base`, as text.
pub fn relative(v: Option<f64>, base: Option<f64>) -> String {
    match (v, base) {
        (Some(v), Some(b)) if b != 0.0 => format!("{:+.1}%", (v - b) / b.abs() * 100.0),
        (Some(0.0), Some(_)) => "=".into(),
        (Some(_), Some(_)) => "n/a (base 0)".into(),
        _ => "—".into(),
    }
}

/// The headline table: one row per metric, per run its value and (after the
/// first run) the difference relative to the first.
pub fn headline_table(runs: &[RunData]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["metric".to_string()];
    for (i, r) in runs.iter().enumerate() {
        header.push(r.label.clone());
        if i > 0 {
            header.push(format!("vs {}", runs[0].label));
        }
    }
    let all: Vec<_> = runs.iter().map(headlines).collect();
    let rows = (0..all[0].len())
        .map(|m| {
            let mut row = vec![all[0][m].name.to_string()];
            for (i, h) in all.iter().enumerate() {
                row.push(fmt_value(h[m].value, h[m].decimals));
                if i > 0 {
                    row.push(relative(h[m].value, all[0][m].value));
                }
            }
            row
        })
        .collect();
    (header, rows)
}

/// `rocesim compare RUN_DIR... --out DIR`: compare.html and figures in `out`.
pub fn compare(
    dirs: &[PathBuf],
    label_flags: &[String],
    out: &Path,
    opts: &ReportOptions,
) -> Result<Written, Error> {
    if dirs.len() < 2 {
        return Err(
            InputError::new("RUN_DIR", "", "compare needs at least two run directories").into(),
        );
    }
    let labels = labels(dirs, label_flags)?;
    let runs = dirs
        .iter()
        .zip(labels)
        .map(|(d, l)| data::load_run(d, l))
        .collect::<Result<Vec<_>, _>>()?;
    if out.exists() && !out.is_dir() {
        return Err(InputError::new(
            "--out",
            "",
            format!("{} exists and is not a directory", out.display()),
        )
        .into());
    }
    let refs: Vec<&RunData> = runs.iter().collect();
    let mut figs: Vec<Fig> = [50, 95, 99]
        .iter()
        .map(|&p| figures::fct_slowdown(&refs, opts.step, opts.dport, Some(p)))
        .collect();
    figs.extend([
        figures::queue_cdf(&refs),
        figures::pfc_count(&refs),
        figures::pfc_ports(&refs),
        figures::fairness(&refs),
    ]);
    for (i, r) in runs.iter().enumerate() {
        let f = figures::flow_throughput(r, &format!("flow_throughput_{}", i + 1));
        if f.figure.is_some() {
            figs.push(f);
        }
    }
    figs.extend([figures::latency_cdf(&refs), figures::link_util(&refs)]);
    let drawn = draw_all(&figs, out)?;
    let (hh, hr) = headline_table(&runs);
    let mut text = format!("headline numbers (relative to {})\n", runs[0].label);
    text += &text_table(&hh, &hr);
    let mut sections = Vec::new();
    for r in &runs {
        let (bh, br) = super::bucket_table(r, opts);
        text += &format!(
            "\n{}: FCT slowdown by flow size\n{}",
            r.label,
            text_table(&bh, &br)
        );
        sections.push((r.label.clone(), bh, br));
    }
    let mut b = String::from("<h2>Runs</h2>\n");
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| vec![r.label.clone(), r.dir.display().to_string()])
        .collect();
    b += &html::table(&["label".into(), "run directory".into()], &rows);
    b += &format!(
        "<h2>Headline numbers</h2>\n<p class=\"note\">Relative differences are to the first run, {}.</p>\n",
        esc(&runs[0].label)
    );
    b += &html::table(&hh, &hr);
    b += "<h2>Figures</h2>\n";
    for (f, d) in figs.iter().zip(&drawn) {
        b += &html::figure(f, d.as_ref().map(|d| d.svg.as_str()));
    }
    b += &format!(
        "<h2>FCT slowdown by flow size</h2>\n<p class=\"note\">Buckets of {}% of each run's flows by size{}.</p>\n",
        opts.step,
        opts.dport
            .map(|d| format!(", flows to dport {d}"))
            .unwrap_or_default()
    );
    for (label, bh, br) in &sections {
        b += &format!("<h3>{}</h3>\n", esc(label));
        b += &html::table(bh, br);
    }
    b += "<h2>Scenarios</h2>\n";
    for r in &runs {
        b += &format!("<h3>{}</h3>\n", esc(&r.label));
        match &r.scenario {
            Some(s) => b += &format!("<pre>{}</pre>\n", esc(s)),
            None => b += "<p class=\"missing\">No scenario.toml in the run directory.</p>\n",
        }
    }
    let names: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
    let page = html::page(&format!("rocesim compare: {}", names.join(" vs ")), &b);
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let (html, figures) = write_all(out, "compare.html", &figs, &drawn, &page)?;
    Ok(Written {
        html,
        figures,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_given_directories_and_unknown_ones_are_errors() {
        let dirs = vec![
            PathBuf::from("/nonexistent/a"),
            PathBuf::from("/nonexistent/a2/a"),
        ];
        let l = labels(&dirs, &["hpcc=/nonexistent/a2/a".into()]).unwrap();
        assert_eq!(l, ["a", "hpcc"]);
        let l = labels(&dirs, &[]).unwrap();
        assert_eq!(l, ["a", "a#2"]);
        let e = labels(&dirs, &["x=/elsewhere".into()]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--label x=/elsewhere: /elsewhere is not one of"),
            "{e}"
        );
        assert!(labels(&dirs, &["nolabel".into()]).is_err());
    }

    #[test]
    fn relative_differences_are_to_the_base() {
        assert_eq!(relative(Some(1.5), Some(1.0)), "+50.0%");
        assert_eq!(relative(Some(0.5), Some(1.0)), "-50.0%");
        assert_eq!(relative(Some(0.0), Some(0.0)), "=");
        assert_eq!(relative(None, Some(1.0)), "—");
    }
}
