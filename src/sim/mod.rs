//! The simulator: builds switches, NICs and flows from a [`RunConfig`] and runs the
//! event loop.
//!
//! Events are a small enum dispatched by `match`; packets live in the pool and are
//! referenced by index. Per hop a packet costs one `Arrive` event and, while a port
//! stays busy, one `TxDone`. Forwarding is in `switching`, the NIC in `hosts`.

mod hosts;
pub mod limits;
pub mod mmu_config;
pub mod ns3_paths;
pub mod paths;
mod pfc;
pub mod pfc_diag;
mod switching;

use crate::cc::{Cc, FlowCtx, ReceiverKind};
use crate::config::RunConfig;
use crate::engine::EventQueue;
use crate::error::Error;
use crate::nic::Nic;
use crate::nic::qp::{RecvQp, SendQp};
use crate::output::{FctRecord, Recorder, RunOutputs};
use crate::packet::PacketPool;
use crate::port::Egress;
use crate::profile::{IdealFct, NicScheduler};
pub use crate::stats::Stats;
use crate::switch::flowctl::{PortFacts, SwitchFc};
use crate::switch::mmu::Mmu;
use crate::switch::{Switch, SwitchPort};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An egress port finished (or may have finished) serializing; send the next packet.
    TxDone { egress: u32 },
    /// The first packet in flight on an egress port's link reaches the peer.
    Arrive { egress: u32 },
    /// The next flow(s) in start order begin.
    FlowArrival,
    /// A flow's controller timer or retransmission deadline.
    QpTimer { flow: u32 },
    /// Sample a recorder: [`SAMPLE_QUEUES`], [`SAMPLE_LINKS`], [`SAMPLE_FLOWS`],
    /// [`SAMPLE_NS3_QLEN`] or [`SAMPLE_RATES`].
    Sample { what: u32 },
    /// The end of a flow's DCQCN NP window (§3.1, Fig. 6): a CNP if a packet
    /// marked inside the window is still unanswered.
    CnpTimer { flow: u32 },
    /// A timed pause of an egress port may have lapsed.
    PauseExpiry { egress: u32 },
    /// A switch's flow-control timer (P-PFC ticks, deadlock confirmation).
    SwitchTimer { switch: u32 },
}

/// `Event::Sample` targets: queue lengths (queue.csv), link utilization
/// (link_util.csv), flow rates (flow_rates.csv), the ns-3 qlen.txt monitor, the
/// per-flow sending-rate trace kept in memory.
pub const SAMPLE_QUEUES: u32 = 0;
pub const SAMPLE_LINKS: u32 = 1;
pub const SAMPLE_FLOWS: u32 = 2;
pub const SAMPLE_NS3_QLEN: u32 = 3;
pub const SAMPLE_RATES: u32 = 4;

const TAG_SHIFT: u32 = 29;
/// Largest index an event can carry (packets, flows and egress ports are counted below it).
pub const MAX_EVENT_INDEX: u32 = (1 << TAG_SHIFT) - 1;

/// An [`Event`] packed into 32 bits (tag in the top 3 bits), so that heap entries
/// are 16 bytes: this is the hottest data structure of the simulator.
#[derive(Clone, Copy, Debug)]
pub struct Packed(u32);

impl Event {
    #[inline]
    pub fn pack(self) -> Packed {
        let (tag, idx) = match self {
            Event::TxDone { egress } => (0, egress),
            Event::Arrive { egress } => (1, egress),
            Event::FlowArrival => (2, 0),
            Event::QpTimer { flow } => (3, flow),
            Event::Sample { what } => (4, what),
            Event::CnpTimer { flow } => (5, flow),
            Event::PauseExpiry { egress } => (6, egress),
            Event::SwitchTimer { switch } => (7, switch),
        };
        assert!(
            idx <= MAX_EVENT_INDEX,
            "event index {idx} does not fit in 29 bits"
        );
        Packed(tag << TAG_SHIFT | idx)
    }
}

