//! `[topology]`: per-kind required and optional fields, defaults, and the call to
//! the generator (or file reader). docs/topologies-and-workloads.md lists every
//! kind's fields; errors name `topology.<field>` and what would be valid.

use super::ctx::{Ctx, resolve_path};
use super::{MultiHomed, TopologyKind, TopologySection};
use crate::error::InputError;
use crate::topology::fat_tree::{FatTreeShape, fat_tree};
use crate::topology::{Topology, TopologySpec, builders, leaf_spine, ns3, parking_lot, testbeds};
use crate::units::{Delta, Rate};
use std::path::Path;

/// (required, optional) fields of each kind.
fn fields(kind: TopologyKind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        TopologyKind::Star => (&["hosts", "rate", "delay"], &["loss"]),
        TopologyKind::Dumbbell => (
            &["left", "right", "host_rate", "delay"],
            &["bottleneck_rate", "oversubscription", "loss"],
        ),
        TopologyKind::Ns3 => (&["file"], &["multi_homed"]),
        TopologyKind::FatTree => (
            &["host_rate", "delay"],
            &[
                "k",
                "pods",
                "tors_per_pod",
                "aggs_per_pod",
                "cores_per_agg",
                "hosts_per_tor",
                "oversubscription",
                "fabric_rate",
                "loss",
            ],
        ),
        TopologyKind::HpccFatTree => (&[], &["host_rate", "fabric_rate", "delay", "loss"]),
        TopologyKind::LeafSpine => (
            &["leaves", "spines", "host_rate", "delay"],
            &["hosts_per_leaf", "oversubscription", "fabric_rate", "loss"],
        ),
        TopologyKind::DcqcnTestbed => (
            &[],
            &["hosts_per_tor", "host_rate", "fabric_rate", "delay", "loss"],
        ),
        TopologyKind::HpccTestbed => (&[], &["host_rate", "fabric_rate", "delay", "loss"]),
        TopologyKind::ParkingLot => (
            &["host_rate", "delay"],
            &["bottlenecks", "fabric_rate", "loss"],
        ),
    }
}

