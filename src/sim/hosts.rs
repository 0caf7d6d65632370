//! NIC behaviour: flow start, transmit selection with pacing and windows, the
//! receiver (ACK/NACK/CNP generation, DCQCN §3.1 NP), the sender's reaction to
//! ACK/NACK/CNP (go-back-N, go-back-0 or IRN's selective retransmission,
//! `nic::irn`), and per-flow timers (controller timers and RTO).

use super::{Event, Sim};
use crate::cc::receiver::{ReceiverControl, RxEvent, RxFeedback};
use crate::cc::{AckInfo, CongestionControl};
use crate::nic::NicPlan;
use crate::nic::irn::{IrnReceiver, IrnSender, LossRecovery};
use crate::nic::qp::SendQp;
use crate::packet::{IntHop, MAX_INT_HOPS, PacketId, PacketKind, PacketPool, flag};
use crate::profile::{CnpMode, IntBytes, NicScheduler};
use crate::units::{Delta, Rate, SimTime};
use crate::workload::FlowSpec;

/// IRN's next packet to resend, kept out of the go-back-N path.
#[inline(never)]
fn irn_next_lost(irn: &crate::nic::irn::IrnSender) -> Option<u64> {
    irn.next_lost()
}

/// The retransmission timeout that applies to `qp` now: IRN's RTO_low while at
/// most N packets are outstanding, else RTO_high; the configured one otherwise.
/// The class whose PAUSE stops the NIC's control queue (ACK/NACK/CNP) while `pkt`
/// is at its head: the packet's own class, or class 0 with `ack_pause_control`
/// (ns-3 ACK_HIGH_PRIO = 1: `ack_q_idx` 0, which switches never pause;
/// hpcc-ns3-model.md §4).
fn ctrl_pause_class(nic: &NicPlan, pkt: &crate::packet::Packet) -> u8 {
    if nic.ack_pause_control { 0 } else { pkt.class }
}

/// A CNP from flow `fid`'s receiver back to its sender.
fn cnp_packet(
    pool: &mut PacketPool,
    spec: &FlowSpec,
    sport: u16,
    fid: usize,
    wire: u32,
) -> PacketId {
    let cid = pool.alloc_blank(PacketKind::Cnp);
    let cnp = pool.get_mut(cid);
    cnp.flow = fid as u32;
    cnp.src = spec.dst.0;
    cnp.dst = spec.src.0;
    cnp.sport = spec.dport;
    cnp.dport = sport;
    cnp.wire = wire;
    cid
}

fn rto_of(nic: &NicPlan, qp: &SendQp, mtu: u64) -> Option<Delta> {
    match &nic.loss_recovery {
        LossRecovery::Irn(c) => {
            let outstanding = (qp.snd_nxt - qp.snd_una).div_ceil(mtu);
            Some(if outstanding <= c.low_packets as u64 {
                c.rto_low
            } else {
                c.rto_high
            })
        }
        _ => nic.rto,
    }
}

impl Sim {
    pub(super) fn flow_arrival(&mut self) {
        let now = self.q.now();
        while self.next_flow < self.flows.len() && self.flows[self.next_flow].spec.start <= now {
            let fid = self.next_flow;
            self.next_flow += 1;
            let cc = self.new_cc(fid);
            let irn_cap = self.irn_cap(fid);
            let f = &mut self.flows[fid];
            let mut qp = SendQp::new(f.spec.size, cc, now);
            if let Some(cap) = irn_cap {
                qp.irn = Some(IrnSender::new(cap));
                f.recv.irn = Some(IrnReceiver::new(cap));
            }
            f.send = Some(qp);
            let hi = self.cfg.topo.kind_index[f.spec.src.idx()] as usize;
            self.nics[hi].active.push(fid as u32);
            if self.flows_done + 1 == self.next_flow {
                // First active flow after an idle period: progress starts now.
                self.last_progress = now;
            }
            self.nic_kick(hi);
        }
        if let Some(f) = self.flows.get(self.next_flow) {
            self.q
                .schedule_cold(f.spec.start, Event::FlowArrival.pack());
        }
    }

