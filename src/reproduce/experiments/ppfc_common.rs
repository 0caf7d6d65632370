//! What the P-PFC (TPDS'20) experiments share: reading a run's packet-latency
//! histogram, per-port PFC counters and link utilization from its output
//! directory, the receiver's queue of a star incast, and the readings of the
//! paper's open choices that the pages put side by side.

use crate::error::Error;
use crate::output::RunOutputs;
use crate::plot::{AxisSpec, BarChart, Figure, LineChart, Series};
use crate::reproduce::metrics::busiest_port;
use std::collections::BTreeMap;

/// Alg. 3's `Transmission_speed` (`switch.pfc.ppfc.pause_time`): the reading we
/// use first, then the other, with their labels (docs/models.md §P-PFC).
pub const PAUSE_TIMES: [(&str, &str); 2] = [
    ("fifo-share", "FIFO share of the egress rate"),
    ("own-bytes", "own bytes at the full egress rate"),
];

/// What CaPFC's per-input counter counts (`switch.pfc.capfc.counter`): the
/// reading we use first, then the other.
pub const CAPFC_COUNTERS: [(&str, &str); 2] = [
    (
        "reserve",
        "17 KB beyond its allowance at WARN (§2.1's reserved buffer)",
    ),
    ("total", "17 KB in all"),
];

/// Why the first pause-time reading is ours, for the pages' notes.
pub const PAUSE_TIME_CHOICE: &str = "Alg. 3 divides (packets + increment) by \
    Transmission_speed. Read as the port's share of the FIFO egress rate, the pause lasts \
    about as long as the queue takes to drain: §2.3's worked example (Fig. 2c: \"the pause \
    is set to be 2 time units\") and Theorem 3.2's drain time come out of it, while the \
    port's own bytes at the full rate give half of Fig. 2c's pause. The own-bytes reading \
    is shown beside it";

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
    // A streamed table may be Parquet (`output.format`).
    if let Some(stem) = name.strip_suffix(".csv")
        && let Some((_, text)) = crate::output::table::read_csv_text(dir, stem)?
    {
        return Ok(text);
    }
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

/// The `p`-th percentile of a histogram, interpolated linearly inside the bin
/// in which the cumulative count reaches `p` % (the packets of a bin taken as
/// spread evenly over it), so that a ratio of two percentiles is not a ratio of
/// bin edges. 0 for an empty histogram.
pub fn hist_pct(h: &[(f64, f64, u64)], p: f64) -> f64 {
    let total: u64 = h.iter().map(|r| r.2).sum();
    if total == 0 {
        return 0.0;
    }
    let want = (p / 100.0).clamp(0.0, 1.0) * total as f64;
    let mut below = 0.0;
    for &(lo, hi, n) in h.iter().filter(|r| r.2 > 0) {
        let n = n as f64;
        if below + n >= want {
            return lo + (hi - lo) * ((want - below) / n).max(0.0);
        }
        below += n;
    }
    h.iter().rev().find(|r| r.2 > 0).map_or(0.0, |r| r.1)
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

/// Per watched port, its utilization series (ms at the interval's end, busy
/// fraction) from `link_util.csv` (the scenario must set
/// `output.link_utilization`).
pub fn parse_link_util(text: &str) -> BTreeMap<(u32, u16), Vec<(f64, f64)>> {
    let mut m: BTreeMap<(u32, u16), Vec<(f64, f64)>> = BTreeMap::new();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n);
    let (Some(ct), Some(cn), Some(cp), Some(cu)) =
        (col("time_ns"), col("node"), col("port"), col("utilization"))
    else {
        return m;
    };
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let get = |i: usize| f.get(i).copied().unwrap_or("");
        if let (Ok(t), Ok(n), Ok(p), Ok(u)) = (
            get(ct).parse::<f64>(),
            get(cn).parse::<u32>(),
            get(cp).parse::<u16>(),
            get(cu).parse::<f64>(),
        ) {
            m.entry((n, p)).or_default().push((t / 1e6, u));
        }
    }
    m
}

