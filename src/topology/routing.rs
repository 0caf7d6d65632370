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

use super::graph::SwitchGraph;
use super::{NodeId, NodeKind, PortInfo, TopologySpec};
use std::collections::HashMap;

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
    /// The next-hop list of each (switch index, attachment index), by its
    /// number in `lists`: 2 bytes an entry while there are at most 65,536
    /// distinct lists (as on every regular fabric: a switch sends toward most
    /// ToRs by the same up links), so that the table a packet's hop reads
    /// stays small on large fabrics (6,144 hosts: 0.4 MB, was 1.7 MB).
    rows: Rows,
    /// (offset, len) into `pool` of each distinct list; number 0 is the empty
    /// list (unreachable).
    lists: Vec<(u32, u16)>,
    pool: Vec<u16>,
    /// Where `0, 1, 2, ...` (the one-port lists [`Rule`]s and [`HostRule`]
    /// give, up to the highest port one names) start in `pool`.
    ident: u32,
    /// Each host's attachment and own port by arithmetic, when the rows
    /// are [`Rows::Rules`] and the hosts are numbered rack by rack.
    hosts: HostRule,
    /// Hop distance (switch to switch) from each switch to each attachment switch.
    dist: Vec<u16>,
    /// Static routes: (switch index, destination host) -> pool offset of its port.
    overrides: HashMap<(u32, u32), u32>,
    /// `!overrides.is_empty()`, kept beside the tables the hot path reads.
    has_overrides: bool,
    /// The address ECMP hashes for each node: its server's first NIC for a
    /// server's extra NICs (a host has one IP address however many NICs it
    /// has, as in the ns-3 simulator); empty when no server has several.
    address: Vec<u32>,
}

/// List numbers, narrow when they fit; or, on a regular fabric, a rule per
/// switch that computes them.
#[derive(Clone, Debug)]
enum Rows {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
    /// By switch index ([`Rule`]): the table's rows when every one of them
    /// is a rule, as on generated fat-trees and leaf-spines.
    Rules(Vec<Rule>),
}

/// One switch's next hops toward every attachment switch as arithmetic
/// (issue 43: route regular fabrics by address arithmetic): toward the
/// attachment switches numbered `lo..hi`, the single port
/// `base + ((a - lo) >> shift) * step` (an aggregation switch's down port to
/// each ToR of its pod, a core switch's port to each pod); toward every
/// other one, list number `default` (the up links). Fitted to the table
/// computed by the searches and kept only if it gives every entry of the
/// row (`fit_rule`), so the routes are the same either way. Shifts, not
/// divisions: a division's latency would be on every packet's hop (a rule
/// is fitted only where the groups are powers of two, else the table
/// stays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rule {
    default: u32,
    lo: u32,
    hi: u32,
    /// log2 of the attachment switches a port serves in the segment.
    shift: u32,
    base: u32,
    step: i32,
}

impl Rule {
    /// The single port toward attachment switch `a`, if `a` is in the
    /// segment; else the switch uses list `default`.
    #[inline(always)]
    fn port(&self, a: u32) -> Option<u32> {
        if a < self.lo || a >= self.hi {
            return None;
        }
        // Wrapping: a candidate that overflows gives a wrong port, which
        // the fitting then rejects (a kept rule never overflows).
        let k = ((a - self.lo) >> self.shift) as i32;
        Some(self.base.wrapping_add_signed(k.wrapping_mul(self.step)))
    }

    /// The highest port the segment names (its first or its last group's).
    fn top_port(&self) -> u32 {
        let last = self.port(self.hi - 1).unwrap_or(self.base);
        last.max(self.base)
    }
}

/// Each host's attachment index and own port by arithmetic: hosts
/// numbered `lo..hi`, `1 << shift` to a rack, rack by rack from attachment index
/// `attach0` and port `port0` of each rack's switch (a generated fat-tree's
/// or leaf-spine's hosts). Kept only if it gives every host's entry of the
/// table (`fit_host_rule`); `lo == hi` (the default) for none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HostRule {
    lo: u32,
    hi: u32,
    shift: u32,
    attach0: u32,
    port0: u32,
}

impl HostRule {
    /// Host `n`'s (attachment index, own port), if the rule covers it.
    #[inline(always)]
    fn of(&self, n: u32) -> Option<(u32, u32)> {
        let k = n.wrapping_sub(self.lo);
        if k >= self.hi - self.lo {
            return None;
        }
        let within = k & ((1 << self.shift) - 1);
        Some((self.attach0 + (k >> self.shift), self.port0 + within))
    }
}

