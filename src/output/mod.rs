//! Recorders and run outputs.
//!
//! A run directory holds `fct.csv`, `pfc.csv`, `queue.csv` and `summary.json`.
//! Recorders stream rows to temporary files as the run goes (memory stays bounded)
//! and rename them into place only when the run succeeds: a failed run leaves no
//! half-written output. Numbers are formatted deterministically, so the same
//! scenario and seed give byte-identical files (except the wall-clock keys of
//! summary.json).

mod atomic;
mod summary;

pub use atomic::AtomicFile;
pub use summary::{PfcHeadline, Summary, SummaryInput, percentile};

use crate::error::Error;
use crate::units::{Delta, SimTime};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One completed flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FctRecord {
    pub flow_id: u32,
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub size: u64,
    pub start: SimTime,
    pub fct: Delta,
    pub ideal: Delta,
    pub retx_bytes: u64,
    /// Payload bytes the receiver had in order when the flow completed.
    pub delivered: u64,
    pub cnps: u32,
    pub timeouts: u32,
}

impl FctRecord {
    pub fn slowdown(&self) -> f64 {
        self.fct.ps() as f64 / self.ideal.ps().max(1) as f64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PfcKind {
    Pause,
    Resume,
    /// A timed pause lapsed (no RESUME frame).
    Expire,
}

/// One queue-length sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSample {
    pub time: SimTime,
    pub node: u32,
    pub port: u16,
    pub bytes: u64,
}

/// One sample of a flow's sender state (in-memory rate trace).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    pub time: SimTime,
    pub flow: u32,
    /// The controller's pacing rate.
    pub rate: crate::units::Rate,
    /// The controller's window, if it has one.
    pub window: Option<u64>,
    /// Payload bytes the receiver has in order.
    pub delivered: u64,
    /// How receiver-driven control (RCC) classifies the flow's congestion.
    pub congestion: crate::cc::Congestion,
}

/// What a run returns.
#[derive(Debug)]
pub struct RunOutputs {
    pub summary: Summary,
    /// Completed flows in completion order.
    pub fct: Vec<FctRecord>,
    /// Queue samples, when kept in memory.
    pub samples: Vec<QueueSample>,
    /// Per-flow rate samples, when traced.
    pub rates: Vec<RateSample>,
    pub out_dir: Option<PathBuf>,
}

/// Formats picoseconds as nanoseconds: an integer when whole, else 3 decimals.
pub fn fmt_ns(ps: u64) -> String {
    if ps.is_multiple_of(1000) {
        format!("{}", ps / 1000)
    } else {
        format!("{}.{:03}", ps / 1000, ps % 1000)
    }
}

pub const FCT_HEADER: &str =
    "flow_id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,timeouts";

pub struct Recorder {
    dir: Option<PathBuf>,
    fct_file: Option<AtomicFile>,
    pfc_file: Option<AtomicFile>,
    queue_file: Option<AtomicFile>,
    fct: Vec<FctRecord>,
    keep_samples: bool,
    samples: Vec<QueueSample>,
    rates: Vec<RateSample>,
    io_error: Option<Error>,
    /// Whole files produced at the end of the run (name, content).
    extra: Vec<(&'static str, Vec<u8>)>,
}

impl Recorder {
    /// A recorder writing into `dir` (created if missing), or only to memory.
    pub fn new(dir: Option<&Path>, keep_samples: bool) -> Result<Recorder, Error> {
        let mut r = Recorder {
            dir: dir.map(Path::to_path_buf),
            fct_file: None,
            pfc_file: None,
            queue_file: None,
            fct: Vec::new(),
            keep_samples,
            samples: Vec::new(),
            rates: Vec::new(),
            io_error: None,
            extra: Vec::new(),
        };
        if let Some(d) = dir {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
            let mut fct = AtomicFile::create(d, "fct.csv")?;
            let mut pfc = AtomicFile::create(d, "pfc.csv")?;
            let mut queue = AtomicFile::create(d, "queue.csv")?;
            writeln!(fct, "{FCT_HEADER}").map_err(|e| fct.err(e))?;
            writeln!(pfc, "time_ns,node,port,priority,event").map_err(|e| pfc.err(e))?;
            writeln!(queue, "time_ns,node,port,bytes").map_err(|e| queue.err(e))?;
            r.fct_file = Some(fct);
            r.pfc_file = Some(pfc);
            r.queue_file = Some(queue);
        }
        Ok(r)
    }

