//! Test kit: the world around one node, so that unit tests can drive a NIC or a
//! switch packet by packet without a [`crate::sim::Sim`].
//!
//! [`World`] owns what a node reaches through [`Ctx`] (event queue, link rings,
//! packet pool, stats, recorder, PFC diagnostics, progress) and builds the one
//! `Ctx` of every call ([`World::ctx`]). Builders make a run's configuration
//! from a small scenario text ([`scenario`]), and from it a [`NicConfig`],
//! [`FlowInfo`]s, [`Nic`]s and a [`Switch`]. Two rigs drive nodes:
//!
//! * [`NicPair`]: a sender NIC and a receiver NIC joined back to back by a wire
//!   the test controls (it may mark or drop each packet).
//! * [`SwitchBench`]: one switch; the test hands it packets on ingress ports
//!   and collects what leaves each port.
//!
//! Egress ids are local to a rig: the NIC pair uses 0 (sender) and 1 (receiver);
//! a switch's port `p` is egress `p`.

use crate::config::RunConfig;
use crate::engine::EventQueue;
use crate::ids::{EgressId, FlowId, QpSlot};
use crate::nic::irn::LossRecovery;
use crate::nic::{FlowInfo, Nic, NicConfig, NicEnv};
use crate::node::{Ctx, Event, Links, Packed, Progress, Remote, Transit};
use crate::output::journal::{Journal, PauseSent, PauseToken, Wants};
use crate::packet::{IntHop, Packet, PacketId, PacketKind, PacketPool};
use crate::port::Egress;
use crate::stats::Stats;
use crate::switch::{Switch, SwitchConfig, SwitchEnv};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use std::path::Path;

/// Everything around one node (or a pair of NICs).
pub(crate) struct World {
    n_links: usize,
    pub now: SimTime,
    pub q: EventQueue<Packed>,
    pub links: Links,
    pub pool: PacketPool,
    pub stats: Stats,
    /// What the nodes recorded (every note: victims and deadlock reports on).
    pub rec: Journal,
    pub progress: Progress,
    /// Every link leads to this one partition: nothing is ever sent out.
    link_part: Vec<u16>,
    outbox: Vec<Vec<Transit>>,
    /// PAUSE frames the made-up peer sent ([`World::pfc`]).
    pauses: u32,
}

impl World {
    /// A world with `n_links` link directions (egress ids `0..n_links`) and
    /// `n_flows` flows (for the PFC diagnostics).
    pub fn new(n_links: usize, n_flows: usize) -> World {
        World {
            n_links,
            now: SimTime::ZERO,
            q: EventQueue::new(),
            links: Links::new(n_links),
            pool: PacketPool::new(),
            stats: Stats::default(),
            rec: Journal::new(Wants {
                victims: n_flows > 0,
                deadlock: true,
                ..Wants::default()
            }),
            progress: Progress::default(),
            link_part: vec![0; n_links + 1],
            outbox: vec![Vec::new()],
            pauses: 0,
        }
    }

    /// The node's view of the world now. The only place a `Ctx` is built.
    pub fn ctx(&mut self) -> Ctx<'_> {
        Ctx::new(
            self.now,
            &mut self.q,
            &mut self.links,
            &mut self.pool,
            &mut self.stats,
            &mut self.rec,
            &mut self.progress,
            Remote {
                link_part: &self.link_part,
                me: 0,
                outbox: &mut self.outbox,
            },
        )
    }

    /// Takes the earliest pending event at or before `until` and moves `now` to it.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if self.q.peek_time()? > until {
            return None;
        }
        let (key, ev) = self.q.pop_keyed((u64::MAX, u64::MAX))?;
        let t = SimTime(key.0);
        self.now = t;
        self.rec.set_key(key);
        Some((t, ev.unpack()))
    }

    /// Moves `now` forward to `to` (never back).
    pub fn advance(&mut self, to: SimTime) {
        assert!(to >= self.now, "time runs forward: {to:?} < {:?}", self.now);
        self.now = to;
        // Before every event due at `to`.
        self.rec.set_key((to.0, 0));
    }

    /// Takes the packet arriving now off `link` (as the dispatcher does on an
    /// `Arrive` event): schedules the next arrival on it, if any.
    pub fn land(&mut self, link: EgressId) -> PacketId {
        let (id, next) = self.links.land(link);
        if let Some((at, lead)) = next {
            self.q
                .schedule_lead(at, lead, Event::Arrive { link }.pack());
        }
        id
    }

    /// A copy of packet `id` (and its INT records) that arrived at `at` over `link`.
    pub fn seen(&self, at: SimTime, link: EgressId, id: PacketId) -> Seen {
        let pkt = self.pool.get(id).clone();
        let hops = self.pool.int(id)[..pkt.n_hops as usize].to_vec();
        Seen {
            at,
            link,
            pkt,
            hops,
        }
    }

    /// A PFC frame for `class` from a peer: `quanta` > 0 pauses (a new root
    /// of a pause tree in the diagnostics, as a switch's PAUSE would be), 0 resumes.
    pub fn pfc(&mut self, class: u8, quanta: u16) -> Packet {
        let mut p = Packet::new(PacketKind::Pfc);
        p.class = class;
        p.pause_quanta = quanta;
        p.wire = 64;
        if quanta > 0 {
            let peer = EgressId::from_idx(self.n_links);
            self.pauses += 1;
            let token = PauseToken::new(NodeId(u32::MAX), self.pauses);
            let sent = PauseSent {
                gid: peer,
                class,
                predictive: false,
                cause: None,
                token,
            };
            self.rec.pause_sent(sent, 0, |_| false);
            p.seq = token.0;
        }
        p
    }

    /// Puts a copy of `p` in the pool.
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.pool.alloc(p)
    }
}

