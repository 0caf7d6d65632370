//! The report's figures, each built from one or more runs: with several runs,
//! every figure has one series per run (the papers compare schemes this way).
//! A figure without data becomes a note saying which recorder to turn on.

use super::data::RunData;
use super::stats::{self, fmt_size};
use crate::plot::{AxisSpec, BarChart, Figure, Legend, LineChart, LineStyle, Series};

/// One figure of a report: its file stem, caption, and the figure or why not.
#[derive(Clone, Debug)]
pub struct Fig {
    pub stem: String,
    pub title: String,
    pub caption: String,
    pub figure: Option<Figure>,
    /// Why there is no figure.
    pub missing: String,
}

impl Fig {
    pub(super) fn new(stem: &str, title: &str, caption: impl Into<String>) -> Fig {
        Fig {
            stem: stem.into(),
            title: title.into(),
            caption: caption.into(),
            figure: None,
            missing: String::new(),
        }
    }
    pub(super) fn with(mut self, f: Figure) -> Fig {
        self.figure = Some(f);
        self
    }
    pub(super) fn without(mut self, why: impl Into<String>) -> Fig {
        self.missing = why.into();
        self
    }

    /// Data points drawn (all series, bars or CDF samples).
    pub fn points(&self) -> usize {
        match &self.figure {
            Some(Figure::Line(c)) => c
                .series
                .iter()
                .map(|s| {
                    s.points
                        .iter()
                        .filter(|p| p.0.is_finite() && p.1.is_finite())
                        .count()
                })
                .sum(),
            Some(Figure::Bar(c)) => c.groups.iter().map(|g| g.1.len()).sum(),
            Some(Figure::Cdf(c)) => c.samples.iter().map(|s| s.1.len()).sum(),
            Some(Figure::Heatmap(h)) => h.z.iter().map(Vec::len).sum(),
            None => 0,
        }
    }
}

pub(super) fn line(
    title: &str,
    x: AxisSpec,
    y: AxisSpec,
    series: Vec<Series>,
    legend: Legend,
) -> Figure {
    Figure::Line(LineChart {
        title: title.into(),
        x,
        y,
        series,
        legend,
    })
}

/// Time axis unit for data reaching `max_ns`: (divisor, label).
fn time_unit(max_ns: f64) -> (f64, &'static str) {
    if max_ns > 20e6 {
        (1e6, "time (ms)")
    } else {
        (1e3, "time (µs)")
    }
}

/// FCT slowdown against flow size, x = flow-size percentile buckets labelled
/// with sizes (HPCC Fig. 10a/11a, RCC Fig. 10/11). One run: p50, p95 and p99;
/// several runs: one figure per percentile (`which` = 50, 95 or 99).
pub fn fct_slowdown(runs: &[&RunData], step: u32, dport: Option<u16>, which: Option<u32>) -> Fig {
    let stem = match which {
        None => "fct_slowdown".to_string(),
        Some(p) => format!("fct_slowdown_p{p}"),
    };
    let title = match which {
        None => "FCT slowdown by flow size".to_string(),
        Some(p) => format!("FCT slowdown by flow size, p{p}"),
    };
    let caption = format!(
        "Each point is a bucket of {step}% of the flows by size{}; the x axis places buckets \
         by percentile and labels them with the size of the bucket's largest flow. \
         Nearest-rank percentiles of FCT / ideal FCT (slowdowns below 1 count as 1).",
        dport
            .map(|d| format!(" (flows to dport {d})"))
            .unwrap_or_default()
    );
    let fig = Fig::new(&stem, &title, caption);
    let buckets: Vec<Vec<stats::Bucket>> = runs
        .iter()
        .map(|r| stats::size_buckets(&super::select_flows(r, dport), step))
        .collect();
    let Some(first) = buckets.iter().find(|b| !b.is_empty()) else {
        return fig.without("no completed flows");
    };
    let every = first.len().div_ceil(10).max(1);
    let ticks: Vec<(f64, String)> = first
        .iter()
        .enumerate()
        .filter(|(i, _)| (first.len() - 1 - i) % every == 0)
        .map(|(_, b)| (b.hi_pct, fmt_size(b.max_size as f64)))
        .collect();
    let x = AxisSpec::linear("flow size (buckets by percentile; largest size in bucket)")
        .with_range(0.0, 100.0 + step as f64 / 2.0)
        .with_ticks(ticks);
    let y = AxisSpec::log("FCT slowdown");
    let pts = |b: &[stats::Bucket], f: fn(&stats::Bucket) -> f64| -> Vec<(f64, f64)> {
        b.iter().map(|x| (x.hi_pct, f(x))).collect()
    };
    let getter = |p: u32| -> fn(&stats::Bucket) -> f64 {
        match p {
            50 => |b| b.p50,
            95 => |b| b.p95,
            _ => |b| b.p99,
        }
    };
    let series = match which {
        None => [50, 95, 99]
            .iter()
            .map(|&p| Series::line(format!("p{p}"), pts(&buckets[0], getter(p))))
            .collect(),
        Some(p) => runs
            .iter()
            .zip(&buckets)
            .map(|(r, b)| Series::line(r.label.clone(), pts(b, getter(p))))
            .collect(),
    };
    fig.with(line(&title, x, y, series, Legend::UpperLeft))
}

