//! Workload generator tables of a scenario (`[[workload.poisson]]`,
//! `[[workload.incast_periodic]]`, `[[workload.permutation]]`,
//! `[[workload.all_to_all]]`, `[[workload.long_short]]`, `[[workload.staggered]]`)
//! and their validation into flows. docs/topologies-and-workloads.md is the
//! reference for every field.
//!
//! Seeds: a table's `seed`, or else one derived from the scenario's `seed`, the
//! table kind and its index, so the same scenario always gives the same flows.

use super::{WorkloadSection, default_class, default_dport};
use crate::error::InputError;
use crate::scenario::ctx::{Ctx, check_flow, describe_hosts};
use crate::topology::{NodeId, NodeKind, Topology};
use crate::units::{Bytes, Delta, Rate, SimTime};
use crate::workload::incast::IncastOverlay;
use crate::workload::patterns::{self, Leave, LongShort};
use crate::workload::poisson::Poisson;
use crate::workload::{Classes, FlowSpec, HostPool, MAX_GENERATED_FLOWS, builtin, derive_seed};
use serde::{Deserialize, Deserializer};
use std::path::Path;

/// A host id (`3`) or an inclusive range (`"16-31"`) in a `hosts` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum HostItem {
    Id(u32),
    Range(u32, u32),
}

impl<'de> Deserialize<'de> for HostItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = HostItem;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a host id such as 3 or a range such as \"16-31\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<HostItem, E> {
                u32::try_from(v)
                    .map(HostItem::Id)
                    .map_err(|_| E::custom(format!("{v} is not a host id (ids are 0 or more)")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HostItem, E> {
                let bad = || E::custom(format!("\"{v}\" is not a range like \"16-31\""));
                let (a, b) = v.split_once('-').ok_or_else(bad)?;
                let a: u32 = a.trim().parse().map_err(|_| bad())?;
                let b: u32 = b.trim().parse().map_err(|_| bad())?;
                if a > b {
                    return Err(E::custom(format!("range \"{v}\" is empty ({a} > {b})")));
                }
                Ok(HostItem::Range(a, b))
            }
        }
        d.deserialize_any(V)
    }
}

/// `[[workload.poisson]]`: CDF-sized flows arriving as a Poisson process per host.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PoissonEntry {
    /// A built-in name (e.g. "fb-hadoop") or a CDF file path.
    cdf: String,
    /// Fraction of each host's link rate (payload bytes), in (0, 1].
    load: f64,
    /// Arrivals in [start, start + duration).
    duration: Delta,
    #[serde(default)]
    start: Delta,
    /// Restrict sources and destinations to these hosts (default: all).
    #[serde(default)]
    hosts: Vec<HostItem>,
    #[serde(default)]
    exclude_same_rack: bool,
    /// One class for every flow (default 3), or `classes` to pick uniformly.
    class: Option<u8>,
    #[serde(default)]
    classes: Vec<u8>,
    #[serde(default = "default_dport")]
    dport: u16,
    seed: Option<u64>,
}

impl PoissonEntry {
    pub(super) fn cdf(&self) -> &str {
        &self.cdf
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Arrival {
    Periodic,
    Poisson,
}

/// `[[workload.incast_periodic]]`: repeated N-to-1 events (HPCC §5.3).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IncastPeriodicEntry {
    fan_in: u32,
    /// Bytes per sender per event.
    size: Bytes,
    /// Fraction of the pool's total host capacity; or give `interval`.
    load: Option<f64>,
    interval: Option<Delta>,
    duration: Delta,
    #[serde(default)]
    start: Delta,
    /// "periodic" (default) or "poisson" event times.
    arrival: Option<Arrival>,
    #[serde(default)]
    hosts: Vec<HostItem>,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
    seed: Option<u64>,
}

/// `[[workload.permutation]]`: each host sends once and receives once.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PermutationEntry {
    size: Bytes,
    #[serde(default)]
    start: Delta,
    #[serde(default)]
    hosts: Vec<HostItem>,
    #[serde(default)]
    exclude_same_rack: bool,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
    seed: Option<u64>,
}