    /// IRN's BDP cap for a flow (packets), `None` without IRN: configured, or the
    /// control interval T x the sender's line rate / a full data packet.
    fn irn_cap(&self, fid: usize) -> Option<u32> {
        let LossRecovery::Irn(c) = &self.cfg.nic.loss_recovery else {
            return None;
        };
        Some(c.bdp_cap.unwrap_or_else(|| {
            let rate = self.cfg.topo.host_port(self.flows[fid].spec.src).rate;
            let bdp = rate.bytes_in(self.base_rtt);
            bdp.div_ceil(self.cfg.mtu_wire() as u64).max(1) as u32
        }))
    }

    pub(super) fn nic_kick(&mut self, hi: usize) {
        let now = self.q.now();
        if self.ns3_scheduler() {
            // ns-3 `DequeueAndTransmit`, which does nothing while the port is
            // busy: the completion of that transmission looks again.
            self.nic_start_tx(hi);
            return;
        }
        let eg = &mut self.nics[hi].eg;
        let at = now.max(eg.busy_until);
        if eg.next_event <= at {
            return;
        }
        if at == now {
            self.nic_start_tx(hi);
        } else {
            eg.next_event = at;
            self.q.schedule(at, Event::TxDone { egress: eg.gid }.pack());
        }
    }

    #[inline]
    fn ns3_scheduler(&self) -> bool {
        self.cfg.model.nic_scheduler == NicScheduler::Ns3
    }

    /// After a transmission or a look that found nothing: the eager scheduler
    /// plans the next look at the earliest time something can go; the ns-3 one
    /// looks when the transmission completes, or else sets its one wake-up.
    fn nic_after_look(&mut self, hi: usize, sent: bool) {
        if !self.ns3_scheduler() {
            self.nic_plan_next(hi);
            return;
        }
        let now = self.q.now();
        let nic = &mut self.nics[hi];
        if sent {
            let at = nic.eg.busy_until;
            self.q
                .schedule(at, Event::TxDone { egress: nic.eg.gid }.pack());
            return;
        }
        // qbb-net-device.cc: the earliest pacing time over queue pairs with bytes
        // left, whatever blocks them; set only if no wake-up is pending and it
        // lies in the future.
        let t = nic
            .active
            .iter()
            .filter_map(|&fid| {
                let qp = self.flows[fid as usize].send.as_ref()?;
                qp.has_data().then_some(qp.next_avail)
            })
            .min()
            .unwrap_or(SimTime::MAX);
        if nic.wake_at == SimTime::MAX && t > now && t != SimTime::MAX {
            nic.wake_at = t;
            self.q
                .schedule(t, Event::TxDone { egress: nic.eg.gid }.pack());
        }
    }

    /// ns-3 `UpdateNextAvail` (after HPCC's `ChangeRate`): a pending wake-up
    /// later than the queue pair's new pacing time moves to it.
    fn ns3_pull_wake(&mut self, hi: usize, next_avail: SimTime) {
        let now = self.q.now();
        let nic = &mut self.nics[hi];
        if nic.wake_at != SimTime::MAX && next_avail < nic.wake_at {
            let at = next_avail.max(now);
            nic.wake_at = at;
            self.q
                .schedule(at, Event::TxDone { egress: nic.eg.gid }.pack());
        }
    }

    fn nic_schedule(&mut self, hi: usize, at: SimTime) {
        let nic = &mut self.nics[hi];
        if nic.eg.claim_event(at) {
            self.q
                .schedule(at, Event::TxDone { egress: nic.eg.gid }.pack());
        }
    }

