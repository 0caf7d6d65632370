//! The dispatcher's own events (observers' samples and deadlock searches)
//! and the checks every loop makes: output volume, wall clock, stalls,
//! progress.

use super::{Ending, Sim};
use crate::node::{MAX_EVENT_INDEX, Progress, dispatcher_bits, dispatcher_index};
use crate::units::SimTime;

/// An event on the dispatcher's own queue.
///
/// Events due at the same time and lead run in the order of their numbers:
/// the observers in registration order ([`crate::output::observers::REGISTERED`]),
/// then the deadlock search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Due {
    /// Observer `k`'s sample ([`crate::output::Recorder::observe`]).
    Observe(u32),
    /// The deadlock search and confirmation (on the window grid).
    Deadlock,
}

impl Due {
    const DEADLOCK: u32 = MAX_EVENT_INDEX;
}

impl crate::engine::Bits for Due {
    #[inline]
    fn to_bits(self) -> u32 {
        dispatcher_bits(match self {
            Due::Observe(k) => {
                assert!(k < Due::DEADLOCK, "observer {k}: too many observers");
                k
            }
            Due::Deadlock => Due::DEADLOCK,
        })
    }
    #[inline]
    fn from_bits(bits: u32) -> Self {
        match dispatcher_index(bits) {
            Due::DEADLOCK => Due::Deadlock,
            k => Due::Observe(k),
        }
    }
}

impl Sim {
    /// Handles the dispatcher's next event; returns how the run ends if it
    /// ends here: a deadlock, or a sampler's rows past the output limit.
    pub(super) fn global_due(&mut self) -> Option<Ending> {
        let (now, ev) = self.gq.pop().expect("the dispatcher has an event due");
        self.global_handled += 1;
        if self.global_event(now, ev) {
            return Some(Ending::Deadlock);
        }
        self.row_over_limit(now)
    }

    /// One of the dispatcher's events; returns true when a deadlock ends the run.
    pub(super) fn global_event(&mut self, now: SimTime, ev: Due) -> bool {
        match ev {
            Due::Observe(k) => self.observe(now, k as usize),
            Due::Deadlock => return self.deadlock_search(now),
        }
        false
    }

    /// The end of a run whose recorder has just refused a row past the
    /// output limit (checked after every event that writes rows: one sample
    /// may write a row per port). MPI ranks check it together at their
    /// reports instead, rank 0's recorder having stopped writing.
    #[inline]
    pub(super) fn row_over_limit(&self, now: SimTime) -> Option<Ending> {
        if self.ranks.is_some() {
            return None;
        }
        self.rec.over_limit().map(|b| Ending::OutputOver(now, b))
    }

    /// The periodic check of a sequential run at `now`: reports progress,
    /// ends a stalled run or one whose output is over the limit.
    pub(super) fn checkpoint(
        &mut self,
        now: SimTime,
        pr: Progress,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        progress(self.at(now, pr.done));
        if pr.done < pr.started && now.since(pr.last) > self.stall {
            return Some(Ending::Stalled(now));
        }
        if self.wall_over() {
            return Some(Ending::WallOver(now));
        }
        self.output_over_limit()
            .map(|bytes| Ending::OutputOver(now, bytes))
    }

    /// Whether the run has passed `--max-wall-time` (not on MPI ranks, whose
    /// clocks would disagree on the moment).
    pub(super) fn wall_over(&self) -> bool {
        if self.ranks.is_some() {
            return false;
        }
        self.limits
            .max_wall_time
            .is_some_and(|w| self.started.elapsed() > w)
    }

    /// The size of the output files written so far, if it is over the limit.
    pub(super) fn output_over_limit(&self) -> Option<u64> {
        if let Some(b) = self.rec.over_limit() {
            return Some(b);
        }
        let bytes = self.rec.output_bytes();
        (bytes > self.limits.max_output_bytes).then_some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::Due;
    use crate::engine::Bits;

    /// Samples due together run in registration order, the deadlock search
    /// after them all (as `Sampler::Deadlock` came after every sampler).
    #[test]
    fn the_deadlock_search_runs_after_every_observer_due_at_the_same_time() {
        let due = [
            Due::Observe(0),
            Due::Observe(1),
            Due::Observe(4),
            Due::Deadlock,
        ];
        for w in due.windows(2) {
            assert!(w[0].to_bits() < w[1].to_bits(), "{w:?}");
        }
        for d in due {
            assert_eq!(Due::from_bits(d.to_bits()), d);
        }
    }
}