/// `[[workload.all_to_all]]`: every host sends to every other host.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AllToAllEntry {
    size: Bytes,
    #[serde(default)]
    start: Delta,
    #[serde(default)]
    hosts: Vec<HostItem>,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
}

/// `[[workload.periodic]]`: the same flow repeated every `interval` (e.g. the mice
/// of HPCC Fig. 9e).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PeriodicEntry {
    src: u32,
    dst: u32,
    size: Bytes,
    interval: Delta,
    /// Flows start at `start + k x interval` for every k with a start before
    /// `start + duration`.
    duration: Delta,
    #[serde(default)]
    start: Delta,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
}

/// `[[workload.long_short]]`: HPCC Fig. 9a.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LongShortEntry {
    long_src: u32,
    short_src: u32,
    dst: u32,
    long_size: Bytes,
    #[serde(default = "default_short_size")]
    short_size: Bytes,
    #[serde(default)]
    start: Delta,
    short_start: Delta,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
}

fn default_short_size() -> Bytes {
    Bytes(1_000_000)
}

/// `[[workload.staggered]]`: HPCC Fig. 9g.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StaggeredEntry {
    /// Sender ids in join order; or `fan_in` for the first hosts other than the receiver.
    #[serde(default)]
    senders: Vec<u32>,
    fan_in: Option<u32>,
    receiver: u32,
    interval: Delta,
    #[serde(default)]
    start: Delta,
    /// Every flow's size; omitted: sized so flows leave one per interval.
    size: Option<Bytes>,
    /// "fifo" (default) or "lifo": the leaving order the computed sizes aim at.
    leave: Option<LeaveOrder>,
    #[serde(default = "default_class")]
    class: u8,
    #[serde(default = "default_dport")]
    dport: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum LeaveOrder {
    Fifo,
    Lifo,
}

pub(super) struct Gen<'a> {
    pub(super) topo: &'a Topology,
    pub(super) cx: &'a Ctx<'a>,
}

impl Gen<'_> {
    fn host(&self, field: &str, id: u32) -> Result<NodeId, InputError> {
        let n = self.topo.spec.kinds.len() as u32;
        if id >= n || self.topo.kind(NodeId(id)) != NodeKind::Host {
            let what = if id >= n {
                "does not exist"
            } else {
                "is a switch"
            };
            return Err(self.cx.err(
                field,
                format!("node {id} {what} (hosts: {})", describe_hosts(self.topo)),
            ));
        }
        Ok(NodeId(id))
    }

    /// The pool named by a `hosts` list (all hosts when empty).
    pub(super) fn pool(&self, field: &str, items: &[HostItem]) -> Result<HostPool, InputError> {
        if items.is_empty() {
            return Ok(HostPool::new(self.topo, None));
        }
        let n = self.topo.spec.kinds.len();
        let mut seen = vec![false; n];
        let mut ids = Vec::new();
        for (i, it) in items.iter().enumerate() {
            let f = format!("{field}.hosts[{i}]");
            let (a, b) = match *it {
                HostItem::Id(x) => (x, x),
                HostItem::Range(a, b) => (a, b),
            };
            for id in a..=b {
                let h = self.host(&f, id)?;
                // A server is named once, by any of its NICs.
                if std::mem::replace(&mut seen[self.topo.server(h).idx()], true) {
                    let server = self.topo.server(h);
                    let what = match h == server {
                        true => format!("host {id} is listed twice"),
                        false => format!("host {id} is a NIC of server {server}, listed already"),
                    };
                    return Err(self.cx.err(f, what));
                }
                ids.push(h);
            }
        }
        if ids.len() < 2 {
            return Err(self.cx.err(
                format!("{field}.hosts"),
                "names fewer than 2 hosts; a workload needs a sender and a receiver",
            ));
        }
        Ok(HostPool::new(self.topo, Some(&ids)))
    }

    pub(super) fn class(&self, field: &str, c: u8) -> Result<u8, InputError> {
        if (1..=7).contains(&c) {
            Ok(c)
        } else {
            Err(self.cx.err(
                field,
                format!("{c} is not a data class (valid: 1..7; 0 is reserved for control traffic)"),
            ))
        }
    }

    fn positive(&self, field: &str, v: u64, what: &str) -> Result<u64, InputError> {
        if v == 0 {
            Err(self.cx.err(field, format!("must be > 0 {what}")))
        } else {
            Ok(v)
        }
    }

    fn fraction(&self, field: &str, v: f64) -> Result<f64, InputError> {
        if v.is_finite() && v > 0.0 && v <= 1.0 {
            Ok(v)
        } else {
            Err(self
                .cx
                .err(field, format!("{v} must be in (0, 1], e.g. 0.3 for 30%")))
        }
    }
}

