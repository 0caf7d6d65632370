//! `rocesim report DIR` on a sweep directory (one holding sweep.json): every
//! headline metric against every axis with at least two values, one series per
//! combination of the other axes' values, averaged over seeds (e.g. p99
//! slowdown vs load, one line per congestion control). A numeric axis is a line
//! chart; any other axis is a grouped bar chart. Reads sweep.json and the
//! points' summary.json; writes DIR/report.html and DIR/figures/.

use super::data::OrderedJson;
use super::figures::{Fig, line};
use super::html::{self, esc};
use super::{Written, draw_all, write_all};
use crate::error::{Error, InputError};
use crate::plot::{AxisSpec, BarChart, Figure, Legend, Series};
use std::path::Path;

/// (summary.json key, label, divisor) of each metric drawn.
const METRICS: [(&str, &str, f64); 8] = [
    ("slowdown_p50", "FCT slowdown p50", 1.0),
    ("slowdown_p95", "FCT slowdown p95", 1.0),
    ("slowdown_p99", "FCT slowdown p99", 1.0),
    ("slowdown_max", "FCT slowdown max", 1.0),
    ("max_queue_bytes", "max queue (KB)", 1e3),
    ("pfc_paused_ns", "PFC paused time (µs)", 1e3),
    ("pfc_pause_frames", "PFC pause frames", 1.0),
    ("drops", "drops", 1.0),
];

/// An axis: its key and values.
type Axis = (String, Vec<serde_json::Value>);

/// One point of the sweep as the report sees it.
struct PointData {
    id: String,
    status: String,
    values: serde_json::Map<String, serde_json::Value>,
    summary: Option<OrderedJson>,
}

/// A JSON value as shown in labels (strings bare).
fn show(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn bad(path: &Path, loc: &str, msg: &str) -> Error {
    InputError::in_file(path, loc, msg.to_string()).into()
}

/// Reads sweep.json and the ok points' summary.json.
fn load(dir: &Path) -> Result<(Vec<Axis>, Vec<PointData>), Error> {
    let path = dir.join("sweep.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let j: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        bad(
            &path,
            &format!("line {}", e.line()),
            &format!("not valid JSON: {e}"),
        )
    })?;
    let axes = j["axes"]
        .as_array()
        .ok_or_else(|| bad(&path, "axes", "missing (is this a rocesim sweep.json?)"))?
        .iter()
        .map(|a| {
            let key = a["key"].as_str().unwrap_or_default().to_string();
            let values = a["values"].as_array().cloned().unwrap_or_default();
            (key, values)
        })
        .collect();
    let mut points = Vec::new();
    for p in j["points"]
        .as_array()
        .ok_or_else(|| bad(&path, "points", "missing (is this a rocesim sweep.json?)"))?
    {
        let id = p["id"].as_str().unwrap_or_default().to_string();
        let status = p["status"].as_str().unwrap_or_default().to_string();
        let summary = if status == "ok" {
            let s = dir.join(&id).join("summary.json");
            std::fs::read_to_string(&s)
                .ok()
                .and_then(|t| serde_json::from_str::<OrderedJson>(&t).ok())
        } else {
            None
        };
        points.push(PointData {
            id,
            status,
            values: p["values"].as_object().cloned().unwrap_or_default(),
            summary,
        });
    }
    Ok((axes, points))
}