    /// Sends the next packet if the port is free: control first, then the queue
    /// pairs round robin. Otherwise arranges to be called when something can go.
    pub(super) fn nic_start_tx(&mut self, hi: usize) {
        let now = self.q.now();
        let ns3 = self.ns3_scheduler();
        let nic = &mut self.nics[hi];
        if now < nic.eg.busy_until {
            if !ns3 {
                let b = nic.eg.busy_until;
                self.nic_schedule(hi, b);
            }
            return;
        }
        if let Some(front) = nic.ctrl.front()
            && !nic
                .eg
                .is_paused(ctrl_pause_class(&self.cfg.nic, self.pool.get(front)))
        {
            let id = nic.ctrl.pop(&mut self.pool).expect("front exists");
            self.nic_put_on_wire(hi, id, false);
            self.nic_after_look(hi, true);
            return;
        }
        // Data: round robin over eligible queue pairs.
        let n = nic.active.len();
        for k in 0..n {
            let i = (nic.rr + k) % n;
            let fid = nic.active[i] as usize;
            let f = &mut self.flows[fid];
            let qp = f.send.as_mut().expect("active flows have a sender");
            let mtu = self.cfg.nic.mtu as u64;
            if nic.eg.is_paused(f.spec.class) || qp.next_avail > now || !qp.sendable(mtu) {
                continue;
            }
            nic.rr = (i + 1) % n;
            // IRN resends a lost packet before sending new ones.
            let lost = match &qp.irn {
                None => None,
                Some(irn) => irn_next_lost(irn),
            };
            let seq = match lost {
                None => qp.snd_nxt,
                Some(k) => k * mtu,
            };
            let payload = mtu.min(qp.size - seq) as u32;
            let id = self.pool.alloc_blank(PacketKind::Data);
            let pkt = self.pool.get_mut(id);
            pkt.class = f.spec.class;
            pkt.flow = fid as u32;
            pkt.src = f.spec.src.0;
            pkt.dst = f.spec.dst.0;
            pkt.sport = f.sport;
            pkt.dport = f.spec.dport;
            pkt.seq = seq;
            pkt.payload = payload as u16;
            pkt.wire = self.cfg.model.sizes.data_wire(payload, self.cfg.int_on);
            pkt.sent_at = now;
            let end = seq + payload as u64;
            if seq < qp.high_sent {
                qp.retx_bytes += payload as u64;
                self.stats.retx_bytes += payload as u64;
                self.stats.retx_packets += 1;
            }
            match lost {
                None => qp.snd_nxt += payload as u64,
                Some(k) => qp.irn.as_mut().expect("IRN found it").retransmitted(k),
            }
            self.stats.payload_tx_bytes += payload as u64;
            pkt.set_flag(flag::LAST, end >= qp.size);
            pkt.set_flag(flag::FIRST, seq == 0);
            pkt.set_flag(flag::RETX, seq < qp.high_sent);
            qp.high_sent = qp.high_sent.max(end);
            let rate = qp.cc.rate();
            qp.next_avail = now + self.cfg.model.serialization.tx_time(rate, pkt.wire as u64);
            qp.last_tx_start = now;
            qp.last_tx_wire = pkt.wire;
            qp.cc.on_send(now, pkt.wire as u64);
            if qp.rto_at == SimTime::MAX
                && let Some(rto) = rto_of(&self.cfg.nic, qp, mtu)
            {
                qp.rto_at = now + rto;
            }
            self.nic_put_on_wire(hi, id, true);
            self.arm_timer(fid);
            self.nic_after_look(hi, true);
            return;
        }
        self.nic_after_look(hi, false);
    }

    fn nic_put_on_wire(&mut self, hi: usize, id: PacketId, is_data: bool) {
        let now = self.q.now();
        let nic = &mut self.nics[hi];
        let wire = self.pool.get(id).wire;
        self.stats.packets_tx += 1;
        if is_data {
            self.stats.data_packets_tx += 1;
        }
        match nic.eg.transmit(now, wire, is_data, true, &mut nic.rng) {
            Some(at) => {
                if nic.eg.launch(id, at) {
                    self.q
                        .schedule(at, Event::Arrive { egress: nic.eg.gid }.pack());
                }
            }
            None => {
                self.stats.drops_link += 1;
                self.pool.free(id);
            }
        }
    }

    /// After a transmission (or a failed attempt), schedules the next attempt at
    /// the earliest time something can go: now or when the port frees for queued
    /// control packets, the earliest pacing time for data. Window- and pause-blocked
    /// queue pairs are woken by ACKs and RESUMEs instead.
    fn nic_plan_next(&mut self, hi: usize) {
        let nic = &self.nics[hi];
        let free_at = nic.eg.busy_until.max(self.q.now());
        let mut next = SimTime::MAX;
        if let Some(front) = nic.ctrl.front()
            && !nic
                .eg
                .is_paused(ctrl_pause_class(&self.cfg.nic, self.pool.get(front)))
        {
            next = free_at;
        } else {
            let mtu = self.cfg.nic.mtu as u64;
            for &fid in &nic.active {
                let f = &self.flows[fid as usize];
                let qp = f.send.as_ref().expect("active flows have a sender");
                if nic.eg.is_paused(f.spec.class) || !qp.sendable(mtu) {
                    continue;
                }
                next = next.min(qp.next_avail.max(free_at));
                if next == free_at {
                    break;
                }
            }
        }
        if next != SimTime::MAX {
            self.nic_schedule(hi, next);
        }
    }

