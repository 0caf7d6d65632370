//! summary.json: the run's headline numbers.

use crate::stats::Stats;
use crate::units::{Delta, SimTime};
use serde::Serialize;

/// What the simulator hands over at the end of a run.
#[derive(Clone, Debug)]
pub struct SummaryInput {
    pub flows_total: usize,
    pub end: SimTime,
    pub events: u64,
    pub stats: Stats,
    pub pfc_paused: Delta,
    pub max_queue_bytes: u64,
    pub max_buffer_bytes: u64,
    pub wall_seconds: f64,
    pub base_rtt: Delta,
    pub peak_packets: usize,
    pub peak_events: usize,
    pub pfc: PfcHeadline,
    pub engine: Engine,
}

/// How the run was executed (timing.json): the partitions of a parallel run
/// and their synchronisation (docs/parallel.md). Nothing here changes what the
/// run computes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Engine {
    /// Threads (or MPI ranks) the partitions ran on.
    pub threads: usize,
    /// Partitions of the nodes (at least one a thread; one a rank).
    pub partitions: usize,
    /// Synchronisation windows run in parallel.
    pub windows: u64,
    /// Events handled inside those windows.
    pub window_events: u64,
    /// Events handled one at a time in key order (the run's tail, after the
    /// last flow started, and every event of a one-thread run).
    pub ordered_events: u64,
    /// Packets that crossed from one partition to another.
    pub crossed_packets: u64,
    /// Events handled by each partition.
    pub part_events: Vec<u64>,
    /// Seconds each partition spent handling events inside windows.
    pub part_busy_seconds: Vec<f64>,
    /// Sum over windows of the most events one partition handled: the
    /// parallel phase's length in events with free synchronisation (the same
    /// on any machine).
    pub critical_events: u64,
    /// Sum over windows of the busiest partition's seconds: the windowed
    /// phase's time with free synchronisation.
    pub critical_seconds: f64,
    /// Seconds from posting the windows to having every partition back.
    pub window_seconds: f64,
    /// Seconds spent between windows handing packets over and applying the
    /// journals that could not wait (the serial merge).
    pub merge_seconds: f64,
    /// Seconds the dispatcher's thread spent applying the previous window's
    /// journals at the start of a window, while the workers ran partitions
    /// (inside `window_seconds`).
    pub filing_seconds: f64,
    /// Of those, the seconds by which they made windows longer: the
    /// dispatcher's thread's partitions and notes against the longest
    /// thread's partitions (the rest overlapped the workers).
    pub filing_exposed_seconds: f64,
    /// Hand-overs of a window from one thread to another, and their own
    /// cost: from a window's posting to the woken thread seeing it, plus
    /// from its finishing (or its waker's starting to wait) to the waker
    /// seeing it done. One level of the hand-over tree (docs/parallel.md).
    pub handovers: u64,
    pub handover_seconds: f64,
    /// Seconds of the windowed phase, wall clock, and of the one-at-a-time phase.
    pub windowed_seconds: f64,
    pub ordered_seconds: f64,
    /// The window grid: the smallest link delay, ns.
    pub lookahead_ns: f64,
}

/// Headline numbers of the PFC diagnostics (pfc_diagnostics.json has the rest).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PfcHeadline {
    /// Deepest propagation of a pause, in hops upstream (HPCC Fig. 1a).
    pub max_propagation_hops: u8,
    /// Flows paused at a switch although their own egress there was not congested.
    pub victim_flows: usize,
    /// (port, class, window) triples paused more than the storm fraction.
    pub storm_windows: u64,
    /// A deadlock was detected (the run stopped).
    pub deadlock: bool,
}

