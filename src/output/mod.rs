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
//!
//! The sampled recorders (queue.csv, link_util.csv, flow_rates.csv, qlen.txt,
//! the in-memory rate trace) are [`observers`]: each in its own file, registered
//! in one list, run by the dispatcher through the [`Recorder`], which owns them
//! with the run's other files and the output limit ([`observers::Ledger`]).

mod atomic;
pub mod claim;
pub mod collectives;
pub mod hist;
pub mod journal;
pub mod ns3;
pub mod observers;
pub mod pfc_diag;
pub mod pfc_report;
pub mod plan;
mod summary;
pub mod table;

pub use atomic::{AtomicFile, register_created_dir, register_scratch_dir, remove_all_temporaries};
pub use observers::FlowCounters;
pub use observers::queues::QueueSample;
pub use observers::rate_trace::RateSample;
pub use summary::{Engine, PfcHeadline, Summary, SummaryInput, Timing, percentile};
pub use table::{Kind, Table, TableFile, TableFormat};

use crate::error::Error;
use crate::ids::{EgressId, FlowId};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The files and directories `rocesim run` (and `rocesim report`) may write
/// in a run directory besides the sampled recorders' ([`run_files`]).
const FIXED_FILES: &[&str] = &[
    "fct.csv",
    "pfc.csv",
    "summary.json",
    "timing.json",
    "scenario.toml",
    "queue_hist.csv",
    "latency_hist.csv",
    "pfc_ports.csv",
    "pfc_diagnostics.json",
    "collectives.csv",
    "steps.csv",
    "fct.txt",
    "pfc.txt",
    "report.html",
    "figures",
];

/// Every file and directory `rocesim run` (and `rocesim report`) may write in
/// a run directory. `run --force` removes these, and only these, from a reused
/// directory (plus hidden temporary files of an interrupted run).
pub fn run_files() -> impl Iterator<Item = String> {
    let sampled = observers::REGISTERED.iter().flat_map(|r| (r.files)());
    let names = FIXED_FILES.iter().chain(sampled).copied();
    // A streamed table is CSV or Parquet (`output.format`).
    names.flat_map(|n| {
        let parquet = n.strip_suffix(".csv").map(|stem| format!("{stem}.parquet"));
        std::iter::once(n.to_string()).chain(parquet)
    })
}

/// The files and directories of a previous run in `dir` ([`run_files`]), to
/// replace with a new run's ([`crate::sim::RunOptions::replace`]) so that none
/// of its files is left beside the new ones.
pub fn previous_run_files(dir: &Path) -> Vec<PathBuf> {
    run_files()
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
    /// The collectives that completed (collectives.csv), by job and iteration.
    pub collectives: Vec<collectives::CollectiveRow>,
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

/// fct.csv's columns.
const FCT_COLUMNS: [(&str, Kind); 12] = [
    ("flow_id", Kind::Int),
    ("src", Kind::Int),
    ("dst", Kind::Int),
    ("size_bytes", Kind::Int),
    ("start_ns", Kind::Float),
    ("fct_ns", Kind::Float),
    ("ideal_fct_ns", Kind::Float),
    ("slowdown", Kind::Float),
    ("retx_bytes", Kind::Int),
    ("cnps", Kind::Int),
    ("timeouts", Kind::Int),
    ("dport", Kind::Int),
];

/// [`FCT_COLUMNS`], then which NIC of its server carried the flow at each end.
const FCT_MULTI_NIC_COLUMNS: [(&str, Kind); 14] = {
    let mut out = [("", Kind::Int); 14];
    let mut i = 0;
    while i < FCT_COLUMNS.len() {
        out[i] = FCT_COLUMNS[i];
        i += 1;
    }
    out[12] = ("src_nic", Kind::Int);
    out[13] = ("dst_nic", Kind::Int);
    out
};

/// fct.csv: one row per completed flow (docs/models.md, "Outputs").
pub const FCT: Table = Table {
    stem: "fct",
    columns: &FCT_COLUMNS,
};

/// fct.csv on a fabric whose servers have several NICs: [`FCT`] and which
/// of its NICs carried the flow at each end.
pub const FCT_MULTI_NIC: Table = Table {
    stem: "fct",
    columns: &FCT_MULTI_NIC_COLUMNS,
};

/// pfc.csv: every PFC pause, resume and timed-pause expiry.
pub const PFC: Table = Table {
    stem: "pfc",
    columns: &[
        ("time_ns", Kind::Float),
        ("node", Kind::Int),
        ("port", Kind::Int),
        ("priority", Kind::Int),
        ("event", Kind::Text),
    ],
};

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
    /// The in-memory rate trace's interval ([`RunOutputs::rates`]), if traced.
    pub trace_rates: Option<Delta>,
    /// The run's programs (collectives, dependency graphs), if any.
    pub programs: Option<&'a std::sync::Arc<crate::workload::program::Programs>>,
}

