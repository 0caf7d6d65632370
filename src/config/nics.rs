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
//! Queue pairs ([`QueuePairs`]): per NIC (the default), the flow's receiving
//! NIC takes its data and sends its ACKs and CNPs, which return to the
//! sending NIC, as with a queue pair bound to one port's address. Per server
//! (the ns3-hpcc default), as in ns-3's `RdmaHw`, a server has one address and
//! its queue pairs are host-wide: the receiving queue pair sits on the NIC of
//! its own hash (`GetNicIdxOfRxQp`), a flow's data lands where ECMP delivers it
//! and its ACKs where ECMP delivers them, and a NIC hands a packet for a
//! sibling's queue pair over at no delay ([`routing`], `crate::nic`).
//! docs/models.md ("Servers with several NICs") has the consequences.

use crate::ids::FlowId;
use crate::profile::EcmpHash;
use crate::switch::ecmp::{FlowKey, mix64, next_hop, ns3_tuple_hash, switch_seed};
use crate::topology::{NodeId, Topology};
use crate::workload::FlowSpec;
use crate::workload::program::Programs;
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

/// Where a server's queue pairs live (`nic.queue_pairs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueuePairs {
    /// Each on one NIC, whose address its packets carry.
    PerNic,
    /// Host-wide: packets come to the server's one address, land on any of
    /// its NICs and are handed to the NIC holding the queue pair.
    PerServer,
}

/// How flows use the NICs of servers with several (`[nic]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NicRules {
    pub placement: NicPlacement,
    pub receive_on: ReceiveOn,
    pub queue_pairs: QueuePairs,
}

impl NicRules {
    /// Whether a NIC hands packets to its siblings: host-wide queue pairs on
    /// a fabric with multi-NIC servers (and NICs the placement chose).
    pub fn hands_over(&self, topo: &Topology) -> bool {
        self.queue_pairs == QueuePairs::PerServer
            && self.placement != NicPlacement::Given
            && topo.multi_nic()
    }
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
/// (source server, destination server) from 10000, in start order. A flow of
/// a program's connection (`programs`) takes the port of the connection's
/// first flow, as the messages of one queue pair share its UDP port.
pub fn source_ports<'a>(
    flows: &'a [FlowSpec],
    topo: &'a Topology,
    programs: Option<&'a Programs>,
) -> impl Iterator<Item = u16> + 'a {
    let mut next = HashMap::<(u32, u32), u16>::new();
    let mut conn_port = HashMap::<u32, u16>::new();
    flows.iter().enumerate().map(move |(i, f)| {
        let conn = programs.and_then(|p| p.conn(FlowId::from_idx(i)));
        if let Some(&port) = conn.and_then(|c| conn_port.get(&c)) {
            return port;
        }
        let c = (next.entry((topo.server(f.src).0, topo.server(f.dst).0))).or_insert(10_000);
        let sport = *c;
        *c = c.wrapping_add(1);
        if let Some(c) = conn {
            conn_port.insert(c, sport);
        }
        sport
    })
}

