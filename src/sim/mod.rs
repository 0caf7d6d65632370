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

pub mod limits;
pub mod mmu_config;
pub mod ns3_paths;
pub mod path_model;
pub mod paths;
mod pfc;

use crate::config::RunConfig;
use crate::engine::EventQueue;
use crate::error::Error;
use crate::ids::{EgressId, FlowId, HostIdx, QpSlot, SwitchIdx};
use crate::nic::irn::LossRecovery;
use crate::nic::{FlowInfo, Nic, NicConfig, NicEnv};
use crate::node::{Ctx, Event, Links, MAX_EVENT_INDEX, Packed, Progress, Sampler};
use crate::output::pfc_diag::PfcDiag;
use crate::output::{Recorder, RunInfo, RunOutputs};
use crate::packet::PacketPool;
use crate::port::Egress;
use crate::switch::ecmp;
use crate::switch::flowctl::{PortFacts, SwitchFc};
use crate::switch::mmu::Mmu;
use crate::switch::{Switch, SwitchConfig, SwitchEnv, SwitchPort};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use path_model::PathModel;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// What a node id is, and its index among its kind.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Host(HostIdx),
    Switch(SwitchIdx),
}

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
}

pub struct Sim {
    pub cfg: RunConfig,
    q: EventQueue<Packed>,
    slots: Vec<Slot>,
    /// Owner (node, port) of each egress id.
    egress_owner: Vec<(NodeId, u16)>,
    /// The receiving (node, port) of each link, named by its sending egress.
    link_dst: Vec<(NodeId, u16)>,
    /// Packets in flight on each link (the receiving side's rings).
    links: Links,
    pool: PacketPool,
    switches: Vec<Switch>,
    nics: Vec<Nic>,
    /// Every flow's immutable spec and per-flow constants, by flow id.
    flows: Vec<FlowInfo>,
    nic_cfg: NicConfig,
    sw_cfg: SwitchConfig,
    progress: Progress,
    seed: u64,
    pub stats: Stats,
    rec: Recorder,
    /// Egress ports the per-port recorders watch (`output.queue_ports`).
    watched_ports: Vec<(NodeId, u16)>,
    trace_rates: Option<Delta>,
    limits: limits::Limits,
    /// PFC diagnostics (pause counters, propagation, victims, storms, deadlock).
    diag: PfcDiag,
    /// Scratch for flow-control ticks and deadlock searches.
    fc_frames: Vec<crate::switch::flowctl::Frame>,
    /// Per egress id: the search epoch that last visited it.
    visit: Vec<u32>,
    visit_epoch: u32,
}

/// The node-facing part of the simulator and the shared inputs, borrowed apart
/// from the nodes so that one node can be handed a [`Ctx`].
macro_rules! split {
    ($sim:expr, $now:expr, |$ctx:ident, $nics:ident, $switches:ident, $nenv:ident, $senv:ident| $body:expr) => {{
        #[allow(unused_variables)]
        let Sim {
            q,
            links,
            pool,
            stats,
            rec,
            diag,
            progress,
            nics: $nics,
            switches: $switches,
            flows,
            nic_cfg,
            sw_cfg,
            cfg,
            ..
        } = $sim;
        #[allow(unused_mut, unused_variables)]
        let mut $ctx = Ctx::new($now, q, links, pool, stats, rec, diag, progress);
        #[allow(unused_variables)]
        let $nenv = NicEnv {
            cfg: nic_cfg,
            specs: &cfg.flows,
            flows,
        };
        #[allow(unused_variables)]
        let $senv = SwitchEnv {
            cfg: sw_cfg,
            routes: &cfg.topo.routes,
        };
        $body
    }};
}
pub(crate) use split;

use limits::STALL_LIMIT;

