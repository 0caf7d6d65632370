//! RDMA NIC: one port, reliable-connection queue pairs, pacing, windows, ACK/NACK
//! and CNP generation, loss recovery (go-back-N, go-back-0 or IRN: [`transport`],
//! [`irn`]) and retransmission timeouts.
//!
//! A NIC owns the sending queue pairs of the flows it sources and the receiving
//! queue pairs of the flows destined to it; a flow's spec ([`FlowInfo`]) is
//! immutable shared data. It handles packets and timers through a
//! [`crate::node::Ctx`] and never reads another node.
//!
//! Transmit selection (per packet, [`tx`]): the control queue (ACK/NACK/CNP)
//! first, unless its class is paused; then round robin over the queue pairs that
//! are eligible: class not paused, data left, window open, and pacing time
//! reached. When nothing is eligible the NIC sleeps until the earliest pacing
//! time. The receiver is in [`receiver`], the sender's reactions in [`sender`].

mod credit;
pub mod irn;
mod program;
pub mod qp;
mod receiver;
mod sender;
pub mod transport;
mod tx;

#[cfg(test)]
mod tests;

use crate::cc::receiver::ReceiverKind;
use crate::cc::{CcKind, FlowCtx};
use crate::ids::{EgressId, FlowId, HostIdx, QpSlot};
use crate::node::{Ctx, Event};
use crate::packet::{PacketId, PacketKind, PktQueue};
use crate::port::Egress;
use crate::profile::{ModelConfig, NicScheduler};

use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
pub use program::HostProgram;
use qp::{RecvQp, SendQp};
use transport::{AckRule, Transport};

/// What every node knows of a flow besides its spec ([`FlowSpec`], in
/// [`NicEnv::specs`]): immutable once the run starts. Kept small (it exists for
/// every flow of the run, finished or not).
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub sport: u16,
    /// Ideal (stand-alone) FCT, for slowdowns.
    pub ideal: Delta,
    /// Base RTT of the pair (the controllers' per-flow RTT).
    pub pair_rtt: Delta,
    /// The pair's bandwidth-delay product in bytes (ns-3's `pairBdp` in the ns3
    /// ideal-FCT model; bottleneck rate x `pair_rtt` otherwise).
    pub pair_bdp: u64,
    /// Base one-way delay of the data path.
    pub one_way: Delta,
    /// Links on the data path, host to host.
    pub hops: u16,
    /// IRN's BDP cap in packets (IRN only).
    pub irn_cap: Option<u32>,
    /// Index of the flow's sending queue pair at the source NIC.
    pub send_slot: QpSlot,
    /// Index of the flow's receiving queue pair at the destination NIC.
    pub recv_slot: QpSlot,
    /// The NIC its data is routed to: its destination NIC, or with host-wide
    /// queue pairs where the fabric delivers it (`config::nics::routing`).
    pub data_to: NodeId,
    /// The NIC its ACKs, CNPs and credits are routed to (likewise).
    pub ack_to: NodeId,
}

/// A flow with a sending queue pair at its NIC: what the transmit loop reads
/// of it besides the queue pair, kept here so that a look over the active
/// flows does not read the run's per-flow tables (docs/performance-log.md,
/// 4e71fed, "cache hints and layout": NIC active list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Active {
    pub fid: FlowId,
    /// Its sending queue pair ([`FlowInfo::send_slot`]).
    pub slot: QpSlot,
    /// Its traffic class.
    pub class: u8,
}

