//! Recorders and run outputs.
//!
//! A run directory holds `fct.csv`, `pfc.csv`, `queue.csv`, `summary.json`,
//! `timing.json` (wall-clock measurements) and `scenario.toml` (the effective
//! scenario), plus what `[output]` turns on:
//! `queue_hist.csv` (on by default), `link_util.csv`, `flow_rates.csv` and
//! `latency_hist.csv` (on by default for flows under 100KB), and with
//! `fct_format = "ns3"` the HPCC ns-3 simulator's `fct.txt`, `pfc.txt` and
//! `qlen.txt` ([`ns3`]). docs/models.md lists every column.
//!
//! Recorders stream rows to temporary files as the run goes, and keep only
//! O(ports + flows) state in memory (histograms have fixed bins), so memory stays
//! bounded on long runs; files are renamed into place only when the run succeeds:
//! a failed run leaves no half-written output. Numbers are formatted
//! deterministically, so the same scenario and seed give byte-identical files
//! (except timing.json, which measures the machine). The extra recorders run only when
//! the run writes a directory.

mod atomic;
pub mod claim;
pub mod hist;
pub mod journal;
pub mod ns3;
pub mod pfc_diag;
pub mod pfc_report;
pub mod plan;
pub mod series;
mod summary;

pub use atomic::{AtomicFile, register_created_dir, register_scratch_dir, remove_all_temporaries};
pub use series::{FlowCounters, PortCounters};
pub use summary::{Engine, PfcHeadline, Summary, SummaryInput, Timing, percentile};

use crate::error::Error;
use crate::ids::{EgressId, FlowId};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Every file and directory `rocesim run` (and `rocesim report`) may write in
/// a run directory. `run --force` removes these, and only these, from a reused
/// directory (plus hidden temporary files of an interrupted run).
pub const RUN_FILES: &[&str] = &[
    "fct.csv",
    "pfc.csv",
    "queue.csv",
    "summary.json",
    "timing.json",
    "scenario.toml",
    "queue_hist.csv",
    "latency_hist.csv",
    "flow_rates.csv",
    "link_util.csv",
    "pfc_ports.csv",
    "pfc_diagnostics.json",
    "fct.txt",
    "pfc.txt",
    "qlen.txt",
    "report.html",
    "figures",
];

/// The files and directories of a previous run in `dir` ([`RUN_FILES`]), to
/// replace with a new run's ([`crate::sim::RunOptions::replace`]) so that none
/// of its files is left beside the new ones.
pub fn previous_run_files(dir: &Path) -> Vec<PathBuf> {
    RUN_FILES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.symlink_metadata().is_ok())
        .collect()
}

/// Whether `name` is a temporary file [`AtomicFile`] writes (`.NAME.PID.tmp`).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// One completed flow.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FctRecord {
    pub flow_id: u32,
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub size: u64,
    pub start: SimTime,
    #[serde(with = "crate::units::raw_delta")]
    pub fct: Delta,
    #[serde(with = "crate::units::raw_delta")]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    let mut s = Vec::with_capacity(24);
    push_ns(&mut s, ps);
    String::from_utf8(s).expect("digits and a point")
}

/// Appends `ps` picoseconds as nanoseconds, the fraction only when there is one
/// (three digits), without `fmt`: queue.csv has a row per watched port per
/// sample, millions in a run.
fn push_ns(row: &mut Vec<u8>, ps: u64) {
    let mut b = itoa::Buffer::new();
    row.extend_from_slice(b.format(ps / 1000).as_bytes());
    let frac = ps % 1000;
    if frac != 0 {
        row.extend_from_slice(&[
            b'.',
            b'0' + (frac / 100) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ]);
    }
}

