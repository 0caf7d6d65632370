//! The simulator: builds switches, NICs and flows from a [`RunConfig`] and runs the
//! event loop, a thin dispatcher that routes each event to the node it is for.
//!
//! Events are a small enum ([`crate::node::Event`]) dispatched by `match`;
//! packets live in the pool and are referenced by index. Per hop a packet costs
//! one `Arrive` event and, while a port stays busy, one `TxDone`. The NIC's
//! behaviour is in [`crate::nic`], the switch's in [`crate::switch`]; the
//! dispatcher keeps only what spans nodes: flow arrivals, the samplers, PFC
//! deadlock detection (`pfc`), limits and the end of the run.
//! Each flow's ideal FCT, base RTT and BDP come from the run's [`path_model`].

mod crew;
#[cfg(feature = "mpi")]
mod distributed;
mod ends;
pub mod limits;
pub mod mmu_config;
pub mod ns3_paths;
mod part;
pub mod partition;
pub mod path_model;
pub mod paths;
mod pfc;
#[cfg(feature = "mpi")]
mod ranks;
#[cfg(feature = "mpi")]
mod wire;

use crate::config::RunConfig;
use crate::engine::{EventQueue, Key};
use crate::error::Error;
use crate::ids::{EgressId, FlowId, HostIdx, QpSlot, SwitchIdx};
use crate::nic::irn::LossRecovery;
use crate::nic::{FlowInfo, Nic, NicConfig, NicEnv};
use crate::node::{Event, MAX_EVENT_INDEX, Packed, Progress, Sampler};
use crate::output::journal::{Applied, Journal, PauseRoots};
use crate::output::pfc_diag::PfcDiag;
use crate::output::{Engine, Recorder, RunInfo, RunOutputs};
use crate::port::{CLASSES, Egress};
use crate::switch::ecmp;
use crate::switch::flowctl::{PortFacts, SwitchFc};
use crate::switch::mmu::Mmu;
use crate::switch::{Switch, SwitchConfig, SwitchPort};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use ends::PartEnd;
use part::{Part, Slot, next_grid};
use path_model::PathModel;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Instant;

pub use crate::stats::Stats;

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
    /// Threads (partitions) to run on (`--threads`); `None` = the scenario's
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
}