/// What every NIC of a run shares: the transport, the controller, sizes.
#[derive(Clone, Debug)]
pub struct NicConfig {
    pub plan: NicPlan,
    pub transport: Transport,
    pub model: ModelConfig,
    pub int_on: bool,
    /// Wire bytes of a full data packet.
    pub mtu_wire: u32,
    /// Wire bytes an ExpressPass credit stands for ([`NicPlan::credit_slot_wire`]).
    pub credit_slot_wire: f64,
    pub cc: CcKind,
    /// Receiver-side congestion control, when the algorithm has one.
    pub receiver: Option<ReceiverKind>,
    /// The control interval T given to controllers.
    pub base_rtt: Delta,
    /// The largest BDP over host pairs, bytes (ns-3's `maxBdp`).
    pub max_bdp: u64,
    /// A PAUSE of `XOFF_QUANTA` never lapses (X-OFF/X-ON style).
    pub xoff_forever: bool,
    /// The last time whose events the run handles (the stop time or the
    /// simulated-time limit, whichever is earlier). A run that stops ends at
    /// the first event past it, so a look due after it is never held back
    /// ([`Nic::undefer`]).
    pub last: SimTime,
    /// Hold back looks that would find nothing (`RunOptions::keep_idle_looks`
    /// turns it off).
    pub hold_back_looks: bool,
    /// The run's seed, from which each flow's controller seeds its own draws.
    pub seed: u64,
    /// Send the ready message with the fewest bytes left first (Homa's SRBF)
    /// instead of round robin.
    pub sender_srbf: bool,
    /// With host-wide queue pairs on multi-NIC servers: the first of the
    /// hand-over links, one into each node ([`Nic::hand_over`]).
    pub handover_base: Option<u32>,
    /// Flows that start note their path for the PFC victim lists.
    pub note_paths: bool,
}

impl NicConfig {
    pub fn new(
        plan: NicPlan,
        model: ModelConfig,
        int_on: bool,
        cc: CcKind,
        base_rtt: Delta,
        max_bdp: u64,
    ) -> NicConfig {
        let ack = match plan.ns3_ack {
            Some(rule) => AckRule::Ns3(rule),
            None => AckRule::EveryN {
                n: plan.ack_interval,
                ack_duplicates: model.ack_duplicates,
            },
        };
        let transport = Transport {
            mtu: plan.mtu as u64,
            ack,
            recovery: plan.loss_recovery.clone(),
            nack_interval: plan.nack_interval,
            rto: plan.rto,
            reorder: matches!(cc, CcKind::Homa(_)),
        };
        NicConfig {
            mtu_wire: model.sizes.data_wire(plan.mtu, int_on),
            credit_slot_wire: plan.credit_slot_wire(&model.sizes, int_on),
            receiver: cc.receiver(),
            sender_srbf: matches!(cc, CcKind::Homa(_)),
            handover_base: None,
            note_paths: false,
            plan,
            transport,
            model,
            int_on,
            cc,
            base_rtt,
            max_bdp,
            xoff_forever: false,
            last: SimTime::MAX,
            hold_back_looks: true,
            seed: 0,
        }
    }

    #[inline]
    fn ns3_scheduler(&self) -> bool {
        self.model.nic_scheduler == NicScheduler::Ns3
    }
}

/// The shared, immutable inputs a NIC reads while it handles an event.
#[derive(Clone, Copy)]
pub struct NicEnv<'a> {
    pub cfg: &'a NicConfig,
    /// Every flow's spec, by flow id.
    pub specs: &'a [FlowSpec],
    pub flows: &'a [FlowInfo],
    /// The run's programs, if its workload has any (collectives, graphs).
    pub programs: Option<&'a crate::workload::program::Programs>,
}

