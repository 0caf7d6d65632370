//! Path arithmetic of rocesim's own path model (`IdealFct::Alone`, selected in
//! [`super::path_model`]): the links of a flow's ECMP path, its base one-way delay
//! and RTT, the ideal FCT (the flow alone at line rate on an idle network, store
//! and forward), and the largest base RTT over host pairs (HPCC §5.1's control
//! interval T). A flow's packets follow one ECMP path (per-flow hashing,
//! `switch::ecmp`), so its path is traced without simulating. The ns-3 model's
//! counterparts are in [`super::ns3_paths`].

use crate::profile::ModelConfig;
use crate::switch::ecmp::{self, FlowKey};
use crate::topology::{NodeId, Topology};
use crate::units::{Delta, Rate};
use std::collections::VecDeque;

/// One link of a path, in the direction of travel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    pub rate: Rate,
    pub delay: Delta,
}

/// The links a packet with this 5-tuple crosses from `key.src` to `key.dst`: the
/// sender's link, then the one ECMP takes out of each switch ([`ecmp::trace`]).
pub fn trace(topo: &Topology, model: &ModelConfig, seed: u64, key: FlowKey) -> Vec<Hop> {
    let first = topo.host_port(NodeId(key.src));
    let switches = ecmp::trace(topo, model.ecmp_hash, seed, key);
    std::iter::once(first)
        .chain(switches.iter().map(|h| h.link(topo)))
        .map(|p| Hop {
            rate: p.rate,
            delay: p.delay,
        })
        .collect()
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

/// Base one-way delay of a full data packet along `path`: propagation plus
/// store-and-forward serialization on every link.
pub fn one_way(model: &ModelConfig, path: &[Hop], mtu_wire: u32) -> Delta {
    Delta(
        path.iter()
            .map(|h| h.delay.ps() + model.serialization.tx_time(h.rate, mtu_wire as u64).ps())
            .sum(),
    )
}

/// A pair's base RTT under our model: per link, propagation both ways plus the
/// serialization of a full data packet and of its ACK.
pub fn pair_rtt(model: &ModelConfig, path: &[Hop], mtu_wire: u32, ack_wire: u32) -> Delta {
    Delta(
        path.iter()
            .map(|h| {
                2 * h.delay.ps()
                    + model.serialization.tx_time(h.rate, mtu_wire as u64).ps()
                    + model.serialization.tx_time(h.rate, ack_wire as u64).ps()
            })
            .sum(),
    )
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
    fn max_base_rtt_of_a_star_is_two_links_each_way() {
        let t = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let rtt = max_base_rtt(&t, |_, d| 2 * d.ps());
        assert_eq!(rtt, Delta::from_us(4));
    }
}
