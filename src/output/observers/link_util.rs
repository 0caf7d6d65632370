//! link_util.csv: per watched port and interval `(t - iv, t]` of
//! `output.link_utilization`, the fraction of time the link was busy, and
//! the bytes that started. O(ports) state; rows go straight to the file.

use super::{Before, FabricView, Finished, Ledger, Observer, Setup, Volume};
use crate::error::Error;
use crate::output::{Kind, Table, TableFile, fmt_ns};
use crate::topology::NodeId;
use crate::units::{Delta, Rate, SimTime};
use std::io::Write;

/// link_util.csv's columns.
pub const TABLE: Table = Table {
    stem: "link_util",
    columns: &[
        ("time_ns", Kind::Float),
        ("node", Kind::Int),
        ("port", Kind::Int),
        ("utilization", Kind::Float),
        ("tx_bytes", Kind::Int),
        ("data_bytes", Kind::Int),
    ],
};

/// Bytes a row of link_util.csv takes at least.
const ROW_MIN_BYTES: u64 = 12;

/// Counters of one egress port at a sampling instant.
#[derive(Clone, Copy, Debug, Default)]
struct PortCounters {
    /// Wire bytes whose serialization has completed by now (the packet being
    /// serialized counts in proportion), so utilization is exact busy time.
    done_bytes: u64,
    /// Wire bytes put on the wire (counted when serialization starts).
    tx_bytes: u64,
    /// Of which data packets.
    data_bytes: u64,
}

/// The link-utilization sampler.
pub struct LinkUtil {
    interval: Delta,
    start: SimTime,
    /// The watched ports and their line rates.
    ports: Vec<(NodeId, u16)>,
    rates: Vec<Rate>,
    /// None on a mirror (an MPI rank other than 0).
    file: Option<TableFile>,
    /// Previous counters per watched port.
    prev: Vec<PortCounters>,
    last: SimTime,
}

impl Observer for LinkUtil {
    fn files() -> &'static [&'static str] {
        &["link_util.csv"]
    }

    fn all_on() -> Option<&'static str> {
        Some("output.link_utilization=\"10us\"")
    }

    fn least_output(run: &Before<'_>) -> Option<Volume> {
        let iv = run.plan.link_utilization?;
        run.per_port(
            "output.link_utilization",
            "link_util.csv",
            iv,
            ROW_MIN_BYTES,
        )
    }

    fn build(s: &Setup<'_>) -> Result<Option<Self>, Error> {
        let Some(interval) = s.run.plan.link_utilization else {
            return Ok(None);
        };
        if s.watched.is_empty() || !s.records() {
            return Ok(None);
        }
        let ports = s.watched_ports();
        let topo = s.run.topo;
        Ok(Some(LinkUtil {
            interval,
            start: s.start(),
            rates: (ports.iter())
                .map(|&(n, p)| topo.ports[n.idx()][p as usize].rate)
                .collect(),
            prev: vec![PortCounters::default(); ports.len()],
            ports,
            file: s.table(&TABLE)?,
            last: s.start(),
        }))
    }

    fn first(&self) -> Option<SimTime> {
        Some(self.start + self.interval)
    }

    fn sample(
        &mut self,
        now: SimTime,
        view: &dyn FabricView,
        ledger: &mut Ledger,
    ) -> Option<SimTime> {
        let values = view.port_values(&self.ports, 3, &|p, v| {
            let eg = p.eg;
            let in_progress = if eg.busy_until > now {
                eg.rate.bytes_in(eg.busy_until.since(now))
            } else {
                0
            };
            v.copy_from_slice(&[
                eg.tx_bytes.saturating_sub(in_progress),
                eg.tx_bytes,
                eg.tx_data_bytes,
            ]);
        });
        self.record(now, &values, ledger);
        Some(now + self.interval)
    }

    fn written(&self) -> u64 {
        self.file.as_ref().map_or(0, TableFile::written)
    }

    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error> {
        out.files.extend(self.file);
        Ok(())
    }
}

impl LinkUtil {
    /// One row per watched port, each checked against the limit (one sample
    /// of many ports can be large).
    fn record(&mut self, now: SimTime, values: &[u64], ledger: &mut Ledger) {
        if ledger.is_over() || self.file.is_none() {
            return;
        }
        let mut res = Ok(());
        for (k, v) in values.chunks_exact(3).enumerate() {
            if !ledger.fits(self.written()) {
                return;
            }
            let c = PortCounters {
                done_bytes: v[0],
                tx_bytes: v[1],
                data_bytes: v[2],
            };
            res = res.and(self.row(now, k, c));
        }
        self.last = now;
        ledger.note(res);
        ledger.fits(self.written());
    }

    /// The row of watched port number `k`.
    fn row(&mut self, now: SimTime, k: usize, c: PortCounters) -> Result<(), Error> {
        let f = self.file.as_mut().expect("rows are written to a file");
        let dt_ps = now.ps().saturating_sub(self.last.ps());
        let p = std::mem::replace(&mut self.prev[k], c);
        let bits = (c.done_bytes - p.done_bytes) as f64 * 8.0;
        let util = if dt_ps == 0 {
            0.0
        } else {
            bits / (self.rates[k].bps_f64() * dt_ps as f64 * 1e-12)
        };
        let (node, port) = self.ports[k];
        writeln!(
            f,
            "{},{},{},{:.6},{},{}",
            fmt_ns(now.ps()),
            node,
            port,
            util,
            c.tx_bytes - p.tx_bytes,
            c.data_bytes - p.data_bytes
        )
        .map_err(|e| f.err(e))
    }
}
