//! The parallel phase on threads (docs/parallel.md): every partition runs a
//! window of events up to the next grid point, then the partitions exchange
//! the packets that crossed between them.

use super::crew;
use crate::engine::Key;
use crate::error::Error;
use crate::node::Progress;
use crate::sim::part::next_grid;
use crate::sim::{CHECK_EVERY, Ending, Sim};
use crate::units::SimTime;
use std::time::Instant;

impl Sim {
    /// The parallel phase (docs/parallel.md): the partitions advance together
    /// in windows that end at the next grid point (a multiple of the smallest
    /// link delay) or at the dispatcher's next event, whichever is first. A
    /// packet sent inside a window reaches another partition no earlier than
    /// the window's end, so the partitions need each other's packets only
    /// between windows. Runs while some flow has a byte it never sent: such a
    /// flow needs at least four link delays to complete (the byte to its
    /// receiver, the ACK back), more than a window, so the run cannot end
    /// inside one. After that the run's
    /// end (its last completion) is found one event at a time by
    /// [`Self::run_ordered`]. Returns an ending if the run ended here.
    pub(in crate::sim) fn run_windows(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        let mut busy = vec![0f64; self.parts.len()];
        let crew = match crew::Crew::start(self.parts.len() - 1, &self.sh) {
            Ok(c) => c,
            Err(e) => {
                return Some(Ending::Failed(Error::Sim(format!(
                    "cannot start {} worker threads: {e}",
                    self.parts.len() - 1
                ))));
            }
        };
        // The earliest arrival among the packets waiting in the inboxes.
        let mut inbox_min: Option<Key> = None;
        for p in &mut self.parts {
            p.head = p.q.head_key();
        }
        loop {
            let pr = self.progress();
            if pr.sent_all == total {
                break;
            }
            let head = self
                .parts
                .iter()
                .filter_map(|p| p.head)
                .chain(inbox_min)
                .min();
            let global = self.gq.head_key();
            let bound = match self.next_window(head, global, stop_bound, pr) {
                Ok(b) => b,
                Err(e) => return Some(e),
            };
            if head.is_some_and(|h| h < bound) {
                let tw = Instant::now();
                let counts = crew.window(&mut self.parts, &self.sh, bound);
                self.engine.window_seconds += tw.elapsed().as_secs_f64();
                let slowest = counts.iter().map(|c| c.1).fold(0.0, f64::max);
                self.engine.critical_seconds += slowest;
                self.engine.critical_events += counts.iter().map(|c| c.0).max().unwrap_or(0);
                for (i, (n, t)) in counts.into_iter().enumerate() {
                    self.engine.window_events += n;
                    busy[i] += t;
                }
                self.engine.windows += 1;
                let ts = Instant::now();
                inbox_min = self.exchange();
                self.apply_journals();
                self.engine.merge_seconds += ts.elapsed().as_secs_f64();
                if let Some(e) = self.row_over_limit(SimTime(bound.0)) {
                    return Some(e);
                }
            }
            if global == Some(bound)
                && let Some(e) = self.global_due()
            {
                return Some(e);
            }
            if self.engine.window_events >= next_check {
                next_check = self.engine.window_events + CHECK_EVERY;
                let pr = self.progress();
                progress(self.at(SimTime(bound.0), pr.done));
                if let Some(bytes) = self.output_over_limit() {
                    return Some(Ending::OutputOver(SimTime(bound.0), bytes));
                }
                if self.wall_over() {
                    return Some(Ending::WallOver(SimTime(bound.0)));
                }
            }
        }
        self.engine.part_busy_seconds = busy;
        // Hand over what is still in the outboxes' wake.
        for p in &mut self.parts {
            p.take_inbox();
        }
        None
    }

    /// Moves each partition's outbox for partition `to` into `to`'s inbox;
    /// returns the earliest key of an arrival they may schedule.
    pub(in crate::sim) fn exchange(&mut self) -> Option<Key> {
        let n = self.parts.len();
        let mut min: Option<Key> = None;
        for from in 0..n {
            self.parts[from].count_crossed();
            for to in 0..n {
                if from == to || self.parts[from].outbox[to].is_empty() {
                    continue;
                }
                for t in &self.parts[from].outbox[to] {
                    let k = t.key();
                    min = Some(min.map_or(k, |m| m.min(k)));
                }
                let out = std::mem::take(&mut self.parts[from].outbox[to]);
                let old = std::mem::replace(&mut self.parts[to].inbox[from], out);
                debug_assert!(old.is_empty(), "an inbox is emptied in every window");
                self.parts[from].outbox[to] = old;
            }
        }
        min
    }

    /// The bound of the next window (threads or ranks), from the earliest
    /// pending key of any partition or inbox (`head`) and the dispatcher's
    /// (`global`): the next grid point after the earliest, or the dispatcher's
    /// event, or the stop. Or how the run ends: nothing left, past the stop,
    /// or stalled.
    pub(in crate::sim) fn next_window(
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
