//! `rocesim report` and `rocesim compare`: figures and tables from run
//! directories, the way the papers show them (docs/reports.md).
//!
//! A report reads only the run directory (fct.csv, summary.json, pfc.csv,
//! queue_hist.csv, latency_hist.csv, flow_rates.csv, link_util.csv,
//! scenario.toml), so it can be regenerated and compared later. It writes
//! `report.html` (self-contained: inline CSS and SVG) and every figure as
//! `figures/<name>.svg` and `.png`. Everything is read and drawn before the first
//! file is written: bad input leaves no partial output.

pub mod agreement;
mod ai;
pub mod compare;
pub mod data;
pub mod figures;
pub mod html;
pub mod ns3_series;
pub mod stats;
pub mod sweep;

use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use data::{FctRow, RunData};
use figures::Fig;
use html::esc;
use std::path::{Path, PathBuf};

/// What to report.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Flow-size bucket width, percent of flows (fct_analysis.py's `-s`, default 5).
    pub step: u32,
    /// Only flows to this destination port (fct_analysis.py's `-t`: 100 = the
    /// background workload, 200 = incast in the HPCC flow files).
    pub dport: Option<u16>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            step: 5,
            dport: None,
        }
    }
}

/// What a report or comparison wrote.
#[derive(Debug)]
pub struct Written {
    pub html: PathBuf,
    pub figures: Vec<PathBuf>,
    /// The terminal table(s).
    pub text: String,
}

impl Written {
    /// The terminal table(s) and where the page and the figures (in `dir`) went.
    pub fn describe(&self, dir: &std::path::Path) -> String {
        format!(
            "{}wrote {} and {} figure files in {}\n",
            self.text,
            self.html.display(),
            self.figures.len(),
            dir.join("figures").display()
        )
    }
}

/// The run's flows, only those to `dport` when given.
pub fn select_flows(run: &RunData, dport: Option<u16>) -> Vec<FctRow> {
    run.fct
        .iter()
        .filter(|f| dport.is_none() || f.dport == dport)
        .cloned()
        .collect()
}

/// The per-bucket slowdown table: header and rows (as fct_analysis.py prints:
/// per size bucket, p50/p95/p99 slowdown), then a row for all flows.
pub fn bucket_table(run: &RunData, opts: &ReportOptions) -> (Vec<String>, Vec<Vec<String>>) {
    let flows = select_flows(run, opts.dport);
    let header = ["percentile", "sizes", "flows", "p50", "p95", "p99"]
        .map(String::from)
        .to_vec();
    let mut rows: Vec<Vec<String>> = stats::size_buckets(&flows, opts.step)
        .iter()
        .map(|b| {
            vec![
                format!("{:.0}-{:.0}%", b.lo_pct, b.hi_pct),
                format!(
                    "{}-{}",
                    stats::fmt_size(b.min_size as f64),
                    stats::fmt_size(b.max_size as f64)
                ),
                b.flows.to_string(),
                format!("{:.3}", b.p50),
                format!("{:.3}", b.p95),
                format!("{:.3}", b.p99),
            ]
        })
        .collect();
    let all: Vec<&FctRow> = flows.iter().collect();
    let (p50, p95, p99) = stats::slowdown_stats(&all);
    rows.push(vec![
        "all".into(),
        String::new(),
        flows.len().to_string(),
        format!("{p50:.3}"),
        format!("{p95:.3}"),
        format!("{p99:.3}"),
    ]);
    (header, rows)
}

/// A plain-text table with aligned columns.
pub fn text_table(header: &[String], rows: &[Vec<String>]) -> String {
    let n = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(n) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let fmt_row = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("{c:<width$}", width = w[i])
                } else {
                    format!("{c:>width$}", width = w[i])
                }
            })
            .collect();
        cells.join("  ").trim_end().to_string() + "\n"
    };
    let mut s = fmt_row(header);
    s += &(w
        .iter()
        .map(|k| "-".repeat(*k))
        .collect::<Vec<_>>()
        .join("  ")
        + "\n");
    for r in rows {
        s += &fmt_row(r);
    }
    s
}