/// queue.csv's rows (`time_ns,node,port,bytes`), a sample's at a time. The
/// ports of a run's samples are the same every time, in the same order, so
/// each one's `,node,port,` is formatted once and kept; a row is then the
/// sample's time, that text and the bytes. (On `incast-16to1-hpcc`, whose 17
/// ports are sampled every microsecond, formatting every field of every row
/// took a tenth of the run's instructions.)
#[derive(Default)]
struct QueueRows {
    /// The rows of the last sample (reused).
    out: Vec<u8>,
    /// The ports whose middles are kept, in sample order.
    ports: Vec<(NodeId, u16)>,
    /// Their `,node,port,` texts, one after the other; port `k`'s ends at
    /// `ends[k]`.
    text: Vec<u8>,
    ends: Vec<usize>,
}

impl QueueRows {
    /// The rows of one sample: `bytes[k]` queued at `ports[k]` at `now`.
    fn write(&mut self, now: SimTime, ports: &[(NodeId, u16)], bytes: &[u64]) -> &[u8] {
        debug_assert_eq!(ports.len(), bytes.len());
        if self.ports != ports {
            self.keep(ports);
        }
        let out = &mut self.out;
        out.clear();
        push_ns(out, now.ps());
        let time = out.len();
        let mut b = itoa::Buffer::new();
        let mut start = 0;
        for (k, (&end, &q)) in self.ends.iter().zip(bytes).enumerate() {
            if k > 0 {
                out.extend_from_within(..time);
            }
            out.extend_from_slice(&self.text[start..end]);
            out.extend_from_slice(b.format(q).as_bytes());
            out.push(b'\n');
            start = end;
        }
        out
    }

    fn keep(&mut self, ports: &[(NodeId, u16)]) {
        let mut b = itoa::Buffer::new();
        self.ports = ports.to_vec();
        self.text.clear();
        self.ends.clear();
        for &(node, port) in ports {
            self.text.push(b',');
            self.text.extend_from_slice(b.format(node.0).as_bytes());
            self.text.push(b',');
            self.text.extend_from_slice(b.format(port).as_bytes());
            self.text.push(b',');
            self.ends.push(self.text.len());
        }
    }
}

/// One queue.csv row: `time_ns,node,port,bytes`.
#[cfg(test)]
fn queue_row(now: SimTime, node: NodeId, port: u16, bytes: u64) -> String {
    let mut rows = QueueRows::default();
    String::from_utf8(rows.write(now, &[(node, port)], &[bytes]).to_vec()).expect("ASCII")
}

pub const FCT_HEADER: &str = "flow_id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,timeouts,dport";

/// One egress port the per-port recorders watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchedPort {
    pub gid: EgressId,
    pub node: NodeId,
    pub port: u16,
}

/// What the recorders need to know about the run they record.
#[derive(Clone, Copy)]
pub struct RunInfo<'a> {
    pub plan: &'a plan::OutputPlan,
    /// The flows in start order.
    pub flows: &'a [crate::workload::FlowSpec],
    pub topo: &'a crate::topology::Topology,
    /// The scenario's file name and effective text (scenario.toml).
    pub source: &'a str,
    pub scenario_text: &'a str,
}

/// What a recorder that writes nothing samples (an MPI rank other than 0).
#[derive(Default)]
struct Mirror {
    link_util: bool,
    qlen: bool,
    /// The flow_rates.csv selection.
    rates: Option<Vec<bool>>,
}

