//! Base RTTs, bandwidths and BDPs exactly as the HPCC ns-3 simulator computes them
//! (hpcc-ns3-model.md §9; third.cc `CalculateRoute` and `main`).
//!
//! For every destination host ns-3 runs a BFS from it over the switches, visiting
//! each switch's neighbours by descending node id (their address order there:
//! src/topology/routing.rs), and keeps for every node the values of the
//! path along which the BFS *first discovered* it: the sum of link delays, the sum
//! of per-link payload serialization `floor(payload x 8e9 / bw)` ns, and the
//! smallest link rate. Then per host pair `rtt = 2 x delay + tx` and
//! `bdp = floor(rtt x bw / 1e9) / 8`; `maxRtt` and `maxBdp` are the maxima over
//! all pairs. Parallel links to the same neighbour count as the last one listed.
//!
//! Hosts have one link, so the BFS from a host is its link plus a BFS from its
//! switch: one BFS per attachment switch gives every pair.

use crate::topology::{NodeId, Topology};
use crate::units::Delta;
use std::collections::{BTreeMap, VecDeque};

/// One path's sums: delay (ns), payload serialization (ns), bottleneck (bps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Sums {
    delay: u64,
    tx: u64,
    bw: u64,
}

impl Sums {
    const ROOT: Sums = Sums {
        delay: 0,
        tx: 0,
        bw: u64::MAX,
    };
    fn join(self, o: Sums) -> Sums {
        Sums {
            delay: self.delay + o.delay,
            tx: self.tx + o.tx,
            bw: self.bw.min(o.bw),
        }
    }
    fn rtt(self) -> u64 {
        2 * self.delay + self.tx
    }
    fn bdp(self) -> u64 {
        (self.rtt() as u128 * self.bw as u128 / 1_000_000_000) as u64 / 8
    }
}

/// A pair's ns-3 base values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns3Pair {
    pub rtt: Delta,
    pub bw_bps: u64,
    pub bdp: u64,
}

/// ns-3's per-pair and global base RTTs and BDPs for a topology.
pub struct Ns3Paths {
    mtu: u32,
    n_switches: usize,
    /// Attachment index of each switch (by switch index), `u32::MAX` if none.
    attach: Vec<u32>,
    /// `tree[a * n_switches + s]`: first-discovered path from attachment switch
    /// `a` to switch `s`.
    tree: Vec<Sums>,
    pub max_rtt: Delta,
    pub max_bdp: u64,
}

impl Ns3Paths {
    pub fn new(topo: &Topology, mtu: u32) -> Ns3Paths {
        let ns = topo.switches.len();
        let link = |rate_bps: u64, delay: Delta| Sums {
            delay: delay.as_ns(),
            tx: (mtu as u128 * 1_000_000_000 * 8 / rate_bps as u128) as u64,
            bw: rate_bps,
        };
        // Switch neighbours by descending node id; the last parallel link wins.
        let graph = topo.graph.ns3_order();
        let sums = topo.per_link(&graph, |p| link(p.rate.bps(), p.delay));
        // Host-link classes per switch: (sums, count).
        let mut classes: Vec<BTreeMap<Sums, u32>> = vec![BTreeMap::new(); ns];
        for &h in &topo.hosts {
            let p = topo.host_port(h);
            let si = topo.switch_idx(p.peer).idx();
            *classes[si].entry(link(p.rate.bps(), p.delay)).or_insert(0) += 1;
        }
        let mut attach = vec![u32::MAX; ns];
        let mut roots = Vec::new();
        for si in 0..ns {
            if !classes[si].is_empty() {
                attach[si] = roots.len() as u32;
                roots.push(si);
            }
        }
        let mut tree = vec![Sums::ROOT; roots.len() * ns];
        let mut seen = vec![false; ns];
        let mut q = VecDeque::new();
        for (ai, &root) in roots.iter().enumerate() {
            let row = &mut tree[ai * ns..(ai + 1) * ns];
            seen.fill(false);
            seen[root] = true;
            q.clear();
            q.push_back(root);
            while let Some(ui) = q.pop_front() {
                let here = row[ui];
                let range = graph.range(ui);
                for (&(v, _), &l) in graph.links(ui).iter().zip(&sums[range]) {
                    let vi = v as usize;
                    if !seen[vi] {
                        seen[vi] = true;
                        row[vi] = here.join(l);
                        q.push_back(vi);
                    }
                }
            }
        }
        let mut max_rtt = 0;
        let mut max_bdp = 0;
        for (ai, &a) in roots.iter().enumerate() {
            for &s in &roots {
                let mid = tree[ai * ns + s];
                for (&cd, &nd) in &classes[a] {
                    for &cs in classes[s].keys() {
                        if a == s && cd == cs && nd < 2 {
                            continue;
                        }
                        let p = cd.join(mid).join(cs);
                        max_rtt = max_rtt.max(p.rtt());
                        max_bdp = max_bdp.max(p.bdp());
                    }
                }
            }
        }
        Ns3Paths {
            mtu,
            n_switches: ns,
            attach,
            tree,
            max_rtt: Delta::from_ns(max_rtt),
            max_bdp,
        }
    }

