//! `rocesim report` and `rocesim compare`: the FCT statistics agree with an
//! independent computation from fct.csv; every figure of report.html and
//! compare.html is inline SVG with data; bad input is one line, exit code 2,
//! and no output.

use crate::common::scratch;
use crate::recorders::{INCAST, csv, f, rocesim, run_into, summary};
use std::path::Path;

/// 16 hosts, FB_Hadoop at 50% load for 1 ms: ~900 flows from 1 B to 10 MB.
const POISSON: &str = r#"
name = "poisson-star"
[topology]
kind = "star"
hosts = 16
rate = "100Gbps"
delay = "1us"
[cc]
algorithm = "dcqcn"
[[workload.poisson]]
cdf = "fb-hadoop"
load = 0.5
duration = "1ms"
[output]
queue_interval = "0s"
"#;

/// Nearest rank, written out again here: the ⌈p·n⌉-th smallest.
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[test]
fn fct_statistics_agree_with_an_independent_computation_from_fct_csv() {
    let dir = scratch("rep-fct");
    let run = run_into(&dir, "p", POISSON, &[]);
    let o = rocesim(&["report", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();

    // Independently: (size, flow id, slowdown) from fct.csv, sorted by size then
    // id; bucket k of 5% holds ranks [k*5*n/100, (k+1)*5*n/100).
    let mut flows: Vec<(u64, u64, f64)> = csv(&run.join("fct.csv"))
        .iter()
        .map(|r| {
            (
                f(r, "size_bytes") as u64,
                f(r, "flow_id") as u64,
                f(r, "slowdown"),
            )
        })
        .collect();
    let n = flows.len();
    assert!(n > 500, "{n} flows");
    flows.sort_by_key(|x| (x.0, x.1));
    let mut expected = Vec::new();
    for k in 0..20 {
        let (l, r) = (k * 5 * n / 100, (k + 1) * 5 * n / 100);
        let mut sd: Vec<f64> = flows[l..r].iter().map(|x| x.2.max(1.0)).collect();
        sd.sort_by(f64::total_cmp);
        expected.push((
            format!("{}-{}%", k * 5, k * 5 + 5),
            r - l,
            [50.0, 95.0, 99.0].map(|p| format!("{:.3}", nearest_rank(&sd, p))),
        ));
    }
    // The printed table: "percentile sizes flows p50 p95 p99".
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 6 && w[0].ends_with('%'))
        .collect();
    assert_eq!(rows.len(), 20, "{out}");
    for (row, (pct, count, ps)) in rows.iter().zip(&expected) {
        assert_eq!(row[0], pct);
        assert_eq!(row[2], count.to_string(), "{pct}");
        assert_eq!(&row[3..6], ps.as_slice(), "bucket {pct}");
    }
    // The "all" row is summary.json's nearest-rank percentiles (no slowdown < 1 here).
    let s = summary(&run);
    let all = out.lines().find(|l| l.starts_with("all")).unwrap();
    let w: Vec<&str> = all.split_whitespace().collect();
    assert_eq!(w[1], n.to_string());
    for (i, k) in ["slowdown_p50", "slowdown_p95", "slowdown_p99"]
        .iter()
        .enumerate()
    {
        assert_eq!(w[2 + i], format!("{:.3}", s[k].as_f64().unwrap()), "{k}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Figures (by id) and the number of points each draws, from the HTML.
fn figures(html: &str) -> Vec<(String, usize)> {
    html.match_indices("<figure id=\"")
        .map(|(i, _)| {
            let rest = &html[i + 12..];
            let id = &rest[..rest.find('"').unwrap()];
            let dp = &rest[rest.find("data-points=\"").unwrap() + 13..];
            let n = dp[..dp.find('"').unwrap()].parse().unwrap();
            (id.to_string(), n)
        })
        .collect()
}

/// Self-contained: no script, no external resource (the SVG namespace is a name, not a fetch).
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "no script");
    for bad in ["src=\"http", "href=\"http", "url(http", "@import", "<link "] {
        assert!(!html.contains(bad), "external resource: {bad}");
    }
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
}

fn assert_figure_files(dir: &Path, ids: &[(String, usize)]) {
    for (id, _) in ids {
        let svg = std::fs::read_to_string(dir.join(format!("figures/{id}.svg"))).unwrap();
        assert!(
            svg.contains("<polyline") || svg.contains("<rect"),
            "{id}.svg draws something"
        );
        let png = std::fs::read(dir.join(format!("figures/{id}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{id}.png");
    }
}

#[test]
fn report_html_is_self_contained_and_every_figure_has_data() {
    let dir = scratch("rep-html");
    let run = run_into(&dir, "r", INCAST, &[]);
    let o = rocesim(&["report", run.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "quiet");
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert_self_contained(&html);
    let figs = figures(&html);
    let ids: Vec<&str> = figs.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "fct_slowdown",
            "queue_cdf",
            "pfc_timeline",
            "pfc_ports",
            "flow_throughput",
            "flow_rate",
            "latency_cdf",
            "link_util"
        ]
    );
    for (id, n) in &figs {
        assert!(*n > 0, "{id} has data");
    }
    assert!(!html.contains("class=\"missing\""), "nothing missing");
    assert_eq!(
        html.matches("<svg").count(),
        figs.len(),
        "every figure inline"
    );
    assert_figure_files(&run, &figs);
    // The tables: summary keys, the paused time per port against summary.json, the scenario.
    assert!(html.contains("slowdown_p99") && html.contains("pfc_paused_ns"));
    assert!(
        html.contains("[[workload.poisson]]"),
        "the scenario is shown"
    );
    let s = summary(&run);
    let paused_us = s["pfc_paused_ns"].as_f64().unwrap() / 1e3;
    assert!(paused_us > 0.0);
    assert!(
        html.contains(&format!("{paused_us:.3} µs paused in total")),
        "pfc.csv pairs = summary"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_without_optional_recorders_says_what_to_turn_on() {
    let dir = scratch("rep-missing");
    let run = run_into(
        &dir,
        "p",
        POISSON,
        &["--set", "output.latency.flows=\"none\""],
    );
    let o = rocesim(&["report", run.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("<div class=\"missing\" id=\"flow_throughput\">"));
    assert!(html.contains("output.flow_rates"));
    assert!(html.contains("<div class=\"missing\" id=\"latency_cdf\">"));
    assert!(!run.join("figures/flow_throughput.svg").exists());
    for (id, n) in figures(&html) {
        assert!(n > 0, "{id}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compare_draws_one_series_per_run_and_tables_relative_differences() {
    let dir = scratch("rep-compare");
    let a = run_into(&dir, "a", INCAST, &[]);
    let b = run_into(&dir, "b", INCAST, &["--set", "cc.algorithm=\"dcqcn\""]);
    let out = dir.join("cmp");
    let o = rocesim(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--label",
        &format!("none={}", a.display()),
        "--label",
        &format!("dcqcn={}", b.display()),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("vs none"), "{text}");
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert_self_contained(&html);
    let figs = figures(&html);
    for want in [
        "fct_slowdown_p50",
        "fct_slowdown_p95",
        "fct_slowdown_p99",
        "queue_cdf",
        "pfc_paused_count",
        "pfc_ports",
        "fairness",
        "flow_throughput_1",
        "flow_throughput_2",
        "latency_cdf",
        "link_util",
    ] {
        let n = figs.iter().find(|f| f.0 == want).map(|f| f.1);
        assert!(n.is_some_and(|n| n > 0), "{want}: {n:?}");
    }
    assert_figure_files(&out, &figs);
    // One legend entry per run in the figures that compare runs.
    let svg = std::fs::read_to_string(out.join("figures/fct_slowdown_p99.svg")).unwrap();
    assert!(
        svg.contains(">\nnone\n<") && svg.contains(">\ndcqcn\n<"),
        "legend names both runs"
    );
    assert!(html.contains("<th>vs none</th>"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reports_are_deterministic() {
    let dir = scratch("rep-det");
    let run = run_into(&dir, "r", INCAST, &[]);
    let read = || {
        assert!(
            rocesim(&["report", run.to_str().unwrap(), "-q"])
                .status
                .success()
        );
        let mut v = vec![std::fs::read(run.join("report.html")).unwrap()];
        let mut names: Vec<_> = std::fs::read_dir(run.join("figures"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        v.extend(names.iter().map(|p| std::fs::read(p).unwrap()));
        v
    };
    assert_eq!(read(), read());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn assert_bad(o: &std::process::Output, needles: &[&str]) {
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{err} names {n}");
    }
}

#[test]
fn bad_run_directories_and_labels_are_one_line_errors_with_no_output() {
    let dir = scratch("rep-bad");
    let missing = dir.join("nope");
    assert_bad(
        &rocesim(&["report", missing.to_str().unwrap()]),
        &["nope", "no such run directory"],
    );

    // A malformed fct.csv: the file, the line, the column; nothing written.
    let run = run_into(&dir, "r", INCAST, &[]);
    let fct = run.join("fct.csv");
    let mut text = std::fs::read_to_string(&fct).unwrap();
    text = text.replacen("\n1,", "\nx,", 1);
    std::fs::write(&fct, &text).unwrap();
    let line = text.lines().position(|l| l.starts_with("x,")).unwrap() + 1;
    assert_bad(
        &rocesim(&["report", run.to_str().unwrap()]),
        &["fct.csv", &format!("line {line}"), "flow_id"],
    );
    assert!(!run.join("report.html").exists() && !run.join("figures").exists());

    // An unknown label; an empty directory.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("cmp");
    let o = rocesim(&[
        "compare",
        run.to_str().unwrap(),
        empty.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--label",
        "x=elsewhere",
    ]);
    assert_bad(
        &o,
        &["--label x=elsewhere", "not one of the run directories"],
    );
    let o = rocesim(&[
        "compare",
        empty.to_str().unwrap(),
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_bad(&o, &["summary.json", "not a rocesim run directory"]);
    assert!(!out.exists(), "no partial output");
    std::fs::remove_dir_all(&dir).unwrap();
}