impl Packed {
    #[inline]
    pub fn unpack(self) -> Event {
        let idx = self.0 & MAX_EVENT_INDEX;
        match self.0 >> TAG_SHIFT {
            0 => Event::TxDone { egress: idx },
            1 => Event::Arrive { egress: idx },
            2 => Event::FlowArrival,
            3 => Event::QpTimer { flow: idx },
            4 => Event::Sample { what: idx },
            5 => Event::CnpTimer { flow: idx },
            6 => Event::PauseExpiry { egress: idx },
            _ => Event::SwitchTimer { switch: idx },
        }
    }
}

/// What a node id is, and its index among its kind.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Host(u32),
    Switch(u32),
}

/// Per-flow state.
pub struct Flow {
    pub spec: FlowSpec,
    pub sport: u16,
    pub send: Option<SendQp>,
    pub recv: RecvQp,
    pub ideal: Delta,
    pub pair_rtt: Delta,
    /// The pair's bandwidth-delay product in bytes (ns-3's `pairBdp` in the ns3
    /// ideal-FCT model; bottleneck rate x `pair_rtt` otherwise).
    pub pair_bdp: u64,
    /// Base one-way delay of the data path.
    pub one_way: Delta,
    pub fct: Option<Delta>,
}

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
}

pub struct Sim {
    pub cfg: RunConfig,
    q: EventQueue<Packed>,
    slots: Vec<Slot>,
    /// Owner (node, port) of each egress id.
    egress_owner: Vec<(u32, u16)>,
    pool: PacketPool,
    switches: Vec<Switch>,
    nics: Vec<Nic>,
    flows: Vec<Flow>,
    next_flow: usize,
    flows_done: usize,
    /// The control interval T given to controllers.
    base_rtt: Delta,
    /// The largest BDP over host pairs, bytes (ns-3's `maxBdp`).
    max_bdp: u64,
    /// Receiver-side congestion control, when the algorithm has one.
    receiver: Option<ReceiverKind>,
    seed: u64,
    pub stats: Stats,
    rec: Recorder,
    /// Egress ports the per-port recorders watch (`output.queue_ports`).
    watched_ports: Vec<(u32, u16)>,
    trace_rates: Option<Delta>,
    limits: limits::Limits,
    last_progress: SimTime,
    /// PFC diagnostics (pause counters, propagation, victims, storms, deadlock).
    diag: pfc_diag::PfcDiag,
    /// A PAUSE of `XOFF_QUANTA` never lapses (X-OFF/X-ON style).
    xoff_forever: bool,
    /// Scratch for flow-control ticks and deadlock searches.
    fc_frames: Vec<crate::switch::flowctl::Frame>,
    visit: Vec<u32>,
    visit_epoch: u32,
}

use limits::STALL_LIMIT;

impl Sim {
    /// Builds the network and flows. `rec` receives the outputs.
    pub fn new(cfg: RunConfig, opts: &RunOptions, rec: Recorder) -> Sim {
        let seed = opts.seed.unwrap_or(cfg.seed);
        let topo = &cfg.topo;
        let model = &cfg.model;
        let mtu_wire = cfg.mtu_wire();
        let ack_wire = model.sizes.ack_wire(model.sizes.int_at_sender(cfg.int_on));
        let mut egress_owner = Vec::new();
        let mut gid_of = |node: NodeId, port: usize| {
            egress_owner.push((node.0, port as u16));
            (egress_owner.len() - 1) as u32
        };
        let switches: Vec<Switch> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(i, &node)| {
                let infos = &topo.ports[node.idx()];
                let ports = infos
                    .iter()
                    .enumerate()
                    .map(|(pi, p)| {
                        SwitchPort::new(
                            Egress::new(gid_of(node, pi), p, model.serialization),
                            cfg.ecn.red_for(p.rate),
                        )
                    })
                    .collect();
                let mmu = Mmu::new(mmu_config::mmu_config(&cfg, i, infos));
                let facts: Vec<PortFacts> = infos
                    .iter()
                    .map(|p| PortFacts {
                        rate: p.rate,
                        red: cfg.ecn.red_for(p.rate),
                    })
                    .collect();
                Switch {
                    node,
                    idx: i as u32,
                    ports,
                    mmu,
                    fc: SwitchFc::new(&cfg.flowctl, &facts),
                    timer_at: SimTime::MAX,
                    ecmp_seed: paths::ecmp_seed(seed, node),
                    rng: ChaCha8Rng::seed_from_u64(paths::mix64(
                        seed ^ 0xec0 ^ (node.0 as u64) << 20,
                    )),
                }
            })
            .collect();
        let nics: Vec<Nic> = topo
            .hosts
            .iter()
            .map(|&node| Nic {
                node,
                eg: Egress::new(gid_of(node, 0), topo.host_port(node), model.serialization),
                ctrl: Default::default(),
                active: Vec::new(),
                rr: 0,
                rng: ChaCha8Rng::seed_from_u64(paths::mix64(seed ^ 0x41c ^ (node.0 as u64) << 20)),
                rx: crate::cc::rx_nic::RxNicState::new(ChaCha8Rng::seed_from_u64(paths::mix64(
                    seed ^ 0x7cc ^ (node.0 as u64) << 20,
                ))),
                wake_at: SimTime::MAX,
            })
            .collect();

