//! Switch forwarding: arrival (routing, load balancing, MMU admission, ECN at
//! enqueue, the flow-control scheme's enqueue hook), transmission (scheduling,
//! MMU release, its dequeue hook, ECN at dequeue, INT stamping or HPCC-PINT's
//! field). PFC frames are in `pause`.

use super::flowctl::{Enqueue, FlowControl};
use super::mmu::Admit;
use super::spray::LoadBalancing;
use super::{Switch, SwitchEnv};
use crate::engine::prefetch;
use crate::node::{Ctx, Event};
use crate::packet::{MAX_INT_HOPS, Packet, PacketId, PacketKind, flag};
use crate::profile::EcnPoint;
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};

impl Switch {
    /// A packet arrived on port `inp`. Returns the (port, class) a PFC frame
    /// newly paused, if it did (the dispatcher's deadlock watch).
    #[inline(always)]
    pub fn on_packet(
        &mut self,
        ctx: &mut Ctx,
        env: SwitchEnv,
        inp: u16,
        id: PacketId,
    ) -> Option<(u16, u8)> {
        let now = ctx.now;
        let pkt = ctx.pool.get_mut(id);
        if pkt.kind == PacketKind::Pfc {
            let port = &mut self.ports[inp as usize];
            let r = ctx.receive_pfc(&mut port.eg, self.node, inp, id, env.cfg.xoff_forever);
            if r.resumed {
                self.kick(ctx, env, inp);
            }
            return r.newly_paused.map(|c| (inp, c));
        }
        pkt.ingress = inp;
        if env.cfg.int_on && pkt.kind == PacketKind::Data {
            // The INT record this switch will write when it sends the packet
            // (`int::stamp`, often within this event): a cold line, loaded
            // while the routing and the MMU run.
            let n = (pkt.n_hops as usize).min(MAX_INT_HOPS - 1);
            prefetch(&ctx.pool.int(id)[n]);
        }
        let pkt = ctx.pool.get_mut(id);
        let hops = env.routes.next_hops(self.idx.0, pkt.dst);
        let out = match env.cfg.load_balancing {
            LoadBalancing::Ecmp => {
                let key = super::ecmp::FlowKey {
                    src: pkt.src.0,
                    dst: pkt.dst.0,
                    sport: pkt.sport,
                    dport: pkt.dport,
                };
                let hash = env.cfg.model.ecmp_hash;
                let key = key.addressed(env.routes);
                super::ecmp::next_hop(hops, hash, self.ecmp_seed, self.node, key)
            }
            LoadBalancing::Spray => self.spray.next_hop(hops),
            LoadBalancing::Flowlet { gap } => self.flowlet_hop(env, hops, pkt, now, gap),
            LoadBalancing::Adaptive => self.adaptive_hop(env, hops, pkt),
        };
        let Some(out) = out else {
            ctx.stats.drops_no_route += 1;
            ctx.pool.free(id);
            return None;
        };
        if pkt.kind == PacketKind::Credit {
            self.enqueue_credit(ctx, env, out, id);
            return None;
        }
        let class = pkt.class;
        let wire = pkt.wire as u64;
        let is_data = pkt.kind == PacketKind::Data;
        if class != 0 {
            let queued_before = self.mmu.egress_bytes(out, class);
            if self.mmu.admit(inp, class, out, wire) == Admit::Drop {
                ctx.stats.drops_buffer += 1;
                ctx.pool.free(id);
                return None;
            }
            if is_data
                && env.cfg.model.ecn_point == EcnPoint::Enqueue
                && self.ports[out as usize]
                    .marker
                    .should_mark(queued_before, &mut self.rng)
            {
                pkt.flags |= flag::ECN_CE;
            }
        }
        let port = &mut self.ports[out as usize];
        port.queues[class as usize].push(ctx.pool, id);
        port.nonempty |= 1 << class;
        port.queue_changing(ctx.rec, now);
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
            let r = self.fc.on_enqueue(&self.mmu, &ev);
            if !r.is_none() {
                self.fc_react(ctx, env, r, out);
            }
        }
        self.kick(ctx, env, out);
        None
    }

    /// The next hop of `pkt` among `hops` under flowlet switching
    /// ([`super::flowlet`]). Out of line, as [`Self::adaptive_hop`]: ECMP's
    /// arm of `on_packet` stays as it was.
    #[inline(never)]
    fn flowlet_hop(
        &mut self,
        env: SwitchEnv,
        hops: &[u16],
        pkt: &Packet,
        now: SimTime,
        gap: Delta,
    ) -> Option<u16> {
        let (seed, node) = (self.ecmp_seed, self.node);
        let hash = || packet_hash(env, seed, node, pkt);
        self.flowlets
            .next_hop(hops, now, gap, hash, &mut self.spray)
    }

    /// The next hop of `pkt` among `hops` under adaptive routing
    /// ([`super::adaptive`]): the least-queued port.
    #[inline(never)]
    fn adaptive_hop(&self, env: SwitchEnv, hops: &[u16], pkt: &Packet) -> Option<u16> {
        let queued = |p: u16| self.ports[p as usize].bytes;
        let hash = || packet_hash(env, self.ecmp_seed, self.node, pkt);
        super::adaptive::next_hop(hops, queued, hash)
    }

    /// Port `p` finished serializing (or may have).
    #[inline(always)]
    pub fn on_tx_done(&mut self, ctx: &mut Ctx, env: SwitchEnv, p: u16) {
        if self.ports[p as usize].eg.take_event(ctx.now) {
            self.start_tx(ctx, env, p);
        }
    }

    /// Sends now if the port is idle, or makes sure a `TxDone` comes when it frees.
    #[inline(always)]
    pub(super) fn kick(&mut self, ctx: &mut Ctx, env: SwitchEnv, p: u16) {
        let now = ctx.now;
        let eg = &mut self.ports[p as usize].eg;
        let at = now.max(eg.busy_until);
        if eg.next_event <= at {
            return;
        }
        if at == now {
            self.start_tx(ctx, env, p);
        } else {
            eg.next_event = at;
            ctx.schedule(at, Event::TxDone { egress: eg.gid });
        }
    }

    /// Sends the next packet if port `p` is free: a credit whose tokens are
    /// there (ExpressPass, [`super::credit`]), else the classes' next packet.
    #[inline(always)]
    pub(super) fn start_tx(&mut self, ctx: &mut Ctx, env: SwitchEnv, p: u16) {
        if self.credit.is_empty() {
            return self.start_tx_classes(ctx, env, p);
        }
        if ctx.now < self.ports[p as usize].eg.busy_until || !self.send_ready_credit(ctx, p) {
            self.start_tx_classes(ctx, env, p);
        }
        self.credit_wake(ctx, p);
    }

    #[inline(always)]
    fn start_tx_classes(&mut self, ctx: &mut Ctx, env: SwitchEnv, p: u16) {
        let now = ctx.now;
        let port = &mut self.ports[p as usize];
        if now < port.eg.busy_until {
            let b = port.eg.busy_until;
            if port.has_ready() && port.eg.claim_event(b) {
                ctx.schedule(
                    b,
                    Event::TxDone {
                        egress: port.eg.gid,
                    },
                );
            }
            return;
        }
        let Some(class) = port.pick_class(env.cfg.scheduling) else {
            return;
        };
        let c = class as usize;
        let id = port.queues[c]
            .pop(ctx.pool)
            .expect("picked class is non-empty");
        if port.queues[c].is_empty() {
            port.nonempty &= !(1 << class);
        }
        if class != 0 {
            port.rr = class;
        }
        let (pkt, int) = ctx.pool.get_with_int(id);
        port.queue_changing(ctx.rec, now);
        port.bytes -= pkt.wire as u64;
        let mut frame = None;
        if class != 0 {
            self.mmu.release(pkt.ingress, class, p, pkt.wire as u64);
            let ev = Enqueue {
                now,
                inp: pkt.ingress,
                out: p,
                class,
            };
            frame = self.fc.on_dequeue(&self.mmu, &ev);
        }
        let is_data = pkt.kind == PacketKind::Data;
        let model = &env.cfg.model;
        if is_data {
            if model.ecn_point == EcnPoint::Dequeue
                && port
                    .marker
                    .should_mark(self.mmu.egress_bytes(p, class), &mut self.rng)
            {
                pkt.flags |= flag::ECN_CE;
            }
            if env.cfg.int_on {
                super::int::stamp(
                    pkt,
                    int,
                    port,
                    now,
                    model.int_units,
                    env.cfg.int_counter,
                    &model.sizes,
                );
            }
        }
        if let Some(plan) = &env.cfg.pint {
            // After ECN, as the simulator draws: every packet is seen, data
            // packets are stamped.
            self.pint[p as usize].on_dequeue(plan, now, pkt, is_data, port.bytes, &mut self.rng);
        }
        let may_lose = pkt.kind != PacketKind::Pfc;
        let wire = pkt.wire;
        self.put_on_link(ctx, p, id, wire, is_data, may_lose);
        if let Some(f) = frame {
            self.send_pfc(ctx, env, f, p);
        }
    }

    /// Port `p` starts sending packet `id` of `wire` bytes (a lossy link may
    /// drop it), and looks again when it is done if something else is ready.
    #[inline(always)]
    pub(super) fn put_on_link(
        &mut self,
        ctx: &mut Ctx,
        p: u16,
        id: PacketId,
        wire: u32,
        is_data: bool,
        may_lose: bool,
    ) {
        let port = &mut self.ports[p as usize];
        ctx.stats.packets_tx += 1;
        match port
            .eg
            .transmit(ctx.now, wire, is_data, may_lose, &mut self.rng)
        {
            Some(at) => ctx.send(port.eg.link(), id, at),
            None => {
                ctx.stats.drops_link += 1;
                ctx.pool.free(id);
            }
        }
        let b = port.eg.busy_until;
        if port.has_ready() && port.eg.claim_event(b) {
            ctx.schedule(
                b,
                Event::TxDone {
                    egress: port.eg.gid,
                },
            );
        }
    }
}

/// The ECMP hash of `pkt`'s 5-tuple at switch `node` (ECMP seed `seed`).
fn packet_hash(env: SwitchEnv, seed: u64, node: NodeId, pkt: &Packet) -> u64 {
    let key = super::ecmp::FlowKey {
        src: pkt.src.0,
        dst: pkt.dst.0,
        sport: pkt.sport,
        dport: pkt.dport,
    };
    let (hash, key) = (env.cfg.model.ecmp_hash, key.addressed(env.routes));
    super::ecmp::tuple_hash(hash, seed, node, key)
}