/// Every generator table's flows (not yet sorted by start time).
pub(super) fn generate(
    w: &WorkloadSection,
    topo: &Topology,
    base: &Path,
    cx: &Ctx,
    seed: u64,
    payload_fraction: f64,
) -> Result<Vec<FlowSpec>, InputError> {
    let g = Gen { topo, cx };
    let mut flows = Vec::new();
    for (i, e) in w.poisson.iter().enumerate() {
        let s = e.seed.unwrap_or_else(|| derive_seed(seed, "poisson", i));
        flows.extend(poisson(&g, e, &format!("workload.poisson[{i}]"), base, s)?);
    }
    for (i, e) in w.incast_periodic.iter().enumerate() {
        let field = format!("workload.incast_periodic[{i}]");
        let s = e
            .seed
            .unwrap_or_else(|| derive_seed(seed, "incast_periodic", i));
        flows.extend(incast_periodic(&g, e, &field, s)?);
    }
    for (i, e) in w.permutation.iter().enumerate() {
        let s = e
            .seed
            .unwrap_or_else(|| derive_seed(seed, "permutation", i));
        flows.extend(permutation(
            &g,
            e,
            &format!("workload.permutation[{i}]"),
            s,
        )?);
    }
    for (i, e) in w.all_to_all.iter().enumerate() {
        flows.extend(all_to_all(&g, e, &format!("workload.all_to_all[{i}]"))?);
    }
    for (i, e) in w.long_short.iter().enumerate() {
        flows.extend(long_short(&g, e, &format!("workload.long_short[{i}]"))?);
    }
    for (i, e) in w.periodic.iter().enumerate() {
        flows.extend(periodic(&g, e, &format!("workload.periodic[{i}]"))?);
    }
    for (i, e) in w.staggered.iter().enumerate() {
        flows.extend(staggered(
            &g,
            e,
            &format!("workload.staggered[{i}]"),
            payload_fraction,
        )?);
    }
    Ok(flows)
}

fn at(d: Delta) -> SimTime {
    SimTime(d.ps())
}

fn poisson(
    g: &Gen,
    e: &PoissonEntry,
    field: &str,
    base: &Path,
    seed: u64,
) -> Result<Vec<FlowSpec>, InputError> {
    let cx = g.cx;
    let cdf = builtin::resolve_cdf(&e.cdf, base, cx.source, &format!("{field}.cdf"))?;
    let classes = match (e.class, e.classes.is_empty()) {
        (Some(_), false) => {
            return Err(cx.err(field, "give class = N or classes = [...], not both"));
        }
        (c, true) => Classes::One(g.class(&format!("{field}.class"), c.unwrap_or(3))?),
        (None, false) => {
            for (j, &c) in e.classes.iter().enumerate() {
                g.class(&format!("{field}.classes[{j}]"), c)?;
            }
            Classes::Uniform(e.classes.clone())
        }
    };
    g.positive(
        &format!("{field}.duration"),
        e.duration.ps(),
        "(e.g. \"10ms\")",
    )?;
    let p = Poisson {
        cdf: &cdf,
        load: g.fraction(&format!("{field}.load"), e.load)?,
        start: at(e.start),
        duration: e.duration,
        exclude_same_rack: e.exclude_same_rack,
        classes,
        dport: e.dport,
    };
    let pool = g.pool(field, &e.hosts)?;
    p.generate(&pool, seed).map_err(|m| cx.err(field, m))
}