        let ns3 =
            (model.ideal_fct == IdealFct::Ns3).then(|| ns3_paths::Ns3Paths::new(topo, cfg.nic.mtu));
        let base_rtt = match model.ideal_fct {
            IdealFct::Alone => {
                let rtt = paths::max_base_rtt(topo, |rate, delay| {
                    2 * delay.ps()
                        + model.serialization.tx_time(rate, mtu_wire as u64).ps()
                        + model.serialization.tx_time(rate, ack_wire as u64).ps()
                });
                // "Slightly greater than the maximum RTT" (HPCC §5.1): the next whole us.
                Delta::from_us(rtt.ps() / crate::units::PS_PER_US + 1)
            }
            IdealFct::Ns3 => ns3.as_ref().expect("built for ns3").max_rtt,
        };
        let max_bdp = match &ns3 {
            Some(p) => p.max_bdp,
            None => topo
                .hosts
                .iter()
                .map(|&h| topo.host_port(h).rate.bytes_in(base_rtt))
                .max()
                .unwrap_or(0),
        };

        // Source ports: a per-(src, dst) counter from 10000, like the ns-3 simulator.
        let mut sport_ctr = std::collections::HashMap::<(u32, u32), u16>::new();
        let flows: Vec<Flow> = cfg
            .flows
            .iter()
            .map(|spec| {
                let c = sport_ctr.entry((spec.src.0, spec.dst.0)).or_insert(10_000);
                let sport = *c;
                *c = c.wrapping_add(1);
                let (ideal, pair_rtt, one_way, bottleneck) =
                    ideal_fct(&cfg, seed, spec, sport, ack_wire);
                let (ideal, pair_rtt, pair_bdp) = match &ns3 {
                    Some(p) => {
                        let pair = p.pair(topo, spec.src, spec.dst);
                        let ideal = ns3_paths::ns3_standalone(
                            &pair,
                            spec.size,
                            cfg.nic.mtu,
                            model.sizes.data_header,
                        );
                        (ideal, pair.rtt, pair.bdp)
                    }
                    None => (ideal, pair_rtt, bottleneck.bytes_in(pair_rtt)),
                };
                Flow {
                    spec: spec.clone(),
                    sport,
                    send: None,
                    recv: RecvQp::default(),
                    ideal,
                    pair_rtt,
                    pair_bdp,
                    one_way,
                    fct: None,
                }
            })
            .collect();
        let watched_ports = match &cfg.output.queue_ports {
            None => topo
                .switches
                .iter()
                .flat_map(|s| (0..topo.ports[s.idx()].len() as u16).map(move |p| (s.0, p)))
                .collect(),
            Some(list) => list.iter().map(|(n, p)| (n.0, *p)).collect(),
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
                crate::topology::NodeKind::Host => Slot::Host(topo.kind_index[i]),
                crate::topology::NodeKind::Switch => Slot::Switch(topo.kind_index[i]),
            })
            .collect();
        let xoff_forever = cfg.flowctl.pfc.pause_quanta.is_none();
        let mut diag = pfc_diag::PfcDiag::new(cfg.diag.clone(), egress_owner.len(), flows.len());
        if cfg.diag.victims && cfg.flowctl.enabled {
            for (fid, f) in flows.iter().enumerate() {
                for (si, inp, out) in pfc::trace_ports(&cfg, seed, &f.spec, f.sport) {
                    let gid = switches[si as usize].ports[inp as usize].eg.gid;
                    diag.by_ingress[gid as usize].push((fid as u32, out));
                }
            }
        }
        let n_egress = egress_owner.len();
        Sim {
            q: EventQueue::new(),
            slots,
            egress_owner,
            pool: PacketPool::new(),
            switches,
            nics,
            flows,
            next_flow: 0,
            flows_done: 0,
            base_rtt,
            max_bdp,
            receiver: cfg.cc.receiver(),
            seed,
            stats: Stats::default(),
            rec,
            watched_ports,
            trace_rates: opts.trace_rates,
            limits: opts.limits,
            last_progress: SimTime::ZERO,
            diag,
            xoff_forever,
            fc_frames: Vec::new(),
            visit: vec![0; n_egress],
            visit_epoch: 0,
            cfg,
        }
    }

    /// The control interval T (HPCC) this run uses.
    pub fn base_rtt(&self) -> Delta {
        self.base_rtt
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
        if let Some(first) = self.flows.first() {
            let t = first.spec.start;
            self.q.schedule_cold(t, Event::FlowArrival.pack());
            let out = &self.cfg.output;
            if out.queue_interval.is_some() && !self.watched_ports.is_empty() {
                let what = SAMPLE_QUEUES;
                self.q.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some(iv) = out.link_utilization
                && self.rec.link_util_on()
            {
                let what = SAMPLE_LINKS;
                self.q.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if let Some((_, iv)) = out.flow_rates
                && self.rec.flow_rates_on()
            {
                let what = SAMPLE_FLOWS;
                self.q.schedule_cold(t + iv, Event::Sample { what }.pack());
            }
            if self.trace_rates.is_some() {
                let what = SAMPLE_RATES;
                self.q.schedule_cold(t, Event::Sample { what }.pack());
            }
            if let Some((start, _)) = out.qlen_mon
                && self.rec.ns3_qlen_on()
            {
                let what = SAMPLE_NS3_QLEN;
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
                    total - self.flows_done,
                ));
                break;
            }
            match ev.unpack() {
                Event::Arrive { egress } => self.arrive(egress),
                Event::TxDone { egress } => self.tx_done(egress),
                Event::FlowArrival => self.flow_arrival(),
                Event::QpTimer { flow } => {
                    self.qp_timer(flow);
                    if self.flows_done < self.next_flow
                        && now.since(self.last_progress) > STALL_LIMIT
                    {
                        stalled = Some(now);
                        break;
                    }
                }
                Event::Sample { what: SAMPLE_RATES } => self.rate_sample(),
                Event::Sample { what } => self.sample(what),
                Event::CnpTimer { flow } => self.cnp_timer(flow),
                Event::PauseExpiry { egress } => self.pause_expiry(egress),
                Event::SwitchTimer { switch } => {
                    self.switch_timer(switch as usize);
                    if self.diag.deadlock.is_some() {
                        break;
                    }
                }
            }
            if self.flows_done == total && self.next_flow == total {
                break;
            }
            if self.q.processed() & 0xffff == 0 {
                progress(now, self.flows_done, total);
                if self.flows_done < self.next_flow && now.since(self.last_progress) > STALL_LIMIT {
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
        progress(end, self.flows_done, total);
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
            let unfinished = total - self.flows_done;
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
            base_rtt: self.base_rtt,
            peak_packets: self.pool.peak(),
            peak_events: self.q.peak_len(),
            pfc: self.pfc_headline(),
        };
        for (name, bytes) in self.pfc_files(end) {
            self.rec.add_file(name, bytes);
        }
        self.rec.finish(summary)
    }

    /// Delivers the head packet of an egress port's link to the peer.
    #[inline]
    fn arrive(&mut self, egress: u32) {
        let (node, port) = self.egress_owner[egress as usize];
        let eg = match self.slots[node as usize] {
            Slot::Host(hi) => &mut self.nics[hi as usize].eg,
            Slot::Switch(si) => &mut self.switches[si as usize].ports[port as usize].eg,
        };
        let (pkt, next) = eg.land();
        let (peer, peer_port) = (eg.peer, eg.peer_port);
        if let Some(at) = next {
            self.q.schedule(at, Event::Arrive { egress }.pack());
        }
        match self.slots[peer.idx()] {
            Slot::Host(hi) => self.host_arrive(hi as usize, pkt),
            Slot::Switch(si) => self.switch_arrive(si as usize, peer_port, pkt),
        }
    }

    #[inline]
    fn tx_done(&mut self, egress: u32) {
        let (node, port) = self.egress_owner[egress as usize];
        let now = self.q.now();
        match self.slots[node as usize] {
            Slot::Host(hi) => {
                let nic = &mut self.nics[hi as usize];
                if self.cfg.model.nic_scheduler == NicScheduler::Ns3 {
                    // Only a completed transmission or the pending wake-up makes
                    // the ns-3 NIC look; an event left from a moved wake-up does not.
                    let wake = nic.wake_at == now;
                    if wake {
                        nic.wake_at = SimTime::MAX;
                    }
                    if wake || nic.eg.busy_until == now {
                        self.nic_start_tx(hi as usize);
                    }
                    return;
                }
                let eg = &mut nic.eg;
                if eg.next_event == now {
                    eg.next_event = SimTime::MAX;
                }
                self.nic_start_tx(hi as usize);
            }
            Slot::Switch(si) => {
                let eg = &mut self.switches[si as usize].ports[port as usize].eg;
                if eg.next_event == now {
                    eg.next_event = SimTime::MAX;
                }
                self.switch_start_tx(si as usize, port);
            }
        }
    }

    fn switch_port(&self, node: u32, port: u16) -> &crate::switch::SwitchPort {
        let si = self.cfg.topo.kind_index[node as usize] as usize;
        &self.switches[si].ports[port as usize]
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
            .configure(&self.cfg, self.egress_owner.len(), watched)
    }

    fn sample(&mut self, what: u32) {
        let now = self.q.now();
        let iv = match what {
            SAMPLE_QUEUES => {
                for &(node, port) in &self.watched_ports {
                    let si = self.cfg.topo.kind_index[node as usize] as usize;
                    let bytes = self.switches[si].ports[port as usize].bytes;
                    self.rec.queue_sample(now, node, port, bytes);
                }
                self.cfg.output.queue_interval
            }
            SAMPLE_LINKS => {
                self.sample_links(now);
                self.cfg.output.link_utilization
            }
            SAMPLE_NS3_QLEN => {
                // third.cc monitor_buffer: every switch egress port, every 100 ns.
                let end = self.cfg.output.qlen_mon.map_or(now, |(_, e)| e);
                let ports = self.switches.iter().flat_map(|sw| {
                    let node = sw.node.0;
                    sw.ports
                        .iter()
                        .enumerate()
                        .map(move |(p, sp)| (node, p as u16, sp.bytes))
                });
                self.rec.ns3_qlen_sample(now, ports, now >= end);
                (now < end).then_some(Delta::from_ns(crate::output::ns3::QLEN_INTERVAL_NS))
            }
            _ => {
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
        let mut fids: Vec<u32> = self
            .nics
            .iter()
            .flat_map(|n| n.active.iter().copied())
            .filter(|&f| self.rec.flow_rate_on(f as usize))
            .collect();
        fids.sort_unstable();
        for fid in fids {
            let c = self.flow_counters(fid as usize);
            self.rec.flow_rate(now, fid as usize, c);
        }
    }

    fn flow_counters(&self, fid: usize) -> crate::output::FlowCounters {
        use crate::cc::CongestionControl;
        let f = &self.flows[fid];
        let qp = f.send.as_ref().expect("sampled flows have a sender");
        crate::output::FlowCounters {
            rate: qp.cc.rate(),
            window: qp.cc.window(),
            sent: qp.high_sent + qp.retx_bytes,
            delivered: f.recv.delivered,
        }
    }

    fn rate_sample(&mut self) {
        use crate::cc::CongestionControl;
        let now = self.q.now();
        for nic in &self.nics {
            for &fid in &nic.active {
                let f = &self.flows[fid as usize];
                let qp = f.send.as_ref().expect("active flows have a sender");
                self.rec.rate_sample(crate::output::RateSample {
                    time: now,
                    flow: fid,
                    rate: qp.cc.rate(),
                    window: qp.cc.window(),
                    delivered: f.recv.delivered,
                    congestion: match f.recv.ctl.congestion() {
                        crate::cc::Congestion::Unknown => qp.cc.congestion(),
                        c => c,
                    },
                });
            }
        }
        if let Some(iv) = self.trace_rates {
            let what = SAMPLE_RATES;
            self.q
                .schedule_cold(now + iv, Event::Sample { what }.pack());
        }
    }

    fn record_completion(&mut self, fid: usize) {
        let now = self.q.now();
        let f = &mut self.flows[fid];
        let fct = now.since(f.spec.start);
        f.fct = Some(fct);
        self.flows_done += 1;
        if self.rec.flow_rate_on(fid) {
            let c = self.flow_counters(fid);
            self.rec.flow_rate(now, fid, c);
        }
        let f = &self.flows[fid];
        let send = f.send.as_ref().expect("completed flows have a sender");
        self.rec.flow_done(FctRecord {
            flow_id: fid as u32,
            src: f.spec.src.0,
            dst: f.spec.dst.0,
            sport: f.sport,
            dport: f.spec.dport,
            size: f.spec.size,
            start: f.spec.start,
            fct,
            ideal: f.ideal,
            retx_bytes: send.retx_bytes,
            delivered: f.recv.delivered,
            cnps: send.cnps,
            timeouts: send.timeouts,
        });
    }

    fn flow_ctx(&self, fid: usize) -> FlowCtx {
        let f = &self.flows[fid];
        FlowCtx {
            now: self.q.now(),
            line_rate: self.cfg.topo.host_port(f.spec.src).rate,
            base_rtt: self.base_rtt,
            pair_rtt: f.pair_rtt,
            max_bdp: self.max_bdp,
            pair_bdp: f.pair_bdp,
            one_way: f.one_way,
            mtu: self.cfg.nic.mtu,
            mtu_wire: self.cfg.mtu_wire(),
        }
    }

    fn new_cc(&self, fid: usize) -> Cc {
        self.cfg.cc.new_flow(&self.flow_ctx(fid))
    }
}

/// Ideal FCT, base RTT, base one-way delay and bottleneck rate of one flow (on
/// its own ECMP path). (The ns-3 model's ideal FCT and RTT come from [`ns3_paths`].)
fn ideal_fct(
    cfg: &RunConfig,
    seed: u64,
    spec: &FlowSpec,
    sport: u16,
    ack_wire_no_hops: u32,
) -> (Delta, Delta, Delta, crate::units::Rate) {
    let model = &cfg.model;
    let data = paths::trace(
        &cfg.topo, model, seed, spec.src, spec.dst, sport, spec.dport,
    );
    let ack = paths::trace(
        &cfg.topo, model, seed, spec.dst, spec.src, spec.dport, sport,
    );
    let sizes = &model.sizes;
    let bottleneck = data.iter().map(|h| h.rate).min().expect("a path has links");
    let one_way = paths::one_way(model, &data, cfg.mtu_wire());
    let (ideal, rtt) = match model.ideal_fct {
        IdealFct::Alone => {
            let per_hop = if cfg.int_on { sizes.int_per_hop() } else { 0 };
            let switches = data.len().saturating_sub(1) as u32;
            let ack_wire = ack_wire_no_hops + per_hop * switches;
            let inp = paths::IdealInput {
                size: spec.size,
                mtu: cfg.nic.mtu,
                data_overhead: sizes.data_header + sizes.int_at_sender(cfg.int_on),
                per_hop,
                ack_wire,
            };
            let ideal = paths::ideal_alone(model, &data, &ack, &inp);
            (
                ideal,
                paths::base_rtt(model, &data, cfg.mtu_wire(), ack_wire),
            )
        }
        IdealFct::Ns3 => (
            paths::ideal_ns3(&data, spec.size, cfg.nic.mtu, sizes.data_header),
            paths::ns3_pair_rtt(&data, cfg.nic.mtu),
        ),
    };
    (ideal, rtt, one_way, bottleneck)
}
