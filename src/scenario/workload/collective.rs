//! `[[workload.collective]]`: a job of collectives, and `[[workload.graph]]`:
//! a dependency graph (docs/ai-workloads.md is the reference for every key),
//! resolved into [`JobPlan`]s and [`GraphPlan`]s: their ranks from an
//! explicit host list or a placement, algorithms, channels and chunks.
//!
//! Placements take servers no earlier collective table took (a scheduler
//! gives each job its own servers); an explicit `hosts` list is used as given.

use super::generators::{Gen, HostItem};
use super::{default_class, default_dport};
use crate::error::InputError;
use crate::topology::{NodeId, Topology};
use crate::units::{Bytes, Delta, SimTime};
use crate::workload::collective::{Algorithm, Collective, JobPlan, Op};
use crate::workload::derive_seed;
use crate::workload::graph::{GraphFile, GraphPlan};
use crate::workload::program::Builder;
use rand::seq::SliceRandom;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::scenario) struct CollectiveEntry {
    /// The job's name in collectives.csv (default "job<i>").
    name: Option<String>,
    op: Op,
    algorithm: Option<Algorithm>,
    size: Bytes,
    /// The ranks' servers, in rank order; or `placement` and `ranks`.
    #[serde(default)]
    hosts: Vec<HostItem>,
    placement: Option<Placement>,
    ranks: Option<u32>,
    channels: Option<u32>,
    #[serde(default)]
    chunk: Bytes,
    #[serde(default)]
    step_compute: Delta,
    #[serde(default = "one")]
    iterations: u32,
    #[serde(default)]
    compute: Delta,
    #[serde(default)]
    start: Delta,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
    seed: Option<u64>,
}

fn one() -> u32 {
    1
}

/// How a job's ranks are chosen among the servers left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Placement {
    /// Rack by rack, in rack order.
    Packed,
    /// One server from each rack in turn, the racks of different pods first.
    Spread,
    /// Drawn from the run's seed.
    Random,
    /// Packed, each channel on its own NIC of every server (its rail).
    RailAligned,
}

/// Most channels a collective may have (NCCL's MAXCHANNELS).
const MAX_CHANNELS: u32 = 64;
/// Most iterations of a job.
const MAX_ITERATIONS: u32 = 100_000;

fn job(
    g: &Gen,
    e: &CollectiveEntry,
    field: &str,
    i: usize,
    seed: u64,
    taken: &mut [bool],
) -> Result<JobPlan, InputError> {
    let cx = g.cx;
    let algorithm = e.algorithm.unwrap_or(e.op.algorithms()[0]);
    if !e.op.algorithms().contains(&algorithm) {
        let valid: Vec<&str> = e.op.algorithms().iter().map(|a| a.name()).collect();
        return Err(cx.err(
            format!("{field}.algorithm"),
            format!(
                "{} has no \"{}\" algorithm (valid: {})",
                e.op.name(),
                algorithm.name(),
                valid.join(", ")
            ),
        ));
    }
    let servers = ranks(g, e, field, seed, taken)?;
    let n = servers.len() as u32;
    if algorithm == Algorithm::HalvingDoubling && !n.is_power_of_two() {
        return Err(cx.err(
            format!("{field}.ranks"),
            format!("halving-doubling needs a power-of-two number of ranks, not {n}"),
        ));
    }
    let nics: Vec<Vec<NodeId>> = servers.iter().map(|&s| g.topo.nics(s).to_vec()).collect();
    let default_channels = match (e.placement, algorithm) {
        (Some(Placement::RailAligned), _) => nics[0].len() as u32,
        (_, Algorithm::DoubleBinaryTree) => 2,
        _ => 1,
    };
    let channels = e.channels.unwrap_or(default_channels);
    if !(1..=MAX_CHANNELS).contains(&channels) {
        return Err(cx.err(
            format!("{field}.channels"),
            format!("{channels} is not a channel count (valid: 1..{MAX_CHANNELS})"),
        ));
    }
    if algorithm == Algorithm::DoubleBinaryTree && channels % 2 == 1 {
        return Err(cx.err(
            format!("{field}.channels"),
            format!(
                "the double binary tree splits its channels between its two trees: give an even count, not {channels}"
            ),
        ));
    }
    if !(1..=MAX_ITERATIONS).contains(&e.iterations) {
        return Err(cx.err(
            format!("{field}.iterations"),
            format!(
                "{} is not an iteration count (valid: 1..{MAX_ITERATIONS})",
                e.iterations
            ),
        ));
    }
    let class = g.class(&format!("{field}.class"), e.class)?;
    let coll = Collective {
        op: e.op,
        algorithm,
        size: e.size.0,
        ranks: nics,
        channels,
        chunk: e.chunk.0,
        step_compute: e.step_compute,
        class,
        dport: e.dport,
    };
    let least = coll.least_size();
    if coll.size < least {
        return Err(cx.err(
            format!("{field}.size"),
            format!(
                "{} B is too small for {n} ranks and {channels} channels: every message needs a byte (at least {least} B)",
                coll.size
            ),
        ));
    }
    Ok(JobPlan {
        name: e.name.clone().unwrap_or_else(|| format!("job{i}")),
        start: SimTime(e.start.ps()),
        iterations: e.iterations,
        compute: e.compute,
        collective: coll,
    })
}