/// CDF of egress queue lengths, time-weighted over all watched ports (HPCC Fig. 10b/d).
pub fn queue_cdf(runs: &[&RunData]) -> Fig {
    let fig = Fig::new(
        "queue_cdf",
        "Queue length CDF",
        "Fraction of (port × time) with the egress queue at or below x, over every watched \
         switch port from the first flow's start to the end (time-weighted, exact; bins of \
         1/8 octave). The curve starts at the fraction of time queues were empty.",
    );
    let series: Vec<Series> = runs
        .iter()
        .filter_map(|r| {
            let h = r.queue_hist.as_ref()?;
            let bins = stats::merge_bins(h.iter().map(|b| &b.bin));
            let pts = stats::hist_cdf(&bins, 1e-3);
            (!pts.is_empty()).then(|| Series::line(r.label.clone(), pts))
        })
        .collect();
    if series.is_empty() {
        return fig.without("no queue_hist.csv (set output.queue_histogram = true)");
    }
    let x = AxisSpec::log("queue length (KB)");
    let (lo, note) = cdf_floor(&series);
    let y = AxisSpec::linear("fraction of port-time ≤ x").with_range(lo, 1.0);
    let legend = if runs.len() > 1 {
        Legend::LowerRight
    } else {
        Legend::None
    };
    let mut f = fig.with(line("Queue length CDF", x, y, series, legend));
    f.caption += &note;
    f
}

/// Where a CDF's y axis starts: at the largest tenth below every curve's
/// start, so that mostly-empty queues leave the tail readable; and a caption note.
fn cdf_floor(series: &[Series]) -> (f64, String) {
    let start = series
        .iter()
        .filter_map(|s| s.points.first().map(|p| p.1))
        .fold(1.0, f64::min);
    let lo = ((start * 10.0 - 1e-9).floor() / 10.0).clamp(0.0, 0.9);
    if lo > 0.0 {
        (lo, format!(" The y axis starts at {lo:.1}."))
    } else {
        (0.0, String::new())
    }
}

/// CDF of data packets' one-way delay (HPCC Fig. 9e, 11b/d show its percentiles).
pub fn latency_cdf(runs: &[&RunData]) -> Fig {
    let fig = Fig::new(
        "latency_cdf",
        "Packet latency CDF",
        "One-way delay of the recorded flows' data packets, from the start of \
         serialization at the sender's NIC to arrival at the receiver \
         (output.latency; bins of 1/8 octave).",
    );
    let series: Vec<Series> = runs
        .iter()
        .filter_map(|r| {
            let bins = stats::merge_bins(r.latency_hist.as_ref()?.iter());
            let pts = stats::hist_cdf(&bins, 1e-3);
            (!pts.is_empty()).then(|| Series::line(r.label.clone(), pts))
        })
        .collect();
    if series.is_empty() {
        return fig.without(
            "no packets recorded (latency_hist.csv missing or empty: output.latency selects \
             flows under 100KB by default; set output.latency = { flows = \"all\" })",
        );
    }
    let x = AxisSpec::log("one-way delay (µs)");
    let (lo, note) = cdf_floor(&series);
    let y = AxisSpec::linear("fraction of packets ≤ x").with_range(lo, 1.0);
    let legend = if runs.len() > 1 {
        Legend::LowerRight
    } else {
        Legend::None
    };
    let mut f = fig.with(line("Packet latency CDF", x, y, series, legend));
    f.caption += &note;
    f
}

