//! The NIC's sender side: a flow starts (its queue pair and controller), ACKs,
//! NACKs and CNPs reach the controller and the transport's loss recovery
//! ([`super::transport`]), per-flow timers (controller timers and the RTO), and
//! completion (the FCT record).

use super::qp::SendQp;
use super::{Nic, NicEnv};
use crate::cc::{AckInfo, CongestionControl};
use crate::ids::FlowId;
use crate::nic::irn::IrnSender;
use crate::node::{Ctx, Event};
use crate::output::FctRecord;
use crate::packet::{PacketId, PacketKind, flag};
use crate::units::{Rate, SimTime};

impl Nic {
    /// Flow `fid`, sourced here, starts now (the start timer calls this; so can
    /// a test that drives the NIC by hand).
    pub fn start_flow(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let now = ctx.now;
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let cc = env.cfg.cc.new_flow(&self.flow_ctx(env, fid, now));
        let mut qp = SendQp::new(spec.size, cc, now);
        qp.irn = f.irn_cap.map(IrnSender::new);
        self.send[f.send_slot.idx()] = Some(Box::new(qp));
        self.undefer(ctx);
        self.active.push(super::Active {
            fid,
            slot: f.send_slot,
            class: spec.class,
        });
        ctx.progress.started += 1;
        if ctx.progress.done + 1 == ctx.progress.started {
            // First active flow after an idle period: progress starts now.
            ctx.progress.last = now;
        }
        ctx.rec.flow_started(fid, spec.class);
        if self.credit_pacing(env) {
            self.request_credits(ctx, env, fid);
        }
        self.kick(ctx, env);
    }

    /// A CNP for one of the flows sent from here (DCQCN §3.1 RP).
    pub(super) fn receive_cnp(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let fid = ctx.pool.get(id).flow;
        ctx.pool.free(id);
        if let Some(qp) = self.sqp(env, fid).filter(|q| !q.done) {
            let before = qp.cc.rate();
            qp.cc.on_cnp(ctx.now);
            qp.cnps += 1;
            self.after_cc(ctx, env, fid, before, true);
        }
    }

    /// Sender: a cumulative ACK advances `snd_una`; a NACK triggers loss
    /// recovery; then the controller sees the CNP flag and the ACK.
    #[inline(always)]
    pub(super) fn receive_ack(&mut self, ctx: &mut Ctx, env: NicEnv, id: PacketId) {
        let now = ctx.now;
        let pkt = ctx.pool.get(id);
        let fid = pkt.flow;
        let (ece, rx_busy) = (pkt.has(flag::ECE), pkt.has(flag::RX_BUSY));
        let grant = pkt.has(flag::GRANT).then_some((pkt.window, pkt.aux as u8));
        let (seq, is_nack, cnp_flag, sent_at, window, sack) = (
            pkt.seq,
            pkt.kind == PacketKind::Nack,
            pkt.has(flag::CNP),
            pkt.sent_at,
            pkt.window,
            pkt.aux as u64,
        );
        let (n, pint) = (pkt.n_hops as usize, pkt.pint);
        let transport = &env.cfg.transport;
        let seq = transport.acked_seq(seq);
        let Some(qp) = self.sqp(env, fid).filter(|q| !q.done) else {
            ctx.pool.free(id);
            return;
        };
        let before = qp.cc.rate();
        let una = qp.snd_una;
        let newly = transport.on_ack(qp, seq, is_nack.then_some(sack), now);
        if qp.snd_una > una {
            ctx.progress.last = now;
        }
        if cnp_flag {
            qp.cc.on_cnp(now);
            qp.cnps += 1;
        }
        qp.cc.on_ack(&AckInfo {
            now,
            seq,
            snd_nxt: qp.snd_nxt,
            newly_acked: newly,
            is_nack,
            ecn_echo: ece,
            // Read in place: the ACK is freed once the controller has seen it.
            int: &ctx.pool.int(id)[..n],
            pint,
            data_sent_at: sent_at,
            rx_window: (window > 0 && grant.is_none()).then_some(window),
            rx_busy,
            grant,
        });
        ctx.pool.free(id);
        if qp.snd_una >= qp.size {
            qp.done = true;
            self.complete(ctx, env, fid);
            return;
        }
        self.after_cc(ctx, env, fid, before, true);
    }

