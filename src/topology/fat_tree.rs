//! Three-tier fat-tree (folded Clos) fabrics: ToR, Agg and Core switches.
//!
//! Two members of one family: the k-ary fat-tree (Al-Fares et al., SIGCOMM 2008,
//! cited as [7] in HPCC) and the HPCC evaluation fabric (HPCC §5.1; RCC §V-A uses the
//! same one): 320 hosts, 16 per ToR, 20 ToR, 20 Agg, 16 Core, 100 Gbps host links,
//! 400 Gbps fabric links, 1 us per link. [`hpcc_fat_tree`] reproduces
//! `data/hpcc-ns3/mix/fat.txt` exactly: same node ids, same links in the same order.
//!
//! ```text
//!                core group 0            core group j = cores j*C .. j*C+C-1
//!             core0 .. core(C-1)     ...
//!              |  \______ one link to Agg j of every pod ______
//!              |                                                \
//!   pod 0:  agg0  agg1 .. agg(A-1)      ...      pod P-1:  agg j of pod P-1
//!            | \ / |       |                                 ...
//!            |  X  |  (every ToR of a pod to every Agg of that pod)
//!            | / \ |       |
//!           tor0  tor1 .. tor(T-1)      ...
//!           /||\
//!     h0 .. h(H-1)  (H hosts per ToR)
//! ```
//!
//! Shape: `P` pods, `T` ToRs and `A` Aggs per pod, `H` hosts per ToR, and `C` cores
//! per Agg; Agg `j` of every pod connects to core group `j` (cores `j*C .. j*C+C-1`),
//! so there are `A*C` cores, each with `P` links. The k-ary fat-tree is
//! `P = k, T = A = C = H = k/2`; the HPCC fabric is `P = 5, T = A = C = 4, H = 16`.
//!
//! Node ids (like the HPCC file): hosts `0 .. P*T*H` (host `h` under ToR `h / H`),
//! then ToRs (ToR `t` in pod `t / T`), then Aggs (Agg `a` in pod `a / A`, position
//! `a % A`), then cores. Names: `h<i>`, `tor<i>`, `agg<i>`, `core<i>` (indices
//! within the tier). Links: host links in host order, then each ToR's uplinks (ToR
//! order, Agg order), then each Agg's uplinks (Agg order, core order).

use super::{NodeId, NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// Sizes of a three-tier fat-tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTreeShape {
    pub pods: u32,
    pub tors_per_pod: u32,
    pub aggs_per_pod: u32,
    /// Cores each Agg connects to (the size of a core group).
    pub cores_per_agg: u32,
    pub hosts_per_tor: u32,
}

impl FatTreeShape {
    /// The HPCC evaluation fabric (HPCC §5.1): 5 pods of 4 ToR + 4 Agg, 16 cores.
    pub const HPCC: FatTreeShape = FatTreeShape {
        pods: 5,
        tors_per_pod: 4,
        aggs_per_pod: 4,
        cores_per_agg: 4,
        hosts_per_tor: 16,
    };

    /// The k-ary fat-tree (k even): k pods, k/2 ToR and k/2 Agg per pod, (k/2)^2
    /// cores, and `hosts_per_tor` hosts per ToR (k/2 when not oversubscribed).
    pub fn k_ary(k: u32, hosts_per_tor: u32) -> FatTreeShape {
        FatTreeShape {
            pods: k,
            tors_per_pod: k / 2,
            aggs_per_pod: k / 2,
            cores_per_agg: k / 2,
            hosts_per_tor,
        }
    }
    pub fn tors(&self) -> u64 {
        self.pods as u64 * self.tors_per_pod as u64
    }
    pub fn aggs(&self) -> u64 {
        self.pods as u64 * self.aggs_per_pod as u64
    }
    pub fn cores(&self) -> u64 {
        self.aggs_per_pod as u64 * self.cores_per_agg as u64
    }
    pub fn hosts(&self) -> u64 {
        self.tors() * self.hosts_per_tor as u64
    }
    pub fn nodes(&self) -> u64 {
        self.hosts() + self.tors() + self.aggs() + self.cores()
    }
    /// ToR oversubscription: host capacity below a ToR over its uplink capacity.
    pub fn oversubscription(&self, host_rate: Rate, fabric_rate: Rate) -> f64 {
        (self.hosts_per_tor as f64 * host_rate.bps_f64())
            / (self.aggs_per_pod as f64 * fabric_rate.bps_f64())
    }
}

