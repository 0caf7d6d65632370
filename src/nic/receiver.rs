//! The NIC's receiver: data packets of the flows destined here go through the
//! transport's ACK policy ([`super::transport`]); marked packets produce CNPs
//! (DCQCN §3.1 NP, Fig. 6: at most one per N us per flow, and one when the
//! window ends for marks inside it) or flag the ACK (`cnp = "ack-flag"`, the
//! ns-3 model); receiver-side congestion control (RCC §III) sets the window the
//! ACK carries.

use super::{Nic, NicEnv};
use crate::cc::receiver::{ReceiverControl, RxEvent, RxFeedback};
use crate::ids::FlowId;
use crate::node::{Ctx, Event};
use crate::packet::{PacketId, PacketKind, flag};
use crate::profile::{CnpMode, IntBytes};

impl Nic {
    /// Receiver: in-order data advances `expected` and is ACKed by the ACK
    /// policy; a gap is NACKed; marked packets produce CNPs or flag the ACK.
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
        let last = pkt.has(flag::LAST);
        let f = &env.flows[fid.idx()];
        let rx = &mut self.recv[f.recv_slot.idx()];
        if rx.irn.is_none() && rx.expected == 0 && rx.delivered == 0 {
            rx.irn = cfg.transport.new_receiver(f.irn_cap);
        }
        let mut send_ack = false;
        let mut cnp_flag = false;
        ctx.stats.payload_rx_bytes += payload;
        rx.ce_since_ack |= ce;
        if ce {
            match cfg.model.cnp {
                CnpMode::Packet { interval } => {
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
        let rx = &mut self.recv[f.recv_slot.idx()];
        let out = cfg.transport.receive(rx, seq, payload, f.spec.size, now);
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
                complete: rx.expected >= f.spec.size,
                line_rate: self.eg.rate,
                t: cfg.base_rtt,
                one_way: f.one_way,
                base_rtt: f.pair_rtt,
            };
            fb = rk.on_data(&mut rx.ctl, &mut self.rx, &ev);
        }
        if !(send_ack || out.nack) {
            ctx.pool.free(id);
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
        let class = if cfg.plan.ack_in_control_class {
            0
        } else {
            f.spec.class
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
        std::mem::swap(&mut pkt.src, &mut pkt.dst);
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
        self.ctrl.push(ctx.pool, id);
        self.kick(ctx, env);
    }

    /// Queues a CNP from flow `fid`'s receiver (here) back to its sender.
    fn send_cnp(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let f = &env.flows[fid.idx()];
        let cid = ctx.pool.alloc_blank(PacketKind::Cnp);
        let cnp = ctx.pool.get_mut(cid);
        cnp.flow = fid;
        cnp.src = f.spec.dst;
        cnp.dst = f.spec.src;
        cnp.sport = f.spec.dport;
        cnp.dport = f.sport;
        cnp.wire = env.cfg.model.sizes.cnp;
        self.ctrl.push(ctx.pool, cid);
        ctx.stats.cnps_sent += 1;
    }

    /// The end of flow `flow`'s NP window with a mark in it: its CNP goes out
    /// now and a new window starts (DCQCN §3.1, Fig. 6).
    pub fn on_cnp_timer(&mut self, ctx: &mut Ctx, env: NicEnv, flow: FlowId) {
        let rx = &mut self.recv[env.flows[flow.idx()].recv_slot.idx()];
        if !rx.cnp_pending {
            return;
        }
        rx.cnp_pending = false;
        rx.last_cnp = Some(ctx.now);
        self.send_cnp(ctx, env, flow);
        self.kick(ctx, env);
    }
}
