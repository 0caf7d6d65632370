//! Equal-cost shortest-path routes for ECMP.
//!
//! Hosts never forward, and each host hangs off one switch (its *attachment*
//! switch). So a switch's next hops toward host `h` depend only on `h`'s
//! attachment switch, except at that switch itself, where the next hop is `h`'s
//! port. We run one BFS (hop count, as in the HPCC ns-3 simulator's route
//! computation) from every attachment switch over the switch graph and keep, for
//! every (switch, attachment switch) pair, the ports toward neighbours one hop
//! closer. Identical port lists are stored once.
//!
//! Next hops are listed in port (link) order by default. [`HopOrder::Ns3`] lists
//! them as the HPCC ns-3 simulator does (third.cc `CalculateRoute`, hpcc-ns3-model.md
//! §3): in the order its BFS discovers them, visiting each node's neighbours in
//! the order of its interface map, and with parallel links to the same neighbour
//! collapsed to the last one listed (ns-3 keys that map by neighbour). The map is
//! keyed by the neighbour's `Ptr<Node>`, i.e. by heap address, and a `SwitchNode`
//! (over 2 MB: its per-port byte counters) is allocated by its own mmap, which
//! Linux places below the previous one: switches come in *descending* node id.
//! The reference runs show it: per-port queue integrals at the fat-tree's
//! aggregation and core switches correlate 0.999 with the simulator's queue
//! monitor in this order and -0.02 in ascending id order (docs/ns3-compat.md,
//! "ECMP next-hop order"). ECMP picks `list[hash % n]`, so the order decides which
//! path a flow takes.
//!
//! Static routes (a scenario's `[[switch.routes]]`) replace the computed next
//! hops of one (switch, destination host); they are looked up first, and only
//! when there are any.

use super::{NodeId, NodeKind, PortInfo, TopologySpec};
use std::collections::{HashMap, VecDeque};

const NONE: u32 = u32::MAX;

/// The order of equal-cost next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopOrder {
    /// Port (link) order.
    Port,
    /// The ns-3 simulator's BFS discovery order (switch neighbours by descending
    /// node id, their heap-address order there).
    Ns3,
}

#[derive(Clone, Debug, Default)]
pub struct Routes {
    n_attach: usize,
    /// Attachment index of each switch (by switch index), `NONE` if it has no hosts.
    attach_of_switch: Vec<u32>,
    /// Per host node id: its attachment index and the pool offset of its own port.
    host_route: Vec<(u32, u32)>,
    /// (offset, len) into `pool` for each (switch index, attachment index).
    table: Vec<(u32, u16)>,
    pool: Vec<u16>,
    /// Hop distance (switch to switch) from each switch to each attachment switch.
    dist: Vec<u16>,
    /// Static routes: (switch index, destination host) -> pool offset of its port.
    overrides: HashMap<(u32, u32), u32>,
    /// `!overrides.is_empty()`, kept beside the tables the hot path reads.
    has_overrides: bool,
}

/// Refuses routes that would take too much memory or time to compute, before
/// the tables are allocated ([`crate::limits::MAX_ROUTE_ENTRIES`],
/// [`crate::limits::MAX_ROUTE_STEPS`]; docs/scenario.md, "Limits"): one entry
/// per (switch, switch with hosts), and one step per (switch with hosts, switch
/// port), a BFS and a next-hop scan from each switch with hosts.
fn check_cost(switches: u64, with_hosts: u64, switch_ports: u64) -> Result<(), String> {
    use crate::limits::{MAX_ROUTE_STEPS, check_route_entries};
    check_route_entries(switches, with_hosts, "use fewer switches")?;
    let steps = with_hosts * switch_ports;
    if steps > MAX_ROUTE_STEPS {
        return Err(format!(
            "{with_hosts} switches with hosts and {switch_ports} switch ports: computing the \
             routes would take {steps} steps (limit {MAX_ROUTE_STEPS}, some seconds; \
             docs/scenario.md, Limits); use fewer switches or fewer ports a switch"
        ));
    }
    Ok(())
}

