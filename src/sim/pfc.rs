//! PFC across the fabric, the dispatcher's part: the switch timer's deadlock
//! confirmation, deadlock detection (a search over paused queues of all
//! switches, which no single node may do), and the end-of-run PFC diagnostics
//! files (rendered by `output::pfc_report`). Sending and receiving PFC frames is the nodes' business
//! (`switch::pause`, `node::Ctx::receive_pfc`).

use super::{Sim, Slot};
use crate::error::Error;
use crate::ids::{EgressId, SwitchIdx};
use crate::node::{Event, Sampler};
use crate::output::pfc_diag::{Candidate, Deadlock, QueueRef};
use crate::output::pfc_report::{self, PortPauses};
use crate::output::{PfcHeadline, RunOutputs};
use crate::port::{CLASSES, Egress};
use crate::stats::Stats;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};

impl Sim {
    fn egress(&self, gid: EgressId) -> &Egress {
        let (node, port) = self.sh.egress_owner[gid.idx()];
        match self.sh.place[node.idx()] {
            Slot::Host(_) => &self.nic(node).eg,
            Slot::Switch(_) => &self.switch(node).ports[port as usize].eg,
        }
    }

    /// The dispatcher's deadlock event, on the window grid: searches from the
    /// queues paused since the last one (while there is no candidate), then
    /// confirms a candidate that is due. Returns true on a deadlock.
    ///
    /// The search reads the queues of every switch, so it runs between the
    /// partitions' windows, at the first grid point after the pause: the same
    /// point with any number of threads.
    pub(super) fn deadlock_search(&mut self, now: SimTime) -> bool {
        for (si, port, class) in std::mem::take(&mut self.searches) {
            if self.diag.candidate.is_none() {
                self.look_for_deadlock(now, si, port, class);
            }
        }
        if self
            .diag
            .candidate
            .as_ref()
            .is_some_and(|c| c.confirm_at <= now)
        {
            self.confirm_deadlock(now);
        }
        self.diag.deadlock.is_some()
    }

    /// Searches for a cycle of paused, non-empty queues through egress (`si`,
    /// `port`, `class`); a cycle becomes a candidate, confirmed (or not) at
    /// the deadlock event `diagnostics.deadlock_confirm` later.
    fn look_for_deadlock(&mut self, now: SimTime, si: SwitchIdx, port: u16, class: u8) {
        let (sw, _) = self.switch_and_pool(si);
        if sw.ports[port as usize].queues[class as usize].is_empty() {
            return;
        }
        let Some(cycle) = self.find_cycle(si, port, class) else {
            return;
        };
        let cycle = cycle
            .iter()
            .map(|&(s, p)| {
                let eg = &self.switch_and_pool(s).0.ports[p as usize].eg;
                (eg.gid, eg.tx_data_bytes)
            })
            .collect();
        let confirm_at = now + self.sh.cfg.diag.deadlock_confirm;
        self.diag.candidate = Some(Candidate {
            cycle,
            class,
            switch: si,
            confirm_at,
            found_at: now,
        });
        let what = Sampler::Deadlock;
        self.gq
            .schedule_cold_lead(confirm_at, u32::MAX, Event::Sample { what }.pack());
    }

    /// Depth-first search over paused, non-empty egress queues of `class`: from
    /// egress (s, p), the switch downstream of it waits on each of its paused
    /// queues that holds packets that came in through p's link. Returns a cycle
    /// (switch index, port) in wait order, if there is one.
    fn find_cycle(&mut self, si: SwitchIdx, port: u16, class: u8) -> Option<Vec<(SwitchIdx, u16)>> {
        self.visit_epoch = self.visit_epoch.wrapping_add(1).max(1);
        let mut visit = std::mem::take(&mut self.visit);
        let cycle = self.search_cycle(&mut visit, si, port, class);
        self.visit = visit;
        cycle
    }

    /// [`Self::find_cycle`] with the visit marks apart.
    fn search_cycle(
        &self,
        visit: &mut [u32],
        si: SwitchIdx,
        port: u16,
        class: u8,
    ) -> Option<Vec<(SwitchIdx, u16)>> {
        let epoch = self.visit_epoch;
        let c = class as usize;
        let mut path = vec![(si, port)];
        let mut next_q = vec![0usize];
        let first = self.switch_and_pool(si).0.ports[port as usize].eg.gid;
        visit[first.idx()] = epoch;
        while let Some(&(s, p)) = path.last() {
            let eg = &self.switch_and_pool(s).0.ports[p as usize].eg;
            let (peer, inp) = (eg.peer, eg.peer_port);
            let Slot::Switch(_) = self.sh.place[peer.idx()] else {
                path.pop();
                next_q.pop();
                continue;
            };
            let t = self.sh.cfg.topo.switch_idx(peer);
            let (tsw, pool) = self.switch_and_pool(t);
            let depth = path.len() - 1;
            let mut step = None;
            while next_q[depth] < tsw.ports.len() {
                let q = next_q[depth];
                next_q[depth] += 1;
                let sp = &tsw.ports[q];
                if !sp.eg.is_paused(class) || sp.queues[c].is_empty() {
                    continue;
                }
                if !sp.queues[c]
                    .iter(pool)
                    .any(|id| pool.get(id).ingress == inp)
                {
                    continue;
                }
                if let Some(at) = path.iter().position(|&x| x == (t, q as u16)) {
                    return Some(path[at..].to_vec());
                }
                if visit[sp.eg.gid.idx()] != epoch {
                    visit[sp.eg.gid.idx()] = epoch;
                    step = Some((t, q as u16));
                    break;
                }
            }
            match step {
                Some(n) => {
                    path.push(n);
                    next_q.push(0);
                }
                None => {
                    path.pop();
                    next_q.pop();
                }
            }
        }
        None
    }