fn incast_periodic(
    g: &Gen,
    e: &IncastPeriodicEntry,
    field: &str,
    seed: u64,
) -> Result<Vec<FlowSpec>, InputError> {
    let pool = g.pool(field, &e.hosts)?;
    let size = g.positive(&format!("{field}.size"), e.size.0, "bytes")?;
    g.positive(
        &format!("{field}.duration"),
        e.duration.ps(),
        "(e.g. \"10ms\")",
    )?;
    let period = match (e.load, e.interval) {
        (Some(l), None) => {
            let l = g.fraction(&format!("{field}.load"), l)?;
            IncastOverlay::period_for_load(&pool, e.fan_in, size, l)
        }
        (None, Some(d)) => {
            Delta(g.positive(&format!("{field}.interval"), d.ps(), "(e.g. \"375us\")")?)
        }
        _ => {
            return Err(g.cx.err(
                field,
                "give load (fraction of the hosts' total capacity, e.g. 0.02) or interval (e.g. \"375us\"), not both",
            ));
        }
    };
    let o = IncastOverlay {
        fan_in: e.fan_in,
        size,
        start: at(e.start),
        duration: e.duration,
        period,
        poisson: e.arrival == Some(Arrival::Poisson),
        classes: Classes::One(g.class(&format!("{field}.class"), e.class)?),
        dport: e.dport,
    };
    o.generate(&pool, seed)
        .map_err(|m| g.cx.err(format!("{field}.fan_in"), m))
}

fn permutation(
    g: &Gen,
    e: &PermutationEntry,
    field: &str,
    seed: u64,
) -> Result<Vec<FlowSpec>, InputError> {
    let pool = g.pool(field, &e.hosts)?;
    let size = g.positive(&format!("{field}.size"), e.size.0, "bytes")?;
    let class = g.class(&format!("{field}.class"), e.class)?;
    patterns::permutation(
        &pool,
        e.exclude_same_rack,
        size,
        at(e.start),
        class,
        e.dport,
        seed,
    )
    .map_err(|m| g.cx.err(field, m))
}

fn all_to_all(g: &Gen, e: &AllToAllEntry, field: &str) -> Result<Vec<FlowSpec>, InputError> {
    let pool = g.pool(field, &e.hosts)?;
    let size = g.positive(&format!("{field}.size"), e.size.0, "bytes")?;
    let class = g.class(&format!("{field}.class"), e.class)?;
    let n = pool.len() as u64;
    if n * (n - 1) > MAX_GENERATED_FLOWS {
        return Err(g.cx.err(
            field,
            format!(
                "{n} hosts give {} flows (limit {MAX_GENERATED_FLOWS}); restrict hosts",
                n * (n - 1)
            ),
        ));
    }
    Ok(patterns::all_to_all(
        &pool,
        size,
        at(e.start),
        class,
        e.dport,
    ))
}

fn long_short(g: &Gen, e: &LongShortEntry, field: &str) -> Result<Vec<FlowSpec>, InputError> {
    let ls = LongShort {
        long_src: g.host(&format!("{field}.long_src"), e.long_src)?,
        short_src: g.host(&format!("{field}.short_src"), e.short_src)?,
        dst: g.host(&format!("{field}.dst"), e.dst)?,
        long_size: g.positive(&format!("{field}.long_size"), e.long_size.0, "bytes")?,
        short_size: g.positive(&format!("{field}.short_size"), e.short_size.0, "bytes")?,
        start: at(e.start),
        short_start: at(e.short_start),
        class: g.class(&format!("{field}.class"), e.class)?,
        dport: e.dport,
    };
    let flows = patterns::long_short(&ls);
    for (j, f) in flows.iter().enumerate() {
        let which = if j == 0 { "long_src" } else { "short_src" };
        check_flow(f, g.topo, &format!("{field}.{which}"), g.cx)?;
    }
    Ok(flows)
}

