//! Isomorphism of three-tier fat-trees (HPCC §5.1's fabric and its relatives):
//! finds a relabeling of one topology's nodes onto another's under which the two
//! link sets are equal (same endpoints, rates, delays and loss), or says why none
//! of the fat-tree kind exists.
//!
//! Tiers come from the graph ([`tiers`]); pods are the connected components of the
//! ToR-Agg links. Pods are matched in order; the first pod's Aggs fix the core
//! groups (an Agg's cores map to the matching Agg's cores); every other pod's Aggs
//! then follow from the cores they reach. ToRs of a pod and hosts of a ToR are
//! interchangeable and are matched in id order. The candidate map is then checked
//! link by link, so a `Ok` answer is a proof, whatever the input.

use super::fat_tree::{Tier, tiers};
use super::{NodeId, TopologySpec};

struct Shape {
    tier: Vec<Tier>,
    adj: Vec<Vec<u32>>,
    /// Pods in order of their smallest ToR id: (ToRs, Aggs), each sorted.
    pods: Vec<(Vec<u32>, Vec<u32>)>,
}

fn shape(s: &TopologySpec) -> Shape {
    let n = s.kinds.len();
    let tier = tiers(s);
    let mut adj = vec![Vec::new(); n];
    for l in &s.links {
        adj[l.a.idx()].push(l.b.0);
        adj[l.b.idx()].push(l.a.0);
    }
    adj.iter_mut().for_each(|v| v.sort_unstable());
    let mut pod_of = vec![u32::MAX; n];
    let mut pods = Vec::new();
    for start in 0..n {
        if tier[start] != Tier::Tor || pod_of[start] != u32::MAX {
            continue;
        }
        let id = pods.len() as u32;
        let (mut tors, mut aggs) = (Vec::new(), Vec::new());
        let mut stack = vec![start as u32];
        pod_of[start] = id;
        while let Some(u) = stack.pop() {
            match tier[u as usize] {
                Tier::Tor => tors.push(u),
                _ => aggs.push(u),
            }
            for &v in &adj[u as usize] {
                let t = tier[v as usize];
                if (t == Tier::Tor || t == Tier::Agg) && pod_of[v as usize] == u32::MAX {
                    pod_of[v as usize] = id;
                    stack.push(v);
                }
            }
        }
        tors.sort_unstable();
        aggs.sort_unstable();
        pods.push((tors, aggs));
    }
    Shape { tier, adj, pods }
}

fn of_tier(s: &Shape, node: u32, t: Tier) -> impl Iterator<Item = u32> + '_ {
    s.adj[node as usize]
        .iter()
        .copied()
        .filter(move |&v| s.tier[v as usize] == t)
}

