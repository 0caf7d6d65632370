//! The sequential engine: one event at a time, the earliest of any partition
//! or the dispatcher's ([`Sim::run_single`] for one partition, the tight loop;
//! [`Sim::run_ordered`] for several, after the parallel phase).

use super::{CHECK_EVERY, Ending, Sim, Turn};
use crate::engine::Key;
use crate::node::Event;
use crate::units::SimTime;

impl Sim {
    /// The earliest pending event of any partition (key, partition).
    pub(super) fn next_part(&mut self) -> Option<(Key, usize)> {
        let mut best: Option<(Key, usize)> = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            if let Some(k) = p.q.head_key()
                && best.is_none_or(|(b, _)| k < b)
            {
                best = Some((k, i));
            }
        }
        best
    }

    /// The sequential phase: one event at a time, the earliest of any
    /// partition or the dispatcher's, to the end of the run. With one thread
    /// this is the whole run: each partition runs until another's (or the
    /// dispatcher's) next event is due.
    pub(super) fn run_ordered(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        let mut handled = 0u64;
        loop {
            let pr = self.progress();
            if pr.done == total && pr.started == total {
                return Ending::Done;
            }
            let next = self.next_part();
            let mut bound = match self.ordered_turn(next.map(|n| n.0), stop_bound) {
                Turn::Run(b) => b,
                Turn::Again => {
                    // The dispatcher's events alone (samplers) reach the checks too.
                    if handled + self.global_handled >= next_check {
                        next_check = handled + self.global_handled + CHECK_EVERY;
                        let now = self.gq.now();
                        if let Some(e) = self.checkpoint(now, self.progress(), progress) {
                            return e;
                        }
                    }
                    continue;
                }
                Turn::End(e) => return e,
            };
            let i = next.expect("a partition runs").1;
            // Other partitions' next events bound this one's run.
            for (j, p) in self.parts.iter_mut().enumerate() {
                if j != i
                    && let Some(k) = p.q.head_key()
                {
                    bound = bound.min(k);
                }
            }
            let multi = self.parts.len() > 1;
            while let Some(ev) = self.parts[i].step(&self.sh, bound) {
                handled += 1;
                if multi {
                    bound = bound.min(self.hand_over(i));
                }
                if !self.parts[i].journal.is_empty() {
                    let notes: Vec<_> = self.parts[i].journal.drain().collect();
                    for (k, n) in notes {
                        self.apply(k, n);
                    }
                    if let Some(e) = self.row_over_limit(self.parts[i].q.now()) {
                        return e;
                    }
                    if let Some(g) = self.gq.head_key() {
                        bound = bound.min(g);
                    }
                }
                let pr = if multi {
                    self.progress()
                } else {
                    self.parts[0].progress
                };
                if pr.done == total && pr.started == total {
                    return Ending::Done;
                }
                let now = self.parts[i].q.now();
                if matches!(ev, Event::QpTimer { .. })
                    && pr.done < pr.started
                    && now.since(pr.last) > self.stall
                {
                    return Ending::Stalled(now);
                }
                if handled >= next_check {
                    next_check = handled + CHECK_EVERY;
                    if let Some(e) = self.checkpoint(now, pr, progress) {
                        return e;
                    }
                }
            }
        }
    }

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

    /// A run on one thread: [`Self::run_ordered`] for one partition, whose
    /// events run in a tight loop that leaves it only for a note (a completed
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
            if pr.done == total && pr.started == total {
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

    /// Delivers partition `i`'s outboxes at once (the sequential phase);
    /// returns the earliest key they may have scheduled.
    pub(super) fn hand_over(&mut self, i: usize) -> Key {
        let mut bound = (u64::MAX, u64::MAX);
        for to in 0..self.parts.len() {
            if to == i || self.parts[i].outbox[to].is_empty() {
                continue;
            }
            let mut out = std::mem::take(&mut self.parts[i].outbox[to]);
            self.parts[i].crossed += out.len() as u64;
            let p = &mut self.parts[to];
            for t in out.drain(..) {
                p.links.accept(&t, &mut p.pool, &mut p.q);
            }
            if let Some(k) = p.q.head_key() {
                bound = bound.min(k);
            }
            self.parts[i].outbox[to] = out;
        }
        bound
    }
}
