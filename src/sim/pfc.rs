//! PFC across the fabric, the dispatcher's part: the switch timer's deadlock
//! confirmation, deadlock detection (a search over paused queues of all
//! switches, which no single node may do), and the end-of-run PFC diagnostics
//! files (rendered by `output::pfc_report`). Sending and receiving PFC frames is the nodes' business
//! (`switch::pause`, `node::Ctx::receive_pfc`).

use super::checks::Due;
use super::ends::{EgressEnd, PartEnd};
use super::part::Part;
use super::{Shared, Sim, Slot};
use crate::error::Error;
use crate::ids::{EgressId, SwitchIdx};
use crate::output::pfc_diag::{Candidate, Deadlock, QueueRef};
use crate::output::pfc_report::{self, PortPauses};
use crate::output::{PfcHeadline, RunOutputs};
use crate::packet::{PacketPool, PktQueue};
use crate::port::{CLASSES, Egress};
use crate::stats::Stats;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};

impl Sim {
    /// The dispatcher's deadlock event, on the window grid: searches from the
    /// queues paused since the last one (while there is no candidate), then
    /// confirms a candidate that is due. Returns true on a deadlock.
    ///
    /// The search reads the queues of every switch, so it runs between the
    /// partitions' windows, at the first grid point after the pause: the same
    /// point with any number of threads or ranks. It reads this process's
    /// partitions where the search goes ([`Live`]); with MPI, a [`PauseView`]
    /// of every rank's ports taken once for the event.
    pub(super) fn deadlock_search(&mut self, now: SimTime) -> bool {
        if let Some(r) = self.ranks.clone() {
            let view = self.pause_view(&r);
            return self.deadlock_search_with(&view, now);
        }
        let parts = std::mem::take(&mut self.parts);
        let sh = self.sh.clone();
        let found = self.deadlock_search_with(
            &Live {
                parts: &parts,
                sh: &sh,
            },
            now,
        );
        self.parts = parts;
        found
    }

    fn deadlock_search_with(&mut self, view: &impl PauseRead, now: SimTime) -> bool {
        for (si, port, class) in std::mem::take(&mut self.searches) {
            if self.diag.candidate.is_none() {
                self.look_for_deadlock(view, now, si, port, class);
            }
        }
        if self
            .diag
            .candidate
            .as_ref()
            .is_some_and(|c| c.confirm_at <= now)
        {
            self.confirm_deadlock(view, now);
        }
        self.diag.deadlock.is_some()
    }

    /// The pause state of every egress port now, every rank's summed (each
    /// port is in one rank's partition).
    fn pause_view(&self, r: &super::parallel::Ranks) -> PauseView {
        let n = self.sh.egress_owner.len();
        let mut state = vec![0u64; n];
        let mut tx = vec![0u64; n];
        let mut from = Vec::new();
        let p = &self.parts[r.rank()];
        for nic in &p.nics {
            state[nic.eg.gid.idx()] = nic.eg.paused as u64;
            tx[nic.eg.gid.idx()] = nic.eg.tx_data_bytes;
        }
        for sw in &p.switches {
            for sp in &sw.ports {
                let g = sp.eg.gid;
                let mut queued = 0u8;
                for (c, q) in sp.queues.iter().enumerate() {
                    if q.is_empty() {
                        continue;
                    }
                    queued |= 1 << c;
                    if sp.eg.is_paused(c as u8) {
                        let mut ins: Vec<u16> =
                            q.iter(&p.pool).map(|id| p.pool.get(id).ingress).collect();
                        ins.sort_unstable();
                        ins.dedup();
                        from.extend(ins.into_iter().map(|i| (g.0, c as u8, i)));
                    }
                }
                state[g.idx()] = sp.eg.paused as u64 | (queued as u64) << 8;
                tx[g.idx()] = sp.eg.tx_data_bytes;
            }
        }
        let mut from = r.all_gather_obj(&from).concat();
        from.sort_unstable();
        let (state, tx) = (r.all_sum(&state), r.all_sum(&tx));
        PauseView { state, tx, from }
    }

