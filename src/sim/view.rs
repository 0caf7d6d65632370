//! The fabric as the observers read it ([`FabricView`]): the nodes of every
//! partition between events, each read where it lives; on MPI ranks each
//! rank gives what its partition holds and the values are summed, so every
//! rank sees the same numbers (and must ask alike).

use super::Shared;
use super::part::Part;
use crate::cc::{Congestion, CongestionControl};
use crate::ids::FlowId;
use crate::nic::Nic;
use crate::nic::qp::SendQp;
use crate::output::observers::{FabricView, FlowCounters, FlowState, PortView};
use crate::switch::SwitchPort;
use crate::topology::NodeId;

/// The dispatcher's read-only view of its partitions.
pub(super) struct Fabric<'a> {
    pub sh: &'a Shared,
    pub parts: &'a [Box<Part>],
    /// The MPI ranks of a run on them.
    pub ranks: Option<&'a super::parallel::Ranks>,
}

impl Fabric<'_> {
    /// The NIC of host `node`, wherever it is.
    fn nic(&self, node: NodeId) -> &Nic {
        let l = self.sh.host_local(node);
        &self.parts[self.sh.node_part[node.idx()] as usize].nics[l]
    }

    fn switch_port(&self, node: NodeId, port: u16) -> &SwitchPort {
        let l = self.sh.switch_local(node);
        &self.parts[self.sh.node_part[node.idx()] as usize].switches[l].ports[port as usize]
    }

    /// Active flows in host order (each NIC's in its order), as one thread
    /// keeps them.
    fn active_flows(&self) -> Vec<FlowId> {
        (self.sh.cfg.topo.hosts.iter())
            .flat_map(|&h| self.nic(h).active.iter().map(|a| a.fid))
            .collect()
    }

    /// A flow's sending queue pair (at its source NIC), and the bytes its
    /// receiver has in order and its receiver's classification (at its
    /// destination NIC): the observers see both ends.
    fn flow_ends(&self, fid: FlowId) -> (&SendQp, (u64, Congestion)) {
        let (f, spec) = (&self.sh.flows[fid.idx()], &self.sh.cfg.flows[fid.idx()]);
        let send = self.nic(spec.src).send[f.send_slot.idx()]
            .as_deref()
            .expect("sampled flows have a sender");
        (send, self.nic(spec.dst).received(self.sh.nic_env(), fid))
    }
}

impl FabricView for Fabric<'_> {
    fn port_values(
        &self,
        ports: &[(NodeId, u16)],
        width: usize,
        fill: &dyn Fn(PortView<'_>, &mut [u64]),
    ) -> Vec<u64> {
        let mut v = vec![0u64; ports.len() * width];
        if let Some(r) = self.ranks {
            for (k, &(node, port)) in ports.iter().enumerate() {
                if self.sh.node_part[node.idx()] as usize == r.rank() {
                    let sp = self.switch_port(node, port).view();
                    fill(sp, &mut v[k * width..(k + 1) * width]);
                }
            }
            return r.all_sum(&v);
        }
        for (k, &(node, port)) in ports.iter().enumerate() {
            let sp = self.switch_port(node, port).view();
            fill(sp, &mut v[k * width..(k + 1) * width]);
        }
        v
    }

    fn flow_counters(&self, selected: &dyn Fn(FlowId) -> bool) -> Vec<(FlowId, FlowCounters)> {
        if let Some(r) = self.ranks {
            return self.flow_counters_ranks(r, selected);
        }
        let mut fids: Vec<FlowId> = (self.active_flows().into_iter())
            .filter(|&f| selected(f))
            .collect();
        fids.sort_unstable();
        (fids.into_iter())
            .map(|fid| {
                let (qp, (delivered, _)) = self.flow_ends(fid);
                let c = FlowCounters {
                    rate: qp.cc.rate(),
                    window: qp.cc.window(),
                    sent: qp.high_sent + qp.retx_bytes,
                    delivered,
                };
                (fid, c)
            })
            .collect()
    }

    fn flow_states(&self) -> Vec<(FlowId, FlowState)> {
        assert!(
            self.ranks.is_none(),
            "rate traces are not kept on MPI ranks"
        );
        (self.active_flows().into_iter())
            .map(|fid| {
                let (qp, (delivered, rx_class)) = self.flow_ends(fid);
                let s = FlowState {
                    rate: qp.cc.rate(),
                    window: qp.cc.window(),
                    delivered,
                    congestion: match rx_class {
                        Congestion::Unknown => qp.cc.congestion(),
                        c => c,
                    },
                };
                (fid, s)
            })
            .collect()
    }
}

impl Fabric<'_> {
    /// [`FabricView::flow_counters`] on MPI ranks: the active flows are
    /// gathered from every rank, and each flow's counters summed from its
    /// sender's rank (rate, window, bytes sent) and its receiver's (bytes
    /// delivered).
    fn flow_counters_ranks(
        &self,
        r: &super::parallel::Ranks,
        selected: &dyn Fn(FlowId) -> bool,
    ) -> Vec<(FlowId, FlowCounters)> {
        let mine = (self.parts[r.rank()].nics.iter())
            .flat_map(|n| n.active.iter().map(|a| a.fid))
            .filter(|&f| selected(f))
            .collect::<Vec<FlowId>>();
        let mut fids = r.all_gather_obj(&mine).concat();
        fids.sort_unstable();
        const N: usize = 4;
        let mut v = vec![0u64; fids.len() * N];
        let me = r.rank() as u16;
        for (k, &fid) in fids.iter().enumerate() {
            let (f, spec) = (&self.sh.flows[fid.idx()], &self.sh.cfg.flows[fid.idx()]);
            if self.sh.node_part[spec.src.idx()] == me {
                let qp = self.nic(spec.src).send[f.send_slot.idx()]
                    .as_deref()
                    .expect("sampled flows have a sender");
                v[k * N] = qp.cc.rate().0;
                v[k * N + 1] = qp.cc.window().map_or(0, |w| w + 1);
                v[k * N + 2] = qp.high_sent + qp.retx_bytes;
            }
            if self.sh.node_part[spec.dst.idx()] == me {
                v[k * N + 3] = self.nic(spec.dst).received(self.sh.nic_env(), fid).0;
            }
        }
        let v = r.all_sum(&v);
        (fids.into_iter().enumerate())
            .map(|(k, fid)| {
                let c = FlowCounters {
                    rate: crate::units::Rate(v[k * N]),
                    window: v[k * N + 1].checked_sub(1),
                    sent: v[k * N + 2],
                    delivered: v[k * N + 3],
                };
                (fid, c)
            })
            .collect()
    }
}