pub struct Recorder {
    dir: Option<PathBuf>,
    /// What a mirror (an MPI rank other than 0, [`Self::configure_mirror`])
    /// samples, writing nothing.
    mirror: Mirror,
    fct_file: Option<AtomicFile>,
    pfc_file: Option<AtomicFile>,
    queue_file: Option<AtomicFile>,
    queue_rows: QueueRows,
    /// Completed flows, kept for [`RunOutputs::fct`] unless streamed only.
    fct: Vec<FctRecord>,
    /// Completed flows go to the files only, not into `fct` (memory flat in
    /// run length); their slowdowns are kept for the summary.
    stream_fct: bool,
    /// Every completed flow's slowdown (summary percentiles): 8 bytes a flow.
    slowdowns: Vec<f64>,
    keep_samples: bool,
    samples: Vec<QueueSample>,
    rates: Vec<RateSample>,
    io_error: Option<Error>,
    /// Whole files produced at the end of the run (name, content).
    extra: Vec<(&'static str, Vec<u8>)>,
    /// The effective scenario, written as scenario.toml.
    scenario: Option<String>,
    watched: Vec<WatchedPort>,
    queue_hist: Option<hist::QueueHists>,
    link_util: Option<series::LinkUtil>,
    flow_rates: Option<series::FlowRates>,
    /// Flows whose packets' one-way delays are recorded, and the histogram.
    latency: Option<(Vec<bool>, hist::CountHist)>,
    /// Only packets delivered in this window count.
    latency_window: Option<(SimTime, SimTime)>,
    /// The ns-3 simulator's files (`output.fct_format = "ns3"`).
    ns3: Option<ns3::Ns3Files>,
    /// A previous run's files, removed just before this run's are moved in.
    replace: Vec<PathBuf>,
    /// The bytes the streamed files may hold together (`--max-output`).
    limit: u64,
    /// The bytes written when a row passed `limit`: nothing is written after.
    over: Option<u64>,
}

impl Recorder {
    /// A recorder writing into `dir` (created if missing), or only to memory.
    pub fn new(dir: Option<&Path>, keep_samples: bool) -> Result<Recorder, Error> {
        let mut r = Recorder {
            dir: dir.map(Path::to_path_buf),
            mirror: Mirror::default(),
            fct_file: None,
            pfc_file: None,
            queue_file: None,
            queue_rows: QueueRows::default(),
            fct: Vec::new(),
            stream_fct: false,
            slowdowns: Vec::new(),
            keep_samples,
            samples: Vec::new(),
            rates: Vec::new(),
            io_error: None,
            extra: Vec::new(),
            scenario: None,
            watched: Vec::new(),
            queue_hist: None,
            link_util: None,
            flow_rates: None,
            latency: None,
            latency_window: None,
            ns3: None,
            replace: Vec::new(),
            limit: u64::MAX,
            over: None,
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

    /// Turns on the recorders `cfg.output` asks for (only when writing a
    /// directory), watching `watched` ports among `n_egress` egress ports.
    pub fn configure(
        &mut self,
        cfg: RunInfo<'_>,
        n_egress: usize,
        watched: Vec<WatchedPort>,
    ) -> Result<(), Error> {
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        let plan = cfg.plan;
        let start = cfg.flows.first().map_or(SimTime::ZERO, |f| f.start);
        self.scenario = Some(format!(
            "# The effective scenario of this run, from {} (relative paths are relative to its directory).\n{}",
            cfg.source, cfg.scenario_text
        ));
        self.configure_hists(&cfg, n_egress, &watched);
        if plan.link_utilization.is_some() && !watched.is_empty() {
            let f = AtomicFile::create(&dir, "link_util.csv")?;
            self.link_util = Some(series::LinkUtil::new(f, watched.len(), start)?);
        }
        if let Some((set, _)) = &plan.flow_rates {
            let f = AtomicFile::create(&dir, "flow_rates.csv")?;
            let starts = cfg.flows.iter().map(|f| f.start).collect();
            self.flow_rates = Some(series::FlowRates::new(f, set.mask(cfg.flows), starts)?);
        }
        if plan.fct_format == plan::FctFormat::Ns3 {
            let is_switch = (0..cfg.topo.spec.kinds.len())
                .map(|n| !cfg.topo.is_host(NodeId::from_idx(n)))
                .collect();
            self.ns3 = Some(ns3::Ns3Files::create(
                &dir,
                is_switch,
                plan.ns3_time_offset.ps(),
                plan.qlen_mon.is_some(),
            )?);
        }
        self.watched = watched;
        Ok(())
    }

    /// Configures a recorder without a directory as [`Self::configure`]
    /// configures one with: the same histograms, and the same samplers
    /// running, so that an MPI rank other than 0, whose recorder writes
    /// nothing, makes the same collective calls as rank 0.
    pub fn configure_mirror(
        &mut self,
        cfg: RunInfo<'_>,
        n_egress: usize,
        watched: Vec<WatchedPort>,
    ) {
        let plan = cfg.plan;
        self.configure_hists(&cfg, n_egress, &watched);
        self.mirror = Mirror {
            link_util: plan.link_utilization.is_some() && !watched.is_empty(),
            qlen: plan.fct_format == plan::FctFormat::Ns3 && plan.qlen_mon.is_some(),
            rates: plan.flow_rates.as_ref().map(|(set, _)| set.mask(cfg.flows)),
        };
        self.watched = watched;
    }

    /// The queue-length and delay histograms `cfg.plan` asks for.
    fn configure_hists(&mut self, cfg: &RunInfo<'_>, n_egress: usize, watched: &[WatchedPort]) {
        let plan = cfg.plan;
        let start = cfg.flows.first().map_or(SimTime::ZERO, |f| f.start);
        if plan.queue_histogram && !watched.is_empty() {
            self.queue_hist = Some(hist::QueueHists::new(n_egress, start));
        }
        if !plan.latency.is_empty() {
            self.latency = Some((plan.latency.mask(cfg.flows), hist::CountHist::default()));
            self.latency_window = plan.latency_window;
        }
    }

    /// Files (or directories) of a previous run to remove just before this
    /// run's files are moved in (`run --force`); a failed run leaves them.
    pub fn replace_on_commit(&mut self, stale: Vec<PathBuf>) {
        self.replace = stale;
    }

    /// The bytes this run's output files hold so far: written to the
    /// streamed files (buffered bytes included), or on disk in its temporary
    /// files, whichever is more.
    pub fn output_bytes(&self) -> u64 {
        let on_disk = self.dir.as_deref().map_or(0, atomic::temp_bytes);
        on_disk.max(self.written())
    }

    /// The output limit (`--max-output`): once the streamed files would pass
    /// `bytes` together, the recorder writes no more rows and
    /// [`Self::over_limit`] says so, so a run stops within a row of the limit
    /// however many rows one event writes.
    pub fn set_output_limit(&mut self, bytes: u64) {
        self.limit = bytes;
    }

    /// The bytes written when a row passed the output limit, if one did.
    #[inline]
    pub fn over_limit(&self) -> Option<u64> {
        self.over
    }

    /// The bytes written to the streamed files so far.
    fn written(&self) -> u64 {
        let file = |f: &Option<AtomicFile>| f.as_ref().map_or(0, AtomicFile::written);
        file(&self.fct_file)
            + file(&self.pfc_file)
            + file(&self.queue_file)
            + self.link_util.as_ref().map_or(0, series::LinkUtil::written)
            + self
                .flow_rates
                .as_ref()
                .map_or(0, series::FlowRates::written)
            + self.ns3.as_ref().map_or(0, ns3::Ns3Files::written)
    }

    /// Notes when what was written has passed the output limit.
    fn charge(&mut self) {
        if self.over.is_none() {
            let w = self.written();
            if w > self.limit {
                self.over = Some(w);
            }
        }
    }

    /// Whether qlen.txt is written.
    pub fn ns3_qlen_on(&self) -> bool {
        self.ns3.as_ref().is_some_and(|n| n.qlen_on()) || self.mirror.qlen
    }

    /// One qlen.txt sample of switch egress ports (node, port, bytes).
    pub fn ns3_qlen_sample(
        &mut self,
        now: SimTime,
        ports: impl Iterator<Item = (NodeId, u16, u64)>,
        last: bool,
    ) {
        if self.over.is_some() {
            return;
        }
        if let Some(n) = self.ns3.as_mut() {
            let res = n.qlen_sample(now, ports, last);
            self.note(res);
            self.charge();
        }
    }

    /// Closes egress `gid`'s queue histogram at the end of the run `end`: its
    /// queue held `old` bytes since `since` (the partitions' shards, adopted
    /// before, hold all the time up to then).
    pub fn queue_close(&mut self, gid: EgressId, since: SimTime, end: SimTime, old: u64) {
        if let Some(h) = self.queue_hist.as_mut() {
            h.add(gid, since, end, old);
        }
    }

    /// What the nodes' journals must keep for this recorder
    /// ([`journal::Wants`]); `victims` and `deadlock` are the diagnostics'.
    pub fn wants(&self, victims: bool, deadlock: bool) -> journal::Wants {
        journal::Wants {
            queue_hist: self.queue_hist.clone(),
            latency: self
                .latency
                .as_ref()
                .map(|(m, _)| (m.as_slice().into(), hist::CountHist::default())),
            latency_window: self.latency_window,
            rates: match &self.mirror.rates {
                Some(m) => Some(m.as_slice().into()),
                None => self.flow_rates.as_ref().map(|r| r.selection().into()),
            },
            victims,
            deadlock,
        }
    }

    /// Takes the histograms the partitions' journals kept (by partition): each
    /// port's queue histogram from the partition `owner(gid)` gives, and every
    /// partition's delay counts.
    pub fn absorb(
        &mut self,
        queue_hists: &mut [Option<hist::QueueHists>],
        latency: &[Option<hist::CountHist>],
        owner: impl Fn(EgressId) -> usize,
    ) {
        if let Some(h) = self.queue_hist.as_mut() {
            for w in &self.watched {
                if let Some(s) = queue_hists[owner(w.gid)].as_mut() {
                    h.adopt(w.gid, s);
                }
            }
        }
        if let Some((_, h)) = self.latency.as_mut() {
            for c in latency.iter().flatten() {
                h.merge(c);
            }
        }
    }

    /// The ports per-port recorders watch.
    pub fn watched(&self) -> &[WatchedPort] {
        &self.watched
    }

    pub fn link_util_on(&self) -> bool {
        self.link_util.is_some() || self.mirror.link_util
    }

    /// One link-utilization row per watched port (in `watched()` order).
    pub fn link_util_sample(&mut self, now: SimTime, counters: &[PortCounters]) {
        if self.over.is_some() {
            return;
        }
        let others = self.written() - self.link_util.as_ref().map_or(0, series::LinkUtil::written);
        if let Some(u) = self.link_util.as_mut() {
            let mut res = Ok(());
            for (k, c) in counters.iter().enumerate() {
                // Row by row: one sample of many ports can be large.
                let w = others + u.written();
                if w > self.limit {
                    self.over = Some(w);
                    return;
                }
                res = res.and(u.row(now, k, *c));
            }
            u.tick_done(now);
            self.note(res);
            self.charge();
        }
    }

    /// Whether the flow-rate recorder runs.
    pub fn flow_rates_on(&self) -> bool {
        self.flow_rates.is_some() || self.mirror.rates.is_some()
    }

    /// Whether flow `fid`'s rates are recorded.
    #[inline]
    pub fn flow_rate_on(&self, fid: FlowId) -> bool {
        self.flow_rates.as_ref().is_some_and(|r| r.is_selected(fid))
            || self.mirror.rates.as_ref().is_some_and(|m| m[fid.idx()])
    }

    pub fn flow_rate(&mut self, now: SimTime, fid: FlowId, c: FlowCounters) {
        if self.over.is_some() {
            return;
        }
        if let Some(r) = self.flow_rates.as_mut() {
            let res = r.row(now, fid, c);
            self.note(res);
            self.charge();
        }
    }

    fn note<T>(&mut self, res: Result<T, Error>) {
        if let Err(e) = res
            && self.io_error.is_none()
        {
            self.io_error = Some(e);
        }
    }

    pub fn flow_done(&mut self, r: FctRecord) {
        if self.over.is_some() {
            return;
        }
        if let Some(f) = self.fct_file.as_mut() {
            let res = writeln!(
                f,
                "{},{},{},{},{},{},{},{:.6},{},{},{},{}",
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
                r.timeouts,
                r.dport
            )
            .map_err(|e| f.err(e));
            self.note(res);
        }
        if let Some(n) = self.ns3.as_mut() {
            let res = n.flow_done(&r);
            self.note(res);
        }
        self.slowdowns.push(r.slowdown());
        if !self.stream_fct {
            self.fct.push(r);
        }
        self.charge();
    }

    /// Completed flows are written to the files as they finish and not kept
    /// for [`RunOutputs::fct`] (only with an output directory, where they are
    /// not lost): per-flow memory does not grow with the run's length.
    pub fn stream_fct(&mut self, on: bool) {
        self.stream_fct = on && self.dir.is_some();
    }

    pub fn pfc_event(&mut self, now: SimTime, node: NodeId, port: u16, class: u8, kind: PfcKind) {
        if self.over.is_some() {
            return;
        }
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
        if let Some(n) = self.ns3.as_mut() {
            let res = n.pfc_event(now, node, port, kind);
            self.note(res);
        }
        self.charge();
    }

    /// One sample of the watched ports' queues at `now`: `bytes[k]` is
    /// queued at `ports[k]`. queue.csv gets a row per port, written at once:
    /// the time is formatted once for all of them, and each port's
    /// `,node,port,` once for the run ([`QueueRows`]).
    pub fn queue_samples(&mut self, now: SimTime, ports: &[(NodeId, u16)], bytes: &[u64]) {
        if self.over.is_some() {
            return;
        }
        if self.queue_file.is_some() {
            // The sample's rows are written only if they all fit the limit.
            let n = self.queue_rows.write(now, ports, bytes).len() as u64;
            let w = self.written() + n;
            if w > self.limit {
                self.over = Some(w);
                return;
            }
            let f = self.queue_file.as_mut().expect("checked");
            let res = f.write_all(&self.queue_rows.out).map_err(|e| f.err(e));
            self.note(res);
        }
        if self.keep_samples {
            let rows = ports
                .iter()
                .zip(bytes)
                .map(|(&(node, port), &bytes)| QueueSample {
                    time: now,
                    node: node.0,
                    port,
                    bytes,
                });
            self.samples.extend(rows);
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
        let summary = Summary::new(&input, std::mem::take(&mut self.slowdowns));
        if let Some(dir) = &self.dir {
            let mut s = AtomicFile::create(dir, "summary.json")?;
            let json = serde_json::to_string_pretty(&summary).expect("summary serializes");
            writeln!(s, "{json}").map_err(|e| s.err(e))?;
            let mut t = AtomicFile::create(dir, "timing.json")?;
            let json = serde_json::to_string_pretty(&Timing::of(&summary)).expect("serializes");
            writeln!(t, "{json}").map_err(|e| t.err(e))?;
            let mut files = vec![
                self.fct_file.take(),
                self.pfc_file.take(),
                self.queue_file.take(),
                self.link_util.take().map(series::LinkUtil::into_file),
                self.flow_rates.take().map(series::FlowRates::into_file),
                self.write_queue_hist(dir, input.end)?,
                self.write_latency_hist(dir)?,
                Some(s),
                Some(t),
            ];
            if let Some(n) = self.ns3.take() {
                files.extend(n.into_files().into_iter().map(Some));
            }
            for (name, content) in std::mem::take(&mut self.extra) {
                let mut f = AtomicFile::create(dir, name)?;
                f.write_all(&content).map_err(|e| f.err(e))?;
                files.push(Some(f));
            }
            if let Some(text) = &self.scenario {
                let mut f = AtomicFile::create(dir, "scenario.toml")?;
                f.write_all(text.as_bytes()).map_err(|e| f.err(e))?;
                files.push(Some(f));
            }
            for p in &self.replace {
                let res = if p.is_dir() {
                    std::fs::remove_dir_all(p)
                } else {
                    std::fs::remove_file(p)
                };
                match res {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(Error::io(p, e));
                    }
                    _ => {}
                }
            }
            for f in files.into_iter().flatten() {
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

    /// queue_hist.csv: per watched port, the time its queue spent in each length bin.
    fn write_queue_hist(&self, dir: &Path, end: SimTime) -> Result<Option<AtomicFile>, Error> {
        let Some(h) = &self.queue_hist else {
            return Ok(None);
        };
        let mut f = AtomicFile::create(dir, "queue_hist.csv")?;
        writeln!(f, "node,port,lo_bytes,hi_bytes,time_ns").map_err(|e| f.err(e))?;
        for w in &self.watched {
            for (lo, hi, ps) in h.rows(w.gid, end) {
                writeln!(f, "{},{},{lo},{hi},{}", w.node, w.port, fmt_ns(ps))
                    .map_err(|e| f.err(e))?;
            }
        }
        Ok(Some(f))
    }

    /// latency_hist.csv: one-way delays of the selected flows' data packets.
    fn write_latency_hist(&self, dir: &Path) -> Result<Option<AtomicFile>, Error> {
        let Some((_, h)) = &self.latency else {
            return Ok(None);
        };
        let mut f = AtomicFile::create(dir, "latency_hist.csv")?;
        writeln!(f, "lo_ns,hi_ns,packets").map_err(|e| f.err(e))?;
        for (lo, hi, n) in h.rows() {
            writeln!(f, "{},{},{n}", fmt_ns(lo), fmt_ns(hi)).map_err(|e| f.err(e))?;
        }
        Ok(Some(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample's rows carry its time on every row and each port's own
    /// node, port and bytes, in the order given; a sample of other ports (or
    /// of the same ports in another order) gets theirs, not the last list's.
    #[test]
    fn a_samples_rows_name_each_port_and_repeat_the_time() {
        let mut rows = QueueRows::default();
        let a = [(NodeId(17), 0), (NodeId(17), 16), (NodeId(320), 3)];
        let out = rows.write(SimTime(1_500), &a, &[0, 2_048, 7]);
        let want = "1.500,17,0,0\n1.500,17,16,2048\n1.500,320,3,7\n";
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
        let out = rows.write(SimTime(2_000), &a, &[1, 0, 0]);
        let want = "2,17,0,1\n2,17,16,0\n2,320,3,0\n";
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
        let b = [(NodeId(320), 3), (NodeId(5), 65_535)];
        let out = rows.write(SimTime(2_001), &b, &[9, u64::MAX]);
        let want = format!("2.001,320,3,9\n2.001,5,65535,{}\n", u64::MAX);
        assert_eq!(std::str::from_utf8(out).unwrap(), want);
    }

    /// The queue.csv row writer gives the bytes `fmt` gives, on the edges of
    /// the fraction (none, leading zeros, three digits) and the integer widths;
    /// `fmt_ns` is the same time.
    #[test]
    fn queue_rows_are_what_fmt_writes() {
        for ps in [
            0,
            1,
            9,
            10,
            999,
            1_000,
            1_001,
            1_010,
            154_000,
            123_456_789,
            u64::MAX,
        ] {
            for (node, port, bytes) in [(0, 0, 0), (320, 7, 1_048), (u32::MAX, u16::MAX, u64::MAX)]
            {
                let row = queue_row(SimTime(ps), NodeId(node), port, bytes);
                let time = if ps.is_multiple_of(1000) {
                    format!("{}", ps / 1000)
                } else {
                    format!("{}.{:03}", ps / 1000, ps % 1000)
                };
                assert_eq!(fmt_ns(ps), time);
                let want = format!("{time},{node},{port},{bytes}\n");
                assert_eq!(row, want);
            }
        }
    }
}
