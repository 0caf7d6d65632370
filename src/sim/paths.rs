//! Paths, base RTTs and ideal flow completion times.
//!
//! A flow's packets follow one ECMP path (per-flow hashing), so its path can be
//! traced without simulating. From a path we get the pair's base RTT and the
//! ideal FCT: the flow alone at line rate on an idle network.

use crate::profile::{EcmpHash, IdealFct, ModelConfig};
use crate::topology::{NodeId, Topology};
use crate::units::{Delta, Rate};
use std::collections::VecDeque;

/// One link of a path, in the direction of travel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    pub rate: Rate,
    pub delay: Delta,
}

/// SplitMix64 finalizer: a fast, well-mixed 64-bit hash step.
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

/// The per-switch ECMP seed for a run seed.
pub fn ecmp_seed(run_seed: u64, switch: NodeId) -> u64 {
    mix64(run_seed ^ mix64(0x5eed_0000_0000 ^ switch.0 as u64))
}

/// The fields of a packet's 5-tuple that ECMP hashes (the protocol is always UDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

/// Picks among `n` equal-cost next hops at `switch` for a packet's 5-tuple.
#[inline]
pub fn ecmp_pick(kind: EcmpHash, seed: u64, switch: NodeId, key: FlowKey, n: usize) -> usize {
    let h = match kind {
        EcmpHash::Seeded => {
            let tuple = ((key.src as u64) << 32 | key.dst as u64)
                ^ mix64((key.sport as u64) << 16 | key.dport as u64 | 17 << 32);
            mix64(seed ^ mix64(tuple))
        }
        EcmpHash::Ns3Murmur => {
            let mut bytes = [0u8; 12];
            bytes[..4].copy_from_slice(&ns3_ip(key.src).to_le_bytes());
            bytes[4..8].copy_from_slice(&ns3_ip(key.dst).to_le_bytes());
            bytes[8..]
                .copy_from_slice(&(key.sport as u32 | (key.dport as u32) << 16).to_le_bytes());
            murmur3_32(&bytes, switch.0) as u64
        }
    };
    (h % n as u64) as usize
}

/// Traces the links a packet with this 5-tuple crosses from `src` to `dst`.
pub fn trace(
    topo: &Topology,
    model: &ModelConfig,
    seed: u64,
    src: NodeId,
    dst: NodeId,
    sport: u16,
    dport: u16,
) -> Vec<Hop> {
    let mut hops = Vec::with_capacity(8);
    let first = topo.host_port(src);
    hops.push(Hop {
        rate: first.rate,
        delay: first.delay,
    });
    let mut node = first.peer;
    while node != dst {
        assert!(
            hops.len() <= topo.spec.kinds.len(),
            "routing loop toward host {dst}"
        );
        let si = topo.kind_index[node.idx()];
        let next = topo.routes.next_hops(si, dst);
        assert!(
            !next.is_empty(),
            "no route from switch {node} to host {dst}"
        );
        let pick = if next.len() == 1 {
            0
        } else {
            let key = FlowKey {
                src: src.0,
                dst: dst.0,
                sport,
                dport,
            };
            ecmp_pick(
                model.ecmp_hash,
                ecmp_seed(seed, node),
                node,
                key,
                next.len(),
            )
        };
        let p = &topo.ports[node.idx()][next[pick] as usize];
        hops.push(Hop {
            rate: p.rate,
            delay: p.delay,
        });
        node = p.peer;
    }
    hops
}

/// Sizes the ideal-FCT computation needs.
#[derive(Clone, Copy, Debug)]
pub struct IdealInput {
    pub size: u64,
    pub mtu: u32,
    /// Wire bytes added to every data packet's payload at the sender.
    pub data_overhead: u32,
    /// Bytes each switch adds (per-hop INT).
    pub per_hop: u32,
    /// Wire bytes of the last ACK.
    pub ack_wire: u32,
}