pub struct Nic {
    pub node: NodeId,
    pub idx: HostIdx,
    pub eg: Egress,
    /// ACK/NACK/CNP waiting to go out.
    pub ctrl: PktQueue,
    /// Flows with a sending queue pair here that has not completed, in start order.
    pub active: Vec<Active>,
    /// Round-robin position in `active`.
    pub rr: usize,
    pub rng: crate::lazy_rng::LazyRng,
    /// Receiver-side congestion-control state (RCC's N and B_R).
    pub rx: crate::cc::rx_nic::RxNicState,
    /// Homa's receiver: inbound messages and their grants (Homa only).
    pub homa: crate::cc::homa::HomaRx,
    /// The one pending wake-up of the ns-3 NIC scheduler (`m_nextSend`),
    /// `SimTime::MAX` when none is pending. Unused by the eager scheduler.
    pub wake_at: SimTime,
    /// The ns-3 scheduler's look at the end of the current transmission, held
    /// back (its time and lead) while the NIC has nothing it could send then:
    /// [`Nic::undefer`].
    deferred: Option<(SimTime, u32)>,
    /// Sending queue pairs, by [`FlowInfo::send_slot`]; `None` before the flow
    /// starts and after it completes (its state is freed: memory holds the
    /// active flows, not every flow of the run).
    pub send: Vec<Option<Box<SendQp>>>,
    /// Receiving queue pairs, by [`FlowInfo::recv_slot`]; `None` before the
    /// first packet and after completion (see [`receiver`]).
    pub recv: Vec<Option<Box<RecvQp>>>,
    /// Receiving slots whose message is complete and whose state was freed.
    pub closed: Vec<u64>,
    /// Complete receivers kept only while their CNP window is open: (when it
    /// ends, flow), in that order.
    lingering: std::collections::VecDeque<(SimTime, FlowId)>,
    /// The flows sourced here, in start order, and the next to start.
    starts: Vec<FlowId>,
    next_start: usize,
    /// ExpressPass: the credit queue of this NIC's port, made with the first
    /// credit it sends ([`credit`]).
    credit: Option<Box<crate::cc::xpass::shaper::CreditShaper>>,
    /// Its part of the run's programs ([`program`]), if it has one.
    prog: Option<Box<HostProgram>>,
}

impl Nic {
    /// A NIC that sources the flows `starts` (in start order) and sinks `n_recv`.
    pub fn new(
        node: NodeId,
        idx: HostIdx,
        eg: Egress,
        rngs: (crate::lazy_rng::LazyRng, crate::lazy_rng::LazyRng),
        starts: Vec<FlowId>,
        n_recv: usize,
    ) -> Nic {
        let n_send = starts.len();
        Nic {
            node,
            idx,
            eg,
            ctrl: PktQueue::default(),
            active: Vec::new(),
            rr: 0,
            rng: rngs.0,
            rx: crate::cc::rx_nic::RxNicState::new(rngs.1),
            homa: Default::default(),
            wake_at: SimTime::MAX,
            deferred: None,
            send: (0..n_send).map(|_| None).collect(),
            recv: (0..n_recv).map(|_| None).collect(),
            closed: vec![0; n_recv.div_ceil(64)],
            lingering: Default::default(),
            starts,
            next_start: 0,
            credit: None,
            prog: None,
        }
    }

    /// The flows sourced here that have started, in start order.
    pub fn started(&self) -> &[FlowId] {
        &self.starts[..self.next_start]
    }

    /// When the next flow sourced here starts, if any is left: the next
    /// timed start, or the program's next send or compute step's end.
    pub fn next_start(&self, env: NicEnv) -> Option<SimTime> {
        let timed = self.next_timed(env);
        match self.prog.as_deref().and_then(HostProgram::next_due) {
            Some(p) => Some(timed.map_or(p, |t| t.min(p))),
            None => timed,
        }
    }

    /// The next timed start (a flow no program starts).
    fn next_timed(&self, env: NicEnv) -> Option<SimTime> {
        let fid = *self.starts.get(self.next_start)?;
        Some(env.specs[fid.idx()].start)
    }

    /// The start timer to set before the run, if any.
    pub fn first_start(&mut self, env: NicEnv) -> Option<SimTime> {
        let at = self.next_start(env)?;
        if let Some(p) = self.prog.as_deref_mut() {
            p.wants_timer(at);
        }
        Some(at)
    }

    /// The NIC's start timer: flows whose start time has come begin, in start
    /// order, then the program's sends and compute steps that are due; the
    /// timer is set for the next one.
    pub fn on_flow_start(&mut self, ctx: &mut Ctx, env: NicEnv) {
        while let Some(t) = self.next_timed(env)
            && t <= ctx.now
        {
            let fid = self.starts[self.next_start];
            self.next_start += 1;
            self.start_flow(ctx, env, fid);
        }
        if let Some(p) = self.prog.as_deref_mut() {
            p.timer_fired(ctx.now);
            self.program_due(ctx, env);
            self.arm_start(ctx, env);
            return;
        }
        if let Some(t) = self.next_timed(env) {
            ctx.schedule_timer(t, Event::FlowStart { host: self.idx });
        }
    }

