//! How a parallel run splits the nodes into partitions (docs/parallel.md).
//!
//! Goals: few packets cross partitions (each crossing is a copy and a hand-over
//! at a window's end), and the work is balanced. Traffic enters and leaves the
//! fabric at hosts, so the work of a group of nodes grows with its hosts.
//!
//! The method works on any topology, and gives pods (or ToR groups) for
//! fat-trees and leaf groups for leaf-spines without being told which it is:
//! 1. Each switch's tier is its distance in hops to the nearest host (ToR 1,
//!    aggregation 2, core 3 in a three-tier fat-tree; leaf 1, spine 2).
//! 2. For a cut tier `L`, the groups are the connected pieces of the network
//!    below `L`: with `L` the top tier of a fat-tree, its pods (ToRs,
//!    aggregation switches and their hosts); one tier lower, each ToR with its
//!    hosts. Where every switch has hosts (a star, a dumbbell, a ring), each
//!    switch with its hosts is a group.
//! 3. Groups, in node id order, are dealt to partitions in contiguous runs of
//!    about `weight / n` each (a group goes to the partition its middle unit
//!    of weight falls in), so neighbouring groups (the ToRs of a pod) stay
//!    together. The highest cut whose heaviest partition weighs at most 5 %
//!    more than the average is used (else the best balanced): 5 pods of a
//!    320-host fat-tree do not split evenly over 2 threads, its 20 ToRs do.
//!    Last, where no cut comes within 20 %, each host is a group of its own
//!    (its switch joins it in step 4): 20 ToRs do not split evenly over 16
//!    partitions, 320 hosts do.
//!    A host weighs what [`crate::config::Balance`] says: 1 (`"hosts"`), or 1 plus the
//!    packets of the flows it sends and receives (`"traffic"`, the default):
//!    a packet is an event or two at each end and on each switch between, so
//!    a group's events grow with its hosts' packets, and heavy-tailed flow
//!    sizes make hosts far from equal (docs/parallel.md, "How partitions are
//!    chosen").
//! 4. Switches at or above the cut go, lowest tier first, to the partition
//!    that holds most of their neighbours (ties: the partition with the fewest
//!    such switches so far), so an aggregation switch joins most of its ToRs.
//!
//! A general graph partitioner (METIS-style multilevel bisection) would also
//! cut few links, but on these fabrics the tier structure gives a minimal cut
//! directly and keeps the assignment explainable; irregular topologies fall
//! back to per-switch groups or single hosts, and to single nodes when there
//! are fewer hosts than partitions.

use crate::topology::{NodeId, Topology};
use std::collections::VecDeque;

const UNSET: u16 = u16::MAX;

/// The partition of each node of `cfg`'s fabric for `n` partitions, balanced
/// by what `run.balance` says.
pub fn for_run(cfg: &crate::config::RunConfig, n: usize) -> Vec<u16> {
    if n <= 1 {
        return vec![0; cfg.topo.spec.kinds.len()];
    }
    let weight = cfg.balance.weights(&cfg.topo, &cfg.flows, cfg.nic.mtu);
    assign(&cfg.topo, n, &weight)
}

/// The partition of each node (by node id) for `n` partitions, balanced by
/// `weight` (by node id; [`crate::config::Balance::weights`]). A server's further NICs join
/// its first NIC's partition: they hand each other packets at no delay
/// (`crate::nic::Nic::hand_over`), which no window could cover.
pub fn assign(topo: &Topology, n: usize, weight: &[u64]) -> Vec<u16> {
    assert_eq!(weight.len(), topo.spec.kinds.len(), "a weight per node");
    let mut part = assign_nodes(topo, n, weight);
    for &(nic, server) in &topo.spec.extra_nics {
        part[nic.idx()] = part[server.idx()];
    }
    part
}

/// Where the groups of step 2 come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// The connected pieces below this tier.
    Below(u32),
    /// Each switch with its hosts (every switch has hosts).
    Switches,
    /// Each host alone.
    Hosts,
}

