//! The NIC's receiver: data packets of the flows destined here go through the
//! transport's ACK policy ([`super::transport`]); marked packets produce CNPs
//! (DCQCN §3.1 NP, Fig. 6: at most one per N us per flow, and one when the
//! window ends for marks inside it) or flag the ACK (`cnp = "ack-flag"`, the
//! ns-3 model); receiver-side congestion control (RCC §III) sets the window the
//! ACK carries.
//!
//! A flow's receiving queue pair is made on its first packet and freed once
//! the message is complete and its state at rest ([`RecvQp::at_rest`]), so the
//! NIC holds state for the flows in progress only; a later duplicate finds it
//! rebuilt ([`RecvQp::closed`]) and is answered as before.

use super::qp::RecvQp;
use super::{Nic, NicEnv};
use crate::cc::CcKind;
use crate::cc::homa::{Arrival, HomaArrival, HomaPlan, Resend};
use crate::cc::receiver::{ReceiverControl, RxEvent, RxFeedback};
use crate::ids::FlowId;
use crate::node::{Ctx, Event};
use crate::packet::{PacketId, PacketKind, flag};
use crate::profile::{CnpMode, IntBytes};
use crate::units::{Delta, SimTime};

impl Nic {
    /// Receiver: in-order data advances `expected` and is ACKed by the ACK
    /// policy; a gap is NACKed; marked packets produce CNPs or flag the ACK.
    #[inline(always)]
    pub(super) fn receive_data(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let now = ctx.now;
        let cfg = env.cfg;
        let pkt = ctx.pool.get(id);
        let fid = pkt.flow;
        let (seq, payload, ce, n_hops) = (
            pkt.seq,
            pkt.payload as u64,
            pkt.has(flag::ECN_CE),
            pkt.n_hops as u32,
        );
        ctx.rec.packet_delivered(fid, pkt.sent_at, now);
        let (wire, sent_at, first) = (pkt.wire as u64, pkt.sent_at, pkt.has(flag::FIRST));
        let (credit_seq, credit_sent) = (pkt.aux, SimTime(pkt.window));
        let last = pkt.has(flag::LAST);
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let slot = f.recv_slot.idx();
        self.close_lingering(env, now);
        if let CcKind::Homa(plan) = &cfg.cc {
            let done = match self.recv[slot].as_deref() {
                Some(rx) => rx.delivered >= spec.size,
                None => self.is_closed(slot),
            };
            if !done {
                self.homa_data(ctx, env, plan, fid, seq, payload);
            }
        }
        let rx = self.open_rqp(slot, spec.size);
        if rx.first_at.is_none() {
            rx.first_at = Some(now);
        }
        if rx.irn.is_none() && rx.expected == 0 && rx.delivered == 0 {
            rx.irn = cfg.transport.new_receiver(f.irn_cap, spec.size);
        }
        let mut send_ack = false;
        let mut cnp_flag = false;
        ctx.stats.payload_rx_bytes += payload;
        rx.ce_since_ack |= ce;
        // Homa has no use for CNPs (and its receiver timeout is the flow's
        // receiver timer).
        if ce && !matches!(cfg.cc, CcKind::Homa(_)) {
            match cfg.model.cnp {
                CnpMode::Packet {
                    interval,
                    timer: true,
                } => {
                    // The flow's timer: windows of `interval` from its first
                    // packet; a CNP at the end of one that saw a mark.
                    if !rx.cnp_pending {
                        rx.cnp_pending = true;
                        let first = rx.first_at.unwrap_or(now).ps();
                        let end = first + ((now.ps() - first) / interval.ps() + 1) * interval.ps();
                        ctx.schedule_timer(SimTime(end), Event::CnpTimer { flow: fid });
                    }
                }
                CnpMode::Packet { interval, .. } => {
                    // DCQCN §3.1 NP (Fig. 6): a CNP at once if none went out in
                    // the last N us; otherwise one when the window ends, for all
                    // the marks that arrived inside it.
                    match rx.last_cnp {
                        Some(t) if now.since(t) < interval => {
                            if !rx.cnp_pending {
                                rx.cnp_pending = true;
                                let ev = Event::CnpTimer { flow: fid };
                                ctx.schedule_timer(t + interval, ev);
                            }
                        }
                        _ => {
                            rx.last_cnp = Some(now);
                            rx.cnp_pending = false;
                            self.send_cnp(ctx, env, fid);
                        }
                    }
                }
                CnpMode::AckFlag => {
                    cnp_flag = true;
                    // The ns-3 receiver flags whatever ACK/NACK goes out anyway.
                    send_ack = cfg.plan.ns3_ack.is_none();
                }
            }
        }
        let rx = self.recv[slot].as_deref_mut().expect("opened above");
        let was = rx.delivered;
        let out = cfg.transport.receive(rx, seq, payload, spec.size, now);
        // The message's last byte arrived with this packet (a program's receive).
        let arrived = env.programs.is_some() && was < spec.size && rx.delivered >= spec.size;
        send_ack |= out.ack;
        ctx.stats.delivered_bytes += out.fresh;
        if out.in_order {
            ctx.progress.last = now;
        }
        if out.nack {
            ctx.stats.nacks_sent += 1;
        }
        let mut fb = RxFeedback::default();
        if let Some(rk) = &cfg.receiver {
            let ev = RxEvent {
                now,
                flow: fid.0,
                seq,
                payload,
                wire,
                sent_at,
                first,
                last,
                complete: rx.expected >= spec.size,
                line_rate: self.eg.rate,
                t: cfg.base_rtt,
                one_way: f.one_way,
                base_rtt: f.pair_rtt,
                credit_seq,
                credit_sent,
            };
            fb = rk.on_data(&mut rx.ctl, &mut self.rx, &ev);
        }
        if !(send_ack || out.nack) {
            self.close_if_at_rest(env, fid, now);
            ctx.pool.free(id);
            if arrived {
                self.program_received(ctx, env, fid);
            }
            if !cfg.ns3_scheduler() {
                self.kick(ctx, env);
            }
            return;
        }
        rx.since_ack = 0;
        let ece = std::mem::take(&mut rx.ce_since_ack);
        // Turn the data packet into its ACK/NACK: it keeps the INT records and the
        // send timestamp (echoed for RTT samples).
        let expected = rx.expected;
        self.close_if_at_rest(env, fid, now);
        let class = if cfg.plan.ack_in_control_class {
            0
        } else {
            spec.class
        };
        let int_bytes = match cfg.model.sizes.int {
            _ if !cfg.int_on => 0,
            IntBytes::Fixed(b) => b,
            IntBytes::PerHop { base, per_hop } => base + per_hop * n_hops,
        };
        let pkt = ctx.pool.get_mut(id);
        pkt.kind = if out.nack {
            PacketKind::Nack
        } else {
            PacketKind::Ack
        };
        (pkt.src, pkt.dst) = (spec.dst, f.ack_to);
        std::mem::swap(&mut pkt.sport, &mut pkt.dport);
        pkt.seq = expected;
        pkt.aux = out.sack as u32;
        pkt.payload = 0;
        pkt.class = class;
        pkt.flags = 0;
        pkt.set_flag(flag::CNP, cnp_flag);
        pkt.set_flag(flag::ECE, ece);
        pkt.set_flag(flag::RX_BUSY, fb.busy);
        pkt.window = fb.window;
        pkt.wire = cfg.model.sizes.ack_wire(int_bytes);
        self.undefer(ctx);
        self.ctrl.push(ctx.pool, id);
        if arrived {
            self.program_received(ctx, env, fid);
        }
        self.kick(ctx, env);
    }

