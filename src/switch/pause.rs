//! PFC frames a switch sends (what its flow-control scheme decides: PFC, P-PFC,
//! CaPFC, [`super::flowctl`]), timed-pause expiry at its ports, and its
//! flow-control timer (P-PFC ticks). Receiving PFC is
//! [`crate::node::Ctx::receive_pfc`]; the diagnostics are told of every frame.

use super::flowctl::{FlowControl, Frame, FrameKind, Reaction, TickCtx};
use super::{Switch, SwitchEnv};
use crate::node::{Ctx, Event};
use crate::output::journal::{PauseSent, PauseToken};
use crate::packet::PacketKind;
use crate::units::SimTime;

impl Switch {
    /// Acts on what a flow-control hook returned; `out` is the packet's egress.
    #[inline]
    pub(super) fn fc_react(&mut self, ctx: &mut Ctx, env: SwitchEnv, r: Reaction, out: u16) {
        if let Some(f) = r.frame {
            self.send_pfc(ctx, env, f, out);
        }
        if let Some(t) = r.wake {
            self.arm_timer(ctx, t);
        }
    }

    /// Queues a PFC frame out of port `f.port` (class 0: served first). `cause`
    /// is the egress whose queue led to it (for the propagation diagnostics).
    pub(super) fn send_pfc(&mut self, ctx: &mut Ctx, env: SwitchEnv, f: Frame, cause: u16) {
        let cause = f.cause.unwrap_or(cause);
        let gid = self.ports[f.port as usize].eg.gid;
        let c = f.class;
        let token = if f.kind == FrameKind::Resume {
            ctx.rec.resume_sent(gid, c);
            ctx.stats.pfc_resume_frames += 1;
            PauseToken(0)
        } else if f.kind == FrameKind::Refresh {
            // The same pause, kept in force: no new root, no new victims.
            ctx.rec.refresh_sent(gid, c);
            ctx.stats.pfc_pause_frames += 1;
            PauseToken::NONE
        } else {
            ctx.stats.pfc_pause_frames += 1;
            if f.kind == FrameKind::Predictive {
                ctx.stats.ppfc_pause_frames += 1;
            }
            let ceg = &self.ports[cause as usize].eg;
            let upstream_of = ceg.is_paused(c).then_some((ceg.gid, c));
            self.pauses_sent = self.pauses_sent.wrapping_add(1);
            let token = PauseToken::new(self.node, self.pauses_sent);
            let mmu = &self.mmu;
            let congested = env.cfg.congested_queue;
            let sent = PauseSent {
                gid,
                class: c,
                predictive: f.kind == FrameKind::Predictive,
                cause: upstream_of,
                token,
            };
            ctx.rec.pause_sent(sent, self.ports.len(), |out| {
                mmu.egress_bytes(out, c) >= congested
            });
            token
        };
        let id = ctx.pool.alloc_blank(PacketKind::Pfc);
        let pkt = ctx.pool.get_mut(id);
        pkt.class = c;
        pkt.pause_quanta = f.quanta;
        pkt.wire = env.cfg.model.sizes.pfc;
        pkt.src = self.node;
        // The diagnostics assign the pause's propagation root and hop when
        // they apply it (output::journal).
        pkt.seq = token.0;
        let wire = pkt.wire as u64;
        let port = &mut self.ports[f.port as usize];
        port.queues[0].push(ctx.pool, id);
        port.nonempty |= 1;
        port.queue_changing(ctx.rec, ctx.now);
        port.bytes += wire;
        self.kick(ctx, env, f.port);
    }

    /// Makes sure the switch's timer event comes by `at`.
    pub fn arm_timer(&mut self, ctx: &mut Ctx, at: SimTime) {
        if at < self.timer_at {
            self.timer_at = at;
            ctx.schedule_timer(at, Event::SwitchTimer { switch: self.idx });
        }
    }

    /// The switch's flow-control timer: scheme ticks. The dispatcher re-arms it
    /// (with its own deadlock deadline) through [`Switch::arm_timer`].
    pub fn on_timer(&mut self, ctx: &mut Ctx, env: SwitchEnv, frames: &mut Vec<Frame>) {
        let now = ctx.now;
        if self.timer_at == now {
            self.timer_at = SimTime::MAX;
        }
        if self.fc.next_tick().is_some_and(|t| t <= now) {
            let tick = TickCtx {
                now,
                mmu: &self.mmu,
                ports: &self.ports,
                pool: ctx.pool,
                rng: &mut self.rng,
            };
            self.fc.on_tick(tick, frames);
            for f in frames.drain(..) {
                self.send_pfc(ctx, env, f, f.port);
            }
        }
    }

    /// Timed pauses of port `p` that have lapsed end now.
    pub fn on_pause_expiry(&mut self, ctx: &mut Ctx, env: SwitchEnv, p: u16) {
        if ctx.expire_pauses(&mut self.ports[p as usize].eg, self.node, p) {
            self.kick(ctx, env, p);
        }
    }
}
