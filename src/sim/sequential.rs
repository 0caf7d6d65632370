//! The sequential engine of a run in one partition ([`Sim::run_single`]): one
//! event at a time, the partition's or the dispatcher's, in a tight loop.
//! [`Sim::ordered_turn`] is also the turns' step in several partitions
//! (`parallel::run`).

use super::{CHECK_EVERY, Ending, Sim, Turn};
use crate::engine::Key;
use crate::node::Event;
use crate::units::SimTime;

impl Sim {
    /// The ordered phase's next step, given the earliest pending key of any
    /// partition (`head`): run that partition up to the returned bound (the
    /// dispatcher's next event or the stop), or handle the dispatcher's event
    /// first, or end the run.
    pub(super) fn ordered_turn(&mut self, head: Option<Key>, stop_bound: Key) -> Turn {
        let global = self.gq.head_key();
        let Some(head) = head else {
            return match global {
                None => Turn::End(Ending::Done),
                Some(g) if g >= stop_bound => Turn::End(Ending::Past(SimTime(g.0))),
                Some(_) => match self.global_due() {
                    Some(e) => Turn::End(e),
                    None => Turn::Again,
                },
            };
        };
        let bound = global.map_or(stop_bound, |g| g.min(stop_bound));
        if head < bound {
            return Turn::Run(bound);
        }
        if global == Some(bound) && bound < stop_bound {
            return match self.global_due() {
                Some(e) => Turn::End(e),
                None => Turn::Again,
            };
        }
        Turn::End(Ending::Past(SimTime(
            global.map_or(head, |g| g.min(head)).0,
        )))
    }

    /// A run in one partition: its events and the dispatcher's one at a
    /// time, in key order, in a tight loop that leaves it only for a note (a completed
    /// flow, a PFC record), a stall or a progress check.
    pub(super) fn run_single(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        // Events handled, the dispatcher's (samplers) included: a run of
        // samplers alone reaches the checks too.
        let mut handled = 0u64;
        loop {
            if handled + self.global_handled >= next_check {
                next_check = handled + self.global_handled + CHECK_EVERY;
                let now = self.parts[0].q.now().max(self.gq.now());
                if let Some(e) = self.checkpoint(now, self.parts[0].progress, progress) {
                    return e;
                }
            }
            let pr = self.parts[0].progress;
            if pr.finished(total) {
                return Ending::Done;
            }
            let head = self.parts[0].q.head_key();
            let bound = match self.ordered_turn(head, stop_bound) {
                Turn::Run(b) => b,
                Turn::Again => continue,
                Turn::End(e) => return e,
            };
            let sh = &*self.sh;
            let part = &mut self.parts[0];
            let check_at = next_check.saturating_sub(self.global_handled);
            while let Some((key, ev)) = part.q.pop_keyed(bound) {
                part.warm(sh);
                let ev = ev.unpack();
                let now = SimTime(key.0);
                part.journal.set_key(key);
                part.dispatch_event(sh, now, ev);
                handled += 1;
                if let Event::QpTimer { .. } = ev {
                    let pr = part.progress;
                    if pr.done < pr.started && now.since(pr.last) > self.stall {
                        return Ending::Stalled(now);
                    }
                }
                if !part.journal.is_empty() || handled >= check_at {
                    break;
                }
            }
            if !self.parts[0].journal.is_empty() {
                let notes: Vec<_> = self.parts[0].journal.drain().collect();
                for (k, n) in notes {
                    self.apply(k, n);
                }
                if let Some(e) = self.row_over_limit(self.parts[0].q.now()) {
                    return e;
                }
            }
        }
    }
}
