//! What the end of a run reads from each partition's nodes, taken by the
//! partition itself ([`Part::end`]): the dispatcher builds summary.json, the
//! PFC files and the queue histograms from these alone, so the same code ends
//! a run whose partitions are threads of this process or MPI ranks on other
//! machines (docs/parallel.md), which send theirs over.

use super::part::Part;
use crate::ids::EgressId;
use crate::node::Progress;
use crate::output::hist::{CountHist, QueueHists};
use crate::port::{CLASSES, Egress};
use crate::stats::Stats;
use crate::units::{Delta, SimTime};
use serde::{Deserialize, Serialize};

/// One egress port's pause state at the end (PFC files, paused time).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(crate) struct EgressEnd {
    pub gid: EgressId,
    /// Bit `c`: class `c` is paused.
    pub paused: u8,
    /// Per class: when its pause in force began.
    pub since: [SimTime; CLASSES],
    /// Per class: paused time of pauses that ended (ps).
    pub total_ps: [u64; CLASSES],
}

impl EgressEnd {
    fn of(eg: &Egress) -> EgressEnd {
        EgressEnd {
            gid: eg.gid,
            paused: (0..CLASSES as u8)
                .filter(|&c| eg.is_paused(c))
                .fold(0, |m, c| m | 1 << c),
            since: std::array::from_fn(|c| eg.paused_since(c as u8)),
            total_ps: std::array::from_fn(|c| eg.paused_total(c as u8).ps()),
        }
    }

    pub fn is_paused(&self, class: u8) -> bool {
        self.paused & (1 << class) != 0
    }

    /// Class `c`'s paused time up to `end`, the pause in force included.
    pub fn paused(&self, c: usize, end: SimTime) -> Delta {
        let open = if self.is_paused(c as u8) {
            end.since(self.since[c])
        } else {
            Delta::ZERO
        };
        Delta(self.total_ps[c]) + open
    }
}

/// One partition's part of the end of the run.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct PartEnd {
    /// The time of its last event.
    pub now: SimTime,
    pub progress: Progress,
    pub stats: Stats,
    pub events: u64,
    pub peak_events: usize,
    pub peak_packets: usize,
    pub crossed: u64,
    pub max_queue: u64,
    pub max_buffer: u64,
    /// Its egress ports (NICs' and switches') that were ever paused.
    pub egress: Vec<EgressEnd>,
    /// Its switch ports' queue bytes now (those not empty) and when they last
    /// changed.
    pub queued: Vec<(EgressId, u64, SimTime)>,
    /// Its shards of the queue-length and delay histograms.
    pub queue_hist: Option<QueueHists>,
    pub latency: Option<CountHist>,
    /// Seconds it spent handling events in windows.
    pub busy: f64,
}

impl Part {
    /// This partition's [`PartEnd`]; takes its histogram shards.
    pub(crate) fn end(&mut self, busy: f64) -> PartEnd {
        let switch_egress = self
            .switches
            .iter()
            .flat_map(|s| s.ports.iter().map(|p| &p.eg));
        let egress = self
            .nics
            .iter()
            .map(|n| &n.eg)
            .chain(switch_egress)
            .filter(|eg| {
                eg.paused != 0 || (0..CLASSES as u8).any(|c| !eg.paused_total(c).is_zero())
            })
            .map(EgressEnd::of)
            .collect();
        for p in self.switches.iter_mut().flat_map(|s| s.ports.iter_mut()) {
            self.journal.queue_settle(p.eg.gid, &mut p.eg.queue_clock);
        }
        let (queue_hist, latency) = self.journal.take_hists();
        let ports = || self.switches.iter().flat_map(|s| s.ports.iter());
        PartEnd {
            now: self.q.now(),
            progress: self.progress,
            stats: self.stats.clone(),
            events: self.q.processed(),
            peak_events: self.q.peak_len(),
            peak_packets: self.pool.peak(),
            crossed: self.crossed,
            max_queue: ports().map(|p| p.peak_bytes).max().unwrap_or(0),
            max_buffer: self
                .switches
                .iter()
                .map(|s| s.mmu.peak_used())
                .max()
                .unwrap_or(0),
            egress,
            queued: ports()
                .filter(|p| p.bytes > 0)
                .map(|p| (p.eg.gid, p.bytes, p.eg.queue_clock.since))
                .collect(),
            queue_hist,
            latency,
            busy,
        }
    }
}

/// The end state of every egress port that was ever paused, in egress id
/// order, from the partitions' ends (the others were never paused: a table of
/// every port would be 100 bytes a port on every rank).
pub(crate) fn ever_paused(ends: &[PartEnd]) -> Vec<EgressEnd> {
    let mut t: Vec<EgressEnd> = ends.iter().flat_map(|p| p.egress.iter().copied()).collect();
    t.sort_unstable_by_key(|e| e.gid);
    t
}