/// The ranks' servers: the `hosts` list, or `ranks` servers by `placement`
/// among those no earlier table took (which it then takes).
fn ranks(
    g: &Gen,
    e: &CollectiveEntry,
    field: &str,
    seed: u64,
    taken: &mut [bool],
) -> Result<Vec<NodeId>, InputError> {
    place(
        g,
        Where {
            hosts: &e.hosts,
            placement: e.placement,
            ranks: e.ranks,
        },
        field,
        seed,
        taken,
    )
}

/// Where a job runs, as its table says.
struct Where<'a> {
    hosts: &'a [HostItem],
    placement: Option<Placement>,
    ranks: Option<u32>,
}

/// The servers of `w`: its `hosts`, or `ranks` servers by `placement` among
/// those no earlier table took (which it then takes).
fn place(
    g: &Gen,
    e: Where,
    field: &str,
    seed: u64,
    taken: &mut [bool],
) -> Result<Vec<NodeId>, InputError> {
    let (cx, topo) = (g.cx, g.topo);
    match (e.hosts.is_empty(), e.placement, e.ranks) {
        (false, None, _) => {
            let pool = g.pool(field, e.hosts)?;
            return Ok(pool.hosts);
        }
        (false, _, _) => {
            return Err(cx.err(
                format!("{field}.hosts"),
                "give either hosts or placement and ranks, not both",
            ));
        }
        (true, _, None) => {
            return Err(cx.err(
                format!("{field}.ranks"),
                "is missing: give hosts = [...], or ranks = N (with placement = \"packed\", \"spread\", \"random\" or \"rail-aligned\")",
            ));
        }
        _ => {}
    }
    let n = e.ranks.unwrap_or(0);
    let placement = e.placement.unwrap_or(Placement::Packed);
    if placement == Placement::RailAligned && !topo.multi_nic() {
        return Err(cx.err(
            format!("{field}.placement"),
            "rail-aligned needs servers with several NICs (e.g. topology kind = \"rail-optimized\", or nics_per_host = 2)",
        ));
    }
    let free: Vec<NodeId> = (topo.servers().into_iter())
        .filter(|s| !taken[s.idx()])
        .collect();
    if n < 2 || n as usize > free.len() {
        return Err(cx.err(
            format!("{field}.ranks"),
            format!(
                "{n} ranks cannot be placed: {} servers are free (the fabric's {} less those earlier collective tables took); a collective needs 2 or more",
                free.len(),
                topo.servers().len()
            ),
        ));
    }
    let order = match placement {
        Placement::Packed | Placement::RailAligned => by_rack(topo, free),
        Placement::Spread => spread(topo, free),
        Placement::Random => {
            let mut v = free;
            v.shuffle(&mut crate::workload::rng(seed, 0));
            v
        }
    };
    let chosen: Vec<NodeId> = order.into_iter().take(n as usize).collect();
    for s in &chosen {
        taken[s.idx()] = true;
    }
    Ok(chosen)
}

/// A server's rack: the switch its first NIC hangs off.
fn rack(topo: &Topology, s: NodeId) -> NodeId {
    topo.host_port(s).peer
}

/// `servers` rack by rack (racks in id order, servers in id order).
fn by_rack(topo: &Topology, mut servers: Vec<NodeId>) -> Vec<NodeId> {
    servers.sort_by_key(|&s| (rack(topo, s), s));
    servers
}

