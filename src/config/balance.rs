//! What a parallel run's partitions are balanced by (`run.balance`,
//! docs/parallel.md "How partitions are chosen"; the partitioning itself is
//! `crate::sim::parallel::placement`). No output depends on it.

use crate::topology::{NodeId, Topology};
use crate::workload::FlowSpec;

/// What partitions are balanced by (`run.balance`, docs/scenario.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Balance {
    /// Each host weighs 1.
    Hosts,
    /// Each host weighs 1 plus the packets of the flows it sends and receives.
    #[default]
    Traffic,
}

impl Balance {
    /// Each node's weight (switches weigh 0: they go where their neighbours
    /// are, step 4).
    pub fn weights(self, topo: &Topology, flows: &[FlowSpec], mtu: u32) -> Vec<u64> {
        let mut w: Vec<u64> = (0..topo.spec.kinds.len())
            .map(|i| topo.is_host(NodeId::from_idx(i)) as u64)
            .collect();
        if self == Balance::Traffic {
            let mtu = u64::from(mtu.max(1));
            for f in flows {
                let packets = f.size.div_ceil(mtu).max(1);
                w[f.src.idx()] += packets;
                w[f.dst.idx()] += packets;
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;
    use crate::units::{Delta, Rate, SimTime};

    #[test]
    fn a_host_weighs_one_plus_the_packets_it_sends_and_receives() {
        let t = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let (a, b) = (t.hosts[0], t.hosts[1]);
        let flow = |size| FlowSpec {
            src: a,
            dst: b,
            size,
            start: SimTime(0),
            class: 3,
            dport: 100,
        };
        // 1000 B packets: 2,500 B is 3 packets, an empty message 1.
        let flows = [flow(2_500), flow(0)];
        let w = Balance::Traffic.weights(&t, &flows, 1000);
        assert_eq!(w[a.idx()], 1 + 3 + 1);
        assert_eq!(w[b.idx()], 1 + 3 + 1);
        assert_eq!(w[t.hosts[2].idx()], 1);
        assert_eq!(
            w[t.switches[0].idx()],
            0,
            "switches go with their neighbours"
        );
        let w = Balance::Hosts.weights(&t, &flows, 1000);
        assert_eq!(
            (w[a.idx()], w[t.hosts[2].idx()], w[t.switches[0].idx()]),
            (1, 1, 0)
        );
    }
}
