//! The NIC's transmit side: which packet goes next (control first, then queue
//! pairs round robin under pacing, windows and pauses) and when the NIC looks
//! again. Two schedulers: the eager one plans its next look at the earliest
//! time something can go; the ns-3 one (`model.nic_scheduler = "ns3"`) follows
//! qbb-net-device's `DequeueAndTransmit` wake-ups (hpcc-ns3-model.md §5).

use super::{Nic, NicEnv};
use crate::cc::CongestionControl;
use crate::node::{Ctx, Event};
use crate::packet::{PacketId, PacketKind, flag};
use crate::units::SimTime;

impl Nic {
    /// The class whose PAUSE stops the control queue while `front` is at its
    /// head: the packet's own class, or class 0 with `ack_pause_control` (ns-3
    /// ACK_HIGH_PRIO = 1: `ack_q_idx` 0, which switches never pause;
    /// hpcc-ns3-model.md §4).
    #[inline]
    fn ctrl_paused(&self, ctx: &Ctx, env: NicEnv, front: PacketId) -> bool {
        let class = if env.cfg.plan.ack_pause_control {
            0
        } else {
            ctx.pool.get(front).class
        };
        self.eg.is_paused(class)
    }

    /// Lets the NIC send now if it can, or makes sure it looks when the port frees.
    #[inline(always)]
    pub(super) fn kick(&mut self, ctx: &mut Ctx, env: NicEnv) {
        if env.cfg.ns3_scheduler() {
            // ns-3 `DequeueAndTransmit`, which does nothing while the port is
            // busy: the completion of that transmission looks again.
            self.start_tx(ctx, env);
            return;
        }
        let now = ctx.now;
        let at = now.max(self.eg.busy_until);
        if self.eg.next_event <= at {
            return;
        }
        if at == now {
            self.start_tx(ctx, env);
        } else {
            self.eg.next_event = at;
            ctx.schedule(at, self.tx_event());
        }
    }

    #[inline]
    fn tx_event(&self) -> Event {
        Event::TxDone {
            egress: self.eg.gid,
        }
    }

