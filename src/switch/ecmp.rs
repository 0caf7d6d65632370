//! ECMP: how a switch picks among equal-cost next hops, and the path a flow's
//! packets therefore take.
//!
//! Per-flow hashing of the 5-tuple, so every packet of a flow follows one path
//! (the HPCC ns-3 model, ../shared/reference/hpcc-ns3-model.md §3: `GetOutDev` /
//! `EcmpHash` hash source and destination IP and the two UDP ports with
//! MurmurHash3-x86_32 seeded by the switch's node id, and take the hash modulo the
//! number of next hops). The default profile hashes the same fields with a 64-bit
//! mix seeded per switch from the run seed ([`EcmpHash`]). The routing table itself
//! (which next hops are equal-cost) is topology data: `topology::routing`.
//!
//! Because the choice depends only on the 5-tuple, [`trace`] can walk a flow's path
//! without simulating; the path model (`config::paths`) and the PFC victim
//! diagnostics both use it.

use crate::ids::SwitchIdx;
use crate::profile::EcmpHash;
use crate::topology::{NodeId, PortInfo, Topology};

/// SplitMix64 finalizer: a fast, well-mixed 64-bit hash step (also used to seed
/// the per-node random streams).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// MurmurHash3 x86_32 (Austin Appleby's public-domain algorithm).
pub fn murmur3_32(key: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut chunks = key.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, b) in tail.iter().enumerate() {
            k |= (*b as u32) << (8 * i);
        }
        h ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    }
    h ^= key.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The IPv4 address the ns-3 simulator gives host `id`: 11.(id/256).(id%256).1.
pub fn ns3_ip(id: u32) -> u32 {
    (11 << 24) | ((id / 256) << 16) | ((id % 256) << 8) | 1
}

/// MurmurHash3-x86_32 with `seed` of a 4-tuple as the ns-3 simulator packs it
/// (switch-node.cc `EcmpHash`, rdma-queue-pair.cc `GetHash`): sip, dip (its
/// addresses of the two node ids), sport, dport, little-endian, no padding.
#[inline]
pub fn ns3_tuple_hash(key: FlowKey, seed: u32) -> u32 {
    let mut bytes = [0u8; 12];
    bytes[..4].copy_from_slice(&ns3_ip(key.src).to_le_bytes());
    bytes[4..8].copy_from_slice(&ns3_ip(key.dst).to_le_bytes());
    bytes[8..10].copy_from_slice(&key.sport.to_le_bytes());
    bytes[10..].copy_from_slice(&key.dport.to_le_bytes());
    murmur3_32(&bytes, seed)
}

/// The per-switch ECMP seed for a run seed.
pub fn ecmp_seed(run_seed: u64, switch: NodeId) -> u64 {
    mix64(run_seed ^ mix64(0x5eed_0000_0000 ^ switch.0 as u64))
}

/// The ECMP seed of every switch `level` hops from the nearest host, for the
/// symmetric hash ([`EcmpHash::Symmetric`]).
pub fn level_seed(run_seed: u64, level: u32) -> u64 {
    mix64(run_seed ^ mix64(0x5e7e_0000_0000 ^ level as u64))
}

/// The ECMP seed switch `node` of `topo` uses under `hash`.
pub fn switch_seed(topo: &Topology, hash: EcmpHash, run_seed: u64, node: NodeId) -> u64 {
    match hash {
        EcmpHash::Symmetric => level_seed(run_seed, topo.levels[node.idx()]),
        _ => ecmp_seed(run_seed, node),
    }
}

/// The fields of a packet's 5-tuple that ECMP hashes (the protocol is always UDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// The key with each end's address ([`crate::topology::routing::Routes::address`]):
    /// what ECMP hashes.
    #[inline(always)]
    pub fn addressed(self, routes: &crate::topology::routing::Routes) -> FlowKey {
        FlowKey {
            src: routes.address(NodeId(self.src)),
            dst: routes.address(NodeId(self.dst)),
            ..self
        }
    }
    /// The key of the packets going the other way (the flow's ACKs).
    pub fn reversed(self) -> FlowKey {
        FlowKey {
            src: self.dst,
            dst: self.src,
            sport: self.dport,
            dport: self.sport,
        }
    }
}

/// Picks among `n` equal-cost next hops at `switch` for a packet's 5-tuple.
#[inline]
fn pick(hash: EcmpHash, seed: u64, switch: NodeId, key: FlowKey, n: usize) -> usize {
    index(tuple_hash(hash, seed, switch, key), n)
}

