//! `dcqcn-ns3`: the HPCC ns-3 simulator's timer-only "Mellanox" DCQCN (CC_MODE 1;
//! hpcc-ns3-model.md §6, rdma-hw.cc `*Mlx`).
//!
//! * A CNP (the CNP flag of an ACK/NACK) sets the alpha and decrease "arrived"
//!   flags. The first one sets alpha = 1 (clearing its flag), starts the periodic
//!   alpha timer (ALPHA_RESUME_INTERVAL) and decrease timer (RATE_DECREASE_INTERVAL
//!   + 1 ns the first time), and sets `R_T = R_C = 1.0 x R_C`: no immediate cut.
//! * Alpha tick: `alpha = (1-g) alpha + g` if a CNP arrived in the slot, else
//!   `(1-g) alpha`; clear the flag; re-arm.
//! * Decrease tick: re-arm; if a CNP arrived: `R_T = R_C` when CLAMP_TARGET_RATE or
//!   the increase stage is not 0; `R_C = max(MIN_RATE, R_C (1 - alpha/2))`; stage
//!   0; clear the flag; restart the rate-increase (rp) timer (RP_TIMER).
//! * RP tick: re-arm; stage < F: `R_C = R_C/2 + R_T/2`; stage == F: `R_T += RATE_AI`
//!   (at most line rate) then the same; stage > F: with RATE_HAI; stage + 1.
//!
//! No byte counter, one additive step, a constant hyper step, and rates assigned
//! directly (the next packet's spacing is not recomputed). Timers due at the same
//! instant fire in the order they were scheduled, as ns-3's event list runs them.

use super::{Ns3CcConfig, Ns3Qp, rate_and_window_of_qp, rate_mul};
use crate::cc::{CongestionControl, FlowCtx};
use crate::units::{Delta, SimTime};

const ALPHA: usize = 0;
const DECREASE: usize = 1;
const RP: usize = 2;

#[derive(Clone, Debug)]
pub struct DcqcnMlx {
    qp: Ns3Qp,
    g: f64,
    rai: u64,
    rhai: u64,
    min_rate: u64,
    fast_recovery: u32,
    clamp: bool,
    /// Alpha, decrease and rp intervals.
    intervals: [Delta; 3],
    /// `R_T`, bit/s.
    target: u64,
    alpha: f64,
    alpha_cnp: bool,
    decrease_cnp: bool,
    first_cnp: bool,
    stage: u32,
    /// Pending timers: (due, order of scheduling).
    timers: [Option<(SimTime, u64)>; 3],
    scheduled: u64,
}

impl DcqcnMlx {
    pub(crate) fn new(cfg: &Ns3CcConfig, ctx: &FlowCtx) -> Self {
        let qp = Ns3Qp::new(cfg, ctx);
        DcqcnMlx {
            target: qp.max_rate,
            qp,
            g: cfg.ewma_gain,
            rai: cfg.rate_ai.bps(),
            rhai: cfg.rate_hai.bps(),
            min_rate: cfg.min_rate.bps(),
            fast_recovery: cfg.fast_recovery_times,
            clamp: cfg.clamp_target_rate,
            intervals: [
                cfg.alpha_resume_interval,
                cfg.rate_decrease_interval,
                cfg.rp_timer,
            ],
            alpha: 1.0,
            alpha_cnp: false,
            decrease_cnp: false,
            first_cnp: true,
            stage: 0,
            timers: [None; 3],
            scheduled: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }
    #[cfg(test)]
    pub(crate) fn target_rate(&self) -> u64 {
        self.target
    }

    fn schedule(&mut self, which: usize, at: SimTime) {
        self.timers[which] = Some((at, self.scheduled));
        self.scheduled += 1;
    }

    fn fire(&mut self, which: usize, now: SimTime) {
        let iv = self.intervals[which];
        match which {
            ALPHA => {
                self.alpha = if self.alpha_cnp {
                    (1.0 - self.g) * self.alpha + self.g
                } else {
                    (1.0 - self.g) * self.alpha
                };
                self.alpha_cnp = false;
                self.schedule(ALPHA, now + iv);
            }
            DECREASE => {
                self.schedule(DECREASE, now + iv);
                if self.decrease_cnp {
                    if self.clamp || self.stage != 0 {
                        self.target = self.qp.rate;
                    }
                    self.qp.rate = self
                        .min_rate
                        .max(rate_mul(self.qp.rate, 1.0 - self.alpha / 2.0));
                    self.stage = 0;
                    self.decrease_cnp = false;
                    let rp = self.intervals[RP];
                    self.schedule(RP, now + rp);
                }
            }
            _ => {
                self.schedule(RP, now + iv);
                let f = self.fast_recovery;
                if self.stage == f {
                    self.target = (self.target + self.rai).min(self.qp.max_rate);
                } else if self.stage > f {
                    self.target = (self.target + self.rhai).min(self.qp.max_rate);
                }
                self.qp.rate = self.qp.rate / 2 + self.target / 2;
                self.stage += 1;
            }
        }
    }
}

impl CongestionControl for DcqcnMlx {
    fn on_cnp(&mut self, now: SimTime) {
        self.alpha_cnp = true;
        self.decrease_cnp = true;
        if self.first_cnp {
            self.alpha = 1.0;
            self.alpha_cnp = false;
            self.schedule(ALPHA, now + self.intervals[ALPHA]);
            self.schedule(DECREASE, now + self.intervals[DECREASE] + Delta::from_ns(1));
            // RateOnFirstCnp = 1.0: R_T = R_C = R_C.
            self.qp.rate = rate_mul(self.qp.rate, 1.0);
            self.target = self.qp.rate;
            self.first_cnp = false;
        }
    }