/// Nearest-rank percentile (`p` in 0..=100) of sorted values; 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Keys in file order; every key is deterministic. The machine measurements
/// (`wall_seconds` and the per-second rates) are kept for the caller but written
/// to timing.json ([`Timing`]), so that summary.json is byte-identical between
/// runs of the same scenario and seed.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub flows_total: usize,
    pub flows_completed: usize,
    pub slowdown_p50: f64,
    pub slowdown_p95: f64,
    pub slowdown_p99: f64,
    pub slowdown_max: f64,
    pub max_queue_bytes: u64,
    pub max_buffer_bytes: u64,
    pub pfc_pause_frames: u64,
    pub pfc_resume_frames: u64,
    pub pfc_paused_ns: f64,
    pub ppfc_pause_frames: u64,
    pub pfc_max_propagation_hops: u8,
    pub pfc_victim_flows: usize,
    pub pfc_storm_windows: u64,
    pub pfc_deadlock: bool,
    pub drops: u64,
    pub drops_buffer: u64,
    pub drops_link: u64,
    pub payload_sent_bytes: u64,
    pub payload_received_bytes: u64,
    pub delivered_bytes: u64,
    pub retransmitted_bytes: u64,
    pub retransmitted_packets: u64,
    pub timeouts: u64,
    pub cnps_sent: u64,
    pub nacks_sent: u64,
    /// ExpressPass credits sent by receivers and dropped at credit queues
    /// (absent from runs without credits).
    #[serde(skip_serializing_if = "is_zero")]
    pub credits_sent: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub credits_dropped: u64,
    pub events: u64,
    pub packets_transmitted: u64,
    pub data_packets_transmitted: u64,
    pub control_interval_ns: f64,
    pub sim_seconds: f64,
    /// The jobs of collectives and dependency graphs (absent without them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<super::collectives::JobSummary>,
    /// Engine measurements (timing.json): with several threads these depend on
    /// how the nodes are split.
    #[serde(skip)]
    pub peak_packets_in_flight: usize,
    #[serde(skip)]
    pub peak_pending_events: usize,
    #[serde(skip)]
    pub engine: Engine,
    #[serde(skip)]
    pub wall_seconds: f64,
    #[serde(skip)]
    pub events_per_second: f64,
    #[serde(skip)]
    pub packets_per_second: f64,
}

/// timing.json: how fast this machine ran the simulation. The only output file
/// that differs between runs of the same scenario and seed.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub wall_seconds: f64,
    pub events_per_second: f64,
    pub packets_per_second: f64,
    /// Summed over the partitions' pools and queues.
    pub peak_packets_in_flight: usize,
    pub peak_pending_events: usize,
    pub engine: Engine,
    /// The heap was backed by transparent huge pages (`crate::huge_pages`).
    pub heap_huge_pages: bool,
    /// How the binary was compiled ([`crate::build_info::BUILD`]).
    pub build: &'static str,
}

impl Timing {
    pub fn of(s: &Summary) -> Timing {
        Timing {
            wall_seconds: s.wall_seconds,
            events_per_second: s.events_per_second,
            packets_per_second: s.packets_per_second,
            peak_packets_in_flight: s.peak_packets_in_flight,
            peak_pending_events: s.peak_pending_events,
            engine: s.engine.clone(),
            heap_huge_pages: crate::huge_pages::active(),
            build: crate::build_info::BUILD,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    /// The summary of a run whose completed flows had slowdowns `sd` (any order).
    pub fn new(i: &SummaryInput, mut sd: Vec<f64>) -> Summary {
        let completed = sd.len();
        sd.sort_by(f64::total_cmp);
        let s = &i.stats;
        let wall = i.wall_seconds.max(1e-9);
        Summary {
            flows_total: i.flows_total,
            flows_completed: completed,
            jobs: Vec::new(),
            slowdown_p50: percentile(&sd, 50.0),
            slowdown_p95: percentile(&sd, 95.0),
            slowdown_p99: percentile(&sd, 99.0),
            slowdown_max: sd.last().copied().unwrap_or(0.0),
            max_queue_bytes: i.max_queue_bytes,
            max_buffer_bytes: i.max_buffer_bytes,
            pfc_pause_frames: s.pfc_pause_frames,
            pfc_resume_frames: s.pfc_resume_frames,
            pfc_paused_ns: i.pfc_paused.as_ns_f64(),
            ppfc_pause_frames: s.ppfc_pause_frames,
            pfc_max_propagation_hops: i.pfc.max_propagation_hops,
            pfc_victim_flows: i.pfc.victim_flows,
            pfc_storm_windows: i.pfc.storm_windows,
            pfc_deadlock: i.pfc.deadlock,
            drops: s.drops_buffer + s.drops_link + s.drops_no_route,
            drops_buffer: s.drops_buffer,
            drops_link: s.drops_link,
            payload_sent_bytes: s.payload_tx_bytes,
            payload_received_bytes: s.payload_rx_bytes,
            delivered_bytes: s.delivered_bytes,
            retransmitted_bytes: s.retx_bytes,
            retransmitted_packets: s.retx_packets,
            timeouts: s.timeouts,
            cnps_sent: s.cnps_sent,
            nacks_sent: s.nacks_sent,
            credits_sent: s.credits_sent,
            credits_dropped: s.credits_dropped,
            events: i.events,
            packets_transmitted: s.packets_tx,
            data_packets_transmitted: s.data_packets_tx,
            control_interval_ns: i.base_rtt.as_ns_f64(),
            sim_seconds: i.end.as_secs_f64(),
            peak_packets_in_flight: i.peak_packets,
            peak_pending_events: i.peak_events,
            engine: i.engine.clone(),
            wall_seconds: i.wall_seconds,
            events_per_second: i.events as f64 / wall,
            packets_per_second: s.packets_tx as f64 / wall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[3.0], 99.0), 3.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
