//! Sampled recorders: observers the dispatcher runs on its own queue, as
//! htsim's loggers and nexosim's sinks are wired. Each one is a plain struct
//! behind [`Observer`], in its own file: when it samples first and next, what
//! it takes from a read-only [`FabricView`] of the nodes at a sample, the
//! files it leaves at the end, and the least it writes (the output limit's
//! check before a run). [`REGISTERED`] lists them; the dispatcher builds the
//! ones a run asks for and runs each when due (docs/architecture.md, "A new
//! sampled recorder").
//!
//! Order: samples due at the same time and lead run in [`REGISTERED`] order
//! (the dispatcher's event carries the observer's index), so the list's order
//! is part of every run's event order: a new recorder goes at its end.

pub mod flow_rates;
pub mod link_util;
pub mod ns3_qlen;
pub mod queues;
pub mod rate_trace;
mod view;

pub use view::{FabricView, FlowCounters, FlowState, PortView};

use super::plan::OutputPlan;
use super::{RunInfo, Table, TableFile, TableFormat, WatchedPort};
use crate::error::Error;
use crate::topology::Topology;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use std::path::Path;

/// A sampled recorder. Built for a run from its configuration
/// ([`Observer::build`]), it samples at the times it asks for; every sample
/// reads the fabric only through the view, so it records the same on one
/// thread, several, or MPI ranks (where every rank samples alike and only
/// rank 0 writes: [`Setup::mirror`]).
pub trait Observer {
    /// The files it may write in a run directory (`run --force` replaces them).
    fn files() -> &'static [&'static str]
    where
        Self: Sized;

    /// The `--set` override that turns it on for every port or flow
    /// (`rocesim bench --recorders all`), if it is turned on by one.
    fn all_on() -> Option<&'static str>
    where
        Self: Sized,
    {
        None
    }

    /// The least it writes in a run, for the output limit's check before
    /// running (`None`: nothing to count).
    fn least_output(_run: &Before<'_>) -> Option<Volume>
    where
        Self: Sized,
    {
        None
    }

    /// The observer a run with `setup` asks for, if it asks for one.
    fn build(setup: &Setup<'_>) -> Result<Option<Self>, Error>
    where
        Self: Sized;

    /// When it samples first (a run with flows), if ever.
    fn first(&self) -> Option<SimTime>;

    /// One sample at `now`; returns when it samples next, if again. The
    /// view's calls are collective on MPI ranks: make them whatever the
    /// ledger says, then write only within the limit ([`Ledger::fits`]).
    fn sample(
        &mut self,
        now: SimTime,
        view: &dyn FabricView,
        ledger: &mut Ledger,
    ) -> Option<SimTime>;

    /// The flows whose completion [`Self::flow_end`] hears of (the nodes
    /// journal their last counters: a finished flow's sender is gone by the
    /// next sample).
    fn flows_journaled(&self) -> Option<&[bool]> {
        None
    }

    /// A flow of [`Self::flows_journaled`] completed at `now` with counters `c`.
    fn flow_end(
        &mut self,
        _now: SimTime,
        _fid: crate::ids::FlowId,
        _c: FlowCounters,
        _ledger: &mut Ledger,
    ) {
    }

    /// The bytes its streamed files hold so far (the output limit).
    fn written(&self) -> u64 {
        0
    }

    /// The end of a successful run: its files (committed with the run's
    /// others) and what it keeps in memory go to `out`.
    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error>;
}

/// What the observers hand over at the end of a successful run.
#[derive(Default)]
pub struct Finished {
    pub files: Vec<TableFile>,
    /// [`super::RunOutputs::samples`].
    pub samples: Vec<queues::QueueSample>,
    /// [`super::RunOutputs::rates`].
    pub rates: Vec<rate_trace::RateSample>,
}

/// What building an observer knows about the run.
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    pub run: RunInfo<'a>,
    /// The run directory, if the run writes files (never on a mirror).
    pub dir: Option<&'a Path>,
    /// The streamed tables' format (`output.format`).
    pub format: TableFormat,
    /// An MPI rank other than 0: the observer samples as rank 0's does (the
    /// view's calls are collective) and writes nothing.
    pub mirror: bool,
    /// The egress ports the per-port recorders watch (`output.queue_ports`).
    pub watched: &'a [WatchedPort],
    /// Queue samples are kept in memory ([`super::RunOutputs::samples`]).
    pub keep_samples: bool,
}

impl Setup<'_> {
    /// Whether the run records files here (rank 0's directory, or a mirror of it).
    pub fn records(&self) -> bool {
        self.dir.is_some() || self.mirror
    }

    /// `table`'s file in the run directory, in the run's format, if the run
    /// writes files here.
    pub fn table(&self, table: &Table) -> Result<Option<TableFile>, Error> {
        self.dir
            .map(|dir| TableFile::create(dir, table, self.format))
            .transpose()
    }

    /// When the first flow starts, where interval samplers start.
    pub fn start(&self) -> SimTime {
        self.run.flows.first().map_or(SimTime::ZERO, |f| f.start)
    }

    /// The watched ports as (node, port).
    pub fn watched_ports(&self) -> Vec<(crate::topology::NodeId, u16)> {
        self.watched.iter().map(|w| (w.node, w.port)).collect()
    }
}