    /// At the candidate's confirmation time: still paused, non-empty and silent
    /// everywhere means deadlock; otherwise look again from the same queue.
    fn confirm_deadlock(&mut self, now: SimTime) {
        let cand = self.diag.candidate.take().expect("a candidate is due");
        let class = cand.class;
        let stuck = cand.cycle.iter().all(|&(gid, tx)| {
            let (node, port) = self.sh.egress_owner[gid.idx()];
            let eg = self.egress(gid);
            let queued = match self.sh.place[node.idx()] {
                Slot::Switch(_) => {
                    !self.switch(node).ports[port as usize].queues[class as usize].is_empty()
                }
                Slot::Host(_) => false,
            };
            eg.is_paused(class) && eg.tx_data_bytes == tx && queued
        });
        if stuck {
            let cycle = cand
                .cycle
                .iter()
                .map(|&(gid, _)| {
                    let (node, port) = self.sh.egress_owner[gid.idx()];
                    QueueRef {
                        node: node.0,
                        port,
                        priority: class,
                    }
                })
                .collect();
            self.diag.deadlock = Some(Deadlock {
                time_ns: now.as_ns_f64(),
                found_ns: cand.found_at.as_ns_f64(),
                cycle,
            });
        } else {
            let (node, port) = self.sh.egress_owner[cand.cycle[0].0.idx()];
            if let Slot::Switch(_) = self.sh.place[node.idx()] {
                let s = self.sh.cfg.topo.switch_idx(node);
                self.look_for_deadlock(now, s, port, class);
            }
        }
    }

    /// Ends a deadlocked run: writes every output, then reports the cycle.
    pub(super) fn stop_on_deadlock(self, end: SimTime, wall: f64) -> Result<RunOutputs, Error> {
        let d = self.diag.deadlock.clone().expect("a deadlock was found");
        let cycle: Vec<String> = d
            .cycle
            .iter()
            .map(|q| {
                format!(
                    "switch {} port {} class {}",
                    self.sh.cfg.topo.name(NodeId(q.node)),
                    q.port,
                    q.priority
                )
            })
            .collect();
        let source = self.sh.cfg.source.clone();
        let total = self.sh.flows.len();
        let unfinished = total - self.progress().done;
        let out = self.finish(end, wall)?;
        let wrote = match &out.out_dir {
            Some(dir) => format!(
                "wrote fct.csv, pfc.csv, pfc_ports.csv, pfc_diagnostics.json, queue.csv and summary.json to {}",
                dir.display()
            ),
            None => "no output directory".into(),
        };
        Err(Error::Sim(format!(
            "{source}: PFC deadlock at {:.3} us: paused queues wait on each other in a cycle: {} -> (back to the first); run stopped with {unfinished} of {total} flows unfinished; {wrote}",
            d.time_ns / 1e3,
            cycle.join(" -> ")
        )))
    }

    /// Closes open pause intervals for the storm windows.
    pub(super) fn close_pfc_diagnostics(&mut self, end: SimTime) {
        for g in 0..self.sh.egress_owner.len() {
            let gid = EgressId::from_idx(g);
            for c in 0..CLASSES as u8 {
                let eg = self.egress(gid);
                if eg.is_paused(c) {
                    let since = eg.paused_since[c as usize];
                    self.diag.paused_interval(gid, c, since, end);
                }
            }
        }
        self.diag.flush_storms();
    }

    pub(super) fn pfc_headline(&self) -> PfcHeadline {
        PfcHeadline {
            max_propagation_hops: self.diag.max_hops(),
            victim_flows: self.diag.victim_flows(),
            storm_windows: self.diag.storm_windows(),
            deadlock: self.diag.deadlock.is_some(),
        }
    }

    /// `pfc_ports.csv` and `pfc_diagnostics.json`, rendered by the recorder from
    /// each port's paused time and the flows' ends.
    /// `stats` are the run's totals (summed over the partitions).
    pub(super) fn pfc_files(&self, end: SimTime, stats: &Stats) -> Vec<(&'static str, Vec<u8>)> {
        let ports: Vec<PortPauses> = (0..self.sh.egress_owner.len())
            .map(|g| {
                let gid = EgressId::from_idx(g);
                let (node, port) = self.sh.egress_owner[g];
                let eg = self.egress(gid);
                let mut paused = [Delta::ZERO; CLASSES];
                for (c, p) in paused.iter_mut().enumerate() {
                    let open = if eg.is_paused(c as u8) {
                        end.since(eg.paused_since[c])
                    } else {
                        Delta::ZERO
                    };
                    *p = eg.paused_total[c] + open;
                }
                PortPauses {
                    gid,
                    node,
                    port,
                    paused,
                }
            })
            .collect();
        let flows = &self.sh.cfg.flows;
        pfc_report::render(&self.diag, stats, &ports, |fid| {
            let f = &flows[fid.idx()];
            (f.src, f.dst)
        })
    }
}
