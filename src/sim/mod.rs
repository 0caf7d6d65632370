//! The simulator: builds switches, NICs and flows from a [`RunConfig`] and runs the
//! event loop, a thin dispatcher that routes each event to the node it is for.
//!
//! Events are a small enum ([`crate::node::Event`]) dispatched by `match`;
//! packets live in the pool and are referenced by index. Per hop a packet costs
//! one `Arrive` event and, while a port stays busy, one `TxDone`. The NIC's
//! behaviour is in [`crate::nic`], the switch's in [`crate::switch`]; the
//! dispatcher keeps only what spans nodes: flow arrivals, the observers, PFC
//! deadlock detection (`pfc`), limits and the end of the run.
//! Each flow's ideal FCT, base RTT and BDP come from the run's path model ([`crate::config::paths`]).

mod build;
mod checks;
mod ends;
mod finish;
pub mod limits;
mod notes;
mod parallel;
mod part;
mod pfc;
mod sample;
mod sequential;
mod view;

use crate::config::RunConfig;
use crate::config::paths::flow_key;
use crate::engine::{EventQueue, Key};
use crate::error::Error;
use crate::ids::{EgressId, FlowId, SwitchIdx};
use crate::nic::{FlowInfo, NicConfig, NicEnv};
use crate::node::{Event, Progress};
use crate::output::journal::{Journal, PauseRoots};
use crate::output::pfc_diag::PfcDiag;
use crate::output::{Engine, Recorder, RunOutputs};
use crate::switch::SwitchConfig;
use crate::switch::ecmp;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use part::{Parts, Slot};
use std::sync::Arc;
use std::time::Instant;

pub use crate::stats::Stats;
#[cfg(test)]
pub(crate) use build::{switch_config, switch_plan};

/// Options of one run that are not part of the scenario.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Seed override (`--seed`).
    pub seed: Option<u64>,
    /// Keep queue samples in memory (tests).
    pub keep_samples: bool,
    /// Sample every active flow's rate, window and delivered bytes at this
    /// interval, in memory (tests and model comparisons).
    pub trace_rates: Option<Delta>,
    /// Simulated-time and output-volume limits ([`limits`]).
    pub limits: limits::Limits,
    /// Files of a previous run in the output directory, removed just before this
    /// run's files are moved in (`run --force`).
    pub replace: Vec<std::path::PathBuf>,
    /// With an output directory: completed flows go to fct.csv (and fct.txt)
    /// as they finish and are not returned in [`RunOutputs::fct`], so memory
    /// does not grow with the number of flows completed (`rocesim run`, sweeps).
    pub stream_fct: bool,
    /// Threads to run on (`--threads`); `None` = the scenario's
    /// `run.threads`. Outputs do not depend on it (docs/parallel.md).
    pub threads: Option<usize>,
    /// Run on the MPI ranks of this process's world, one partition each
    /// (`--mpi`; cargo feature `mpi`). The caller has initialized MPI.
    pub mpi: bool,
    /// Queue every look of the ns-3 NIC scheduler, also those held back as
    /// finding nothing ([`crate::nic::Nic`]'s `undefer`): results must not
    /// depend on it, only the count of events handled (tests).
    pub keep_idle_looks: bool,
}

/// Where a run is, for a progress display: reported every 65,536 events
/// or so, and once at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// The simulated time reached.
    pub now: SimTime,
    /// Flows completed, of `total`.
    pub done: usize,
    pub total: usize,
    /// Events handled so far (by this process, with MPI).
    pub events: u64,
}