    /// Searches for a cycle of paused, non-empty queues through egress (`si`,
    /// `port`, `class`); a cycle becomes a candidate, confirmed (or not) at
    /// the deadlock event `diagnostics.deadlock_confirm` later.
    fn look_for_deadlock(
        &mut self,
        view: &impl PauseRead,
        now: SimTime,
        si: SwitchIdx,
        port: u16,
        class: u8,
    ) {
        if !view.queued(self.switch_gid(si, port), class) {
            return;
        }
        let Some(cycle) = self.find_cycle(view, si, port, class) else {
            return;
        };
        let cycle = cycle
            .iter()
            .map(|&(s, p)| {
                let gid = self.switch_gid(s, p);
                (gid, view.tx(gid))
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
        self.gq
            .schedule_cold_lead(confirm_at, u32::MAX, Due::Deadlock);
    }

    /// The egress id of switch `si`'s port `port`.
    fn switch_gid(&self, si: SwitchIdx, port: u16) -> EgressId {
        self.sh.gid(self.sh.cfg.topo.switches[si.idx()], port)
    }

    /// Depth-first search over paused, non-empty egress queues of `class`: from
    /// egress (s, p), the switch downstream of it waits on each of its paused
    /// queues that holds packets that came in through p's link. Returns a cycle
    /// (switch index, port) in wait order, if there is one.
    fn find_cycle(
        &mut self,
        view: &impl PauseRead,
        si: SwitchIdx,
        port: u16,
        class: u8,
    ) -> Option<Vec<(SwitchIdx, u16)>> {
        self.visit_epoch = self.visit_epoch.wrapping_add(1).max(1);
        let mut visit = std::mem::take(&mut self.visit);
        let cycle = self.search_cycle(view, &mut visit, si, port, class);
        self.visit = visit;
        cycle
    }

    /// [`Self::find_cycle`] with the visit marks apart.
    fn search_cycle(
        &self,
        view: &impl PauseRead,
        visit: &mut [u32],
        si: SwitchIdx,
        port: u16,
        class: u8,
    ) -> Option<Vec<(SwitchIdx, u16)>> {
        let epoch = self.visit_epoch;
        let topo = &self.sh.cfg.topo;
        let mut path = vec![(si, port)];
        let mut next_q = vec![0usize];
        visit[self.switch_gid(si, port).idx()] = epoch;
        while let Some(&(s, p)) = path.last() {
            let link = &topo.ports[topo.switches[s.idx()].idx()][p as usize];
            let (peer, inp) = (link.peer, link.peer_port);
            let Slot::Switch(_) = self.sh.place[peer.idx()] else {
                path.pop();
                next_q.pop();
                continue;
            };
            let t = topo.switch_idx(peer);
            let n_ports = topo.ports[peer.idx()].len();
            let depth = path.len() - 1;
            let mut step = None;
            while next_q[depth] < n_ports {
                let q = next_q[depth];
                next_q[depth] += 1;
                let g = self.sh.gid(peer, q as u16);
                if !view.paused(g, class) || !view.queued(g, class) || !view.holds(g, class, inp) {
                    continue;
                }
                if let Some(at) = path.iter().position(|&x| x == (t, q as u16)) {
                    return Some(path[at..].to_vec());
                }
                if visit[g.idx()] != epoch {
                    visit[g.idx()] = epoch;
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
    fn confirm_deadlock(&mut self, view: &impl PauseRead, now: SimTime) {
        let cand = self.diag.candidate.take().expect("a candidate is due");
        let class = cand.class;
        let stuck = cand.cycle.iter().all(|&(gid, tx)| {
            let (node, _) = self.sh.egress_owner[gid.idx()];
            let queued = match self.sh.place[node.idx()] {
                Slot::Switch(_) => view.queued(gid, class),
                Slot::Host(_) => false,
            };
            view.paused(gid, class) && view.tx(gid) == tx && queued
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
                self.look_for_deadlock(view, now, s, port, class);
            }
        }
    }

    /// Ends a deadlocked run: writes every output, then reports the cycle.
    pub(super) fn stop_on_deadlock(
        self,
        end: SimTime,
        wall: f64,
        ends: Vec<PartEnd>,
        unfinished: usize,
    ) -> Result<RunOutputs, Error> {
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
        let out = self.finish(end, wall, ends)?;
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

    /// Closes open pause intervals for the storm windows (`egress`: the end
    /// state of every port ever paused).
    pub(super) fn close_pfc_diagnostics(&mut self, end: SimTime, egress: &[EgressEnd]) {
        for e in egress {
            for c in 0..CLASSES as u8 {
                if e.is_paused(c) {
                    let since = e.since[c as usize];
                    self.diag.paused_interval(e.gid, c, since, end);
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
    /// `stats` are the run's totals (summed over the partitions), `egress`
    /// the end state of every port ever paused, in egress id order.
    pub(super) fn pfc_files(
        &self,
        end: SimTime,
        stats: &Stats,
        egress: &[EgressEnd],
    ) -> Vec<(&'static str, Vec<u8>)> {
        // The ports with a counter or paused time, in egress id order.
        let mut gids: Vec<EgressId> = (self.diag.counted())
            .chain(egress.iter().map(|e| e.gid))
            .collect();
        gids.sort_unstable();
        gids.dedup();
        let ports: Vec<PortPauses> = gids
            .into_iter()
            .map(|gid| {
                let (node, port) = self.sh.egress_owner[gid.idx()];
                let mut paused = [Delta::ZERO; CLASSES];
                if let Ok(k) = egress.binary_search_by_key(&gid, |e| e.gid) {
                    for (c, p) in paused.iter_mut().enumerate() {
                        *p = egress[k].paused(c, end);
                    }
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

/// How the deadlock search reads egress ports (by id): whether a class is
/// paused, has packets queued, holds a packet that came in through a given
/// ingress port, and the data bytes the port has sent.
trait PauseRead {
    fn paused(&self, g: EgressId, class: u8) -> bool;
    fn queued(&self, g: EgressId, class: u8) -> bool;
    fn holds(&self, g: EgressId, class: u8, ingress: u16) -> bool;
    fn tx(&self, g: EgressId) -> u64;
}

/// This process's partitions, read where the search goes.
struct Live<'a> {
    parts: &'a [Box<Part>],
    sh: &'a Shared,
}

impl Live<'_> {
    fn part(&self, g: EgressId) -> (&Part, NodeId, u16) {
        let (node, port) = self.sh.egress_owner[g.idx()];
        (
            &self.parts[self.sh.node_part[node.idx()] as usize],
            node,
            port,
        )
    }

    fn egress(&self, g: EgressId) -> &Egress {
        let (part, node, port) = self.part(g);
        match self.sh.place[node.idx()] {
            Slot::Host(l) => &part.nics[l as usize].eg,
            Slot::Switch(l) => &part.switches[l as usize].ports[port as usize].eg,
        }
    }

    /// Switch port `g`'s queue of `class`, and the pool its packets are in.
    fn queue(&self, g: EgressId, class: u8) -> Option<(&PktQueue, &PacketPool)> {
        let (part, node, port) = self.part(g);
        match self.sh.place[node.idx()] {
            Slot::Host(_) => None,
            Slot::Switch(l) => Some((
                &part.switches[l as usize].ports[port as usize].queues[class as usize],
                &part.pool,
            )),
        }
    }
}

impl PauseRead for Live<'_> {
    fn paused(&self, g: EgressId, class: u8) -> bool {
        self.egress(g).is_paused(class)
    }

    fn queued(&self, g: EgressId, class: u8) -> bool {
        self.queue(g, class).is_some_and(|(q, _)| !q.is_empty())
    }

    fn holds(&self, g: EgressId, class: u8, ingress: u16) -> bool {
        self.queue(g, class)
            .is_some_and(|(q, pool)| q.iter(pool).any(|id| pool.get(id).ingress == ingress))
    }

    fn tx(&self, g: EgressId) -> u64 {
        self.egress(g).tx_data_bytes
    }
}

/// The pause state of every egress port at one deadlock event, by egress id
/// (MPI ranks: gathered from every rank).
struct PauseView {
    /// Bits 0-7: classes paused; bits 8-15: classes with packets queued.
    state: Vec<u64>,
    /// Data bytes sent.
    tx: Vec<u64>,
    /// (egress id, class, ingress port) of the packets in paused, non-empty
    /// queues, sorted.
    from: Vec<(u32, u8, u16)>,
}

impl PauseRead for PauseView {
    fn paused(&self, g: EgressId, class: u8) -> bool {
        self.state[g.idx()] & 1 << class != 0
    }

    fn queued(&self, g: EgressId, class: u8) -> bool {
        self.state[g.idx()] & 1 << (8 + class) != 0
    }

    fn holds(&self, g: EgressId, class: u8, ingress: u16) -> bool {
        self.from.binary_search(&(g.0, class, ingress)).is_ok()
    }

    fn tx(&self, g: EgressId) -> u64 {
        self.tx[g.idx()]
    }
}