/// One headline number of a run.
#[derive(Clone, Debug)]
pub struct Headline {
    pub name: &'static str,
    pub value: Option<f64>,
    /// How to print it.
    pub decimals: usize,
}

/// The numbers compared side by side: summary.json keys and percentiles derived
/// from the histograms.
pub fn headlines(run: &RunData) -> Vec<Headline> {
    let s = |k: &str| run.summary.num(k);
    let h = |name, value, decimals| Headline {
        name,
        value,
        decimals,
    };
    let queue = run
        .queue_hist
        .as_ref()
        .map(|q| stats::merge_bins(q.iter().map(|b| &b.bin)));
    let qp = |p| {
        queue
            .as_ref()
            .and_then(|b| stats::hist_percentile(b, p))
            .map(|v| v / 1e3)
    };
    let lat = run
        .latency_hist
        .as_ref()
        .map(|l| stats::merge_bins(l.iter()));
    let lp = |p| {
        lat.as_ref()
            .and_then(|b| stats::hist_percentile(b, p))
            .map(|v| v / 1e3)
    };
    let paused = run.pfc.as_ref().map(|p| {
        stats::paused_intervals(p, run.end_ns())
            .iter()
            .map(stats::Paused::total_ns)
            .sum::<f64>()
            / 1e3
    });
    let util = run
        .link_util
        .as_ref()
        .filter(|u| !u.is_empty())
        .map(|u| u.iter().map(|r| r.utilization).sum::<f64>() / u.len() as f64);
    vec![
        h("flows completed", s("flows_completed"), 0),
        h("FCT slowdown p50", s("slowdown_p50"), 3),
        h("FCT slowdown p95", s("slowdown_p95"), 3),
        h("FCT slowdown p99", s("slowdown_p99"), 3),
        h("FCT slowdown max", s("slowdown_max"), 3),
        h("queue p50 (KB)", qp(50.0), 2),
        h("queue p95 (KB)", qp(95.0), 2),
        h("queue p99 (KB)", qp(99.0), 2),
        h("max queue (KB)", s("max_queue_bytes").map(|v| v / 1e3), 2),
        h("max buffer (KB)", s("max_buffer_bytes").map(|v| v / 1e3), 2),
        h("latency p50 (µs)", lp(50.0), 3),
        h("latency p95 (µs)", lp(95.0), 3),
        h("latency p99 (µs)", lp(99.0), 3),
        h("PFC pause frames", s("pfc_pause_frames"), 0),
        h("PFC paused time (µs, pfc.csv)", paused, 3),
        h("mean link utilization", util, 4),
        h("drops", s("drops"), 0),
        h("retransmitted bytes", s("retransmitted_bytes"), 0),
        h("timeouts", s("timeouts"), 0),
        h("CNPs sent", s("cnps_sent"), 0),
        h("simulated time (ms)", s("sim_seconds").map(|v| v * 1e3), 3),
    ]
}

pub fn fmt_value(v: Option<f64>, decimals: usize) -> String {
    match v {
        // `+ 0.0` turns -0 (an empty float sum) into 0.
        Some(x) => format!("{:.decimals$}", x + 0.0),
        None => "—".into(),
    }
}

/// A figure drawn as SVG and PNG, in memory.
pub struct Drawn {
    pub svg: String,
    pub png: Vec<u8>,
}

/// Draws every figure that has data.
pub fn draw_all(figs: &[Fig], out: &Path) -> Result<Vec<Option<Drawn>>, Error> {
    figs.iter()
        .map(|f| match &f.figure {
            None => Ok(None),
            Some(fig) => {
                let err = |m: String| {
                    Error::io(
                        out.join("figures").join(format!("{}.svg", f.stem)),
                        std::io::Error::other(format!("drawing failed: {m}")),
                    )
                };
                Ok(Some(Drawn {
                    svg: fig.to_svg().map_err(err)?,
                    png: fig.to_png().map_err(err)?,
                }))
            }
        })
        .collect()
}