impl Shared {
    /// What the NICs share.
    pub fn nic_env(&self) -> NicEnv<'_> {
        NicEnv {
            cfg: &self.nic_cfg,
            specs: &self.cfg.flows,
            flows: &self.flows,
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
}

pub struct Sim {
    sh: Arc<Shared>,
    parts: Vec<Part>,
    /// The dispatcher's own events: samplers and deadlock searches.
    gq: EventQueue<Packed>,
    /// The window grid (ps): the smallest link delay.
    grid: u64,
    seed: u64,
    rec: Recorder,
    /// Egress ports the per-port recorders watch (`output.queue_ports`).
    watched_ports: Vec<(NodeId, u16)>,
    trace_rates: Option<Delta>,
    limits: limits::Limits,
    /// PFC diagnostics (pause counters, propagation, victims, storms, deadlock).
    diag: PfcDiag,
    roots: PauseRoots,
    /// Paused queues to search from at the next deadlock search.
    searches: Vec<(SwitchIdx, u16, u8)>,
    /// Per egress id: the search epoch that last visited it.
    visit: Vec<u32>,
    visit_epoch: u32,
    engine: Engine,
    /// 1 when the run ended at an event past the stop time (it is counted).
    past_event: u64,
    /// The dispatcher's events handled (samplers, deadlock searches).
    global_handled: u64,
    /// How long no flow may make progress ([`limits::stall_limit`]).
    stall: Delta,
    /// When the run started on the wall clock (`--max-wall-time`).
    started: Instant,
    /// The MPI ranks of a run on them (this process runs one partition).
    #[cfg(feature = "mpi")]
    ranks: Option<std::rc::Rc<ranks::Ranks>>,
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
    /// Builds the network and flows. `rec` receives the outputs.
    pub fn new(cfg: RunConfig, opts: &RunOptions, rec: Recorder) -> Result<Sim, Error> {
        let seed = opts.seed.unwrap_or(cfg.seed);
        #[cfg(feature = "mpi")]
        let ranks = distributed::join(opts)?;
        #[cfg(feature = "mpi")]
        let rank_count = ranks.as_ref().map(|r| r.size);
        #[cfg(not(feature = "mpi"))]
        let rank_count: Option<usize> = match opts.mpi {
            true => return Err(Error::Sim(NO_MPI.into())),
            false => None,
        };
        let n_parts = rank_count.unwrap_or_else(|| opts.threads.unwrap_or(cfg.threads).max(1));
        let topo = &cfg.topo;
        let model = &cfg.model;
        let grid = lookahead(&cfg, n_parts)?;
        let node_part = partition::assign(topo, n_parts);
        let mut egress_owner = Vec::new();
        let mut egress_base = vec![0u32; topo.spec.kinds.len()];
        let mut gid_of = |node: NodeId, port: usize| {
            if port == 0 {
                egress_base[node.idx()] = egress_owner.len() as u32;
            }
            egress_owner.push((node, port as u16));
            EgressId::from_idx(egress_owner.len() - 1)
        };
        let switches: Vec<Switch> = (0..topo.switches.len())
            .map(|i| build_switch(&cfg, i, seed, &mut gid_of))
            .collect();
        // Each flow's queue pairs: a sending slot at its source NIC, a
        // receiving slot at its destination NIC.
        let mut starts = vec![Vec::new(); topo.hosts.len()];
        let mut n_recv = vec![0u32; topo.hosts.len()];
        let slots_of: Vec<(QpSlot, QpSlot)> = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(fid, f)| {
                let s = &mut starts[topo.host_idx(f.src).idx()];
                s.push(FlowId::from_idx(fid));
                let r = &mut n_recv[topo.host_idx(f.dst).idx()];
                *r += 1;
                (QpSlot::from_idx(s.len() - 1), QpSlot(*r - 1))
            })
            .collect();
        // Each NIC is built into its partition's list (in node id order): a
        // NIC is over a kilobyte, and a list of all of them moved over later
        // would be a second copy of every one at the peak (40 MB on a 32,768-
        // host fat-tree).
        let mut hosts_in = vec![0usize; n_parts];
        for &node in &topo.hosts {
            hosts_in[node_part[node.idx()] as usize] += 1;
        }
        let mut nics_of: Vec<Vec<Nic>> = hosts_in.iter().map(|&n| Vec::with_capacity(n)).collect();
        for (hi, &node) in topo.hosts.iter().enumerate() {
            let rng = |salt: u64| {
                ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ salt ^ (node.0 as u64) << 20))
            };
            nics_of[node_part[node.idx()] as usize].push(Nic::new(
                node,
                HostIdx::from_idx(hi),
                Egress::new(gid_of(node, 0), topo.host_port(node), model.serialization),
                (rng(0x41c), rng(0x7cc)),
                std::mem::take(&mut starts[hi]),
                n_recv[hi] as usize,
            ));
        }

        let path_model = PathModel::new(&cfg);
        let (base_rtt, max_bdp) = (path_model.base_rtt(), path_model.max_bdp());
        let mtu_wire = cfg.mtu_wire();

        // Source ports: a per-(src, dst) counter from 10000, like the ns-3 simulator.
        let mut sport_ctr = std::collections::HashMap::<(u32, u32), u16>::new();
        let irn_cap = |spec: &FlowSpec| {
            let LossRecovery::Irn(c) = &cfg.nic.loss_recovery else {
                return None;
            };
            // Configured, or the control interval T x the sender's line rate / a
            // full data packet.
            Some(c.bdp_cap.unwrap_or_else(|| {
                let bdp = topo.host_port(spec.src).rate.bytes_in(base_rtt);
                bdp.div_ceil(mtu_wire as u64).max(1) as u32
            }))
        };
        let flows: Vec<FlowInfo> = cfg
            .flows
            .iter()
            .zip(&slots_of)
            .map(|(spec, &(send_slot, recv_slot))| {
                let c = sport_ctr.entry((spec.src.0, spec.dst.0)).or_insert(10_000);
                let sport = *c;
                *c = c.wrapping_add(1);
                let path = path_model.flow(&cfg, seed, spec, sport);
                FlowInfo {
                    sport,
                    ideal: path.ideal,
                    pair_rtt: path.pair_rtt,
                    pair_bdp: path.pair_bdp,
                    one_way: path.one_way,
                    irn_cap: irn_cap(spec),
                    send_slot,
                    recv_slot,
                }
            })
            .collect();
        let watched_ports = match &cfg.output.queue_ports {
            None => topo
                .switches
                .iter()
                .flat_map(|&s| (0..topo.ports[s.idx()].len() as u16).map(move |p| (s, p)))
                .collect(),
            Some(list) => list.clone(),
        };
        assert!(
            egress_owner.len() <= MAX_EVENT_INDEX as usize,
            "too many ports"
        );
        let diag = PfcDiag::new(cfg.diag.clone(), egress_owner.len(), flows.len());
        let n_egress = egress_owner.len();
        // A link's receiving end: the peer of the egress that sends into it.
        let link_dst: Vec<(NodeId, u16)> = egress_owner
            .iter()
            .map(|&(node, port)| {
                let p = &topo.ports[node.idx()][port as usize];
                (p.peer, p.peer_port)
            })
            .collect();
        let link_part = link_dst.iter().map(|(n, _)| node_part[n.idx()]).collect();
        let mut nic_cfg = NicConfig::new(
            cfg.nic.clone(),
            cfg.model.clone(),
            cfg.int_on,
            cfg.cc.clone(),
            base_rtt,
            max_bdp,
        );
        let sw_cfg = switch_config(&cfg);
        nic_cfg.xoff_forever = sw_cfg.xoff_forever;
        nic_cfg.hold_back_looks = !opts.keep_idle_looks;
        nic_cfg.last = opts.limits.last_handled(cfg.stop);
        // The nodes go to their partitions, in node id order.
        let mut parts: Vec<Part> = (0..n_parts)
            .map(|i| Part::new(i as u16, n_parts, n_egress, Journal::default()))
            .collect();
        let mut place = vec![Slot::Host(0); topo.spec.kinds.len()];
        for (p, nics) in parts.iter_mut().zip(nics_of) {
            for (l, nic) in nics.iter().enumerate() {
                place[nic.node.idx()] = Slot::Host(l as u32);
            }
            p.nics = nics;
        }
        for sw in switches {
            let p = &mut parts[node_part[sw.node.idx()] as usize];
            place[sw.node.idx()] = Slot::Switch(p.switches.len() as u32);
            p.switches.push(sw);
        }
        let note_paths = cfg.diag.victims && cfg.flowctl.enabled;
        let engine = Engine {
            threads: n_parts,
            lookahead_ns: grid as f64 / 1e3,
            ..Engine::default()
        };
        Ok(Sim {
            sh: Arc::new(Shared {
                flows,
                nic_cfg,
                sw_cfg,
                place,
                node_part,
                egress_owner,
                egress_base,
                link_dst,
                link_part,
                note_paths,
                cfg,
            }),
            parts,
            gq: EventQueue::new(),
            grid,
            seed,
            rec,
            watched_ports,
            trace_rates: opts.trace_rates,
            limits: opts.limits,
            diag,
            roots: PauseRoots::default(),
            searches: Vec::new(),
            visit: vec![0; n_egress],
            visit_epoch: 0,
            engine,
            past_event: 0,
            global_handled: 0,
            stall: limits::stall_limit(base_rtt),
            started: Instant::now(),
            #[cfg(feature = "mpi")]
            ranks: ranks.map(std::rc::Rc::new),
        })
    }

    /// The control interval T (HPCC) this run uses.
    pub fn base_rtt(&self) -> Delta {
        self.sh.nic_cfg.base_rtt
    }

    /// The seed this run uses (the scenario's, or `--seed`).
    pub fn seed(&self) -> u64 {
        self.seed
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
        if let Some(first) = self.sh.cfg.flows.first() {
            let t = first.start;
            for p in &mut self.parts {
                for nic in &p.nics {
                    if let Some(at) = nic.next_start(self.sh.nic_env()) {
                        // The NIC's own start timer, set before the run.
                        let host = nic.idx;
                        p.q.schedule_cold(at, Event::FlowStart { host }.pack());
                    }
                }
            }
            let out = &self.sh.cfg.output;
            if out.queue_interval.is_some() && !self.watched_ports.is_empty() {
                let what = Sampler::Queues;
                self.gq.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some(iv) = out.link_utilization
                && self.rec.link_util_on()
            {
                let what = Sampler::Links;
                self.gq.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if let Some((_, iv)) = out.flow_rates
                && self.rec.flow_rates_on()
            {
                let what = Sampler::Flows;
                self.gq.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if self.trace_rates.is_some() {
                let what = Sampler::Rates;
                self.gq.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some((start, _)) = out.qlen_mon
                && self.rec.ns3_qlen_on()
            {
                let what = Sampler::Ns3Qlen;
                self.gq.schedule_cold(start, Event::Sample { what }.pack());
            }
        }
        // Events after the stop time or the limit are not handled.
        let last = self.limits.last_handled(self.sh.cfg.stop);
        let stop_bound: Key = (last.0.saturating_add(1), 0);
        let t0 = Instant::now();
        let mut ending = None;
        #[cfg(feature = "mpi")]
        if let Some(r) = self.ranks.clone() {
            ending = Some(self.run_ranks(&r, stop_bound, progress));
        }
        if ending.is_none() && self.parts.len() > 1 {
            ending = self.run_windows(stop_bound, progress);
        }
        self.engine.windowed_seconds = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let ending = match ending {
            Some(e) => e,
            None if self.parts.len() == 1 => self.run_single(stop_bound, progress),
            None => self.run_ordered(stop_bound, progress),
        };
        self.engine.ordered_seconds = t1.elapsed().as_secs_f64();
        self.conclude(ending, wall, progress)
    }

    /// Ends a run that ended with `ending` (started at `wall`): checks the
    /// limits and writes the outputs, from the partitions' ends.
    fn conclude(
        mut self,
        ending: Ending,
        wall: Instant,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Result<RunOutputs, Error> {
        let total = self.sh.flows.len();
        let limit = SimTime(self.limits.max_sim_time.ps());
        let stop = self.sh.cfg.stop.unwrap_or(SimTime::MAX);
        let ends = self.ends();
        // A run that stops at the stop time ends at the first event past it,
        // which is counted (as the sequential engine always did); otherwise at
        // its last event.
        let end = match ending {
            Ending::Past(t) => {
                self.past_event = 1;
                t
            }
            _ => ends
                .iter()
                .map(|e| e.now)
                .chain(std::iter::once(self.gq.now()))
                .max()
                .unwrap_or(SimTime::ZERO),
        };
        let done = ends.iter().map(|e| e.progress.done).sum::<usize>();
        progress(self.at(end, done));
        let over = match ending {
            Ending::Deadlock => {
                let unfinished = total - done;
                return self.stop_on_deadlock(end, wall.elapsed().as_secs_f64(), ends, unfinished);
            }
            Ending::Failed(e) => return Err(e),
            Ending::Stalled(t) => {
                let unfinished = total - done;
                return Err(limits::stalled(&self.sh.cfg, self.stall, t, unfinished).into());
            }
            Ending::OutputOver(t, bytes) => Some(limits::output_exceeded(
                &self.sh.cfg,
                &self.limits,
                t,
                bytes,
            )),
            Ending::WallOver(t) => Some(limits::wall_time_exceeded(
                &self.sh.cfg,
                &self.limits,
                t,
                total - done,
            )),
            Ending::Past(t) if t > limit && t <= stop => Some(limits::sim_time_exceeded(
                &self.sh.cfg,
                &self.limits,
                total - done,
            )),
            Ending::Past(_) | Ending::Done => {
                // Short runs end between checks.
                let bytes = self.rec.output_bytes();
                (bytes > self.limits.max_output_bytes)
                    .then(|| limits::output_exceeded(&self.sh.cfg, &self.limits, end, bytes))
            }
        };
        if let Some(e) = over {
            return Err(e.into());
        }
        self.finish(end, wall.elapsed().as_secs_f64(), ends)
    }

    /// Every partition's end ([`Part::end`]), in partition order: this
    /// process's, or with MPI every rank's.
    fn ends(&mut self) -> Vec<PartEnd> {
        let busy = std::mem::take(&mut self.engine.part_busy_seconds);
        let busy_of = |i: usize| busy.get(i).copied().unwrap_or(0.0);
        #[cfg(feature = "mpi")]
        if let Some(r) = &self.ranks {
            let me = r.rank;
            let mine = self.parts[me].end(busy_of(me));
            self.engine.window_events = r.all_sum(&[self.engine.window_events])[0];
            return r.all_gather_obj(&mine);
        }
        let parts = self.parts.iter_mut().enumerate();
        parts.map(|(i, p)| p.end(busy_of(i))).collect()
    }

    /// The earliest pending event of any partition (key, partition).
    fn next_part(&mut self) -> Option<(Key, usize)> {
        let mut best: Option<(Key, usize)> = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            if let Some(k) = p.q.head_key()
                && best.is_none_or(|(b, _)| k < b)
            {
                best = Some((k, i));
            }
        }
        best
    }

    /// The parallel phase (docs/parallel.md): the partitions advance together
    /// in windows that end at the next grid point (a multiple of the smallest
    /// link delay) or at the dispatcher's next event, whichever is first. A
    /// packet sent inside a window reaches another partition no earlier than
    /// the window's end, so the partitions need each other's packets only
    /// between windows. Runs while some flow has a byte it never sent: such a
    /// flow needs at least four link delays to complete (the byte to its
    /// receiver, the ACK back), more than a window, so the run cannot end
    /// inside one. After that the run's
    /// end (its last completion) is found one event at a time by
    /// [`Self::run_ordered`]. Returns an ending if the run ended here.
    fn run_windows(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        let mut busy = vec![0f64; self.parts.len()];
        let crew = match crew::Crew::start(self.parts.len() - 1, &self.sh) {
            Ok(c) => c,
            Err(e) => {
                return Some(Ending::Failed(Error::Sim(format!(
                    "cannot start {} worker threads: {e}",
                    self.parts.len() - 1
                ))));
            }
        };
        // The earliest arrival among the packets waiting in the inboxes.
        let mut inbox_min: Option<Key> = None;
        for p in &mut self.parts {
            p.head = p.q.head_key();
        }
        loop {
            let pr = self.progress();
            if pr.sent_all == total {
                break;
            }
            let head = self
                .parts
                .iter()
                .filter_map(|p| p.head)
                .chain(inbox_min)
                .min();
            let global = self.gq.head_key();
            let bound = match self.next_window(head, global, stop_bound, pr) {
                Ok(b) => b,
                Err(e) => return Some(e),
            };
            if head.is_some_and(|h| h < bound) {
                let tw = Instant::now();
                let counts = crew.window(&mut self.parts, &self.sh, bound);
                self.engine.window_seconds += tw.elapsed().as_secs_f64();
                let slowest = counts.iter().map(|c| c.1).fold(0.0, f64::max);
                self.engine.critical_seconds += slowest;
                self.engine.critical_events += counts.iter().map(|c| c.0).max().unwrap_or(0);
                for (i, (n, t)) in counts.into_iter().enumerate() {
                    self.engine.window_events += n;
                    busy[i] += t;
                }
                self.engine.windows += 1;
                let ts = Instant::now();
                inbox_min = self.exchange();
                self.apply_journals();
                self.engine.merge_seconds += ts.elapsed().as_secs_f64();
                if let Some(e) = self.row_over_limit(SimTime(bound.0)) {
                    return Some(e);
                }
            }
            if global == Some(bound)
                && let Some(e) = self.global_due()
            {
                return Some(e);
            }
            if self.engine.window_events >= next_check {
                next_check = self.engine.window_events + CHECK_EVERY;
                let pr = self.progress();
                progress(self.at(SimTime(bound.0), pr.done));
                if let Some(bytes) = self.output_over_limit() {
                    return Some(Ending::OutputOver(SimTime(bound.0), bytes));
                }
                if self.wall_over() {
                    return Some(Ending::WallOver(SimTime(bound.0)));
                }
            }
        }
        self.engine.part_busy_seconds = busy;
        // Hand over what is still in the outboxes' wake.
        for p in &mut self.parts {
            p.take_inbox();
        }
        None
    }

    /// Moves each partition's outbox for partition `to` into `to`'s inbox;
    /// returns the earliest key of an arrival they may schedule.
    fn exchange(&mut self) -> Option<Key> {
        let n = self.parts.len();
        let mut min: Option<Key> = None;
        for from in 0..n {
            self.parts[from].count_crossed();
            for to in 0..n {
                if from == to || self.parts[from].outbox[to].is_empty() {
                    continue;
                }
                for t in &self.parts[from].outbox[to] {
                    let k = t.key();
                    min = Some(min.map_or(k, |m| m.min(k)));
                }
                let out = std::mem::take(&mut self.parts[from].outbox[to]);
                let old = std::mem::replace(&mut self.parts[to].inbox[from], out);
                debug_assert!(old.is_empty(), "an inbox is emptied in every window");
                self.parts[from].outbox[to] = old;
            }
        }
        min
    }

    /// Applies the partitions' journals to the recorder and the diagnostics,
    /// merged in event-key order: the order one thread would have made them in.
    fn apply_journals(&mut self) {
        let lists = self
            .parts
            .iter_mut()
            .map(|p| p.journal.drain().collect())
            .collect();
        self.merge_notes(lists);
    }

    /// Applies the partitions' notes (`lists`, each in key order) in key order.
    fn merge_notes(&mut self, lists: Vec<Vec<(Key, crate::output::journal::Note)>>) {
        let mut notes: Vec<_> = lists
            .into_iter()
            .map(|l| l.into_iter().peekable())
            .collect();
        loop {
            let mut best: Option<(Key, usize)> = None;
            for (i, it) in notes.iter_mut().enumerate() {
                if let Some(&(k, _)) = it.peek()
                    && best.is_none_or(|(b, _)| k < b)
                {
                    best = Some((k, i));
                }
            }
            let Some((_, i)) = best else { break };
            let (key, note) = notes[i].next().expect("peeked");
            self.apply(key, note);
        }
    }

    /// Applies one journal note made at `key`.
    fn apply(&mut self, key: Key, note: crate::output::journal::Note) {
        let time = SimTime(key.0);
        match Journal::apply(note, time, &mut self.rec, &mut self.diag, &mut self.roots) {
            Applied::Done => {}
            Applied::FlowPath(fid) => self.note_flow_path(fid),
            Applied::Paused(si, port, class) if self.diag.candidate.is_none() => {
                // Searched at the next grid point, whatever the threads. (A
                // candidate changes only at the dispatcher's events, which end
                // windows: every thread count sees the same one here.) Pending
                // searches already have that point's event.
                if self.searches.is_empty() {
                    let at = SimTime(next_grid(key.0, self.grid));
                    let what = Sampler::Deadlock;
                    self.gq
                        .schedule_cold_lead(at, u32::MAX, Event::Sample { what }.pack());
                }
                self.searches.push((si, port, class));
            }
            Applied::Paused(..) => {}
        }
    }

    /// The sequential phase: one event at a time, the earliest of any
    /// partition or the dispatcher's, to the end of the run. With one thread
    /// this is the whole run: each partition runs until another's (or the
    /// dispatcher's) next event is due.
    fn run_ordered(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        let mut handled = 0u64;
        loop {
            let pr = self.progress();
            if pr.done == total && pr.started == total {
                return Ending::Done;
            }
            let next = self.next_part();
            let mut bound = match self.ordered_turn(next.map(|n| n.0), stop_bound) {
                Turn::Run(b) => b,
                Turn::Again => {
                    // The dispatcher's events alone (samplers) reach the checks too.
                    if handled + self.global_handled >= next_check {
                        next_check = handled + self.global_handled + CHECK_EVERY;
                        let now = self.gq.now();
                        if let Some(e) = self.checkpoint(now, self.progress(), progress) {
                            return e;
                        }
                    }
                    continue;
                }
                Turn::End(e) => return e,
            };
            let i = next.expect("a partition runs").1;
            // Other partitions' next events bound this one's run.
            for (j, p) in self.parts.iter_mut().enumerate() {
                if j != i
                    && let Some(k) = p.q.head_key()
                {
                    bound = bound.min(k);
                }
            }
            let multi = self.parts.len() > 1;
            while let Some(ev) = self.parts[i].step(&self.sh, bound) {
                handled += 1;
                if multi {
                    bound = bound.min(self.hand_over(i));
                }
                if !self.parts[i].journal.is_empty() {
                    let notes: Vec<_> = self.parts[i].journal.drain().collect();
                    for (k, n) in notes {
                        self.apply(k, n);
                    }
                    if let Some(e) = self.row_over_limit(self.parts[i].q.now()) {
                        return e;
                    }
                    if let Some(g) = self.gq.head_key() {
                        bound = bound.min(g);
                    }
                }
                let pr = if multi {
                    self.progress()
                } else {
                    self.parts[0].progress
                };
                if pr.done == total && pr.started == total {
                    return Ending::Done;
                }
                let now = self.parts[i].q.now();
                if matches!(ev, Event::QpTimer { .. })
                    && pr.done < pr.started
                    && now.since(pr.last) > self.stall
                {
                    return Ending::Stalled(now);
                }
                if handled >= next_check {
                    next_check = handled + CHECK_EVERY;
                    if let Some(e) = self.checkpoint(now, pr, progress) {
                        return e;
                    }
                }
            }
        }
    }

    /// The bound of the next window (threads or ranks), from the earliest
    /// pending key of any partition or inbox (`head`) and the dispatcher's
    /// (`global`): the next grid point after the earliest, or the dispatcher's
    /// event, or the stop. Or how the run ends: nothing left, past the stop,
    /// or stalled.
    fn next_window(
        &self,
        head: Option<Key>,
        global: Option<Key>,
        stop_bound: Key,
        pr: Progress,
    ) -> Result<Key, Ending> {
        let Some(start) = head.into_iter().chain(global).min() else {
            return Err(Ending::Done);
        };
        if start >= stop_bound {
            return Err(Ending::Past(SimTime(start.0)));
        }
        if pr.done < pr.started && SimTime(start.0).since(pr.last) > self.stall {
            return Err(Ending::Stalled(SimTime(start.0)));
        }
        let bound = (next_grid(start.0, self.grid), 0).min(stop_bound);
        Ok(global.map_or(bound, |g| bound.min(g)))
    }

    /// The ordered phase's next step, given the earliest pending key of any
    /// partition (`head`): run that partition up to the returned bound (the
    /// dispatcher's next event or the stop), or handle the dispatcher's event
    /// first, or end the run.
    fn ordered_turn(&mut self, head: Option<Key>, stop_bound: Key) -> Turn {
        let global = self.gq.head_key();
        let Some(head) = head else {
            return match global {
                None => Turn::End(Ending::Done),
                Some(g) if g >= stop_bound => Turn::End(Ending::Past(SimTime(g.0))),
                Some(_) => match self.global_due() {
                    Some(e) => Turn::End(e),
                    None => Turn::Again,
                },
            };
        };
        let bound = global.map_or(stop_bound, |g| g.min(stop_bound));
        if head < bound {
            return Turn::Run(bound);
        }
        if global == Some(bound) && bound < stop_bound {
            return match self.global_due() {
                Some(e) => Turn::End(e),
                None => Turn::Again,
            };
        }
        Turn::End(Ending::Past(SimTime(
            global.map_or(head, |g| g.min(head)).0,
        )))
    }

    /// Handles the dispatcher's next event; returns how the run ends if it
    /// ends here: a deadlock, or a sampler's rows past the output limit.
    fn global_due(&mut self) -> Option<Ending> {
        let (now, ev) = self.gq.pop().expect("the dispatcher has an event due");
        self.global_handled += 1;
        if self.global_event(now, ev.unpack()) {
            return Some(Ending::Deadlock);
        }
        self.row_over_limit(now)
    }

    /// The end of a run whose recorder has just refused a row past the
    /// output limit (checked after every event that writes rows: one sample
    /// may write a row per port). MPI ranks check it together at their
    /// reports instead, rank 0's recorder having stopped writing.
    #[inline]
    fn row_over_limit(&self, now: SimTime) -> Option<Ending> {
        #[cfg(feature = "mpi")]
        if self.ranks.is_some() {
            return None;
        }
        self.rec.over_limit().map(|b| Ending::OutputOver(now, b))
    }

    /// The periodic check of a sequential run at `now`: reports progress,
    /// ends a stalled run or one whose output is over the limit.
    fn checkpoint(
        &mut self,
        now: SimTime,
        pr: Progress,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        progress(self.at(now, pr.done));
        if pr.done < pr.started && now.since(pr.last) > self.stall {
            return Some(Ending::Stalled(now));
        }
        if self.wall_over() {
            return Some(Ending::WallOver(now));
        }
        self.output_over_limit()
            .map(|bytes| Ending::OutputOver(now, bytes))
    }

    /// Whether the run has passed `--max-wall-time` (not on MPI ranks, whose
    /// clocks would disagree on the moment).
    fn wall_over(&self) -> bool {
        #[cfg(feature = "mpi")]
        if self.ranks.is_some() {
            return false;
        }
        self.limits
            .max_wall_time
            .is_some_and(|w| self.started.elapsed() > w)
    }

    /// The size of the output files written so far, if it is over the limit.
    fn output_over_limit(&self) -> Option<u64> {
        if let Some(b) = self.rec.over_limit() {
            return Some(b);
        }
        let bytes = self.rec.output_bytes();
        (bytes > self.limits.max_output_bytes).then_some(bytes)
    }

    /// A run on one thread: [`Self::run_ordered`] for one partition, whose
    /// events run in a tight loop that leaves it only for a note (a completed
    /// flow, a PFC record), a stall or a progress check.
    fn run_single(
        &mut self,
        stop_bound: Key,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Ending {
        let total = self.sh.flows.len();
        let mut next_check = CHECK_EVERY;
        // Events handled, the dispatcher's (samplers) included: a run of
        // samplers alone reaches the checks too.
        let mut handled = 0u64;
        loop {
            if handled + self.global_handled >= next_check {
                next_check = handled + self.global_handled + CHECK_EVERY;
                let now = self.parts[0].q.now().max(self.gq.now());
                if let Some(e) = self.checkpoint(now, self.parts[0].progress, progress) {
                    return e;
                }
            }
            let pr = self.parts[0].progress;
            if pr.done == total && pr.started == total {
                return Ending::Done;
            }
            let head = self.parts[0].q.head_key();
            let bound = match self.ordered_turn(head, stop_bound) {
                Turn::Run(b) => b,
                Turn::Again => continue,
                Turn::End(e) => return e,
            };
            let sh = &*self.sh;
            let part = &mut self.parts[0];
            let check_at = next_check.saturating_sub(self.global_handled);
            while let Some((key, ev)) = part.q.pop_keyed(bound) {
                part.warm(sh);
                let ev = ev.unpack();
                let now = SimTime(key.0);
                part.journal.set_key(key);
                part.dispatch_event(sh, now, ev);
                handled += 1;
                if let Event::QpTimer { .. } = ev {
                    let pr = part.progress;
                    if pr.done < pr.started && now.since(pr.last) > self.stall {
                        return Ending::Stalled(now);
                    }
                }
                if !part.journal.is_empty() || handled >= check_at {
                    break;
                }
            }
            if !self.parts[0].journal.is_empty() {
                let notes: Vec<_> = self.parts[0].journal.drain().collect();
                for (k, n) in notes {
                    self.apply(k, n);
                }
                if let Some(e) = self.row_over_limit(self.parts[0].q.now()) {
                    return e;
                }
            }
        }
    }

    /// Delivers partition `i`'s outboxes at once (the sequential phase);
    /// returns the earliest key they may have scheduled.
    fn hand_over(&mut self, i: usize) -> Key {
        let mut bound = (u64::MAX, u64::MAX);
        for to in 0..self.parts.len() {
            if to == i || self.parts[i].outbox[to].is_empty() {
                continue;
            }
            let mut out = std::mem::take(&mut self.parts[i].outbox[to]);
            self.parts[i].crossed += out.len() as u64;
            let p = &mut self.parts[to];
            for t in out.drain(..) {
                p.links.accept(&t, &mut p.pool, &mut p.q);
            }
            if let Some(k) = p.q.head_key() {
                bound = bound.min(k);
            }
            self.parts[i].outbox[to] = out;
        }
        bound
    }

    /// One of the dispatcher's events; returns true when a deadlock ends the run.
    fn global_event(&mut self, now: SimTime, ev: Event) -> bool {
        match ev {
            Event::Sample {
                what: Sampler::Rates,
            } => self.rate_sample(now),
            Event::Sample {
                what: Sampler::Deadlock,
            } => return self.deadlock_search(now),
            Event::Sample { what } => self.sample(now, what),
            e => unreachable!("not a dispatcher event: {e:?}"),
        }
        false
    }

    /// Writes the outputs of a run that ended at `end`, from the partitions'
    /// `ends` and the dispatcher's recorder and diagnostics.
    fn finish(
        mut self,
        end: SimTime,
        wall_seconds: f64,
        mut ends: Vec<PartEnd>,
    ) -> Result<RunOutputs, Error> {
        let n_egress = self.sh.egress_owner.len();
        let egress = ends::egress_table(&ends, n_egress);
        self.close_pfc_diagnostics(end, &egress);
        let mut queue_hists: Vec<_> = ends.iter_mut().map(|e| e.queue_hist.take()).collect();
        let delays: Vec<_> = ends.iter_mut().map(|e| e.latency.take()).collect();
        let sh = &self.sh;
        self.rec.absorb(&mut queue_hists, &delays, |gid| {
            sh.node_part[sh.egress_owner[gid.idx()].0.idx()] as usize
        });
        // Close the queue histograms at the end of the run.
        let mut queued = vec![(0u64, SimTime::ZERO); n_egress];
        for &(gid, bytes, since) in ends.iter().flat_map(|e| &e.queued) {
            queued[gid.idx()] = (bytes, since);
        }
        for i in 0..self.rec.watched().len() {
            let gid = self.rec.watched()[i].gid;
            let (bytes, since) = queued[gid.idx()];
            self.rec.queue_close(gid, since, end, bytes);
        }
        let paused: Delta = egress
            .iter()
            .flat_map(|e| (0..CLASSES).map(move |c| e.paused(c, end)))
            .fold(Delta::ZERO, |a, b| a + b);
        let max_queue = ends.iter().map(|e| e.max_queue).max().unwrap_or(0);
        let max_buffer = ends.iter().map(|e| e.max_buffer).max().unwrap_or(0);
        let mut stats = Stats::default();
        for e in &ends {
            stats.add(&e.stats);
        }
        let events =
            ends.iter().map(|e| e.events).sum::<u64>() + self.gq.processed() + self.past_event;
        self.engine.part_events = ends.iter().map(|e| e.events).collect();
        if ends.iter().any(|e| e.busy > 0.0) {
            self.engine.part_busy_seconds = ends.iter().map(|e| e.busy).collect();
        }
        self.engine.crossed_packets = ends.iter().map(|e| e.crossed).sum();
        self.engine.ordered_events = events - self.engine.window_events;
        let summary = crate::output::SummaryInput {
            flows_total: self.sh.flows.len(),
            end,
            events,
            stats,
            pfc_paused: paused,
            max_queue_bytes: max_queue,
            max_buffer_bytes: max_buffer,
            wall_seconds,
            base_rtt: self.sh.nic_cfg.base_rtt,
            peak_packets: ends.iter().map(|e| e.peak_packets).sum(),
            peak_events: ends.iter().map(|e| e.peak_events).sum(),
            pfc: self.pfc_headline(),
            engine: std::mem::take(&mut self.engine),
        };
        for (name, bytes) in self.pfc_files(end, &summary.stats, &egress) {
            self.rec.add_file(name, bytes);
        }
        self.rec.finish(summary)
    }

    /// PFC victims: which switch ingresses and egresses flow `fid`, which has
    /// just started, crosses (the dispatcher's view of the routing; the
    /// diagnostics watch the flow from now until it completes).
    fn note_flow_path(&mut self, fid: FlowId) {
        let cfg = &self.sh.cfg;
        let (spec, f) = (&cfg.flows[fid.idx()], &self.sh.flows[fid.idx()]);
        let key = path_model::flow_key(spec, f.sport);
        for h in ecmp::trace(&cfg.topo, cfg.model.ecmp_hash, self.seed, key) {
            let gid = self.sh.gid(cfg.topo.switches[h.index.idx()], h.ingress);
            self.diag.flow_path(fid, gid, h.egress);
        }
    }

    /// The NIC of host `node`, wherever it is.
    fn nic(&self, node: NodeId) -> &Nic {
        let l = self.sh.host_local(node);
        &self.parts[self.sh.node_part[node.idx()] as usize].nics[l]
    }

    /// The switch `node`, wherever it is.
    fn switch(&self, node: NodeId) -> &Switch {
        let l = self.sh.switch_local(node);
        &self.parts[self.sh.node_part[node.idx()] as usize].switches[l]
    }

    fn switch_port(&self, node: NodeId, port: u16) -> &crate::switch::SwitchPort {
        &self.switch(node).ports[port as usize]
    }

    fn run_info(cfg: &RunConfig) -> RunInfo<'_> {
        RunInfo {
            plan: &cfg.output,
            flows: &cfg.flows,
            topo: &cfg.topo,
            source: &cfg.source,
            scenario_text: &cfg.scenario_text,
        }
    }

    /// Sets up the recorders `[output]` asks for, on the watched ports.
    fn configure_recorders(&mut self) -> Result<(), Error> {
        let watched = self
            .watched_ports
            .iter()
            .map(|&(node, port)| crate::output::WatchedPort {
                gid: self.switch_port(node, port).eg.gid,
                node,
                port,
            })
            .collect();
        let n_egress = self.sh.egress_owner.len();
        #[cfg(feature = "mpi")]
        if self.ranks.as_ref().is_some_and(|r| r.rank != 0) {
            let info = Self::run_info(&self.sh.cfg);
            self.rec.configure_mirror(info, n_egress, watched);
            return Ok(());
        }
        self.rec
            .configure(Self::run_info(&self.sh.cfg), n_egress, watched)
    }

    fn sample(&mut self, now: SimTime, what: Sampler) {
        let iv = match what {
            Sampler::Queues => {
                let bytes = self.port_values(&self.watched_ports, |sp| [sp.bytes]);
                self.rec
                    .queue_samples(now, &self.watched_ports, bytes.as_flattened());
                self.sh.cfg.output.queue_interval
            }
            Sampler::Links => {
                self.sample_links(now);
                self.sh.cfg.output.link_utilization
            }
            Sampler::Ns3Qlen => {
                // third.cc monitor_buffer: every switch egress port, every 100 ns.
                let end = self.sh.cfg.output.qlen_mon.map_or(now, |(_, e)| e);
                let topo = &self.sh.cfg.topo;
                let all: Vec<(NodeId, u16)> = topo
                    .switches
                    .iter()
                    .flat_map(|&s| (0..topo.ports[s.idx()].len() as u16).map(move |p| (s, p)))
                    .collect();
                let bytes = self.port_values(&all, |sp| [sp.bytes]);
                let ports = all.iter().zip(bytes).map(|(&(n, p), [b])| (n, p, b));
                self.rec.ns3_qlen_sample(now, ports, now >= end);
                (now < end).then_some(Delta::from_ns(crate::output::ns3::QLEN_INTERVAL_NS))
            }
            Sampler::Flows | Sampler::Rates => {
                self.sample_flows(now);
                self.sh.cfg.output.flow_rates.as_ref().map(|r| r.1)
            }
            Sampler::Deadlock => unreachable!("handled by global_event"),
        };
        if let Some(iv) = iv {
            self.gq
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }

    fn sample_links(&mut self, now: SimTime) {
        let values = self.port_values(&self.watched_ports, |sp| {
            let eg = &sp.eg;
            let in_progress = if eg.busy_until > now {
                eg.rate.bytes_in(eg.busy_until.since(now))
            } else {
                0
            };
            [
                eg.tx_bytes.saturating_sub(in_progress),
                eg.tx_bytes,
                eg.tx_data_bytes,
            ]
        });
        let counters: Vec<crate::output::PortCounters> = self
            .watched_ports
            .iter()
            .zip(values)
            .map(
                |(&(node, port), [done, tx, data])| crate::output::PortCounters {
                    node,
                    port,
                    rate: self.switch_port(node, port).eg.rate,
                    done_bytes: done,
                    tx_bytes: tx,
                    data_bytes: data,
                },
            )
            .collect();
        self.rec.link_util_sample(now, &counters);
    }

    /// `f` of each switch port of `ports`, read in the partition that has it
    /// (with MPI, summed over the ranks: each gives its own ports' and zeros).
    fn port_values<const N: usize>(
        &self,
        ports: &[(NodeId, u16)],
        f: impl Fn(&SwitchPort) -> [u64; N],
    ) -> Vec<[u64; N]> {
        #[cfg(feature = "mpi")]
        if let Some(r) = &self.ranks {
            let mut v = vec![0u64; ports.len() * N];
            for (k, &(node, port)) in ports.iter().enumerate() {
                if self.sh.node_part[node.idx()] as usize == r.rank {
                    v[k * N..(k + 1) * N].copy_from_slice(&f(self.switch_port(node, port)));
                }
            }
            return r
                .all_sum(&v)
                .chunks_exact(N)
                .map(|c| c.try_into().expect("chunks of N"))
                .collect();
        }
        ports
            .iter()
            .map(|&(node, port)| f(self.switch_port(node, port)))
            .collect()
    }

    /// Active flows in host order (each NIC's in its order), as one thread
    /// keeps them.
    fn active_flows(&self) -> Vec<FlowId> {
        self.sh
            .cfg
            .topo
            .hosts
            .iter()
            .flat_map(|&h| self.nic(h).active.iter().map(|a| a.fid))
            .collect()
    }

    fn sample_flows(&mut self, now: SimTime) {
        #[cfg(feature = "mpi")]
        if let Some(r) = self.ranks.clone() {
            return self.sample_flows_ranks(&r, now);
        }
        let mut fids: Vec<FlowId> = self
            .active_flows()
            .into_iter()
            .filter(|&f| self.rec.flow_rate_on(f))
            .collect();
        fids.sort_unstable();
        for fid in fids {
            let c = self.flow_counters(fid);
            self.rec.flow_rate(now, fid, c);
        }
    }

    /// [`Self::sample_flows`] on MPI ranks: the active flows are gathered
    /// from every rank, and each flow's counters summed from its sender's
    /// rank (rate, window, bytes sent) and its receiver's (bytes delivered).
    #[cfg(feature = "mpi")]
    fn sample_flows_ranks(&mut self, r: &ranks::Ranks, now: SimTime) {
        use crate::cc::CongestionControl;
        let mine = self.parts[r.rank]
            .nics
            .iter()
            .flat_map(|n| n.active.iter().map(|a| a.fid))
            .filter(|&f| self.rec.flow_rate_on(f))
            .collect::<Vec<FlowId>>();
        let mut fids = r.all_gather_obj(&mine).concat();
        fids.sort_unstable();
        const N: usize = 4;
        let mut v = vec![0u64; fids.len() * N];
        let me = r.rank as u16;
        for (k, &fid) in fids.iter().enumerate() {
            let (f, spec) = (&self.sh.flows[fid.idx()], &self.sh.cfg.flows[fid.idx()]);
            if self.sh.node_part[spec.src.idx()] == me {
                let qp = self.nic(spec.src).send[f.send_slot.idx()]
                    .as_deref()
                    .expect("sampled flows have a sender");
                v[k * N] = qp.cc.rate().0;
                v[k * N + 1] = qp.cc.window().map_or(0, |w| w + 1);
                v[k * N + 2] = qp.high_sent + qp.retx_bytes;
            }
            if self.sh.node_part[spec.dst.idx()] == me {
                v[k * N + 3] = self.nic(spec.dst).received(self.sh.nic_env(), fid).0;
            }
        }
        let v = r.all_sum(&v);
        for (k, fid) in fids.into_iter().enumerate() {
            let c = crate::output::FlowCounters {
                rate: crate::units::Rate(v[k * N]),
                window: v[k * N + 1].checked_sub(1),
                sent: v[k * N + 2],
                delivered: v[k * N + 3],
            };
            self.rec.flow_rate(now, fid, c);
        }
    }

    /// A flow's sending queue pair (at its source NIC), and the bytes its
    /// receiver has in order and its receiver's classification (at its
    /// destination NIC): the samplers observe both ends.
    fn flow_ends(&self, fid: FlowId) -> (&crate::nic::qp::SendQp, (u64, crate::cc::Congestion)) {
        let (f, spec) = (&self.sh.flows[fid.idx()], &self.sh.cfg.flows[fid.idx()]);
        let send = self.nic(spec.src).send[f.send_slot.idx()]
            .as_deref()
            .expect("sampled flows have a sender");
        (send, self.nic(spec.dst).received(self.sh.nic_env(), fid))
    }

    fn flow_counters(&self, fid: FlowId) -> crate::output::FlowCounters {
        use crate::cc::CongestionControl;
        let (qp, (delivered, _)) = self.flow_ends(fid);
        crate::output::FlowCounters {
            rate: qp.cc.rate(),
            window: qp.cc.window(),
            sent: qp.high_sent + qp.retx_bytes,
            delivered,
        }
    }

    fn rate_sample(&mut self, now: SimTime) {
        use crate::cc::CongestionControl;
        for fid in self.active_flows() {
            let (qp, (delivered, rx_class)) = self.flow_ends(fid);
            self.rec.rate_sample(crate::output::RateSample {
                time: now,
                flow: fid.0,
                rate: qp.cc.rate(),
                window: qp.cc.window(),
                delivered,
                congestion: match rx_class {
                    crate::cc::Congestion::Unknown => qp.cc.congestion(),
                    c => c,
                },
            });
        }
        if let Some(iv) = self.trace_rates {
            let what = Sampler::Rates;
            self.gq
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }
}

/// The window grid of a run on `n_parts` partitions: the smallest link delay
/// (the lookahead: a packet needs at least that long to reach another node).
/// A parallel run needs it above zero; a sequential run uses 1 ps then (the
/// grid only times the deadlock searches there).
fn lookahead(cfg: &RunConfig, n_parts: usize) -> Result<u64, Error> {
    let topo = &cfg.topo;
    let zero = topo.spec.links.iter().find(|l| l.delay.ps() == 0);
    match zero {
        Some(l) if n_parts > 1 => Err(crate::error::InputError::new(
            cfg.source.clone(),
            "topology",
            format!(
                "the link between {} and {} has zero delay; a run on {n_parts} threads needs every link delay > 0 (it is the lookahead between partitions): give the link a delay or run with threads = 1",
                topo.name(l.a),
                topo.name(l.b)
            ),
        )
        .into()),
        Some(_) => Ok(1),
        None => Ok(topo
            .spec
            .links
            .iter()
            .map(|l| l.delay.ps())
            .min()
            .unwrap_or(1)),
    }
}

/// What every switch of a run of `cfg` shares.
pub(crate) fn switch_config(cfg: &RunConfig) -> SwitchConfig {
    SwitchConfig {
        model: cfg.model.clone(),
        int_on: cfg.int_on,
        int_counter: cfg.cc.int_counter(),
        xoff_forever: cfg.flowctl.pfc.pause_quanta.is_none(),
        congested_queue: cfg.diag.congested_queue,
    }
}

/// Switch number `si` of `cfg` under run seed `seed`; `gid_of(node, port)` gives
/// each port's egress id.
pub(crate) fn build_switch(
    cfg: &RunConfig,
    si: usize,
    seed: u64,
    gid_of: &mut impl FnMut(NodeId, usize) -> EgressId,
) -> Switch {
    let node = cfg.topo.switches[si];
    let infos = &cfg.topo.ports[node.idx()];
    let ports = infos
        .iter()
        .enumerate()
        .map(|(pi, p)| {
            SwitchPort::new(
                Egress::new(gid_of(node, pi), p, cfg.model.serialization),
                cfg.ecn.red_for(p.rate),
            )
        })
        .collect();
    let facts: Vec<PortFacts> = infos
        .iter()
        .map(|p| PortFacts {
            rate: p.rate,
            red: cfg.ecn.red_for(p.rate),
        })
        .collect();
    Switch {
        node,
        idx: SwitchIdx::from_idx(si),
        ports,
        mmu: Mmu::new(mmu_config::mmu_config(cfg, si, infos)),
        fc: SwitchFc::new(&cfg.flowctl, &facts),
        timer_at: SimTime::MAX,
        pauses_sent: 0,
        ecmp_seed: ecmp::ecmp_seed(seed, node),
        rng: ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ 0xec0 ^ (node.0 as u64) << 20)),
    }
}