/// Paused port-classes of one run on a timeline (at most 40 rows, the most paused).
pub fn pfc_timeline(run: &RunData) -> Fig {
    let fig = Fig::new(
        "pfc_timeline",
        "PFC pauses over time",
        "One row per paused port-class (node:port/priority of the egress that was paused); \
         a segment per pause, from pause to resume (pauses still in force end at the run's end).",
    );
    let Some(rows) = &run.pfc else {
        return fig.without("no pfc.csv");
    };
    let mut paused = stats::paused_intervals(rows, run.end_ns());
    if paused.is_empty() {
        return fig.without("no PFC pause in this run");
    }
    let max_rows = 40;
    let mut caption = fig.caption.clone();
    if paused.len() > max_rows {
        caption += &format!(
            " Showing the {max_rows} most paused of {} port-classes.",
            paused.len()
        );
        paused.sort_by(|a, b| b.total_ns().total_cmp(&a.total_ns()));
        paused.truncate(max_rows);
        paused.sort_by_key(|p| (p.node, p.port, p.priority));
    }
    let max_t = paused
        .iter()
        .flat_map(|p| p.intervals.iter().map(|i| i.1))
        .fold(0.0, f64::max);
    let (div, xlabel) = time_unit(max_t);
    let mut pts = Vec::new();
    for (k, p) in paused.iter().enumerate() {
        for &(a, b) in &p.intervals {
            // A pause shorter than a pixel still shows as a short segment.
            pts.extend([
                (a / div, k as f64),
                (b / div, k as f64),
                (f64::NAN, f64::NAN),
            ]);
        }
    }
    let every = paused.len().div_ceil(20).max(1);
    let ticks = paused
        .iter()
        .enumerate()
        .filter(|(k, _)| k % every == 0)
        .map(|(k, p)| (k as f64, p.name()))
        .collect();
    let y = AxisSpec::linear("paused port-class")
        .with_range(-1.0, paused.len() as f64)
        .with_ticks(ticks);
    let series = vec![Series::line("paused", pts)];
    let mut f = fig.with(line(
        "PFC pauses over time",
        AxisSpec::linear(xlabel),
        y,
        series,
        Legend::None,
    ));
    f.caption = caption;
    f
}

/// Number of paused port-classes over time, one series per run.
pub fn pfc_count(runs: &[&RunData]) -> Fig {
    let fig = Fig::new(
        "pfc_paused_count",
        "Paused port-classes over time",
        "How many port-classes are paused at each instant (from pfc.csv pause/resume pairs).",
    );
    let all: Vec<(String, Vec<stats::Paused>)> = runs
        .iter()
        .filter_map(|r| {
            Some((
                r.label.clone(),
                stats::paused_intervals(r.pfc.as_ref()?, r.end_ns()),
            ))
        })
        .collect();
    if all.iter().all(|(_, p)| p.is_empty()) {
        return fig.without("no PFC pause in any run");
    }
    let max_t = runs.iter().map(|r| r.end_ns()).fold(0.0, f64::max);
    let (div, xlabel) = time_unit(max_t);
    let series = all
        .iter()
        .map(|(l, p)| {
            let pts = stats::paused_count(p)
                .into_iter()
                .map(|(t, n)| (t / div, n))
                .collect();
            Series::line(l.clone(), pts)
        })
        .collect();
    let y = AxisSpec::linear("paused port-classes");
    fig.with(line(
        "Paused port-classes over time",
        AxisSpec::linear(xlabel),
        y,
        series,
        Legend::UpperRight,
    ))
}