/// The host rule that gives every host's (attachment index, own port) in
/// `host_route` (own ports as pool offsets, `port_at` reads them), if one does.
fn fit_host_rule(
    spec: &TopologySpec,
    host_route: &[(u32, u32)],
    port_at: impl Fn(u32) -> u32,
) -> Option<HostRule> {
    let is_host = |n: usize| spec.kinds[n] == NodeKind::Host;
    let lo = (0..spec.kinds.len()).find(|&n| is_host(n))?;
    let hi = (lo..spec.kinds.len())
        .find(|&n| !is_host(n))
        .unwrap_or(spec.kinds.len());
    if (hi..spec.kinds.len()).any(is_host) || spec.kinds.len() > u32::MAX as usize {
        return None;
    }
    let entry = |n: usize| {
        let (a, off) = host_route[n];
        (a != NONE).then(|| (a, port_at(off)))
    };
    let (attach0, port0) = entry(lo)?;
    let per = (lo..hi)
        .take_while(|&n| entry(n).map(|e| e.0) == Some(attach0))
        .count();
    if !per.is_power_of_two() {
        return None;
    }
    let rule = HostRule {
        lo: lo as u32,
        hi: hi as u32,
        shift: per.trailing_zeros(),
        attach0,
        port0,
    };
    (lo..hi)
        .all(|n| entry(n) == rule.of(n as u32))
        .then_some(rule)
}

/// The rule that gives `row` (list numbers by attachment index), skipping
/// index `own` (the switch's own hosts, routed by their ports), if one does;
/// `single` is the port of a list of one port. Tries a default list with
/// one segment of single ports around the entries that differ from it,
/// then single ports throughout.
fn fit_rule(row: &[u32], own: u32, single: impl Fn(u32) -> Option<u32>) -> Option<Rule> {
    let entries = || {
        (0..row.len() as u32)
            .filter(move |&a| a != own)
            .map(|a| (a, row[a as usize]))
    };
    let holds = |r: &Rule| {
        entries().all(|(a, v)| match r.port(a) {
            Some(p) => single(v) == Some(p),
            None => v == r.default,
        })
    };
    // The segment [lo, hi) of single ports: its first port, how many
    // attachment switches share it, and the step to the next group's.
    let segment = |lo: u32, hi: u32, default: u32| -> Option<Rule> {
        let in_seg = || entries().filter(move |&(a, _)| a >= lo && a < hi);
        let (_, v) = in_seg().next()?;
        let base = single(v)?;
        let next = in_seg().find(|&(_, v)| single(v) != Some(base));
        let (div, step) = match next {
            Some((a, v)) => (a - lo, single(v)? as i64 - base as i64),
            None => (hi - lo, 0),
        };
        let div = div.max(1);
        if !div.is_power_of_two() {
            return None;
        }
        let rule = Rule {
            default,
            lo,
            hi,
            shift: div.trailing_zeros(),
            base,
            step: i32::try_from(step).ok()?,
        };
        holds(&rule).then_some(rule)
    };
    // Boyer-Moore's majority candidate: an aggregation or a ToR switch sends
    // toward most attachment switches by its up links.
    let mut cand = (0u32, 0usize);
    for (_, v) in entries() {
        if cand.1 == 0 {
            cand = (v, 1);
        } else if cand.0 == v {
            cand.1 += 1;
        } else {
            cand.1 -= 1;
        }
    }
    let default = cand.0;
    let differ = || {
        entries()
            .filter(move |&(_, v)| v != default)
            .map(|(a, _)| a)
    };
    let Some(lo) = differ().next() else {
        let rule = Rule {
            default,
            lo: 0,
            hi: 0,
            shift: 0,
            base: 0,
            step: 0,
        };
        return Some(rule);
    };
    let last = differ().next_back().unwrap_or(lo);
    segment(lo, last + 1, default).or_else(|| segment(0, row.len() as u32, 0))
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::Narrow(Vec::new())
    }
}

impl Rows {
    #[inline(always)]
    fn get(&self, i: usize) -> usize {
        match self {
            Rows::Narrow(r) => r[i] as usize,
            Rows::Wide(r) => r[i] as usize,
            Rows::Rules(_) => unreachable!("rules are read by next_hops"),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Rows::Narrow(r) => r.capacity() * 2,
            Rows::Wide(r) => r.capacity() * 4,
            Rows::Rules(r) => r.capacity() * size_of::<Rule>(),
        }
    }
}

