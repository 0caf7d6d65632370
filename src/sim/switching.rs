//! Switch forwarding: arrival (routing, ECMP, MMU admission, ECN at enqueue, the
//! flow-control scheme's enqueue hook), transmission (scheduling, MMU release,
//! its dequeue hook, ECN at dequeue, INT). PFC frames themselves are in `pfc`.

use super::{Event, Sim};
use crate::packet::{PacketId, PacketKind, flag};
use crate::profile::EcnPoint;
use crate::switch::ecmp;
use crate::switch::flowctl::{Enqueue, FlowControl};
use crate::switch::mmu::Admit;
use crate::topology::NodeId;

impl Sim {
    pub(super) fn switch_arrive(&mut self, si: usize, inp: u16, id: PacketId) {
        let now = self.q.now();
        let sw = &mut self.switches[si];
        let pkt = self.pool.get_mut(id);
        if pkt.kind == PacketKind::Pfc {
            let gid = sw.ports[inp as usize].eg.gid;
            self.receive_pfc(gid, id);
            return;
        }
        pkt.ingress = inp;
        let hops = self.cfg.topo.routes.next_hops(sw.idx, NodeId(pkt.dst));
        let key = ecmp::FlowKey {
            src: pkt.src,
            dst: pkt.dst,
            sport: pkt.sport,
            dport: pkt.dport,
        };
        let Some(out) = ecmp::next_hop(hops, self.cfg.model.ecmp_hash, sw.ecmp_seed, sw.node, key)
        else {
            self.stats.drops_no_route += 1;
            self.pool.free(id);
            return;
        };
        let class = pkt.class;
        let wire = pkt.wire as u64;
        let is_data = pkt.kind == PacketKind::Data;
        if class != 0 {
            let queued_before = sw.mmu.egress_bytes(out, class);
            if sw.mmu.admit(inp, class, out, wire) == Admit::Drop {
                self.stats.drops_buffer += 1;
                self.pool.free(id);
                return;
            }
            if is_data
                && self.cfg.model.ecn_point == EcnPoint::Enqueue
                && let Some(red) = sw.ports[out as usize].red
                && red.should_mark(queued_before, &mut sw.rng)
            {
                pkt.flags |= flag::ECN_CE;
            }
        }
        let port = &mut sw.ports[out as usize];
        port.queues[class as usize].push(&mut self.pool, id);
        port.nonempty |= 1 << class;
        self.rec.queue_change(port.eg.gid, now, port.bytes);
        port.bytes += wire;
        port.rx_bytes += wire;
        port.peak_bytes = port.peak_bytes.max(port.bytes);
        if class != 0 {
            let ev = Enqueue {
                now,
                inp,
                out,
                class,
            };
            let r = sw.fc.on_enqueue(&sw.mmu, &ev);
            if !r.is_none() {
                self.fc_react(si, r, out);
            }
        }
        self.switch_kick(si, out);
    }

    /// Sends now if the port is idle, or makes sure a `TxDone` comes when it frees.
    pub(super) fn switch_kick(&mut self, si: usize, p: u16) {
        let now = self.q.now();
        let eg = &mut self.switches[si].ports[p as usize].eg;
        let at = now.max(eg.busy_until);
        if eg.next_event <= at {
            return;
        }
        if at == now {
            self.switch_start_tx(si, p);
        } else {
            eg.next_event = at;
            self.q.schedule(at, Event::TxDone { egress: eg.gid }.pack());
        }
    }

    pub(super) fn switch_start_tx(&mut self, si: usize, p: u16) {
        let now = self.q.now();
        let sw = &mut self.switches[si];
        let port = &mut sw.ports[p as usize];
        if now < port.eg.busy_until {
            let b = port.eg.busy_until;
            if port.has_ready() && port.eg.claim_event(b) {
                self.q.schedule(
                    b,
                    Event::TxDone {
                        egress: port.eg.gid,
                    }
                    .pack(),
                );
            }
            return;
        }
        let Some(class) = port.pick_class() else {
            return;
        };
        let c = class as usize;
        let id = port.queues[c]
            .pop(&mut self.pool)
            .expect("picked class is non-empty");
        if port.queues[c].is_empty() {
            port.nonempty &= !(1 << class);
        }
        if class != 0 {
            port.rr = class;
        }
        let (pkt, int) = self.pool.get_with_int(id);
        self.rec.queue_change(port.eg.gid, now, port.bytes);
        port.bytes -= pkt.wire as u64;
        let mut frame = None;
        if class != 0 {
            sw.mmu.release(pkt.ingress, class, p, pkt.wire as u64);
            let ev = Enqueue {
                now,
                inp: pkt.ingress,
                out: p,
                class,
            };
            frame = sw.fc.on_dequeue(&sw.mmu, &ev);
        }
        let is_data = pkt.kind == PacketKind::Data;
        if is_data {
            if self.cfg.model.ecn_point == EcnPoint::Dequeue
                && let Some(red) = port.red
                && red.should_mark(sw.mmu.egress_bytes(p, class), &mut sw.rng)
            {
                pkt.flags |= flag::ECN_CE;
            }
            if self.cfg.int_on {
                let model = &self.cfg.model;
                crate::switch::int::stamp(pkt, int, port, now, model.int_units, &model.sizes);
            }
        }
        let may_lose = pkt.kind != PacketKind::Pfc;
        let wire = pkt.wire;
        self.stats.packets_tx += 1;
        match port.eg.transmit(now, wire, is_data, may_lose, &mut sw.rng) {
            Some(at) => {
                if port.eg.launch(id, at) {
                    self.q.schedule(
                        at,
                        Event::Arrive {
                            egress: port.eg.gid,
                        }
                        .pack(),
                    );
                }
            }
            None => {
                self.stats.drops_link += 1;
                self.pool.free(id);
            }
        }
        let b = port.eg.busy_until;
        if port.has_ready() && port.eg.claim_event(b) {
            self.q.schedule(
                b,
                Event::TxDone {
                    egress: port.eg.gid,
                }
                .pack(),
            );
        }
        if let Some(f) = frame {
            self.send_pfc(si, f, p);
        }
    }
}
