//! Servers with several NICs: which NIC at each end carries a flow.
//!
//! A workload names servers (a server is named by its first NIC,
//! [`Topology::server`]). Before the run, every flow is placed on one NIC of
//! its source and one of its destination, and from then on it is a flow
//! between those two NICs: its queue pair, pacing, ACKs, CNPs and PFC reaction
//! are that NIC's, as in the HPCC ns-3 simulator, where each QP belongs to one
//! NIC (net device) and a PAUSE stops that NIC's own QPs.
//!
//! * Source NIC: among the source's NICs on shortest paths to the destination
//!   server, by the policy ([`NicPlacement`]). The ns-3 simulator (rdma-hw.cc
//!   `GetNicIdxOfQp`, rdma-queue-pair.cc `GetHash`) takes `v[h % v.len()]`, `v`
//!   those NICs in its route computation's order (the attached switches by
//!   descending node id, docs/ns3-compat.md) and `h` MurmurHash3-x86_32 (seed
//!   0x8BADF00D) of (sip, dip, sport, dport): [`NicPlacement::Ns3Hash`].
//! * Destination NIC: where the switches deliver the flow's packets when they
//!   route them to the server, as ns-3's switches do (they route to a host's
//!   one address and list every port toward any of its NICs): the same ECMP
//!   hash the switches use, taken along the path ([`landing_nic`]).
//!
//! What differs from ns-3: there, a receiver's state is host-wide and its ACKs
//! leave by a NIC of their own hash (`GetNicIdxOfRxQp`) and land at the sender
//! on whichever NIC ECMP reaches; here the flow's receiving NIC, which takes its
//! data, also sends its ACKs and CNPs, and they return to the sending NIC.
//! docs/models.md ("Servers with several NICs") has the consequences.

use crate::profile::EcmpHash;
use crate::switch::ecmp::{FlowKey, mix64, next_hop, ns3_tuple_hash, switch_seed};
use crate::topology::{NodeId, Topology};
use crate::workload::FlowSpec;
use std::collections::HashMap;

/// Where a flow arrives at a server with several NICs (`nic.receive_on`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveOn {
    /// Where the switches deliver it when they route it to the server.
    Fabric,
    /// The destination's NIC of the sending NIC's index (its rail), as
    /// collective libraries connect rail r to rail r on rail-optimized fabrics.
    SameRail,
}

/// How a server's flows are spread over its NICs (`nic.placement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicPlacement {
    /// The ns-3 simulator's rule: MurmurHash3 of the queue pair's 4-tuple
    /// modulo the NICs on shortest paths, listed in its order.
    Ns3Hash,
    /// A seeded hash of the flow's 4-tuple (ECMP-style), NICs in link order.
    Hash,
    /// Each server hands its flows to its NICs on shortest paths in turn
    /// (in start order), as a receiver does its incoming ones.
    RoundRobin,
    /// The workload names NICs: a flow runs between the node ids it gives.
    Given,
}

/// ns-3's seed of `Hash32` (hash-murmur3.h), which the queue pair hash
/// (rdma-queue-pair.cc `GetHash`) uses.
const NS3_HASH32_SEED: u32 = 0x8BAD_F00D;

/// Every flow's source port, as the ns-3 simulator numbers them: a counter per
/// (source server, destination server) from 10000, in start order.
pub fn source_ports<'a>(
    flows: &'a [FlowSpec],
    topo: &'a Topology,
) -> impl Iterator<Item = u16> + 'a {
    let mut next = HashMap::<(u32, u32), u16>::new();
    flows.iter().map(move |f| {
        let c = (next.entry((topo.server(f.src).0, topo.server(f.dst).0))).or_insert(10_000);
        let sport = *c;
        *c = c.wrapping_add(1);
        sport
    })
}