pub struct Recorder {
    dir: Option<PathBuf>,
    /// What the programs' tasks reported (collectives.csv, steps.csv).
    collectives: Option<collectives::CollectiveLog>,
    /// The streamed tables' format (`output.format`).
    format: TableFormat,
    fct_file: Option<TableFile>,
    pfc_file: Option<TableFile>,
    /// Completed flows, kept for [`RunOutputs::fct`] unless streamed only.
    fct: Vec<FctRecord>,
    /// Completed flows go to the files only, not into `fct` (memory flat in
    /// run length); their slowdowns are kept for the summary.
    stream_fct: bool,
    /// An MPI rank other than 0 (set by [`Recorder::configure`]): it writes
    /// nothing and returns nothing, so it keeps no flow's record.
    mirror: bool,
    /// Every completed flow's slowdown (summary percentiles): 8 bytes a flow.
    slowdowns: Vec<f64>,
    keep_samples: bool,
    /// The sampled recorders the run asks for, in registration order
    /// ([`observers::REGISTERED`]); the dispatcher runs them by index.
    observers: Vec<observers::Boxed>,
    /// The output limit and the first write error, shared with the observers.
    ledger: observers::Ledger,
    /// Whole files produced at the end of the run (name, content).
    extra: Vec<(&'static str, Vec<u8>)>,
    /// The effective scenario, written as scenario.toml.
    scenario: Option<String>,
    watched: Vec<WatchedPort>,
    queue_hist: Option<hist::QueueHists>,
    /// Flows whose packets' one-way delays are recorded, and the histogram.
    latency: Option<(Vec<bool>, hist::CountHist)>,
    /// Only packets delivered in this window count.
    latency_window: Option<(SimTime, SimTime)>,
    /// The ns-3 simulator's files (`output.fct_format = "ns3"`).
    ns3: Option<ns3::Ns3Files>,
    /// A previous run's files, removed just before this run's are moved in.
    replace: Vec<PathBuf>,
    /// Servers with several NICs: each NIC's (server, index among the
    /// server's NICs), for the files' host and NIC columns.
    nic_names: Option<std::collections::HashMap<u32, (u32, u8)>>,
}

impl Recorder {
    /// A recorder writing into `dir` (created if missing), its tables in
    /// `format`, or only to memory.
    pub fn new(
        dir: Option<&Path>,
        keep_samples: bool,
        format: TableFormat,
    ) -> Result<Recorder, Error> {
        let mut r = Recorder {
            dir: dir.map(Path::to_path_buf),
            collectives: None,
            format,
            fct_file: None,
            pfc_file: None,
            fct: Vec::new(),
            stream_fct: false,
            mirror: false,
            slowdowns: Vec::new(),
            keep_samples,
            observers: Vec::new(),
            ledger: observers::Ledger::new(u64::MAX),
            extra: Vec::new(),
            scenario: None,
            watched: Vec::new(),
            queue_hist: None,
            latency: None,
            latency_window: None,
            ns3: None,
            replace: Vec::new(),
            nic_names: None,
        };
        if let Some(d) = dir {
            std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
            r.fct_file = Some(TableFile::create(d, &FCT, format)?);
            r.pfc_file = Some(TableFile::create(d, &PFC, format)?);
        }
        Ok(r)
    }

    /// Turns on the recorders `cfg.plan` asks for, watching `watched` ports
    /// among `n_egress` egress ports: the files only when writing a
    /// directory, the observers ([`observers::build_all`]) in any case. A
    /// `mirror` (an MPI rank other than 0, which writes nothing) gets the
    /// same histograms and observers as rank 0, so that it makes the same
    /// collective calls.
    pub fn configure(
        &mut self,
        cfg: RunInfo<'_>,
        n_egress: usize,
        watched: Vec<WatchedPort>,
        mirror: bool,
    ) -> Result<(), Error> {
        let setup = observers::Setup {
            run: cfg,
            dir: self.dir.as_deref(),
            format: self.format,
            mirror,
            watched: &watched,
            keep_samples: self.keep_samples,
        };
        self.observers = observers::build_all(&setup)?;
        self.collectives = cfg.programs.cloned().map(collectives::CollectiveLog::new);
        self.mirror = mirror;
        if mirror {
            self.configure_hists(&cfg, n_egress, &watched);
            self.watched = watched;
            return Ok(());
        }
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        let plan = cfg.plan;
        self.scenario = Some(format!(
            "# The effective scenario of this run, from {} (relative paths are relative to its directory).\n{}",
            cfg.source, cfg.scenario_text
        ));
        self.configure_hists(&cfg, n_egress, &watched);
        if cfg.topo.multi_nic() {
            self.name_nics(cfg.topo, &dir)?;
        }
        if plan.fct_format == plan::FctFormat::Ns3 {
            let is_switch = (0..cfg.topo.spec.kinds.len())
                .map(|n| !cfg.topo.is_host(NodeId::from_idx(n)))
                .collect();
            self.ns3 = Some(ns3::Ns3Files::create(
                &dir,
                is_switch,
                plan.ns3_time_offset.ps(),
            )?);
        }
        self.watched = watched;
        Ok(())
    }