/// A resolved run configuration from scenario text (as in scenarios/*.toml).
pub(crate) fn scenario(text: &str) -> RunConfig {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let src = crate::scenario::Source::text(text, "<test>", &base, "test");
    crate::scenario::to_config(&src, &[]).unwrap_or_else(|e| panic!("test scenario: {e}"))
}

/// Three hosts (0, 1, 2) around switch 3, 100 Gbps, 1 us links, no
/// congestion control unless `extra` says otherwise; `extra` adds sections.
pub(crate) fn star(extra: &str) -> RunConfig {
    let cc = if extra.contains("[cc]") {
        ""
    } else {
        "[cc]\nalgorithm = \"none\"\n"
    };
    scenario(&format!(
        "name = \"kit\"\nseed = 1\n\
         [topology]\nkind = \"star\"\nhosts = 3\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
         {cc}{extra}\n\
         [[workload.incast]]\nfan_in = 2\nreceiver = 0\nsize = \"10KB\"\n"
    ))
}

/// The control interval T the kit's NICs use: a star's base RTT (4 x 1 us of
/// propagation plus a data and an ACK serialization) rounded up to a whole us.
pub(crate) const BASE_RTT: Delta = Delta::from_us(5);

/// The NIC configuration a run of `cfg` would use (T = [`BASE_RTT`]).
pub(crate) fn nic_config(cfg: &RunConfig) -> NicConfig {
    let rate = cfg.topo.host_port(cfg.topo.hosts[0]).rate;
    let mut c = NicConfig::new(
        cfg.nic.clone(),
        cfg.model.clone(),
        cfg.int_on,
        cfg.cc.clone(),
        BASE_RTT,
        rate.bytes_in(BASE_RTT),
    );
    c.xoff_forever = cfg.flowctl.pfc.pause_quanta.is_none();
    c
}

/// Flow `size` bytes from host `src` to host `dst` of `cfg`, class 3, starting
/// at 0, source port `10000 + slot`, in queue-pair slots `slot` at both ends;
/// IRN's BDP cap is 64 packets when IRN is on.
pub(crate) fn flow(
    cfg: &RunConfig,
    src: u32,
    dst: u32,
    size: u64,
    slot: u32,
) -> (FlowSpec, FlowInfo) {
    let one_way = Delta::from_us(2);
    let rate = cfg.topo.host_port(NodeId(src)).rate;
    let spec = FlowSpec {
        src: NodeId(src),
        dst: NodeId(dst),
        size,
        start: SimTime::ZERO,
        class: 3,
        dport: 100,
    };
    let info = FlowInfo {
        sport: 10_000 + slot as u16,
        ideal: Delta::ZERO,
        pair_rtt: BASE_RTT,
        pair_bdp: rate.bytes_in(BASE_RTT),
        one_way,
        hops: 2,
        irn_cap: matches!(cfg.nic.loss_recovery, LossRecovery::Irn(_)).then_some(64),
        send_slot: QpSlot(slot),
        recv_slot: QpSlot(slot),
        data_to: spec.dst,
        ack_to: spec.src,
    };
    (spec, info)
}

/// Host `host`'s NIC of `cfg`, sending into egress `gid`, with `n_send` sending
/// and `n_recv` receiving queue pairs.
pub(crate) fn nic(cfg: &RunConfig, host: u32, gid: EgressId, n_send: usize, n_recv: usize) -> Nic {
    let node = NodeId(host);
    let rng = |salt: u64| crate::lazy_rng::LazyRng::new(salt ^ host as u64);
    Nic::new(
        node,
        cfg.topo.host_idx(node),
        Egress::new(gid, cfg.topo.host_port(node), cfg.model.serialization),
        (rng(0x41c), rng(0x7cc)),
        // Flow ids equal their slots here; tests start flows with `start_flow`.
        (0..n_send).map(FlowId::from_idx).collect(),
        n_recv,
    )
}