fn assign_nodes(topo: &Topology, n: usize, weight: &[u64]) -> Vec<u16> {
    let nodes = topo.spec.kinds.len();
    if n <= 1 {
        return vec![0; nodes];
    }
    let tier = tiers(topo);
    let top = topo
        .switches
        .iter()
        .map(|s| tier[s.idx()])
        .filter(|&t| t != u32::MAX)
        .max()
        .unwrap_or(0);
    let total = weight.iter().sum::<u64>().max(1);
    let ideal = total.div_ceil(n as u64);
    let mut best: Option<(u64, Vec<u16>)> = None;
    // The cuts, coarsest first; hosts alone last (their switches placed by
    // step 4), where no coarser cut comes within 20 %: separating hosts from
    // their switch makes every packet of theirs cross.
    let mut cuts: Vec<Cut> = if top <= 1 {
        vec![Cut::Switches]
    } else {
        (2..=top).rev().map(Cut::Below).collect()
    };
    cuts.push(Cut::Hosts);
    for cut in cuts {
        if cut == Cut::Hosts && best.as_ref().is_some_and(|(b, _)| b * 100 <= ideal * 120) {
            break;
        }
        let groups = match cut {
            Cut::Switches => switch_groups(topo),
            Cut::Hosts => topo.hosts.iter().map(|&h| vec![h]).collect(),
            Cut::Below(l) => lower_groups(topo, &tier, l),
        };
        if groups.len() < n {
            continue;
        }
        let part = deal(topo, &groups, n, &tier, weight);
        let mut loads = vec![0u64; n];
        for (v, &p) in part.iter().enumerate() {
            loads[p as usize] += weight[v];
        }
        let load = loads.into_iter().max().unwrap_or(0);
        if best.as_ref().is_none_or(|(b, _)| load < *b) {
            best = Some((load, part));
        }
        if load * 100 <= ideal * 105 {
            break;
        }
    }
    match best {
        Some((_, part)) => part,
        None => {
            // Fewer hosts than partitions: single nodes, hosts dealt evenly.
            let singles: Vec<Vec<NodeId>> = (0..nodes).map(|i| vec![NodeId::from_idx(i)]).collect();
            deal(topo, &singles, n, &tier, weight)
        }
    }
}

/// Deals `groups` (each sorted, in node id order) to `n` partitions in
/// contiguous runs balanced by weight, then the nodes outside every group.
fn deal(
    topo: &Topology,
    groups: &[Vec<NodeId>],
    n: usize,
    tier: &[u32],
    weight: &[u64],
) -> Vec<u16> {
    let nodes = topo.spec.kinds.len();
    let weigh = |g: &[NodeId]| g.iter().map(|v| weight[v.idx()]).sum::<u64>();
    let total: u64 = groups.iter().map(|g| weigh(g)).sum::<u64>().max(1);
    let mut order: Vec<&Vec<NodeId>> = groups.iter().collect();
    order.sort_by_key(|g| g[0]);
    let mut part = vec![UNSET; nodes];
    let mut before = 0u64;
    for (k, g) in order.iter().enumerate() {
        let h = weigh(g);
        // The partition its middle unit of weight falls in (groups that
        // weigh nothing: by their place in the order).
        let p = if total > 1 && h > 0 {
            (((2 * before + h) * n as u64 / (2 * total)) as usize).min(n - 1)
        } else {
            k * n / order.len()
        };
        before += h;
        for v in g.iter() {
            part[v.idx()] = p as u16;
        }
    }
    // The rest, lowest tier first: with most of their neighbours, at most an
    // even share of each tier per partition.
    let mut rest: Vec<NodeId> = (0..nodes)
        .map(NodeId::from_idx)
        .filter(|v| part[v.idx()] == UNSET)
        .collect();
    rest.sort_by_key(|v| (tier[v.idx()], *v));
    let mut k = 0;
    while k < rest.len() {
        let t = tier[rest[k].idx()];
        let same = rest[k..].iter().take_while(|v| tier[v.idx()] == t).count();
        let share = same.div_ceil(n);
        let mut placed = vec![0usize; n];
        for &v in &rest[k..k + same] {
            let mut near = vec![0usize; n];
            for p in &topo.ports[v.idx()] {
                let q = part[p.peer.idx()];
                if q != UNSET {
                    near[q as usize] += 1;
                }
            }
            let p = (0..n)
                .filter(|&p| placed[p] < share)
                .max_by_key(|&p| (near[p], std::cmp::Reverse(placed[p]), std::cmp::Reverse(p)))
                .expect("an even share leaves room");
            placed[p] += 1;
            part[v.idx()] = p as u16;
        }
        k += same;
    }
    part
}