impl Sim {
    /// Builds the network and flows. `rec` receives the outputs.
    pub fn new(cfg: RunConfig, opts: &RunOptions, rec: Recorder) -> Sim {
        let seed = opts.seed.unwrap_or(cfg.seed);
        let topo = &cfg.topo;
        let model = &cfg.model;
        let mut egress_owner = Vec::new();
        let mut gid_of = |node: NodeId, port: usize| {
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
        let nics: Vec<Nic> = topo
            .hosts
            .iter()
            .enumerate()
            .map(|(hi, &node)| {
                let rng = |salt: u64| {
                    ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ salt ^ (node.0 as u64) << 20))
                };
                Nic::new(
                    node,
                    HostIdx::from_idx(hi),
                    Egress::new(gid_of(node, 0), topo.host_port(node), model.serialization),
                    (rng(0x41c), rng(0x7cc)),
                    std::mem::take(&mut starts[hi]),
                    n_recv[hi] as usize,
                )
            })
            .collect();

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
        let slots = topo
            .spec
            .kinds
            .iter()
            .enumerate()
            .map(|(i, k)| match k {
                crate::topology::NodeKind::Host => Slot::Host(topo.host_idx(NodeId::from_idx(i))),
                crate::topology::NodeKind::Switch => {
                    Slot::Switch(topo.switch_idx(NodeId::from_idx(i)))
                }
            })
            .collect();
        let xoff_forever = cfg.flowctl.pfc.pause_quanta.is_none();
        let diag = PfcDiag::new(cfg.diag.clone(), egress_owner.len(), flows.len());
        let n_egress = egress_owner.len();
        // A link's receiving end: the peer of the egress that sends into it.
        let link_dst = egress_owner
            .iter()
            .map(|&(node, port)| {
                let p = &topo.ports[node.idx()][port as usize];
                (p.peer, p.peer_port)
            })
            .collect();
        let mut nic_cfg = NicConfig::new(
            cfg.nic.clone(),
            cfg.model.clone(),
            cfg.int_on,
            cfg.cc.clone(),
            base_rtt,
            max_bdp,
        );
        nic_cfg.xoff_forever = xoff_forever;
        let sw_cfg = SwitchConfig {
            model: cfg.model.clone(),
            int_on: cfg.int_on,
            xoff_forever,
            congested_queue: cfg.diag.congested_queue,
        };
        Sim {
            q: EventQueue::new(),
            slots,
            egress_owner,
            link_dst,
            links: Links::new(n_egress),
            pool: PacketPool::new(),
            switches,
            nics,
            flows,
            nic_cfg,
            sw_cfg,
            progress: Progress::default(),
            seed,
            stats: Stats::default(),
            rec,
            watched_ports,
            trace_rates: opts.trace_rates,
            limits: opts.limits,
            diag,
            fc_frames: Vec::new(),
            visit: vec![0; n_egress],
            visit_epoch: 0,
            cfg,
        }
    }

    /// The control interval T (HPCC) this run uses.
    pub fn base_rtt(&self) -> Delta {
        self.nic_cfg.base_rtt
    }

    /// The seed this run uses (the scenario's, or `--seed`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Runs to completion (all flows done), to the stop time, or until stalled.
    /// `progress` is called now and then with the simulated time.
    pub fn run(
        mut self,
        progress: &mut dyn FnMut(SimTime, usize, usize),
    ) -> Result<RunOutputs, Error> {
        let wall = Instant::now();
        self.configure_recorders()?;
        if let Some(first) = self.cfg.flows.first() {
            let t = first.start;
            for nic in &self.nics {
                if let Some(at) = nic.next_start(self.nic_env()) {
                    // The NIC's own start timer, set before the run.
                    let host = nic.idx;
                    self.q.schedule_cold(at, Event::FlowStart { host }.pack());
                }
            }
            let out = &self.cfg.output;
            if out.queue_interval.is_some() && !self.watched_ports.is_empty() {
                let what = Sampler::Queues;
                self.q.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some(iv) = out.link_utilization
                && self.rec.link_util_on()
            {
                let what = Sampler::Links;
                self.q.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if let Some((_, iv)) = out.flow_rates
                && self.rec.flow_rates_on()
            {
                let what = Sampler::Flows;
                self.q.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if self.trace_rates.is_some() {
                let what = Sampler::Rates;
                self.q.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some((start, _)) = out.qlen_mon
                && self.rec.ns3_qlen_on()
            {
                let what = Sampler::Ns3Qlen;
                self.q.schedule_cold(start, Event::Sample { what }.pack());
            }
        }
        let limit = SimTime(self.limits.max_sim_time.ps());
        let stop = self.cfg.stop.unwrap_or(SimTime::MAX);
        let total = self.flows.len();
        let mut stalled = None;
        let mut over: Option<crate::error::InputError> = None;
        while let Some((now, ev)) = self.q.pop() {
            if now > stop {
                break;
            }
            if now > limit {
                over = Some(limits::sim_time_exceeded(
                    &self.cfg,
                    &self.limits,
                    total - self.progress.done,
                ));
                break;
            }
            match ev.unpack() {
                Event::QpTimer { flow } => {
                    self.dispatch(now, Event::QpTimer { flow });
                    if self.progress.done < self.progress.started
                        && now.since(self.progress.last) > STALL_LIMIT
                    {
                        stalled = Some(now);
                        break;
                    }
                }
                Event::SwitchTimer { switch } => {
                    self.switch_timer(now, switch);
                    if self.diag.deadlock.is_some() {
                        break;
                    }
                }
                e => self.dispatch(now, e),
            }
            if self.progress.done == total && self.progress.started == total {
                break;
            }
            if self.q.processed() & 0xffff == 0 {
                progress(now, self.progress.done, total);
                if self.progress.done < self.progress.started
                    && now.since(self.progress.last) > STALL_LIMIT
                {
                    stalled = Some(now);
                    break;
                }
                let bytes = self.rec.output_bytes();
                if bytes > self.limits.max_output_bytes {
                    over = Some(limits::output_exceeded(&self.cfg, &self.limits, now, bytes));
                    break;
                }
            }
        }
        let end = self.q.now();
        progress(end, self.progress.done, total);
        if self.diag.deadlock.is_some() {
            return self.stop_on_deadlock(end, wall.elapsed().as_secs_f64());
        }
        if over.is_none() {
            // Short runs end between checks.
            let bytes = self.rec.output_bytes();
            if bytes > self.limits.max_output_bytes {
                over = Some(limits::output_exceeded(&self.cfg, &self.limits, end, bytes));
            }
        }
        if let Some(e) = over {
            return Err(e.into());
        }
        if let Some(t) = stalled {
            let unfinished = total - self.progress.done;
            return Err(limits::stalled(&self.cfg, t, unfinished).into());
        }
        self.finish(end, wall.elapsed().as_secs_f64())
    }

    fn finish(mut self, end: SimTime, wall_seconds: f64) -> Result<RunOutputs, Error> {
        self.close_pfc_diagnostics(end);
        // Close the queue histograms at the end of the run.
        for i in 0..self.rec.watched().len() {
            let w = self.rec.watched()[i];
            let bytes = self.switch_port(w.node, w.port).bytes;
            self.rec.queue_change(w.gid, end, bytes);
        }
        let paused: Delta = self
            .switches
            .iter()
            .flat_map(|s| s.ports.iter().map(|p| p.eg.paused_time(end)))
            .chain(self.nics.iter().map(|n| n.eg.paused_time(end)))
            .fold(Delta::ZERO, |a, b| a + b);
        let max_queue = self
            .switches
            .iter()
            .flat_map(|s| s.ports.iter().map(|p| p.peak_bytes))
            .max()
            .unwrap_or(0);
        let max_buffer = self
            .switches
            .iter()
            .map(|s| s.mmu.peak_used())
            .max()
            .unwrap_or(0);
        let summary = crate::output::SummaryInput {
            flows_total: self.flows.len(),
            end,
            events: self.q.processed(),
            stats: self.stats.clone(),
            pfc_paused: paused,
            max_queue_bytes: max_queue,
            max_buffer_bytes: max_buffer,
            wall_seconds,
            base_rtt: self.nic_cfg.base_rtt,
            peak_packets: self.pool.peak(),
            peak_events: self.q.peak_len(),
            pfc: self.pfc_headline(),
        };
        for (name, bytes) in self.pfc_files(end) {
            self.rec.add_file(name, bytes);
        }
        self.rec.finish(summary)
    }

    /// Routes one event to the node it is for.
    #[inline]
    fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::Arrive { link } => {
                let (id, next) = self.links.land(link);
                if let Some((at, lead)) = next {
                    self.q
                        .schedule_lead(at, lead, Event::Arrive { link }.pack());
                }
                let (node, port) = self.link_dst[link.idx()];
                match self.slots[node.idx()] {
                    Slot::Host(hi) => split!(self, now, |ctx, nics, sw, nenv, senv| {
                        nics[hi.idx()].on_packet(&mut ctx, nenv, id)
                    }),
                    Slot::Switch(si) => {
                        let paused = split!(self, now, |ctx, nics, sw, nenv, senv| {
                            sw[si.idx()].on_packet(&mut ctx, senv, port, id)
                        });
                        if let Some((port, class)) = paused
                            && self.cfg.diag.deadlock
                            && self.diag.candidate.is_none()
                        {
                            self.look_for_deadlock(si, port, class);
                        }
                    }
                }
            }
            Event::TxDone { egress } => {
                let (node, port) = self.egress_owner[egress.idx()];
                match self.slots[node.idx()] {
                    Slot::Host(hi) => split!(self, now, |ctx, nics, sw, nenv, senv| {
                        nics[hi.idx()].on_tx_done(&mut ctx, nenv)
                    }),
                    Slot::Switch(si) => split!(self, now, |ctx, nics, sw, nenv, senv| {
                        sw[si.idx()].on_tx_done(&mut ctx, senv, port)
                    }),
                }
            }
            Event::PauseExpiry { egress } => {
                let (node, port) = self.egress_owner[egress.idx()];
                match self.slots[node.idx()] {
                    Slot::Host(hi) => split!(self, now, |ctx, nics, sw, nenv, senv| {
                        nics[hi.idx()].on_pause_expiry(&mut ctx, nenv)
                    }),
                    Slot::Switch(si) => split!(self, now, |ctx, nics, sw, nenv, senv| {
                        sw[si.idx()].on_pause_expiry(&mut ctx, senv, port)
                    }),
                }
            }
            Event::QpTimer { flow } => {
                let hi = self.host_of(self.cfg.flows[flow.idx()].src);
                split!(self, now, |ctx, nics, sw, nenv, senv| {
                    nics[hi.idx()].on_qp_timer(&mut ctx, nenv, flow)
                })
            }
            Event::CnpTimer { flow } => {
                let hi = self.host_of(self.cfg.flows[flow.idx()].dst);
                split!(self, now, |ctx, nics, sw, nenv, senv| {
                    nics[hi.idx()].on_cnp_timer(&mut ctx, nenv, flow)
                })
            }
            Event::FlowStart { host } => {
                let before = self.nics[host.idx()].started().len();
                split!(self, now, |ctx, nics, sw, nenv, senv| {
                    nics[host.idx()].on_flow_start(&mut ctx, nenv)
                });
                if self.cfg.diag.victims && self.cfg.flowctl.enabled {
                    for k in before..self.nics[host.idx()].started().len() {
                        let fid = self.nics[host.idx()].started()[k];
                        self.note_flow_path(fid);
                    }
                }
            }
            Event::Sample {
                what: Sampler::Rates,
            } => self.rate_sample(),
            Event::Sample { what } => self.sample(what),
            Event::SwitchTimer { switch } => self.switch_timer(now, switch),
        }
    }

    /// PFC victims: which switch ingresses and egresses flow `fid`, which has
    /// just started, crosses (the dispatcher's view of the routing; the
    /// diagnostics watch the flow from now until it completes).
    fn note_flow_path(&mut self, fid: FlowId) {
        let (spec, f) = (&self.cfg.flows[fid.idx()], &self.flows[fid.idx()]);
        let key = path_model::flow_key(spec, f.sport);
        for h in ecmp::trace(&self.cfg.topo, self.cfg.model.ecmp_hash, self.seed, key) {
            let gid = self.switches[h.index.idx()].ports[h.ingress as usize]
                .eg
                .gid;
            self.diag.flow_path(fid, gid, h.egress);
        }
    }

    /// What the NICs share (outside [`split!`], which borrows it apart).
    fn nic_env(&self) -> NicEnv<'_> {
        NicEnv {
            cfg: &self.nic_cfg,
            specs: &self.cfg.flows,
            flows: &self.flows,
        }
    }

    #[inline]
    fn host_of(&self, node: NodeId) -> HostIdx {
        self.cfg.topo.host_idx(node)
    }

    fn switch_port(&self, node: NodeId, port: u16) -> &crate::switch::SwitchPort {
        let si = self.cfg.topo.switch_idx(node);
        &self.switches[si.idx()].ports[port as usize]
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
        self.rec
            .configure(Self::run_info(&self.cfg), self.egress_owner.len(), watched)
    }

    fn sample(&mut self, what: Sampler) {
        let now = self.q.now();
        let iv = match what {
            Sampler::Queues => {
                for &(node, port) in &self.watched_ports {
                    let bytes = self.switch_port(node, port).bytes;
                    self.rec.queue_sample(now, node, port, bytes);
                }
                self.cfg.output.queue_interval
            }
            Sampler::Links => {
                self.sample_links(now);
                self.cfg.output.link_utilization
            }
            Sampler::Ns3Qlen => {
                // third.cc monitor_buffer: every switch egress port, every 100 ns.
                let end = self.cfg.output.qlen_mon.map_or(now, |(_, e)| e);
                let ports = self.switches.iter().flat_map(|sw| {
                    let node = sw.node;
                    sw.ports
                        .iter()
                        .enumerate()
                        .map(move |(p, sp)| (node, p as u16, sp.bytes))
                });
                self.rec.ns3_qlen_sample(now, ports, now >= end);
                (now < end).then_some(Delta::from_ns(crate::output::ns3::QLEN_INTERVAL_NS))
            }
            Sampler::Flows | Sampler::Rates => {
                self.sample_flows(now);
                self.cfg.output.flow_rates.as_ref().map(|r| r.1)
            }
        };
        if let Some(iv) = iv {
            self.q
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }

    fn sample_links(&mut self, now: SimTime) {
        let counters: Vec<crate::output::PortCounters> = self
            .watched_ports
            .iter()
            .map(|&(node, port)| {
                let eg = &self.switch_port(node, port).eg;
                let in_progress = if eg.busy_until > now {
                    eg.rate.bytes_in(eg.busy_until.since(now))
                } else {
                    0
                };
                crate::output::PortCounters {
                    node,
                    port,
                    rate: eg.rate,
                    done_bytes: eg.tx_bytes.saturating_sub(in_progress),
                    tx_bytes: eg.tx_bytes,
                    data_bytes: eg.tx_data_bytes,
                }
            })
            .collect();
        self.rec.link_util_sample(now, &counters);
    }

    fn sample_flows(&mut self, now: SimTime) {
        let mut fids: Vec<FlowId> = self
            .nics
            .iter()
            .flat_map(|n| n.active.iter().copied())
            .filter(|&f| self.rec.flow_rate_on(f))
            .collect();
        fids.sort_unstable();
        for fid in fids {
            let c = self.flow_counters(fid);
            self.rec.flow_rate(now, fid, c);
        }
    }

    /// A flow's sending queue pair (at its source NIC), and the bytes its
    /// receiver has in order and its receiver's classification (at its
    /// destination NIC): the samplers observe both ends.
    fn flow_ends(&self, fid: FlowId) -> (&crate::nic::qp::SendQp, (u64, crate::cc::Congestion)) {
        let (f, spec) = (&self.flows[fid.idx()], &self.cfg.flows[fid.idx()]);
        let send = self.nics[self.host_of(spec.src).idx()].send[f.send_slot.idx()]
            .as_deref()
            .expect("sampled flows have a sender");
        (
            send,
            self.nics[self.host_of(spec.dst).idx()].received(self.nic_env(), fid),
        )
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

    fn rate_sample(&mut self) {
        use crate::cc::CongestionControl;
        let now = self.q.now();
        for nic in &self.nics {
            for &fid in &nic.active {
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
        }
        if let Some(iv) = self.trace_rates {
            let what = Sampler::Rates;
            self.q
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
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
        ecmp_seed: ecmp::ecmp_seed(seed, node),
        rng: ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ 0xec0 ^ (node.0 as u64) << 20)),
    }
}
