//! Parking-lot (multi-bottleneck) topology: DCQCN §6.2 Fig. 20(a) and RCC Fig. 1(a)
//! and §V (Fig. 15) describe the same three-flow shape, and this generalises it to
//! `K` switch-to-switch bottlenecks.
//!
//! Both papers: f1 H1 -> R1 and f2 H2 -> R2 share an in-network link; f2 and
//! f3 H3 -> R2 share R2's last hop. So f2 crosses two bottlenecks and f1, f3 one each;
//! max-min fairness gives each flow half a link (20 Gbps in DCQCN at 40 Gbps, 50 Gbps
//! in RCC at 100 Gbps; RCC starts f1, f2, f3 at 0, 100, 200 ms).
//!
//! ```text
//!  K = 1 (the papers' case):           general K: switches S0 .. SK in a chain
//!
//!   H1 ─┐               ┌─ R1          H(i) at S(i-1) -> R(i) at S(i), i = 1..K
//!       S0 ══════════ S1                 (cross flow over chain link i)
//!   H2 ─┘  bottleneck 1 ├─ R2          H(K+1) at S0 -> R(K+1) at SK (long flow,
//!                 H3 ───┘                 crosses every chain link and R(K+1)'s link)
//!                                      H(K+2) at SK -> R(K+1) (last-hop flow)
//! ```
//!
//! Flow `j` runs from host `H<j>` to `R<j>` (the last-hop flow `H<K+2>` to
//! `R<K+1>`). Node ids: senders `H1 .. H(K+2)` are hosts `0 .. K+2`, receivers
//! `R1 .. R(K+1)` are hosts `K+2 .. 2K+3`, then switches `S0 .. SK`. For K = 1:
//! H1 = 0, H2 = 1, H3 = 2, R1 = 3, R2 = 4, S0 = 5, S1 = 6.

use super::{NodeId, NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// The parking lot with `bottlenecks` (>= 1) chain links.
pub fn parking_lot(
    bottlenecks: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    assert!(
        bottlenecks >= 1,
        "a parking lot needs at least one bottleneck link"
    );
    let k = bottlenecks;
    let mut t = TopologySpec::default();
    let senders: Vec<NodeId> = (1..=k + 2)
        .map(|j| t.add_named(NodeKind::Host, format!("H{j}")))
        .collect();
    let receivers: Vec<NodeId> = (1..=k + 1)
        .map(|j| t.add_named(NodeKind::Host, format!("R{j}")))
        .collect();
    let sw: Vec<NodeId> = (0..=k)
        .map(|i| t.add_named(NodeKind::Switch, format!("S{i}")))
        .collect();
    for i in 0..k as usize {
        // Cross flow i+1: H(i+1) at S(i) -> R(i+1) at S(i+1).
        t.add_link(senders[i], sw[i], host_rate, delay);
    }
    t.add_link(senders[k as usize], sw[0], host_rate, delay);
    t.add_link(senders[k as usize + 1], sw[k as usize], host_rate, delay);
    for i in 0..k as usize {
        t.add_link(receivers[i], sw[i + 1], host_rate, delay);
    }
    t.add_link(receivers[k as usize], sw[k as usize], host_rate, delay);
    for i in 0..k as usize {
        t.add_link(sw[i], sw[i + 1], fabric_rate, delay);
    }
    t
}

/// The (sender, receiver) of every flow of the parking lot, flow 1 first: the `K`
/// cross flows, the long flow, then the last-hop flow.
pub fn parking_lot_flows(bottlenecks: u32) -> Vec<(NodeId, NodeId)> {
    let k = bottlenecks;
    let r = |j: u32| NodeId(k + 2 + j - 1);
    let mut v: Vec<_> = (1..=k + 1).map(|j| (NodeId(j - 1), r(j))).collect();
    v.push((NodeId(k + 1), r(k + 1)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn the_three_flow_case_matches_the_papers_layout() {
        let r = Rate::from_gbps(100);
        let t = parking_lot(1, r, r, Delta::from_us(1));
        assert_eq!(t.names, ["H1", "H2", "H3", "R1", "R2", "S0", "S1"]);
        let flows = parking_lot_flows(1);
        let name = |n: NodeId| t.names[n.idx()].as_str();
        let named: Vec<_> = flows.iter().map(|&(a, b)| (name(a), name(b))).collect();
        assert_eq!(named, [("H1", "R1"), ("H2", "R2"), ("H3", "R2")]);
        Topology::build(t).unwrap();
    }

    #[test]
    fn the_long_flow_crosses_every_chain_link() {
        let r = Rate::from_gbps(40);
        let t = Topology::build(parking_lot(3, r, r, Delta::from_us(1))).unwrap();
        let flows = parking_lot_flows(3);
        assert_eq!(flows.len(), 5);
        let (src, dst) = flows[3];
        assert_eq!((t.name(src).as_str(), t.name(dst).as_str()), ("H4", "R4"));
        let s0 = t.kind_index[t.host_port(src).peer.idx()];
        assert_eq!(t.routes.hops_to_attachment(s0, dst), Some(3));
        // Cross flow 2 crosses exactly one chain link.
        let (src, dst) = flows[1];
        let s = t.kind_index[t.host_port(src).peer.idx()];
        assert_eq!(t.routes.hops_to_attachment(s, dst), Some(1));
    }
}