/// Each node's distance in hops to the nearest host (`u32::MAX`: none).
fn tiers(topo: &Topology) -> Vec<u32> {
    let mut d = vec![u32::MAX; topo.spec.kinds.len()];
    let mut queue = VecDeque::new();
    for &h in &topo.hosts {
        d[h.idx()] = 0;
        queue.push_back(h);
    }
    while let Some(v) = queue.pop_front() {
        for p in &topo.ports[v.idx()] {
            if d[p.peer.idx()] == u32::MAX {
                d[p.peer.idx()] = d[v.idx()] + 1;
                queue.push_back(p.peer);
            }
        }
    }
    d
}

/// Each switch with the hosts attached to it (one-tier networks).
fn switch_groups(topo: &Topology) -> Vec<Vec<NodeId>> {
    topo.switches
        .iter()
        .map(|&s| {
            let mut g = vec![s];
            g.extend(
                topo.ports[s.idx()]
                    .iter()
                    .map(|p| p.peer)
                    .filter(|&v| topo.is_host(v)),
            );
            g
        })
        .collect()
}

/// The connected pieces of the nodes below the top tier.
fn lower_groups(topo: &Topology, tier: &[u32], top: u32) -> Vec<Vec<NodeId>> {
    let below = |v: NodeId| tier[v.idx()] < top;
    let mut seen = vec![false; tier.len()];
    let mut groups = Vec::new();
    for start in (0..tier.len()).map(NodeId::from_idx) {
        if seen[start.idx()] || !below(start) {
            continue;
        }
        seen[start.idx()] = true;
        let mut g = vec![start];
        let mut k = 0;
        while k < g.len() {
            let v = g[k];
            k += 1;
            for p in &topo.ports[v.idx()] {
                if !seen[p.peer.idx()] && below(p.peer) {
                    seen[p.peer.idx()] = true;
                    g.push(p.peer);
                }
            }
        }
        g.sort();
        groups.push(g);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;
    use crate::topology::fat_tree::{FatTreeShape, fat_tree, hpcc_fat_tree_default};
    use crate::topology::leaf_spine::leaf_spine;
    use crate::units::{Delta, Rate};

    /// Each host weighs 1.
    fn by_hosts(t: &Topology) -> Vec<u64> {
        crate::config::Balance::Hosts.weights(t, &[], 1)
    }

    fn hosts_per_part(t: &Topology, part: &[u16], n: usize) -> Vec<usize> {
        let mut c = vec![0; n];
        for h in &t.hosts {
            c[part[h.idx()] as usize] += 1;
        }
        c
    }

    /// Links whose ends are in different partitions.
    fn cut(t: &Topology, part: &[u16]) -> usize {
        t.spec
            .links
            .iter()
            .filter(|l| part[l.a.idx()] != part[l.b.idx()])
            .count()
    }

    #[test]
    fn hosts_stay_with_their_tor_and_the_hpcc_fat_tree_splits_evenly() {
        let t = Topology::build(hpcc_fat_tree_default()).unwrap();
        for n in [2, 3, 4, 5, 8] {
            let part = assign(&t, n, &by_hosts(&t));
            assert!(part.iter().all(|&p| (p as usize) < n), "every node placed");
            for h in &t.hosts {
                let tor = t.ports[h.idx()][0].peer;
                assert_eq!(part[h.idx()], part[tor.idx()], "{n}: host with its ToR");
            }
            let c = hosts_per_part(&t, &part, n);
            let (lo, hi) = (*c.iter().min().unwrap(), *c.iter().max().unwrap());
            // ToRs have 16 hosts: balanced to within one ToR.
            assert!(hi - lo <= 16, "{n} partitions: hosts {c:?}");
        }
        // 20 ToRs do not split over 16 partitions within 20 % (over 8, 2 or 3
        // ToRs each is 20 % over): hosts alone do, each ToR with some of its
        // hosts.
        for n in [16] {
            let part = assign(&t, n, &by_hosts(&t));
            let c = hosts_per_part(&t, &part, n);
            assert!(
                c.iter().all(|&k| k == 320 / n),
                "{n} partitions: hosts {c:?}"
            );
            for &s in &t.switches[..20] {
                let mine = t.ports[s.idx()]
                    .iter()
                    .filter(|p| t.is_host(p.peer) && part[p.peer.idx()] == part[s.idx()])
                    .count();
                assert!(mine > 0, "{n}: ToR {s} with some of its hosts");
            }
        }
        // Two partitions: 10 ToRs each (5 pods do not split evenly), each
        // switch tier shared evenly.
        let part = assign(&t, 2, &by_hosts(&t));
        assert_eq!(hosts_per_part(&t, &part, 2), vec![160, 160]);
        for (lo, hi) in [(320, 340), (340, 360), (360, 376)] {
            let zero = (lo..hi).filter(|&v| part[v] == 0).count();
            assert_eq!(zero * 2, hi - lo, "switches {lo}..{hi} split evenly");
        }
        // Five partitions: one pod each; only pod-to-core links cross.
        let part = assign(&t, 5, &by_hosts(&t));
        assert_eq!(hosts_per_part(&t, &part, 5), vec![64; 5]);
        assert_eq!(
            cut(&t, &part),
            80 * 4 / 5,
            "agg-core links to other pods' cores"
        );
    }

    #[test]
    fn pods_stay_whole_when_they_balance() {
        let shape = FatTreeShape {
            pods: 4,
            tors_per_pod: 2,
            aggs_per_pod: 2,
            cores_per_agg: 2,
            hosts_per_tor: 4,
        };
        let d = Delta::from_us(1);
        let t = Topology::build(fat_tree(
            shape,
            Rate::from_gbps(100),
            Rate::from_gbps(100),
            d,
        ))
        .unwrap();
        let part = assign(&t, 2, &by_hosts(&t));
        assert_eq!(hosts_per_part(&t, &part, 2), vec![16, 16]);
        // Only agg-core links cross: 4 cores, 2 each, each with 4 aggs (2 per
        // partition): 2 crossing links per core.
        assert_eq!(cut(&t, &part), 8);
    }

    #[test]
    fn leaf_spine_splits_by_leaf_and_a_star_by_host() {
        let d = Delta::from_us(1);
        let r = Rate::from_gbps(100);
        let t = Topology::build(leaf_spine(4, 2, 8, r, r, d)).unwrap();
        let part = assign(&t, 2, &by_hosts(&t));
        assert_eq!(hosts_per_part(&t, &part, 2), vec![16, 16]);
        for h in &t.hosts {
            assert_eq!(part[h.idx()], part[t.ports[h.idx()][0].peer.idx()]);
        }
        // One switch: fewer groups than partitions, so single nodes.
        let t = Topology::build(star(17, r, d)).unwrap();
        let part = assign(&t, 4, &by_hosts(&t));
        let c = hosts_per_part(&t, &part, 4);
        assert!(c.iter().all(|&n| (4..=5).contains(&n)), "{c:?}");
    }

    /// By traffic, the leaf whose hosts send as many packets as the three
    /// others' gets a partition of its own; by hosts, two leaves each.
    #[test]
    fn a_busy_leaf_gets_a_partition_of_its_own_when_balanced_by_traffic() {
        use crate::config::Balance;
        use crate::units::SimTime;
        use crate::workload::FlowSpec;
        let d = Delta::from_us(1);
        let r = Rate::from_gbps(100);
        let t = Topology::build(leaf_spine(4, 2, 8, r, r, d)).unwrap();
        let leaf = |h: NodeId| t.ports[h.idx()][0].peer;
        let first = leaf(t.hosts[0]);
        // Each host sends to the next on its leaf: 3 MB on the first, 1 MB
        // on the others.
        let flows: Vec<FlowSpec> = (0..t.hosts.len())
            .map(|k| {
                let (src, dst) = (t.hosts[k], t.hosts[k / 8 * 8 + (k + 1) % 8]);
                FlowSpec {
                    src,
                    dst,
                    size: if leaf(src) == first {
                        3_000_000
                    } else {
                        1_000_000
                    },
                    start: SimTime(0),
                    class: 3,
                    dport: 100,
                }
            })
            .collect();
        assert!(flows.iter().all(|f| leaf(f.src) == leaf(f.dst)));
        let by_traffic = assign(&t, 2, &Balance::Traffic.weights(&t, &flows, 1000));
        for &h in &t.hosts {
            let want = if leaf(h) == first { 0 } else { 1 };
            assert_eq!(by_traffic[h.idx()], want, "host {h}");
        }
        let by_hosts = assign(&t, 2, &Balance::Hosts.weights(&t, &flows, 1000));
        assert_eq!(hosts_per_part(&t, &by_hosts, 2), vec![16, 16]);
    }

    #[test]
    fn the_assignment_is_a_function_of_the_topology() {
        let t = Topology::build(hpcc_fat_tree_default()).unwrap();
        assert_eq!(assign(&t, 3, &by_hosts(&t)), assign(&t, 3, &by_hosts(&t)));
        assert_eq!(assign(&t, 1, &by_hosts(&t)), vec![0; t.spec.kinds.len()]);
    }
}
