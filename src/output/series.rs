//! Time-series recorders streamed to disk: link utilization of watched ports
//! (link_util.csv) and sending rate / delivered throughput of selected flows
//! (flow_rates.csv). Each keeps O(ports) or O(flows) state; rows go straight to
//! the file.

use super::{AtomicFile, fmt_ns};
use crate::error::Error;
use crate::ids::FlowId;
use crate::topology::NodeId;
use crate::units::{Rate, SimTime};
use std::io::Write;

pub const LINK_UTIL_HEADER: &str = "time_ns,node,port,utilization,tx_bytes,data_bytes";
pub const FLOW_RATES_HEADER: &str =
    "time_ns,flow_id,interval_ns,rate_gbps,window_bytes,sent_gbps,delivered_gbps,delivered_bytes";

/// Counters of one egress port at a sampling instant.
#[derive(Clone, Copy, Debug)]
pub struct PortCounters {
    pub node: NodeId,
    pub port: u16,
    pub rate: Rate,
    /// Wire bytes whose serialization has completed by now (the packet being
    /// serialized counts in proportion), so utilization is exact busy time.
    pub done_bytes: u64,
    /// Wire bytes put on the wire (counted when serialization starts).
    pub tx_bytes: u64,
    /// Of which data packets.
    pub data_bytes: u64,
}

/// link_util.csv: per watched port and interval `(t - iv, t]`, the fraction of
/// time the link was busy, and the bytes that started.
pub struct LinkUtil {
    file: AtomicFile,
    /// Previous counters per watched port (done, tx, data).
    prev: Vec<(u64, u64, u64)>,
    last: SimTime,
}

impl LinkUtil {
    pub fn new(mut file: AtomicFile, ports: usize, start: SimTime) -> Result<LinkUtil, Error> {
        writeln!(file, "{LINK_UTIL_HEADER}").map_err(|e| file.err(e))?;
        Ok(LinkUtil {
            file,
            prev: vec![(0, 0, 0); ports],
            last: start,
        })
    }

    /// One row for watched port number `k`; call for every port, then [`Self::tick_done`].
    pub fn row(&mut self, now: SimTime, k: usize, c: PortCounters) -> Result<(), Error> {
        let dt_ps = now.ps().saturating_sub(self.last.ps());
        let (done0, tx0, data0) = self.prev[k];
        self.prev[k] = (c.done_bytes, c.tx_bytes, c.data_bytes);
        let bits = (c.done_bytes - done0) as f64 * 8.0;
        let util = if dt_ps == 0 {
            0.0
        } else {
            bits / (c.rate.bps_f64() * dt_ps as f64 * 1e-12)
        };
        writeln!(
            self.file,
            "{},{},{},{:.6},{},{}",
            fmt_ns(now.ps()),
            c.node,
            c.port,
            util,
            c.tx_bytes - tx0,
            c.data_bytes - data0
        )
        .map_err(|e| self.file.err(e))
    }

    /// The bytes written so far.
    pub fn written(&self) -> u64 {
        self.file.written()
    }

    pub fn tick_done(&mut self, now: SimTime) {
        self.last = now;
    }

    pub fn into_file(self) -> AtomicFile {
        self.file
    }
}

/// Sender and receiver counters of one flow at a sampling instant.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct FlowCounters {
    /// The controller's pacing rate.
    #[serde(with = "crate::units::raw_rate")]
    pub rate: Rate,
    pub window: Option<u64>,
    /// Payload bytes sent, retransmissions included.
    pub sent: u64,
    /// Payload bytes delivered in order at the receiver.
    pub delivered: u64,
}

/// flow_rates.csv: per selected flow and interval, the controller's rate and
/// window at the end of the interval, and the payload throughput sent and
/// delivered during it. A flow's first interval starts at its start time; its
/// last ends at its completion, so the delivered throughput integrates to the
/// flow's size.
pub struct FlowRates {
    file: AtomicFile,
    selected: Vec<bool>,
    /// Per flow: end of its last interval, and the counters then (sent, delivered).
    state: Vec<(SimTime, u64, u64)>,
}

impl FlowRates {
    pub fn new(
        mut file: AtomicFile,
        selected: Vec<bool>,
        starts: Vec<SimTime>,
    ) -> Result<FlowRates, Error> {
        writeln!(file, "{FLOW_RATES_HEADER}").map_err(|e| file.err(e))?;
        Ok(FlowRates {
            file,
            selected,
            state: starts.into_iter().map(|t| (t, 0, 0)).collect(),
        })
    }

    #[inline]
    pub fn is_selected(&self, fid: FlowId) -> bool {
        self.selected[fid.idx()]
    }

    /// The bytes written so far.
    pub fn written(&self) -> u64 {
        self.file.written()
    }

    /// Per flow: whether it is recorded.
    pub fn selection(&self) -> &[bool] {
        &self.selected
    }

    /// A row for flow `fid` ending now (nothing when the interval is empty).
    pub fn row(&mut self, now: SimTime, fid: FlowId, c: FlowCounters) -> Result<(), Error> {
        let (t0, sent0, del0) = self.state[fid.idx()];
        let dt_ps = now.ps().saturating_sub(t0.ps());
        if dt_ps == 0 {
            return Ok(());
        }
        self.state[fid.idx()] = (now, c.sent, c.delivered);
        // bits per ns = Gbps.
        let gbps = |bytes: u64| bytes as f64 * 8.0 * 1000.0 / dt_ps as f64;
        let window = c.window.map(|w| w.to_string()).unwrap_or_default();
        writeln!(
            self.file,
            "{},{},{},{:.6},{window},{:.6},{:.6},{}",
            fmt_ns(now.ps()),
            fid.0,
            fmt_ns(dt_ps),
            c.rate.gbps_f64(),
            gbps(c.sent.saturating_sub(sent0)),
            gbps(c.delivered.saturating_sub(del0)),
            c.delivered
        )
        .map_err(|e| self.file.err(e))
    }

    pub fn into_file(self) -> AtomicFile {
        self.file
    }
}