/// The flow alone at line rate: store-and-forward of its packets along `data`,
/// then the last ACK back along `ack`. Exact for this model: n-1 full packets
/// leave every link spaced by the slowest serialization so far; the last,
/// shorter packet is pushed through link by link.
pub fn ideal_alone(model: &ModelConfig, data: &[Hop], ack: &[Hop], inp: &IdealInput) -> Delta {
    let ser = |h: &Hop, bytes: u32| model.serialization.tx_time(h.rate, bytes as u64).ps();
    let n = inp.size.div_ceil(inp.mtu as u64).max(1);
    let last_payload = (inp.size - (n - 1) * inp.mtu as u64) as u32;
    let full = |k: usize| inp.mtu + inp.data_overhead + inp.per_hop * k as u32;
    let last = |k: usize| last_payload + inp.data_overhead + inp.per_hop * k as u32;
    // Finish times of packet n-1 (if any) and of the last packet on each link.
    let mut prev_full_finish = 0u64; // D_k(n-1)
    let mut first_finish = 0u64; // D_k(1)
    let mut spacing = 0u64;
    let mut arrive_first = 0u64;
    let mut arrive_last = 0u64;
    for (k, h) in data.iter().enumerate() {
        let s_full = ser(h, full(k));
        if n > 1 {
            first_finish = arrive_first + s_full;
            spacing = spacing.max(s_full);
            prev_full_finish = first_finish + (n - 2) * spacing;
        }
        let s_last = ser(h, last(k));
        let start = if k == 0 {
            if n > 1 { prev_full_finish } else { 0 }
        } else {
            arrive_last.max(if n > 1 { prev_full_finish } else { 0 })
        };
        let last_finish = start + s_last;
        arrive_first = first_finish + h.delay.ps();
        arrive_last = last_finish + h.delay.ps();
    }
    let ack_time: u64 = ack
        .iter()
        .map(|h| ser(h, inp.ack_wire) + h.delay.ps())
        .sum();
    Delta(arrive_last + ack_time)
}

/// The ns-3 simulator's stand-alone FCT (hpcc-ns3-model.md §9): pair RTT +
/// (size + packets x header) x 8 / bottleneck, in whole ns.
pub fn ideal_ns3(data: &[Hop], size: u64, mtu: u32, header: u32) -> Delta {
    let rtt = ns3_pair_rtt(data, mtu);
    let bw = data
        .iter()
        .map(|h| h.rate.bps())
        .min()
        .expect("a path has links");
    let pkts = size.div_ceil(mtu as u64);
    let bytes = size + pkts * header as u64;
    let ns = (bytes as u128 * 8 * 1_000_000_000 / bw as u128) as u64;
    Delta::from_ns(rtt.as_ns() + ns)
}

/// ns-3's pair RTT: 2 x sum of delays + one-way payload-only serialization, in ns.
pub fn ns3_pair_rtt(data: &[Hop], mtu: u32) -> Delta {
    let ns: u64 = data
        .iter()
        .map(|h| {
            2 * h.delay.as_ns() + (mtu as u128 * 8 * 1_000_000_000 / h.rate.bps() as u128) as u64
        })
        .sum();
    Delta::from_ns(ns)
}

/// A pair's base RTT under our model: per link, propagation both ways plus the
/// serialization of a full data packet and of its ACK.
/// Base one-way delay of a full data packet along `path`: propagation plus
/// store-and-forward serialization on every link.
pub fn one_way(model: &ModelConfig, path: &[Hop], mtu_wire: u32) -> Delta {
    Delta(
        path.iter()
            .map(|h| h.delay.ps() + model.serialization.tx_time(h.rate, mtu_wire as u64).ps())
            .sum(),
    )
}

pub fn base_rtt(model: &ModelConfig, path: &[Hop], mtu_wire: u32, ack_wire: u32) -> Delta {
    match model.ideal_fct {
        IdealFct::Alone => Delta(
            path.iter()
                .map(|h| {
                    2 * h.delay.ps()
                        + model.serialization.tx_time(h.rate, mtu_wire as u64).ps()
                        + model.serialization.tx_time(h.rate, ack_wire as u64).ps()
                })
                .sum(),
        ),
        IdealFct::Ns3 => Delta::ZERO,
    }
}

