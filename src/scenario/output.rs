//! `[output]`: which recorders run and what they watch (queue samples and
//! histograms, link utilization, flow rates, latency histograms, the ns-3
//! simulator's output files). docs/scenario.md is the reference for every key.

use super::ctx::Ctx;
use crate::config::{FctFormat, FlowSet, OutputPlan};
use crate::error::InputError;
use crate::output::TableFormat;
use crate::topology::{NodeId, NodeKind, Topology};
use crate::units::{Bytes, Delta, SimTime};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OutputSection {
    /// Queue sampling interval for queue.csv. Default 1 us; "0s" turns sampling off.
    queue_interval: Option<Delta>,
    /// Which egress ports the per-port recorders watch (queue.csv, queue_hist.csv,
    /// link_util.csv): "switches" (every switch port, the default), "none", or a
    /// list of `{ node = N, port = P }`.
    queue_ports: Option<QueuePorts>,
    /// "csv" (default) or "ns3": also write the HPCC ns-3 simulator's fct.txt and
    /// pfc.txt (and qlen.txt with `qlen_mon_end`), docs/ns3-compat.md.
    fct_format: Option<FctFormat>,
    /// The streamed tables' format: "csv" or "parquet". Default: CSV, or
    /// Parquet where the run is sure to write more than 1 GB of CSV.
    format: Option<TableFormat>,
    /// ns-3 qlen.txt: sample switch queues every 100 ns from here (sim time).
    qlen_mon_start: Option<Delta>,
    /// ns-3 qlen.txt: until here (sim time).
    qlen_mon_end: Option<Delta>,
    /// Time-weighted histogram of each watched port's queue length over the run
    /// (queue_hist.csv). Default true.
    queue_histogram: Option<bool>,
    /// Link utilization of each watched port, sampled at this interval
    /// (link_util.csv). Default "0s" = off.
    link_utilization: Option<Delta>,
    /// Sending rate and delivered throughput of selected flows over time
    /// (flow_rates.csv). Default: off.
    flow_rates: Option<FlowRatesSection>,
    /// One-way delay histogram of the data packets of selected flows
    /// (latency_hist.csv). Default: flows smaller than 100KB.
    latency: Option<LatencySection>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowRatesSection {
    /// "all" or a list of flow ids (fct.csv `flow_id`).
    flows: FlowSelect,
    /// Sampling interval. Default "10us".
    interval: Option<Delta>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LatencySection {
    /// "small" (default), "all", "none" or a list of flow ids.
    flows: Option<FlowSelect>,
    /// Flows smaller than this are "small". Default "100KB".
    small_below: Option<Bytes>,
    /// `[from, to]`: only packets delivered in this window of simulated time
    /// count (e.g. P-PFC §5.7's "first 1500 microseconds"). Default: the whole run.
    window: Option<Vec<Delta>>,
}

/// A set of flows named in `[output]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum FlowSelect {
    Named(String),
    List(Vec<u32>),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum QueuePorts {
    Named(String),
    List(Vec<PortRef>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PortRef {
    node: u32,
    port: u16,
}

/// The recorders of a run of `n_flows` flows over `topo`; `ns3_time_offset`
/// shifts the times of the ns-3 format's files.
pub(super) fn resolve(
    o: &OutputSection,
    ns3_time_offset: Delta,
    topo: &Topology,
    n_flows: usize,
    cx: &Ctx,
) -> Result<OutputPlan, InputError> {
    let fct_format = o.fct_format.unwrap_or(FctFormat::Csv);
    let qlen_mon = qlen_mon(o, fct_format, cx)?;
    let interval = o.queue_interval.unwrap_or(Delta::from_us(1));
    let queue_ports = queue_ports(o, topo, cx)?;
    let flow_rates = match &o.flow_rates {
        None => None,
        Some(fr) => {
            let set = resolve_flow_set(&fr.flows, false, n_flows, "output.flow_rates.flows", cx)?;
            let iv = fr.interval.unwrap_or(Delta::from_us(10));
            if iv.is_zero() {
                return Err(cx.err(
                    "output.flow_rates.interval",
                    "must be > 0, e.g. \"10us\" (omit output.flow_rates to turn it off)",
                ));
            }
            Some((set, iv))
        }
    };
    let (latency, latency_window) = latency(o, n_flows, cx)?;
    Ok(OutputPlan {
        queue_interval: (!interval.is_zero()).then_some(interval),
        queue_ports,
        fct_format,
        format: o.format,
        qlen_mon,
        ns3_time_offset,
        queue_histogram: o.queue_histogram.unwrap_or(true),
        link_utilization: o.link_utilization.filter(|d| !d.is_zero()),
        flow_rates,
        latency,
        latency_window,
    })
}

/// The window of the ns-3 simulator's qlen.txt, if asked for.
fn qlen_mon(
    o: &OutputSection,
    fct_format: FctFormat,
    cx: &Ctx,
) -> Result<Option<(SimTime, SimTime)>, InputError> {
    match (o.qlen_mon_start, o.qlen_mon_end) {
        (None, None) => Ok(None),
        (_, None) => Err(cx.err(
            "output.qlen_mon_end",
            "is required with output.qlen_mon_start, e.g. \"10ms\"",
        )),
        (start, Some(end)) => {
            let start = start.unwrap_or(Delta::ZERO);
            if end.ps() < start.ps() {
                return Err(cx.err(
                    "output.qlen_mon_end",
                    format!("{end} is before output.qlen_mon_start = {start}"),
                ));
            }
            if fct_format != FctFormat::Ns3 {
                return Err(cx.err(
                    "output.qlen_mon_end",
                    "qlen.txt is an ns-3 file: set output.fct_format = \"ns3\" too",
                ));
            }
            Ok(Some((SimTime(start.ps()), SimTime(end.ps()))))
        }
    }
}

/// The watched egress ports; `None` for every switch port.
fn queue_ports(
    o: &OutputSection,
    topo: &Topology,
    cx: &Ctx,
) -> Result<Option<Vec<(NodeId, u16)>>, InputError> {
    let list = match &o.queue_ports {
        None => return Ok(None),
        Some(QueuePorts::Named(s)) if s == "switches" => return Ok(None),
        Some(QueuePorts::Named(s)) if s == "none" => return Ok(Some(Vec::new())),
        Some(QueuePorts::Named(s)) => {
            return Err(cx.err(
                "output.queue_ports",
                format!("\"{s}\" is not valid (valid: \"switches\", \"none\", or a list of {{ node, port }})"),
            ));
        }
        Some(QueuePorts::List(list)) => list,
    };
    let mut v = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let field = format!("output.queue_ports[{i}]");
        let node = NodeId(p.node);
        if p.node as usize >= topo.spec.kinds.len() || topo.kind(node) != NodeKind::Switch {
            return Err(cx.err(field, format!("node {} is not a switch", p.node)));
        }
        let np = topo.ports[node.idx()].len();
        if p.port as usize >= np {
            return Err(cx.err(field, format!("switch {} has ports 0..{}", p.node, np - 1)));
        }
        v.push((node, p.port));
    }
    Ok(Some(v))
}

/// The flows whose packets the latency histogram counts, and its window.
fn latency(
    o: &OutputSection,
    n_flows: usize,
    cx: &Ctx,
) -> Result<(FlowSet, Option<(SimTime, SimTime)>), InputError> {
    let lat = o.latency.clone().unwrap_or_default();
    let small_below = lat.small_below.map_or(100_000, |b| b.get());
    let flows = match &lat.flows {
        None => FlowSet::SmallerThan(small_below),
        Some(sel) => match resolve_flow_set(sel, true, n_flows, "output.latency.flows", cx)? {
            FlowSet::SmallerThan(_) => FlowSet::SmallerThan(small_below),
            set => set,
        },
    };
    let window = match lat.window.as_deref() {
        None => None,
        Some(&[from, to]) if from.ps() < to.ps() => Some((SimTime(from.ps()), SimTime(to.ps()))),
        Some(&[from, to]) => {
            return Err(cx.err(
                "output.latency.window",
                format!("[\"{from}\", \"{to}\"] is empty: the end must be after the start"),
            ));
        }
        Some(w) => {
            return Err(cx.err(
                "output.latency.window",
                format!(
                    "{} times; valid: [start, end], e.g. [\"0us\", \"1500us\"]",
                    w.len()
                ),
            ));
        }
    };
    Ok((flows, window))
}

/// `"all"`, `"none"`, `"small"` (when `small_ok`) or a list of flow ids.
fn resolve_flow_set(
    sel: &FlowSelect,
    small_ok: bool,
    n_flows: usize,
    field: &str,
    cx: &Ctx,
) -> Result<FlowSet, InputError> {
    let valid = if small_ok {
        "\"all\", \"small\", \"none\" or a list of flow ids"
    } else {
        "\"all\", \"none\" or a list of flow ids"
    };
    match sel {
        FlowSelect::Named(s) if s == "all" => Ok(FlowSet::All),
        FlowSelect::Named(s) if s == "none" => Ok(FlowSet::None),
        FlowSelect::Named(s) if s == "small" && small_ok => Ok(FlowSet::SmallerThan(0)),
        FlowSelect::Named(s) => {
            Err(cx.err(field, format!("\"{s}\" is not valid (valid: {valid})")))
        }
        FlowSelect::List(ids) => {
            let mut v = ids.clone();
            v.sort_unstable();
            v.dedup();
            if let Some(&bad) = v.iter().find(|&&i| i as usize >= n_flows) {
                return Err(cx.err(
                    field,
                    format!(
                        "flow {bad} does not exist (the scenario has {n_flows} flows, ids 0..{}, in start order as in fct.csv)",
                        n_flows.saturating_sub(1)
                    ),
                ));
            }
            Ok(FlowSet::Ids(v))
        }
    }
}