    /// Homa's receiver (`cc::homa`): counts the packet and sends the grants
    /// that are due, in the control class, ahead of the packet's own ACK.
    fn homa_data(
        &mut self,
        ctx: &mut Ctx,
        env: NicEnv,
        plan: &HomaPlan,
        fid: FlowId,
        seq: u64,
        payload: u64,
    ) {
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let mtu = env.cfg.transport.mtu;
        let arrival = HomaArrival {
            fid,
            sender: spec.src,
            size: spec.size,
            seq,
            payload,
            mtu,
            rtt_bytes: plan.rtt_bytes(f.pair_bdp, mtu),
            now: ctx.now,
        };
        match self.homa.on_data(&arrival) {
            Arrival::Duplicate => return,
            Arrival::Opened => {
                if let Some(iv) = plan.cfg.resend_interval {
                    // The receiver's timeout for this message (`on_cnp_timer`).
                    ctx.schedule_timer(ctx.now + iv, Event::CnpTimer { flow: fid });
                }
            }
            Arrival::Counted => {}
        }
        let mut grants = Vec::new();
        self.homa.grants(plan, mtu, &mut grants);
        for g in &grants {
            let wire = env.cfg.model.sizes.ack_wire(0);
            let id = Self::flow_packet(ctx, env, g.fid, PacketKind::Ack, true, wire);
            let p = ctx.pool.get_mut(id);
            p.sent_at = ctx.now;
            p.window = g.offset;
            p.aux = g.prio as u32;
            p.set_flag(flag::GRANT, true);
            self.undefer(ctx);
            self.ctrl.push(ctx.pool, id);
        }
        if !grants.is_empty() {
            self.kick(ctx, env);
        }
    }

    /// Homa's receiver timeout (Homa §3.7; [`crate::cc::homa::HomaRx::resend_check`]):
    /// a RESEND goes to the sender as a NACK for the first byte not yet
    /// received, and the sender goes back to it (`Transport::on_ack`), up to
    /// what it was granted. Homa's RESEND names a range; going back from the
    /// first hole also resends what arrived after it, at most RTTbytes.
    fn on_homa_timeout(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId, iv: Delta) {
        let (at, resend) = match self.homa.resend_check(fid, ctx.now, iv) {
            Resend::Done => return,
            Resend::Next { at, now } => (at, now),
        };
        ctx.schedule_timer(at, Event::CnpTimer { flow: fid });
        if !resend {
            return;
        }
        let slot = env.flows[fid.idx()].recv_slot.idx();
        let expected = self.recv[slot].as_deref().map_or(0, |rx| rx.expected);
        let wire = env.cfg.model.sizes.ack_wire(0);
        let id = Self::flow_packet(ctx, env, fid, PacketKind::Nack, true, wire);
        let p = ctx.pool.get_mut(id);
        p.sent_at = ctx.now;
        p.seq = expected;
        ctx.stats.nacks_sent += 1;
        self.undefer(ctx);
        self.ctrl.push(ctx.pool, id);
        self.kick(ctx, env);
    }