/// The last component of a key path (`cc.algorithm` → `algorithm`).
fn short(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

/// The figure of `metric` against `axis`, one series per combination of the
/// values of `others`; points with the same x and series are averaged.
fn figure(metric: (&str, &str, f64), axis: &Axis, others: &[&String], points: &[PointData]) -> Fig {
    let (key, label, div) = metric;
    let stem = format!(
        "sweep_{key}_vs_{}",
        axis.0
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>()
    );
    let title = format!("{label} vs {}", axis.0);
    // series name -> x index -> values
    let mut series: Vec<(String, Vec<Vec<f64>>)> = Vec::new();
    for p in points {
        let Some(y) = p.summary.as_ref().and_then(|s| s.num(key)) else {
            continue;
        };
        let Some(xi) = p
            .values
            .get(&axis.0)
            .and_then(|v| axis.1.iter().position(|a| a == v))
        else {
            continue;
        };
        let name = others
            .iter()
            .map(|k| {
                let v = p
                    .values
                    .get(k.as_str())
                    .map(show)
                    .unwrap_or_else(|| "base".into());
                format!("{}={v}", short(k))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let idx = match series.iter().position(|s| s.0 == name) {
            Some(i) => i,
            None => {
                series.push((name, vec![Vec::new(); axis.1.len()]));
                series.len() - 1
            }
        };
        series[idx].1[xi].push(y / div);
    }
    let averaged = points.iter().any(|p| p.values.contains_key("seed"));
    let caption = format!(
        "{label} of each point against {}{}. From each point's summary.json.",
        axis.0,
        if averaged {
            ", averaged over seeds"
        } else {
            ""
        }
    );
    let fig = Fig::new(&stem, &title, caption);
    if series.is_empty() {
        return fig.without("no point with this metric completed");
    }
    let mean = |v: &Vec<f64>| {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let numeric = axis.1.iter().all(serde_json::Value::is_number);
    if numeric {
        let s: Vec<Series> = series
            .iter()
            .map(|(name, ys)| {
                let pts = axis
                    .1
                    .iter()
                    .zip(ys)
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(x, v)| (x.as_f64().unwrap_or(f64::NAN), mean(v)))
                    .collect();
                Series::line(if name.is_empty() { label } else { name }, pts)
            })
            .collect();
        fig.with(line(
            &title,
            AxisSpec::linear(axis.0.clone()),
            AxisSpec::linear(label),
            s,
            Legend::UpperLeft,
        ))
    } else {
        fig.with(Figure::Bar(BarChart {
            title: title.clone(),
            x_label: axis.0.clone(),
            categories: axis.1.iter().map(show).collect(),
            y: AxisSpec::linear(label),
            groups: series
                .iter()
                .map(|(name, ys)| (name.clone(), ys.iter().map(mean).collect()))
                .collect(),
            legend: Legend::UpperLeft,
        }))
    }
}

/// report.html for a sweep directory.
pub fn report(dir: &Path) -> Result<Written, Error> {
    let (axes, points) = load(dir)?;
    let drawn_axes: Vec<&Axis> = axes
        .iter()
        .filter(|a| a.1.len() > 1 && a.0 != "seed")
        .collect();
    let mut figs = Vec::new();
    for m in METRICS {
        for a in &drawn_axes {
            let others: Vec<&String> = drawn_axes
                .iter()
                .filter(|o| o.0 != a.0)
                .map(|o| &o.0)
                .collect();
            figs.push(figure(m, a, &others, &points));
        }
    }
    let drawn = draw_all(&figs, dir)?;
    // The points table: id, status, axis values, p50/p95/p99.
    let mut header: Vec<String> = vec!["point".into(), "status".into()];
    header.extend(axes.iter().map(|a| a.0.clone()));
    header.extend(["p50", "p95", "p99"].map(String::from));
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            let mut r = vec![p.id.clone(), p.status.clone()];
            r.extend(
                axes.iter()
                    .map(|a| p.values.get(&a.0).map(show).unwrap_or_default()),
            );
            for k in ["slowdown_p50", "slowdown_p95", "slowdown_p99"] {
                r.push(super::fmt_value(
                    p.summary.as_ref().and_then(|s| s.num(k)),
                    3,
                ));
            }
            r
        })
        .collect();
    let mut b = format!(
        "<p class=\"note\">Sweep directory <code>{d}</code>: {n} points ({ok} ok). \
         The numbers of every point are in <code>sweep.csv</code>; each point is a run \
         directory (<code>rocesim report {d}/&lt;point&gt;</code>, <code>rocesim compare</code>).</p>\n",
        d = esc(&dir.display().to_string()),
        n = points.len(),
        ok = points.iter().filter(|p| p.status == "ok").count()
    );
    b += "<h2>Points</h2>\n";
    b += &html::table(&header, &rows);
    b += "<h2>Figures</h2>\n";
    if figs.is_empty() {
        b += "<p class=\"missing\">No axis other than seed has two or more values: nothing to draw against.</p>\n";
    }
    for (f, d) in figs.iter().zip(&drawn) {
        b += &html::figure(f, d.as_ref().map(|d| d.svg.as_str()));
    }
    let page = html::page(&format!("Sweep {}", dir.display()), &b);
    let (html_path, figures) = write_all(dir, "report.html", &figs, &drawn, &page)?;
    Ok(Written {
        html: html_path,
        figures,
        text: super::text_table(&header, &rows),
    })
}