/// Builds the fat-tree. Host links run at `host_rate`, every switch-to-switch link
/// at `fabric_rate`; every link has one-way delay `delay`. The caller checks that
/// every count is >= 1 and the node count fits in `u32`.
pub fn fat_tree(
    shape: FatTreeShape,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    let s = shape;
    assert!(
        s.pods >= 1
            && s.tors_per_pod >= 1
            && s.aggs_per_pod >= 1
            && s.cores_per_agg >= 1
            && s.hosts_per_tor >= 1,
        "fat-tree shape has a zero count: {s:?}"
    );
    assert!(s.nodes() < u32::MAX as u64, "fat-tree too large: {s:?}");
    let (hosts, tors, aggs, cores) = (
        s.hosts() as u32,
        s.tors() as u32,
        s.aggs() as u32,
        s.cores() as u32,
    );
    let mut t = TopologySpec::default();
    let n = (hosts + tors + aggs + cores) as usize;
    t.kinds.reserve_exact(n);
    t.names.reserve_exact(n);
    let tier = |t: &mut TopologySpec, count: u32, kind: NodeKind, name: &str| -> u32 {
        let first = t.kinds.len() as u32;
        for i in 0..count {
            t.kinds.push(kind);
            t.names.push(format!("{name}{i}"));
        }
        first
    };
    let h0 = tier(&mut t, hosts, NodeKind::Host, "h");
    let tor0 = tier(&mut t, tors, NodeKind::Switch, "tor");
    let agg0 = tier(&mut t, aggs, NodeKind::Switch, "agg");
    let core0 = tier(&mut t, cores, NodeKind::Switch, "core");
    t.links
        .reserve_exact((hosts + tors * s.aggs_per_pod + aggs * s.cores_per_agg) as usize);
    for h in 0..hosts {
        t.add_link(
            NodeId(h0 + h),
            NodeId(tor0 + h / s.hosts_per_tor),
            host_rate,
            delay,
        );
    }
    for tor in 0..tors {
        let pod = tor / s.tors_per_pod;
        for j in 0..s.aggs_per_pod {
            let agg = pod * s.aggs_per_pod + j;
            t.add_link(NodeId(tor0 + tor), NodeId(agg0 + agg), fabric_rate, delay);
        }
    }
    for agg in 0..aggs {
        let j = agg % s.aggs_per_pod;
        for c in 0..s.cores_per_agg {
            let core = j * s.cores_per_agg + c;
            t.add_link(NodeId(agg0 + agg), NodeId(core0 + core), fabric_rate, delay);
        }
    }
    t
}

/// The HPCC evaluation fabric (HPCC §5.1) with the paper's rates and delay:
/// 100 Gbps host links, 400 Gbps fabric, 1 us per link. Identical to
/// `data/hpcc-ns3/mix/fat.txt` (ids 0-319 hosts, 320-339 ToR, 340-359 Agg,
/// 360-375 Core).
pub fn hpcc_fat_tree_default() -> TopologySpec {
    fat_tree(
        FatTreeShape::HPCC,
        Rate::from_gbps(100),
        Rate::from_gbps(400),
        Delta::from_us(1),
    )
}

/// Which tier each node of a fat-tree is in, found from the graph alone: hosts;
/// ToRs (switches with hosts); Aggs (other switches next to a ToR); Cores (the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    Host,
    Tor,
    Agg,
    Core,
}

/// The tier of every node, inferred from the links (see [`Tier`]).
pub fn tiers(spec: &TopologySpec) -> Vec<Tier> {
    let n = spec.kinds.len();
    let mut tier: Vec<Tier> = spec
        .kinds
        .iter()
        .map(|k| match k {
            NodeKind::Host => Tier::Host,
            NodeKind::Switch => Tier::Core,
        })
        .collect();
    for l in &spec.links {
        for (x, y) in [(l.a, l.b), (l.b, l.a)] {
            if spec.kinds[x.idx()] == NodeKind::Host && y.idx() < n {
                tier[y.idx()] = Tier::Tor;
            }
        }
    }
    let is_tor: Vec<bool> = tier.iter().map(|t| *t == Tier::Tor).collect();
    for l in &spec.links {
        for (x, y) in [(l.a, l.b), (l.b, l.a)] {
            if is_tor[x.idx()] && tier[y.idx()] == Tier::Core {
                tier[y.idx()] = Tier::Agg;
            }
        }
    }
    tier
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn the_k4_fat_tree_has_the_textbook_counts() {
        let s = FatTreeShape::k_ary(4, 2);
        let t = fat_tree(
            s,
            Rate::from_gbps(10),
            Rate::from_gbps(10),
            Delta::from_us(1),
        );
        assert_eq!(t.num_hosts(), 16);
        assert_eq!(t.num_switches(), 8 + 8 + 4);
        assert_eq!(t.links.len(), 16 + 16 + 16);
        let topo = Topology::build(t).unwrap();
        // Every switch has k = 4 ports.
        for &sw in &topo.switches {
            assert_eq!(topo.ports[sw.idx()].len(), 4, "{}", topo.name(sw));
        }
        assert_eq!(
            s.oversubscription(Rate::from_gbps(10), Rate::from_gbps(10)),
            1.0
        );
    }

    #[test]
    fn the_hpcc_shape_has_the_papers_counts_and_no_oversubscription() {
        let s = FatTreeShape::HPCC;
        assert_eq!(
            (s.hosts(), s.tors(), s.aggs(), s.cores()),
            (320, 20, 20, 16)
        );
        assert_eq!(
            s.oversubscription(Rate::from_gbps(100), Rate::from_gbps(400)),
            1.0
        );
        let t = hpcc_fat_tree_default();
        assert_eq!(t.names[0], "h0");
        assert_eq!(t.names[320], "tor0");
        assert_eq!(t.names[340], "agg0");
        assert_eq!(t.names[375], "core15");
    }

    #[test]
    fn tiers_are_recovered_from_the_links() {
        let t = hpcc_fat_tree_default();
        let tiers = tiers(&t);
        let count = |x: Tier| tiers.iter().filter(|t| **t == x).count();
        assert_eq!(
            [Tier::Host, Tier::Tor, Tier::Agg, Tier::Core].map(count),
            [320, 20, 20, 16]
        );
        assert_eq!(tiers[339], Tier::Tor);
        assert_eq!(tiers[340], Tier::Agg);
        assert_eq!(tiers[360], Tier::Core);
    }
}