/// Switch number `si` of `cfg`, built as `Sim::new` builds it; port `p` sends
/// into egress `p`.
pub(crate) fn switch(cfg: &RunConfig, si: usize) -> Switch {
    let node = cfg.topo.switches[si];
    let (idx, infos) = (
        crate::ids::SwitchIdx::from_idx(si),
        &cfg.topo.ports[node.idx()],
    );
    let plan = crate::sim::switch_plan(cfg);
    Switch::new(&plan, idx, node, infos, cfg.seed, &mut |_, port| {
        EgressId::from_idx(port)
    })
}

/// The port of a [`switch`] rig's switch that sends into egress `gid`.
fn port_of(gid: EgressId) -> u16 {
    u16::try_from(gid.0).expect("a rig's switch has few ports")
}

/// A packet that crossed a link: when it arrived and what it was.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub at: SimTime,
    /// The egress it left (a rig's local id).
    pub link: EgressId,
    pub pkt: Packet,
    /// Its INT records (`pkt.n_hops` of them).
    pub hops: Vec<IntHop>,
}

/// Egress id of the sender NIC in a [`NicPair`]; the receiver's is [`RX`].
pub(crate) const TX: EgressId = EgressId(0);
pub(crate) const RX: EgressId = EgressId(1);

/// A sender NIC (host 1 of [`star`]) and a receiver NIC (host 0) joined back to
/// back by a wire of the host link's delay, which the test controls.
pub(crate) struct NicPair {
    pub w: World,
    pub cfg: NicConfig,
    pub specs: Vec<FlowSpec>,
    pub flows: Vec<FlowInfo>,
    pub tx: Nic,
    pub rx: Nic,
    /// Every packet that reached the end of the wire, in arrival order
    /// (dropped ones included).
    pub seen: Vec<Seen>,
}

impl NicPair {
    /// `flows` flows of `size` bytes from host 1 to host 0 of `run`.
    pub fn new(run: &RunConfig, n_flows: usize, size: u64) -> NicPair {
        let (specs, flows) = (0..n_flows as u32)
            .map(|i| flow(run, 1, 0, size, i))
            .unzip();
        NicPair {
            w: World::new(2, n_flows),
            cfg: nic_config(run),
            tx: nic(run, 1, TX, n_flows, 0),
            rx: nic(run, 0, RX, 0, n_flows),
            specs,
            flows,
            seen: Vec::new(),
        }
    }

    /// Starts flow `fid` at its sender now.
    pub fn start(&mut self, fid: u32) {
        let env = NicEnv {
            cfg: &self.cfg,
            specs: &self.specs,
            flows: &self.flows,
            programs: None,
        };
        let mut ctx = self.w.ctx();
        self.tx.start_flow(&mut ctx, env, FlowId(fid));
    }

    /// Hands packet `p` to the NIC at the end of egress `link` now (as if it
    /// had just arrived from the wire).
    pub fn inject(&mut self, link: EgressId, p: Packet) {
        let id = self.w.alloc(p);
        self.deliver(link, id);
    }

    fn deliver(&mut self, link: EgressId, id: PacketId) {
        let env = NicEnv {
            cfg: &self.cfg,
            specs: &self.specs,
            flows: &self.flows,
            programs: None,
        };
        let mut ctx = self.w.ctx();
        let nic = if link == TX {
            &mut self.rx
        } else {
            &mut self.tx
        };
        nic.on_packet(&mut ctx, env, id);
    }