pub(super) fn build_topology(
    t: &TopologySection,
    base: &Path,
    cx: &Ctx,
) -> Result<Topology, InputError> {
    let (required, optional) = fields(t.kind);
    let kind = t.kind.name();
    for (field, given) in t.given() {
        if required.contains(&field) && !given {
            return Err(cx.err(
                format!("topology.{field}"),
                format!("is required with kind = \"{kind}\""),
            ));
        }
        if given && !required.contains(&field) && !optional.contains(&field) {
            let mut valid: Vec<&str> = required.iter().chain(optional).copied().collect();
            valid.sort_unstable();
            return Err(cx.err(
                format!("topology.{field}"),
                format!(
                    "is not used with kind = \"{kind}\" (its fields: {})",
                    valid.join(", ")
                ),
            ));
        }
    }
    let rate = |field: &str, r: Option<Rate>, default: Option<Rate>| {
        let r = r.or(default).expect("required field checked");
        if r.bps() == 0 {
            Err(cx.err(format!("topology.{field}"), "must be > 0, e.g. \"100Gbps\""))
        } else {
            Ok(r)
        }
    };
    let count = |field: &str, v: Option<u32>, min: u32| {
        let v = v.expect("required field checked");
        if v < min {
            Err(cx.err(
                format!("topology.{field}"),
                format!("{v} is too few; at least {min}"),
            ))
        } else {
            Ok(v)
        }
    };
    let loss = t.loss.unwrap_or(0.0);
    if !(0.0..1.0).contains(&loss) {
        return Err(cx.err("topology.loss", format!("{loss} must be in [0, 1)")));
    }
    let delay = t.delay.unwrap_or(Delta::from_us(1));
    let host_rate = |default| rate("host_rate", t.host_rate, default);
    // Fabric links default to the host rate where the papers use one rate.
    let fabric_rate =
        |default: Option<Rate>| rate("fabric_rate", t.fabric_rate.or(default), t.host_rate);
    let mut spec: TopologySpec = match t.kind {
        TopologyKind::Star => {
            let hosts = count("hosts", t.hosts, 2)?;
            check_size(hosts as u64 + 1, 1, 1, cx)?;
            builders::star(hosts, rate("rate", t.rate, None)?, delay)
        }
        TopologyKind::Dumbbell => {
            let (left, right) = (count("left", t.left, 1)?, count("right", t.right, 1)?);
            check_size(left as u64 + right as u64 + 2, 2, 2, cx)?;
            let hr = host_rate(None)?;
            let middle = match (t.bottleneck_rate, t.oversubscription) {
                (Some(_), None) => rate("bottleneck_rate", t.bottleneck_rate, None)?,
                (None, Some(r)) => {
                    let r = ratio(r, cx)?;
                    Rate::from_bps_f64(left.max(right) as f64 * hr.bps_f64() / r)
                }
                _ => {
                    return Err(cx.err(
                        "topology.bottleneck_rate",
                        "give either bottleneck_rate (e.g. \"40Gbps\") or oversubscription (e.g. 8, for max(left, right) x host_rate / 8)",
                    ));
                }
            };
            builders::dumbbell(left, right, hr, middle, delay)
        }
        TopologyKind::Ns3 => {
            let path = resolve_path(base, t.file.as_deref().expect("required field checked"));
            if t.multi_homed == Some(MultiHomed::FirstLink) {
                let mut spec = ns3::read_topology_unchecked(&path)?;
                ns3::keep_first_host_link(&mut spec);
                spec.validate()
                    .map_err(|m| InputError::in_file(&path, "", m))?;
                spec
            } else {
                ns3::read_topology(&path).map_err(|e| {
                    if e.message.contains(" links; each host has one NIC port") {
                        InputError {
                            message: format!(
                                "{} (or set topology.multi_homed = \"first-link\" to keep each host's first link)",
                                e.message
                            ),
                            ..e
                        }
                    } else {
                        e
                    }
                })?
            }
        }
        TopologyKind::FatTree => {
            let (hr, fr) = (host_rate(None)?, fabric_rate(None)?);
            let shape = fat_tree_shape(t, hr, fr, cx)?;
            fat_tree(shape, hr, fr, delay)
        }
        TopologyKind::HpccFatTree => fat_tree(
            FatTreeShape::HPCC,
            host_rate(Some(Rate::from_gbps(100)))?,
            fabric_rate(Some(Rate::from_gbps(400)))?,
            delay,
        ),
        TopologyKind::LeafSpine => {
            let (leaves, spines) = (count("leaves", t.leaves, 1)?, count("spines", t.spines, 1)?);
            let (hr, fr) = (host_rate(None)?, fabric_rate(None)?);
            let per_leaf = hosts_below(
                ("hosts_per_leaf", t.hosts_per_leaf),
                t.oversubscription,
                spines as f64 * fr.bps_f64() / hr.bps_f64(),
                "spines x fabric_rate / host_rate",
                cx,
            )?;
            check_size(
                leaves as u64 * per_leaf as u64 + leaves as u64 + spines as u64,
                spines as u64 + leaves as u64,
                leaves as u64,
                cx,
            )?;
            leaf_spine::leaf_spine(leaves, spines, per_leaf, hr, fr, delay)
        }
        TopologyKind::DcqcnTestbed => {
            let n = t.hosts_per_tor.unwrap_or(5);
            count("hosts_per_tor", Some(n), 1)?;
            check_size(4 * n as u64 + 10, 10, 4, cx)?;
            let hr = host_rate(Some(Rate::from_gbps(40)))?;
            testbeds::dcqcn_testbed(n, hr, fabric_rate(Some(hr))?, delay)
        }
        TopologyKind::HpccTestbed => testbeds::hpcc_testbed(
            host_rate(Some(Rate::from_gbps(25)))?,
            fabric_rate(Some(Rate::from_gbps(100)))?,
            delay,
        ),
        TopologyKind::ParkingLot => {
            let k = t.bottlenecks.unwrap_or(1);
            count("bottlenecks", Some(k), 1)?;
            check_size(3 * k as u64 + 4, k as u64 + 1, k as u64 + 1, cx)?;
            parking_lot::parking_lot(k, host_rate(None)?, fabric_rate(None)?, delay)
        }
    };
    if t.loss.is_some() {
        spec.links.iter_mut().for_each(|l| l.loss = loss);
    }
    Topology::build(spec).map_err(|m| cx.err("topology", m))
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

fn fat_tree_shape(
    t: &TopologySection,
    hr: Rate,
    fr: Rate,
    cx: &Ctx,
) -> Result<FatTreeShape, InputError> {
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
