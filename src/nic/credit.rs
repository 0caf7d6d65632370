//! ExpressPass at the NIC (ExpressPass (SIGCOMM'17) §3; ns-2 `xpass/xpass.cc`,
//! comparators.md §3 (b)):
//!
//! - sender: a flow starts with a CREDIT_REQUEST (`seq`: bytes left); each
//!   credit that arrives while data is left lets one data packet go (the
//!   controller, [`XpassSender`], holds it until the transmit loop sends);
//!   a credit that finds nothing left is wasted and, the first time, answered
//!   by a CREDIT_STOP. If loss recovery later finds data to resend (a NACK or
//!   a timeout rewinds the queue pair), the sender asks for credits again;
//! - receiver: a CREDIT_REQUEST starts the flow's credit pacing
//!   ([`XpassRx`]); each credit goes into the NIC's own credit queue, shaped
//!   like a switch port's ([`CreditShaper`]): the receiver's link is the
//!   first hop of every credit, the one that bounds an incast; a CREDIT_STOP,
//!   or the message's last byte arriving, stops it;
//! - the flow's pacing timer is its receiver timer (`Event::CnpTimer`; a run
//!   with ExpressPass has no CNPs).
//!
//! Loss recovery and completion are the NIC's own (go-back-N with NACKs and
//! ACKs every `nic.ack_interval` packets; ns-2 has no ACKs, only NACKs).

use super::{Nic, NicEnv};
use crate::cc::Cc;
use crate::cc::CcKind;
use crate::cc::receiver::RxCtl;
use crate::cc::xpass::feedback::XpassRx;
use crate::cc::xpass::shaper::CreditShaper;
use crate::cc::xpass::{CREDIT_WIRE, XpassConfig};
use crate::ids::FlowId;
use crate::node::{Ctx, Event};
use crate::packet::{PacketId, PacketKind};
use crate::units::SimTime;

fn xpass_cfg(env: NicEnv<'_>) -> &XpassConfig {
    match &env.cfg.cc {
        CcKind::ExpressPass(x) => x,
        _ => unreachable!("credit packets exist only in ExpressPass runs"),
    }
}

impl Nic {
    /// Sender: flow `fid` asks its receiver for credits.
    pub(super) fn request_credits(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let left = self
            .sqp(env, fid)
            .map_or(0, |qp| qp.size.saturating_sub(qp.snd_nxt));
        let id = Self::flow_packet(ctx, env, fid, PacketKind::CreditRequest, false, CREDIT_WIRE);
        let pkt = ctx.pool.get_mut(id);
        pkt.seq = left;
        pkt.sent_at = ctx.now;
        self.undefer(ctx);
        self.ctrl.push(ctx.pool, id);
    }

    /// Sender: after loss recovery may have rewound flow `fid`, asks for
    /// credits again if it had stopped them and has data to send.
    #[inline]
    pub(super) fn rerequest_credits(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let Some(qp) = self.sqp(env, fid) else { return };
        let has_data = qp.has_data();
        if let Cc::ExpressPass(x) = &mut qp.cc
            && x.stopped
            && has_data
        {
            x.stopped = false;
            self.request_credits(ctx, env, fid);
        }
    }

    /// Sender: a credit arrived.
    pub(super) fn receive_credit(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let pkt = ctx.pool.get(id);
        let (fid, seq, sent_at) = (pkt.flow, pkt.seq as u32, pkt.sent_at);
        let Some(qp) = self.sqp(env, fid).filter(|q| !q.done) else {
            // The flow completed: its receiver had the whole message, and
            // stopped crediting, before the last ACK came.
            ctx.pool.free(id);
            return;
        };
        let has_data = qp.has_data();
        let Cc::ExpressPass(x) = &mut qp.cc else {
            unreachable!("credits come only to ExpressPass flows")
        };
        if has_data {
            x.on_credit(seq, sent_at);
            ctx.pool.free(id);
            self.kick(ctx, env);
            return;
        }
        x.wasted += 1;
        if x.stopped {
            ctx.pool.free(id);
            return;
        }
        // Nothing left to send: the credit comes back as CREDIT_STOP.
        x.stopped = true;
        let pkt = ctx.pool.get_mut(id);
        pkt.kind = PacketKind::CreditStop;
        std::mem::swap(&mut pkt.src, &mut pkt.dst);
        std::mem::swap(&mut pkt.sport, &mut pkt.dport);
        pkt.class = 0;
        pkt.wire = CREDIT_WIRE;
        self.undefer(ctx);
        self.ctrl.push(ctx.pool, id);
        self.kick(ctx, env);
    }

