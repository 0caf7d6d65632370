//! `[topology]`: one variant per kind (a generator or the ns-3 file reader),
//! each a struct of the fields that kind takes, and the function that builds it.
//! docs/topologies-and-workloads.md lists every kind's fields; errors name
//! `topology.<field>` and what would be valid.
//!
//! The table is read kind-tagged (src/scenario/tagged.rs): a field the kind does
//! not take is an error while the file is read, naming the kind's fields. A new
//! generator is a variant with its struct and an arm in [`TopologySection::spec`].

use super::ctx::{Ctx, resolve_path};
use crate::error::InputError;
use crate::topology::fat_tree::{FatTreeShape, fat_tree};
use crate::topology::{
    Topology, TopologySpec, builders, leaf_spine, multi_nic, ns3, parking_lot, testbeds,
};
use crate::units::{Delta, Rate};
use serde::Deserialize;
use std::path::Path;

/// The network. `kind` names the variant; the table's other keys are its fields.
/// Node ids: hosts first, then switches, for the generators; as in the file for `ns3`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum TopologySection {
    Star(Star),
    Dumbbell(Dumbbell),
    Ns3(Ns3File),
    FatTree(FatTree),
    HpccFatTree(FixedFabric),
    LeafSpine(LeafSpine),
    DcqcnTestbed(DcqcnTestbed),
    HpccTestbed(FixedFabric),
    ParkingLot(ParkingLot),
    RailOptimized(RailOptimized),
}

/// Hosts around one switch. Fields marked required are checked when building,
/// so that the message can say which kind needs them.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Star {
    /// Required: hosts around the switch.
    hosts: Option<u32>,
    /// Required: rate of every link.
    rate: Option<Rate>,
    /// Required: one-way propagation delay of every link.
    delay: Option<Delta>,
    /// Per-link loss probability in [0, 1).
    loss: Option<f64>,
}

/// Two switches joined by one middle link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Dumbbell {
    /// Required: hosts on each side.
    left: Option<u32>,
    right: Option<u32>,
    /// Required: host (NIC) links.
    host_rate: Option<Rate>,
    /// Required.
    delay: Option<Delta>,
    /// The middle link; or give `oversubscription` (one of the two).
    bottleneck_rate: Option<Rate>,
    oversubscription: Option<f64>,
    loss: Option<f64>,
}

/// A topology file in the HPCC ns-3 format.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Ns3File {
    /// Required: the file, relative to the scenario file.
    file: Option<String>,
    /// What to do with hosts that have several links: "nics" (default: one
    /// NIC per link, as the ns-3 simulator), "first-link" (keep each host's
    /// first link) or "reject".
    multi_homed: Option<MultiHomed>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum MultiHomed {
    Nics,
    Reject,
    FirstLink,
}

/// A three-tier fat-tree: `k` (k-ary) or pods, ToRs and Aggs per pod.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FatTree {
    /// Required.
    host_rate: Option<Rate>,
    /// Required.
    delay: Option<Delta>,
    /// k-ary shorthand: k pods, k/2 ToR and Agg per pod, (k/2)^2 cores.
    k: Option<u32>,
    pods: Option<u32>,
    tors_per_pod: Option<u32>,
    aggs_per_pod: Option<u32>,
    cores_per_agg: Option<u32>,
    /// Hosts under each ToR; or `oversubscription` (host over uplink capacity).
    hosts_per_tor: Option<u32>,
    oversubscription: Option<f64>,
    /// Switch-to-switch links; default `host_rate`.
    fabric_rate: Option<Rate>,
    loss: Option<f64>,
    /// NICs a server, each under its own copy of its ToR. Default 1.
    nics_per_host: Option<u32>,
}

/// A fixed fabric from a paper (`hpcc-fat-tree`, `hpcc-testbed`): only its
/// rates, delay and loss can change.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FixedFabric {
    host_rate: Option<Rate>,
    fabric_rate: Option<Rate>,
    delay: Option<Delta>,
    loss: Option<f64>,
    /// NICs a server: each under its own copy of its ToR (hpcc-fat-tree), or
    /// the testbed's two NICs as one server (hpcc-testbed, 2). Default 1.
    nics_per_host: Option<u32>,
}