impl Routes {
    pub(super) fn compute(
        spec: &TopologySpec,
        ports: &[Vec<PortInfo>],
        switches: &[NodeId],
        kind_index: &[u32],
        order: HopOrder,
    ) -> Result<Routes, String> {
        let n = spec.kinds.len();
        let is_switch = |v: NodeId| spec.kinds[v.idx()] == NodeKind::Switch;
        // Attachment switches, in switch order.
        let mut attach_of_switch = vec![NONE; switches.len()];
        let mut attach_nodes = Vec::new();
        let mut host_route = vec![(NONE, NONE); n];
        let mut pool: Vec<u16> = Vec::new();
        let mut dedup: HashMap<Vec<u16>, u32> = HashMap::new();
        // Looked up by slice, so that a list seen before (almost every one on a
        // large fabric) allocates nothing.
        let mut intern = |list: &[u16], pool: &mut Vec<u16>| -> u32 {
            if let Some(&off) = dedup.get(list) {
                return off;
            }
            let off = pool.len() as u32;
            pool.extend_from_slice(list);
            dedup.insert(list.to_vec(), off);
            off
        };
        let mut switch_ports = 0u64;
        for (si, &s) in switches.iter().enumerate() {
            switch_ports += ports[s.idx()].len() as u64;
            for (p, port) in ports[s.idx()].iter().enumerate() {
                if spec.kinds[port.peer.idx()] == NodeKind::Host {
                    if attach_of_switch[si] == NONE {
                        attach_of_switch[si] = attach_nodes.len() as u32;
                        attach_nodes.push(s);
                    }
                    let off = intern(&[p as u16], &mut pool);
                    host_route[port.peer.idx()] = (attach_of_switch[si], off);
                }
            }
        }
        let n_attach = attach_nodes.len();
        check_cost(switches.len() as u64, n_attach as u64, switch_ports)?;
        // ns-3 order: each switch's switch neighbours by descending node id (by
        // address, as ns-3's `map<Ptr<Node>, ..>` iterates them), one port per
        // neighbour (the last link listed wins).
        let by_id: Vec<Vec<(NodeId, u16)>> = match order {
            HopOrder::Port => Vec::new(),
            HopOrder::Ns3 => (0..n)
                .map(|u| {
                    let mut v: Vec<(NodeId, u16)> = Vec::new();
                    for (i, p) in ports[u].iter().enumerate() {
                        if !is_switch(p.peer) {
                            continue;
                        }
                        match v.iter_mut().find(|e| e.0 == p.peer) {
                            Some(e) => e.1 = i as u16,
                            None => v.push((p.peer, i as u16)),
                        }
                    }
                    v.sort_by_key(|e| std::cmp::Reverse(e.0));
                    v
                })
                .collect(),
        };
        let mut rank = vec![u32::MAX; if order == HopOrder::Ns3 { n } else { 0 }];
        let mut table = vec![(0u32, 0u16); switches.len() * n_attach];
        let mut dist_all = vec![u16::MAX; switches.len() * n_attach];
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        let mut hops: Vec<u16> = Vec::new();
        let mut ranked: Vec<(u32, u16)> = Vec::new();
        for (ai, &a) in attach_nodes.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[a.idx()] = 0;
            queue.clear();
            queue.push_back(a);
            let mut discovered = 0u32;
            if order == HopOrder::Ns3 {
                rank[a.idx()] = 0;
            }
            while let Some(u) = queue.pop_front() {
                match order {
                    HopOrder::Port => {
                        for port in &ports[u.idx()] {
                            let v = port.peer;
                            if is_switch(v) && dist[v.idx()] == u32::MAX {
                                dist[v.idx()] = dist[u.idx()] + 1;
                                queue.push_back(v);
                            }
                        }
                    }
                    HopOrder::Ns3 => {
                        for &(v, _) in &by_id[u.idx()] {
                            if dist[v.idx()] == u32::MAX {
                                dist[v.idx()] = dist[u.idx()] + 1;
                                discovered += 1;
                                rank[v.idx()] = discovered;
                                queue.push_back(v);
                            }
                        }
                    }
                }
            }
            for (si, &s) in switches.iter().enumerate() {
                let d = dist[s.idx()];
                if d == u32::MAX {
                    continue;
                }
                dist_all[si * n_attach + ai] = d.min(u16::MAX as u32 - 1) as u16;
                if d == 0 {
                    continue;
                }
                hops.clear();
                match order {
                    HopOrder::Port => hops.extend(
                        ports[s.idx()]
                            .iter()
                            .enumerate()
                            .filter(|(_, p)| is_switch(p.peer) && dist[p.peer.idx()] == d - 1)
                            .map(|(i, _)| i as u16),
                    ),
                    HopOrder::Ns3 => {
                        ranked.clear();
                        ranked.extend(
                            by_id[s.idx()]
                                .iter()
                                .filter(|(v, _)| dist[v.idx()] == d - 1)
                                .map(|&(v, p)| (rank[v.idx()], p)),
                        );
                        ranked.sort_unstable();
                        hops.extend(ranked.iter().map(|&(_, p)| p));
                    }
                }
                if hops.len() > u16::MAX as usize {
                    return Err(format!("switch {s} has too many equal-cost next hops"));
                }
                let len = hops.len() as u16;
                let off = intern(&hops, &mut pool);
                table[si * n_attach + ai] = (off, len);
            }
        }
        let _ = kind_index;
        Ok(Routes {
            n_attach,
            attach_of_switch,
            host_route,
            table,
            pool,
            dist: dist_all,
            overrides: HashMap::new(),
            has_overrides: false,
        })
    }

    /// Replaces the next hops of switch number `switch_idx` toward host `dst` by
    /// the single port `port`.
    pub fn set_route(&mut self, switch_idx: u32, dst: NodeId, port: u16) {
        let off = self.pool.len() as u32;
        self.pool.push(port);
        self.overrides.insert((switch_idx, dst.0), off);
        self.has_overrides = true;
    }

    /// Whether any static route is set.
    pub fn has_overrides(&self) -> bool {
        self.has_overrides
    }

    /// Equal-cost next-hop ports at switch number `switch_idx` toward host `dst`.
    /// Empty when `dst` is unreachable from this switch.
    #[inline]
    pub fn next_hops(&self, switch_idx: u32, dst: NodeId) -> &[u16] {
        if self.has_overrides
            && let Some(&off) = self.overrides.get(&(switch_idx, dst.0))
        {
            return &self.pool[off as usize..off as usize + 1];
        }
        let (attach, own_port) = self.host_route[dst.idx()];
        if attach == NONE {
            return &[];
        }
        if self.attach_of_switch[switch_idx as usize] == attach {
            return &self.pool[own_port as usize..own_port as usize + 1];
        }
        let (off, len) = self.table[switch_idx as usize * self.n_attach + attach as usize];
        &self.pool[off as usize..off as usize + len as usize]
    }

    /// Switch-to-switch hop count from switch `switch_idx` to the attachment
    /// switch of host `dst`, if reachable.
    pub fn hops_to_attachment(&self, switch_idx: u32, dst: NodeId) -> Option<u16> {
        let (attach, _) = self.host_route[dst.idx()];
        if attach == NONE {
            return None;
        }
        let d = self.dist[switch_idx as usize * self.n_attach + attach as usize];
        (d != u16::MAX).then_some(d)
    }

    pub fn memory_bytes(&self) -> usize {
        self.attach_of_switch.capacity() * 4
            + self.host_route.capacity() * 8
            + self.table.capacity() * 8
            + self.pool.capacity() * 2
            + self.dist.capacity() * 2
    }
}