    /// Receiver: CREDIT_REQUEST starts (or restarts) the flow's credits; the
    /// first goes at once (ns-2 `recv_credit_request`, `xpass.cc:167-190`).
    pub(super) fn receive_credit_request(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let fid = ctx.pool.get(id).flow;
        ctx.pool.free(id);
        let now = ctx.now;
        let cfg = xpass_cfg(env);
        let max = cfg.max_credit_rate(self.eg.rate, env.cfg.credit_slot_wire);
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let rx = self.open_rqp(f.recv_slot.idx(), spec.size);
        match &mut rx.ctl {
            RxCtl::Xpass(x) if x.next_at.is_some() => return,
            RxCtl::Xpass(x) => {
                // Restart: the feedback starts over; numbering continues, so
                // the loss count stays right.
                let next_seq = x.next_seq;
                **x = XpassRx::new(cfg, max, now);
                x.next_seq = next_seq;
            }
            ctl => *ctl = RxCtl::Xpass(Box::new(XpassRx::new(cfg, max, now))),
        }
        self.send_credit(ctx, env, fid);
    }

    /// Receiver: CREDIT_STOP; the flow's pending pacing event finds it stopped.
    pub(super) fn receive_credit_stop(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let fid = ctx.pool.get(id).flow;
        ctx.pool.free(id);
        let slot = env.flows[fid.idx()].recv_slot.idx();
        if let Some(rx) = self.recv[slot].as_deref_mut()
            && let RxCtl::Xpass(x) = &mut rx.ctl
        {
            x.next_at = None;
        }
    }

    /// Receiver: flow `fid`'s pacing timer.
    pub(super) fn on_credit_timer(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let slot = env.flows[fid.idx()].recv_slot.idx();
        let due = match self.recv[slot].as_deref().map(|rx| &rx.ctl) {
            Some(RxCtl::Xpass(x)) => x.next_at == Some(ctx.now),
            _ => false,
        };
        if due {
            self.send_credit(ctx, env, fid);
        }
    }

    /// Receiver: the flow's next credit goes into the NIC's credit queue (or
    /// is dropped there), and its pacing timer is set for the one after.
    fn send_credit(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let now = ctx.now;
        let cfg = xpass_cfg(env);
        let rx = self.recv[env.flows[fid.idx()].recv_slot.idx()]
            .as_deref_mut()
            .expect("a crediting flow has a receiver");
        let RxCtl::Xpass(x) = &mut rx.ctl else {
            unreachable!("a crediting flow has credit state")
        };
        let seq = x.credit_due(cfg, now, &mut self.rng);
        let next = x.next_at.expect("set by credit_due");
        ctx.schedule_timer(next, Event::CnpTimer { flow: fid });
        let id = Self::flow_packet(ctx, env, fid, PacketKind::Credit, true, CREDIT_WIRE);
        let pkt = ctx.pool.get_mut(id);
        pkt.seq = seq as u64;
        pkt.sent_at = now;
        ctx.stats.credits_sent += 1;
        let slot = env.cfg.credit_slot_wire;
        let rate = self.eg.rate;
        let shaper = self
            .credit
            .get_or_insert_with(|| Box::new(CreditShaper::new(&cfg.plan(slot), rate)));
        if !shaper.push(ctx.pool, id) {
            ctx.stats.credits_dropped += 1;
            ctx.pool.free(id);
            return;
        }
        self.undefer(ctx);
        self.kick(ctx, env);
    }

    /// The NIC's head credit, if its tokens are there now.
    #[inline]
    pub(super) fn ready_credit(&mut self, ctx: &mut Ctx) -> Option<PacketId> {
        self.credit.as_deref_mut()?.pop_ready(ctx.pool, ctx.now)
    }

    /// When the NIC's head credit may go, if one waits.
    #[inline]
    pub(super) fn credit_ready_at(&self, now: SimTime) -> Option<SimTime> {
        self.credit.as_deref()?.ready_at(now)
    }

    /// Sender: the credit data packet `id` spends; its number and time go in
    /// the packet (`aux`, `window`).
    #[inline]
    pub(super) fn spend_credit(cc: &mut Cc, ctx: &mut Ctx, id: PacketId) {
        if let Cc::ExpressPass(x) = cc {
            let (seq, at) = x.take_credit();
            let pkt = ctx.pool.get_mut(id);
            pkt.aux = seq;
            pkt.window = at.ps();
        }
    }
}
