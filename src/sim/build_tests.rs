//! Tests of building a run's partitions (src/sim/build.rs).

use super::*;

/// A rank builds only its partition's nodes, with the egress ids every
/// rank (and a one-process run) gives them: ranks divide the fabric.
#[test]
fn a_rank_builds_only_its_partitions_nodes_with_the_same_egress_ids() {
    let text = "name = \"t\"\nseed = 1\n[topology]\nkind = \"fat-tree\"\nk = 4\n\
                host_rate = \"100Gbps\"\ndelay = \"1us\"\n[[workload.poisson]]\n\
                cdf = \"web-search\"\nload = 0.3\nduration = \"20us\"\n";
    let cfg = crate::testkit::scenario(text);
    let node_part = placement::for_run(&cfg, 2);
    let all = Nodes::build(&cfg, 1, 2, &node_part, None);
    let one = Nodes::build(&cfg, 1, 2, &node_part, Some(1));
    assert_eq!(all.egress_owner, one.egress_owner);
    assert_eq!(all.egress_base, one.egress_base);
    let in_1 = |n: &NodeId| node_part[n.idx()] == 1;
    let sw = |n: &Nodes| n.switches.iter().map(|s| s.node).collect::<Vec<_>>();
    let want: Vec<NodeId> = sw(&all).into_iter().filter(in_1).collect();
    assert!(!want.is_empty() && want.len() < all.switches.len());
    assert_eq!(sw(&one), want);
    assert!(one.nics_of[0].is_empty());
    let nodes = |v: &[Nic]| v.iter().map(|n| n.node).collect::<Vec<_>>();
    assert_eq!(nodes(&one.nics_of[1]), nodes(&all.nics_of[1]));
    let n_links = all.egress_owner.len();
    let (parts, place) = place_nodes(
        &cfg,
        2,
        n_links,
        Some(1),
        &node_part,
        one.nics_of,
        one.switches,
    );
    assert_eq!(parts[0].links.rings(), 0);
    assert_eq!(parts[1].links.rings(), n_links);
    for &h in cfg.topo.hosts.iter().filter(|h| in_1(h)) {
        assert!(matches!(place[h.idx()], Slot::Host(l) if l != u32::MAX));
    }
}