/// The hash ECMP takes of a packet's 5-tuple at `switch` (ECMP seed `seed`);
/// its next hop is this modulo the number of next hops ([`index`]). Flowlet
/// switching indexes its table with it and adaptive routing breaks ties with
/// it ([`super::flowlet`], [`super::adaptive`]).
#[inline]
pub fn tuple_hash(hash: EcmpHash, seed: u64, switch: NodeId, key: FlowKey) -> u64 {
    match hash {
        EcmpHash::Seeded => {
            let tuple = ((key.src as u64) << 32 | key.dst as u64)
                ^ mix64((key.sport as u64) << 16 | key.dport as u64 | 17 << 32);
            mix64(seed ^ mix64(tuple))
        }
        EcmpHash::Ns3Murmur => ns3_tuple_hash(key, switch.0) as u64,
        EcmpHash::Symmetric => {
            // The two ends in a fixed order: a flow and its reverse agree.
            let (a, b) = ((key.src, key.sport), (key.dst, key.dport));
            let ((x, xp), (y, yp)) = if a <= b { (a, b) } else { (b, a) };
            let tuple = ((x as u64) << 32 | y as u64) ^ mix64((xp as u64) << 16 | yp as u64);
            mix64(seed ^ mix64(tuple))
        }
    }
}

/// `h % n`. Fat-trees have a power-of-two number of uplinks, and a mask is a
/// cycle where a division is tens. Spraying, flowlets and adaptive routing use
/// it too ([`super::spray`]).
#[inline]
pub(super) fn index(h: u64, n: usize) -> usize {
    let n = n as u64;
    (if n.is_power_of_two() {
        h & (n - 1)
    } else {
        h % n
    }) as usize
}

/// The egress port `switch` (ECMP seed `seed`) sends a packet with this 5-tuple
/// out of, among the routing table's equal-cost `hops`; `None` if there is no route.
#[inline(always)]
pub fn next_hop(
    hops: &[u16],
    hash: EcmpHash,
    seed: u64,
    switch: NodeId,
    key: FlowKey,
) -> Option<u16> {
    match hops.len() {
        0 => None,
        1 => Some(hops[0]),
        n => Some(hops[pick(hash, seed, switch, key, n)]),
    }
}

/// One switch on a flow's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchHop {
    pub node: NodeId,
    /// Index among switches (routing-table row).
    pub index: SwitchIdx,
    /// Port the packet arrives on.
    pub ingress: u16,
    /// Port ECMP sends it out of.
    pub egress: u16,
}

impl SwitchHop {
    /// The link the packet takes out of this switch.
    pub fn link<'t>(&self, topo: &'t Topology) -> &'t PortInfo {
        &topo.ports[self.node.idx()][self.egress as usize]
    }
}

