//! The dispatcher's own events (samplers and deadlock searches) and the
//! checks every loop makes: output volume, wall clock, stalls, progress.

use super::{Ending, Sim};
use crate::node::{Event, Progress, Sampler};
use crate::units::SimTime;

impl Sim {
    /// Handles the dispatcher's next event; returns how the run ends if it
    /// ends here: a deadlock, or a sampler's rows past the output limit.
    pub(super) fn global_due(&mut self) -> Option<Ending> {
        let (now, ev) = self.gq.pop().expect("the dispatcher has an event due");
        self.global_handled += 1;
        if self.global_event(now, ev.unpack()) {
            return Some(Ending::Deadlock);
        }
        self.row_over_limit(now)
    }

    /// One of the dispatcher's events; returns true when a deadlock ends the run.
    pub(super) fn global_event(&mut self, now: SimTime, ev: Event) -> bool {
        match ev {
            Event::Sample {
                what: Sampler::Rates,
            } => self.rate_sample(now),
            Event::Sample {
                what: Sampler::Deadlock,
            } => return self.deadlock_search(now),
            Event::Sample { what } => self.sample(now, what),
            e => unreachable!("not a dispatcher event: {e:?}"),
        }
        false
    }

    /// The end of a run whose recorder has just refused a row past the
    /// output limit (checked after every event that writes rows: one sample
    /// may write a row per port). MPI ranks check it together at their
    /// reports instead, rank 0's recorder having stopped writing.
    #[inline]
    pub(super) fn row_over_limit(&self, now: SimTime) -> Option<Ending> {
        #[cfg(feature = "mpi")]
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
        #[cfg(feature = "mpi")]
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