#[cfg(test)]
mod tests {
    use crate::topology::builders::dumbbell;
    use crate::topology::{NodeId, Topology};
    use crate::units::{Delta, Rate};

    #[test]
    fn ns3_order_lists_next_hops_by_bfs_discovery_and_collapses_parallel_links() {
        use crate::topology::{NodeKind, TopologySpec};
        // h0 - s2; s2 links to s5 then s4 then s5 again (parallel); s4, s5 - s3 - h1.
        let r = Rate::from_gbps(100);
        let d = Delta::from_us(1);
        let mut t = TopologySpec::default();
        for k in [
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
            NodeKind::Switch,
            NodeKind::Switch,
        ] {
            t.add_node(k);
        }
        t.add_link(NodeId(0), NodeId(2), r, d);
        t.add_link(NodeId(2), NodeId(5), r, d); // s2 port 1
        t.add_link(NodeId(2), NodeId(4), r, d); // s2 port 2
        t.add_link(NodeId(2), NodeId(5), r, d); // s2 port 3 (parallel)
        t.add_link(NodeId(4), NodeId(3), r, d);
        t.add_link(NodeId(5), NodeId(3), r, d);
        t.add_link(NodeId(1), NodeId(3), r, d);
        let mut topo = Topology::build(t).unwrap();
        let s2 = topo.kind_index[2];
        assert_eq!(topo.routes.next_hops(s2, NodeId(1)), &[1, 2, 3]);
        topo.use_ns3_route_order();
        // s3's BFS meets s5 before s4 (descending id), so s5 (its last parallel
        // link, port 3) comes before s4 (port 2).
        assert_eq!(topo.routes.next_hops(s2, NodeId(1)), &[3, 2]);
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck_and_deliver_locally() {
        // hosts 0,1 | switch 4 == switch 5 | hosts 2,3
        let spec = dumbbell(
            2,
            2,
            Rate::from_gbps(100),
            Rate::from_gbps(100),
            Delta::from_us(1),
        );
        let t = Topology::build(spec).unwrap();
        let left = t.switches[0];
        let li = t.kind_index[left.idx()];
        // Toward a local host: its own port.
        let h0 = NodeId(0);
        let p = t.routes.next_hops(li, h0);
        assert_eq!(p.len(), 1);
        assert_eq!(t.ports[left.idx()][p[0] as usize].peer, h0);
        // Toward a remote host: the bottleneck port.
        let p = t.routes.next_hops(li, NodeId(2));
        assert_eq!(p.len(), 1);
        assert_eq!(t.ports[left.idx()][p[0] as usize].peer, t.switches[1]);
        assert_eq!(t.routes.hops_to_attachment(li, NodeId(2)), Some(1));
    }
}
