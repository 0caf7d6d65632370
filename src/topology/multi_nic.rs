//! Servers with several NICs in generated fabrics: dual-homed (multi-homed)
//! racks and rail-optimized fabrics. A server is named by its first NIC; its
//! other NICs are `Host` nodes listed in [`TopologySpec::extra_nics`] (see the
//! module docs of [`super`]).

use super::{LinkSpec, NodeId, NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// Gives every host of `spec` `nics` NICs, each under its own copy of the
/// host's switch: the rack's switch becomes a group of `nics` switches (a ToR
/// pair for 2, as dual-ToR racks and the HPCC ns-3 simulator's
/// `ali_32host_10rack.txt` have them), every copy with the same uplinks as the
/// original, and NIC `c` of every host in the rack on copy `c`, at the host's
/// link rate. Node ids of `spec` stay; the switch copies follow its nodes
/// (named `<switch>.<c>`), then the extra NICs (`<host>.nic<c>`), copy by copy,
/// host by host. A link between two racks' switches joins copy `c` to copy `c`.
pub fn multi_home(mut spec: TopologySpec, nics: u32) -> TopologySpec {
    if nics <= 1 {
        return spec;
    }
    let n = spec.kinds.len();
    let named = !spec.names.is_empty();
    let (host_link, racks) = host_links(&spec);
    // copy[c - 1][switch] = that switch's copy c.
    let mut copy: Vec<Vec<Option<NodeId>>> = vec![vec![None; n]; nics as usize - 1];
    for (c, copies) in copy.iter_mut().enumerate() {
        for &s in &racks {
            let name = format!("{}.{}", spec.names.get(s.idx()).map_or("", |x| x), c + 1);
            copies[s.idx()] = Some(match named {
                true => spec.add_named(NodeKind::Switch, name),
                false => spec.add_node(NodeKind::Switch),
            });
        }
    }
    let fabric: Vec<LinkSpec> = (spec.links.iter())
        .filter(|l| spec.kinds[l.a.idx()] == NodeKind::Switch)
        .filter(|l| spec.kinds[l.b.idx()] == NodeKind::Switch)
        .filter(|l| copy[0][l.a.idx()].is_some() || copy[0][l.b.idx()].is_some())
        .cloned()
        .collect();
    for copies in &copy {
        for l in &fabric {
            let on = |v: NodeId| copies[v.idx()].unwrap_or(v);
            spec.links.push(LinkSpec {
                a: on(l.a),
                b: on(l.b),
                ..l.clone()
            });
        }
    }
    for (c, copies) in copy.iter().enumerate() {
        for (h, link) in host_link.iter().enumerate() {
            let Some(i) = *link else { continue };
            let l = spec.links[i].clone();
            let tor = if l.a.idx() == h { l.b } else { l.a };
            let server = NodeId(h as u32);
            let nic = match named {
                true => {
                    let name = format!("{}.nic{}", spec.names[h], c + 1);
                    spec.add_named(NodeKind::Host, name)
                }
                false => spec.add_node(NodeKind::Host),
            };
            spec.extra_nics.push((nic, server));
            spec.links.push(LinkSpec {
                a: nic,
                b: copies[tor.idx()].expect("every rack switch has its copies"),
                ..l
            });
        }
    }
    spec
}

/// Each host's first link (by host node id), and the switches these links
/// reach (the racks' switches), in id order.
fn host_links(spec: &TopologySpec) -> (Vec<Option<usize>>, Vec<NodeId>) {
    let mut host_link = vec![None; spec.kinds.len()];
    let mut racks = Vec::new();
    for (i, l) in spec.links.iter().enumerate() {
        for (h, s) in [(l.a, l.b), (l.b, l.a)] {
            if spec.kinds[h.idx()] == NodeKind::Host && host_link[h.idx()].is_none() {
                host_link[h.idx()] = Some(i);
                racks.push(s);
            }
        }
    }
    racks.sort_unstable();
    racks.dedup();
    (host_link, racks)
}

/// The number of switches that have hosts: what [`multi_home`] copies.
pub fn rack_switches(spec: &TopologySpec) -> usize {
    host_links(spec).1.len()
}

/// A rail-optimized fabric: `groups` groups (scalable units) of `servers`
/// servers with `rails` NICs each; NIC `r` of every server of group `g` links
/// to leaf (g, r), the rail-`r` leaf of its group, and every leaf links to
/// every one of `spines` spines. Node ids: servers `0 .. groups*servers` (NIC
/// 0; server `s` in group `s / servers`), then the leaves group by group, rail
/// by rail (`leaf<g>r<r>`), then the spines, then the servers' NICs 1 .. rails-1
/// rail by rail, server by server (`h<s>.nic<r>`).
pub fn rail_optimized(
    groups: u32,
    servers: u32,
    rails: u32,
    spines: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    let mut t = TopologySpec::default();
    let hosts: Vec<NodeId> = (0..groups * servers)
        .map(|i| t.add_named(NodeKind::Host, format!("h{i}")))
        .collect();
    let leaf: Vec<Vec<NodeId>> = (0..groups)
        .map(|g| {
            (0..rails)
                .map(|r| t.add_named(NodeKind::Switch, format!("leaf{g}r{r}")))
                .collect()
        })
        .collect();
    let spine: Vec<NodeId> = (0..spines)
        .map(|i| t.add_named(NodeKind::Switch, format!("spine{i}")))
        .collect();
    let group_of = |h: usize| h / servers as usize;
    for (i, &h) in hosts.iter().enumerate() {
        t.add_link(h, leaf[group_of(i)][0], host_rate, delay);
    }
    for g in &leaf {
        for &l in g {
            for &s in &spine {
                t.add_link(l, s, fabric_rate, delay);
            }
        }
    }
    // The leaves of each rail, group by group.
    let by_rail: Vec<Vec<NodeId>> = (0..rails as usize)
        .map(|r| leaf.iter().map(|g| g[r]).collect())
        .collect();
    for (r, rail) in by_rail.iter().enumerate().skip(1) {
        for (i, &h) in hosts.iter().enumerate() {
            let nic = t.add_named(NodeKind::Host, format!("h{i}.nic{r}"));
            t.extra_nics.push((nic, h));
            t.add_link(nic, rail[group_of(i)], host_rate, delay);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::topology::leaf_spine::leaf_spine;

    #[test]
    fn dual_homed_racks_have_a_tor_pair_with_the_same_uplinks() {
        let r = Rate::from_gbps(25);
        let base = leaf_spine(3, 2, 4, r, Rate::from_gbps(100), Delta::from_us(1));
        let t = Topology::build(multi_home(base.clone(), 2)).unwrap();
        // 12 servers, 3 leaves + their 3 copies, 2 spines, 12 second NICs.
        assert_eq!(
            (t.servers().len(), t.hosts.len(), t.switches.len()),
            (12, 24, 8)
        );
        assert_eq!(t.spec.names[17], "leaf0.1");
        assert_eq!(t.spec.names[20], "h0.nic1");
        for s in t.servers() {
            let nics = t.nics(s);
            let tors: Vec<NodeId> = nics.iter().map(|&n| t.host_port(n).peer).collect();
            assert_eq!(
                tors[1],
                NodeId(tors[0].0 + 5),
                "NIC 1 under the copy of NIC 0's leaf"
            );
            assert_eq!(t.host_port(nics[1]).rate, r);
        }
        // Each copy has the original's two spine uplinks at 100 Gbps.
        for leaf in [12u32, 17] {
            let up: Vec<_> = (t.ports[leaf as usize].iter())
                .filter(|p| !t.is_host(p.peer))
                .map(|p| (p.peer, p.rate))
                .collect();
            let f = Rate::from_gbps(100);
            assert_eq!(up, [(NodeId(15), f), (NodeId(16), f)]);
        }
        assert_eq!(multi_home(base.clone(), 1), base);
    }

    #[test]
    fn a_rail_optimized_fabric_puts_nic_r_on_its_groups_rail_r_leaf() {
        let r = Rate::from_gbps(200);
        let t = Topology::build(rail_optimized(4, 16, 4, 4, r, r, Delta::from_us(1))).unwrap();
        assert_eq!(
            (t.servers().len(), t.hosts.len(), t.switches.len()),
            (64, 256, 20)
        );
        for s in t.servers() {
            for (rail, &nic) in t.nics(s).iter().enumerate() {
                let leaf = t.host_port(nic).peer;
                assert_eq!(t.spec.names[leaf.idx()], format!("leaf{}r{rail}", s.0 / 16));
                assert_eq!(leaf.0, 64 + 4 * (s.0 / 16) + rail as u32);
            }
        }
        // Same rail, same group: 2 links; same rail across groups: 4.
        let nic = |s: u32, r: usize| t.nics(NodeId(s))[r];
        assert_eq!(t.nic_distance(nic(0, 2), nic(5, 2)), Some(2));
        assert_eq!(t.nic_distance(nic(0, 2), nic(20, 2)), Some(4));
        assert_eq!(t.nic_distance(nic(0, 2), nic(5, 1)), Some(4));
    }
}
