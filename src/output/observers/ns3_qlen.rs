//! The HPCC ns-3 simulator's `qlen.txt` (third.cc `monitor_buffer`), with
//! `output.fct_format = "ns3"` and a monitoring window
//! (`output.qlen_mon_start`, `output.qlen_mon_end`): every 100 ns of the
//! window each switch egress port's backlog (all classes) goes into a
//! histogram of 1 KB bins; at every absolute time that is a multiple of
//! 100 ms the histograms so far are dumped as `time: T` then
//! `switch port c0 c1 ...` lines (interface index = our port + 1). ns-3 dumps
//! only there (so a window from 2 s to 2.01 s shows one sample); we also dump
//! once when the window ends. Times are absolute ns-3 times: our simulated
//! time plus `workload.ns3_time_offset` (docs/ns3-compat.md).

use super::{FabricView, Finished, Ledger, Observer, Setup};
use crate::error::Error;
use crate::output::plan::FctFormat;
use crate::output::{AtomicFile, TableFile};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use std::collections::BTreeMap;
use std::io::Write;

/// ns-3's qlen.txt sampling interval (third.cc `qlen_mon_interval`).
pub const QLEN_INTERVAL_NS: u64 = 100;
/// ns-3's qlen.txt dump period (third.cc `qlen_dump_interval`).
pub const QLEN_DUMP_NS: u64 = 100_000_000;

/// The qlen.txt monitor.
pub struct Ns3Qlen {
    /// The monitoring window (simulated time).
    window: (SimTime, SimTime),
    /// Every switch egress port.
    ports: Vec<(NodeId, u16)>,
    /// None on a mirror (an MPI rank other than 0).
    file: Option<AtomicFile>,
    offset_ps: u64,
    /// Per port: samples per 1 KB bin.
    dist: BTreeMap<(NodeId, u16), Vec<u32>>,
    last_dump: Option<u64>,
}

impl Observer for Ns3Qlen {
    fn files() -> &'static [&'static str] {
        &["qlen.txt"]
    }

    fn build(s: &Setup<'_>) -> Result<Option<Self>, Error> {
        let plan = s.run.plan;
        let Some(window) = plan.qlen_mon else {
            return Ok(None);
        };
        if plan.fct_format != FctFormat::Ns3 || !s.records() {
            return Ok(None);
        }
        let file = match s.dir {
            Some(dir) => Some(AtomicFile::create(dir, "qlen.txt")?),
            None => None,
        };
        Ok(Some(Ns3Qlen {
            window,
            ports: s.run.topo.switch_ports(),
            file,
            offset_ps: plan.ns3_time_offset.ps(),
            dist: BTreeMap::new(),
            last_dump: None,
        }))
    }

    fn first(&self) -> Option<SimTime> {
        Some(self.window.0)
    }

    fn sample(
        &mut self,
        now: SimTime,
        view: &dyn FabricView,
        ledger: &mut Ledger,
    ) -> Option<SimTime> {
        let bytes = view.queued(&self.ports);
        let end = self.window.1;
        if !ledger.is_over() && self.file.is_some() {
            let res = self.record(now, &bytes, now >= end);
            ledger.note(res);
            ledger.fits(self.written());
        }
        (now < end).then_some(now + Delta::from_ns(QLEN_INTERVAL_NS))
    }

    fn written(&self) -> u64 {
        self.file.as_ref().map_or(0, AtomicFile::written)
    }

    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error> {
        out.files.extend(self.file.map(TableFile::from));
        Ok(())
    }
}

impl Ns3Qlen {
    /// One sample: `bytes[k]` queued at port `k`; `last` is the window's
    /// final sample (dumped even off a 100 ms boundary).
    fn record(&mut self, now: SimTime, bytes: &[u64], last: bool) -> Result<(), Error> {
        for (&port, &b) in self.ports.iter().zip(bytes) {
            let cnt = self.dist.entry(port).or_default();
            let kb = (b / 1000) as usize;
            if cnt.len() < kb + 1 {
                cnt.resize(kb + 1, 0);
            }
            cnt[kb] += 1;
        }
        let t_ns = (now.ps() + self.offset_ps) / 1000;
        if !(t_ns.is_multiple_of(QLEN_DUMP_NS) || last) || self.last_dump == Some(t_ns) {
            return Ok(());
        }
        self.last_dump = Some(t_ns);
        let f = self.file.as_mut().expect("samples are written to a file");
        let res = dump(f, t_ns, &self.dist);
        res.map_err(|e| f.err(e))
    }
}

/// The histograms so far, at ns-3 time `t_ns`.
fn dump(
    f: &mut AtomicFile,
    t_ns: u64,
    dist: &BTreeMap<(NodeId, u16), Vec<u32>>,
) -> std::io::Result<()> {
    writeln!(f, "time: {t_ns}")?;
    for (&(node, port), cnt) in dist {
        write!(f, "{node} {}", port + 1)?;
        for c in cnt {
            write!(f, " {c}")?;
        }
        writeln!(f)?;
    }
    Ok(())
}