/// A rail-optimized fabric: groups of servers whose NIC r is on the group's
/// rail-r leaf; every leaf linked to every spine.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RailOptimized {
    /// Required: groups (scalable units), servers a group, NICs (rails) a server, spines.
    groups: Option<u32>,
    servers_per_group: Option<u32>,
    rails: Option<u32>,
    spines: Option<u32>,
    /// Required.
    host_rate: Option<Rate>,
    fabric_rate: Option<Rate>,
    delay: Option<Delta>,
    loss: Option<f64>,
}

/// A two-tier leaf-spine.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LeafSpine {
    /// Required: racks and spines.
    leaves: Option<u32>,
    spines: Option<u32>,
    /// Required.
    host_rate: Option<Rate>,
    /// Required.
    delay: Option<Delta>,
    /// Hosts per rack; or `oversubscription` (host over uplink capacity).
    hosts_per_leaf: Option<u32>,
    oversubscription: Option<f64>,
    fabric_rate: Option<Rate>,
    loss: Option<f64>,
    /// NICs a server, each under its own copy of its leaf. Default 1.
    nics_per_host: Option<u32>,
}

/// DCQCN Fig. 2's testbed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DcqcnTestbed {
    /// Hosts under each ToR; default 5.
    hosts_per_tor: Option<u32>,
    host_rate: Option<Rate>,
    fabric_rate: Option<Rate>,
    delay: Option<Delta>,
    loss: Option<f64>,
}

/// A chain of switch-to-switch bottlenecks.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParkingLot {
    /// Required.
    host_rate: Option<Rate>,
    /// Required.
    delay: Option<Delta>,
    /// Bottleneck links in the chain; default 1.
    bottlenecks: Option<u32>,
    fabric_rate: Option<Rate>,
    loss: Option<f64>,
}

/// Builds the topology `t` names (files relative to `base`) and its routes.
pub(super) fn build_topology(
    t: &TopologySection,
    base: &Path,
    cx: &Ctx,
) -> Result<Topology, InputError> {
    Topology::build(t.spec(base, cx)?).map_err(|m| cx.err("topology", m))
}

impl TopologySection {
    /// The nodes and links, before routes are computed.
    fn spec(&self, base: &Path, cx: &Ctx) -> Result<TopologySpec, InputError> {
        let b = |kind| Build { kind, cx };
        match self {
            TopologySection::Star(t) => star(t, &b("star")),
            TopologySection::Dumbbell(t) => dumbbell(t, &b("dumbbell")),
            TopologySection::Ns3(t) => ns3_file(t, base, &b("ns3")),
            TopologySection::FatTree(t) => fat_tree_kind(t, &b("fat-tree")),
            TopologySection::HpccFatTree(t) => hpcc_fat_tree(t, &b("hpcc-fat-tree")),
            TopologySection::LeafSpine(t) => leaf_spine_kind(t, &b("leaf-spine")),
            TopologySection::DcqcnTestbed(t) => dcqcn_testbed(t, &b("dcqcn-testbed")),
            TopologySection::HpccTestbed(t) => hpcc_testbed(t, &b("hpcc-testbed")),
            TopologySection::ParkingLot(t) => parking_lot_kind(t, &b("parking-lot")),
            TopologySection::RailOptimized(t) => rail_optimized(t, &b("rail-optimized")),
        }
    }
}

/// A kind being built: its name for messages, and the checks its fields share.
struct Build<'a> {
    kind: &'static str,
    cx: &'a Ctx<'a>,
}

/// Every link's delay and (when given) loss.
struct Links {
    delay: Delta,
    loss: Option<f64>,
}

impl Links {
    /// `spec` with `loss` on every link, when given.
    fn on(&self, mut spec: TopologySpec) -> TopologySpec {
        if let Some(loss) = self.loss {
            spec.links.iter_mut().for_each(|l| l.loss = loss);
        }
        spec
    }
}