    /// The receiving queue pair in `slot` (of a `size`-byte message): made on
    /// the flow's first packet, rebuilt as closed for a packet after it was freed.
    #[inline(always)]
    pub(super) fn open_rqp(&mut self, slot: usize, size: u64) -> &mut RecvQp {
        let closed = self.is_closed(slot);
        self.recv[slot].get_or_insert_with(|| {
            Box::new(if closed {
                RecvQp::closed(size)
            } else {
                RecvQp::default()
            })
        })
    }

    /// Whether the receiving queue pair in `slot` completed and was freed.
    pub(crate) fn is_closed(&self, slot: usize) -> bool {
        self.closed[slot / 64] >> (slot % 64) & 1 != 0
    }

    /// Frees flow `fid`'s receiving queue pair if its message is complete and
    /// its state at rest. One that is complete but whose CNP window is still
    /// open is looked at again once the window has ended ([`Self::close_lingering`]).
    #[inline(always)]
    fn close_if_at_rest(&mut self, env: NicEnv, fid: FlowId, now: SimTime) {
        let window = match env.cfg.model.cnp {
            CnpMode::Packet { interval, .. } => Some(interval),
            CnpMode::AckFlag => None,
        };
        let (slot, size) = (
            env.flows[fid.idx()].recv_slot.idx(),
            env.specs[fid.idx()].size,
        );
        let Some(rx) = self.recv[slot].as_deref() else {
            return;
        };
        if rx.at_rest(size, now, window) {
            self.recv[slot] = None;
            self.closed[slot / 64] |= 1 << (slot % 64);
        } else if rx.expected >= size
            && let (Some(t), Some(w)) = (rx.last_cnp, window)
            && now.since(t) < w
        {
            self.lingering.push_back((t + w, fid));
        }
    }

    /// Receivers whose CNP window has ended since they completed are freed if
    /// at rest (windows have one length, so they end in the order they are queued).
    fn close_lingering(&mut self, env: NicEnv, now: SimTime) {
        while let Some(&(t, fid)) = self.lingering.front()
            && t <= now
        {
            self.lingering.pop_front();
            self.close_if_at_rest(env, fid, now);
        }
    }

    /// Payload bytes flow `fid`'s receiver (here) has in order, and how its
    /// receiver-side control classifies the flow (for the samplers).
    pub fn received(&self, env: NicEnv, fid: FlowId) -> (u64, crate::cc::Congestion) {
        let slot = env.flows[fid.idx()].recv_slot.idx();
        match self.recv[slot].as_deref() {
            Some(rx) => (rx.delivered, rx.ctl.congestion()),
            None if self.is_closed(slot) => {
                (env.specs[fid.idx()].size, crate::cc::Congestion::Unknown)
            }
            None => (0, crate::cc::Congestion::Unknown),
        }
    }

    /// Queues a CNP from flow `fid`'s receiver (here) back to its sender.
    fn send_cnp(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let cid = Self::flow_packet(
            ctx,
            env,
            fid,
            PacketKind::Cnp,
            true,
            env.cfg.model.sizes.cnp,
        );
        self.undefer(ctx);
        self.ctrl.push(ctx.pool, cid);
        ctx.stats.cnps_sent += 1;
    }

    /// The end of flow `flow`'s NP window with a mark in it: its CNP goes out
    /// now and a new window starts (DCQCN §3.1, Fig. 6).
    /// With ExpressPass (no CNPs), the receiver timer paces the flow's credits.
    pub fn on_cnp_timer(&mut self, ctx: &mut Ctx, env: NicEnv, flow: FlowId) {
        if self.credit_pacing(env) {
            return self.on_credit_timer(ctx, env, flow);
        }
        if let CcKind::Homa(plan) = &env.cfg.cc
            && let Some(iv) = plan.cfg.resend_interval
        {
            return self.on_homa_timeout(ctx, env, flow, iv);
        }
        let slot = env.flows[flow.idx()].recv_slot.idx();
        let Some(rx) = self.recv[slot].as_deref_mut().filter(|rx| rx.cnp_pending) else {
            // Freed receivers have no CNP pending.
            return;
        };
        rx.cnp_pending = false;
        rx.last_cnp = Some(ctx.now);
        self.send_cnp(ctx, env, flow);
        self.close_if_at_rest(env, flow, ctx.now);
        self.kick(ctx, env);
    }
}