    /// On a fabric whose servers have several NICs, fct.csv names the server
    /// in `src` and `dst` (its first NIC's node id) and adds which of its
    /// NICs carried the flow (`src_nic`, `dst_nic`: 0 for the first).
    fn name_nics(&mut self, topo: &crate::topology::Topology, dir: &Path) -> Result<(), Error> {
        let mut names = std::collections::HashMap::new();
        for s in topo.servers() {
            for (i, n) in topo.nics(s).iter().enumerate() {
                names.insert(n.0, (s.0, i as u8));
            }
        }
        self.nic_names = Some(names);
        // The same temporary file: the old one goes before the new one is made.
        self.fct_file = None;
        self.fct_file = Some(TableFile::create(dir, &FCT_MULTI_NIC, self.format)?);
        Ok(())
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
    /// files, whichever is more. CSV and text files count every byte they
    /// are given, so the disk holds no more than that and is not asked (a
    /// `stat` of each file, on a large fabric nearly every window: about
    /// 10 µs of the dispatcher's serial work); a Parquet file's bytes on
    /// disk are not its CSV bytes, so with Parquet the disk is asked too.
    pub fn output_bytes(&self) -> u64 {
        let on_disk = match self.format {
            TableFormat::Csv => 0,
            TableFormat::Parquet => self.dir.as_deref().map_or(0, atomic::temp_bytes),
        };
        on_disk.max(self.written())
    }

    /// The output limit (`--max-output`): once the streamed files would pass
    /// `bytes` together, the recorder writes no more rows and
    /// [`Self::over_limit`] says so, so a run stops within a row of the limit
    /// however many rows one event writes.
    pub fn set_output_limit(&mut self, bytes: u64) {
        self.ledger.set_limit(bytes);
    }

    /// The bytes written when a row passed the output limit, if one did.
    #[inline]
    pub fn over_limit(&self) -> Option<u64> {
        self.ledger.over()
    }

    /// The bytes written to the streamed files so far.
    fn written(&self) -> u64 {
        let file = |f: &Option<TableFile>| f.as_ref().map_or(0, TableFile::written);
        file(&self.fct_file)
            + file(&self.pfc_file)
            + self.ns3.as_ref().map_or(0, ns3::Ns3Files::written)
            + self.observers.iter().map(|o| o.written()).sum::<u64>()
    }

    /// Notes when what was written has passed the output limit.
    fn charge(&mut self) {
        if !self.ledger.is_over() {
            let w = self.written();
            self.ledger.charge(w);
        }
    }

    /// The observers the run asks for, by index (the dispatcher's events
    /// name them so).
    pub fn observers(&self) -> &[observers::Boxed] {
        &self.observers
    }

    /// Observer `k`'s sample at `now`; returns when it samples next.
    pub fn observe(
        &mut self,
        k: usize,
        now: SimTime,
        view: &dyn observers::FabricView,
    ) -> Option<SimTime> {
        let others = self.written() - self.observers[k].written();
        self.ledger.set_others(others);
        self.observers[k].sample(now, view, &mut self.ledger)
    }

    /// A recorded flow's counters at its completion, for the observers that
    /// follow it ([`observers::Observer::flow_end`]).
    pub fn flow_rate(&mut self, now: SimTime, fid: FlowId, c: FlowCounters) {
        for k in 0..self.observers.len() {
            if self.observers[k].flows_journaled().is_some() {
                let others = self.written() - self.observers[k].written();
                self.ledger.set_others(others);
                self.observers[k].flow_end(now, fid, c, &mut self.ledger);
            }
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
            rates: (self.observers.iter())
                .find_map(|o| o.flows_journaled())
                .map(Into::into),
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

    fn note<T>(&mut self, res: Result<T, Error>) {
        self.ledger.note(res);
    }

    /// A program's task `task`, started at `start`, was done at `now`.
    pub fn task_done(&mut self, now: SimTime, task: u32, start: SimTime) {
        if let Some(c) = self.collectives.as_mut() {
            c.task_done(now, task, start);
        }
    }

    pub fn flow_done(&mut self, r: FctRecord) {
        if self.ledger.is_over() || self.mirror {
            return;
        }
        // On a fabric whose servers have several NICs, the files name the
        // servers and which of their NICs (`name_nics`).
        let names = self.nic_names.as_ref();
        let name = |n: u32| names.and_then(|m| m.get(&n).copied()).unwrap_or((n, 0));
        let ((src, sn), (dst, dn)) = (name(r.src), name(r.dst));
        let multi_nic = names.is_some();
        if let Some(f) = self.fct_file.as_mut() {
            let mut res = write!(
                f,
                "{},{},{},{},{},{},{},{:.6},{},{},{},{}",
                r.flow_id,
                src,
                dst,
                r.size,
                fmt_ns(r.start.ps()),
                fmt_ns(r.fct.ps()),
                fmt_ns(r.ideal.ps()),
                r.slowdown(),
                r.retx_bytes,
                r.cnps,
                r.timeouts,
                r.dport
            );
            if multi_nic {
                res = res.and_then(|()| write!(f, ",{sn},{dn}"));
            }
            let res = res.and_then(|()| writeln!(f)).map_err(|e| f.err(e));
            self.note(res);
        }
        if let Some(n) = self.ns3.as_mut() {
            let res = match multi_nic {
                true => n.flow_done(&FctRecord {
                    src,
                    dst,
                    ..r.clone()
                }),
                false => n.flow_done(&r),
            };
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
        if self.ledger.is_over() {
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
            // ns-3 names a server's NIC by the server and the NIC's interface.
            let names = self.nic_names.as_ref();
            let (node, port) = match names.and_then(|m| m.get(&node.0)) {
                Some(&(server, nic)) => (NodeId(server), nic as u16),
                None => (node, port),
            };
            let res = n.pfc_event(now, node, port, kind);
            self.note(res);
        }
        self.charge();
    }

    /// A whole file to write with the others when the run ends (atomically, and
    /// only if it succeeds).
    pub fn add_file(&mut self, name: &'static str, content: Vec<u8>) {
        self.extra.push((name, content));
    }

    /// Writes summary.json and moves every file into place.
    pub fn finish(mut self, input: SummaryInput) -> Result<RunOutputs, Error> {
        if let Some(e) = self.ledger.take_error() {
            return Err(e);
        }
        let mut summary = Summary::new(&input, std::mem::take(&mut self.slowdowns));
        if let Some(c) = &self.collectives {
            summary.jobs = c.jobs();
        }
        let mut kept = observers::Finished::default();
        for o in std::mem::take(&mut self.observers) {
            o.finish(&mut kept)?;
        }
        if let Some(dir) = self.dir.clone() {
            let mut files = vec![self.fct_file.take(), self.pfc_file.take()];
            files.extend(kept.files.into_iter().map(Some));
            if let Some(c) = &self.collectives {
                files.extend(c.files(&dir)?.into_iter().map(|f| Some(f.into())));
            }
            let end = self.end_files(&dir, &summary, input.end)?;
            files.extend(end.into_iter().map(|f| f.map(TableFile::from)));
            self.remove_replaced()?;
            for f in files.into_iter().flatten() {
                f.commit()?;
            }
        }
        let collectives = self
            .collectives
            .as_ref()
            .map(|c| c.rows())
            .unwrap_or_default();
        Ok(RunOutputs {
            summary,
            fct: self.fct,
            samples: kept.samples,
            rates: kept.rates,
            collectives,
            out_dir: self.dir,
        })
    }

    /// The files made at the end of a run in `dir`: histograms, summary and
    /// timing, the ns-3 files, the extra files and the effective scenario.
    fn end_files(
        &mut self,
        dir: &Path,
        summary: &Summary,
        end: SimTime,
    ) -> Result<Vec<Option<AtomicFile>>, Error> {
        let mut s = AtomicFile::create(dir, "summary.json")?;
        let json = serde_json::to_string_pretty(summary).expect("summary serializes");
        writeln!(s, "{json}").map_err(|e| s.err(e))?;
        let mut t = AtomicFile::create(dir, "timing.json")?;
        let json = serde_json::to_string_pretty(&Timing::of(summary)).expect("serializes");
        writeln!(t, "{json}").map_err(|e| t.err(e))?;
        let mut files = vec![
            self.write_queue_hist(dir, end)?,
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
        Ok(files)
    }

    /// Removes the previous run's files (`run --force`), just before this
    /// run's are moved in.
    fn remove_replaced(&self) -> Result<(), Error> {
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
        Ok(())
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