/// Total paused time per port-class (the most paused 20), one group per run.
pub fn pfc_ports(runs: &[&RunData]) -> Fig {
    let fig = Fig::new(
        "pfc_ports",
        "PFC paused time per port",
        "Total paused time of the most paused port-classes (node:port/priority of the paused \
         egress), from pfc.csv pause/resume pairs; pauses in force at the end count until then.",
    );
    let per_run: Vec<Vec<stats::Paused>> = runs
        .iter()
        .map(|r| {
            r.pfc
                .as_ref()
                .map(|p| stats::paused_intervals(p, r.end_ns()))
                .unwrap_or_default()
        })
        .collect();
    // Rank port-classes by their largest total over the runs.
    let mut best: std::collections::BTreeMap<(u32, u16, u8), f64> = Default::default();
    for p in per_run.iter().flatten() {
        let e = best.entry((p.node, p.port, p.priority)).or_default();
        *e = e.max(p.total_ns());
    }
    if best.is_empty() {
        return fig.without("no PFC pause");
    }
    let mut keys: Vec<_> = best.into_iter().collect();
    keys.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    keys.truncate(20);
    let categories = keys
        .iter()
        .map(|((n, p, c), _)| format!("{n}:{p}/{c}"))
        .collect();
    let groups = runs
        .iter()
        .zip(&per_run)
        .map(|(r, ps)| {
            let vals = keys
                .iter()
                .map(|(k, _)| {
                    ps.iter()
                        .find(|p| (p.node, p.port, p.priority) == *k)
                        .map_or(0.0, |p| p.total_ns() / 1e3)
                })
                .collect();
            (
                if runs.len() > 1 {
                    r.label.clone()
                } else {
                    String::new()
                },
                vals,
            )
        })
        .collect();
    fig.with(Figure::Bar(BarChart {
        title: "PFC paused time per port".into(),
        x_label: "paused egress (node:port/priority)".into(),
        categories,
        y: AxisSpec::linear("paused time (µs)"),
        groups,
        legend: Legend::UpperRight,
    }))
}

/// At most this many flows are drawn in per-flow figures.
const MAX_FLOWS: usize = 8;

/// Delivered throughput (solid) of recorded flows over time (HPCC Fig. 9, RCC Fig. 6).
pub fn flow_throughput(run: &RunData, stem: &str) -> Fig {
    flow_series(
        run,
        stem,
        &format!("Flow throughput{}", label_suffix(stem, run)),
        "Payload delivered in order at the receiver per sampling interval (output.flow_rates).",
        |r| r.delivered_gbps,
        "delivered throughput (Gbps)",
    )
}

/// The controller's sending rate of recorded flows over time.
pub fn flow_rate(run: &RunData) -> Fig {
    flow_series(
        run,
        "flow_rate",
        "Sending rate",
        "The congestion controller's pacing rate at each sampling instant (output.flow_rates).",
        |r| r.rate_gbps,
        "sending rate (Gbps)",
    )
}

fn label_suffix(stem: &str, run: &RunData) -> String {
    if stem == "flow_throughput" {
        String::new()
    } else {
        format!(": {}", run.label)
    }
}

fn flow_series(
    run: &RunData,
    stem: &str,
    title: &str,
    caption: &str,
    value: fn(&super::data::RateRow) -> f64,
    ylabel: &str,
) -> Fig {
    let fig = Fig::new(stem, title, caption);
    let Some(rows) = run.flow_rates.as_ref().filter(|r| !r.is_empty()) else {
        return fig.without(
            "no flow_rates.csv (set output.flow_rates = { flows = [0, 1], interval = \"10us\" })",
        );
    };
    let flows = stats::by_flow(rows);
    let mut caption = caption.to_string();
    if flows.len() > MAX_FLOWS {
        caption += &format!(
            " Showing the first {MAX_FLOWS} of {} recorded flows.",
            flows.len()
        );
    }
    let max_t = rows.iter().map(|r| r.time_ns).fold(0.0, f64::max);
    let (div, xlabel) = time_unit(max_t);
    let series = flows
        .iter()
        .take(MAX_FLOWS)
        .map(|(id, rs)| {
            // Each row covers (t - interval, t]: draw it as a step.
            let pts = rs
                .iter()
                .flat_map(|r| {
                    let v = value(r);
                    [((r.time_ns - r.interval_ns) / div, v), (r.time_ns / div, v)]
                })
                .collect();
            Series::line(format!("flow {id}"), pts)
        })
        .collect();
    let mut f = fig.with(line(
        title,
        AxisSpec::linear(xlabel),
        AxisSpec::linear(ylabel),
        series,
        Legend::UpperRight,
    ));
    f.caption = caption;
    f
}