/// A relabeling `map` (indexed by `a`'s node id) with `map(a) == b`, if `a` and `b`
/// are isomorphic fat-trees; otherwise what differs.
pub fn fat_tree_isomorphism(a: &TopologySpec, b: &TopologySpec) -> Result<Vec<NodeId>, String> {
    let n = a.kinds.len();
    if n != b.kinds.len() || a.links.len() != b.links.len() {
        return Err(format!(
            "sizes differ: {} nodes/{} links vs {} nodes/{} links",
            n,
            a.links.len(),
            b.kinds.len(),
            b.links.len()
        ));
    }
    let (sa, sb) = (shape(a), shape(b));
    if sa.pods.len() != sb.pods.len() {
        return Err(format!("{} pods vs {} pods", sa.pods.len(), sb.pods.len()));
    }
    const UNSET: u32 = u32::MAX;
    let mut map = vec![UNSET; n];
    let set = |map: &mut Vec<u32>, x: u32, y: u32| -> Result<(), String> {
        if map[x as usize] != UNSET && map[x as usize] != y {
            return Err(format!(
                "node {x} would map to both {} and {y}",
                map[x as usize]
            ));
        }
        map[x as usize] = y;
        Ok(())
    };
    for (p, ((ta, aa), (tb, ab))) in sa.pods.iter().zip(&sb.pods).enumerate() {
        if ta.len() != tb.len() || aa.len() != ab.len() {
            return Err(format!("pod {p} has a different number of ToRs or Aggs"));
        }
        for (&x, &y) in aa.iter().zip(ab) {
            if p == 0 {
                // The first pod fixes the core groups.
                set(&mut map, x, y)?;
                let ca: Vec<u32> = of_tier(&sa, x, Tier::Core).collect();
                let cb: Vec<u32> = of_tier(&sb, y, Tier::Core).collect();
                if ca.len() != cb.len() {
                    return Err(format!("Agg {x} and Agg {y} reach different core counts"));
                }
                for (&c, &d) in ca.iter().zip(&cb) {
                    set(&mut map, c, d)?;
                }
            }
        }
        if p > 0 {
            for &x in aa {
                let Some(core) = of_tier(&sa, x, Tier::Core).next() else {
                    return Err(format!("Agg {x} has no core link"));
                };
                let mc = map[core as usize];
                if mc == UNSET {
                    return Err(format!("core {core} is not reached from the first pod"));
                }
                let Some(y) = of_tier(&sb, mc, Tier::Agg).find(|v| ab.contains(v)) else {
                    return Err(format!("no Agg of pod {p} reaches core {mc}"));
                };
                set(&mut map, x, y)?;
            }
        }
        for (&x, &y) in ta.iter().zip(tb) {
            set(&mut map, x, y)?;
            let ha: Vec<u32> = of_tier(&sa, x, Tier::Host).collect();
            let hb: Vec<u32> = of_tier(&sb, y, Tier::Host).collect();
            if ha.len() != hb.len() {
                return Err(format!(
                    "ToR {x} has {} hosts, ToR {y} {}",
                    ha.len(),
                    hb.len()
                ));
            }
            for (&h, &g) in ha.iter().zip(&hb) {
                set(&mut map, h, g)?;
            }
        }
    }
    if let Some(x) = map.iter().position(|&m| m == UNSET) {
        return Err(format!("node {x} is in no pod and reached by no Agg"));
    }
    let mut seen = vec![false; n];
    for &m in &map {
        if std::mem::replace(&mut seen[m as usize], true) {
            return Err(format!("two nodes map to node {m}"));
        }
    }
    // The proof: equal link multisets under the map.
    let key = |x: u32, y: u32, l: &super::LinkSpec| {
        (x.min(y), x.max(y), l.rate, l.delay, l.loss.to_bits())
    };
    let mut la: Vec<_> = a
        .links
        .iter()
        .map(|l| key(map[l.a.idx()], map[l.b.idx()], l))
        .collect();
    let mut lb: Vec<_> = b.links.iter().map(|l| key(l.a.0, l.b.0, l)).collect();
    la.sort_unstable();
    lb.sort_unstable();
    if let Some((x, y)) = la.iter().zip(&lb).find(|(x, y)| x != y) {
        return Err(format!(
            "after relabeling, link {}-{} ({}) does not match {}-{} ({})",
            x.0, x.1, x.2, y.0, y.1, y.2
        ));
    }
    if a.kinds
        .iter()
        .enumerate()
        .any(|(i, k)| b.kinds[map[i] as usize] != *k)
    {
        return Err("a host maps to a switch".into());
    }
    Ok(map.into_iter().map(NodeId).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fat_tree::{FatTreeShape, fat_tree, hpcc_fat_tree_default};
    use crate::topology::{LinkSpec, NodeKind};
    use crate::units::{Delta, Rate};
    use rand::SeedableRng;
    use rand::seq::SliceRandom;

    /// `s` with node ids shuffled, link ends swapped and links reordered.
    fn scrambled(s: &TopologySpec, seed: u64) -> TopologySpec {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let n = s.kinds.len();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.shuffle(&mut rng);
        let mut kinds = vec![NodeKind::Host; n];
        for (i, &p) in perm.iter().enumerate() {
            kinds[p as usize] = s.kinds[i];
        }
        let mut links: Vec<LinkSpec> = s
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (a, b) = (NodeId(perm[l.a.idx()]), NodeId(perm[l.b.idx()]));
                let (a, b) = if i % 2 == 0 { (a, b) } else { (b, a) };
                LinkSpec { a, b, ..l.clone() }
            })
            .collect();
        links.shuffle(&mut rng);
        TopologySpec {
            kinds,
            links,
            ..Default::default()
        }
    }

    #[test]
    fn a_scrambled_copy_of_the_hpcc_fabric_is_found_isomorphic() {
        let g = hpcc_fat_tree_default();
        for seed in 0..3 {
            let s = scrambled(&g, seed);
            let map = fat_tree_isomorphism(&s, &g).unwrap();
            assert_eq!(map.len(), g.kinds.len());
        }
    }

    #[test]
    fn rewiring_one_link_or_changing_a_rate_breaks_isomorphism() {
        let g = hpcc_fat_tree_default();
        let mut h = g.clone();
        // Move one ToR uplink to another pod's Agg.
        let i = h.links.iter().position(|l| l.a == NodeId(320)).unwrap();
        h.links[i].b = NodeId(359);
        assert!(fat_tree_isomorphism(&h, &g).is_err());
        let mut h = g.clone();
        h.links[400].rate = Rate::from_gbps(100);
        assert!(fat_tree_isomorphism(&h, &g).is_err());
    }

    #[test]
    fn different_shapes_are_not_isomorphic() {
        let r = Rate::from_gbps(100);
        let d = Delta::from_us(1);
        let a = fat_tree(FatTreeShape::k_ary(4, 2), r, r, d);
        let mut s = FatTreeShape::k_ary(4, 2);
        s.pods = 2;
        s.tors_per_pod = 4;
        let b = fat_tree(s, r, r, d);
        assert!(fat_tree_isomorphism(&a, &b).is_err());
        // Same counts, different core wiring: Agg 1 of pod 1 takes core group 0.
        let mut c = a.clone();
        let agg = NodeId(16 + 8 + 3);
        for l in c.links.iter_mut().filter(|l| l.a == agg) {
            l.b = NodeId(l.b.0 - 2);
        }
        assert!(fat_tree_isomorphism(&c, &a).is_err());
    }
}