    /// A packet arrived from the link.
    #[inline(always)]
    pub fn on_packet(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        if env.cfg.receiver.is_some() {
            // RCC's B_R (§III-C) is about the host link being full: every frame
            // on it counts, ACKs, CNPs and PFC frames as well as data.
            let wire = ctx.pool.get(id).wire as u64;
            self.rx.on_frame(ctx.now, wire);
        }
        if let Some(base) = env.cfg.handover_base
            && self.hand_over(ctx, env, id, base)
        {
            return;
        }
        self.receive(ctx, env, id);
    }

    /// With host-wide queue pairs, a packet that landed here for a queue pair
    /// of a sibling NIC (another NIC of this server) goes to it at no delay,
    /// as ns-3's `RdmaHw` looks the queue pair up host-wide and lets its NIC
    /// send (rdma-hw.cc `ReceiveUdp`, `ReceiveAck`). Data and credit requests
    /// are for the receiving queue pair, ACKs, NACKs, CNPs and credits for the
    /// sending one. Returns whether it was handed over.
    #[inline]
    fn hand_over(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId, base: u32) -> bool {
        let p = ctx.pool.get(id);
        let for_receiver = match p.kind {
            PacketKind::Data | PacketKind::CreditRequest | PacketKind::CreditStop => true,
            PacketKind::Ack | PacketKind::Nack | PacketKind::Cnp | PacketKind::Credit => false,
            PacketKind::Pfc => return false,
        };
        let spec = &env.specs[p.flow.idx()];
        let owner = if for_receiver { spec.dst } else { spec.src };
        if owner == self.node {
            return false;
        }
        ctx.hand_over(EgressId(base + owner.0), id);
        true
    }

    /// A packet a sibling NIC handed over ([`Self::hand_over`]): out of the
    /// event loop's line, which [`Self::on_packet`]'s handling is inlined into.
    #[inline(never)]
    pub fn on_handed_over(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        self.receive(ctx, env, id);
    }

    /// A packet for this NIC, landed from its link or handed over.
    #[inline(always)]
    fn receive(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        match ctx.pool.get(id).kind {
            PacketKind::Data => self.receive_data(ctx, env, id),
            PacketKind::Ack | PacketKind::Nack => self.receive_ack(ctx, env, id),
            PacketKind::Cnp => self.receive_cnp(ctx, env, id),
            PacketKind::Pfc => {
                let r = ctx.receive_pfc(&mut self.eg, self.node, 0, id, env.cfg.xoff_forever);
                if r.resumed {
                    self.kick(ctx, env);
                }
            }
            PacketKind::Credit => self.receive_credit(ctx, env, id),
            PacketKind::CreditRequest => self.receive_credit_request(ctx, env, id),
            PacketKind::CreditStop => self.receive_credit_stop(ctx, env, id),
        }
    }

    /// The port finished a transmission, or a wake-up came.
    #[inline(always)]
    pub fn on_tx_done(&mut self, ctx: &mut Ctx, env: NicEnv) {
        let now = ctx.now;
        if env.cfg.ns3_scheduler() {
            // Only a completed transmission or the pending wake-up makes the ns-3
            // NIC look; an event left from a moved wake-up does not.
            let wake = self.wake_at == now;
            if wake {
                self.wake_at = SimTime::MAX;
            }
            if wake || self.eg.busy_until == now {
                self.start_tx(ctx, env);
            }
            return;
        }
        // The eager scheduler claims every look it schedules.
        if self.eg.take_event(now) {
            self.start_tx(ctx, env);
        }
    }

    /// Timed pauses of the port that have lapsed end now.
    pub fn on_pause_expiry(&mut self, ctx: &mut Ctx, env: NicEnv) {
        if ctx.expire_pauses(&mut self.eg, self.node, 0) {
            self.kick(ctx, env);
        }
    }

    /// Whether the run's receivers pace credits (ExpressPass).
    #[inline]
    fn credit_pacing(&self, env: NicEnv) -> bool {
        matches!(env.cfg.receiver, Some(ReceiverKind::Xpass(_)))
    }

