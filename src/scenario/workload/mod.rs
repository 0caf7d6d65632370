//! `[workload]`: explicit flows (`[[workload.flows]]`), incasts
//! (`[[workload.incast]]`), flow files in the ns-3 format, and the generator
//! tables (`generators`). Flows from all of them are merged and sorted by start
//! time (stable). docs/scenario.md and docs/topologies-and-workloads.md are the
//! reference for every key.

mod collective;
mod generators;

use super::ctx::{Ctx, check_flow, check_host, resolve_path};
use crate::error::InputError;
use crate::ids::FlowId;
use crate::topology::{NodeId, Topology};
use crate::units::{Bytes, Delta, SimTime};
use crate::workload::program::{Builder, Programs};
use crate::workload::{FlowSpec, incast::incast};
use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkloadSection {
    #[serde(default)]
    pub(super) flows: Vec<FlowEntry>,
    #[serde(default)]
    incast: Vec<IncastEntry>,
    /// Flow files in the HPCC ns-3 format (paths relative to the scenario file).
    #[serde(default)]
    ns3_flow_files: Vec<String>,
    /// Shift ns-3 flow-file start times by this much (they usually start at 2 s).
    ns3_time_offset: Option<Delta>,
    /// Generators (docs/topologies-and-workloads.md); see [`generators`].
    #[serde(default)]
    poisson: Vec<generators::PoissonEntry>,
    #[serde(default)]
    incast_periodic: Vec<generators::IncastPeriodicEntry>,
    #[serde(default)]
    permutation: Vec<generators::PermutationEntry>,
    #[serde(default)]
    all_to_all: Vec<generators::AllToAllEntry>,
    #[serde(default)]
    long_short: Vec<generators::LongShortEntry>,
    #[serde(default)]
    staggered: Vec<generators::StaggeredEntry>,
    #[serde(default)]
    periodic: Vec<generators::PeriodicEntry>,
    /// Jobs of collectives (docs/ai-workloads.md).
    #[serde(default)]
    collective: Vec<collective::CollectiveEntry>,
    /// Dependency graphs: rocesim's format or Chakra traces (docs/ai-workloads.md).
    #[serde(default)]
    graph: Vec<collective::GraphEntry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FlowEntry {
    src: u32,
    dst: u32,
    pub(super) size: Bytes,
    #[serde(default)]
    start: Delta,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IncastEntry {
    /// Sender host ids; or omit and give `fan_in` to take the first hosts that are
    /// not the receiver.
    #[serde(default)]
    senders: Vec<u32>,
    fan_in: Option<u32>,
    receiver: u32,
    size: Bytes,
    #[serde(default)]
    start: Delta,
    /// Each sender starts at `start` plus its own offset, uniform in
    /// `[0, start_spread)` and drawn from the scenario seed: hosts of a real
    /// testbed do not start within the same nanosecond. Default 0 (together).
    #[serde(default)]
    start_spread: Delta,
    #[serde(default = "default_class")]
    class: u8,
}

fn default_class() -> u8 {
    3
}

fn default_dport() -> u16 {
    100
}

impl WorkloadSection {
    /// The size distributions the Poisson generators draw from, as written.
    pub(super) fn cdf_names(&self) -> Vec<&str> {
        self.poisson.iter().map(|p| p.cdf()).collect()
    }

    /// What ns-3 flow-file start times are shifted by (outputs in ns-3's
    /// format shift them back).
    pub(super) fn ns3_time_offset(&self) -> Delta {
        self.ns3_time_offset.unwrap_or(Delta::ZERO)
    }
}

/// Every flow of the workload, sorted by start time, and the programs that
/// start some of them (collectives), if any. `payload_fraction` (payload over
/// wire bytes of a full packet) sizes the flows of generators that aim at a
/// goodput.
pub(super) fn resolve(
    w: &WorkloadSection,
    topo: &Topology,
    base: &Path,
    seed: u64,
    payload_fraction: f64,
    cx: &Ctx,
) -> Result<(Vec<FlowSpec>, Option<Programs>), InputError> {
    let flows = timed(w, topo, base, seed, payload_fraction, cx)?;
    let g = generators::Gen { topo, cx };
    let mut b = Builder::new();
    collective::build(&w.collective, &w.graph, &g, base, seed, &mut b)?;
    if b.is_empty() {
        return Ok((flows, None));
    }
    crate::limits::check_count(
        "the number of flows",
        (flows.len() + b.flows().len()) as u64,
        crate::limits::MAX_FLOWS,
    )
    .map_err(|m| cx.err("workload.collective", m))?;
    let (flows, ids) = merge(flows, b.flows());
    let n = flows.len();
    Ok((flows, Some(b.finish(topo, &ids, n))))
}

/// `timed` (sorted by start) and the programs' flows `started` merged and
/// sorted by start time (stable: the timed flows keep their order and come
/// first among equal starts), with each program flow's new id.
fn merge(timed: Vec<FlowSpec>, started: &[FlowSpec]) -> (Vec<FlowSpec>, Vec<FlowId>) {
    let n_timed = timed.len();
    let mut all = timed;
    all.extend(started.iter().cloned());
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| all[i].start);
    let mut id = vec![FlowId(0); all.len()];
    for (pos, &i) in order.iter().enumerate() {
        id[i] = FlowId::from_idx(pos);
    }
    let sorted = order.iter().map(|&i| all[i].clone()).collect();
    (sorted, id.split_off(n_timed))
}

/// The flows that start at a time of their own (every table but the
/// collectives), sorted by start time.
fn timed(
    w: &WorkloadSection,
    topo: &Topology,
    base: &Path,
    seed: u64,
    payload_fraction: f64,
    cx: &Ctx,
) -> Result<Vec<FlowSpec>, InputError> {
    let mut flows = listed(w, topo, seed, cx)?;
    flows.extend(ns3_files(w, topo, base, cx)?);
    flows.sort_by_key(|f| f.start);
    // Generated flows join the explicit ones, sorted by start time (stable).
    flows.extend(generators::generate(
        w,
        topo,
        base,
        cx,
        seed,
        payload_fraction,
    )?);
    crate::limits::check_count(
        "the number of flows",
        flows.len() as u64,
        crate::limits::MAX_FLOWS,
    )
    .map_err(|m| cx.err("workload", m))?;
    // Every generator keeps its starts within the time limit; this is the net.
    if let Some(f) = flows
        .iter()
        .find(|f| f.start.ps() > crate::limits::MAX_TIME_PS)
    {
        return Err(cx.err(
            "workload",
            format!(
                "a flow from host {} starts at {} s, after the time limit of {:.0} s (docs/scenario.md, Limits)",
                f.src,
                f.start.as_secs_f64(),
                crate::limits::max_time_s()
            ),
        ));
    }
    flows.sort_by_key(|f| f.start);
    Ok(flows)
}

/// `[[workload.flows]]` and `[[workload.incast]]`, in that order.
fn listed(
    w: &WorkloadSection,
    topo: &Topology,
    seed: u64,
    cx: &Ctx,
) -> Result<Vec<FlowSpec>, InputError> {
    let mut flows = Vec::new();
    for (i, e) in w.flows.iter().enumerate() {
        let f = FlowSpec {
            src: NodeId(e.src),
            dst: NodeId(e.dst),
            size: e.size.0,
            start: SimTime(e.start.ps()),
            class: e.class,
            dport: e.dport,
        };
        check_flow(&f, topo, &format!("workload.flows[{i}]"), cx)?;
        flows.push(f);
    }
    for (i, e) in w.incast.iter().enumerate() {
        flows.extend(incast_flows(
            e,
            &format!("workload.incast[{i}]"),
            i,
            topo,
            seed,
            cx,
        )?);
    }
    Ok(flows)
}

/// The flows of the `i`th `[[workload.incast]]` table, written as `field`.
fn incast_flows(
    e: &IncastEntry,
    field: &str,
    i: usize,
    topo: &Topology,
    seed: u64,
    cx: &Ctx,
) -> Result<Vec<FlowSpec>, InputError> {
    // Errors name the fields as written: receiver, senders[j], size, class.
    let receiver = NodeId(e.receiver);
    check_host(receiver, topo, &format!("{field}.receiver"), cx)?;
    let senders = generators::pick_senders(topo, cx, field, &e.senders, e.fan_in, receiver)?;
    for (j, &s) in senders.iter().enumerate() {
        let at = format!("{field}.senders[{j}]");
        check_host(s, topo, &at, cx)?;
        if s == receiver {
            return Err(cx.err(at, format!("host {s} is the receiver")));
        }
        if topo.server(s) == topo.server(receiver) {
            return Err(cx.err(at, format!("host {s} is a NIC of the receiver's server")));
        }
    }
    let mut spread = crate::workload::incast::StartSpread::new(
        e.start_spread,
        crate::workload::derive_seed(seed, "incast", i),
    );
    let mut flows = Vec::new();
    for mut f in incast(&senders, receiver, e.size.0, SimTime(e.start.ps()), e.class) {
        f.start += spread.offset();
        check_flow(&f, topo, field, cx)?;
        flows.push(f);
    }
    Ok(flows)
}

/// The flows of `ns3_flow_files`, their starts shifted by `ns3_time_offset`.
fn ns3_files(
    w: &WorkloadSection,
    topo: &Topology,
    base: &Path,
    cx: &Ctx,
) -> Result<Vec<FlowSpec>, InputError> {
    let offset = w.ns3_time_offset();
    let mut flows = Vec::new();
    for (i, file) in w.ns3_flow_files.iter().enumerate() {
        let path = resolve_path(base, file);
        let read = crate::workload::ns3::read_flows(&path)?;
        for (j, mut f) in read.into_iter().enumerate() {
            if f.start.ps() < offset.ps() {
                return Err(InputError::in_file(
                    &path,
                    format!("flow {}", j + 1),
                    format!(
                        "starts at {} before workload.ns3_time_offset = {offset}",
                        f.start
                    ),
                ));
            }
            f.start = SimTime(f.start.ps() - offset.ps());
            check_flow(
                &f,
                topo,
                &format!("workload.ns3_flow_files[{i}] flow {}", j + 1),
                cx,
            )?;
            flows.push(f);
        }
    }
    Ok(flows)
}
