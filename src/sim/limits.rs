//! Guards against runaway runs (docs/scenario.md#limits): limits as data,
//! checked before running where the outcome is predictable, and while running.
//!
//! * Simulated time: a run stops with an error when its clock passes
//!   `max_sim_time` (default 10 s; `--max-sim-time` raises it). Before running,
//!   a flow that could not finish within the limit even alone at the fastest
//!   link's rate is refused ([`check_before`]; `validate` says so too).
//! * Output volume: the run's output files together may hold at most
//!   `max_output_bytes` (default 2 GB; `--max-output` raises it). Before running,
//!   the rows the periodic recorders must write over the least time the run can
//!   last are counted; while running, the files' size is checked every 65536
//!   events and at the end.
//! * No progress: while flows are active, some packet must be delivered in order
//!   at least every [`STALL_LIMIT`] of simulated time.
//!
//! Each failure is an [`InputError`] (exit code 2) naming the scenario, the field
//! and the flag that raises the limit; the run leaves no output.

use crate::config::RunConfig;
use crate::error::InputError;
use crate::units::{Delta, SimTime};

/// How long no flow may make progress, while flows are active, before the run is
/// stopped as stalled.
pub const STALL_LIMIT: Delta = Delta::from_ms(100);

/// Bytes a row of queue.csv takes at least (`t,n,p,b` and a newline).
const QUEUE_ROW_MIN_BYTES: u64 = 8;
/// Bytes a row of link_util.csv takes at least.
const LINK_ROW_MIN_BYTES: u64 = 12;

/// The limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The simulated time a run may reach.
    pub max_sim_time: Delta,
    /// The bytes a run's output files may hold together.
    pub max_output_bytes: u64,
}

impl Limits {
    /// 10 s of simulated time (the longest shipped scenario stops at 1.5 s).
    pub const DEFAULT_MAX_SIM_TIME: Delta = Delta::from_ms(10_000);
    /// 2 GB of output files.
    pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 2_000_000_000;