    /// The sending queue pair of `fid` (which must have started).
    #[inline]
    fn sqp(&mut self, env: NicEnv, fid: FlowId) -> Option<&mut SendQp> {
        self.send[env.flows[fid.idx()].send_slot.idx()].as_deref_mut()
    }

    /// A new packet of flow `fid` of `kind` and `wire` bytes, addressed from
    /// its sender to its receiver, or back (`back`: CNPs, credits).
    fn flow_packet(
        ctx: &mut Ctx,
        env: NicEnv,
        fid: FlowId,
        kind: PacketKind,
        back: bool,
        wire: u32,
    ) -> PacketId {
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let id = ctx.pool.alloc_blank(kind);
        let pkt = ctx.pool.get_mut(id);
        pkt.flow = fid;
        (pkt.src, pkt.dst, pkt.sport, pkt.dport) = (spec.src, f.data_to, f.sport, spec.dport);
        if back {
            (pkt.src, pkt.dst) = (spec.dst, f.ack_to);
            std::mem::swap(&mut pkt.sport, &mut pkt.dport);
        }
        pkt.wire = wire;
        id
    }

    /// What flow `fid`'s controller is told about its path.
    fn flow_ctx(&self, env: NicEnv, fid: FlowId, now: SimTime) -> FlowCtx {
        let f = &env.flows[fid.idx()];
        let cfg = env.cfg;
        FlowCtx {
            now,
            line_rate: self.eg.rate,
            base_rtt: cfg.base_rtt,
            pair_rtt: f.pair_rtt,
            max_bdp: cfg.max_bdp,
            pair_bdp: f.pair_bdp,
            hops: f.hops.into(),
            mtu: cfg.plan.mtu,
            seed: crate::workload::derive_seed(cfg.seed, "cc", fid.idx()),
            size: env.specs[fid.idx()].size,
        }
    }
}

/// The ns-3 simulator's receiver ACK rule (hpcc-ns3-model.md §5, `ReceiverCheckSeq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns3Ack {
    /// L2_ACK_INTERVAL (bytes): ACK every in-order packet once the expected
    /// sequence has reached it (the milestone resets on every packet, issue #65).
    pub interval_bytes: u64,
    /// L2_CHUNK_SIZE (bytes): also ACK when the expected sequence is a multiple
    /// of it; 0 = no chunks.
    pub chunk: u64,
    /// L2_BACK_TO_ZERO: NACKs and ACKs round the sequence down to a chunk.
    pub back_to_zero: bool,
}

/// The NIC settings of a run (`[nic]` with the profile's defaults filled in).
#[derive(Clone, Debug)]
pub struct NicPlan {
    pub mtu: u32,
    pub ack_interval: u32,
    /// `Some` = the ns-3 ACK rule instead of `ack_interval`.
    pub ns3_ack: Option<Ns3Ack>,
    /// ACK/NACK travel in class 0 at switches (else in the flow's class).
    pub ack_in_control_class: bool,
    /// The host's ACK queue stops only for a PAUSE of class 0, whatever class
    /// the ACKs travel in (ns-3 ACK_HIGH_PRIO = 1); else for their own class.
    pub ack_pause_control: bool,
    pub nack_interval: Delta,
    pub rto: Option<Delta>,
    pub loss_recovery: irn::LossRecovery,
}

impl NicPlan {
    /// Wire bytes one credit of ExpressPass stands for: the full data packet it
    /// admits plus the ACK bytes that packet sends back, on average, in the
    /// credit's own direction (our receivers ACK; ns-2's do not). Credits are
    /// shaped to `credit / (credit + slot)` of a link so that data, credits and
    /// ACKs together fit it (docs/models.md, ExpressPass).
    pub fn credit_slot_wire(&self, sizes: &crate::profile::WireSizes, int_on: bool) -> f64 {
        let acks_per_packet = match &self.ns3_ack {
            Some(rule) => (self.mtu as f64 / rule.interval_bytes.max(1) as f64).min(1.0),
            None => 1.0 / self.ack_interval.max(1) as f64,
        };
        sizes.data_wire(self.mtu, int_on) as f64 + acks_per_packet * sizes.ack_wire(0) as f64
    }
}
