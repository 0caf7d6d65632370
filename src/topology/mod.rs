//! Topology: hosts and switches joined by full-duplex links.
//!
//! A [`TopologySpec`] is the plain description (node kinds and a link list) that
//! generators and file readers produce. [`Topology::build`] validates it and turns
//! it into ports: every link gives one port at each end, numbered in link order.
//! Every `Host` node is one NIC port with exactly one link. A server with several
//! NICs (a dual-homed host, a multi-rail AI server) is several `Host` nodes, its
//! first NIC standing for the server: [`TopologySpec::extra_nics`] lists the others,
//! and [`Topology::nics`] / [`Topology::server`] map between the two. The NICs of a
//! server share nothing but its name: each has its own queues, pacing and PFC, as
//! in the HPCC ns-3 simulator, and a flow is placed on one NIC at each end
//! (`config::nics`).
//! Routing (equal-cost shortest paths for ECMP) lives in [`routing`].
//!
//! Generators: [`builders`] (star, dumbbell), [`fat_tree`] (k-ary and the HPCC
//! fabric), [`leaf_spine`], [`testbeds`] (DCQCN and HPCC testbeds), [`parking_lot`];
//! files: [`ns3`]. docs/topologies-and-workloads.md lists their node-id layouts.

pub mod builders;
pub mod fat_tree;
pub mod fat_tree_iso;
pub mod graph;
pub mod leaf_spine;
pub mod multi_nic;
pub mod ns3;
pub mod parking_lot;
pub mod routing;
pub mod testbeds;

use crate::units::{Delta, Rate};

/// Index of a node (host or switch) in the topology (defined with the other ids).
pub use crate::ids::NodeId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

/// One full-duplex link; both directions have the same rate, delay and loss.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: NodeId,
    pub b: NodeId,
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Delta,
    /// Probability that a packet is lost on this link (each direction), in [0, 1).
    pub loss: f64,
}

/// A topology as generators and files describe it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopologySpec {
    pub kinds: Vec<NodeKind>,
    pub links: Vec<LinkSpec>,
    /// Optional human names per node (e.g. "T1", "L2"); empty means numbers.
    pub names: Vec<String>,
    /// Servers with several NICs: every NIC after a server's first, as (that
    /// NIC, the server's first NIC), in the server's NIC order. Empty when every
    /// server has one NIC. These NICs are the last nodes, so that the other
    /// nodes keep their ids when a file names each server once (ns-3's format).
    pub extra_nics: Vec<(NodeId, NodeId)>,
}

impl TopologySpec {
    pub fn add_node(&mut self, kind: NodeKind) -> NodeId {
        self.kinds.push(kind);
        NodeId(self.kinds.len() as u32 - 1)
    }
    /// Adds a node with a name (generators name every node, so `names` stays
    /// index-aligned with `kinds`).
    pub fn add_named(&mut self, kind: NodeKind, name: String) -> NodeId {
        debug_assert_eq!(
            self.names.len(),
            self.kinds.len(),
            "names must cover every node"
        );
        self.names.push(name);
        self.add_node(kind)
    }
    pub fn add_link(&mut self, a: NodeId, b: NodeId, rate: Rate, delay: Delta) {
        self.links.push(LinkSpec {
            a,
            b,
            rate,
            delay,
            loss: 0.0,
        });
    }
    pub fn hosts(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| **k == NodeKind::Host)
            .map(|(i, _)| NodeId(i as u32))
    }
    pub fn num_hosts(&self) -> usize {
        self.kinds.iter().filter(|k| **k == NodeKind::Host).count()
    }
    pub fn num_switches(&self) -> usize {
        self.kinds.len() - self.num_hosts()
    }

    /// Checks the physical facts every run relies on. The message names the
    /// offending link or node; callers add the file name.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.kinds.len();
        if self.num_hosts() < 2 {
            return Err(format!(
                "the topology has {} host(s); at least 2 are needed",
                self.num_hosts()
            ));
        }
        if self.num_switches() == 0 {
            return Err("the topology has no switch; hosts must connect through switches".into());
        }
        let mut host_links = vec![0u32; n];
        for (i, l) in self.links.iter().enumerate() {
            let what = format!("link {i} ({} - {})", l.a, l.b);
            if l.a.idx() >= n || l.b.idx() >= n {
                return Err(format!(
                    "{what}: node id out of range (valid: 0..{})",
                    n - 1
                ));
            }
            if l.a == l.b {
                return Err(format!("{what}: connects a node to itself"));
            }
            if l.rate.bps() == 0 {
                return Err(format!("{what}: rate must be > 0, e.g. \"100Gbps\""));
            }
            if !(0.0..1.0).contains(&l.loss) {
                return Err(format!("{what}: loss rate {} must be in [0, 1)", l.loss));
            }
            for end in [l.a, l.b] {
                if self.kinds[end.idx()] == NodeKind::Host {
                    host_links[end.idx()] += 1;
                }
            }
            if self.kinds[l.a.idx()] == NodeKind::Host && self.kinds[l.b.idx()] == NodeKind::Host {
                return Err(format!(
                    "{what}: joins two hosts; hosts must connect to a switch"
                ));
            }
        }
        for h in self.hosts() {
            match host_links[h.idx()] {
                1 => {}
                0 => {
                    return Err(format!(
                        "host {h} has no link (each host needs exactly one link to a switch)"
                    ));
                }
                c => {
                    return Err(format!(
                        "host {h} has {c} links; each host has one NIC port, so exactly one link"
                    ));
                }
            }
        }
        self.validate_extra_nics()?;
        // Connectivity over all nodes.
        let mut adj = vec![Vec::new(); n];
        for l in &self.links {
            adj[l.a.idx()].push(l.b.idx());
            adj[l.b.idx()].push(l.a.idx());
        }
        let start = self.hosts().next().map(|h| h.idx()).unwrap_or(0);
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(u) = stack.pop() {
            for &v in &adj[u] {
                if !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        if let Some(h) = self.hosts().find(|h| !seen[h.idx()]) {
            return Err(format!(
                "the topology is disconnected: host {h} cannot reach host {start}"
            ));
        }
        Ok(())
    }
}

