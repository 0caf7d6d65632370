//! The end of a run: why it ended (the limits), each partition's end, and
//! the outputs written from them.

use super::ends::PartEnd;
use super::{Ending, Sim};
use super::{ends, limits};
use crate::error::Error;
use crate::output::RunOutputs;
use crate::port::CLASSES;
use crate::stats::Stats;
use crate::units::{Delta, SimTime};
use std::time::Instant;

impl Sim {
    /// Ends a run that ended with `ending` (started at `wall`): checks the
    /// limits and writes the outputs, from the partitions' ends.
    pub(super) fn conclude(
        mut self,
        ending: Ending,
        wall: Instant,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Result<RunOutputs, Error> {
        let total = self.sh.flows.len();
        let limit = SimTime(self.limits.max_sim_time.ps());
        let stop = self.sh.cfg.stop.unwrap_or(SimTime::MAX);
        let ends = self.ends();
        // A run that stops at the stop time ends at the first event past it,
        // which is counted (as the sequential engine always did); otherwise at
        // its last event.
        let end = match ending {
            Ending::Past(t) => {
                self.past_event = 1;
                t
            }
            _ => ends
                .iter()
                .map(|e| e.now)
                .chain(std::iter::once(self.gq.now()))
                .max()
                .unwrap_or(SimTime::ZERO),
        };
        let done = ends.iter().map(|e| e.progress.done).sum::<usize>();
        progress(self.at(end, done));
        let over = match ending {
            Ending::Deadlock => {
                let unfinished = total - done;
                return self.stop_on_deadlock(end, wall.elapsed().as_secs_f64(), ends, unfinished);
            }
            Ending::Failed(e) => return Err(e),
            Ending::Stalled(t) => {
                let unfinished = total - done;
                return Err(limits::stalled(&self.sh.cfg, self.stall, t, unfinished).into());
            }
            Ending::OutputOver(t, bytes) => Some(limits::output_exceeded(
                &self.sh.cfg,
                &self.limits,
                t,
                bytes,
            )),
            Ending::WallOver(t) => Some(limits::wall_time_exceeded(
                &self.sh.cfg,
                &self.limits,
                t,
                total - done,
            )),
            Ending::Past(t) if t > limit && t <= stop => Some(limits::sim_time_exceeded(
                &self.sh.cfg,
                &self.limits,
                total - done,
            )),
            Ending::Past(_) | Ending::Done => {
                // Short runs end between checks.
                let bytes = self.rec.output_bytes();
                (bytes > self.limits.max_output_bytes)
                    .then(|| limits::output_exceeded(&self.sh.cfg, &self.limits, end, bytes))
            }
        };
        if let Some(e) = over {
            return Err(e.into());
        }
        self.finish(end, wall.elapsed().as_secs_f64(), ends)
    }

    /// Every partition's end ([`Part::end`]), in partition order: this
    /// process's, or with MPI every rank's.
    pub(super) fn ends(&mut self) -> Vec<PartEnd> {
        let busy = std::mem::take(&mut self.engine.part_busy_seconds);
        let busy_of = |i: usize| busy.get(i).copied().unwrap_or(0.0);
        if let Some(r) = &self.ranks {
            let me = r.rank();
            let mine = self.parts[me].end(busy_of(me));
            self.engine.window_events = r.all_sum(&[self.engine.window_events])[0];
            return r.all_gather_obj(&mine);
        }
        let parts = self.parts.iter_mut().enumerate();
        parts.map(|(i, p)| p.end(busy_of(i))).collect()
    }

    /// Writes the outputs of a run that ended at `end`, from the partitions'
    /// `ends` and the dispatcher's recorder and diagnostics.
    pub(super) fn finish(
        mut self,
        end: SimTime,
        wall_seconds: f64,
        mut ends: Vec<PartEnd>,
    ) -> Result<RunOutputs, Error> {
        let egress = ends::ever_paused(&ends);
        self.close_pfc_diagnostics(end, &egress);
        let mut queue_hists: Vec<_> = ends.iter_mut().map(|e| e.queue_hist.take()).collect();
        let delays: Vec<_> = ends.iter_mut().map(|e| e.latency.take()).collect();
        let sh = &self.sh;
        self.rec.absorb(&mut queue_hists, &delays, |gid| {
            sh.node_part[sh.egress_owner[gid.idx()].0.idx()] as usize
        });
        // Close the queue histograms at the end of the run.
        // The ports not empty at the end, by egress id; the others hold 0.
        let mut queued: Vec<_> = ends.iter().flat_map(|e| e.queued.iter().copied()).collect();
        queued.sort_unstable_by_key(|q| q.0);
        for i in 0..self.rec.watched().len() {
            let gid = self.rec.watched()[i].gid;
            let (bytes, since) = match queued.binary_search_by_key(&gid, |q| q.0) {
                Ok(k) => (queued[k].1, queued[k].2),
                Err(_) => (0, SimTime::ZERO),
            };
            self.rec.queue_close(gid, since, end, bytes);
        }
        let paused: Delta = egress
            .iter()
            .flat_map(|e| (0..CLASSES).map(move |c| e.paused(c, end)))
            .fold(Delta::ZERO, |a, b| a + b);
        let max_queue = ends.iter().map(|e| e.max_queue).max().unwrap_or(0);
        let max_buffer = ends.iter().map(|e| e.max_buffer).max().unwrap_or(0);
        let mut stats = Stats::default();
        for e in &ends {
            stats.add(&e.stats);
        }
        let events =
            ends.iter().map(|e| e.events).sum::<u64>() + self.gq.processed() + self.past_event;
        self.engine.part_events = ends.iter().map(|e| e.events).collect();
        if ends.iter().any(|e| e.busy > 0.0) {
            self.engine.part_busy_seconds = ends.iter().map(|e| e.busy).collect();
        }
        self.engine.crossed_packets = ends.iter().map(|e| e.crossed).sum();
        self.engine.ordered_events = events - self.engine.window_events;
        let summary = crate::output::SummaryInput {
            flows_total: self.sh.flows.len(),
            end,
            events,
            stats,
            pfc_paused: paused,
            max_queue_bytes: max_queue,
            max_buffer_bytes: max_buffer,
            wall_seconds,
            base_rtt: self.sh.nic_cfg.base_rtt,
            peak_packets: ends.iter().map(|e| e.peak_packets).sum(),
            peak_events: ends.iter().map(|e| e.peak_events).sum(),
            pfc: self.pfc_headline(),
            engine: std::mem::take(&mut self.engine),
        };
        for (name, bytes) in self.pfc_files(end, &summary.stats, &egress) {
            self.rec.add_file(name, bytes);
        }
        self.rec.finish(summary)
    }
}