/// Writes `figures/*.svg|png` and then the page, each atomically.
pub fn write_all(
    out: &Path,
    page_name: &str,
    figs: &[Fig],
    drawn: &[Option<Drawn>],
    page: &str,
) -> Result<(PathBuf, Vec<PathBuf>), Error> {
    let fig_dir = out.join("figures");
    std::fs::create_dir_all(&fig_dir).map_err(|e| Error::io(&fig_dir, e))?;
    let mut written = Vec::new();
    for (f, d) in figs.iter().zip(drawn) {
        if let Some(d) = d {
            let svg = format!("{}.svg", f.stem);
            AtomicFile::write_all_to(&fig_dir, &svg, d.svg.as_bytes())?;
            let png = format!("{}.png", f.stem);
            AtomicFile::write_all_to(&fig_dir, &png, &d.png)?;
            written.extend([fig_dir.join(svg), fig_dir.join(png)]);
        }
    }
    AtomicFile::write_all_to(out, page_name, page.as_bytes())?;
    Ok((out.join(page_name), written))
}

/// `--dport` must select some flow of the run: naming the ports the run has.
pub fn check_dport(run: &RunData, dport: Option<u16>, dir: &Path) -> Result<(), Error> {
    let Some(d) = dport else {
        return Ok(());
    };
    if run.fct.iter().any(|f| f.dport == Some(d)) {
        return Ok(());
    }
    let ports: std::collections::BTreeSet<u16> = run.fct.iter().filter_map(|f| f.dport).collect();
    let valid = if ports.is_empty() {
        "none: its fct.csv has no flow with a destination port".to_string()
    } else {
        ports
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let msg = format!(
        "no completed flow of {} goes to port {d} (valid: {valid})",
        dir.display()
    );
    Err(InputError::new("--dport", "", msg).into())
}

/// `rocesim report RUN_DIR`: report.html, figures, and the terminal table. A
/// sweep directory (with sweep.json) gets the sweep's report ([`sweep::report`]).
pub fn report(dir: &Path, opts: &ReportOptions) -> Result<Written, Error> {
    if dir.join("sweep.json").is_file() {
        return sweep::report(dir);
    }
    let label = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let run = data::load_run(dir, label)?;
    check_dport(&run, opts.dport, dir)?;
    let runs = [&run];
    let mut figs = vec![
        figures::fct_slowdown(&runs, opts.step, opts.dport, None),
        figures::queue_cdf(&runs),
        figures::pfc_timeline(&run),
        figures::pfc_ports(&runs),
        figures::flow_throughput(&run, "flow_throughput"),
        figures::flow_rate(&run),
        figures::latency_cdf(&runs),
        figures::link_util(&runs),
    ];
    figs.extend(ai::figures(&run));
    let drawn = draw_all(&figs, dir)?;
    let (bh, br) = bucket_table(&run, opts);
    let text = format!(
        "{}: FCT slowdown by flow size ({} flows{}; buckets of {}% of flows by size)\n{}",
        dir.display(),
        select_flows(&run, opts.dport).len(),
        opts.dport
            .map(|d| format!(" to dport {d}"))
            .unwrap_or_default(),
        opts.step,
        text_table(&bh, &br)
    );
    let page = report_page(&run, opts, &figs, &drawn, (&bh, &br));
    let (html, figures) = write_all(dir, "report.html", &figs, &drawn, &page)?;
    Ok(Written {
        html,
        figures,
        text,
    })
}

fn report_page(
    run: &RunData,
    opts: &ReportOptions,
    figs: &[Fig],
    drawn: &[Option<Drawn>],
    buckets: (&[String], &[Vec<String>]),
) -> String {
    let mut b = String::new();
    let name = run
        .scenario
        .as_deref()
        .and_then(|s| toml::from_str::<toml::Table>(s).ok())
        .and_then(|t| t.get("name").and_then(|v| v.as_str()).map(String::from))
        .unwrap_or_else(|| run.label.clone());
    b += &format!(
        "<p class=\"note\">Run directory <code>{}</code>. Regenerate with <code>rocesim report {}</code>.</p>\n",
        esc(&run.dir.display().to_string()),
        esc(&run.dir.display().to_string())
    );
    b += "<h2>Headline numbers</h2>\n";
    let rows: Vec<Vec<String>> = headlines(run)
        .iter()
        .map(|h| vec![h.name.to_string(), fmt_value(h.value, h.decimals)])
        .collect();
    b += &html::table(&["metric".into(), "value".into()], &rows);
    b += &format!(
        "<h2>FCT slowdown by flow size</h2>\n<p class=\"note\">{} flows{}, buckets of {}% of the flows by size \
         (as HPCC's fct_analysis.py); nearest-rank percentiles.</p>\n",
        select_flows(run, opts.dport).len(),
        opts.dport
            .map(|d| format!(" to dport {d}"))
            .unwrap_or_default(),
        opts.step
    );
    b += &html::table(buckets.0, buckets.1);
    b += "<h2>Figures</h2>\n";
    for (f, d) in figs.iter().zip(drawn) {
        b += &html::figure(f, d.as_ref().map(|d| d.svg.as_str()));
    }
    b += &pfc_section(run);
    b += "<h2>Summary (summary.json)</h2>\n";
    let rows: Vec<Vec<String>> = run
        .summary
        .0
        .iter()
        .map(|(k, v)| vec![k.clone(), v.to_string()])
        .collect();
    b += &html::table(&["key".into(), "value".into()], &rows);
    if let Some(d) = &run.pfc_diagnostics {
        b += "<h2>PFC diagnostics (pfc_diagnostics.json)</h2>\n";
        b += &format!("<pre>{}</pre>\n", esc(d));
    }
    if !run.extra_files.is_empty() {
        b += &format!(
            "<p class=\"note\">Other files in the run directory: {}.</p>\n",
            esc(&run.extra_files.join(", "))
        );
    }
    b += "<h2>Scenario</h2>\n";
    match &run.scenario {
        Some(s) => b += &format!("<pre>{}</pre>\n", esc(s)),
        None => {
            b += "<p class=\"missing\">No scenario.toml in the run directory (written by rocesim run since reports exist).</p>\n"
        }
    }
    html::page(&format!("rocesim report: {name}"), &b)
}

/// Paused time per port-class from pfc.csv, with the total against summary.json.
fn pfc_section(run: &RunData) -> String {
    let Some(rows) = &run.pfc else {
        return String::new();
    };
    let mut p = stats::paused_intervals(rows, run.end_ns());
    if p.is_empty() {
        return "<h2>PFC</h2>\n<p>No PFC pause.</p>\n".into();
    }
    let total: f64 = p.iter().map(stats::Paused::total_ns).sum();
    p.sort_by(|a, b| b.total_ns().total_cmp(&a.total_ns()));
    let shown = p.len().min(50);
    let rows: Vec<Vec<String>> = p[..shown]
        .iter()
        .map(|x| {
            vec![
                x.node.to_string(),
                x.port.to_string(),
                x.priority.to_string(),
                x.intervals.len().to_string(),
                format!("{:.3}", x.total_ns() / 1e3),
            ]
        })
        .collect();
    let mut s = format!(
        "<h2>PFC paused time per port</h2>\n<p class=\"note\">{} paused port-classes, {:.3} µs paused in total \
         (summary.json pfc_paused_ns: {}); the {shown} most paused:</p>\n",
        p.len(),
        total / 1e3,
        run.summary
            .num("pfc_paused_ns")
            .map_or("—".into(), |v| format!("{:.3} µs", v / 1e3))
    );
    s += &html::table(
        &["node", "port", "priority", "pauses", "paused (µs)"].map(String::from),
        &rows,
    );
    s
}