/// What every partition reads and none writes: the configuration, the flows
/// and where each node and link is.
pub(crate) struct Shared {
    pub cfg: RunConfig,
    /// Every flow's immutable per-flow constants, by flow id.
    flows: Vec<FlowInfo>,
    nic_cfg: NicConfig,
    sw_cfg: SwitchConfig,
    /// Per node id: what it is and its index in its partition.
    place: Vec<Slot>,
    /// Per node id: its partition.
    node_part: Vec<u16>,
    /// Owner (node, port) of each egress id.
    egress_owner: Vec<(NodeId, u16)>,
    /// Per node id: the egress id of its port 0 (ports are numbered on).
    egress_base: Vec<u32>,
    /// The receiving (node, port) of each link, named by its sending egress.
    link_dst: Vec<(NodeId, u16)>,
    /// The partition of each link's receiving node, by sending egress.
    link_part: Vec<u16>,
    /// Started flows join the PFC victim lists.
    note_paths: bool,
    /// The run's seed (ECMP hashes a flow's path with it).
    seed: u64,
}

impl Shared {
    /// What the NICs share.
    pub fn nic_env(&self) -> NicEnv<'_> {
        NicEnv {
            cfg: &self.nic_cfg,
            specs: &self.cfg.flows,
            flows: &self.flows,
            programs: self.cfg.programs.as_deref(),
        }
    }

    #[inline]
    fn host_local(&self, node: NodeId) -> usize {
        match self.place[node.idx()] {
            Slot::Host(l) => l as usize,
            Slot::Switch(_) => unreachable!("node {node} is a host"),
        }
    }

    #[inline]
    fn switch_local(&self, node: NodeId) -> usize {
        match self.place[node.idx()] {
            Slot::Switch(l) => l as usize,
            Slot::Host(_) => unreachable!("node {node} is a switch"),
        }
    }

    /// The node a packet on `link` lands at, as its slot in its partition, and
    /// the port it lands on.
    #[inline]
    fn link_end(&self, link: EgressId) -> (Slot, u16) {
        let (node, port) = self.link_dst[link.idx()];
        (self.place[node.idx()], port)
    }

    /// The node owning egress port `egress`, as its slot in its partition,
    /// and the port's number there.
    #[inline]
    fn egress_end(&self, egress: EgressId) -> (Slot, u16) {
        let (node, port) = self.egress_owner[egress.idx()];
        (self.place[node.idx()], port)
    }

    /// The egress id of `node`'s port `port`.
    fn gid(&self, node: NodeId, port: u16) -> EgressId {
        EgressId(self.egress_base[node.idx()] + port as u32)
    }

    /// Flow `fid`'s entries in the PFC victim lists: at each switch it
    /// crosses, the egress id of its ingress port and its egress port (the
    /// switches' routing, as ECMP hashes it).
    fn flow_hops(&self, fid: FlowId) -> Box<[(EgressId, u16)]> {
        let cfg = &self.cfg;
        let key = flow_key(&cfg.flows[fid.idx()], self.flows[fid.idx()].sport);
        ecmp::trace(&cfg.topo, cfg.model.ecmp_hash, self.seed, key)
            .into_iter()
            .map(|h| {
                (
                    self.gid(cfg.topo.switches[h.index.idx()], h.ingress),
                    h.egress,
                )
            })
            .collect()
    }
}

pub struct Sim {
    sh: Arc<Shared>,
    parts: Parts,
    /// The dispatcher's own events: observers' samples and deadlock searches.
    gq: EventQueue<checks::Due>,
    /// The window grid (ps): the smallest link delay.
    grid: u64,
    rec: Recorder,
    /// Egress ports the per-port recorders watch (`output.queue_ports`).
    watched_ports: Vec<(NodeId, u16)>,
    /// The in-memory rate trace's interval, if traced.
    trace_rates: Option<Delta>,
    limits: limits::Limits,
    /// PFC diagnostics (pause counters, propagation, victims, storms, deadlock).
    diag: PfcDiag,
    roots: PauseRoots,
    /// Paused queues to search from at the next deadlock search.
    searches: Vec<(SwitchIdx, u16, u8)>,
    /// The partitions' notes of a window being applied (kept for its capacity).
    merging: Vec<(Key, crate::output::journal::Note)>,
    /// Per egress id: the search epoch that last visited it.
    visit: Vec<u32>,
    visit_epoch: u32,
    engine: Engine,
    /// 1 when the run ended at an event past the stop time (it is counted).
    past_event: u64,
    /// The dispatcher's events handled (observers' samples, deadlock searches).
    global_handled: u64,
    /// How long no flow may make progress ([`limits::stall_limit`]).
    stall: Delta,
    /// When the run started on the wall clock (`--max-wall-time`).
    started: Instant,
    /// The MPI ranks of a run on them (this process runs one partition).
    ranks: Option<std::rc::Rc<parallel::Ranks>>,
}

