//! The samplers: queue lengths, link utilization, flow rates, the ns-3 qlen
//! monitor, the rate trace. Each reads the nodes through the dispatcher's
//! read-only view (with MPI, summed over the ranks) and writes to the recorder.

use super::Sim;
use crate::config::RunConfig;
use crate::error::Error;
use crate::ids::FlowId;
use crate::node::{Event, Sampler};
use crate::output::RunInfo;
use crate::switch::SwitchPort;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};

impl Sim {
    pub(super) fn run_info(cfg: &RunConfig) -> RunInfo<'_> {
        RunInfo {
            plan: &cfg.output,
            flows: &cfg.flows,
            topo: &cfg.topo,
            source: &cfg.source,
            scenario_text: &cfg.scenario_text,
        }
    }

    /// Sets up the recorders `[output]` asks for, on the watched ports.
    pub(super) fn configure_recorders(&mut self) -> Result<(), Error> {
        let watched = self
            .watched_ports
            .iter()
            .map(|&(node, port)| crate::output::WatchedPort {
                gid: self.switch_port(node, port).eg.gid,
                node,
                port,
            })
            .collect();
        let n_egress = self.sh.egress_owner.len();
        #[cfg(feature = "mpi")]
        if self.ranks.as_ref().is_some_and(|r| r.rank != 0) {
            let info = Self::run_info(&self.sh.cfg);
            self.rec.configure_mirror(info, n_egress, watched);
            return Ok(());
        }
        self.rec
            .configure(Self::run_info(&self.sh.cfg), n_egress, watched)
    }

    pub(super) fn sample(&mut self, now: SimTime, what: Sampler) {
        let iv = match what {
            Sampler::Queues => {
                let bytes = self.port_values(&self.watched_ports, |sp| [sp.bytes]);
                self.rec
                    .queue_samples(now, &self.watched_ports, bytes.as_flattened());
                self.sh.cfg.output.queue_interval
            }
            Sampler::Links => {
                self.sample_links(now);
                self.sh.cfg.output.link_utilization
            }
            Sampler::Ns3Qlen => {
                // third.cc monitor_buffer: every switch egress port, every 100 ns.
                let end = self.sh.cfg.output.qlen_mon.map_or(now, |(_, e)| e);
                let all = self.sh.cfg.topo.switch_ports();
                let bytes = self.port_values(&all, |sp| [sp.bytes]);
                let ports = all.iter().zip(bytes).map(|(&(n, p), [b])| (n, p, b));
                self.rec.ns3_qlen_sample(now, ports, now >= end);
                (now < end).then_some(Delta::from_ns(crate::output::ns3::QLEN_INTERVAL_NS))
            }
            Sampler::Flows | Sampler::Rates => {
                self.sample_flows(now);
                self.sh.cfg.output.flow_rates.as_ref().map(|r| r.1)
            }
            Sampler::Deadlock => unreachable!("handled by global_event"),
        };
        if let Some(iv) = iv {
            self.gq
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }

    pub(super) fn sample_links(&mut self, now: SimTime) {
        let values = self.port_values(&self.watched_ports, |sp| {
            let eg = &sp.eg;
            let in_progress = if eg.busy_until > now {
                eg.rate.bytes_in(eg.busy_until.since(now))
            } else {
                0
            };
            [
                eg.tx_bytes.saturating_sub(in_progress),
                eg.tx_bytes,
                eg.tx_data_bytes,
            ]
        });
        let counters: Vec<crate::output::PortCounters> = self
            .watched_ports
            .iter()
            .zip(values)
            .map(
                |(&(node, port), [done, tx, data])| crate::output::PortCounters {
                    node,
                    port,
                    rate: self.switch_port(node, port).eg.rate,
                    done_bytes: done,
                    tx_bytes: tx,
                    data_bytes: data,
                },
            )
            .collect();
        self.rec.link_util_sample(now, &counters);
    }

    /// `f` of each switch port of `ports`, read in the partition that has it
    /// (with MPI, summed over the ranks: each gives its own ports' and zeros).
    pub(super) fn port_values<const N: usize>(
        &self,
        ports: &[(NodeId, u16)],
        f: impl Fn(&SwitchPort) -> [u64; N],
    ) -> Vec<[u64; N]> {
        #[cfg(feature = "mpi")]
        if let Some(r) = &self.ranks {
            let mut v = vec![0u64; ports.len() * N];
            for (k, &(node, port)) in ports.iter().enumerate() {
                if self.sh.node_part[node.idx()] as usize == r.rank {
                    v[k * N..(k + 1) * N].copy_from_slice(&f(self.switch_port(node, port)));
                }
            }
            return r
                .all_sum(&v)
                .chunks_exact(N)
                .map(|c| c.try_into().expect("chunks of N"))
                .collect();
        }
        ports
            .iter()
            .map(|&(node, port)| f(self.switch_port(node, port)))
            .collect()
    }

    /// Active flows in host order (each NIC's in its order), as one thread
    /// keeps them.
    pub(super) fn active_flows(&self) -> Vec<FlowId> {
        self.sh
            .cfg
            .topo
            .hosts
            .iter()
            .flat_map(|&h| self.nic(h).active.iter().map(|a| a.fid))
            .collect()
    }

    pub(super) fn sample_flows(&mut self, now: SimTime) {
        #[cfg(feature = "mpi")]
        if let Some(r) = self.ranks.clone() {
            return self.sample_flows_ranks(&r, now);
        }
        let mut fids: Vec<FlowId> = self
            .active_flows()
            .into_iter()
            .filter(|&f| self.rec.flow_rate_on(f))
            .collect();
        fids.sort_unstable();
        for fid in fids {
            let c = self.flow_counters(fid);
            self.rec.flow_rate(now, fid, c);
        }
    }

    /// [`Self::sample_flows`] on MPI ranks: the active flows are gathered
    /// from every rank, and each flow's counters summed from its sender's
    /// rank (rate, window, bytes sent) and its receiver's (bytes delivered).
    #[cfg(feature = "mpi")]
    pub(super) fn sample_flows_ranks(&mut self, r: &super::parallel::ranks::Ranks, now: SimTime) {
        use crate::cc::CongestionControl;
        let mine = self.parts[r.rank]
            .nics
            .iter()
            .flat_map(|n| n.active.iter().map(|a| a.fid))
            .filter(|&f| self.rec.flow_rate_on(f))
            .collect::<Vec<FlowId>>();
        let mut fids = r.all_gather_obj(&mine).concat();
        fids.sort_unstable();
        const N: usize = 4;
        let mut v = vec![0u64; fids.len() * N];
        let me = r.rank as u16;
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
        for (k, fid) in fids.into_iter().enumerate() {
            let c = crate::output::FlowCounters {
                rate: crate::units::Rate(v[k * N]),
                window: v[k * N + 1].checked_sub(1),
                sent: v[k * N + 2],
                delivered: v[k * N + 3],
            };
            self.rec.flow_rate(now, fid, c);
        }
    }

    /// A flow's sending queue pair (at its source NIC), and the bytes its
    /// receiver has in order and its receiver's classification (at its
    /// destination NIC): the samplers observe both ends.
    pub(super) fn flow_ends(
        &self,
        fid: FlowId,
    ) -> (&crate::nic::qp::SendQp, (u64, crate::cc::Congestion)) {
        let (f, spec) = (&self.sh.flows[fid.idx()], &self.sh.cfg.flows[fid.idx()]);
        let send = self.nic(spec.src).send[f.send_slot.idx()]
            .as_deref()
            .expect("sampled flows have a sender");
        (send, self.nic(spec.dst).received(self.sh.nic_env(), fid))
    }

    pub(super) fn flow_counters(&self, fid: FlowId) -> crate::output::FlowCounters {
        use crate::cc::CongestionControl;
        let (qp, (delivered, _)) = self.flow_ends(fid);
        crate::output::FlowCounters {
            rate: qp.cc.rate(),
            window: qp.cc.window(),
            sent: qp.high_sent + qp.retx_bytes,
            delivered,
        }
    }

    pub(super) fn rate_sample(&mut self, now: SimTime) {
        use crate::cc::CongestionControl;
        for fid in self.active_flows() {
            let (qp, (delivered, rx_class)) = self.flow_ends(fid);
            self.rec.rate_sample(crate::output::RateSample {
                time: now,
                flow: fid.0,
                rate: qp.cc.rate(),
                window: qp.cc.window(),
                delivered,
                congestion: match rx_class {
                    crate::cc::Congestion::Unknown => qp.cc.congestion(),
                    c => c,
                },
            });
        }
        if let Some(iv) = self.trace_rates {
            let what = Sampler::Rates;
            self.gq
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }
}