    /// Runs every event up to `until`; each packet reaching the end of the wire
    /// passes `wire`, which may change it and returns false to lose it.
    pub fn run_until(&mut self, until: SimTime, mut wire: impl FnMut(&Seen) -> Fate) {
        while let Some((at, ev)) = self.w.pop_until(until) {
            let env = NicEnv {
                cfg: &self.cfg,
                specs: &self.specs,
                flows: &self.flows,
                programs: None,
            };
            match ev {
                Event::Arrive { link } => {
                    let id = self.w.land(link);
                    let seen = self.w.seen(at, link, id);
                    let fate = wire(&seen);
                    self.seen.push(seen);
                    match fate {
                        Fate::Deliver => self.deliver(link, id),
                        Fate::Mark => {
                            self.w.pool.get_mut(id).flags |= crate::packet::flag::ECN_CE;
                            self.deliver(link, id)
                        }
                        Fate::Lose => self.w.pool.free(id),
                    }
                }
                Event::TxDone { egress } => {
                    let nic = if egress == TX {
                        &mut self.tx
                    } else {
                        &mut self.rx
                    };
                    nic.on_tx_done(&mut self.w.ctx(), env)
                }
                Event::PauseExpiry { egress } => {
                    let nic = if egress == TX {
                        &mut self.tx
                    } else {
                        &mut self.rx
                    };
                    nic.on_pause_expiry(&mut self.w.ctx(), env)
                }
                Event::QpTimer { flow } => self.tx.on_qp_timer(&mut self.w.ctx(), env, flow),
                Event::CnpTimer { flow } => self.rx.on_cnp_timer(&mut self.w.ctx(), env, flow),
                e => panic!("a NIC pair has no {e:?}"),
            }
        }
        self.w.advance(until.max(self.w.now));
    }

    /// Runs up to `until`, delivering every packet unchanged.
    pub fn run(&mut self, until: SimTime) {
        self.run_until(until, |_| Fate::Deliver);
    }

    /// The packets that arrived over egress `link` so far, of `kind`.
    pub fn arrived(&self, link: EgressId, kind: PacketKind) -> Vec<&Seen> {
        self.seen
            .iter()
            .filter(|s| s.link == link && s.pkt.kind == kind)
            .collect()
    }
}

/// What the wire of a [`NicPair`] does with one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    Deliver,
    /// Deliver it with ECN CE set (as a congested switch would).
    Mark,
    Lose,
}

/// One switch of a run; the test hands it packets and collects what leaves.
pub(crate) struct SwitchBench {
    pub w: World,
    pub cfg: SwitchConfig,
    pub run: RunConfig,
    pub sw: Switch,
    /// Packets that left, in arrival order at the far end of their port.
    pub out: Vec<Seen>,
}

impl SwitchBench {
    /// Switch `si` of `run`.
    pub fn new(run: RunConfig, si: usize) -> SwitchBench {
        let sw = switch(&run, si);
        SwitchBench {
            w: World::new(sw.ports.len(), 0),
            cfg: crate::sim::switch_config(&run, BASE_RTT),
            sw,
            run,
            out: Vec::new(),
        }
    }

    /// Packet `p` arrives on port `inp` now. Returns the (port, class) a PFC
    /// frame newly paused, if it did.
    pub fn arrive(&mut self, inp: u16, p: Packet) -> Option<(u16, u8)> {
        let id = self.w.alloc(p);
        let env = SwitchEnv {
            cfg: &self.cfg,
            routes: &self.run.topo.routes,
        };
        let mut ctx = self.w.ctx();
        self.sw.on_packet(&mut ctx, env, inp, id)
    }

    /// Runs every event up to `until`; what leaves is collected in `out`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some((at, ev)) = self.w.pop_until(until) {
            let env = SwitchEnv {
                cfg: &self.cfg,
                routes: &self.run.topo.routes,
            };
            match ev {
                Event::Arrive { link } => {
                    let id = self.w.land(link);
                    let seen = self.w.seen(at, link, id);
                    self.out.push(seen);
                    self.w.pool.free(id);
                }
                Event::TxDone { egress } => {
                    self.sw.on_tx_done(&mut self.w.ctx(), env, port_of(egress))
                }
                Event::PauseExpiry { egress } => {
                    self.sw
                        .on_pause_expiry(&mut self.w.ctx(), env, port_of(egress))
                }
                Event::SwitchTimer { .. } => {
                    let mut frames = Vec::new();
                    self.sw.on_timer(&mut self.w.ctx(), env, &mut frames)
                }
                e => panic!("a switch bench has no {e:?}"),
            }
        }
        self.w.advance(until.max(self.w.now));
    }

    /// What left port `p` so far, of `kind`.
    pub fn left(&self, p: u16, kind: PacketKind) -> Vec<&Seen> {
        self.out
            .iter()
            .filter(|s| port_of(s.link) == p && s.pkt.kind == kind)
            .collect()
    }
}

/// A data packet of flow `flow` from host `src` to host `dst`, `payload`
/// bytes at `seq`, class 3, `wire` bytes on the wire.
pub(crate) fn data(src: u32, dst: u32, sport: u16, seq: u64, payload: u16, wire: u32) -> Packet {
    let mut p = Packet::new(PacketKind::Data);
    p.src = NodeId(src);
    p.dst = NodeId(dst);
    p.sport = sport;
    p.dport = 100;
    p.flow = FlowId(0);
    p.seq = seq;
    p.payload = payload;
    p.wire = wire;
    p.class = 3;
    p
}