impl Build<'_> {
    fn need<T>(&self, field: &str, v: Option<T>) -> Result<T, InputError> {
        v.ok_or_else(|| {
            self.cx.err(
                format!("topology.{field}"),
                format!("is required with kind = \"{}\"", self.kind),
            )
        })
    }

    /// `delay` (default 1 us) and `loss`, checked; call it after [`Build::need`]
    /// for the required fields, so that a missing field is reported first.
    fn links(&self, delay: Option<Delta>, loss: Option<f64>) -> Result<Links, InputError> {
        if let Some(l) = loss
            && !(0.0..1.0).contains(&l)
        {
            return Err(self
                .cx
                .err("topology.loss", format!("{l} must be in [0, 1)")));
        }
        Ok(Links {
            delay: delay.unwrap_or(Delta::from_us(1)),
            loss,
        })
    }

    /// A rate that must be > 0 (given, or a default the caller filled in).
    fn rate(&self, field: &str, r: Option<Rate>) -> Result<Rate, InputError> {
        let r = self.need(field, r)?;
        if r.bps() == 0 {
            Err(self
                .cx
                .err(format!("topology.{field}"), "must be > 0, e.g. \"100Gbps\""))
        } else {
            Ok(r)
        }
    }

    /// NICs a server, given as `field` (default 1), at most
    /// [`crate::limits::MAX_NICS_PER_HOST`].
    fn nics(&self, field: &str, v: Option<u32>) -> Result<u32, InputError> {
        let n = self.count(field, v.unwrap_or(1), 1)?;
        let max = crate::limits::MAX_NICS_PER_HOST;
        if n > max {
            return Err(self.cx.err(
                format!("topology.{field}"),
                format!("{n} NICs a server is more than {max} (valid: 1..{max})"),
            ));
        }
        Ok(n)
    }

    /// `spec` with `nics` NICs a server ([`multi_nic::multi_home`]), checked
    /// for size with its racks' switch copies before they are made.
    fn multi_home(&self, spec: TopologySpec, nics: u32) -> Result<TopologySpec, InputError> {
        let racks = multi_nic::rack_switches(&spec) as u64;
        let extra = nics as u64 - 1;
        let switches = spec.num_switches() as u64 + racks * extra;
        let nodes = spec.kinds.len() as u64 + (racks + spec.num_hosts() as u64) * extra;
        check_size(nodes, switches, racks * nics as u64, self.cx)?;
        Ok(multi_nic::multi_home(spec, nics))
    }

    fn count(&self, field: &str, v: u32, min: u32) -> Result<u32, InputError> {
        if v < min {
            Err(self.cx.err(
                format!("topology.{field}"),
                format!("{v} is too few; at least {min}"),
            ))
        } else {
            Ok(v)
        }
    }
}

fn star(t: &Star, b: &Build) -> Result<TopologySpec, InputError> {
    let hosts = b.need("hosts", t.hosts)?;
    let rate = b.need("rate", t.rate)?;
    b.need("delay", t.delay)?;
    let links = b.links(t.delay, t.loss)?;
    let hosts = b.count("hosts", hosts, 2)?;
    check_size(hosts as u64 + 1, 1, 1, b.cx)?;
    Ok(links.on(builders::star(
        hosts,
        b.rate("rate", Some(rate))?,
        links.delay,
    )))
}

fn dumbbell(t: &Dumbbell, b: &Build) -> Result<TopologySpec, InputError> {
    b.need("delay", t.delay)?;
    let left = b.need("left", t.left)?;
    let right = b.need("right", t.right)?;
    b.need("host_rate", t.host_rate)?;
    let links = b.links(t.delay, t.loss)?;
    let (left, right) = (b.count("left", left, 1)?, b.count("right", right, 1)?);
    check_size(left as u64 + right as u64 + 2, 2, 2, b.cx)?;
    let hr = b.rate("host_rate", t.host_rate)?;
    let middle = match (t.bottleneck_rate, t.oversubscription) {
        (Some(r), None) => b.rate("bottleneck_rate", Some(r))?,
        (None, Some(r)) => {
            let r = ratio(r, b.cx)?;
            Rate::from_bps_f64(left.max(right) as f64 * hr.bps_f64() / r)
        }
        _ => {
            return Err(b.cx.err(
                "topology.bottleneck_rate",
                "give either bottleneck_rate (e.g. \"40Gbps\") or oversubscription (e.g. 8, for max(left, right) x host_rate / 8)",
            ));
        }
    };
    Ok(links.on(builders::dumbbell(left, right, hr, middle, links.delay)))
}