/// `servers` one rack at a time in turn: racks grouped into pods (racks whose
/// switches have the same uplink switches, as a fat-tree's pod), and the
/// turn going through the pods first, then the racks within them.
fn spread(topo: &Topology, servers: Vec<NodeId>) -> Vec<NodeId> {
    let mut racks: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for s in by_rack(topo, servers) {
        racks.entry(rack(topo, s)).or_default().push(s);
    }
    let mut pods: BTreeMap<Vec<NodeId>, Vec<NodeId>> = BTreeMap::new();
    for &r in racks.keys() {
        let mut up: Vec<NodeId> = (topo.ports[r.idx()].iter())
            .map(|p| p.peer)
            .filter(|&p| !topo.is_host(p))
            .collect();
        up.sort();
        pods.entry(up).or_default().push(r);
    }
    let pods: Vec<Vec<NodeId>> = pods.into_values().collect();
    let depth = pods.iter().map(Vec::len).max().unwrap_or(0);
    let rack_order: Vec<NodeId> = (0..depth)
        .flat_map(|k| pods.iter().filter_map(move |p| p.get(k).copied()))
        .collect();
    let mut queues: Vec<std::collections::VecDeque<NodeId>> = rack_order
        .iter()
        .map(|r| racks[r].iter().copied().collect())
        .collect();
    let mut out = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for q in &mut queues {
            if let Some(s) = q.pop_front() {
                out.push(s);
            }
        }
    }
    out
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::scenario) struct GraphEntry {
    /// The job's name in collectives.csv (default "graph<i>").
    name: Option<String>,
    /// A graph in rocesim's format (.json or .toml), relative to the scenario.
    file: Option<String>,
    /// A Chakra trace: the prefix of its `<prefix>.<rank>.et` files.
    chakra: Option<String>,
    /// The ranks' servers, in rank order; or a placement of the graph's ranks.
    #[serde(default)]
    hosts: Vec<HostItem>,
    placement: Option<Placement>,
    /// The algorithm of collective nodes that name none.
    algorithm: Option<Algorithm>,
    #[serde(default)]
    chunk: Bytes,
    #[serde(default)]
    start: Delta,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
    seed: Option<u64>,
}

/// Adds every `[[workload.collective]]` and `[[workload.graph]]` table to `b`
/// (collectives first, each in table order, placements taking servers in
/// that order).
pub(super) fn build(
    collectives: &[CollectiveEntry],
    graphs: &[GraphEntry],
    g: &Gen,
    base: &Path,
    seed: u64,
    b: &mut Builder,
) -> Result<(), InputError> {
    let mut taken = vec![false; g.topo.spec.kinds.len()];
    for (i, e) in collectives.iter().enumerate() {
        let field = format!("workload.collective[{i}]");
        let s = e.seed.unwrap_or_else(|| derive_seed(seed, "collective", i));
        crate::workload::collective::add_job(b, &job(g, e, &field, i, s, &mut taken)?);
    }
    for (i, e) in graphs.iter().enumerate() {
        let field = format!("workload.graph[{i}]");
        let s = e.seed.unwrap_or_else(|| derive_seed(seed, "graph", i));
        let (path, graph) = read_graph(g, e, &field, base)?;
        let w = Where {
            hosts: &e.hosts,
            placement: e
                .placement
                .or((e.hosts.is_empty()).then_some(Placement::Packed)),
            ranks: Some(graph.ranks),
        };
        let servers = place(g, w, &field, s, &mut taken)?;
        if servers.len() != graph.ranks as usize {
            return Err(g.cx.err(
                format!("{field}.hosts"),
                format!(
                    "names {} servers and the graph has {} ranks",
                    servers.len(),
                    graph.ranks
                ),
            ));
        }
        let plan = GraphPlan {
            name: e.name.clone().unwrap_or_else(|| format!("graph{i}")),
            start: SimTime(e.start.ps()),
            nics: servers,
            class: g.class(&format!("{field}.class"), e.class)?,
            dport: e.dport,
            algorithm: e.algorithm,
            chunk: e.chunk.0,
        };
        crate::workload::graph::add_graph(b, &graph, &plan)
            .map_err(|m| InputError::in_file(&path, "", m))?;
    }
    if let Some(t) = b.cycle() {
        return Err(g.cx.err(
            "workload.graph",
            format!(
                "the graphs' dependencies form a cycle (through a task at host {})",
                b.host(t)
            ),
        ));
    }
    Ok(())
}

/// The graph of `e`: its file in rocesim's format, or its Chakra trace.
fn read_graph(
    g: &Gen,
    e: &GraphEntry,
    field: &str,
    base: &Path,
) -> Result<(std::path::PathBuf, GraphFile), InputError> {
    let resolve = |f: &str| crate::scenario::ctx::resolve_path(base, f);
    match (&e.file, &e.chakra) {
        (Some(f), None) => {
            let path = resolve(f);
            let text = std::fs::read_to_string(&path)
                .map_err(|err| InputError::in_file(&path, "", format!("cannot read it: {err}")))?;
            let parsed = if path.extension().is_some_and(|x| x == "toml") {
                toml::from_str::<GraphFile>(&text).map_err(|err| err.message().to_string())
            } else {
                serde_json::from_str::<GraphFile>(&text).map_err(|err| err.to_string())
            };
            let graph = parsed.map_err(|m| InputError::in_file(&path, "", m))?;
            Ok((path, graph))
        }
        (None, Some(prefix)) => {
            let path = resolve(prefix);
            let trace = crate::workload::chakra::read_trace(&path)?;
            let graph =
                GraphFile::from_chakra(&trace).map_err(|m| InputError::in_file(&path, "", m))?;
            Ok((path, graph))
        }
        _ => Err(g.cx.err(
            field,
            "give file = \"graph.json\" (rocesim's graph format) or chakra = \"<prefix>\" (a Chakra trace's <prefix>.<rank>.et files), one of them",
        )),
    }
}