/// The largest base RTT over all host pairs, taking the worst of the equal-cost
/// paths. One BFS and a longest-weight pass over the shortest-path DAG per
/// attachment switch; `link_rtt` gives each link's round-trip contribution.
pub fn max_base_rtt(topo: &Topology, link_rtt: impl Fn(Rate, Delta) -> u64) -> Delta {
    let n = topo.spec.kinds.len();
    // Worst host-link contribution per switch (None: no hosts).
    let mut host_link: Vec<Option<u64>> = vec![None; n];
    let mut hosts_at: Vec<u32> = vec![0; n];
    for &h in &topo.hosts {
        let p = topo.host_port(h);
        let w = link_rtt(p.rate, p.delay);
        let s = p.peer.idx();
        host_link[s] = Some(host_link[s].map_or(w, |x| x.max(w)));
        hosts_at[s] += 1;
    }
    let mut best = 0u64;
    let mut dist = vec![u32::MAX; n];
    let mut weight = vec![0u64; n];
    let mut order = Vec::with_capacity(n);
    for &a in &topo.switches {
        let Some(ha) = host_link[a.idx()] else {
            continue;
        };
        dist.fill(u32::MAX);
        weight.fill(0);
        order.clear();
        dist[a.idx()] = 0;
        let mut q = VecDeque::from([a]);
        while let Some(u) = q.pop_front() {
            order.push(u);
            for p in &topo.ports[u.idx()] {
                let v = p.peer;
                if topo.is_host(v) {
                    continue;
                }
                if dist[v.idx()] == u32::MAX {
                    dist[v.idx()] = dist[u.idx()] + 1;
                    q.push_back(v);
                }
                if dist[v.idx()] == dist[u.idx()] + 1 {
                    let w = weight[u.idx()] + link_rtt(p.rate, p.delay);
                    weight[v.idx()] = weight[v.idx()].max(w);
                }
            }
        }
        for &b in &order {
            if let Some(hb) = host_link[b.idx()] {
                if a == b && hosts_at[a.idx()] < 2 {
                    continue;
                }
                best = best.max(ha + weight[b.idx()] + hb);
            }
        }
    }
    Delta(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{ModelConfig, Profile};
    use crate::topology::builders::star;

    #[test]
    fn murmur3_matches_the_reference_vectors() {
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"test", 0), 0xba6b_d213);
        assert_eq!(murmur3_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
    }

    #[test]
    fn ideal_fct_of_one_packet_is_two_hops_there_and_the_ack_back() {
        let m = ModelConfig::for_profile(Profile::Ns3Hpcc);
        let hop = Hop {
            rate: Rate::from_gbps(100),
            delay: Delta::from_us(1),
        };
        let inp = IdealInput {
            size: 1000,
            mtu: 1000,
            data_overhead: 90,
            per_hop: 0,
            ack_wire: 88,
        };
        // hpcc-ns3-model.md §12: 2 (87 + 1000) + 2 (7 + 1000) = 4188 ns.
        assert_eq!(
            ideal_alone(&m, &[hop, hop], &[hop, hop], &inp),
            Delta::from_ns(4188)
        );
        // 10 packets pipeline at one serialization each: + 9 x 87.
        let inp10 = IdealInput {
            size: 10_000,
            ..inp
        };
        assert_eq!(
            ideal_alone(&m, &[hop, hop], &[hop, hop], &inp10),
            Delta::from_ns(4188 + 9 * 87)
        );
    }

    #[test]
    fn ideal_fct_paces_at_the_slowest_link() {
        let m = ModelConfig::for_profile(Profile::Default);
        let fast = Hop {
            rate: Rate::from_gbps(100),
            delay: Delta::ZERO,
        };
        let slow = Hop {
            rate: Rate::from_gbps(10),
            delay: Delta::ZERO,
        };
        let inp = IdealInput {
            size: 100_000,
            mtu: 1000,
            data_overhead: 0,
            per_hop: 0,
            ack_wire: 0,
        };
        // 100 packets: first through fast (80 ns) then slow (800 ns), the rest every 800 ns.
        let t = ideal_alone(&m, &[fast, slow, fast], &[], &inp);
        assert_eq!(t, Delta::from_ns(80 + 800 + 80 + 99 * 800));
    }

    #[test]
    fn ns3_standalone_fct_matches_the_calibration_vectors() {
        let hop = Hop {
            rate: Rate::from_gbps(100),
            delay: Delta::from_us(1),
        };
        // §12: standalone 4243 for 1000 B, 4998 for 10 KB, 88000 for 1 MB.
        assert_eq!(ideal_ns3(&[hop, hop], 1000, 1000, 48), Delta::from_ns(4243));
        assert_eq!(
            ideal_ns3(&[hop, hop], 10_000, 1000, 48),
            Delta::from_ns(4998)
        );
        assert_eq!(
            ideal_ns3(&[hop, hop], 1_000_000, 1000, 48),
            Delta::from_ns(88000)
        );
    }

    #[test]
    fn max_base_rtt_of_a_star_is_two_links_each_way() {
        let t = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let rtt = max_base_rtt(&t, |_, d| 2 * d.ps());
        assert_eq!(rtt, Delta::from_us(4));
    }
}