    fn on_timer(&mut self, now: SimTime) {
        while let Some(which) = (0..3)
            .filter_map(|i| self.timers[i].filter(|t| t.0 <= now).map(|t| (t, i)))
            .min()
            .map(|(_, i)| i)
        {
            self.fire(which, now);
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        self.timers.iter().flatten().map(|t| t.0).min()
    }

    rate_and_window_of_qp!();
}

#[cfg(test)]
mod tests {
    use super::super::test_util::ctx;
    use super::*;
    use crate::units::Rate;

    fn us(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    fn run_to(d: &mut DcqcnMlx, until: SimTime) {
        while let Some(t) = d.next_timer().filter(|&t| t <= until) {
            d.on_timer(t);
        }
    }

    #[test]
    fn the_first_cnp_does_not_cut_and_the_cut_comes_at_the_decrease_tick() {
        let mut d = DcqcnMlx::new(&Ns3CcConfig::default(), &ctx());
        d.on_cnp(us(10));
        assert_eq!(d.rate(), Rate::from_gbps(100));
        // Alpha ticks at 11, 12, 13, 14 us decay alpha with no CNP in their slots;
        // the decrease tick at 14 us + 1 ns cuts by the decayed alpha / 2.
        run_to(&mut d, us(14) + Delta::from_ns(1));
        let g = 0.00390625;
        let alpha = (1.0f64 - g).powi(4);
        assert_eq!(d.alpha(), alpha);
        assert_eq!(d.rate(), Rate(rate_mul(100_000_000_000, 1.0 - alpha / 2.0)));
        assert_eq!(
            d.target_rate(),
            100_000_000_000,
            "stage 0, no clamp: R_T kept"
        );
    }

    #[test]
    fn recovery_halves_toward_the_target_then_adds_ai_then_hai() {
        let mut d = DcqcnMlx::new(&Ns3CcConfig::default(), &ctx());
        d.on_cnp(us(0));
        run_to(&mut d, us(4) + Delta::from_ns(1));
        let cut = d.rate().bps();
        let t = 100_000_000_000u64;
        // RP timer 900 us after the cut: stage 0 < F = 1: fast recovery.
        run_to(&mut d, us(904) + Delta::from_ns(1));
        let r1 = cut / 2 + t / 2;
        assert_eq!(d.rate().bps(), r1);
        // Stage 1 == F: R_T += 50 Mbps, capped at line rate.
        run_to(&mut d, us(1804) + Delta::from_ns(1));
        assert_eq!(d.rate().bps(), r1 / 2 + t / 2);
        assert_eq!(d.target_rate(), t);
    }

    #[test]
    fn the_rp_tick_fires_before_a_decrease_tick_due_at_the_same_instant() {
        let mut d = DcqcnMlx::new(&Ns3CcConfig::default(), &ctx());
        d.on_cnp(us(0));
        run_to(&mut d, us(902)); // cut at 4 us + 1 ns; rp due at 904 us + 1 ns
        d.on_cnp(us(902));
        // At 904 us + 1 ns both are due. RP (scheduled at the cut) goes first and
        // raises the stage to 1, so the decrease that follows clamps R_T = R_C.
        run_to(&mut d, us(904) + Delta::from_ns(1));
        let after_rp = d.target_rate();
        assert!(
            after_rp < 100_000_000_000,
            "R_T clamped to the recovered rate"
        );
    }
}