    /// Sends the next packet if the port is free: control first, then the queue
    /// pairs round robin. Otherwise arranges to be called when something can go.
    /// Not forced inline like the rest of the packet path (`Part::dispatch_event`):
    /// it is called from `kick` and `on_tx_done` at four places, and `kick`, inlined
    /// itself, from nine, so inlining it would copy it a dozen times; measured, it
    /// ran the HPCC incast 4 % slower.
    pub(super) fn start_tx(&mut self, ctx: &mut Ctx, env: NicEnv) {
        let now = ctx.now;
        if now < self.eg.busy_until {
            if !env.cfg.ns3_scheduler() {
                let b = self.eg.busy_until;
                self.schedule_look(ctx, b);
            }
            return;
        }
        if self.credit.is_some()
            && let Some(id) = self.ready_credit(ctx)
        {
            // ExpressPass: a credit whose tokens are there goes first.
            self.put_on_wire(ctx, id, false);
            self.after_look(ctx, env, true);
            return;
        }
        if let Some(front) = self.ctrl.front()
            && !self.ctrl_paused(ctx, env, front)
        {
            let id = self.ctrl.pop(ctx.pool).expect("front exists");
            self.put_on_wire(ctx, id, false);
            self.after_look(ctx, env, true);
            return;
        }
        // Data: round robin over eligible queue pairs.
        let cfg = env.cfg;
        let mtu = cfg.transport.mtu;
        let n = self.active.len();
        // `rr` < n whenever there are flows (`complete` keeps it so): no division.
        debug_assert!(n == 0 || self.rr < n);
        let mut i = match cfg.sender_srbf {
            true => self.shortest_ready(now, mtu).unwrap_or(self.rr),
            false => self.rr,
        };
        for _ in 0..n {
            let a = self.active[i];
            i = if i + 1 == n { 0 } else { i + 1 };
            let qp = self.send[a.slot.idx()]
                .as_deref_mut()
                .expect("active flows have a sender");
            if self.eg.is_paused(qp.next_class(a.class)) || qp.next_avail > now || !qp.sendable(mtu)
            {
                continue;
            }
            self.rr = i;
            let fid = a.fid;
            let (f, spec) = (&env.flows[fid.idx()], &env.specs[fid.idx()]);
            let before = qp.high_sent;
            let seg = cfg.transport.next_segment(qp, now);
            let all_sent = before < qp.size && qp.high_sent >= qp.size;
            if all_sent {
                ctx.progress.sent_all += 1;
            }
            if seg.retx {
                ctx.stats.retx_bytes += seg.payload as u64;
                ctx.stats.retx_packets += 1;
            }
            ctx.stats.payload_tx_bytes += seg.payload as u64;
            let end = seg.seq + seg.payload as u64;
            let id = ctx.pool.alloc_blank(PacketKind::Data);
            let pkt = ctx.pool.get_mut(id);
            pkt.class = qp.cc.data_class(seg.seq).unwrap_or(spec.class);
            pkt.flow = fid;
            pkt.src = spec.src;
            pkt.dst = f.data_to;
            pkt.sport = f.sport;
            pkt.dport = spec.dport;
            pkt.seq = seg.seq;
            pkt.payload = seg.payload as u16;
            pkt.wire = cfg.model.sizes.data_wire(seg.payload, cfg.int_on);
            pkt.sent_at = now;
            pkt.set_flag(flag::LAST, end >= qp.size);
            pkt.set_flag(flag::FIRST, seg.seq == 0);
            pkt.set_flag(flag::RETX, seg.retx);
            let wire = pkt.wire;
            let rate = qp.cc.rate();
            qp.next_avail = now + cfg.model.serialization.tx_time(rate, wire as u64);
            qp.last_tx_start = now;
            qp.last_tx_wire = wire;
            qp.cc.on_send(now, wire as u64);
            Self::spend_credit(&mut qp.cc, ctx, id);
            self.put_on_wire(ctx, id, true);
            self.arm_timer(ctx, env, fid);
            if all_sent && env.programs.is_some() {
                self.program_all_sent(ctx, env, fid);
            }
            self.after_look(ctx, env, true);
            return;
        }
        self.after_look(ctx, env, false);
    }

    /// The index in `active` of the ready queue pair with the fewest bytes
    /// left to send (earliest started on a tie): Homa's SRBF sender
    /// (HomaSimulation `senderScheme`, comparators.md §2 (b) 4).
    fn shortest_ready(&self, now: SimTime, mtu: u64) -> Option<usize> {
        let ready = self.active.iter().enumerate().filter_map(|(i, a)| {
            let qp = self.send[a.slot.idx()].as_deref()?;
            let ok = !self.eg.is_paused(qp.next_class(a.class))
                && qp.next_avail <= now
                && qp.sendable(mtu);
            ok.then_some((qp.bytes_left(), i))
        });
        ready.min().map(|(_, i)| i)
    }

    #[inline(always)]
    fn put_on_wire(&mut self, ctx: &mut Ctx, id: PacketId, is_data: bool) {
        let wire = ctx.pool.get(id).wire;
        ctx.stats.packets_tx += 1;
        if is_data {
            ctx.stats.data_packets_tx += 1;
        }
        match self
            .eg
            .transmit(ctx.now, wire, is_data, true, &mut self.rng)
        {
            Some(at) => ctx.send(self.eg.link(), id, at),
            None => {
                ctx.stats.drops_link += 1;
                ctx.pool.free(id);
            }
        }
    }