/// The utilization series of port `port` of `node` (empty if not recorded).
pub fn link_util(out: &RunOutputs, node: u32, port: u16) -> Result<Vec<(f64, f64)>, Error> {
    Ok(parse_link_util(&read(out, "link_util.csv")?)
        .remove(&(node, port))
        .unwrap_or_default())
}

/// The mean of a series' values at times in `[from, to]` (ms); NaN if none.
pub fn mean_between(s: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = s
        .iter()
        .filter(|p| p.0 >= from && p.0 <= to)
        .map(|p| p.1)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
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

/// The first time (ms) the queue, having exceeded `kb`, is back below it and
/// stays there for `hold_ms` (or to the end of the series): the end of a
/// congestion episode, not a dip inside one.
pub fn settles_below(s: &[(f64, f64)], kb: f64, hold_ms: f64) -> Option<f64> {
    let up = s.iter().position(|p| p.1 > kb)?;
    let mut since: Option<f64> = None;
    for &(t, q) in &s[up..] {
        match (q > kb, since) {
            (true, _) => since = None,
            (false, None) => since = Some(t),
            (false, Some(t0)) if t - t0 >= hold_ms => return Some(t0),
            _ => {}
        }
    }
    since
}

/// Only the points up to `ms`.
pub fn until(s: &[(f64, f64)], ms: f64) -> Vec<(f64, f64)> {
    s.iter().copied().filter(|p| p.0 <= ms).collect()
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
    fn a_histogram_percentile_is_interpolated_inside_the_bin_reaching_it() {
        let h = parse_latency_hist(
            "lo_ns,hi_ns,packets\n1000,2000,98\n2000,3000,1\n5000,6000,0\n9000,10000,1\n",
        );
        assert_eq!(h.len(), 4);
        // The 50th of 100 packets is 50/98 of the way through the first bin.
        assert!((hist_pct(&h, 50.0) - (1.0 + 50.0 / 98.0)).abs() < 1e-12);
        assert_eq!(hist_pct(&h, 98.5), 2.5);
        assert_eq!(hist_pct(&h, 99.0), 3.0);
        assert_eq!(hist_pct(&h, 99.5), 9.5, "the empty bin is skipped");
        assert_eq!(hist_pct(&h, 100.0), 10.0);
        assert_eq!(hist_pct(&[], 99.0), 0.0);
        assert!((hist_mean(&h) - (1.5 * 98.0 + 2.5 + 9.5) / 100.0).abs() < 1e-12);
    }

    #[test]
    fn link_utilization_is_read_per_port_in_ms() {
        let m = parse_link_util(
            "time_ns,node,port,utilization,tx_bytes,data_bytes\n\
             10000,17,0,0.5,625,600\n10000,17,1,1,1250,1200\n20000,17,0,1,1250,1200\n",
        );
        assert_eq!(m[&(17, 0)], vec![(0.01, 0.5), (0.02, 1.0)]);
        assert_eq!(mean_between(&m[&(17, 0)], 0.0, 0.02), 0.75);
        assert!(mean_between(&m[&(17, 1)], 0.05, 0.1).is_nan());
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
        assert_eq!(settles_below(&s, 200.0, 0.0), Some(3.0));
        assert_eq!(settles_below(&s, 400.0, 0.0), None);
        assert_eq!(peak(&s), 300.0);
    }

    #[test]
    fn a_queue_settles_only_when_it_stays_below_the_level() {
        // A dip below 200 at 2 ms lasts 1 ms; the queue settles at 5 ms.
        let s = [
            (0.0, 10.0),
            (1.0, 300.0),
            (2.0, 150.0),
            (3.0, 250.0),
            (5.0, 100.0),
            (6.0, 50.0),
            (9.0, 80.0),
        ];
        assert_eq!(settles_below(&s, 200.0, 2.0), Some(5.0));
        assert_eq!(settles_below(&s, 200.0, 10.0), Some(5.0), "to the end");
        assert_eq!(settles_below(&s, 400.0, 1.0), None, "never above");
    }
}