impl TopologySpec {
    /// Every extra NIC is a host of its own, listed once, among the last
    /// nodes, and belongs to a server that is not itself an extra NIC.
    fn validate_extra_nics(&self) -> Result<(), String> {
        let n = self.kinds.len();
        let first = n - self.extra_nics.len().min(n);
        if let Some(&(nic, _)) = self.extra_nics.iter().find(|e| e.0.idx() < first) {
            return Err(format!(
                "extra NIC {nic} comes before node {first}; a server's further NICs are the last nodes"
            ));
        }
        let is_host = |v: NodeId| v.idx() < n && self.kinds[v.idx()] == NodeKind::Host;
        let mut extra = vec![false; n];
        for &(nic, _) in &self.extra_nics {
            if !is_host(nic) || std::mem::replace(&mut extra[nic.idx()], true) {
                return Err(format!(
                    "extra NIC {nic} is not a host or is listed twice (each NIC is a host with one link)"
                ));
            }
        }
        for &(nic, server) in &self.extra_nics {
            if !is_host(server) || extra[server.idx()] {
                return Err(format!(
                    "extra NIC {nic} belongs to {server}, which is not a server's first NIC"
                ));
            }
        }
        Ok(())
    }
}

/// Every multi-NIC server's NICs, its first first (each NIC's server is its
/// address: [`routing::Routes::address`]).
#[derive(Clone, Debug, Default)]
pub struct ServerNics {
    nics: std::collections::HashMap<NodeId, Vec<NodeId>>,
}

impl ServerNics {
    fn new(extra: &[(NodeId, NodeId)]) -> ServerNics {
        let mut s = ServerNics::default();
        for &(nic, server) in extra {
            s.nics
                .entry(server)
                .or_insert_with(|| vec![server])
                .push(nic);
        }
        s
    }
}

/// One port of a node: the local end of a link.
#[derive(Clone, Debug)]
pub struct PortInfo {
    pub peer: NodeId,
    pub peer_port: u16,
    pub rate: Rate,
    pub delay: Delta,
    pub loss: f64,
}

/// Each node's hop distance from the nearest of `hosts` (breadth first).
fn levels(ports: &[Vec<PortInfo>], hosts: &[NodeId]) -> Vec<u32> {
    let mut level = vec![u32::MAX; ports.len()];
    let mut queue: std::collections::VecDeque<NodeId> = hosts.iter().copied().collect();
    for h in hosts {
        level[h.idx()] = 0;
    }
    while let Some(n) = queue.pop_front() {
        for p in &ports[n.idx()] {
            if level[p.peer.idx()] == u32::MAX {
                level[p.peer.idx()] = level[n.idx()] + 1;
                queue.push_back(p.peer);
            }
        }
    }
    level
}

