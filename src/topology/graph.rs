//! The switches' links to each other, by switch index: what the searches over
//! the fabric walk (the routes, `topology::routing`; the largest base RTT,
//! `config::paths::ecmp`). Host ports are left out and neighbours are switch indices,
//! so a search from one switch reads arrays the size of the switch count, not
//! of the node count: a k = 64 fat-tree has 262,144 hosts but 5,120 switches
//! (docs/topologies-and-workloads.md, size limits).

use super::{NodeId, NodeKind, PortInfo, TopologySpec};

/// Compressed adjacency: switch `s`'s links are `edges[start[s]..start[s + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct SwitchGraph {
    start: Vec<u32>,
    /// `(the neighbour's switch index, the port of this switch)`, in port order
    /// (parallel links each; [`Self::ns3_order`] makes ns-3's order).
    edges: Vec<(u32, u16)>,
}

impl SwitchGraph {
    pub fn new(
        spec: &TopologySpec,
        ports: &[Vec<PortInfo>],
        switches: &[NodeId],
        kind_index: &[u32],
    ) -> SwitchGraph {
        let mut start = Vec::with_capacity(switches.len() + 1);
        let mut edges = Vec::new();
        start.push(0);
        for &s in switches {
            for (p, port) in ports[s.idx()].iter().enumerate() {
                if spec.kinds[port.peer.idx()] == NodeKind::Switch {
                    edges.push((kind_index[port.peer.idx()], p as u16));
                }
            }
            start.push(edges.len() as u32);
        }
        SwitchGraph { start, edges }
    }

    /// The same links as the HPCC ns-3 simulator's BFS visits them (third.cc
    /// `CalculateRoute`; `topology::routing` says why): one link per
    /// neighbour, the last one listed (its map is keyed by neighbour),
    /// neighbours by descending node id (switch indices follow node ids).
    pub fn ns3_order(&self) -> SwitchGraph {
        let switches = self.start.len().saturating_sub(1);
        let mut start = Vec::with_capacity(switches + 1);
        let mut edges: Vec<(u32, u16)> = Vec::with_capacity(self.edges.len());
        let mut mine: Vec<(u32, u16)> = Vec::new();
        start.push(0);
        for s in 0..switches {
            mine.clear();
            mine.extend_from_slice(self.links(s));
            // Descending neighbour, and for each its highest (last) port first,
            // which is the one kept.
            mine.sort_unstable_by_key(|&(v, p)| std::cmp::Reverse((v, p)));
            mine.dedup_by_key(|e| e.0);
            edges.extend_from_slice(&mine);
            start.push(edges.len() as u32);
        }
        SwitchGraph { start, edges }
    }

    /// Switch `s`'s links to other switches: in port order, or in ns-3's
    /// for a graph from [`Self::ns3_order`].
    #[inline]
    pub fn links(&self, s: usize) -> &[(u32, u16)] {
        &self.edges[self.range(s)]
    }

    /// Where switch `s`'s links sit among all links ([`Self::len`]), for
    /// arrays with a value per link.
    #[inline]
    pub fn range(&self, s: usize) -> std::ops::Range<usize> {
        self.start[s] as usize..self.start[s + 1] as usize
    }

    /// Switch-to-switch ports, over all switches.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    pub fn memory_bytes(&self) -> usize {
        self.start.capacity() * 4 + self.edges.capacity() * 8
    }
}
