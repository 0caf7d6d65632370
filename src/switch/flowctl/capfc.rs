//! Congestion-aware PFC (CaPFC) as P-PFC §2.3, §5.6 and §7 describe it, with
//! standard PFC underneath.
//!
//! CaPFC "introduces a WARN threshold at each egress buffer" (§5.6), "sets a
//! fixed threshold of egress queue length to trigger PFC proactively" (§2.3) and
//! "triggers PFC with a fixed threshold value of per-input counters" (§7). The
//! CaPFC paper (Avci, Li, Liu, IFIP Networking 2016) is not in our folder and we
//! found no public text or implementation of it, so neither its thresholds nor
//! what its per-input counter counts are confirmed. Our model: while an egress
//! queue is above `warn`, an ingress (port, class) that feeds it is paused once
//! its per-input counter reaches `input_threshold`; the pause is lifted when the
//! counter is `resume_offset` below `input_threshold`, or when a packet of it
//! leaves an egress queue that is no longer above `warn`. Two readings of the
//! counter ([`InputCounter`]):
//!
//! * `Reserve` (default): the only per-input pause threshold P-PFC names is
//!   §2.1's 17 KB, a threshold of the port's *reserved* buffer, which a port
//!   uses once its shared allowance is used up. CaPFC's proactive trigger is
//!   read as ending the shared allowance of the inputs of a WARN queue: what
//!   an input holds when it first feeds the queue above WARN is its allowance,
//!   and the counter is what it holds beyond that.
//! * `Total`: every byte the input holds.
//!
//! Standard PFC keeps its own XOFF; the upstream is paused while either holds,
//! so frames go out only when the combined state changes.

use super::pfc::Pfc;
use super::{Dequeue, Enqueue, FlowControl, Frame, FrameKind, Reaction, TickCtx, ix};
use crate::switch::mmu::Mmu;
use crate::units::SimTime;

/// CaPFC thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct CapfcConfig {
    /// Egress queue length above which the queue is congested (WARN).
    pub warn: u64,
    /// The per-input counter at which an ingress (port, class) feeding a
    /// congested queue is paused.
    pub input_threshold: u64,
    /// What the per-input counter counts.
    pub counter: InputCounter,
}

/// What CaPFC's per-input counter counts (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputCounter {
    /// The bytes held beyond what the input held when it first fed a queue
    /// above WARN (its reserved buffer, P-PFC §2.1).
    #[default]
    Reserve,
    /// Every byte the input holds.
    Total,
}

