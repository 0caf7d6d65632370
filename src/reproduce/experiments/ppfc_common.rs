//! What the P-PFC (TPDS'20) experiments share: reading a run's packet-latency
//! histogram and per-port PFC counters from its output directory, and the
//! receiver's queue of a star incast.

use crate::error::Error;
use crate::output::RunOutputs;
use crate::plot::{AxisSpec, BarChart, Figure, LineChart, Series};
use crate::reproduce::metrics::busiest_port;
use std::collections::BTreeMap;

/// The scheme labels the paper uses, by `switch.pfc.scheme` value.
pub fn scheme_label(s: &str) -> &'static str {
    match s {
        "standard" => "PFC",
        "ppfc" => "P-PFC",
        "capfc" => "CaPFC",
        _ => "?",
    }
}

/// Reads `name` from the run's output directory.
fn read(out: &RunOutputs, name: &str) -> Result<String, Error> {
    let dir = out
        .out_dir
        .as_ref()
        .ok_or_else(|| Error::Sim(format!("the run wrote no directory, so no {name}")))?;
    let p = dir.join(name);
    std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))
}

/// `latency_hist.csv` rows as (lo µs, hi µs, packets).
pub fn parse_latency_hist(text: &str) -> Vec<(f64, f64, u64)> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut it = l.split(',');
            let lo: f64 = it.next()?.parse().ok()?;
            let hi: f64 = it.next()?.parse().ok()?;
            let n: u64 = it.next()?.parse().ok()?;
            Some((lo / 1e3, hi / 1e3, n))
        })
        .collect()
}

/// The run's one-way packet delay histogram (the scenario must record all flows).
pub fn latency_hist(out: &RunOutputs) -> Result<Vec<(f64, f64, u64)>, Error> {
    Ok(parse_latency_hist(&read(out, "latency_hist.csv")?))
}

/// The `p`-th percentile of a histogram: the upper edge of the bin in which the
/// cumulative count reaches `p` % (bins are ≤ 12.5 % wide, so this errs high by
/// at most that much).
pub fn hist_pct(h: &[(f64, f64, u64)], p: f64) -> f64 {
    let total: u64 = h.iter().map(|r| r.2).sum();
    let want = (p / 100.0 * total as f64).ceil().max(1.0) as u64;
    let mut c = 0;
    for &(_, hi, n) in h {
        c += n;
        if c >= want {
            return hi;
        }
    }
    0.0
}

/// The mean of a histogram, taking each bin at its middle.
pub fn hist_mean(h: &[(f64, f64, u64)]) -> f64 {
    let total: u64 = h.iter().map(|r| r.2).sum();
    if total == 0 {
        return 0.0;
    }
    h.iter()
        .map(|&(lo, hi, n)| (lo + hi) / 2.0 * n as f64)
        .sum::<f64>()
        / total as f64
}

/// Per node: PAUSE frames received on its port 0 (hosts have one port) and the
/// time that port spent paused, in µs, from `pfc_ports.csv`.
pub fn parse_pfc_rx(text: &str) -> BTreeMap<u32, (u64, f64)> {
    let mut m = BTreeMap::new();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n);
    let (Some(cn), Some(cp), Some(cr), Some(ct)) =
        (col("node"), col("port"), col("pause_rx"), col("paused_ns"))
    else {
        return m;
    };
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let get = |i: usize| f.get(i).copied().unwrap_or("");
        if get(cp) != "0" {
            continue;
        }
        if let (Ok(node), Ok(rx), Ok(t)) = (
            get(cn).parse::<u32>(),
            get(cr).parse::<u64>(),
            get(ct).parse::<f64>(),
        ) {
            let e = m.entry(node).or_insert((0, 0.0));
            e.0 += rx;
            e.1 += t / 1e3;
        }
    }
    m
}

pub fn pfc_rx(out: &RunOutputs) -> Result<BTreeMap<u32, (u64, f64)>, Error> {
    Ok(parse_pfc_rx(&read(out, "pfc_ports.csv")?))
}

