//! `rocesim compare`: the report's figures with one series per run, and the
//! headline numbers side by side with their relative differences to the first run.

use super::agreement::{self, Agreement};
use super::data::{self, RunData};
use super::figures::{self, Fig};
use super::html::{self, esc};
use super::ns3_series::{self, Ns3Source};
use super::{ReportOptions, Written, draw_all, fmt_value, headlines, text_table, write_all};
use crate::error::{Error, InputError};
use std::path::{Path, PathBuf};

/// Parses `--label name=dir` flags against the run directories: each must name
/// one of them. Returns one label per directory (its own name when unlabelled;
/// duplicates get `#2`, `#3`...).
pub fn labels(dirs: &[PathBuf], flags: &[String]) -> Result<Vec<String>, InputError> {
    labels_with_defaults(dirs, &vec![None; dirs.len()], flags)
}

/// [`labels`] with a default name per path (`None`: the path's last component).
fn labels_with_defaults(
    dirs: &[PathBuf],
    defaults: &[Option<&str>],
    flags: &[String],
) -> Result<Vec<String>, InputError> {
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
                    "{} is not one of the run directories or --ns3 outputs compared (valid: {})",
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
        .zip(defaults)
        .map(|((l, d), def)| {
            l.or(def.map(str::to_string)).unwrap_or_else(|| {
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

/// The headline table: one row per metric, per run its value and (for every
/// run but `runs[base]`) the difference relative to `runs[base]`: the first
/// run, or the ns-3 reference, so that the sign agrees with the agreement table.
pub fn headline_table(runs: &[RunData], base: usize) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["metric".to_string()];
    for (i, r) in runs.iter().enumerate() {
        header.push(r.label.clone());
        if i != base {
            header.push(format!("vs {}", runs[base].label));
        }
    }
    let all: Vec<_> = runs.iter().map(headlines).collect();
    let rows = (0..all[0].len())
        .map(|m| {
            let mut row = vec![all[0][m].name.to_string()];
            for (i, h) in all.iter().enumerate() {
                row.push(fmt_value(h[m].value, h[m].decimals));
                if i != base {
                    row.push(relative(h[m].value, all[base][m].value));
                }
            }
            row
        })
        .collect();
    (header, rows)
}

/// One series of a comparison.
#[derive(Clone, Debug)]
pub enum Source {
    /// A rocesim run directory.
    Run(PathBuf),
    /// The HPCC ns-3 simulator's output; `given` is the path the user named
    /// (config.txt or fct.txt), which `--label` refers to.
    Ns3 { given: PathBuf, src: Ns3Source },
}

impl Source {
    fn path(&self) -> &Path {
        match self {
            Source::Run(d) => d,
            Source::Ns3 { given, .. } => given,
        }
    }
}

/// `rocesim compare`: compare.html and figures in `out`. With an ns-3 series,
/// also the flow-by-flow agreement of every rocesim run with the first of them
/// (agreement.csv, tables and two figures per run).
pub fn compare(
    sources: &[Source],
    label_flags: &[String],
    out: &Path,
    opts: &ReportOptions,
) -> Result<Written, Error> {
    if sources.len() < 2 {
        return Err(InputError::new(
            "RUN_DIR",
            "",
            "compare needs at least two series (run directories or --ns3 outputs)",
        )
        .into());
    }
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path().to_path_buf()).collect();
    let defaults: Vec<Option<&str>> = sources
        .iter()
        .map(|s| matches!(s, Source::Ns3 { .. }).then_some("ns-3"))
        .collect();
    let labels = labels_with_defaults(&paths, &defaults, label_flags)?;
    let runs = sources
        .iter()
        .zip(labels)
        .map(|(s, l)| match s {
            Source::Run(d) => data::load_run(d, l),
            Source::Ns3 { src, .. } => ns3_series::load(src, l),
        })
        .collect::<Result<Vec<_>, _>>()?;
    // --dport must select flows of some series (of each, its figure is empty).
    if let Some(d) = opts.dport
        && !runs
            .iter()
            .any(|r| r.fct.iter().any(|f| f.dport == Some(d)))
    {
        let ports: std::collections::BTreeSet<u16> = runs
            .iter()
            .flat_map(|r| r.fct.iter().filter_map(|f| f.dport))
            .collect();
        let valid = match ports.is_empty() {
            true => "none: no series has flows with a destination port".to_string(),
            false => ports
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        };
        let msg = format!("no completed flow of any series goes to port {d} (valid: {valid})");
        return Err(InputError::new("--dport", "", msg).into());
    }
    let reference = sources.iter().position(|s| matches!(s, Source::Ns3 { .. }));
    let agreements: Vec<Agreement> = match reference {
        None => Vec::new(),
        Some(r) => sources
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Source::Run(_)))
            .map(|(i, _)| Agreement::of(&runs[i], &runs[r]))
            .collect(),
    };
    InputError::check_out_dir(out)?;
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
    for (i, a) in agreements.iter().enumerate() {
        figs.push(agreement::bucket_figure(a, &format!("agreement_{}", i + 1)));
        figs.push(agreement::scatter_figure(
            a,
            &format!("fct_scatter_{}", i + 1),
        ));
    }
    for (i, r) in runs.iter().enumerate() {
        let f = figures::flow_throughput(r, &format!("flow_throughput_{}", i + 1));
        if f.figure.is_some() {
            figs.push(f);
        }
    }
    figs.extend([figures::latency_cdf(&refs), figures::link_util(&refs)]);
    let drawn = draw_all(&figs, out)?;
    let base = reference.unwrap_or(0);
    let (hh, hr) = headline_table(&runs, base);
    let mut text = format!("headline numbers (relative to {})\n", runs[base].label);
    text += &text_table(&hh, &hr);
    let mut agree_html = String::new();
    for a in &agreements {
        let (h, r) = a.table();
        let (dh, dr) = agreement::most_different_table(a, 20);
        text += &format!(
            "\n{}\nFCT slowdown by flow size, matched flows\n{}\nflows that differ most\n{}",
            a.verdict(),
            text_table(&h, &r),
            text_table(&dh, &dr)
        );
        agree_html += &format!(
            "<h3>{} vs {}</h3>\n<p>{}</p>\n",
            esc(&a.ours),
            esc(&a.reference),
            esc(&a.verdict())
        );
        agree_html += &html::table(&h, &r);
        agree_html += "<p class=\"note\">The flows that differ most (FCT ratio either way):</p>\n";
        agree_html += &html::table(&dh, &dr);
    }
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
        "<h2>Headline numbers</h2>\n<p class=\"note\">Relative differences are to {}.</p>\n",
        esc(&match reference {
            Some(_) => format!("the ns-3 reference, {}", runs[base].label),
            None => format!("the first run, {}", runs[base].label),
        })
    );
    b += &html::table(&hh, &hr);
    if !agreements.is_empty() {
        b += &format!(
            "<h2>Agreement flow by flow</h2>\n<p class=\"note\">Flows matched one to one by \
             (source, destination, destination port, size) in start order. Buckets close at \
             the 50/80/90/95/99/100th percentile of flow size; differences are relative to \
             {}; only buckets of at least {} flows count toward the worst difference \
             (agreement.csv has every number).</p>\n",
            esc(&agreements[0].reference),
            agreement::MIN_COUNTED
        );
        b += &agree_html;
    }
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
    if !agreements.is_empty() {
        let csv: String = agreements
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let c = a.csv();
                if i == 0 {
                    c
                } else {
                    c.lines().skip(1).map(|l| format!("{l}\n")).collect()
                }
            })
            .collect();
        crate::output::AtomicFile::write_all_to(out, "agreement.csv", csv.as_bytes())?;
    }
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
    fn with_an_ns3_reference_the_headline_is_relative_to_it_as_the_agreement_is() {
        // Issue 42 item 17: one sign in both tables (ours relative to ns-3).
        let run = |label: &str, p50: f64| RunData {
            dir: PathBuf::from(label),
            label: label.into(),
            summary: data::OrderedJson(vec![("slowdown_p50".into(), p50.into())]),
            fct: Vec::new(),
            pfc: None,
            queue_hist: None,
            latency_hist: None,
            flow_rates: None,
            link_util: None,
            collectives: None,
            steps: None,
            scenario: None,
            extra_files: Vec::new(),
            pfc_diagnostics: None,
        };
        let runs = [run("ours", 1.1), run("ns-3", 1.0)];
        let (header, rows) = headline_table(&runs, 1);
        assert_eq!(header, ["metric", "ours", "vs ns-3", "ns-3"]);
        let p50 = rows.iter().find(|r| r[0] == "FCT slowdown p50").unwrap();
        assert_eq!(p50[1..], ["1.100", "+10.0%", "1.000"]);
    }

    #[test]
    fn relative_differences_are_to_the_base() {
        assert_eq!(relative(Some(1.5), Some(1.0)), "+50.0%");
        assert_eq!(relative(Some(0.5), Some(1.0)), "-50.0%");
        assert_eq!(relative(Some(0.0), Some(0.0)), "=");
        assert_eq!(relative(None, Some(1.0)), "—");
    }
}