impl Default for CapfcConfig {
    /// WARN at 200 KB (the K_max of P-PFC Table 2, so CaPFC acts where P-PFC
    /// does); 17 KB, the reserved-buffer pause threshold P-PFC §2.1 quotes for
    /// a Mellanox switch.
    fn default() -> Self {
        CapfcConfig {
            warn: 200_000,
            input_threshold: 17_000,
            counter: InputCounter::default(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Capfc {
    cfg: CapfcConfig,
    pfc: Pfc,
    /// Per (ingress port, class): paused because it feeds a congested queue.
    warned: Vec<bool>,
    /// Per (ingress port, class), `Reserve` counter: the bytes it held when it
    /// first fed a queue above WARN (`NO_BASE`: it feeds none).
    base: Vec<u64>,
}

const NO_BASE: u64 = u64::MAX;

impl Capfc {
    pub fn new(cfg: CapfcConfig, pfc: Pfc) -> Capfc {
        let n = pfc.ports() * crate::port::CLASSES;
        Capfc {
            cfg,
            pfc,
            warned: vec![false; n],
            base: vec![NO_BASE; n],
        }
    }

    /// The per-input counter of (`inp`, `class`).
    #[inline]
    fn counter(&self, mmu: &Mmu, inp: u16, class: u8) -> u64 {
        let held = mmu.ingress_bytes(inp, class);
        match self.cfg.counter {
            InputCounter::Total => held,
            InputCounter::Reserve => match self.base[ix(inp, class)] {
                NO_BASE => 0,
                b => held.saturating_sub(b),
            },
        }
    }

    #[inline]
    fn paused(&self, inp: u16, class: u8) -> bool {
        self.warned[ix(inp, class)] || self.pfc.is_xoff(inp, class)
    }
}

impl FlowControl for Capfc {
    #[inline]
    fn on_enqueue(&mut self, mmu: &Mmu, ev: &Enqueue) -> Reaction {
        let before = self.paused(ev.inp, ev.class);
        self.pfc.check_xoff(mmu, ev.now, ev.inp, ev.class);
        let i = ix(ev.inp, ev.class);
        let warn = mmu.egress_bytes(ev.out, ev.class) > self.cfg.warn;
        if warn && self.base[i] == NO_BASE {
            self.base[i] = mmu.ingress_bytes(ev.inp, ev.class);
        }
        if !self.warned[i]
            && warn
            && self.counter(mmu, ev.inp, ev.class) >= self.cfg.input_threshold
        {
            self.warned[i] = true;
        }
        if !before && self.paused(ev.inp, ev.class) {
            self.pfc.pause_sent(ev.now, ev.inp, ev.class);
            Reaction {
                frame: Some(self.pfc.pause_frame(ev.inp, ev.class)),
                wake: self.pfc.next_refresh(),
            }
        } else {
            Reaction::default()
        }
    }

    #[inline]
    fn on_dequeue(&mut self, mmu: &Mmu, ev: &Dequeue) -> Option<Frame> {
        let before = self.paused(ev.inp, ev.class);
        self.pfc.check_xon(mmu, ev.inp, ev.class);
        let i = ix(ev.inp, ev.class);
        let calm = mmu.egress_bytes(ev.out, ev.class) <= self.cfg.warn;
        if self.warned[i]
            && (self.counter(mmu, ev.inp, ev.class) + self.pfc.config().resume_offset
                <= self.cfg.input_threshold
                || calm)
        {
            self.warned[i] = false;
        }
        if calm {
            self.base[i] = NO_BASE;
        }
        if before && !self.paused(ev.inp, ev.class) {
            self.pfc.lifted(ev.inp, ev.class);
        }
        (before && !self.paused(ev.inp, ev.class) && self.pfc.config().send_resume).then_some(
            Frame {
                port: ev.inp,
                class: ev.class,
                quanta: 0,
                kind: FrameKind::Resume,
                cause: None,
            },
        )
    }

    fn next_tick(&self) -> Option<SimTime> {
        self.pfc.next_refresh()
    }

    fn on_tick(&mut self, ctx: TickCtx<'_>, out: &mut Vec<Frame>) {
        self.pfc.refresh(ctx.now, Some(&self.warned), out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::PfcConfig;
    use super::super::pfc::tests::{facts, mmu};
    use super::*;
    use crate::switch::mmu::PfcThreshold;
    use crate::units::SimTime;

    fn ev(inp: u16, out: u16) -> Enqueue {
        Enqueue {
            now: SimTime::ZERO,
            inp,
            out,
            class: 3,
        }
    }

    #[test]
    fn inputs_feeding_a_warned_queue_pause_at_the_fixed_threshold() {
        let mut m = mmu(PfcThreshold::Dynamic);
        let mut c = Capfc::new(
            CapfcConfig {
                warn: 30_000,
                input_threshold: 10_000,
                counter: InputCounter::Total,
            },
            Pfc::new(PfcConfig::default(), &facts()),
        );
        // Port 1 alone fills egress 3 to 30 KB: not above WARN, no pause although
        // it holds 30 KB > 10 KB (far below the dynamic threshold of ~100 KB).
        for _ in 0..30 {
            m.admit(1, 3, 3, 1000);
            assert_eq!(c.on_enqueue(&m, &ev(1, 3)), Reaction::default());
        }
        // Port 0's first packet pushes the queue above WARN, but port 0 holds
        // 1 KB; port 1's next packet pauses port 1.
        m.admit(0, 3, 3, 1000);
        assert_eq!(c.on_enqueue(&m, &ev(0, 3)), Reaction::default());
        m.admit(1, 3, 3, 1000);
        let f = c.on_enqueue(&m, &ev(1, 3)).frame.expect("pause");
        assert_eq!((f.port, f.kind), (1, FrameKind::Pause));
        // A queue to another egress that is not congested pauses nobody.
        m.admit(2, 3, 0, 1000);
        assert_eq!(c.on_enqueue(&m, &ev(2, 0)), Reaction::default());
        // Draining egress 3 below WARN lifts port 1's pause on its next departure.
        m.release(1, 3, 3, 1000);
        m.release(0, 3, 3, 1000);
        let f = c.on_dequeue(&m, &ev(1, 3)).expect("resume");
        assert_eq!((f.port, f.kind), (1, FrameKind::Resume));
    }

    #[test]
    fn with_the_reserve_counter_an_input_may_add_the_threshold_to_what_it_held_at_warn() {
        let mut m = mmu(PfcThreshold::Dynamic);
        let mut c = Capfc::new(
            CapfcConfig {
                warn: 30_000,
                input_threshold: 10_000,
                counter: InputCounter::Reserve,
            },
            Pfc::new(PfcConfig::default(), &facts()),
        );
        for _ in 0..31 {
            m.admit(1, 3, 3, 1000);
            assert_eq!(c.on_enqueue(&m, &ev(1, 3)), Reaction::default());
        }
        // Above WARN since its 31st packet, which it holds with 30 others: its
        // shared allowance ends at 31 KB, and 10 KB more fill its reserve.
        for _ in 0..9 {
            m.admit(1, 3, 3, 1000);
            assert_eq!(c.on_enqueue(&m, &ev(1, 3)), Reaction::default());
        }
        m.admit(1, 3, 3, 1000);
        let f = c.on_enqueue(&m, &ev(1, 3)).frame.expect("pause at 41 KB");
        assert_eq!((f.port, f.kind), (1, FrameKind::Pause));
    }
}