/// The queue (ms, KB) of the busiest sampled port of `node`.
pub fn queue(out: &RunOutputs, node: u32) -> Vec<(f64, f64)> {
    busiest_port(&out.samples, node)
        .map(|(_, q)| q)
        .unwrap_or_default()
}

/// The largest value of a series.
pub fn peak(s: &[(f64, f64)]) -> f64 {
    s.iter().map(|p| p.1).fold(0.0, f64::max)
}

/// The first time (ms) the queue, having exceeded `kb`, is back below it.
pub fn first_drain_below(s: &[(f64, f64)], kb: f64) -> Option<f64> {
    let up = s.iter().position(|p| p.1 > kb)?;
    s[up..].iter().find(|p| p.1 < kb).map(|p| p.0)
}

/// Only the points up to `ms`.
pub fn until(s: &[(f64, f64)], ms: f64) -> Vec<(f64, f64)> {
    s.iter().copied().filter(|p| p.0 <= ms).collect()
}

/// Time of the last completion, in ms (the incast's end).
pub fn last_completion_ms(out: &RunOutputs) -> f64 {
    out.fct
        .iter()
        .map(|f| (f.start + f.fct).as_secs_f64() * 1e3)
        .fold(0.0, f64::max)
}

/// Goodput of the whole run at the receiver: bytes / last completion, Gbps.
pub fn goodput_gbps(out: &RunOutputs) -> f64 {
    let bytes: u64 = out.fct.iter().map(|f| f.size).sum();
    let ms = last_completion_ms(out);
    if ms > 0.0 {
        bytes as f64 * 8.0 / (ms / 1e3) / 1e9
    } else {
        0.0
    }
}

pub fn line(title: &str, x: &str, y: &str, series: Vec<Series>) -> Figure {
    Figure::Line(LineChart {
        title: title.into(),
        x: AxisSpec::linear(x),
        y: AxisSpec::linear(y),
        series,
        ..LineChart::default()
    })
}

pub fn bars(
    title: &str,
    x: &str,
    y: &str,
    categories: Vec<String>,
    groups: Vec<(String, Vec<f64>)>,
) -> Figure {
    Figure::Bar(BarChart {
        title: title.into(),
        x_label: x.into(),
        categories,
        y: AxisSpec::linear(y),
        groups,
        ..BarChart::default()
    })
}

#[cfg(test)]
pub use crate::reproduce::check_runs_load;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_percentile_is_the_upper_edge_of_the_bin_reaching_it() {
        let h =
            parse_latency_hist("lo_ns,hi_ns,packets\n1000,2000,98\n2000,3000,1\n9000,10000,1\n");
        assert_eq!(h.len(), 3);
        assert_eq!(hist_pct(&h, 50.0), 2.0);
        assert_eq!(hist_pct(&h, 99.0), 3.0);
        assert_eq!(hist_pct(&h, 100.0), 10.0);
        assert!((hist_mean(&h) - (1.5 * 98.0 + 2.5 + 9.5) / 100.0).abs() < 1e-12);
    }

    #[test]
    fn pause_counts_are_read_per_host_port_zero() {
        let m = parse_pfc_rx(
            "node,port,priority,pause_rx,resume_rx,expire,paused_ns,pause_tx\n\
             1,0,3,2,0,2,30169.600,0\n2,0,3,3,0,3,4000.0,0\n17,1,3,9,0,0,0,5\n",
        );
        assert_eq!(m.len(), 2);
        assert_eq!(m[&1].0, 2);
        assert!((m[&2].1 - 4.0).abs() < 1e-12);
    }

    #[test]
    fn the_queue_drains_below_a_level_only_after_exceeding_it() {
        let s = [(0.0, 10.0), (1.0, 300.0), (2.0, 250.0), (3.0, 150.0)];
        assert_eq!(first_drain_below(&s, 200.0), Some(3.0));
        assert_eq!(first_drain_below(&s, 400.0), None);
        assert_eq!(peak(&s), 300.0);
    }
}
