//! The partitions' journals applied to the recorder and the PFC diagnostics,
//! in event-key order (the order one thread would have made them in).

use super::Sim;
use super::checks::Due;
use super::part::next_grid;
use crate::config::paths::flow_key;
use crate::engine::Key;
use crate::ids::FlowId;
use crate::output::journal::{Applied, Journal};
use crate::switch::ecmp;
use crate::units::SimTime;

impl Sim {
    /// Applies the partitions' journals to the recorder and the diagnostics,
    /// merged in event-key order: the order one thread would have made them in.
    pub(super) fn apply_journals(&mut self) {
        let lists = self
            .parts
            .iter_mut()
            .map(|p| p.journal.drain().collect())
            .collect();
        self.merge_notes(lists);
    }

    /// Applies the partitions' notes (`lists`, each in key order) in key order.
    pub(super) fn merge_notes(&mut self, lists: Vec<Vec<(Key, crate::output::journal::Note)>>) {
        let mut notes: Vec<_> = lists
            .into_iter()
            .map(|l| l.into_iter().peekable())
            .collect();
        loop {
            let mut best: Option<(Key, usize)> = None;
            for (i, it) in notes.iter_mut().enumerate() {
                if let Some(&(k, _)) = it.peek()
                    && best.is_none_or(|(b, _)| k < b)
                {
                    best = Some((k, i));
                }
            }
            let Some((_, i)) = best else { break };
            let (key, note) = notes[i].next().expect("peeked");
            self.apply(key, note);
        }
    }

    /// Applies one journal note made at `key`.
    pub(super) fn apply(&mut self, key: Key, note: crate::output::journal::Note) {
        let time = SimTime(key.0);
        match Journal::apply(note, time, &mut self.rec, &mut self.diag, &mut self.roots) {
            Applied::Done => {}
            Applied::FlowPath(fid) => self.note_flow_path(fid),
            Applied::Paused(si, port, class) if self.diag.candidate.is_none() => {
                // Searched at the next grid point, whatever the threads. (A
                // candidate changes only at the dispatcher's events, which end
                // windows: every thread count sees the same one here.) Pending
                // searches already have that point's event.
                if self.searches.is_empty() {
                    let at = SimTime(next_grid(key.0, self.grid));
                    self.gq.schedule_cold_lead(at, u32::MAX, Due::Deadlock);
                }
                self.searches.push((si, port, class));
            }
            Applied::Paused(..) => {}
        }
    }

    /// PFC victims: which switch ingresses and egresses flow `fid`, which has
    /// just started, crosses (the dispatcher's view of the routing; the
    /// diagnostics watch the flow from now until it completes).
    pub(super) fn note_flow_path(&mut self, fid: FlowId) {
        let cfg = &self.sh.cfg;
        let (spec, f) = (&cfg.flows[fid.idx()], &self.sh.flows[fid.idx()]);
        let key = flow_key(spec, f.sport);
        for h in ecmp::trace(&cfg.topo, cfg.model.ecmp_hash, self.seed, key) {
            let gid = self.sh.gid(cfg.topo.switches[h.index.idx()], h.ingress);
            self.diag.flow_path(fid, gid, h.egress);
        }
    }
}
