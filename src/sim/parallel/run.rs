//! The one event loop of a run in several partitions (docs/parallel.md),
//! whether they run on threads of this process ([`super::threads`]) or on
//! MPI ranks ([`super::distributed`]). Two phases:
//!
//! 1. **Windows**, while some flow has a byte it never sent: the partitions
//!    advance together up to the next grid point (a multiple of the smallest
//!    link delay) or the dispatcher's next event, whichever is first. A
//!    packet sent inside a window reaches another partition no earlier than
//!    the window's end, so the partitions need each other's packets only
//!    between windows. Such a flow needs at least four link delays to
//!    complete (the byte to its receiver, the ACK back), more than a window,
//!    so the run cannot end inside one.
//! 2. **Turns**, to the end of the run: the partition with the earliest
//!    event runs up to the next event of any other partition or of the
//!    dispatcher, so the run's end (its last completion) is found exactly.
//!
//! What differs between threads and ranks is behind [`Partitions`]: how the
//! dispatcher learns the partitions' heads and progress, how a window runs
//! and exchanges, how a turn runs, and the periodic checks.

use crate::engine::Key;
use crate::node::Progress;
use crate::sim::part::next_grid;
use crate::sim::{CHECK_EVERY, Ending, Sim, Turn};
use crate::units::SimTime;

/// The partitions at the top of a step, as the dispatcher sees them.
#[derive(Default)]
pub(in crate::sim) struct Survey {
    /// Flows started, completed and fully sent, over every partition.
    pub progress: Progress,
    /// Each partition's earliest pending key.
    pub heads: Vec<Option<Key>>,
    /// The earliest arrival among the packets waiting in any inbox (windows).
    pub inbox: Option<Key>,
}

impl Survey {
    /// The earliest pending key anywhere: a partition's or an inbox's.
    fn head(&self) -> Option<Key> {
        self.heads.iter().flatten().copied().chain(self.inbox).min()
    }

    /// The partition with the earliest pending key, and that key.
    fn first(&self) -> Option<(Key, usize)> {
        (self.heads.iter().enumerate())
            .filter_map(|(i, h)| h.map(|k| (k, i)))
            .min()
    }
}

/// Where a run's partitions live: threads of this process, or MPI ranks
/// (each rank runs one partition and keeps the whole dispatcher).
pub(in crate::sim) trait Partitions {
    /// Fills `s` with the partitions' heads and progress, or says how a
    /// partition saw the run end (a stall, the output limit on MPI ranks).
    fn survey(&mut self, sim: &mut Sim, s: &mut Survey) -> Result<(), Ending>;

    /// Runs every partition's events below `bound`, then exchanges the
    /// packets that crossed between partitions and applies the journals in
    /// key order (on threads, the journals may wait to be applied during
    /// the next window: [`Partitions::flush`]). Returns how the run ends if
    /// it ends here.
    fn window(&mut self, sim: &mut Sim, bound: Key) -> Option<Ending>;

    /// The periodic check in the windows (every [`CHECK_EVERY`] events), at
    /// the window's bound `at`: the output limit and the wall clock.
    fn check(&mut self, sim: &mut Sim, at: SimTime) -> Option<Ending>;

    /// The windows are over: the packets still in the inboxes go into the
    /// links.
    fn settle(&mut self, sim: &mut Sim);

    /// Applies the notes of the last window if they are still waiting (they
    /// may wait while the next window runs): before the dispatcher's own
    /// events and at the end of the windows. Returns how the run ends if they
    /// take the output over its limit.
    fn flush(&mut self, _sim: &mut Sim) -> Option<Ending> {
        None
    }