    /// ns-3's `pairRtt[src][dst]`, `pairBw` and `pairBdp` (the BFS from `dst`).
    pub fn pair(&self, topo: &Topology, src: NodeId, dst: NodeId) -> Ns3Pair {
        let link = |h: NodeId| {
            let p = topo.host_port(h);
            let rate = p.rate.bps();
            (
                Sums {
                    delay: p.delay.as_ns(),
                    tx: (self.mtu as u128 * 1_000_000_000 * 8 / rate as u128) as u64,
                    bw: rate,
                },
                topo.switch_idx(p.peer).idx(),
            )
        };
        let (ld, a) = link(dst);
        let (ls, s) = link(src);
        let ai = self.attach[a] as usize;
        let p = ld.join(self.tree[ai * self.n_switches + s]).join(ls);
        Ns3Pair {
            rtt: Delta::from_ns(p.rtt()),
            bw_bps: p.bw,
            bdp: p.bdp(),
        }
    }
}

/// ns-3's stand-alone FCT (third.cc `qp_finish`): pair RTT plus the flow's bytes
/// with `header` bytes per packet (no INT) at the pair's bottleneck, whole ns.
pub fn ns3_standalone(pair: &Ns3Pair, size: u64, mtu: u32, header: u32) -> Delta {
    let pkts = size.div_ceil(mtu as u64);
    let bytes = size + pkts * header as u64;
    Delta::from_ns(pair.rtt.as_ns() + (bytes as u128 * 8_000_000_000 / pair.bw_bps as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;
    use crate::units::Rate;

    #[test]
    fn a_two_host_star_gives_the_calibration_rtt_and_bdp() {
        // hpcc-ns3-model.md §12: maxRtt = 4160, maxBdp = 52000.
        let t = Topology::build(star(2, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let p = Ns3Paths::new(&t, 1000);
        assert_eq!(p.max_rtt, Delta::from_ns(4160));
        assert_eq!(p.max_bdp, 52_000);
        let pair = p.pair(&t, NodeId(1), NodeId(0));
        assert_eq!(pair.rtt, Delta::from_ns(4160));
        // §12: standalone 4243 for 1000 B, 4998 for 10 KB, 88000 for 1 MB.
        assert_eq!(ns3_standalone(&pair, 1000, 1000, 48), Delta::from_ns(4243));
        assert_eq!(
            ns3_standalone(&pair, 10_000, 1000, 48),
            Delta::from_ns(4998)
        );
        assert_eq!(
            ns3_standalone(&pair, 1_000_000, 1000, 48),
            Delta::from_ns(88000)
        );
    }

    #[test]
    fn the_hpcc_fat_tree_has_ns3s_largest_rtt_across_the_core() {
        let t = Topology::build(crate::topology::fat_tree::hpcc_fat_tree_default()).unwrap();
        let p = Ns3Paths::new(&t, 1000);
        // 6 links of 1 us; 2 x 100G (80 ns) + 4 x 400G (20 ns) of payload.
        assert_eq!(p.max_rtt, Delta::from_ns(12_000 + 160 + 80));
        assert_eq!(p.max_bdp, (12_240u64 * 100) / 8);
        // Two hosts on one ToR: 2 links.
        let pair = p.pair(&t, NodeId(0), NodeId(1));
        assert_eq!(pair.rtt, Delta::from_ns(4_160));
    }
}