fn ns3_file(t: &Ns3File, base: &Path, b: &Build) -> Result<TopologySpec, InputError> {
    let path = resolve_path(base, b.need("file", t.file.as_deref())?);
    let mode = t.multi_homed.unwrap_or(MultiHomed::Nics);
    if mode == MultiHomed::Nics {
        return ns3::read_topology(&path);
    }
    let mut spec = ns3::read_topology_unchecked(&path)?;
    if mode == MultiHomed::FirstLink {
        ns3::keep_first_host_link(&mut spec);
    }
    spec.validate().map_err(|m| {
        let m = if m.contains(" links; each host has one NIC port") {
            format!(
                "{m} (set topology.multi_homed = \"nics\" for one NIC per link, or \"first-link\" to keep each host's first link)"
            )
        } else {
            m
        };
        InputError::in_file(&path, "", m)
    })?;
    Ok(spec)
}

fn fat_tree_kind(t: &FatTree, b: &Build) -> Result<TopologySpec, InputError> {
    b.need("delay", t.delay)?;
    let host_rate = b.need("host_rate", t.host_rate)?;
    let links = b.links(t.delay, t.loss)?;
    let hr = b.rate("host_rate", Some(host_rate))?;
    // Fabric links default to the host rate where the papers use one rate.
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(host_rate)))?;
    let shape = fat_tree_shape(t, hr, fr, b.cx)?;
    let nics = b.nics("nics_per_host", t.nics_per_host)?;
    b.multi_home(links.on(fat_tree(shape, hr, fr, links.delay)), nics)
}

/// The HPCC §5.1 fabric (`hpcc-fat-tree`): 100 and 400 Gbps unless given.
fn hpcc_fat_tree(t: &FixedFabric, b: &Build) -> Result<TopologySpec, InputError> {
    let links = b.links(t.delay, t.loss)?;
    let hr = b.rate("host_rate", t.host_rate.or(Some(Rate::from_gbps(100))))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(Rate::from_gbps(400))))?;
    let nics = b.nics("nics_per_host", t.nics_per_host)?;
    b.multi_home(
        links.on(fat_tree(FatTreeShape::HPCC, hr, fr, links.delay)),
        nics,
    )
}

fn leaf_spine_kind(t: &LeafSpine, b: &Build) -> Result<TopologySpec, InputError> {
    b.need("delay", t.delay)?;
    let host_rate = b.need("host_rate", t.host_rate)?;
    let leaves = b.need("leaves", t.leaves)?;
    let spines = b.need("spines", t.spines)?;
    let links = b.links(t.delay, t.loss)?;
    let (leaves, spines) = (b.count("leaves", leaves, 1)?, b.count("spines", spines, 1)?);
    let hr = b.rate("host_rate", Some(host_rate))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(host_rate)))?;
    let per_leaf = hosts_below(
        ("hosts_per_leaf", t.hosts_per_leaf),
        t.oversubscription,
        spines as f64 * fr.bps_f64() / hr.bps_f64(),
        "spines x fabric_rate / host_rate",
        b.cx,
    )?;
    check_size(
        leaves as u64 * per_leaf as u64 + leaves as u64 + spines as u64,
        spines as u64 + leaves as u64,
        leaves as u64,
        b.cx,
    )?;
    let spec = leaf_spine::leaf_spine(leaves, spines, per_leaf, hr, fr, links.delay);
    let nics = b.nics("nics_per_host", t.nics_per_host)?;
    b.multi_home(links.on(spec), nics)
}

fn dcqcn_testbed(t: &DcqcnTestbed, b: &Build) -> Result<TopologySpec, InputError> {
    let links = b.links(t.delay, t.loss)?;
    let n = b.count("hosts_per_tor", t.hosts_per_tor.unwrap_or(5), 1)?;
    check_size(4 * n as u64 + 10, 10, 4, b.cx)?;
    let hr = b.rate("host_rate", t.host_rate.or(Some(Rate::from_gbps(40))))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(hr)))?;
    Ok(links.on(testbeds::dcqcn_testbed(n, hr, fr, links.delay)))
}