/// The switches a packet with this 5-tuple crosses from host `key.src` to host
/// `key.dst`, each with the ports it uses, as the switches route it (run seed
/// `run_seed`). The packet's first link is the source host's only port.
///
/// Panics if the routing table has no route or loops: a validated topology
/// routes every host pair.
pub fn trace(topo: &Topology, hash: EcmpHash, run_seed: u64, key: FlowKey) -> Vec<SwitchHop> {
    let dst = NodeId(key.dst);
    let first = topo.host_port(NodeId(key.src));
    let (mut node, mut ingress) = (first.peer, first.peer_port);
    let mut hops = Vec::with_capacity(8);
    while node != dst {
        assert!(
            hops.len() < topo.spec.kinds.len(),
            "routing loop toward host {dst}"
        );
        assert!(
            !topo.is_host(node),
            "route toward host {dst} ends at host {node}"
        );
        let index = topo.switch_idx(node);
        let next = topo.routes.next_hops(index.0, dst);
        let egress = next_hop(
            next,
            hash,
            switch_seed(topo, hash, run_seed, node),
            node,
            key.addressed(&topo.routes),
        )
        .unwrap_or_else(|| panic!("no route from switch {node} to host {dst}"));
        let hop = SwitchHop {
            node,
            index,
            ingress,
            egress,
        };
        hops.push(hop);
        let p = hop.link(topo);
        (node, ingress) = (p.peer, p.peer_port);
    }
    hops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;
    use crate::units::{Delta, Rate};

    #[test]
    fn the_index_is_the_hash_modulo_the_number_of_hops() {
        let mut h = 0x0123_4567_89ab_cdefu64;
        for _ in 0..10_000 {
            h = mix64(h);
            for n in 1..=64usize {
                assert_eq!(index(h, n), (h % n as u64) as usize, "h {h:#x} n {n}");
            }
        }
    }

    #[test]
    fn murmur3_matches_the_reference_vectors() {
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"test", 0), 0xba6b_d213);
        assert_eq!(murmur3_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
    }

    fn key(sport: u16) -> FlowKey {
        FlowKey {
            src: 1,
            dst: 2,
            sport,
            dport: 100,
        }
    }

    #[test]
    fn no_route_is_none_and_a_single_route_needs_no_hash() {
        for hash in [EcmpHash::Seeded, EcmpHash::Ns3Murmur] {
            assert_eq!(next_hop(&[], hash, 7, NodeId(5), key(1)), None);
            assert_eq!(next_hop(&[3], hash, 7, NodeId(5), key(1)), Some(3));
        }
    }

    #[test]
    fn a_flow_keeps_its_next_hop_and_different_flows_spread() {
        let hops = [4, 5, 6, 7];
        for hash in [EcmpHash::Seeded, EcmpHash::Ns3Murmur] {
            let pick = |sport| next_hop(&hops, hash, 7, NodeId(5), key(sport)).unwrap();
            assert_eq!(pick(10_000), pick(10_000));
            let used: std::collections::BTreeSet<u16> = (10_000..10_064).map(pick).collect();
            assert_eq!(used.len(), 4, "{hash:?} uses every next hop");
        }
    }

    #[test]
    fn the_ns3_hash_is_murmur3_of_the_ns3_addresses_and_ports_seeded_by_node_id() {
        let k = key(10_000);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&ns3_ip(1).to_le_bytes());
        bytes.extend_from_slice(&ns3_ip(2).to_le_bytes());
        bytes.extend_from_slice(&(10_000u32 | 100 << 16).to_le_bytes());
        let want = murmur3_32(&bytes, 9) % 3;
        let got = next_hop(&[0, 1, 2], EcmpHash::Ns3Murmur, 0, NodeId(9), k).unwrap();
        assert_eq!(got as u32, want);
    }

    /// ExpressPass's data follows its credits back: on the HPCC 320-host
    /// fat-tree the symmetric hash sends every flow's reply (credits) through
    /// the same switches and links, hop by hop, in reverse; the seeded hash
    /// does not.
    #[test]
    fn the_symmetric_hash_gives_a_reply_the_mirror_path_on_the_320_host_fat_tree() {
        let topo = Topology::build(crate::topology::fat_tree::hpcc_fat_tree_default()).unwrap();
        assert_eq!(topo.hosts.len(), 320);
        // (switch, ingress, egress) per hop; the reply's reversed and with
        // its ports swapped.
        let hops = |hash, key| -> Vec<(NodeId, u16, u16)> {
            trace(&topo, hash, 7, key)
                .iter()
                .map(|h| (h.node, h.ingress, h.egress))
                .collect()
        };
        let mirrored = |hash, key: FlowKey| {
            let mut back = hops(hash, key.reversed());
            back.reverse();
            let back: Vec<_> = back.into_iter().map(|(n, i, e)| (n, e, i)).collect();
            hops(hash, key) == back
        };
        let mut asymmetric_seeded = 0;
        let mut five_hop = 0;
        for (k, (src, dst)) in [
            (0u32, 319u32),
            (5, 100),
            (17, 250),
            (64, 65),
            (200, 3),
            (310, 16),
        ]
        .into_iter()
        .enumerate()
        {
            for sport in 10_000..10_040u16 {
                let key = FlowKey {
                    src,
                    dst,
                    sport,
                    dport: 100 + k as u16,
                };
                assert!(mirrored(EcmpHash::Symmetric, key), "{key:?}");
                asymmetric_seeded += !mirrored(EcmpHash::Seeded, key) as u32;
                five_hop += (hops(EcmpHash::Symmetric, key).len() == 5) as u32;
            }
        }
        assert!(five_hop >= 160, "most pairs cross the core: {five_hop}");
        assert!(asymmetric_seeded > 100, "the seeded hash is not symmetric");
    }

    #[test]
    fn a_star_path_is_one_switch_from_the_senders_port_to_the_receivers() {
        let t = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let sw = t.switches[0];
        let k = FlowKey {
            src: t.hosts[0].0,
            dst: t.hosts[2].0,
            sport: 10_000,
            dport: 100,
        };
        let path = trace(&t, EcmpHash::Seeded, 1, k);
        assert_eq!(path.len(), 1);
        let h = path[0];
        assert_eq!((h.node, h.index), (sw, SwitchIdx(0)));
        assert_eq!(h.ingress, t.host_port(t.hosts[0]).peer_port);
        assert_eq!(h.egress, t.host_port(t.hosts[2]).peer_port);
        assert_eq!(h.link(&t).peer, t.hosts[2]);
        let back = trace(&t, EcmpHash::Seeded, 1, k.reversed());
        assert_eq!((back[0].ingress, back[0].egress), (h.egress, h.ingress));
    }
}
