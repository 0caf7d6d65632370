//! Standard PFC (IEEE 802.1Qbb) with the shared-buffer thresholds of DCQCN §4.
//!
//! Per (ingress port, class): XOFF when the class holds headroom or its shared
//! use reaches the MMU's threshold (static `t_PFC`, or dynamic
//! `alpha x free shared pool`, DCQCN §4's `beta (B - 8 n t_flight - s) / 8` with
//! `alpha = beta / 8`); XON once the headroom has drained and the shared use is
//! `resume_offset` below the threshold ("two MTU", DCQCN §4).
//!
//! Pause style (P-PFC §4.4 discusses both): X-OFF/X-ON (the default: the pause
//! lasts until RESUME) or timed, where every PAUSE carries `pause_quanta` and the
//! upstream resumes on its own when it lapses. With timed pauses the switch
//! refreshes a PAUSE halfway through its duration for as long as the XOFF
//! condition holds (the usual practice: a refresh must land before the pause
//! lapses, or the upstream resumes into a full headroom), and RESUME frames can
//! be turned off: the pause then simply lapses after the XON condition.

use super::{Dequeue, Enqueue, FlowControl, Frame, FrameKind, PortFacts, Reaction, TickCtx};
use super::{XOFF_QUANTA, ix, quanta_to_time};
use crate::port::CLASSES;
use crate::switch::mmu::Mmu;
use crate::units::{Delta, SimTime};

/// Standard PFC settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PfcConfig {
    /// XON when the shared use is this far below the threshold.
    pub resume_offset: u64,
    /// `None`: X-OFF/X-ON. `Some(q)`: every PAUSE lasts `q` quanta.
    pub pause_quanta: Option<u16>,
    /// Send RESUME frames (X-ON). Only timed pauses may do without.
    pub send_resume: bool,
}