    pub(super) fn host_arrive(&mut self, hi: usize, id: PacketId) {
        if self.receiver.is_some() {
            // RCC's B_R (§III-C) is about the host link being full: every frame
            // on it counts, ACKs, CNPs and PFC frames as well as data.
            let wire = self.pool.get(id).wire as u64;
            self.nics[hi].rx.on_frame(self.q.now(), wire);
        }
        match self.pool.get(id).kind {
            PacketKind::Data => self.receive_data(hi, id),
            PacketKind::Ack | PacketKind::Nack => self.receive_ack(id),
            PacketKind::Cnp => {
                let fid = self.pool.get(id).flow as usize;
                self.pool.free(id);
                let now = self.q.now();
                if let Some(qp) = self.flows[fid].send.as_mut().filter(|q| !q.done) {
                    let before = qp.cc.rate();
                    qp.cc.on_cnp(now);
                    qp.cnps += 1;
                    self.after_cc(fid, before, true);
                }
            }
            PacketKind::Pfc => {
                let gid = self.nics[hi].eg.gid;
                self.receive_pfc(gid, id);
            }
        }
    }

    /// Receiver: in-order data advances `expected` and is ACKed every
    /// `ack_interval` packets and at the end; a gap is NACKed (go-back-N); marked
    /// packets produce CNPs (at most one per interval per flow) or flag the ACK.
    fn receive_data(&mut self, hi: usize, id: PacketId) {
        let now = self.q.now();
        let pkt = self.pool.get(id);
        let fid = pkt.flow as usize;
        let (seq, payload, ce, n_hops) = (
            pkt.seq,
            pkt.payload as u64,
            pkt.has(flag::ECN_CE),
            pkt.n_hops as u32,
        );
        self.rec.packet_delivered(fid, pkt.sent_at, now);
        let (wire, sent_at, first) = (pkt.wire as u64, pkt.sent_at, pkt.has(flag::FIRST));
        let last = pkt.has(flag::LAST);
        let f = &mut self.flows[fid];
        let rx = &mut f.recv;
        let mut send_ack = false;
        let mut nack = false;
        let mut sack = 0u64;
        let mut cnp_flag = false;
        let mtu = self.cfg.nic.mtu as u64;
        self.stats.payload_rx_bytes += payload;
        rx.ce_since_ack |= ce;
        if ce {
            match self.cfg.model.cnp {
                CnpMode::Packet { interval } => {
                    // DCQCN §3.1 NP (Fig. 6): a CNP at once if none went out in
                    // the last N us; otherwise one when the window ends, for all
                    // the marks that arrived inside it.
                    match rx.last_cnp {
                        Some(t) if now.since(t) < interval => {
                            if !rx.cnp_pending {
                                rx.cnp_pending = true;
                                let ev = Event::CnpTimer { flow: fid as u32 };
                                self.q.schedule_cold(t + interval, ev.pack());
                            }
                        }
                        _ => {
                            rx.last_cnp = Some(now);
                            rx.cnp_pending = false;
                            let cid = cnp_packet(
                                &mut self.pool,
                                &f.spec,
                                f.sport,
                                fid,
                                self.cfg.model.sizes.cnp,
                            );
                            self.nics[hi].ctrl.push(&mut self.pool, cid);
                            self.stats.cnps_sent += 1;
                        }
                    }
                }
                CnpMode::AckFlag => {
                    cnp_flag = true;
                    // The ns-3 receiver flags whatever ACK/NACK goes out anyway.
                    send_ack = self.cfg.nic.ns3_ack.is_none();
                }
            }
        }
        if let Some(rule) = self.cfg.nic.ns3_ack {
            // hpcc-ns3-model.md §5, ReceiverCheckSeq: ACK once the expected byte
            // has reached the (per-packet reset) milestone or a chunk boundary;
            // NACK a gap once per expected byte and timer; drop duplicates.
            if seq == rx.expected {
                rx.expected += payload;
                // With back-to-zero, bytes after a rewind arrive again: count each once.
                let fresh = rx.expected.saturating_sub(rx.delivered);
                rx.delivered += fresh;
                self.stats.delivered_bytes += fresh;
                if rx.expected >= f.spec.size {
                    rx.finished_at.get_or_insert(now);
                }
                send_ack = rx.expected >= rule.interval_bytes
                    || (rule.chunk > 0 && rx.expected.is_multiple_of(rule.chunk));
                self.last_progress = now;
            } else if seq > rx.expected {
                let iv = self.cfg.nic.nack_interval;
                if rx.nacked_seq != Some(rx.expected) || now.since(rx.nack_at) >= iv {
                    rx.nacked_seq = Some(rx.expected);
                    rx.nack_at = now;
                    if rule.back_to_zero {
                        rx.expected = rx.expected / rule.chunk * rule.chunk;
                    }
                    nack = true;
                    self.stats.nacks_sent += 1;
                }
            }
        } else if seq == rx.expected {
            rx.expected += payload;
            if let Some(irn) = rx.irn.as_mut() {
                // Packets kept out of order behind this one are delivered too.
                let size = f.spec.size;
                while rx.expected < size && irn.ooo.get(rx.expected / mtu) {
                    rx.expected = (rx.expected + mtu).min(size);
                }
                irn.ooo.advance_to(rx.expected / mtu);
            }
            // Each byte counts once (go-back-0 may deliver a prefix again).
            if rx.expected > rx.delivered {
                self.stats.delivered_bytes += rx.expected - rx.delivered;
                rx.delivered = rx.expected;
            }
            rx.since_ack += 1;
            if rx.expected >= f.spec.size {
                rx.finished_at.get_or_insert(now);
                send_ack = true;
            }
            if rx.since_ack >= self.cfg.nic.ack_interval {
                send_ack = true;
            }
            self.last_progress = now;
        } else if seq > rx.expected && rx.irn.is_some() {
            // IRN: keep it and NACK every out-of-order packet (a one-block SACK).
            if let Some(irn) = rx.irn.as_mut() {
                irn.ooo.set(seq / mtu);
            }
            nack = true;
            sack = seq / mtu;
            self.stats.nacks_sent += 1;
        } else if seq > rx.expected {
            if self.cfg.nic.loss_recovery == LossRecovery::GoBack0 {
                // Go-back-0: the receiver drops the partial message.
                rx.expected = 0;
            }
            let iv = self.cfg.nic.nack_interval;
            if rx.nacked_seq != Some(rx.expected) || now.since(rx.nack_at) >= iv {
                rx.nacked_seq = Some(rx.expected);
                rx.nack_at = now;
                nack = true;
                self.stats.nacks_sent += 1;
            }
        } else if self.cfg.model.ack_duplicates {
            send_ack = true;
        }
        let mut fb = RxFeedback::default();
        if let Some(rk) = &self.receiver {
            let nic = &mut self.nics[hi];
            let ev = RxEvent {
                now,
                flow: fid as u32,
                seq,
                payload,
                wire,
                sent_at,
                first,
                last,
                complete: rx.expected >= f.spec.size,
                line_rate: nic.eg.rate,
                t: self.base_rtt,
                one_way: f.one_way,
                base_rtt: f.pair_rtt,
            };
            fb = rk.on_data(&mut rx.ctl, &mut nic.rx, &ev);
        }
        if !(send_ack || nack) {
            self.pool.free(id);
            if !self.ns3_scheduler() {
                self.nic_kick(hi);
            }
            return;
        }
        rx.since_ack = 0;
        let ece = std::mem::take(&mut rx.ce_since_ack);
        // Turn the data packet into its ACK/NACK: it keeps the INT records and the
        // send timestamp (echoed for RTT samples).
        let expected = rx.expected;
        let class = if self.cfg.nic.ack_in_control_class {
            0
        } else {
            f.spec.class
        };
        let int_bytes = match self.cfg.model.sizes.int {
            _ if !self.cfg.int_on => 0,
            IntBytes::Fixed(b) => b,
            IntBytes::PerHop { base, per_hop } => base + per_hop * n_hops,
        };
        let pkt = self.pool.get_mut(id);
        pkt.kind = if nack {
            PacketKind::Nack
        } else {
            PacketKind::Ack
        };
        std::mem::swap(&mut pkt.src, &mut pkt.dst);
        std::mem::swap(&mut pkt.sport, &mut pkt.dport);
        pkt.seq = expected;
        pkt.aux = sack as u32;
        pkt.payload = 0;
        pkt.class = class;
        pkt.flags = 0;
        pkt.set_flag(flag::CNP, cnp_flag);
        pkt.set_flag(flag::ECE, ece);
        pkt.set_flag(flag::RX_BUSY, fb.busy);
        pkt.window = fb.window;
        pkt.wire = self.cfg.model.sizes.ack_wire(int_bytes);
        self.nics[hi].ctrl.push(&mut self.pool, id);
        self.nic_kick(hi);
    }