    /// After a transmission or a look that found nothing: the eager scheduler
    /// plans the next look at the earliest time something can go; the ns-3 one
    /// looks when the transmission completes, or else sets its one wake-up.
    #[inline(always)]
    fn after_look(&mut self, ctx: &mut Ctx, env: NicEnv, sent: bool) {
        if !env.cfg.ns3_scheduler() {
            self.plan_next(ctx, env);
            return;
        }
        let now = ctx.now;
        if sent {
            let at = self.eg.busy_until;
            if env.cfg.hold_back_looks
                && self.ctrl.is_empty()
                && self.active.is_empty()
                && self.wake_at == SimTime::MAX
                && at <= env.cfg.last
            {
                // It would find nothing to send and set no wake-up, unless a
                // control packet or a flow comes first: held back until then.
                self.deferred = Some((at, ctx.lead(at)));
            } else {
                ctx.schedule(at, self.tx_event());
            }
            return;
        }
        // qbb-net-device.cc: the earliest pacing time over queue pairs with bytes
        // left, whatever blocks them; set only if no wake-up is pending and it
        // lies in the future.
        let t = self
            .active
            .iter()
            .filter_map(|a| {
                let qp = self.send[a.slot.idx()].as_ref()?;
                qp.has_data().then_some(qp.next_avail)
            })
            .min()
            .unwrap_or(SimTime::MAX);
        if self.wake_at == SimTime::MAX && t > now && t != SimTime::MAX {
            self.wake_at = t;
            ctx.schedule(t, self.tx_event());
        }
    }

    /// Something to send may come: queues the ns-3 completion look held back
    /// by [`Self::after_look`], with the key it would have had, unless its
    /// turn has passed (then it found nothing, as nothing came before it). A
    /// look that finds nothing changes nothing, so holding it back changes no
    /// result; on the 1 ms ns3-hpcc fat-tree, 0.73 M of 20.18 M events were
    /// such looks at NICs with no flow to send.
    #[inline(always)]
    pub(super) fn undefer(&mut self, ctx: &mut Ctx) {
        if let Some((at, lead)) = self.deferred.take() {
            let ev = self.tx_event();
            if crate::engine::key_of(at, lead, ev.pack()) > ctx.key() {
                ctx.schedule_lead(at, lead, ev);
            }
        }
    }

    /// ns-3 `UpdateNextAvail` (after HPCC's `ChangeRate`): a pending wake-up
    /// later than the queue pair's new pacing time moves to it.
    pub(super) fn pull_wake(&mut self, ctx: &mut Ctx, next_avail: SimTime) {
        if self.wake_at != SimTime::MAX && next_avail < self.wake_at {
            let at = next_avail.max(ctx.now);
            self.wake_at = at;
            ctx.schedule(at, self.tx_event());
        }
    }

    #[inline(always)]
    fn schedule_look(&mut self, ctx: &mut Ctx, at: SimTime) {
        if self.eg.claim_event(at) {
            ctx.schedule(at, self.tx_event());
        }
    }

    /// After a transmission (or a failed attempt), schedules the next attempt at
    /// the earliest time something can go: now or when the port frees for queued
    /// control packets, the earliest pacing time for data. Window- and pause-blocked
    /// queue pairs are woken by ACKs and RESUMEs instead.
    #[inline(always)]
    fn plan_next(&mut self, ctx: &mut Ctx, env: NicEnv) {
        let free_at = self.eg.busy_until.max(ctx.now);
        let mut next = SimTime::MAX;
        if let Some(front) = self.ctrl.front()
            && !self.ctrl_paused(ctx, env, front)
        {
            next = free_at;
        } else {
            let mtu = env.cfg.transport.mtu;
            for a in &self.active {
                let qp = self.send[a.slot.idx()]
                    .as_deref()
                    .expect("active flows have a sender");
                if self.eg.is_paused(qp.next_class(a.class)) || !qp.sendable(mtu) {
                    continue;
                }
                next = next.min(qp.next_avail.max(free_at));
                if next == free_at {
                    break;
                }
            }
        }
        if let Some(t) = self.credit_ready_at(ctx.now) {
            next = next.min(t.max(free_at));
        }
        if next != SimTime::MAX {
            self.schedule_look(ctx, next);
        }
    }
}