impl Default for PfcConfig {
    /// X-OFF/X-ON with two 1 KB frames of hysteresis (DCQCN §4: two MTU).
    fn default() -> Self {
        PfcConfig {
            resume_offset: 2 * 1062,
            pause_quanta: None,
            send_resume: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Pfc {
    cfg: PfcConfig,
    /// Per (ingress port, class): our PAUSE is in force upstream.
    xoff: Vec<bool>,
    /// Timed pauses: when to send the PAUSE again (`SimTime::MAX`: not paused).
    /// Empty without timed pauses (`pause_quanta` unset): nothing is refreshed.
    refresh_at: Vec<SimTime>,
    /// Earliest `refresh_at`.
    next_refresh: SimTime,
    /// Per port: how long `pause_quanta` lasts at its rate.
    pause_len: Vec<Delta>,
}

impl Pfc {
    pub fn new(cfg: PfcConfig, ports: &[PortFacts]) -> Pfc {
        let n = ports.len() * CLASSES;
        let pause_len = ports
            .iter()
            .map(|p| {
                cfg.pause_quanta
                    .map_or(Delta::ZERO, |q| quanta_to_time(p.rate, q))
            })
            .collect();
        let refresh_at = if cfg.pause_quanta.is_some() {
            vec![SimTime::MAX; n]
        } else {
            Vec::new()
        };
        Pfc {
            cfg,
            xoff: vec![false; n],
            refresh_at,
            next_refresh: SimTime::MAX,
            pause_len,
        }
    }

    /// Number of ports.
    pub fn ports(&self) -> usize {
        self.pause_len.len()
    }

    pub fn config(&self) -> &PfcConfig {
        &self.cfg
    }

    /// Whether our PAUSE for (`port`, `class`) is in force.
    #[inline]
    pub fn is_xoff(&self, port: u16, class: u8) -> bool {
        self.xoff[ix(port, class)]
    }

    /// The PAUSE frame this scheme sends.
    #[inline]
    pub fn pause_frame(&self, port: u16, class: u8) -> Frame {
        Frame {
            port,
            class,
            quanta: self.cfg.pause_quanta.unwrap_or(XOFF_QUANTA),
            kind: FrameKind::Pause,
            cause: None,
        }
    }

    /// True when a PAUSE for (`inp`, `class`) must go out now; marks it in force.
    #[inline(always)]
    pub fn check_xoff(&mut self, mmu: &Mmu, now: SimTime, inp: u16, class: u8) -> bool {
        let i = ix(inp, class);
        if !self.xoff[i] && mmu.over_threshold(inp, class) {
            self.xoff[i] = true;
            self.pause_sent(now, inp, class);
            return true;
        }
        false
    }

    /// A PAUSE of this scheme's style left for (`port`, `class`): with timed
    /// pauses, schedules its refresh halfway through.
    #[inline]
    pub fn pause_sent(&mut self, now: SimTime, port: u16, class: u8) {
        if self.cfg.pause_quanta.is_some() {
            let at = now + Delta(self.pause_len[port as usize].ps() / 2).max(Delta(1));
            self.refresh_at[ix(port, class)] = at;
            self.next_refresh = self.next_refresh.min(at);
        }
    }

    /// The next timed-pause refresh, if any.
    pub fn next_refresh(&self) -> Option<SimTime> {
        (self.next_refresh != SimTime::MAX).then_some(self.next_refresh)
    }

    /// Timed pauses due for a refresh: those still in force (our XOFF, or
    /// `also[i]` for a scheme that pauses for its own reasons) are sent again;
    /// the others are forgotten and lapse upstream.
    pub fn refresh(&mut self, now: SimTime, also: Option<&[bool]>, out: &mut Vec<Frame>) {
        if now < self.next_refresh {
            return;
        }
        let mut next = SimTime::MAX;
        for i in 0..self.refresh_at.len() {
            if self.refresh_at[i] <= now {
                self.refresh_at[i] = SimTime::MAX;
                if self.xoff[i] || also.is_some_and(|a| a[i]) {
                    let (port, class) = ((i / CLASSES) as u16, (i % CLASSES) as u8);
                    self.pause_sent(now, port, class);
                    out.push(Frame {
                        kind: FrameKind::Refresh,
                        ..self.pause_frame(port, class)
                    });
                }
            }
            next = next.min(self.refresh_at[i]);
        }
        self.next_refresh = next;
    }

    /// True when the XOFF of (`inp`, `class`) may be lifted now; marks it lifted.
    #[inline(always)]
    pub fn check_xon(&mut self, mmu: &Mmu, inp: u16, class: u8) -> bool {
        let i = ix(inp, class);
        if self.xoff[i] && mmu.below_resume(inp, class, self.cfg.resume_offset) {
            self.xoff[i] = false;
            return true;
        }
        false
    }

    /// Stops refreshing (`port`, `class`) (its pause was lifted).
    #[inline]
    pub fn lifted(&mut self, port: u16, class: u8) {
        if let Some(at) = self.refresh_at.get_mut(ix(port, class)) {
            *at = SimTime::MAX;
        }
    }

    #[inline]
    fn resume(&self, port: u16, class: u8) -> Option<Frame> {
        self.cfg.send_resume.then_some(Frame {
            port,
            class,
            quanta: 0,
            kind: FrameKind::Resume,
            cause: None,
        })
    }
}

impl FlowControl for Pfc {
    #[inline(always)]
    fn on_enqueue(&mut self, mmu: &Mmu, ev: &Enqueue) -> Reaction {
        if self.check_xoff(mmu, ev.now, ev.inp, ev.class) {
            Reaction {
                frame: Some(self.pause_frame(ev.inp, ev.class)),
                wake: self.next_refresh(),
            }
        } else {
            Reaction::default()
        }
    }

    #[inline(always)]
    fn on_dequeue(&mut self, mmu: &Mmu, ev: &Dequeue) -> Option<Frame> {
        if self.check_xon(mmu, ev.inp, ev.class) {
            self.lifted(ev.inp, ev.class);
            self.resume(ev.inp, ev.class)
        } else {
            None
        }
    }

    fn next_tick(&self) -> Option<SimTime> {
        self.next_refresh()
    }

    fn on_tick(&mut self, ctx: TickCtx<'_>, out: &mut Vec<Frame>) {
        self.refresh(ctx.now, None, out);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::switch::ecn::Marker;
    use crate::switch::mmu::{Admit, MmuConfig, PfcThreshold};
    use crate::units::Rate;

    pub(crate) fn mmu(threshold: PfcThreshold) -> Mmu {
        Mmu::new(MmuConfig {
            buffer: 1_000_000,
            lossless: true,
            threshold,
            alpha: vec![0.125; 4],
            headroom: vec![25_000; 4],
            reserve: 0,
            reserve_once_per_port: false,
            egress_alpha: 1.0,
            ns3_admission: false,
            shared_cap: None,
        })
    }

    pub(crate) fn facts() -> Vec<PortFacts> {
        vec![
            PortFacts {
                rate: Rate::from_gbps(40),
                marker: Marker::NEVER,
            };
            4
        ]
    }

    fn ev(now: SimTime) -> Enqueue {
        Enqueue {
            now,
            inp: 0,
            out: 1,
            class: 3,
        }
    }

    #[test]
    fn xoff_at_the_dynamic_threshold_is_one_ninth_of_the_pool() {
        let mut m = mmu(PfcThreshold::Dynamic);
        let mut p = Pfc::new(PfcConfig::default(), &facts());
        let mut q = 0;
        loop {
            assert_eq!(m.admit(0, 3, 1, 1000), Admit::Shared);
            q += 1000;
            let r = p.on_enqueue(&m, &ev(SimTime::ZERO));
            if let Some(f) = r.frame {
                assert_eq!((f.port, f.class, f.quanta), (0, 3, XOFF_QUANTA));
                break;
            }
        }
        // q >= (pool - q) / 8  <=>  q >= pool / 9 = 100 KB.
        assert_eq!(q, 100_000);
        assert!(p.is_xoff(0, 3));
        m.admit(0, 3, 1, 1000);
        assert_eq!(p.on_enqueue(&m, &ev(SimTime::ZERO)), Reaction::default());
    }

    #[test]
    fn xon_needs_empty_headroom_and_the_resume_offset() {
        let mut m = mmu(PfcThreshold::Static(10_000));
        let mut p = Pfc::new(
            PfcConfig {
                resume_offset: 2_000,
                ..PfcConfig::default()
            },
            &facts(),
        );
        for _ in 0..12 {
            m.admit(0, 3, 1, 1000);
        }
        assert!(p.check_xoff(&m, SimTime::ZERO, 0, 3));
        assert!(!p.check_xoff(&m, SimTime::ZERO, 0, 3), "XOFF is sent once");
        // 10 KB shared + 2 KB headroom. Draining 2 KB empties the headroom first.
        m.release(0, 3, 1, 1000);
        m.release(0, 3, 1, 1000);
        assert_eq!(m.headroom_bytes(0, 3), 0);
        assert!(
            !p.check_xon(&m, 0, 3),
            "10 KB + 2 KB offset > 10 KB threshold"
        );
        m.release(0, 3, 1, 1000);
        m.release(0, 3, 1, 1000);
        let r = p.on_dequeue(&m, &ev(SimTime::ZERO));
        assert_eq!(
            r.map(|f| f.kind),
            Some(FrameKind::Resume),
            "8 KB + 2 KB <= 10 KB"
        );
    }

    #[test]
    fn a_timed_pause_is_refreshed_halfway_while_the_xoff_condition_holds() {
        let mut m = mmu(PfcThreshold::Static(10_000));
        let mut p = Pfc::new(
            PfcConfig {
                pause_quanta: Some(1000),
                send_resume: false,
                ..PfcConfig::default()
            },
            &facts(),
        );
        for _ in 0..11 {
            m.admit(0, 3, 1, 1000);
        }
        // 1000 quanta at 40 Gbps = 12.8 us: refreshed at 6.4 us.
        let r = p.on_enqueue(&m, &ev(SimTime::ZERO));
        assert_eq!(r.frame.map(|f| f.quanta), Some(1000));
        let half = SimTime::ZERO + Delta::from_ps(6_400_000);
        assert_eq!(r.wake, Some(half));
        let mut out = Vec::new();
        p.refresh(SimTime(half.ps() - 1), None, &mut out);
        assert!(out.is_empty(), "not yet due");
        p.refresh(half, None, &mut out);
        assert_eq!(out.len(), 1, "still over the threshold: sent again");
        assert_eq!(p.next_refresh(), Some(half + Delta::from_ps(6_400_000)));
        // Draining lifts the XOFF without a RESUME frame; the pause then lapses.
        for _ in 0..6 {
            m.release(0, 3, 1, 1000);
        }
        assert_eq!(p.on_dequeue(&m, &ev(half)), None);
        assert!(!p.is_xoff(0, 3));
        out.clear();
        p.refresh(SimTime::ZERO + Delta::from_us(100), None, &mut out);
        assert!(out.is_empty());
        assert_eq!(p.next_refresh(), None);
    }
}