/// The HPCC §5.1 testbed: 25 and 100 Gbps unless given.
fn hpcc_testbed(t: &FixedFabric, b: &Build) -> Result<TopologySpec, InputError> {
    let links = b.links(t.delay, t.loss)?;
    let hr = b.rate("host_rate", t.host_rate.or(Some(Rate::from_gbps(25))))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(Rate::from_gbps(100))))?;
    match t.nics_per_host.unwrap_or(1) {
        1 => Ok(links.on(testbeds::hpcc_testbed(hr, fr, links.delay))),
        2 => Ok(links.on(testbeds::hpcc_testbed_servers(hr, fr, links.delay))),
        n => Err(b.cx.err(
            "topology.nics_per_host",
            format!("{n} is not the testbed's: 1 (each NIC a host of its own) or 2 (one server with two NICs)"),
        )),
    }
}

fn rail_optimized(t: &RailOptimized, b: &Build) -> Result<TopologySpec, InputError> {
    let groups = b.count("groups", b.need("groups", t.groups)?, 1)?;
    let servers = b.count(
        "servers_per_group",
        b.need("servers_per_group", t.servers_per_group)?,
        1,
    )?;
    let rails = b.nics("rails", Some(b.need("rails", t.rails)?))?;
    let spines = b.count("spines", b.need("spines", t.spines)?, 1)?;
    let host_rate = b.need("host_rate", t.host_rate)?;
    let links = b.links(t.delay, t.loss)?;
    let hr = b.rate("host_rate", Some(host_rate))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(host_rate)))?;
    let leaves = groups as u64 * rails as u64;
    let nodes = groups as u64 * servers as u64 * rails as u64 + leaves + spines as u64;
    check_size(nodes, leaves + spines as u64, leaves, b.cx)?;
    let spec = multi_nic::rail_optimized(groups, servers, rails, spines, hr, fr, links.delay);
    Ok(links.on(spec))
}

fn parking_lot_kind(t: &ParkingLot, b: &Build) -> Result<TopologySpec, InputError> {
    b.need("delay", t.delay)?;
    let host_rate = b.need("host_rate", t.host_rate)?;
    let links = b.links(t.delay, t.loss)?;
    let k = b.count("bottlenecks", t.bottlenecks.unwrap_or(1), 1)?;
    check_size(3 * k as u64 + 4, k as u64 + 1, k as u64 + 1, b.cx)?;
    let hr = b.rate("host_rate", Some(host_rate))?;
    let fr = b.rate("fabric_rate", t.fabric_rate.or(Some(host_rate)))?;
    Ok(links.on(parking_lot::parking_lot(k, hr, fr, links.delay)))
}

fn ratio(r: f64, cx: &Ctx) -> Result<f64, InputError> {
    if r.is_finite() && r >= 1.0 {
        Ok(r)
    } else {
        Err(cx.err(
            "topology.oversubscription",
            format!("{r} must be >= 1 (1 = non-blocking, 8 = 8:1)"),
        ))
    }
}

/// `x` for a message without float noise: at most 6 decimals, trailing
/// zeros dropped (`49999.99999999999` -> `50000`, `0.1 + 0.2` -> `0.3`).
fn short(x: f64) -> String {
    let t = format!("{x:.6}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    match t {
        "-0" => "0".to_string(),
        t => t.to_string(),
    }
}