/// Refuses routes that would take too much memory or time to compute, before
/// the tables are allocated ([`crate::limits::MAX_ROUTE_ENTRIES`],
/// [`crate::limits::MAX_ROUTE_STEPS`]; docs/scenario.md, "Limits"): one entry
/// per (switch, switch with hosts), and one step per (switch with hosts,
/// switch-to-switch port), a BFS and a next-hop scan from each switch with
/// hosts.
fn check_cost(switches: u64, with_hosts: u64, fabric_ports: u64) -> Result<(), String> {
    use crate::limits::{MAX_ROUTE_STEPS, check_route_entries};
    check_route_entries(switches, with_hosts, "use fewer switches")?;
    let steps = with_hosts * fabric_ports;
    if steps > MAX_ROUTE_STEPS {
        return Err(format!(
            "{with_hosts} switches with hosts and {fabric_ports} switch-to-switch ports: \
             computing the routes would take {steps} steps (limit {MAX_ROUTE_STEPS}, some \
             seconds; docs/scenario.md, Limits); use fewer switches or fewer ports a switch"
        ));
    }
    Ok(())
}

impl Routes {
    pub(super) fn compute(
        spec: &TopologySpec,
        ports: &[Vec<PortInfo>],
        switches: &[NodeId],
        graph: &SwitchGraph,
        order: HopOrder,
    ) -> Result<Routes, String> {
        Routes::compute_with(spec, ports, switches, graph, order, true)
    }