/// The run's output ledger, which every writer shares: the bytes the streamed
/// files may hold together (`--max-output`), whether a row has passed it, and
/// the first write error.
pub struct Ledger {
    limit: u64,
    /// The bytes written when a row passed `limit`: nothing is written after.
    over: Option<u64>,
    /// While an observer samples: the bytes the run's other files hold.
    others: u64,
    error: Option<Error>,
}

impl Ledger {
    pub fn new(limit: u64) -> Ledger {
        Ledger {
            limit,
            over: None,
            others: 0,
            error: None,
        }
    }

    /// Whether a row has passed the limit (nothing is written after).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.over.is_some()
    }

    /// The bytes written when a row passed the limit, if one did.
    #[inline]
    pub fn over(&self) -> Option<u64> {
        self.over
    }

    pub fn set_limit(&mut self, bytes: u64) {
        self.limit = bytes;
    }

    /// Before an observer's sample: the run's other files hold `bytes`.
    pub fn set_others(&mut self, bytes: u64) {
        self.others = bytes;
    }

    /// Whether the run's files stay within the limit with the sampling
    /// observer's at `mine` bytes; if not, notes the run over it.
    pub fn fits(&mut self, mine: u64) -> bool {
        self.charge(self.others + mine)
    }

    /// Whether files holding `total` bytes together stay within the limit;
    /// if not, notes the run over it.
    pub fn charge(&mut self, total: u64) -> bool {
        if total > self.limit {
            self.over.get_or_insert(total);
            return false;
        }
        true
    }

    /// Keeps the first write error (the run fails with it at the end).
    pub fn note<T>(&mut self, res: Result<T, Error>) {
        if let Err(e) = res
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    /// The first write error, if any.
    pub fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }
}

/// What the output limit's check before a run knows ([`Observer::least_output`]).
pub struct Before<'a> {
    pub plan: &'a OutputPlan,
    pub flows: &'a [FlowSpec],
    pub topo: &'a Topology,
    pub stop: Option<SimTime>,
    /// The least time the run lasts from its first flow's start (until `stop`,
    /// or until the flows could finish), ps.
    pub span_ps: u64,
    /// The least time a flow of this many bytes takes: its payload alone at
    /// the fastest link's rate.
    pub least_fct: &'a dyn Fn(u64) -> Delta,
}

impl Before<'_> {
    /// How many ports the per-port recorders watch.
    pub fn watched_ports(&self) -> u64 {
        match &self.plan.queue_ports {
            Some(v) => v.len() as u64,
            None => (self.topo.switches.iter())
                .map(|s| self.topo.ports[s.idx()].len() as u64)
                .sum(),
        }
    }

    /// A row of at least `row_bytes` per watched port every `iv` over the
    /// run's least span, for `field`'s `file` (none without watched ports).
    pub fn per_port(
        &self,
        field: &'static str,
        file: &'static str,
        iv: Delta,
        row_bytes: u64,
    ) -> Option<Volume> {
        let ports = self.watched_ports();
        let rows = (self.span_ps / iv.ps().max(1)).saturating_mul(ports);
        (ports > 0).then(|| Volume {
            field,
            file,
            per: Per::Port {
                iv,
                ports,
                span_ps: self.span_ps,
            },
            rows,
            bytes: rows.saturating_mul(row_bytes),
        })
    }
}

/// The least a recorder writes in a run ([`Observer::least_output`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Volume {
    /// The scenario field that turns it on (`output.link_utilization`).
    pub field: &'static str,
    pub file: &'static str,
    pub per: Per,
    pub rows: u64,
    pub bytes: u64,
}

/// What a recorder's rows come from, for the message when they are too many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Per {
    /// A row per watched port every `iv`, over the run's least span.
    Port { iv: Delta, ports: u64, span_ps: u64 },
    /// A row per selected flow every `iv` while it runs.
    Flow { iv: Delta },
}

/// One registered observer: its files, how the bench turns it on, its
/// volume estimate and how a run builds it ([`Registered::of`]).
pub struct Registered {
    pub files: fn() -> &'static [&'static str],
    pub all_on: fn() -> Option<&'static str>,
    pub least_output: fn(&Before<'_>) -> Option<Volume>,
    pub build: fn(&Setup<'_>) -> Result<Option<Boxed>, Error>,
}

/// An observer the dispatcher holds.
pub type Boxed = Box<dyn Observer>;

impl Registered {
    pub const fn of<O: Observer + 'static>() -> Registered {
        Registered {
            files: O::files,
            all_on: O::all_on,
            least_output: O::least_output,
            build: build::<O>,
        }
    }
}

fn build<O: Observer + 'static>(setup: &Setup<'_>) -> Result<Option<Boxed>, Error> {
    Ok(O::build(setup)?.map(|o| Box::new(o) as Boxed))
}

/// Every sampled recorder, in the order their samples due together run.
pub const REGISTERED: &[Registered] = &[
    Registered::of::<queues::QueueLengths>(),
    Registered::of::<link_util::LinkUtil>(),
    Registered::of::<flow_rates::FlowRates>(),
    Registered::of::<ns3_qlen::Ns3Qlen>(),
    Registered::of::<rate_trace::RateTrace>(),
];

/// The observers a run with `setup` asks for, in [`REGISTERED`] order.
pub fn build_all(setup: &Setup<'_>) -> Result<Vec<Boxed>, Error> {
    let mut v = Vec::new();
    for r in REGISTERED {
        v.extend((r.build)(setup)?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