/// A validated topology with ports and routes.
#[derive(Clone, Debug)]
pub struct Topology {
    pub spec: TopologySpec,
    /// Ports of each node, indexed by node id.
    pub ports: Vec<Vec<PortInfo>>,
    /// Dense index of each node among its kind (host index or switch index).
    pub kind_index: Vec<u32>,
    pub hosts: Vec<NodeId>,
    pub switches: Vec<NodeId>,
    /// The switches' links to each other, by switch index.
    pub graph: graph::SwitchGraph,
    pub routes: routing::Routes,
    /// Each node's hop distance from the nearest host (hosts 0, their
    /// switches 1, ...; `u32::MAX` if no host is reachable): the tier the
    /// symmetric ECMP hash seeds by.
    pub levels: Vec<u32>,
    /// Servers with several NICs ([`TopologySpec::extra_nics`]).
    pub server_nics: ServerNics,
}

impl Topology {
    /// Validates `spec` and builds ports and routes.
    pub fn build(spec: TopologySpec) -> Result<Topology, String> {
        spec.validate()?;
        let n = spec.kinds.len();
        let mut ports: Vec<Vec<PortInfo>> = vec![Vec::new(); n];
        for (i, l) in spec.links.iter().enumerate() {
            let pa = ports[l.a.idx()].len();
            let pb = ports[l.b.idx()].len();
            for (node, n) in [(l.a, pa), (l.b, pb)] {
                if n as u64 >= crate::limits::MAX_PORTS_PER_NODE {
                    return Err(format!(
                        "link {i} ({} - {}): node {node} would have more than {} ports",
                        l.a,
                        l.b,
                        crate::limits::MAX_PORTS_PER_NODE
                    ));
                }
            }
            ports[l.a.idx()].push(PortInfo {
                peer: l.b,
                peer_port: pb as u16,
                rate: l.rate,
                delay: l.delay,
                loss: l.loss,
            });
            ports[l.b.idx()].push(PortInfo {
                peer: l.a,
                peer_port: pa as u16,
                rate: l.rate,
                delay: l.delay,
                loss: l.loss,
            });
        }
        let mut kind_index = vec![0u32; n];
        let mut hosts = Vec::new();
        let mut switches = Vec::new();
        for (i, k) in spec.kinds.iter().enumerate() {
            match k {
                NodeKind::Host => {
                    kind_index[i] = hosts.len() as u32;
                    hosts.push(NodeId(i as u32));
                }
                NodeKind::Switch => {
                    kind_index[i] = switches.len() as u32;
                    switches.push(NodeId(i as u32));
                }
            }
        }
        let graph = graph::SwitchGraph::new(&spec, &ports, &switches, &kind_index);
        let routes =
            routing::Routes::compute(&spec, &ports, &switches, &graph, routing::HopOrder::Port)?;
        let levels = levels(&ports, &hosts);
        let server_nics = ServerNics::new(&spec.extra_nics);
        Ok(Topology {
            server_nics,
            spec,
            ports,
            kind_index,
            hosts,
            switches,
            graph,
            routes,
            levels,
        })
    }

    /// Recomputes the routes with next hops in the ns-3 simulator's order
    /// ([`routing::HopOrder::Ns3`]).
    pub fn use_ns3_route_order(&mut self) {
        self.routes = routing::Routes::compute(
            &self.spec,
            &self.ports,
            &self.switches,
            &self.graph,
            routing::HopOrder::Ns3,
        )
        .expect("routes that computed in port order compute in ns-3 order");
    }

