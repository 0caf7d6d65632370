//! Guards against runaway runs (docs/scenario.md#limits): limits as data,
//! checked before running where the outcome is predictable, and while running.
//!
//! * Simulated time: a run stops with an error when its clock passes
//!   `max_sim_time` (default 10 s; `--max-sim-time` raises it). Before running,
//!   a flow that could not finish within the limit even alone at the fastest
//!   link's rate is refused ([`check_before`]; `validate` says so too).
//! * Output volume: the run's output files together may hold at most
//!   `max_output_bytes` (default 2 GB; `--max-output` raises it). Before running,
//!   the rows the sampled recorders must write over the least time the run can
//!   last are counted (each recorder's `Observer::least_output`); while
//!   running, the files' size is checked every 65536 events and at the end.
//! * No progress: while flows are active, some packet must be delivered in order
//!   at least every [`STALL_LIMIT`] of simulated time.
//!
//! Each failure is an [`InputError`] (exit code 2) naming the scenario, the field
//! and the flag that raises the limit; the run leaves no output.

use crate::config::RunConfig;
use crate::error::InputError;
use crate::output::TableFormat;
use crate::output::observers::{Before, Per, REGISTERED, Volume};
use crate::units::{Delta, SimTime};

/// How long no flow may make progress, while flows are active, before the run is
/// stopped as stalled (at least; [`stall_limit`]).
pub const STALL_LIMIT: Delta = Delta::from_ms(100);

/// The limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The simulated time a run may reach.
    pub max_sim_time: Delta,
    /// The bytes a run's output files may hold together.
    pub max_output_bytes: u64,
    /// The wall-clock time a run may take (`--max-wall-time`); none by default.
    pub max_wall_time: Option<std::time::Duration>,
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
            max_wall_time: None,
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

/// The earliest the last flow can finish: every flow's payload alone at the
/// fastest link's rate, and every host's payload to send and to receive through
/// its one link (from the first start among its flows).
fn least_end(cfg: &RunConfig, bps: u64) -> SimTime {
    let n = cfg.topo.spec.kinds.len();
    // Per node: (earliest start, bytes) sent and received.
    let mut sent = vec![(u64::MAX, 0u64); n];
    let mut recv = vec![(u64::MAX, 0u64); n];
    let mut end = 0u64;
    for f in &cfg.flows {
        end = end.max(f.start.ps().saturating_add(least_fct(f.size, bps).ps()));
        for (side, node) in [(&mut sent, f.src), (&mut recv, f.dst)] {
            let e = &mut side[node.idx()];
            *e = (e.0.min(f.start.ps()), e.1.saturating_add(f.size));
        }
    }
    for side in [&sent, &recv] {
        for (i, &(start, bytes)) in side.iter().enumerate() {
            let node = crate::topology::NodeId::from_idx(i);
            if bytes > 0 && cfg.topo.is_host(node) {
                let rate = cfg.topo.host_port(node).rate.bps();
                end = end.max(start.saturating_add(least_fct(bytes, rate).ps()));
            }
        }
    }
    SimTime(end)
}

/// The least time a byte of flow `f` takes to propagate: the delays of its
/// source's and its destination's links (every host has one link).
fn least_delay(cfg: &RunConfig, f: &crate::workload::FlowSpec) -> u64 {
    let delay = |n| {
        let topo = &cfg.topo;
        match topo.is_host(n) {
            true => topo.host_port(n).delay.ps(),
            false => 0,
        }
    };
    delay(f.src).saturating_add(delay(f.dst))
}

/// How long no flow may make progress while flows are active: [`STALL_LIMIT`],
/// or 4 base RTTs on a fabric whose round trip is longer (`base_rtt`, the
/// control interval T).
pub fn stall_limit(base_rtt: Delta) -> Delta {
    STALL_LIMIT.max(Delta::from_ps(base_rtt.ps().saturating_mul(4)))
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
    if cfg.flows.is_empty() {
        return Ok(());
    }
    let bps = fastest_bps(cfg);
    let limit = limits.max_sim_time;
    let capped = cfg.stop.is_some_and(|s| s.ps() <= limit.ps());
    for (id, f) in cfg.flows.iter().enumerate() {
        let payload = least_fct(f.size, bps).ps();
        let links = least_delay(cfg, f);
        let end = f.start.ps().saturating_add(payload).saturating_add(links);
        if end > limit.ps() && !capped {
            // Name what makes it long: the payload, or the links' delays.
            let needs = if links > payload {
                format!(
                    "its first byte needs at least {} to cross its hosts' links (their delay; \
                     valid: a shorter link delay",
                    human_time(links)
                )
            } else {
                format!(
                    "it needs at least {} at {} (valid: a smaller size, a faster rate",
                    human_time(payload),
                    crate::units::Rate::from_bps(bps),
                )
            };
            return Err(InputError::new(
                &cfg.source,
                "workload",
                format!(
                    "flow {id} ({} bytes from node {} to node {}, starting at {}) cannot finish \
                     within the simulated-time limit of {limit}: {needs}, or a `stop` time; \
                     --max-sim-time raises the limit)",
                    f.size,
                    f.src.0,
                    f.dst.0,
                    human_time(f.start.ps()),
                ),
            ));
        }
    }
    if !writes_files {
        return Ok(());
    }
    match least_output(cfg)
        .into_iter()
        .find(|v| v.bytes > limits.max_output_bytes)
    {
        Some(v) => Err(too_much_output(cfg, limits, &v)),
        None => Ok(()),
    }
}

