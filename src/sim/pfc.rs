//! PFC across the fabric, the dispatcher's part: the switch timer's deadlock
//! confirmation, deadlock detection (a search over paused queues of all
//! switches, which no single node may do), and the end-of-run PFC diagnostics
//! files (rendered by `output::pfc_report`). Sending and receiving PFC frames is the nodes' business
//! (`switch::pause`, `node::Ctx::receive_pfc`).

use super::{Sim, Slot, split};
use crate::error::Error;
use crate::ids::{EgressId, SwitchIdx};
use crate::nic::NicEnv;
use crate::node::Ctx;
use crate::output::pfc_diag::{Candidate, Deadlock, QueueRef};
use crate::output::pfc_report::{self, PortPauses};
use crate::output::{PfcHeadline, RunOutputs};
use crate::port::{CLASSES, Egress};
use crate::switch::SwitchEnv;
use crate::switch::flowctl::FlowControl;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};

impl Sim {
    fn egress(&self, gid: EgressId) -> &Egress {
        let (node, port) = self.egress_owner[gid.idx()];
        match self.slots[node.idx()] {
            Slot::Host(hi) => &self.nics[hi.idx()].eg,
            Slot::Switch(si) => &self.switches[si.idx()].ports[port as usize].eg,
        }
    }

    /// Makes sure switch `si`'s timer event comes by `at`.
    fn arm_switch_timer(&mut self, si: SwitchIdx, at: SimTime) {
        let now = self.q.now();
        split!(self, now, |ctx, nics, sw, nenv, senv| sw[si.idx()]
            .arm_timer(&mut ctx, at));
    }

    /// A switch's timer: its flow-control ticks, then the dispatcher's
    /// deadlock confirmation, then the next deadline of either.
    pub(super) fn switch_timer(&mut self, now: SimTime, si: SwitchIdx) {
        let mut frames = std::mem::take(&mut self.fc_frames);
        split!(self, now, |ctx, nics, sw, nenv, senv| {
            sw[si.idx()].on_timer(&mut ctx, senv, &mut frames)
        });
        self.fc_frames = frames;
        self.confirm_deadlock(si, now);
        let mut want = self.switches[si.idx()]
            .fc
            .next_tick()
            .unwrap_or(SimTime::MAX);
        if let Some(c) = &self.diag.candidate
            && c.switch == si
        {
            want = want.min(c.confirm_at);
        }
        if want != SimTime::MAX {
            self.arm_switch_timer(si, want.max(now));
        }
    }

    /// Searches for a cycle of paused, non-empty queues through egress (`si`,
    /// `port`, `class`), which was just paused; a cycle becomes a candidate.
    /// (The dispatcher's watch over the whole fabric: nodes never read each other.)
    pub(super) fn look_for_deadlock(&mut self, si: SwitchIdx, port: u16, class: u8) {
        if self.switches[si.idx()].ports[port as usize].queues[class as usize].is_empty() {
            return;
        }
        let Some(cycle) = self.find_cycle(si, port, class) else {
            return;
        };
        let now = self.q.now();
        let cycle = cycle
            .iter()
            .map(|&(s, p)| {
                let eg = &self.switches[s.idx()].ports[p as usize].eg;
                (eg.gid, eg.tx_data_bytes)
            })
            .collect();
        let confirm_at = now + self.cfg.diag.deadlock_confirm;
        self.diag.candidate = Some(Candidate {
            cycle,
            class,
            switch: si,
            confirm_at,
            found_at: now,
        });
        self.arm_switch_timer(si, confirm_at);
    }

    /// Depth-first search over paused, non-empty egress queues of `class`: from
    /// egress (s, p), the switch downstream of it waits on each of its paused
    /// queues that holds packets that came in through p's link. Returns a cycle
    /// (switch index, port) in wait order, if there is one.
    fn find_cycle(&mut self, si: SwitchIdx, port: u16, class: u8) -> Option<Vec<(SwitchIdx, u16)>> {
        self.visit_epoch = self.visit_epoch.wrapping_add(1).max(1);
        let epoch = self.visit_epoch;
        let c = class as usize;
        let mut path = vec![(si, port)];
        let mut next_q = vec![0usize];
        self.visit[self.switches[si.idx()].ports[port as usize].eg.gid.idx()] = epoch;
        while let Some(&(s, p)) = path.last() {
            let eg = &self.switches[s.idx()].ports[p as usize].eg;
            let (peer, inp) = (eg.peer, eg.peer_port);
            let Slot::Switch(t) = self.slots[peer.idx()] else {
                path.pop();
                next_q.pop();
                continue;
            };
            let depth = path.len() - 1;
            let mut step = None;
            while next_q[depth] < self.switches[t.idx()].ports.len() {
                let q = next_q[depth];
                next_q[depth] += 1;
                let sp = &self.switches[t.idx()].ports[q];
                if !sp.eg.is_paused(class) || sp.queues[c].is_empty() {
                    continue;
                }
                let pool = &self.pool;
                if !sp.queues[c]
                    .iter(pool)
                    .any(|id| pool.get(id).ingress == inp)
                {
                    continue;
                }
                if let Some(at) = path.iter().position(|&x| x == (t, q as u16)) {
                    return Some(path[at..].to_vec());
                }
                if self.visit[sp.eg.gid.idx()] != epoch {
                    self.visit[sp.eg.gid.idx()] = epoch;
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
    fn confirm_deadlock(&mut self, si: SwitchIdx, now: SimTime) {
        match &self.diag.candidate {
            Some(c) if c.switch == si && c.confirm_at <= now => {}
            _ => return,
        }
        let cand = self.diag.candidate.take().expect("checked above");
        let class = cand.class;
        let stuck = cand.cycle.iter().all(|&(gid, tx)| {
            let (node, port) = self.egress_owner[gid.idx()];
            let eg = self.egress(gid);
            let queued = match self.slots[node.idx()] {
                Slot::Switch(s) => {
                    !self.switches[s.idx()].ports[port as usize].queues[class as usize].is_empty()
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
                    let (node, port) = self.egress_owner[gid.idx()];
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
            let (node, port) = self.egress_owner[cand.cycle[0].0.idx()];
            if let Slot::Switch(s) = self.slots[node.idx()] {
                self.look_for_deadlock(s, port, class);
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
                    self.cfg.topo.name(NodeId(q.node)),
                    q.port,
                    q.priority
                )
            })
            .collect();
        let source = self.cfg.source.clone();
        let unfinished = self.flows.len() - self.progress.done;
        let total = self.flows.len();
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
        for g in 0..self.egress_owner.len() {
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
    pub(super) fn pfc_files(&self, end: SimTime) -> Vec<(&'static str, Vec<u8>)> {
        let ports: Vec<PortPauses> = (0..self.egress_owner.len())
            .map(|g| {
                let gid = EgressId::from_idx(g);
                let (node, port) = self.egress_owner[g];
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
        let flows = &self.cfg.flows;
        pfc_report::render(&self.diag, &self.stats, &ports, |fid| {
            let f = &flows[fid.idx()];
            (f.src, f.dst)
        })
    }
}