/// Why `--mpi` fails in a build without MPI.
pub const NO_MPI: &str = "--mpi: this rocesim was built without MPI; build it with `cargo build --release --features mpi` (needs OpenMPI and libclang, docs/parallel.md)";

/// Events between checks of the output volume and progress reports.
const CHECK_EVERY: u64 = 0x10000;

/// The ordered phase's next step ([`Sim::ordered_turn`]).
enum Turn {
    /// Run the earliest partition's events below this bound.
    Run(Key),
    /// The dispatcher's event was handled: look again.
    Again,
    End(Ending),
}

/// How the event loop ended.
enum Ending {
    /// Every flow completed, or nothing is left to do.
    Done,
    /// The next event is past the stop time or the time limit.
    Past(SimTime),
    Stalled(SimTime),
    Deadlock,
    OutputOver(SimTime, u64),
    /// The wall-clock limit passed (at this simulated time).
    WallOver(SimTime),
    Failed(Error),
}

impl Sim {
    /// The control interval T (HPCC) this run uses.
    pub fn base_rtt(&self) -> Delta {
        self.sh.nic_cfg.base_rtt
    }

    /// The seed this run uses (the scenario's, or `--seed`).
    pub fn seed(&self) -> u64 {
        self.sh.seed
    }

    /// A progress report at simulated time `now` with `done` flows completed.
    fn at(&self, now: SimTime, done: usize) -> RunProgress {
        let events = self.parts.iter().map(|p| p.q.processed()).sum::<u64>() + self.gq.processed();
        RunProgress {
            now,
            done,
            total: self.sh.flows.len(),
            events,
        }
    }

    /// Flows started and completed, over all partitions.
    fn progress(&self) -> Progress {
        let mut p = Progress::default();
        for part in &self.parts {
            p.started += part.progress.started;
            p.done += part.progress.done;
            p.sent_all += part.progress.sent_all;
            p.computing += part.progress.computing;
            p.last = p.last.max(part.progress.last);
        }
        p
    }

    /// Runs to completion (all flows done), to the stop time, or until stalled.
    /// `progress` is called now and then with the simulated time.
    pub fn run(
        mut self,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Result<RunOutputs, Error> {
        let wall = Instant::now();
        self.started = wall;
        self.configure_recorders()?;
        let wants = self
            .rec
            .wants(self.sh.cfg.diag.victims, self.sh.cfg.diag.deadlock);
        for p in &mut self.parts {
            p.journal = Journal::new(wants.clone());
        }
        if !self.sh.cfg.flows.is_empty() {
            for p in &mut self.parts {
                for nic in &mut p.nics {
                    p.progress.computing += nic.computing();
                    if let Some(at) = nic.first_start(self.sh.nic_env()) {
                        // The NIC's own start timer, set before the run.
                        let host = nic.idx;
                        p.q.schedule_cold(at, Event::FlowStart { host }.pack());
                    }
                }
            }
            self.schedule_observers();
        }
        // Events after the stop time or the limit are not handled.
        let last = self.limits.last_handled(self.sh.cfg.stop);
        let stop_bound: Key = (last.0.saturating_add(1), 0);
        let ending = match self.run_partitioned(stop_bound, progress) {
            Some(e) => e,
            None => {
                let t = Instant::now();
                let e = self.run_single(stop_bound, progress);
                self.engine.ordered_seconds = t.elapsed().as_secs_f64();
                e
            }
        };
        self.conclude(ending, wall, progress)
    }
}