    /// [`Self::compute`], keeping the table's rows rather than rules when
    /// `fit_rules` is false (the tests compare the two).
    fn compute_with(
        spec: &TopologySpec,
        ports: &[Vec<PortInfo>],
        switches: &[NodeId],
        graph: &SwitchGraph,
        order: HopOrder,
        fit_rules: bool,
    ) -> Result<Routes, String> {
        let n = spec.kinds.len();
        let ns = switches.len();
        // Attachment switches, in switch order, as switch indices.
        let mut attach_of_switch = vec![NONE; ns];
        let mut attach: Vec<usize> = Vec::new();
        let mut host_route = vec![(NONE, NONE); n];
        let mut pool: Vec<u16> = Vec::new();
        let mut lists: Vec<(u32, u16)> = vec![(0, 0)];
        let mut dedup: HashMap<Vec<u16>, u32> = HashMap::new();
        // A list's number; looked up by slice, so that a list seen before
        // allocates nothing.
        let mut intern = |list: &[u16], pool: &mut Vec<u16>, lists: &mut Vec<(u32, u16)>| -> u32 {
            if let Some(&id) = dedup.get(list) {
                return id;
            }
            let id = lists.len() as u32;
            lists.push((pool.len() as u32, list.len() as u16));
            pool.extend_from_slice(list);
            dedup.insert(list.to_vec(), id);
            id
        };
        for (si, &s) in switches.iter().enumerate() {
            for (p, port) in ports[s.idx()].iter().enumerate() {
                if spec.kinds[port.peer.idx()] == NodeKind::Host {
                    if attach_of_switch[si] == NONE {
                        attach_of_switch[si] = attach.len() as u32;
                        attach.push(si);
                    }
                    let id = intern(&[p as u16], &mut pool, &mut lists);
                    host_route[port.peer.idx()] = (attach_of_switch[si], lists[id as usize].0);
                }
            }
        }
        let n_attach = attach.len();
        check_cost(ns as u64, n_attach as u64, graph.len() as u64)?;
        let ns3 = order == HopOrder::Ns3;
        // The links each search walks, in the order next hops are listed.
        let reordered;
        let adj = if ns3 {
            reordered = graph.ns3_order();
            &reordered
        } else {
            graph
        };
        // By switch index: hop distance from the attachment switch of the
        // current search, and (ns-3 order) the rank in which it was discovered.
        let mut dist = vec![u32::MAX; ns];
        let mut rank = vec![u32::MAX; if ns3 { ns } else { 0 }];
        let mut table = vec![0u32; ns * n_attach];
        let mut dist_all = vec![u16::MAX; ns * n_attach];
        let mut queue: Vec<u32> = Vec::with_capacity(ns);
        let mut hops: Vec<u16> = Vec::new();
        let mut ranked: Vec<(u32, u16)> = Vec::new();
        // The list each switch was given last: toward most attachment
        // switches a switch's next hops are the same (its up links), so the
        // list is compared with it before it is looked up by hash.
        let mut last: Vec<u32> = vec![NONE; ns];
        for (ai, &a) in attach.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[a] = 0;
            queue.clear();
            queue.push(a as u32);
            if ns3 {
                rank[a] = 0;
            }
            let mut discovered = 0u32;
            let mut head = 0;
            while let Some(&u) = queue.get(head) {
                head += 1;
                let du = dist[u as usize];
                for &(v, _) in adj.links(u as usize) {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = du + 1;
                        if ns3 {
                            discovered += 1;
                            rank[v as usize] = discovered;
                        }
                        queue.push(v);
                    }
                }
            }
            for (si, &d) in dist.iter().enumerate() {
                if d == u32::MAX {
                    continue;
                }
                dist_all[si * n_attach + ai] = d.min(u16::MAX as u32 - 1) as u16;
                if d == 0 {
                    continue;
                }
                let closer = adj
                    .links(si)
                    .iter()
                    .filter(|&&(v, _)| dist[v as usize] == d - 1);
                hops.clear();
                if ns3 {
                    ranked.clear();
                    ranked.extend(closer.map(|&(v, p)| (rank[v as usize], p)));
                    ranked.sort_unstable();
                    hops.extend(ranked.iter().map(|&(_, p)| p));
                } else {
                    hops.extend(closer.map(|&(_, p)| p));
                }
                if hops.len() > u16::MAX as usize {
                    return Err(format!(
                        "switch {} has too many equal-cost next hops",
                        switches[si]
                    ));
                }
                let prev = last[si];
                let same = prev != NONE && {
                    let (off, len) = lists[prev as usize];
                    pool[off as usize..off as usize + len as usize] == hops[..]
                };
                let id = if same {
                    prev
                } else {
                    let id = intern(&hops, &mut pool, &mut lists);
                    last[si] = id;
                    id
                };
                table[si * n_attach + ai] = id;
            }
        }
        let mut address = Vec::new();
        if !spec.extra_nics.is_empty() {
            address = (0..n as u32).collect();
            for &(nic, server) in &spec.extra_nics {
                address[nic.idx()] = server.0;
            }
        }
        let single_port = |id: u32| {
            let (off, len) = lists[id as usize];
            (len == 1).then(|| pool[off as usize] as u32)
        };
        let rules: Option<Vec<Rule>> = if fit_rules {
            (0..ns)
                .map(|si| {
                    let row = &table[si * n_attach..(si + 1) * n_attach];
                    fit_rule(row, attach_of_switch[si], single_port)
                })
                .collect()
        } else {
            None
        };
        let hosts = rules
            .as_ref()
            .and_then(|_| fit_host_rule(spec, &host_route, |off| pool[off as usize] as u32));
        // Ports 0, 1, 2, ... up to the highest a rule names, at `ident` in
        // the pool: the one-port lists the rules give.
        let ident = pool.len() as u32;
        if let Some(r) = &rules {
            let seg = r.iter().filter(|r| r.lo < r.hi).map(Rule::top_port);
            let top = seg.chain(hosts.map(|h| h.port0 + (1 << h.shift) - 1)).max();
            pool.extend((0..=top.unwrap_or(0)).map(|p| p as u16));
        }
        Ok(Routes {
            address,
            n_attach,
            attach_of_switch,
            host_route,
            rows: match (rules, u16::try_from(lists.len() - 1)) {
                (Some(r), _) => Rows::Rules(r),
                (None, Ok(_)) => Rows::Narrow(table.into_iter().map(|id| id as u16).collect()),
                (None, Err(_)) => Rows::Wide(table),
            },
            ident,
            hosts: hosts.unwrap_or_default(),
            lists,
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

    /// The address ECMP hashes for node `n` (see `address`).
    #[inline(always)]
    pub fn address(&self, n: NodeId) -> u32 {
        self.address.get(n.idx()).copied().unwrap_or(n.0)
    }

    /// Whether any static route is set.
    pub fn has_overrides(&self) -> bool {
        self.has_overrides
    }

    /// Equal-cost next-hop ports at switch number `switch_idx` toward host `dst`.
    /// Empty when `dst` is unreachable from this switch.
    #[inline(always)]
    pub fn next_hops(&self, switch_idx: u32, dst: NodeId) -> &[u16] {
        if self.has_overrides
            && let Some(&off) = self.overrides.get(&(switch_idx, dst.0))
        {
            return &self.pool[off as usize..off as usize + 1];
        }
        let (attach, own_port) = match self.hosts.of(dst.0) {
            Some((attach, port)) => (attach, self.ident + port),
            None => self.host_route[dst.idx()],
        };
        if attach == NONE {
            return &[];
        }
        if self.attach_of_switch[switch_idx as usize] == attach {
            return &self.pool[own_port as usize..own_port as usize + 1];
        }
        let id = match &self.rows {
            Rows::Rules(r) => {
                let rule = &r[switch_idx as usize];
                match rule.port(attach) {
                    Some(p) => {
                        let off = (self.ident + p) as usize;
                        return &self.pool[off..off + 1];
                    }
                    None => rule.default as usize,
                }
            }
            rows => rows.get(switch_idx as usize * self.n_attach + attach as usize),
        };
        let (off, len) = self.lists[id];
        &self.pool[off as usize..off as usize + len as usize]
    }

    /// Whether some switch has more than one equal-cost next hop toward some
    /// host (static routes aside, which pick one).
    pub fn multipath(&self) -> bool {
        self.lists.iter().any(|&(_, len)| len > 1)
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
            + self.rows.bytes()
            + self.lists.capacity() * 8
            + self.pool.capacity() * 2
            + self.dist.capacity() * 2
            + self.address.capacity() * 4
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

    /// Every (switch, host) pair's next hops against a BFS over the node
    /// graph written for the test: port order lists exactly the ports to a
    /// switch one hop closer to the host's attachment switch, in port order
    /// (parallel links each); ns-3 order lists one port per such neighbour,
    /// its last link; the attachment switch lists the host's port.
    fn check_shortest_paths(spec: crate::topology::TopologySpec) {
        use crate::topology::NodeKind;
        let mut topo = Topology::build(spec).unwrap();
        let n = topo.spec.kinds.len();
        let attach_of = |h: usize, topo: &Topology| {
            let p = &topo.ports[h][0];
            (p.peer, p.peer_port)
        };
        for ns3 in [false, true] {
            if ns3 {
                topo.use_ns3_route_order();
            }
            for h in topo.hosts.clone() {
                let (a, own) = attach_of(h.idx(), &topo);
                let mut dist = vec![u32::MAX; n];
                dist[a.idx()] = 0;
                let mut queue = std::collections::VecDeque::from([a]);
                while let Some(u) = queue.pop_front() {
                    for port in &topo.ports[u.idx()] {
                        let v = port.peer;
                        if topo.spec.kinds[v.idx()] == NodeKind::Switch && dist[v.idx()] == u32::MAX
                        {
                            dist[v.idx()] = dist[u.idx()] + 1;
                            queue.push_back(v);
                        }
                    }
                }
                for &s in &topo.switches {
                    let got = topo.routes.next_hops(topo.kind_index[s.idx()], h).to_vec();
                    let d = dist[s.idx()];
                    let closer: Vec<(NodeId, u16)> = topo.ports[s.idx()]
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| {
                            topo.spec.kinds[p.peer.idx()] == NodeKind::Switch
                                && d != u32::MAX
                                && d > 0
                                && dist[p.peer.idx()] == d - 1
                        })
                        .map(|(i, p)| (p.peer, i as u16))
                        .collect();
                    let want: Vec<u16> = if d == 0 {
                        vec![own]
                    } else if !ns3 {
                        closer.iter().map(|&(_, p)| p).collect()
                    } else {
                        let mut last: Vec<(NodeId, u16)> = Vec::new();
                        for &(v, p) in &closer {
                            match last.iter_mut().find(|e| e.0 == v) {
                                Some(e) => e.1 = p,
                                None => last.push((v, p)),
                            }
                        }
                        let mut ports: Vec<u16> = last.iter().map(|&(_, p)| p).collect();
                        ports.sort_unstable();
                        let mut sorted = got.clone();
                        sorted.sort_unstable();
                        assert_eq!(sorted, ports, "switch {s} toward host {h}, ns-3 order");
                        continue;
                    };
                    assert_eq!(got, want, "switch {s} toward host {h}");
                    assert_eq!(
                        topo.routes.hops_to_attachment(topo.kind_index[s.idx()], h),
                        (d != u32::MAX).then_some(d as u16)
                    );
                }
            }
        }
    }

    #[test]
    fn routes_are_every_shortest_path_on_a_fat_tree_and_a_mesh_with_parallel_links() {
        use crate::topology::fat_tree::{FatTreeShape, fat_tree};
        use crate::topology::{NodeKind, TopologySpec};
        let r = Rate::from_gbps(100);
        let d = Delta::from_us(1);
        check_shortest_paths(fat_tree(FatTreeShape::k_ary(4, 2), r, r, d));
        // Six switches in a ring with chords and doubled links, a seventh
        // hanging off one of them, two hosts on each of four.
        let mut t = TopologySpec::default();
        let sw: Vec<NodeId> = (0..7).map(|_| t.add_node(NodeKind::Switch)).collect();
        for (a, b) in [
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 0),
            (0, 3),
            (1, 4),
            (1, 2),
            (5, 0),
            (3, 6),
        ] {
            t.add_link(sw[a], sw[b], r, d);
        }
        for s in [0, 2, 4, 6] {
            for _ in 0..2 {
                let h = t.add_node(NodeKind::Host);
                t.add_link(h, sw[s], r, d);
            }
        }
        check_shortest_paths(t);
    }

    /// Whether `topo`'s routes are rules, and that they give every
    /// (switch, host) the next hops the table gives, in the same order, in
    /// port and ns-3 order.
    fn rules_match_the_table(mut topo: Topology) -> bool {
        use super::{HopOrder, Routes, Rows};
        let mut fitted = true;
        for order in [HopOrder::Port, HopOrder::Ns3] {
            let with = |rules| {
                Routes::compute_with(
                    &topo.spec,
                    &topo.ports,
                    &topo.switches,
                    &topo.graph,
                    order,
                    rules,
                )
                .unwrap()
            };
            let (rules, table) = (with(true), with(false));
            assert!(!matches!(table.rows, Rows::Rules(_)));
            fitted &= matches!(rules.rows, Rows::Rules(_)) && rules.hosts.hi > rules.hosts.lo;
            for si in 0..topo.switches.len() as u32 {
                for h in 0..topo.spec.kinds.len() as u32 {
                    let (r, t) = (
                        rules.next_hops(si, NodeId(h)),
                        table.next_hops(si, NodeId(h)),
                    );
                    assert_eq!(r, t, "switch {si}, host {h}, {order:?}");
                }
            }
            topo.use_ns3_route_order();
        }
        fitted
    }

    /// Generated fat-trees and leaf-spines whose groups are powers of two
    /// (any shape, oversubscribed or not) are routed by rules, their
    /// switches' rows and their hosts' racks; a k = 6 fat-tree, servers with several NICs, a dumbbell, a parking lot and the
    /// testbeds may keep tables; either way a packet's next hops are those
    /// of the table.
    #[test]
    fn routing_rules_give_the_tables_next_hops() {
        use crate::topology::fat_tree::{FatTreeShape, fat_tree, hpcc_fat_tree_default};
        use crate::topology::leaf_spine::leaf_spine;
        use crate::topology::{multi_nic, parking_lot, testbeds};
        let (r, d) = (Rate::from_gbps(100), Delta::from_us(1));
        let build = |spec| Topology::build(spec).unwrap();
        let shape = FatTreeShape {
            pods: 3,
            tors_per_pod: 4,
            aggs_per_pod: 2,
            cores_per_agg: 3,
            hosts_per_tor: 2,
        };
        for spec in [
            fat_tree(FatTreeShape::k_ary(4, 2), r, r, d),
            fat_tree(FatTreeShape::k_ary(8, 4), r, r, d),
            fat_tree(shape, r, r, d),
            hpcc_fat_tree_default(),
            leaf_spine(5, 3, 4, r, r, d),
            leaf_spine(1, 1, 2, r, r, d),
        ] {
            assert!(rules_match_the_table(build(spec)));
        }
        for spec in [
            fat_tree(FatTreeShape::k_ary(6, 3), r, r, d),
            multi_nic::multi_home(leaf_spine(4, 2, 2, r, r, d), 2),
            dumbbell(2, 2, r, r, d),
            parking_lot::parking_lot(3, r, r, d),
            testbeds::hpcc_testbed(r, r, d),
            testbeds::dcqcn_testbed(3, r, r, d),
        ] {
            rules_match_the_table(build(spec));
        }
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