    fn note<T>(&mut self, res: Result<T, Error>) {
        if let Err(e) = res
            && self.io_error.is_none()
        {
            self.io_error = Some(e);
        }
    }

    pub fn flow_done(&mut self, r: FctRecord) {
        if let Some(f) = self.fct_file.as_mut() {
            let res = writeln!(
                f,
                "{},{},{},{},{},{},{},{:.6},{},{},{}",
                r.flow_id,
                r.src,
                r.dst,
                r.size,
                fmt_ns(r.start.ps()),
                fmt_ns(r.fct.ps()),
                fmt_ns(r.ideal.ps()),
                r.slowdown(),
                r.retx_bytes,
                r.cnps,
                r.timeouts
            )
            .map_err(|e| f.err(e));
            self.note(res);
        }
        self.fct.push(r);
    }

    pub fn pfc_event(&mut self, now: SimTime, node: u32, port: u16, class: u8, kind: PfcKind) {
        if let Some(f) = self.pfc_file.as_mut() {
            let ev = match kind {
                PfcKind::Pause => "pause",
                PfcKind::Resume => "resume",
                PfcKind::Expire => "expire",
            };
            let res = writeln!(f, "{},{node},{port},{class},{ev}", fmt_ns(now.ps()))
                .map_err(|e| f.err(e));
            self.note(res);
        }
    }

    pub fn queue_sample(&mut self, now: SimTime, node: u32, port: u16, bytes: u64) {
        if let Some(f) = self.queue_file.as_mut() {
            let res =
                writeln!(f, "{},{node},{port},{bytes}", fmt_ns(now.ps())).map_err(|e| f.err(e));
            self.note(res);
        }
        if self.keep_samples {
            self.samples.push(QueueSample {
                time: now,
                node,
                port,
                bytes,
            });
        }
    }

    pub fn rate_sample(&mut self, s: RateSample) {
        self.rates.push(s);
    }

    /// A whole file to write with the others when the run ends (atomically, and
    /// only if it succeeds).
    pub fn add_file(&mut self, name: &'static str, content: Vec<u8>) {
        self.extra.push((name, content));
    }

    /// Writes summary.json and moves every file into place.
    pub fn finish(mut self, input: SummaryInput) -> Result<RunOutputs, Error> {
        if let Some(e) = self.io_error.take() {
            return Err(e);
        }
        let summary = Summary::new(&input, &self.fct);
        if let Some(dir) = &self.dir {
            let mut s = AtomicFile::create(dir, "summary.json")?;
            let json = serde_json::to_string_pretty(&summary).expect("summary serializes");
            writeln!(s, "{json}").map_err(|e| s.err(e))?;
            let mut extra = Vec::new();
            for (name, content) in std::mem::take(&mut self.extra) {
                let mut f = AtomicFile::create(dir, name)?;
                f.write_all(&content).map_err(|e| f.err(e))?;
                extra.push(f);
            }
            for f in extra {
                f.commit()?;
            }
            for f in [
                self.fct_file.take(),
                self.pfc_file.take(),
                self.queue_file.take(),
                Some(s),
            ]
            .into_iter()
            .flatten()
            {
                f.commit()?;
            }
        }
        Ok(RunOutputs {
            summary,
            fct: self.fct,
            samples: self.samples,
            rates: self.rates,
            out_dir: self.dir,
        })
    }
}