    /// After a controller hook: re-space pacing if the rate changed, re-arm the
    /// timer, and let the NIC try to send. A packet's arrival always lets it try;
    /// a timer does only with the eager scheduler or when it resent something
    /// (ns-3's controller timers change the rate and nothing else).
    #[inline(always)]
    fn after_cc(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId, before: Rate, packet: bool) {
        let model = &env.cfg.model;
        let qp = self.sqp(env, fid).expect("sender exists");
        let rate = qp.cc.rate();
        if rate != before && model.repace_on_rate_change && qp.last_tx_wire > 0 {
            let gap = model.serialization.tx_time(rate, qp.last_tx_wire as u64);
            qp.next_avail = qp.last_tx_start + gap;
        }
        let next_avail = qp.next_avail;
        self.arm_timer(ctx, env, fid);
        if self.credit_pacing(env) {
            self.rerequest_credits(ctx, env, fid);
        }
        if !env.cfg.ns3_scheduler() {
            self.kick(ctx, env);
            return;
        }
        if packet {
            if model.repace_on_rate_change {
                self.pull_wake(ctx, next_avail);
            }
            self.kick(ctx, env);
        }
    }

    /// The last byte of flow `fid` is acknowledged: its record goes out and its
    /// queue pair is freed (later ACKs, CNPs and timers of the flow find none
    /// and are ignored, as they were by a queue pair marked done).
    fn complete(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        if let Some(pos) = self.active.iter().position(|a| a.fid == fid) {
            self.active.remove(pos);
            if self.rr > pos {
                self.rr -= 1;
            }
            if self.rr >= self.active.len() {
                self.rr = 0;
            }
        }
        let now = ctx.now;
        let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
        let start = self.flow_started_at(env, fid);
        let fct = now.since(start);
        ctx.progress.done += 1;
        ctx.rec.flow_finished(fid);
        let qp = self.send[f.send_slot.idx()]
            .take()
            .expect("completed flows have a sender");
        if ctx.rec.flow_rate_on(fid) {
            let c = crate::output::FlowCounters {
                rate: qp.cc.rate(),
                window: qp.cc.window(),
                sent: qp.high_sent + qp.retx_bytes,
                // All of it: the receiver acknowledged the last byte in order.
                delivered: qp.snd_una.min(qp.size),
            };
            ctx.rec.flow_rate(now, fid, c);
        }
        ctx.rec.flow_done(FctRecord {
            flow_id: fid.0,
            src: spec.src.0,
            dst: spec.dst.0,
            sport: f.sport,
            dport: spec.dport,
            size: spec.size,
            start,
            fct,
            ideal: f.ideal,
            retx_bytes: qp.retx_bytes,
            delivered: qp.snd_una.min(qp.size),
            cnps: qp.cnps,
            timeouts: qp.timeouts,
        });
        self.program_sent(ctx, env, fid);
        self.kick(ctx, env);
    }

    /// Makes sure a `QpTimer` event comes by the earliest of the controller's timer
    /// and the retransmission deadline.
    #[inline(always)]
    pub(super) fn arm_timer(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let qp = self.sqp(env, fid).expect("sender exists");
        let want = qp.cc.next_timer().unwrap_or(SimTime::MAX).min(qp.rto_at);
        if want < qp.timer_at {
            let at = want.max(ctx.now);
            qp.timer_at = at;
            ctx.schedule_timer(at, Event::QpTimer { flow: fid });
        }
    }

    /// Flow `fid`'s controller timer or retransmission deadline.
    pub fn on_qp_timer(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let now = ctx.now;
        let Some(qp) = self.sqp(env, fid).filter(|q| !q.done) else {
            return;
        };
        if qp.timer_at == now {
            qp.timer_at = SimTime::MAX;
        }
        let before = qp.cc.rate();
        if qp.cc.next_timer().is_some_and(|t| t <= now) {
            qp.cc.on_timer(now);
        }
        let mut resent = false;
        if qp.rto_at <= now {
            resent = env.cfg.transport.on_timeout(qp, now);
            if resent {
                ctx.stats.timeouts += 1;
                qp.cc.on_timeout(now);
            }
        }
        self.after_cc(ctx, env, fid, before, resent);
    }
}
