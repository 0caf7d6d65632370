//! flow_rates.csv: per selected flow (`output.flow_rates`) and interval, the
//! controller's rate and window at the end of the interval, and the payload
//! throughput sent and delivered during it. A flow's first interval starts at
//! its start time; its last ends at its completion (the nodes journal its
//! last counters), so the delivered throughput integrates to the flow's size.

use super::{Before, FabricView, Finished, FlowCounters, Ledger, Observer, Per, Setup, Volume};
use crate::error::Error;
use crate::ids::FlowId;
use crate::output::{Kind, Table, TableFile, fmt_ns};
use crate::units::{Delta, SimTime};
use std::io::Write;

/// flow_rates.csv's columns (`window_bytes` is empty for rate-based controllers).
pub const TABLE: Table = Table {
    stem: "flow_rates",
    columns: &[
        ("time_ns", Kind::Float),
        ("flow_id", Kind::Int),
        ("interval_ns", Kind::Float),
        ("rate_gbps", Kind::Float),
        ("window_bytes", Kind::Int),
        ("sent_gbps", Kind::Float),
        ("delivered_gbps", Kind::Float),
        ("delivered_bytes", Kind::Int),
    ],
};

/// Bytes a row of flow_rates.csv takes at least.
const ROW_MIN_BYTES: u64 = 16;

/// The flow-rate sampler.
pub struct FlowRates {
    interval: Delta,
    start: SimTime,
    /// None on a mirror (an MPI rank other than 0).
    file: Option<TableFile>,
    selected: Vec<bool>,
    /// Per flow: end of its last interval, and the counters then (sent, delivered).
    state: Vec<(SimTime, u64, u64)>,
}

impl Observer for FlowRates {
    fn files() -> &'static [&'static str] {
        &["flow_rates.csv"]
    }

    fn all_on() -> Option<&'static str> {
        Some("output.flow_rates={ flows = \"all\", interval = \"10us\" }")
    }

    /// A row per selected flow per interval while it runs, and a flow runs
    /// at least its payload alone at the fastest rate (within `stop`).
    fn least_output(run: &Before<'_>) -> Option<Volume> {
        let (set, iv) = run.plan.flow_rates.as_ref()?;
        let stop = run.stop.map_or(u64::MAX, SimTime::ps);
        let selected = set.mask(run.flows);
        let mut rows = 0u64;
        for (f, _) in run.flows.iter().zip(&selected).filter(|(_, s)| **s) {
            let end = f.start.ps().saturating_add((run.least_fct)(f.size).ps());
            let span = end.min(stop).saturating_sub(f.start.ps());
            rows = rows.saturating_add(span / iv.ps().max(1));
        }
        Some(Volume {
            field: "output.flow_rates",
            file: "flow_rates.csv",
            per: Per::Flow { iv: *iv },
            rows,
            bytes: rows.saturating_mul(ROW_MIN_BYTES),
        })
    }

    fn build(s: &Setup<'_>) -> Result<Option<Self>, Error> {
        let Some((set, interval)) = &s.run.plan.flow_rates else {
            return Ok(None);
        };
        if !s.records() {
            return Ok(None);
        }
        Ok(Some(FlowRates {
            interval: *interval,
            start: s.start(),
            file: s.table(&TABLE)?,
            selected: set.mask(s.run.flows),
            state: s.run.flows.iter().map(|f| (f.start, 0, 0)).collect(),
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
        for (fid, c) in view.flow_counters(&|f| self.selected[f.idx()]) {
            self.flow_end(now, fid, c, ledger);
        }
        Some(now + self.interval)
    }

    fn flows_journaled(&self) -> Option<&[bool]> {
        Some(&self.selected)
    }

    fn flow_end(&mut self, now: SimTime, fid: FlowId, c: FlowCounters, ledger: &mut Ledger) {
        if ledger.is_over() || self.file.is_none() {
            return;
        }
        let res = self.row(now, fid, c);
        ledger.note(res);
        ledger.fits(self.written());
    }

    fn written(&self) -> u64 {
        self.file.as_ref().map_or(0, TableFile::written)
    }

    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error> {
        out.files.extend(self.file);
        Ok(())
    }
}

impl FlowRates {
    /// A row for flow `fid` ending now (nothing when the interval is empty).
    fn row(&mut self, now: SimTime, fid: FlowId, c: FlowCounters) -> Result<(), Error> {
        let f = self.file.as_mut().expect("rows are written to a file");
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
            f,
            "{},{},{},{:.6},{window},{:.6},{:.6},{}",
            fmt_ns(now.ps()),
            fid.0,
            fmt_ns(dt_ps),
            c.rate.gbps_f64(),
            gbps(c.sent.saturating_sub(sent0)),
            gbps(c.delivered.saturating_sub(del0)),
            c.delivered
        )
        .map_err(|e| f.err(e))
    }
}
