//! Two-tier leaf-spine fabric (P-PFC §5.5, Fig. 14: 6 rack switches, 4 spines,
//! 32 or 64 servers per rack, 10 Gbps everywhere, i.e. 8:1 or 16:1 oversubscribed).
//!
//! ```text
//!        spine0    spine1   ...   spine(S-1)
//!          | \ \___  |  ___/ / ...  |        every leaf has one link
//!          |  \    \ | /    /       |        to every spine
//!        leaf0     leaf1    ...   leaf(L-1)
//!        /  |  \
//!   h0 .. h(H-1)   (H hosts per leaf)
//! ```
//!
//! Node ids: hosts `0 .. L*H` (host `h` under leaf `h / H`), then leaves
//! `L*H .. L*H+L`, then spines. Names `h<i>`, `leaf<i>`, `spine<i>`. Links: host
//! links in host order, then for each leaf its spine links in spine order.

use super::{NodeId, NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// `leaves` racks of `hosts_per_leaf` hosts, each leaf linked once to each of
/// `spines` spines. Counts must be >= 1 (checked by the caller).
pub fn leaf_spine(
    leaves: u32,
    spines: u32,
    hosts_per_leaf: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    assert!(
        leaves >= 1 && spines >= 1 && hosts_per_leaf >= 1,
        "leaf-spine needs at least one leaf, spine and host per leaf"
    );
    let mut t = TopologySpec::default();
    let hosts: Vec<NodeId> = (0..leaves * hosts_per_leaf)
        .map(|i| t.add_named(NodeKind::Host, format!("h{i}")))
        .collect();
    let leaf_ids: Vec<NodeId> = (0..leaves)
        .map(|i| t.add_named(NodeKind::Switch, format!("leaf{i}")))
        .collect();
    let spine_ids: Vec<NodeId> = (0..spines)
        .map(|i| t.add_named(NodeKind::Switch, format!("spine{i}")))
        .collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.add_link(h, leaf_ids[i / hosts_per_leaf as usize], host_rate, delay);
    }
    for &l in &leaf_ids {
        for &s in &spine_ids {
            t.add_link(l, s, fabric_rate, delay);
        }
    }
    t
}

/// Leaf oversubscription: host capacity of a leaf over its spine capacity.
pub fn oversubscription(
    spines: u32,
    hosts_per_leaf: u32,
    host_rate: Rate,
    fabric_rate: Rate,
) -> f64 {
    hosts_per_leaf as f64 * host_rate.bps_f64() / (spines as f64 * fabric_rate.bps_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn the_ppfc_fig14_fabric_is_8_to_1_with_32_hosts_per_rack() {
        let r = Rate::from_gbps(10);
        let t = leaf_spine(6, 4, 32, r, r, Delta::from_us(1));
        assert_eq!(t.num_hosts(), 192);
        assert_eq!(t.num_switches(), 10);
        assert_eq!(t.names[192], "leaf0");
        assert_eq!(t.names[198], "spine0");
        assert_eq!(oversubscription(4, 32, r, r), 8.0);
        assert_eq!(oversubscription(4, 64, r, r), 16.0);
        let topo = Topology::build(t).unwrap();
        // A host on leaf 0 reaches leaf 5 over all 4 spines.
        let leaf0 = topo.kind_index[192];
        assert_eq!(topo.routes.next_hops(leaf0, NodeId(191)).len(), 4);
    }
}