    /// The end of flow `flow`'s NP window with a mark in it: its CNP goes out
    /// now and a new window starts (DCQCN §3.1, Fig. 6).
    pub(super) fn cnp_timer(&mut self, flow: u32) {
        let fid = flow as usize;
        let rx = &mut self.flows[fid].recv;
        if !rx.cnp_pending {
            return;
        }
        rx.cnp_pending = false;
        rx.last_cnp = Some(self.q.now());
        let f = &self.flows[fid];
        let hi = self.cfg.topo.kind_index[f.spec.dst.idx()] as usize;
        let cid = cnp_packet(
            &mut self.pool,
            &f.spec,
            f.sport,
            fid,
            self.cfg.model.sizes.cnp,
        );
        self.nics[hi].ctrl.push(&mut self.pool, cid);
        self.stats.cnps_sent += 1;
        self.nic_kick(hi);
    }

    /// Sender: cumulative ACK advances `snd_una`; a NACK goes back to it (go-back-N);
    /// then the controller sees the CNP flag and the ACK.
    fn receive_ack(&mut self, id: PacketId) {
        let now = self.q.now();
        let pkt = self.pool.get(id);
        let fid = pkt.flow as usize;
        let (ece, rx_busy) = (pkt.has(flag::ECE), pkt.has(flag::RX_BUSY));
        let (mut seq, is_nack, cnp_flag, sent_at, window, sack) = (
            pkt.seq,
            pkt.kind == PacketKind::Nack,
            pkt.has(flag::CNP),
            pkt.sent_at,
            pkt.window,
            pkt.aux as u64,
        );
        let n = pkt.n_hops as usize;
        let mut hops = [IntHop::default(); MAX_INT_HOPS];
        hops[..n].copy_from_slice(&self.pool.int(id)[..n]);
        self.pool.free(id);
        let mtu = self.cfg.nic.mtu as u64;
        if let Some(rule) = self.cfg.nic.ns3_ack
            && rule.back_to_zero
        {
            seq = seq / rule.chunk * rule.chunk;
        }
        let Some(qp) = self.flows[fid].send.as_mut().filter(|q| !q.done) else {
            return;
        };
        let before = qp.cc.rate();
        let mut newly = 0;
        if seq > qp.snd_una {
            newly = seq - qp.snd_una;
            qp.snd_una = seq;
            qp.snd_nxt = qp.snd_nxt.max(seq);
            if let Some(irn) = qp.irn.as_mut() {
                irn.on_ack(seq / mtu);
            }
            self.last_progress = now;
            qp.rto_at = match rto_of(&self.cfg.nic, qp, mtu) {
                Some(r) if qp.snd_una < qp.snd_nxt => now + r,
                _ => SimTime::MAX,
            };
        }
        if is_nack {
            qp.nacks += 1;
            match (&self.cfg.nic.loss_recovery, qp.irn.as_mut()) {
                (LossRecovery::Irn(_), Some(irn)) => {
                    irn.on_nack(qp.snd_una / mtu, sack, qp.snd_nxt.div_ceil(mtu));
                }
                (LossRecovery::GoBack0, _) => {
                    // The receiver dropped the message: start it again.
                    qp.snd_una = qp.snd_una.min(seq);
                    qp.snd_nxt = qp.snd_una;
                }
                _ => qp.snd_nxt = qp.snd_una,
            }
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
            int: &hops[..n],
            data_sent_at: sent_at,
            rx_window: (window > 0).then_some(window),
            rx_busy,
        });
        if qp.snd_una >= qp.size {
            qp.done = true;
            self.complete(fid);
            return;
        }
        self.after_cc(fid, before, true);
    }

    /// After a controller hook: re-space pacing if the rate changed, re-arm the
    /// timer, and let the NIC try to send. A packet's arrival always lets it try;
    /// a timer does only with the eager scheduler or when it resent something
    /// (ns-3's controller timers change the rate and nothing else).
    fn after_cc(&mut self, fid: usize, before: Rate, packet: bool) {
        let f = &mut self.flows[fid];
        let qp = f.send.as_mut().expect("sender exists");
        let rate = qp.cc.rate();
        if rate != before && self.cfg.model.repace_on_rate_change && qp.last_tx_wire > 0 {
            let gap = self
                .cfg
                .model
                .serialization
                .tx_time(rate, qp.last_tx_wire as u64);
            qp.next_avail = qp.last_tx_start + gap;
        }
        let next_avail = qp.next_avail;
        let hi = self.cfg.topo.kind_index[f.spec.src.idx()] as usize;
        self.arm_timer(fid);
        if !self.ns3_scheduler() {
            self.nic_kick(hi);
            return;
        }
        if packet {
            if self.cfg.model.repace_on_rate_change {
                self.ns3_pull_wake(hi, next_avail);
            }
            self.nic_kick(hi);
        }
    }

    fn complete(&mut self, fid: usize) {
        let src = self.flows[fid].spec.src;
        let hi = self.cfg.topo.kind_index[src.idx()] as usize;
        let nic = &mut self.nics[hi];
        if let Some(pos) = nic.active.iter().position(|&f| f as usize == fid) {
            nic.active.remove(pos);
            if nic.rr > pos {
                nic.rr -= 1;
            }
            if nic.rr >= nic.active.len() {
                nic.rr = 0;
            }
        }
        self.record_completion(fid);
        self.nic_kick(hi);
    }

    /// Makes sure a `QpTimer` event comes by the earliest of the controller's timer
    /// and the retransmission deadline.
    pub(super) fn arm_timer(&mut self, fid: usize) {
        let qp = self.flows[fid].send.as_mut().expect("sender exists");
        let want = qp.cc.next_timer().unwrap_or(SimTime::MAX).min(qp.rto_at);
        if want < qp.timer_at {
            let at = want.max(self.q.now());
            qp.timer_at = at;
            self.q
                .schedule_cold(at, Event::QpTimer { flow: fid as u32 }.pack());
        }
    }

    pub(super) fn qp_timer(&mut self, flow: u32) {
        let now = self.q.now();
        let fid = flow as usize;
        let mtu = self.cfg.nic.mtu as u64;
        let Some(qp) = self.flows[fid].send.as_mut().filter(|q| !q.done) else {
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
            if qp.snd_una < qp.snd_nxt {
                resent = true;
                // Nothing acknowledged for a whole RTO: go back to the first
                // unacked byte (go-back-0: to the first byte; IRN: resend what
                // is not SACKed).
                qp.timeouts += 1;
                self.stats.timeouts += 1;
                match (&self.cfg.nic.loss_recovery, qp.irn.as_mut()) {
                    (LossRecovery::Irn(_), Some(irn)) => {
                        irn.on_timeout(qp.snd_una / mtu, qp.snd_nxt.div_ceil(mtu));
                    }
                    (LossRecovery::GoBack0, _) => {
                        qp.snd_una = 0;
                        qp.snd_nxt = 0;
                    }
                    _ => qp.snd_nxt = qp.snd_una,
                }
                let rto = rto_of(&self.cfg.nic, qp, mtu);
                qp.rto_at = now + rto.expect("rto set only when enabled");
            } else {
                qp.rto_at = SimTime::MAX;
            }
        }
        self.after_cc(fid, before, resent);
    }
}