    pub fn kind(&self, n: NodeId) -> NodeKind {
        self.spec.kinds[n.idx()]
    }
    pub fn is_host(&self, n: NodeId) -> bool {
        self.kind(n) == NodeKind::Host
    }
    /// Host `n`'s index among hosts (its NIC).
    pub fn host_idx(&self, n: NodeId) -> crate::ids::HostIdx {
        debug_assert!(self.is_host(n), "node {n} is not a host");
        crate::ids::HostIdx(self.kind_index[n.idx()])
    }
    /// Switch `n`'s index among switches.
    pub fn switch_idx(&self, n: NodeId) -> crate::ids::SwitchIdx {
        debug_assert!(!self.is_host(n), "node {n} is not a switch");
        crate::ids::SwitchIdx(self.kind_index[n.idx()])
    }
    /// Every switch port as (switch, port), switches in id order.
    pub fn switch_ports(&self) -> Vec<(NodeId, u16)> {
        (self.switches.iter())
            .flat_map(|&s| (0..self.ports[s.idx()].len() as u16).map(move |p| (s, p)))
            .collect()
    }
    /// Whether some server has several NICs.
    pub fn multi_nic(&self) -> bool {
        !self.spec.extra_nics.is_empty()
    }
    /// The server NIC (host node) `n` belongs to: its first NIC, which names it.
    pub fn server(&self, n: NodeId) -> NodeId {
        NodeId(self.routes.address(n))
    }
    /// Server `s`'s NICs, its first (`s` itself) first.
    pub fn nics(&self, s: NodeId) -> &[NodeId] {
        match self.server_nics.nics.get(&s) {
            Some(v) => v,
            None => std::slice::from_ref(&self.hosts[self.kind_index[s.idx()] as usize]),
        }
    }
    /// Links between NICs `a` and `b` on a shortest path, if `b` is reachable.
    pub fn nic_distance(&self, a: NodeId, b: NodeId) -> Option<u32> {
        let (sa, sb) = (self.host_port(a).peer, self.host_port(b).peer);
        if a == b {
            return Some(0);
        }
        if sa == sb {
            return Some(2);
        }
        let d = self
            .routes
            .hops_to_attachment(self.kind_index[sa.idx()], b)?;
        Some(d as u32 + 2)
    }
    /// The servers (hosts that are not an extra NIC), in id order.
    pub fn servers(&self) -> Vec<NodeId> {
        (self.hosts.iter().copied())
            .filter(|&h| self.server(h) == h)
            .collect()
    }
    /// The NIC's only port.
    pub fn host_port(&self, h: NodeId) -> &PortInfo {
        &self.ports[h.idx()][0]
    }
    pub fn name(&self, n: NodeId) -> String {
        self.spec
            .names
            .get(n.idx())
            .filter(|s| !s.is_empty())
            .cloned()
            .unwrap_or_else(|| n.to_string())
    }
    /// A value for each link of `graph` (this topology's [`graph::SwitchGraph`]
    /// or one reordered from it), in the graph's link order, from the port
    /// the link leaves by: arrays a search over the graph reads beside it.
    pub fn per_link<T>(&self, graph: &graph::SwitchGraph, f: impl Fn(&PortInfo) -> T) -> Vec<T> {
        let mut values = Vec::with_capacity(graph.len());
        for (s, &node) in self.switches.iter().enumerate() {
            let ports = &self.ports[node.idx()];
            values.extend(graph.links(s).iter().map(|&(_, p)| f(&ports[p as usize])));
        }
        values
    }

    /// Approximate memory held by the topology and its routes, in bytes.
    pub fn memory_bytes(&self) -> usize {
        let ports: usize = self
            .ports
            .iter()
            .map(|p| p.capacity() * std::mem::size_of::<PortInfo>())
            .sum();
        ports
            + self.graph.memory_bytes()
            + self.routes.memory_bytes()
            + self.spec.links.capacity() * std::mem::size_of::<LinkSpec>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;

    #[test]
    fn star_builds_one_port_per_host_and_one_per_host_at_the_switch() {
        let t = Topology::build(star(4, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        assert_eq!(t.hosts.len(), 4);
        assert_eq!(t.switches.len(), 1);
        for &h in &t.hosts {
            assert_eq!(t.ports[h.idx()].len(), 1);
        }
        assert_eq!(t.ports[t.switches[0].idx()].len(), 4);
    }

    #[test]
    fn disconnected_topologies_are_rejected() {
        let mut s = star(2, Rate::from_gbps(100), Delta::from_us(1));
        let sw = s.add_node(NodeKind::Switch);
        let h = s.add_node(NodeKind::Host);
        s.add_link(sw, h, Rate::from_gbps(100), Delta::from_us(1));
        let err = Topology::build(s).unwrap_err();
        assert!(err.contains("disconnected"), "{err}");
    }

    #[test]
    fn zero_rate_links_and_self_links_are_rejected() {
        let mut s = star(2, Rate::from_gbps(100), Delta::from_us(1));
        s.links[0].rate = Rate(0);
        assert!(s.validate().unwrap_err().contains("rate must be > 0"));
        let mut s = star(2, Rate::from_gbps(100), Delta::from_us(1));
        s.links[0].b = s.links[0].a;
        assert!(s.validate().unwrap_err().contains("itself"));
    }
}