fn periodic(g: &Gen, e: &PeriodicEntry, field: &str) -> Result<Vec<FlowSpec>, InputError> {
    let src = g.host(&format!("{field}.src"), e.src)?;
    let dst = g.host(&format!("{field}.dst"), e.dst)?;
    let size = g.positive(&format!("{field}.size"), e.size.0, "bytes")?;
    let every = g.positive(
        &format!("{field}.interval"),
        e.interval.ps(),
        "(e.g. \"20us\")",
    )?;
    let class = g.class(&format!("{field}.class"), e.class)?;
    // Count before generating: a tiny interval must not exhaust memory.
    let n = e.duration.ps().div_ceil(every);
    if n > MAX_GENERATED_FLOWS {
        return Err(g.cx.err(
            field,
            format!(
                "interval {} over duration {} gives {n} flows (limit {MAX_GENERATED_FLOWS}); lengthen interval or shorten duration",
                e.interval, e.duration
            ),
        ));
    }
    let mut flows = Vec::with_capacity(n as usize);
    let mut t = e.start.ps();
    while t < e.start.ps() + e.duration.ps() {
        let f = FlowSpec {
            src,
            dst,
            size,
            start: SimTime(t),
            class,
            dport: e.dport,
        };
        check_flow(&f, g.topo, field, g.cx)?;
        flows.push(f);
        t += every;
    }
    Ok(flows)
}

/// The senders of an incast-like table: the listed ids, or with `fan_in = N`
/// the first N servers other than the receiver's.
pub(super) fn pick_senders(
    topo: &Topology,
    cx: &Ctx,
    field: &str,
    senders: &[u32],
    fan_in: Option<u32>,
    receiver: NodeId,
) -> Result<Vec<NodeId>, InputError> {
    match (senders.is_empty(), fan_in) {
        (false, None) => Ok(senders.iter().map(|&s| NodeId(s)).collect()),
        (true, Some(n)) => {
            let servers = topo.servers();
            let s: Vec<NodeId> = (servers.iter().copied())
                .filter(|&h| h != topo.server(receiver))
                .take(n as usize)
                .collect();
            if n == 0 || s.len() < n as usize {
                return Err(cx.err(
                    format!("{field}.fan_in"),
                    format!("{n} senders requested; valid: 1..{}", servers.len() - 1),
                ));
            }
            Ok(s)
        }
        _ => Err(cx.err(field, "give either senders = [...] or fan_in = N")),
    }
}

fn staggered(
    g: &Gen,
    e: &StaggeredEntry,
    field: &str,
    payload_fraction: f64,
) -> Result<Vec<FlowSpec>, InputError> {
    let receiver = g.host(&format!("{field}.receiver"), e.receiver)?;
    let senders = pick_senders(g.topo, g.cx, field, &e.senders, e.fan_in, receiver)?
        .into_iter()
        .enumerate()
        .map(|(j, s)| g.host(&format!("{field}.senders[{j}]"), s.0))
        .collect::<Result<Vec<_>, _>>()?;
    let interval = Delta(g.positive(
        &format!("{field}.interval"),
        e.interval.ps(),
        "(e.g. \"1ms\")",
    )?);
    let last_start = (senders.len() as u64)
        .saturating_sub(1)
        .checked_mul(interval.ps())
        .and_then(|d| d.checked_add(e.start.ps()))
        .filter(|&t| t <= crate::limits::MAX_TIME_PS);
    if last_start.is_none() {
        return Err(g.cx.err(
            format!("{field}.interval"),
            format!(
                "the last of {} senders would start after the time limit of {:.0} s (docs/scenario.md, Limits)",
                senders.len(),
                crate::limits::max_time_s()
            ),
        ));
    }
    let sizes = match e.size {
        Some(b) => vec![g.positive(&format!("{field}.size"), b.0, "bytes")?; senders.len()],
        None => {
            let goodput =
                Rate::from_bps_f64(g.topo.host_port(receiver).rate.bps_f64() * payload_fraction);
            let leave = match e.leave.unwrap_or(LeaveOrder::Fifo) {
                LeaveOrder::Fifo => Leave::Fifo,
                LeaveOrder::Lifo => Leave::Lifo,
            };
            patterns::staggered_sizes(senders.len() as u32, interval, goodput, leave)
        }
    };
    let class = g.class(&format!("{field}.class"), e.class)?;
    let flows = patterns::staggered(
        &senders,
        receiver,
        &sizes,
        SimTime(e.start.ps()),
        interval,
        class,
        e.dport,
    );
    for (j, f) in flows.iter().enumerate() {
        check_flow(f, g.topo, &format!("{field}.senders[{j}]"), g.cx)?;
    }
    Ok(flows)
}