    /// Partition `i`'s turn: its events from `head` to below `bound`.
    /// `pr` is the run's progress before the turn.
    fn turn(
        &mut self,
        sim: &mut Sim,
        i: usize,
        head: Key,
        bound: Key,
        pr: Progress,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending>;

    /// Between turns, when the dispatcher has handled an event of its own.
    fn idle(
        &mut self,
        _sim: &mut Sim,
        _progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        None
    }
}

impl Sim {
    /// A run in several partitions, to its end.
    pub(in crate::sim) fn run_parallel(
        &mut self,
        parts: &mut impl Partitions,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let t0 = std::time::Instant::now();
        let mut s = Survey::default();
        let ended = self.windows(parts, &mut s, stop_bound, progress);
        let ended = parts.flush(self).or(ended);
        self.engine.windowed_seconds = t0.elapsed().as_secs_f64();
        if let Some(e) = ended {
            return e;
        }
        parts.settle(self);
        let t1 = std::time::Instant::now();
        let e = self.turns(parts, &mut s, stop_bound, progress);
        self.engine.ordered_seconds = t1.elapsed().as_secs_f64();
        e
    }

    /// The windows, while some flow has a byte it never sent. Returns an
    /// ending if the run ended in them.
    fn windows(
        &mut self,
        parts: &mut impl Partitions,
        s: &mut Survey,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        loop {
            if let Err(e) = parts.survey(self, s) {
                return Some(e);
            }
            if s.progress.sent_all == total {
                return None;
            }
            let head = s.head();
            let global = self.gq.head_key();
            let bound = match self.next_window(head, global, stop_bound, s.progress) {
                Ok(b) => b,
                Err(e) => return Some(e),
            };
            if head.is_some_and(|h| h < bound)
                && let Some(e) = parts.window(self, bound)
            {
                return Some(e);
            }
            if global == Some(bound) {
                if let Some(e) = parts.flush(self) {
                    return Some(e);
                }
                if let Some(e) = self.global_due() {
                    return Some(e);
                }
            }
            if self.engine.window_events >= next_check {
                next_check = self.engine.window_events + CHECK_EVERY;
                progress(self.at(SimTime(bound.0), s.progress.done));
                // (The last window's notes may still wait: the size on disk
                // is checked a window late, the same for every thread count.)
                if let Some(e) = parts.check(self, SimTime(bound.0)) {
                    return Some(e);
                }
            }
        }
    }

    /// The turns, to the end of the run: the partition with the earliest
    /// event runs up to any other's next event or the dispatcher's.
    fn turns(
        &mut self,
        parts: &mut impl Partitions,
        s: &mut Survey,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let total = self.sh.flows.len();
        loop {
            if let Err(e) = parts.survey(self, s) {
                return e;
            }
            let pr = s.progress;
            if pr.finished(total) {
                return Ending::Done;
            }
            let first = s.first();
            let mut bound = match self.ordered_turn(first.map(|f| f.0), stop_bound) {
                Turn::Run(b) => b,
                Turn::Again => match parts.idle(self, progress) {
                    Some(e) => return e,
                    None => continue,
                },
                Turn::End(e) => return e,
            };
            let (head, i) = first.expect("a partition runs");
            for (j, h) in s.heads.iter().enumerate() {
                if j != i
                    && let Some(k) = *h
                {
                    bound = bound.min(k);
                }
            }
            if let Some(e) = parts.turn(self, i, head, bound, pr, progress) {
                return e;
            }
        }
    }

    /// The bound of the next window, from the earliest pending key of any
    /// partition or inbox (`head`) and the dispatcher's (`global`): the next
    /// grid point after the earliest, or the dispatcher's event, or the stop.
    /// Or how the run ends: nothing left, past the stop, or stalled.
    fn next_window(
        &self,
        head: Option<Key>,
        global: Option<Key>,
        stop_bound: Key,
        pr: Progress,
    ) -> Result<Key, Ending> {
        let Some(start) = head.into_iter().chain(global).min() else {
            return Err(Ending::Done);
        };
        if start >= stop_bound {
            return Err(Ending::Past(SimTime(start.0)));
        }
        if pr.done < pr.started && SimTime(start.0).since(pr.last) > self.stall {
            return Err(Ending::Stalled(SimTime(start.0)));
        }
        let bound = (next_grid(start.0, self.grid), 0).min(stop_bound);
        Ok(global.map_or(bound, |g| bound.min(g)))
    }
}