/// Places every flow of `flows` (between servers) on a NIC at each end: the
/// source NIC by `policy`; the destination NIC, with [`ReceiveOn::Fabric`],
/// where the fabric's ECMP (`hash`, run seed `seed`) delivers the flow's
/// packets when the switches route them to the server, as the ns-3
/// simulator's switches do (a host's address is one, whatever NIC it arrives
/// on), or the same rail's. Single-NIC fabrics and [`NicPlacement::Given`]
/// leave the flows as they are.
pub fn place(
    flows: &mut [FlowSpec],
    topo: &Topology,
    (policy, receive): (NicPlacement, ReceiveOn),
    hash: EcmpHash,
    seed: u64,
) {
    if !topo.multi_nic() || policy == NicPlacement::Given {
        return;
    }
    let sports: Vec<u16> = source_ports(flows, topo).collect();
    let mut turn = HashMap::<NodeId, usize>::new();
    for (f, sport) in flows.iter_mut().zip(sports) {
        let (s, d) = (topo.server(f.src), topo.server(f.dst));
        let src = source_nic(topo, policy, seed, &mut turn, (s, d), (sport, f.dport));
        let key = FlowKey {
            src: src.0,
            dst: d.0,
            sport,
            dport: f.dport,
        };
        let rail = || topo.nics(s).iter().position(|&n| n == src);
        let dst = match receive {
            ReceiveOn::SameRail => rail().and_then(|r| topo.nics(d).get(r).copied()),
            ReceiveOn::Fabric => None,
        };
        let dst = dst.unwrap_or_else(|| landing_nic(topo, hash, seed, key));
        (f.src, f.dst) = (src, dst);
    }
}

/// The NIC of server `s` that carries a flow to server `d` with ports
/// `(sport, dport)`: one of its NICs on shortest paths to `d`, by `policy`.
fn source_nic(
    topo: &Topology,
    policy: NicPlacement,
    seed: u64,
    turn: &mut HashMap<NodeId, usize>,
    (s, d): (NodeId, NodeId),
    (sport, dport): (u16, u16),
) -> NodeId {
    let to_d = |n: NodeId| {
        (topo.nics(d).iter())
            .filter_map(|&m| topo.nic_distance(n, m))
            .min()
    };
    let mut near = nearest(topo.nics(s), to_d);
    if near.len() < 2 {
        return near.first().copied().unwrap_or(s);
    }
    let k = match policy {
        NicPlacement::Ns3Hash => {
            // ns-3 lists a host's next hops by descending switch id.
            near.sort_by_key(|&n| std::cmp::Reverse(topo.host_port(n).peer));
            let key = FlowKey {
                src: s.0,
                dst: d.0,
                sport,
                dport,
            };
            ns3_tuple_hash(key, NS3_HASH32_SEED) as usize
        }
        NicPlacement::Hash => {
            let tuple = (s.0 as u64) << 32 | d.0 as u64;
            let ports = (sport as u64) << 16 | dport as u64;
            mix64(seed ^ mix64(tuple ^ mix64(ports | 0x1c << 40))) as usize
        }
        NicPlacement::RoundRobin => {
            let t = turn.entry(s).or_default();
            *t += 1;
            *t - 1
        }
        NicPlacement::Given => 0,
    };
    near[k % near.len()]
}

/// The NICs of `nics` at the least `distance` (none reachable: none).
fn nearest(nics: &[NodeId], distance: impl Fn(NodeId) -> Option<u32>) -> Vec<NodeId> {
    let d: Vec<Option<u32>> = nics.iter().map(|&n| distance(n)).collect();
    let best = d.iter().flatten().min();
    (nics.iter().zip(&d))
        .filter(|(_, x)| best.is_some() && x.as_ref() == best)
        .map(|(&n, _)| n)
        .collect()
}