/// What each sampled recorder writes at least in the run (in CSV bytes).
fn least_output(cfg: &RunConfig) -> Vec<Volume> {
    let Some(first) = cfg.flows.first() else {
        return Vec::new();
    };
    let bps = fastest_bps(cfg);
    // The run lasts at least until its flows could finish (each alone, and
    // each host's through its link), or until `stop`, whichever comes first.
    let last_end = least_end(cfg, bps);
    let end = cfg.stop.map_or(last_end, |s| s.min(last_end));
    let before = Before {
        plan: &cfg.output,
        flows: &cfg.flows,
        topo: &cfg.topo,
        stop: cfg.stop,
        span_ps: end.ps().saturating_sub(first.start.ps()),
        least_fct: &|size| least_fct(size, bps),
    };
    REGISTERED
        .iter()
        .filter_map(|r| (r.least_output)(&before))
        .collect()
}

/// Where `output.format` is unset, the streamed tables are Parquet once the
/// run is sure to write more CSV than this (docs/scenario.md, `[output]`).
pub const AUTO_PARQUET_BYTES: u64 = 1 << 30;

/// The least bytes a row of fct.csv takes (`0,0,1,1,0,1,1,1.000000,0,0,0,0`).
const FCT_ROW_MIN_BYTES: u64 = 32;

/// The format of the run's streamed tables: `output.format`, or where it is
/// unset CSV, unless the run is sure to write more than
/// [`AUTO_PARQUET_BYTES`] of CSV tables; then Parquet, with the note to show.
pub fn table_format(cfg: &RunConfig) -> (TableFormat, Option<String>) {
    if let Some(f) = cfg.output.format {
        return (f, None);
    }
    let sampled: u64 = least_output(cfg).iter().map(|v| v.bytes).sum();
    let least = sampled.saturating_add(cfg.flows.len() as u64 * FCT_ROW_MIN_BYTES);
    if least <= AUTO_PARQUET_BYTES {
        return (TableFormat::Csv, None);
    }
    let note = format!(
        "the run's tables would take at least {} as CSV: they are written as Parquet \
         (fct.parquet, queue.parquet, ...); output.format = \"csv\" keeps CSV",
        fmt_bytes(least)
    );
    (TableFormat::Parquet, Some(note))
}

/// The error when a recorder would write more than the output limit.
fn too_much_output(cfg: &RunConfig, limits: &Limits, v: &Volume) -> InputError {
    let (how, fewer) = match v.per {
        Per::Port { iv, ports, span_ps } => (
            format!(
                "every {iv} over {ports} ports for at least {}",
                human_time(span_ps)
            ),
            "fewer output.queue_ports",
        ),
        Per::Flow { iv } => (
            format!("every {iv} for each selected flow while it runs"),
            "fewer flows",
        ),
    };
    InputError::new(
        &cfg.source,
        v.field,
        format!(
            "{how}, {} would hold at least {} rows ({}), above the output limit of {} \
             (--max-output raises it; valid: a longer interval, {fewer}, or a `stop` time)",
            v.file,
            v.rows,
            fmt_bytes(v.bytes),
            fmt_bytes(limits.max_output_bytes)
        ),
    )
}

/// A time for a message, in the largest unit that keeps it at least 1, with
/// up to 3 decimals: `8.591us`, `64us`, `1.5s`.
pub fn human_time(ps: u64) -> String {
    const UNITS: [(u64, &str); 5] = [
        (crate::units::PS_PER_S, "s"),
        (crate::units::PS_PER_MS, "ms"),
        (crate::units::PS_PER_US, "us"),
        (crate::units::PS_PER_NS, "ns"),
        (1, "ps"),
    ];
    let (div, unit) = UNITS
        .into_iter()
        .find(|&(d, _)| ps >= d)
        .unwrap_or((1, "ps"));
    let text = format!("{:.3}", ps as f64 / div as f64);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{unit}")
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
            "the output files reached {} at simulated time {}, above the output limit of {}; \
             no output written (--max-output raises the limit; valid: longer recorder \
             intervals, fewer recorders, or a `stop` time)",
            match fmt_bytes(bytes) == fmt_bytes(limits.max_output_bytes) {
                true => format!("{bytes} bytes"),
                false => fmt_bytes(bytes),
            },
            human_time(now.ps()),
            fmt_bytes(limits.max_output_bytes)
        ),
    )
}

/// The error when the run has taken longer than `--max-wall-time`.
pub fn wall_time_exceeded(
    cfg: &RunConfig,
    limits: &Limits,
    now: SimTime,
    unfinished: usize,
) -> InputError {
    let wall = limits.max_wall_time.unwrap_or_default();
    InputError::new(
        &cfg.source,
        "",
        format!(
            "stopped at the wall-time limit of {} at simulated time {} with {unfinished} of {} \
             flows unfinished; no output written (--max-wall-time raises the limit)",
            human_wall(wall),
            human_time(now.ps()),
            cfg.flows.len()
        ),
    )
}

/// A wall-clock duration for a message: `90s`, `1.5h`.
pub fn human_wall(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    let (v, unit) = if s >= 3600.0 {
        (s / 3600.0, "h")
    } else if s >= 60.0 {
        (s / 60.0, "min")
    } else {
        (s, "s")
    };
    let text = format!("{v:.2}");
    format!("{}{unit}", text.trim_end_matches('0').trim_end_matches('.'))
}

/// The error when no flow made progress for `limit` ([`stall_limit`]).
pub fn stalled(cfg: &RunConfig, limit: Delta, at: SimTime, unfinished: usize) -> InputError {
    InputError::new(
        &cfg.source,
        "",
        format!(
            "no packet was delivered for {} of simulated time (at {}) while {unfinished} of {} \
             flows were unfinished: a PFC deadlock, a lost-packet stall, or links too slow to \
             make progress; no output written",
            human_time(limit.ps()),
            human_time(at.ps()),
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