/// Hosts under a first-tier switch: given directly, or `oversubscription x full`
/// where `full` is the non-blocking count; it must come out whole.
fn hosts_below(
    (field, given): (&str, Option<u32>),
    oversub: Option<f64>,
    full: f64,
    full_is: &str,
    cx: &Ctx,
) -> Result<u32, InputError> {
    match (given, oversub) {
        (Some(_), Some(_)) => Err(cx.err(
            "topology.oversubscription",
            format!("give {field} or oversubscription, not both"),
        )),
        (Some(n), None) if n >= 1 => Ok(n),
        (Some(n), None) => Err(cx.err(
            format!("topology.{field}"),
            format!("{n} is too few; at least 1"),
        )),
        (None, r) => {
            let r = ratio(r.unwrap_or(1.0), cx)?;
            let hosts = r * full;
            if hosts < 1.0 || (hosts - hosts.round()).abs() > 1e-9 || hosts > u32::MAX as f64 {
                return Err(cx.err(
                    if oversub.is_some() { "topology.oversubscription".to_string() } else { format!("topology.{field}") },
                    format!(
                        "oversubscription {} gives {} hosts per switch ({full_is} = {} at 1:1); \
                         it must be a whole number: give {field} instead, or a ratio that is a multiple of {}",
                        short(r),
                        short(hosts),
                        short(full),
                        short(1.0 / full)
                    ),
                ));
            }
            Ok(hosts.round() as u32)
        }
    }
}

fn fat_tree_shape(t: &FatTree, hr: Rate, fr: Rate, cx: &Ctx) -> Result<FatTreeShape, InputError> {
    let explicit = [
        ("pods", t.pods),
        ("tors_per_pod", t.tors_per_pod),
        ("aggs_per_pod", t.aggs_per_pod),
    ];
    let mut s = match t.k {
        Some(k) => {
            if let Some((f, _)) = explicit
                .iter()
                .chain(&[("cores_per_agg", t.cores_per_agg)])
                .find(|(_, v)| v.is_some())
            {
                return Err(cx.err(
                    format!("topology.{f}"),
                    "give either k (the k-ary fat-tree) or pods, tors_per_pod and aggs_per_pod, not both",
                ));
            }
            if k < 2 || k % 2 != 0 {
                return Err(cx.err(
                    "topology.k",
                    format!("{k} must be even and >= 2 (e.g. 4, 8, 16)"),
                ));
            }
            FatTreeShape::k_ary(k, 0)
        }
        None => {
            if let Some((f, _)) = explicit.iter().find(|(_, v)| v.is_none()) {
                return Err(cx.err(
                    format!("topology.{f}"),
                    "is required with kind = \"fat-tree\" unless k is given",
                ));
            }
            for (f, v) in explicit.iter().chain(&[("cores_per_agg", t.cores_per_agg)]) {
                if *v == Some(0) {
                    return Err(cx.err(format!("topology.{f}"), "0 is too few; at least 1"));
                }
            }
            let tors = t.tors_per_pod.expect("checked");
            FatTreeShape {
                pods: t.pods.expect("checked"),
                tors_per_pod: tors,
                aggs_per_pod: t.aggs_per_pod.expect("checked"),
                cores_per_agg: t.cores_per_agg.unwrap_or(tors),
                hosts_per_tor: 0,
            }
        }
    };
    s.hosts_per_tor = hosts_below(
        ("hosts_per_tor", t.hosts_per_tor),
        t.oversubscription,
        s.aggs_per_pod as f64 * fr.bps_f64() / hr.bps_f64(),
        "aggs_per_pod x fabric_rate / host_rate",
        cx,
    )?;
    if s.hosts() < 2 {
        return Err(cx.err("topology", "the fat-tree has fewer than 2 hosts"));
    }
    check_size(s.nodes(), s.tors() + s.aggs() + s.cores(), s.tors(), cx)?;
    Ok(s)
}

/// Rejects generated topologies too large to route in memory.
fn check_size(nodes: u64, switches: u64, edge_switches: u64, cx: &Ctx) -> Result<(), InputError> {
    if nodes > crate::limits::MAX_NODES {
        return Err(cx.err(
            "topology",
            crate::limits::exceeds("the node count", nodes, crate::limits::MAX_NODES),
        ));
    }
    crate::limits::check_route_entries(switches, edge_switches, "use fewer pods, ToRs or leaves")
        .map_err(|m| cx.err("topology", m))
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn numbers_in_messages_carry_no_float_noise() {
        // Issue 42 item 18: "a multiple of 49999.99999999999".
        assert_eq!(short(49999.99999999999), "50000");
        assert_eq!(short(0.1 + 0.2), "0.3");
        assert_eq!(short(1.0 / 3.0), "0.333333");
        assert_eq!(short(8.0), "8");
    }
}
