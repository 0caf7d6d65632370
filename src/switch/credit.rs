//! ExpressPass credits at a switch (ExpressPass (SIGCOMM'17) §3.1; ns-2
//! `queue/xpass-drop-tail.cc:50-111`): each egress port has a credit queue
//! ([`CreditShaper`]) beside its eight classes. A credit is routed like any
//! packet, then queued there (tail drop, counted in `credits_dropped`) instead
//! of in a class: no MMU accounting, no PFC, no ECN. When the port is free, a
//! credit whose tokens are there goes first; otherwise the classes are served
//! as usual, and the port looks again when the next credit's tokens are due.
//!
//! Runs without ExpressPass have no credit queues (`Switch::credit` is empty)
//! and never reach this file.

use super::{Switch, SwitchEnv};
use crate::cc::xpass::shaper::CreditShaper;
use crate::node::{Ctx, Event};
use crate::packet::PacketId;

impl Switch {
    /// Credit `id`, routed to port `out`, joins its credit queue.
    pub(super) fn enqueue_credit(&mut self, ctx: &mut Ctx, env: SwitchEnv, out: u16, id: PacketId) {
        let shaper: &mut CreditShaper = self
            .credit
            .get_mut(out as usize)
            .expect("credits exist only in runs whose switches have credit queues");
        if !shaper.push(ctx.pool, id) {
            ctx.stats.credits_dropped += 1;
            ctx.pool.free(id);
            return;
        }
        self.kick(ctx, env, out);
    }

    /// Port `p` is free: sends its head credit if its tokens are there.
    pub(super) fn send_ready_credit(&mut self, ctx: &mut Ctx, p: u16) -> bool {
        let now = ctx.now;
        let Some(id) = self.credit[p as usize].pop_ready(ctx.pool, now) else {
            return false;
        };
        let wire = ctx.pool.get(id).wire;
        self.put_on_link(ctx, p, id, wire, false, true);
        true
    }

    /// Makes sure port `p` looks again when its head credit may go.
    pub(super) fn credit_wake(&mut self, ctx: &mut Ctx, p: u16) {
        let port = &mut self.ports[p as usize];
        if let Some(t) = self.credit[p as usize].ready_at(ctx.now) {
            let at = t.max(port.eg.busy_until);
            if port.eg.claim_event(at) {
                ctx.schedule(
                    at,
                    Event::TxDone {
                        egress: port.eg.gid,
                    },
                );
            }
        }
    }
}