/// Places every flow of `flows` (between servers) on a NIC at each end: the
/// source NIC by the placement; the destination NIC, with
/// [`ReceiveOn::Fabric`], where the fabric's ECMP (`hash`, run seed `seed`)
/// delivers the flow's packets when the switches route them to the server, as
/// the ns-3 simulator's switches do (a host's address is one, whatever NIC it
/// arrives on), or the same rail's. With host-wide queue pairs and the ns-3
/// hash, the destination NIC is the receiving queue pair's instead
/// (`GetNicIdxOfRxQp`, [`rx_qp_nic`]), and the data may land on its sibling.
/// Single-NIC fabrics and [`NicPlacement::Given`] leave the flows as they are.
/// Flows a program starts (`programs`) keep the NICs it gave them.
pub fn place(
    flows: &mut [FlowSpec],
    topo: &Topology,
    rules: NicRules,
    hash: EcmpHash,
    seed: u64,
    programs: Option<&Programs>,
) {
    let (policy, receive) = (rules.placement, rules.receive_on);
    if !topo.multi_nic() || policy == NicPlacement::Given {
        return;
    }
    let rx_qp = rules.hands_over(topo) && policy == NicPlacement::Ns3Hash;
    let sports: Vec<u16> = source_ports(flows, topo, programs).collect();
    let mut turn = HashMap::<NodeId, usize>::new();
    for (i, (f, sport)) in flows.iter_mut().zip(sports).enumerate() {
        if programs.is_some_and(|p| p.starts(FlowId::from_idx(i))) {
            continue;
        }
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
            ReceiveOn::Fabric if rx_qp => Some(rx_qp_nic(topo, key)),
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
    let mut near = nics_toward(topo, s, d);
    if near.len() < 2 {
        return near.first().copied().unwrap_or(s);
    }
    let k = match policy {
        NicPlacement::Ns3Hash => {
            let key = FlowKey {
                src: s.0,
                dst: d.0,
                sport,
                dport,
            };
            ns3_hash_index(topo, &mut near, key)
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

/// Server `s`'s NICs on shortest paths to server `d` (to its nearest NIC).
fn nics_toward(topo: &Topology, s: NodeId, d: NodeId) -> Vec<NodeId> {
    let to_d = |n: NodeId| {
        (topo.nics(d).iter())
            .filter_map(|&m| topo.nic_distance(n, m))
            .min()
    };
    nearest(topo.nics(s), to_d)
}

/// ns-3's hash for a host's NICs `near` (rdma-hw.cc `GetNicIdxOfQp`,
/// `GetNicIdxOfRxQp`): sorts them as its routing table lists them (by
/// descending switch id) and returns MurmurHash3 of the queue pair's 4-tuple
/// `key` with ns-3's seed, taken modulo their number by the caller.
fn ns3_hash_index(topo: &Topology, near: &mut [NodeId], key: FlowKey) -> usize {
    near.sort_by_key(|&n| std::cmp::Reverse(topo.host_port(n).peer));
    ns3_tuple_hash(key, NS3_HASH32_SEED) as usize
}

/// The NIC of server `key.dst` that holds the receiving queue pair of a flow
/// with 5-tuple `key` (from NIC `key.src`) when queue pairs are host-wide, as
/// ns-3's `GetNicIdxOfRxQp` picks it: `v[h % v.len()]`, `v` the server's NICs
/// on shortest paths back to the sender's server (its routing table's entry)
/// and `h` the receive queue pair's hash, which takes its 4-tuple from the
/// receiver's side (sip = this server, dip = the sender, sport = the flow's
/// dport, dport = its sport).
fn rx_qp_nic(topo: &Topology, key: FlowKey) -> NodeId {
    let (s, d) = (topo.server(NodeId(key.src)), NodeId(key.dst));
    let mut near = nics_toward(topo, d, s);
    let rx = FlowKey {
        src: d.0,
        dst: s.0,
        sport: key.dport,
        dport: key.sport,
    };
    let h = ns3_hash_index(topo, &mut near, rx);
    near.get(h % near.len().max(1)).copied().unwrap_or(d)
}

/// The NICs a placed flow's packets are routed to: its data's and its ACKs'
/// (CNPs', credits'). With per-NIC queue pairs (or a single-NIC fabric) they
/// are the flow's own ends. With host-wide ones ([`NicRules::hands_over`])
/// each is where the fabric's ECMP delivers a packet routed to the server, as
/// in ns-3, from which the NIC hands it to the one holding the queue pair
/// (`spec.dst` for data, `spec.src` for ACKs); data keeps its rail with
/// [`ReceiveOn::SameRail`].
pub fn routing(
    topo: &Topology,
    rules: NicRules,
    (hash, seed): (EcmpHash, u64),
    spec: &FlowSpec,
    sport: u16,
) -> (NodeId, NodeId) {
    if !rules.hands_over(topo) {
        return (spec.dst, spec.src);
    }
    let data = FlowKey {
        src: spec.src.0,
        dst: topo.server(spec.dst).0,
        sport,
        dport: spec.dport,
    };
    let ack = FlowKey {
        src: spec.dst.0,
        dst: topo.server(spec.src).0,
        sport: spec.dport,
        dport: sport,
    };
    let data_to = match rules.receive_on {
        ReceiveOn::SameRail => spec.dst,
        ReceiveOn::Fabric => landing_nic(topo, hash, seed, data),
    };
    (data_to, landing_nic(topo, hash, seed, ack))
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
        let rules = NicRules {
            placement: policy,
            receive_on: ReceiveOn::Fabric,
            queue_pairs: QueuePairs::PerNic,
        };
        place(&mut f, t, rules, EcmpHash::Ns3Murmur, 1, None);
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

    fn per_server(placement: NicPlacement) -> NicRules {
        NicRules {
            placement,
            receive_on: ReceiveOn::Fabric,
            queue_pairs: QueuePairs::PerServer,
        }
    }

    #[test]
    fn a_host_wide_receiving_queue_pair_sits_where_ns3s_rx_hash_puts_it() {
        // GetNicIdxOfRxQp: v[h % 2], v the receiver's NICs by descending ToR
        // id, h the hash of the receive queue pair's own 4-tuple (receiver,
        // sender, the flow's dport, its sport).
        let t = ali();
        let f = flows(&t, |s| (s + 100) % 320);
        let mut p = f.clone();
        place(
            &mut p,
            &t,
            per_server(NicPlacement::Ns3Hash),
            EcmpHash::Ns3Murmur,
            1,
            None,
        );
        for (orig, g) in f.iter().zip(&p) {
            let h = qp_hash(orig.dst.0, orig.src.0, 100, 10_000);
            let want = t.nics(orig.dst)[usize::from(h.is_multiple_of(2))];
            assert_eq!(g.dst, want, "flow from {}", orig.src);
        }
    }

    #[test]
    fn host_wide_queue_pairs_route_data_and_acks_to_the_server_and_per_nic_ones_to_the_ends() {
        let t = ali();
        let mut f = flows(&t, |s| (s + 64) % 320);
        let rules = per_server(NicPlacement::Ns3Hash);
        place(&mut f, &t, rules, EcmpHash::Ns3Murmur, 1, None);
        let (mut data_moved, mut ack_moved) = (0, 0);
        for g in &f {
            let (data, ack) = routing(&t, rules, (EcmpHash::Ns3Murmur, 1), g, 10_000);
            assert_eq!(t.server(data), t.server(g.dst));
            assert_eq!(t.server(ack), t.server(g.src));
            data_moved += usize::from(data != g.dst);
            ack_moved += usize::from(ack != g.src);
            let per_nic = NicRules {
                queue_pairs: QueuePairs::PerNic,
                ..rules
            };
            let ends = routing(&t, per_nic, (EcmpHash::Ns3Murmur, 1), g, 10_000);
            assert_eq!(ends, (g.dst, g.src));
        }
        // Each about half the time: two NICs, independent hashes.
        for moved in [data_moved, ack_moved] {
            assert!((80..=240).contains(&moved), "{moved} of 320 handed over");
        }
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
        let before: Vec<u16> = source_ports(&f, &t, None).collect();
        let p = placed(&t, NicPlacement::RoundRobin, f);
        assert_eq!(source_ports(&p, &t, None).collect::<Vec<_>>(), before);
        assert_eq!((before[0], before[320]), (10_000, 10_001));
    }
}