/// The NIC of server `key.dst` at which a packet from NIC `key.src` with this
/// 5-tuple arrives when every switch routes it toward the server: among the
/// ports one hop closer to the nearest of the server's NICs, listed in the
/// routing table's order (ns-3: descending neighbour id), ECMP picks as it
/// does for any packet ([`crate::switch::ecmp::next_hop`]).
fn landing_nic(topo: &Topology, hash: EcmpHash, run_seed: u64, key: FlowKey) -> NodeId {
    let server = NodeId(key.dst);
    let nics = topo.nics(server);
    let first = topo.host_port(NodeId(key.src));
    let mut node = first.peer;
    let ns3_order = matches!(hash, EcmpHash::Ns3Murmur);
    for _ in 0..topo.spec.kinds.len() {
        if topo.is_host(node) {
            return node;
        }
        let idx = topo.switch_idx(node).0;
        let ports = &topo.ports[node.idx()];
        let dist = |m: NodeId| topo.routes.hops_to_attachment(idx, m).map(u32::from);
        let mut hops: Vec<u16> = (nearest(nics, dist).into_iter())
            .flat_map(|m| topo.routes.next_hops(idx, m).iter().copied())
            .collect();
        hops.sort_unstable();
        hops.dedup();
        if ns3_order {
            hops.sort_by_key(|&p| std::cmp::Reverse(ports[p as usize].peer));
        }
        let seed = switch_seed(topo, hash, run_seed, node);
        let Some(out) = next_hop(&hops, hash, seed, node, key.addressed(&topo.routes)) else {
            break;
        };
        node = ports[out as usize].peer;
    }
    nics[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::ns3::read_topology;
    use crate::units::SimTime;

    use crate::switch::ecmp::{murmur3_32, ns3_ip};

    /// The ns-3 queue pair hash of a flow between nodes `s` and `d`.
    fn qp_hash(s: u32, d: u32, sport: u16, dport: u16) -> u32 {
        let key = FlowKey {
            src: s,
            dst: d,
            sport,
            dport,
        };
        ns3_tuple_hash(key, NS3_HASH32_SEED)
    }

    #[test]
    fn the_qp_hash_is_ns3s_murmur3_with_its_seed() {
        // Computed with ns-3's hash-murmur3.cc (Hash32, seed 0x8BADF00D) on
        // sip 11.0.0.1, dip 11.0.1.1 (nodes 0 and 1), sport 10000, dport 100.
        assert_eq!(qp_hash(0, 1, 10_000, 100), 3_887_419_479);
    }

    /// The ns-3 simulator's dual-homed fabric: 10 racks of 32 servers, each
    /// with NICs under ToRs 320 + 2r and 321 + 2r; spines 340-347.
    fn ali() -> Topology {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/hpcc-ns3/mix/ali_32host_10rack.txt");
        let mut t = Topology::build(read_topology(&path).unwrap()).unwrap();
        t.use_ns3_route_order();
        t
    }

    /// One flow from every server to `dst(s)`, in server order.
    fn flows(t: &Topology, dst: impl Fn(u32) -> u32) -> Vec<FlowSpec> {
        (t.servers().iter())
            .map(|s| FlowSpec {
                src: *s,
                dst: NodeId(dst(s.0)),
                size: 1000,
                start: SimTime::ZERO,
                class: 3,
                dport: 100,
            })
            .collect()
    }

    fn placed(t: &Topology, policy: NicPlacement, mut f: Vec<FlowSpec>) -> Vec<FlowSpec> {
        place(
            &mut f,
            t,
            (policy, ReceiveOn::Fabric),
            EcmpHash::Ns3Murmur,
            1,
        );
        f
    }

    #[test]
    fn ns3_hash_sends_by_the_simulators_rule() {
        // GetNicIdxOfQp: v[hash % 2] with v = [device 2 (ToR 321+2r), device 1].
        let t = ali();
        let f = flows(&t, |s| (s + 100) % 320);
        for (orig, p) in f.iter().zip(placed(&t, NicPlacement::Ns3Hash, f.clone())) {
            let h = qp_hash(orig.src.0, orig.dst.0, 10_000, 100);
            let want = t.nics(orig.src)[usize::from(h.is_multiple_of(2))];
            assert_eq!(p.src, want, "flow from {}", orig.src);
            assert_eq!(t.server(p.dst), orig.dst);
        }
    }

    #[test]
    fn a_flow_inside_a_rack_stays_under_the_tor_it_left_by() {
        let t = ali();
        let f = flows(&t, |s| s / 32 * 32 + (s + 1) % 32);
        for policy in [
            NicPlacement::Ns3Hash,
            NicPlacement::Hash,
            NicPlacement::RoundRobin,
        ] {
            let p = placed(&t, policy, f.clone());
            for g in &p {
                assert_eq!(t.host_port(g.src).peer, t.host_port(g.dst).peer);
                assert_eq!(t.nic_distance(g.src, g.dst), Some(2));
            }
            // The hashes send about half of the servers' flows by their second
            // NIC (round robin starts every server at its first).
            let second = p.iter().filter(|g| g.src.0 >= 348).count();
            let want = if policy == NicPlacement::RoundRobin {
                0..=0
            } else {
                80..=240
            };
            assert!(want.contains(&second), "{policy:?}: {second} of 320");
        }
    }

    #[test]
    fn across_racks_a_flow_lands_where_ns3s_switches_send_it() {
        // The simulator's path, worked out here from its rules: the source
        // ToR picks a spine among 347..340 and the spine a ToR of the pair
        // [321 + 2r, 320 + 2r], each by MurmurHash3 of (sip, dip,
        // sport | dport << 16) seeded with its node id (hpcc-ns3-model.md §3).
        let t = ali();
        let f = flows(&t, |s| (s + 64) % 320);
        let p = placed(&t, NicPlacement::Ns3Hash, f.clone());
        let pick = |node: u32, s: u32, d: u32, n: u32| {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&ns3_ip(s).to_le_bytes());
            b[4..8].copy_from_slice(&ns3_ip(d).to_le_bytes());
            b[8..].copy_from_slice(&(10_000u32 | 100 << 16).to_le_bytes());
            murmur3_32(&b, node) % n
        };
        let mut second = 0;
        for (orig, g) in f.iter().zip(&p) {
            let (s, d) = (orig.src.0, orig.dst.0);
            let tor = t.host_port(g.src).peer.0;
            let spine = 347 - pick(tor, s, d, 8);
            let r = d / 32;
            let dst_tor = [321 + 2 * r, 320 + 2 * r][pick(spine, s, d, 2) as usize];
            assert_eq!(t.host_port(g.dst).peer.0, dst_tor, "flow {s} -> {d}");
            second += usize::from(g.dst.0 >= 348);
        }
        assert!(
            (80..=240).contains(&second),
            "{second} of 320 land on the second NIC"
        );
    }

    #[test]
    fn round_robin_alternates_a_servers_nics_and_given_keeps_the_workloads() {
        let t = ali();
        let mut f = flows(&t, |s| (s + 64) % 320);
        f.extend(flows(&t, |s| (s + 128) % 320));
        let p = placed(&t, NicPlacement::RoundRobin, f.clone());
        let (a, b) = p.split_at(320);
        for (x, y) in a.iter().zip(b) {
            assert_ne!(x.src, y.src, "a server's two flows on its two NICs");
        }
        assert_eq!(placed(&t, NicPlacement::Given, f.clone()), f);
    }

    #[test]
    fn source_ports_count_per_server_pair_whichever_nics_carry_the_flows() {
        let t = ali();
        let mut f = flows(&t, |s| (s + 64) % 320);
        f.extend(flows(&t, |s| (s + 64) % 320));
        let before: Vec<u16> = source_ports(&f, &t).collect();
        let p = placed(&t, NicPlacement::RoundRobin, f);
        assert_eq!(source_ports(&p, &t).collect::<Vec<_>>(), before);
        assert_eq!((before[0], before[320]), (10_000, 10_001));
    }
}
