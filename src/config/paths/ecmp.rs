//! Path arithmetic of rocesim's own path model (`IdealFct::Alone`, selected in
//! [`crate::config::paths`]): the links of a flow's ECMP path, its base one-way delay
//! and RTT, the ideal FCT (the flow alone at line rate on an idle network, store
//! and forward), and the largest base RTT over host pairs (HPCC §5.1's control
//! interval T). A flow's packets follow one ECMP path (per-flow hashing,
//! `switch::ecmp`), so its path is traced without simulating. The ns-3 model's
//! counterparts are in [`super::ns3`].

use crate::profile::ModelConfig;
use crate::switch::ecmp::{self, FlowKey};
use crate::topology::{NodeId, Topology};
use crate::units::{Delta, Rate};

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
/// attachment switch, over the switches' links to each other
/// ([`crate::topology::graph::SwitchGraph`]); `link_rtt` gives each link's
/// round-trip contribution.
pub fn max_base_rtt(topo: &Topology, link_rtt: impl Fn(Rate, Delta) -> u64) -> Delta {
    let ns = topo.switches.len();
    let graph = &topo.graph;
    // Worst host-link contribution per switch (None: no hosts).
    let mut host_link: Vec<Option<u64>> = vec![None; ns];
    let mut hosts_at: Vec<u32> = vec![0; ns];
    for &h in &topo.hosts {
        let p = topo.host_port(h);
        let w = link_rtt(p.rate, p.delay);
        let s = topo.switch_idx(p.peer).idx();
        host_link[s] = Some(host_link[s].map_or(w, |x| x.max(w)));
        hosts_at[s] += 1;
    }
    // Each link's contribution, in the graph's link order.
    let link_w = topo.per_link(graph, |p| link_rtt(p.rate, p.delay));
    let mut best = 0u64;
    let mut dist = vec![u32::MAX; ns];
    let mut weight = vec![0u64; ns];
    let mut order: Vec<u32> = Vec::with_capacity(ns);
    for (a, ha) in host_link.iter().enumerate() {
        let Some(ha) = *ha else {
            continue;
        };
        dist.fill(u32::MAX);
        weight.fill(0);
        order.clear();
        dist[a] = 0;
        order.push(a as u32);
        // `order` is the BFS queue: every switch reached, nearest first.
        let mut head = 0;
        while let Some(&u) = order.get(head) {
            head += 1;
            let u = u as usize;
            let range = graph.range(u);
            for (&(v, _), &w) in graph.links(u).iter().zip(&link_w[range]) {
                let v = v as usize;
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    order.push(v as u32);
                }
                if dist[v] == dist[u] + 1 {
                    weight[v] = weight[v].max(weight[u] + w);
                }
            }
        }
        for &b in &order {
            let b = b as usize;
            if let Some(hb) = host_link[b] {
                if a == b && hosts_at[a] < 2 {
                    continue;
                }
                best = best.max(ha + weight[b] + hb);
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

    /// The same over the node graph, host ports and all (the implementation
    /// before the switch graph): the reference the fast one must equal.
    fn max_base_rtt_over_nodes(topo: &Topology, link_rtt: impl Fn(Rate, Delta) -> u64) -> Delta {
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
            let mut q = std::collections::VecDeque::from([a]);
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

    #[test]
    fn max_base_rtt_equals_the_search_over_every_node_with_mixed_rates_and_delays() {
        use crate::topology::fat_tree::{FatTreeShape, fat_tree};
        use crate::topology::{NodeKind, TopologySpec};
        let m = ModelConfig::for_profile(Profile::Default);
        let rtt = |rate: Rate, delay: Delta| {
            2 * delay.ps()
                + m.serialization.tx_time(rate, 1048).ps()
                + m.serialization.tx_time(rate, 64).ps()
        };
        let (g, d) = (Rate::from_gbps, Delta::from_ns);
        // Six switches in a ring with chords, parallel links of different
        // rates and delays, a seventh switch without hosts hanging off one,
        // hosts of different link speeds on four switches.
        let mut t = TopologySpec::default();
        let sw: Vec<NodeId> = (0..7).map(|_| t.add_node(NodeKind::Switch)).collect();
        for (a, b, r, l) in [
            (0, 1, 100, 1000),
            (1, 2, 400, 300),
            (2, 3, 100, 2000),
            (3, 4, 40, 500),
            (4, 5, 100, 1000),
            (5, 0, 100, 700),
            (0, 3, 25, 100),
            (1, 4, 100, 1500),
            (1, 2, 10, 100),
            (3, 6, 100, 1000),
        ] {
            t.add_link(sw[a], sw[b], g(r), d(l));
        }
        for (s, r, l) in [
            (0, 100, 1000),
            (0, 25, 3000),
            (2, 100, 1000),
            (4, 40, 200),
            (6, 100, 10),
        ] {
            let h = t.add_node(NodeKind::Host);
            t.add_link(h, sw[s], g(r), d(l));
        }
        let ring = Topology::build(t).unwrap();
        let tree =
            Topology::build(fat_tree(FatTreeShape::k_ary(4, 2), g(100), g(400), d(1000))).unwrap();
        let star = Topology::build(star(3, g(100), d(1000))).unwrap();
        for topo in [&ring, &tree, &star] {
            let got = max_base_rtt(topo, rtt);
            assert!(got > Delta::ZERO);
            assert_eq!(got, max_base_rtt_over_nodes(topo, rtt));
        }
    }

    /// Every path the routing table allows from `src` to `dst`, as its links.
    fn every_equal_cost_path(topo: &Topology, src: NodeId, dst: NodeId) -> Vec<Vec<Hop>> {
        let hop = |p: &crate::topology::PortInfo| Hop {
            rate: p.rate,
            delay: p.delay,
        };
        let first = topo.host_port(src);
        let mut done = Vec::new();
        let mut open = vec![(first.peer, vec![hop(first)])];
        while let Some((node, links)) = open.pop() {
            if node == dst {
                done.push(links);
                continue;
            }
            let row = topo.switch_idx(node).0;
            for &port in topo.routes.next_hops(row, dst) {
                let p = &topo.ports[node.idx()][port as usize];
                let mut more = links.clone();
                more.push(hop(p));
                open.push((p.peer, more));
            }
        }
        done
    }

    /// Spraying, flowlets and adaptive routing send a flow's packets over its
    /// equal-cost paths, and the path model keeps the one ECMP traces: on the
    /// generated fabrics those paths cross links of the same rates and delays
    /// in the same order, so any of them gives the flow the same ideal FCT,
    /// base RTT, BDP and one-way delay.
    #[test]
    fn every_equal_cost_path_of_the_generated_fabrics_crosses_the_same_links() {
        use crate::topology::fat_tree::{FatTreeShape, fat_tree};
        use crate::topology::leaf_spine::leaf_spine;
        let (g, d) = (Rate::from_gbps, Delta::from_ns);
        let tree = fat_tree(FatTreeShape::k_ary(4, 2), g(100), g(400), d(1000));
        let ls = leaf_spine(3, 4, 2, g(100), g(400), d(1000));
        for spec in [tree, ls] {
            let topo = Topology::build(spec).unwrap();
            let mut most = 0;
            for &a in &topo.hosts {
                for &b in topo.hosts.iter().filter(|&&b| b != a) {
                    let paths = every_equal_cost_path(&topo, a, b);
                    most = most.max(paths.len());
                    assert!(
                        paths.windows(2).all(|w| w[0] == w[1]),
                        "{a} -> {b}: {paths:?}"
                    );
                }
            }
            assert!(most >= 4, "some pairs have several paths ({most})");
        }
    }

    #[test]
    fn max_base_rtt_of_a_star_is_two_links_each_way() {
        let t = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let rtt = max_base_rtt(&t, |_, d| 2 * d.ps());
        assert_eq!(rtt, Delta::from_us(4));
    }
}