/// Jain's fairness index of the recorded flows over time, one series per run.
pub fn fairness(runs: &[&RunData]) -> Fig {
    let fig = Fig::new(
        "fairness",
        "Fairness of recorded flows",
        "Jain's index (Σx)²/(n·Σx²) of the delivered throughput of the flows recorded at each \
         sampling instant (instants with at least two flows).",
    );
    let series: Vec<Series> = runs
        .iter()
        .filter_map(|r| {
            let pts = stats::jain_over_time(r.flow_rates.as_ref()?);
            (!pts.is_empty()).then(|| Series::line(r.label.clone(), pts))
        })
        .collect();
    if series.is_empty() {
        return fig.without("fewer than two flows recorded at once (output.flow_rates)");
    }
    let max_t = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    let (div, xlabel) = time_unit(max_t);
    let series = series
        .into_iter()
        .map(|mut s| {
            s.points.iter_mut().for_each(|p| p.0 /= div);
            s
        })
        .collect();
    let y = AxisSpec::linear("Jain's fairness index").with_range(0.0, 1.05);
    fig.with(line(
        "Fairness of recorded flows",
        AxisSpec::linear(xlabel),
        y,
        series,
        Legend::LowerRight,
    ))
}

/// Utilization of the busiest watched ports over time (one run), or the mean
/// over watched ports (several runs).
pub fn link_util(runs: &[&RunData]) -> Fig {
    let single = runs.len() == 1;
    let fig = Fig::new(
        "link_util",
        "Link utilization",
        if single {
            "Busy fraction of each sampling interval of the watched egress ports with the \
             highest mean utilization (output.link_utilization)."
        } else {
            "Mean busy fraction over all watched egress ports per sampling interval \
             (output.link_utilization)."
        },
    );
    let with: Vec<(&RunData, &Vec<super::data::UtilRow>)> = runs
        .iter()
        .filter_map(|r| Some((*r, r.link_util.as_ref().filter(|u| !u.is_empty())?)))
        .collect();
    if with.is_empty() {
        return fig.without("no link_util.csv (set output.link_utilization = \"10us\")");
    }
    let max_t = with
        .iter()
        .flat_map(|(_, u)| u.iter().map(|r| r.time_ns))
        .fold(0.0, f64::max);
    let (div, xlabel) = time_unit(max_t);
    let mut series = Vec::new();
    for (r, rows) in &with {
        let mut ports: std::collections::BTreeMap<(u32, u16), Vec<(f64, f64)>> = Default::default();
        for u in rows.iter() {
            ports
                .entry((u.node, u.port))
                .or_default()
                .push((u.time_ns / div, u.utilization));
        }
        if single {
            let mut ranked: Vec<_> = ports.into_iter().collect();
            let mean =
                |v: &[(f64, f64)]| v.iter().map(|p| p.1).sum::<f64>() / v.len().max(1) as f64;
            ranked.sort_by(|a, b| mean(&b.1).total_cmp(&mean(&a.1)).then(a.0.cmp(&b.0)));
            for ((n, p), pts) in ranked.into_iter().take(MAX_FLOWS) {
                series.push(Series::line(format!("{n}:{p}"), pts));
            }
        } else {
            let mut by_t: std::collections::BTreeMap<u64, (f64, usize)> = Default::default();
            for pts in ports.values() {
                for &(t, u) in pts {
                    let e = by_t.entry(t.to_bits()).or_default();
                    e.0 += u;
                    e.1 += 1;
                }
            }
            let mut pts: Vec<(f64, f64)> = by_t
                .into_iter()
                .map(|(t, (s, n))| (f64::from_bits(t), s / n as f64))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            series.push(Series::line(r.label.clone(), pts).styled(LineStyle::Solid));
        }
    }
    let y = AxisSpec::linear("utilization").with_range(0.0, 1.05);
    fig.with(line(
        "Link utilization",
        AxisSpec::linear(xlabel),
        y,
        series,
        Legend::LowerRight,
    ))
}