    /// The last time whose events a run with stop time `stop` handles: the
    /// stop or this limit, whichever is earlier.
    pub fn last_handled(&self, stop: Option<SimTime>) -> SimTime {
        stop.unwrap_or(SimTime::MAX)
            .min(SimTime(self.max_sim_time.ps()))
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sim_time: Self::DEFAULT_MAX_SIM_TIME,
            max_output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// `n` bytes in human units.
pub fn fmt_bytes(n: u64) -> String {
    if n >= 1_000_000_000 {
        format!("{:.1}GB", n as f64 / 1e9)
    } else if n >= 1_000_000 {
        format!("{:.1}MB", n as f64 / 1e6)
    } else {
        format!("{n}B")
    }
}

/// The fastest link of the topology, bits per second (0 when there is none).
fn fastest_bps(cfg: &RunConfig) -> u64 {
    cfg.topo
        .ports
        .iter()
        .flatten()
        .map(|p| p.rate.bps())
        .max()
        .unwrap_or(0)
}

/// The least time flow `size` bytes can take: its payload alone at `bps`.
fn least_fct(size: u64, bps: u64) -> Delta {
    let ps = (size as u128 * 8 * 1_000_000_000_000) / bps.max(1) as u128;
    Delta::from_ps(ps.min(u64::MAX as u128) as u64)
}

/// Refuses, before anything runs, a scenario that cannot finish within the
/// limits: a flow slower than `max_sim_time` even alone on the fastest link, or
/// periodic recorders that would write more than `max_output_bytes` in the least
/// time the run can last. `writes_files`: the run writes a directory.
pub fn check_before(
    cfg: &RunConfig,
    limits: &Limits,
    writes_files: bool,
) -> Result<(), InputError> {
    let Some(first) = cfg.flows.first() else {
        return Ok(());
    };
    let bps = fastest_bps(cfg);
    let limit = limits.max_sim_time;
    let mut last_end = first.start;
    for (id, f) in cfg.flows.iter().enumerate() {
        let end = f.start.ps().saturating_add(least_fct(f.size, bps).ps());
        last_end = last_end.max(SimTime(end));
        let capped = cfg.stop.is_some_and(|s| s.ps() <= limit.ps());
        if end > limit.ps() && !capped {
            return Err(InputError::new(
                &cfg.source,
                "workload",
                format!(
                    "flow {id} ({} bytes from node {} to node {}, starting at {}) cannot finish \
                     within the simulated-time limit of {limit}: it needs at least {} at {} \
                     (--max-sim-time raises the limit; valid: a smaller size, a faster rate or \
                     a `stop` time)",
                    f.size,
                    f.src.0,
                    f.dst.0,
                    f.start,
                    least_fct(f.size, bps),
                    crate::units::Rate::from_bps(bps),
                ),
            ));
        }
    }
    if !writes_files {
        return Ok(());
    }
    // The run lasts at least until the last flow could finish alone, or until
    // `stop`, whichever comes first.
    let end = cfg.stop.map_or(last_end, |s| s.min(last_end));
    let span = end.ps().saturating_sub(first.start.ps());
    let out = &cfg.output;
    let ports = match &out.queue_ports {
        Some(v) => v.len() as u64,
        None => cfg
            .topo
            .switches
            .iter()
            .map(|s| cfg.topo.ports[s.idx()].len() as u64)
            .sum(),
    };
    let mut checks = Vec::new();
    if let Some(iv) = out.queue_interval {
        checks.push((
            "output.queue_interval",
            "queue.csv",
            iv,
            QUEUE_ROW_MIN_BYTES,
        ));
    }
    if let Some(iv) = out.link_utilization {
        checks.push((
            "output.link_utilization",
            "link_util.csv",
            iv,
            LINK_ROW_MIN_BYTES,
        ));
    }
    for (field, file, iv, row) in checks {
        let rows = (span / iv.ps().max(1)).saturating_mul(ports);
        let bytes = rows.saturating_mul(row);
        if ports > 0 && bytes > limits.max_output_bytes {
            return Err(InputError::new(
                &cfg.source,
                field,
                format!(
                    "every {iv} over {ports} ports for at least {}, {file} would hold at least \
                     {rows} rows ({}), above the output limit of {} (--max-output raises it; \
                     valid: a longer interval, fewer output.queue_ports, or a `stop` time)",
                    Delta::from_ps(span),
                    fmt_bytes(bytes),
                    fmt_bytes(limits.max_output_bytes)
                ),
            ));
        }
    }
    Ok(())
}

/// The error when the clock passes the limit.
pub fn sim_time_exceeded(cfg: &RunConfig, limits: &Limits, unfinished: usize) -> InputError {
    InputError::new(
        &cfg.source,
        "",
        format!(
            "stopped at the simulated-time limit of {} with {unfinished} of {} flows unfinished; \
             no output written (--max-sim-time raises the limit; or set `stop`)",
            limits.max_sim_time,
            cfg.flows.len()
        ),
    )
}

/// The error when the output files outgrow the limit.
pub fn output_exceeded(cfg: &RunConfig, limits: &Limits, now: SimTime, bytes: u64) -> InputError {
    InputError::new(
        &cfg.source,
        "output",
        format!(
            "the output files reached {} at simulated time {now}, above the output limit of {}; \
             no output written (--max-output raises the limit; valid: longer recorder \
             intervals, fewer recorders, or a `stop` time)",
            fmt_bytes(bytes),
            fmt_bytes(limits.max_output_bytes)
        ),
    )
}

/// The error when no flow made progress for [`STALL_LIMIT`].
pub fn stalled(cfg: &RunConfig, at: SimTime, unfinished: usize) -> InputError {
    InputError::new(
        &cfg.source,
        "",
        format!(
            "no packet was delivered for {STALL_LIMIT} of simulated time (at {at}) while \
             {unfinished} of {} flows were unfinished: a PFC deadlock, a lost-packet stall, or \
             links too slow to make progress; no output written",
            cfg.flows.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_fct_is_the_payload_at_line_rate_and_saturates() {
        assert_eq!(least_fct(1000, 8_000_000_000), Delta::from_ps(1_000_000));
        assert_eq!(least_fct(u64::MAX, 1), Delta::from_ps(u64::MAX));
    }

    #[test]
    fn byte_counts_read_in_human_units() {
        assert_eq!(fmt_bytes(2_000_000_000), "2.0GB");
        assert_eq!(fmt_bytes(1_500_000), "1.5MB");
        assert_eq!(fmt_bytes(12), "12B");
    }
}
