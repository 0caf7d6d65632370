//! DCQCN reaction point (RP), as in DCQCN §3.1, Eq. (1)-(4) and the RP state
//! machine of Fig. 7 (which follows QCN, IEEE 802.1Qau).
//!
//! * On a CNP (Eq. 1): `R_T = R_C`, `R_C = R_C (1 - alpha/2)`, `alpha = (1-g) alpha + g`;
//!   the timer and byte-counter stages restart.
//! * With no CNP for `K` (the alpha timer, Eq. 2): `alpha = (1-g) alpha`. Computed in
//!   closed form at the next CNP (`alpha (1-g)^n` for `n` whole periods), which is
//!   exactly the periodic update without its events.
//! * Rate increase on every expiry of the rate-increase timer `T` or the byte
//!   counter `B` (counts `t`, `bc` since the last cut):
//!   - fast recovery while `max(t, bc) <= F` (F = 5 iterations, Eq. 3):
//!     `R_C = (R_T + R_C)/2`;
//!   - additive increase once one count exceeds F (Eq. 4): `R_T += R_AI`, then halve;
//!   - hyper increase once both exceed F: `R_T += i R_HAI` with `i = min(t, bc) - F`.
//!
//! Defaults are the DCQCN deployment table (Fig. 14) and §5 (Table 2): timer 55 us,
//! byte counter 10 MB, g = 1/256, alpha timer K = 55 us, F = 5, R_AI = 40 Mbps.
//! R_HAI is not in the paper; we use 10 R_AI, QCN's ratio. Flows start at line rate
//! with alpha = 1 (§3.1, footnote 1). The NP side (CNP at most once per 50 us per
//! flow) is in the NIC model.

use super::registry::{Algorithm, ParamError, checked};
use super::{CongestionControl, FlowCtx};
use crate::units::{Bytes, Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DcqcnConfig {
    /// EWMA gain for alpha (Eq. 1, 2). Fig. 14: 1/256.
    pub g: f64,
    /// Rate-increase timer period T. Fig. 14: 55 us.
    pub timer: Delta,
    /// Byte counter B. Fig. 14: 10 MB.
    pub byte_counter: Bytes,
    /// Alpha update interval K (tau' in Table 2). §3.1: 55 us.
    pub alpha_timer: Delta,
    /// Fast recovery iterations F. §3.1: 5.
    pub fast_recovery: u32,
    /// Additive increase step R_AI. Table 2: 40 Mbps.
    pub rate_ai: Rate,
    /// Hyper increase step R_HAI (not in the paper; QCN uses 10 x R_AI).
    pub rate_hai: Rate,
    /// Lower bound on the current rate.
    pub min_rate: Rate,
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        DcqcnConfig {
            g: 1.0 / 256.0,
            timer: Delta::from_us(55),
            byte_counter: Bytes(10_000_000),
            alpha_timer: Delta::from_us(55),
            fast_recovery: 5,
            rate_ai: Rate::from_mbps(40),
            rate_hai: Rate::from_mbps(400),
            min_rate: Rate::from_mbps(100),
        }
    }
}

impl DcqcnConfig {
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if !(self.g > 0.0 && self.g <= 1.0) {
            return bad("g", "must be in (0, 1], e.g. 0.00390625 (1/256)");
        }
        if self.timer.is_zero() {
            return bad("timer", "must be > 0, e.g. \"55us\"");
        }
        if self.alpha_timer.is_zero() {
            return bad("alpha_timer", "must be > 0, e.g. \"55us\"");
        }
        if self.byte_counter.0 == 0 {
            return bad("byte_counter", "must be > 0, e.g. \"10MB\"");
        }
        if self.min_rate.bps() == 0 {
            return bad("min_rate", "must be > 0, e.g. \"100Mbps\"");
        }
        Ok(())
    }
}

impl Algorithm for DcqcnConfig {
    type Flow = Dcqcn;
    type Table = DcqcnConfig;
    const NAMES: &'static [&'static str] = &["dcqcn"];
    fn resolve(_: &str, table: &DcqcnConfig) -> Result<Self, ParamError> {
        checked(table, DcqcnConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Dcqcn {
        Dcqcn::new(self.clone(), ctx)
    }
    fn uses_ecn(&self) -> bool {
        true
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(self.min_rate)
    }
}

#[derive(Clone, Debug)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line_bps: f64,
    /// Current rate R_C, bits/s.
    rc: f64,
    /// Target rate R_T, bits/s.
    rt: f64,
    /// `rc` as a [`Rate`], kept in step.
    rate: Rate,
    /// alpha as of `alpha_ref`.
    alpha: f64,
    alpha_ref: SimTime,
    /// Timer and byte-counter expiries since the last cut.
    t_count: u32,
    bc_count: u32,
    /// Bytes sent since the byte counter last expired.
    bytes: u64,
    /// Next rate-increase timer expiry; `None` before the first cut or at line rate.
    next_increase: Option<SimTime>,
}

impl Dcqcn {
    pub(crate) fn new(cfg: DcqcnConfig, ctx: &FlowCtx) -> Self {
        let line = ctx.line_rate.bps_f64();
        Dcqcn {
            cfg,
            line_bps: line,
            rc: line,
            rt: line,
            rate: ctx.line_rate,
            alpha: 1.0,
            alpha_ref: ctx.now,
            t_count: 0,
            bc_count: 0,
            bytes: 0,
            next_increase: None,
        }
    }

    /// alpha at `now`, with the Eq. (2) decay applied once per whole K since the
    /// last CNP.
    pub(crate) fn alpha_at(&self, now: SimTime) -> f64 {
        let periods = now.since(self.alpha_ref).ps() / self.cfg.alpha_timer.ps();
        self.alpha * (1.0 - self.cfg.g).powi(periods.min(i32::MAX as u64) as i32)
    }
    #[cfg(test)]
    pub(crate) fn target_rate(&self) -> Rate {
        Rate::from_bps_f64(self.rt)
    }

    fn increase(&mut self) {
        let f = self.cfg.fast_recovery;
        let (hi, lo) = (
            self.t_count.max(self.bc_count),
            self.t_count.min(self.bc_count),
        );
        if hi <= f {
            // Fast recovery, Eq. (3).
        } else if lo > f {
            let i = (lo - f) as f64;
            self.rt += i * self.cfg.rate_hai.bps_f64();
        } else {
            self.rt += self.cfg.rate_ai.bps_f64();
        }
        self.rt = self.rt.min(self.line_bps);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line_bps);
        self.rate = Rate::from_bps_f64(self.rc);
    }

    fn at_line_rate(&self) -> bool {
        self.rc >= self.line_bps && self.rt >= self.line_bps
    }
}

impl CongestionControl for Dcqcn {
    fn on_cnp(&mut self, now: SimTime) {
        let alpha = self.alpha_at(now);
        // Eq. (1), in order: remember the rate, cut with the current alpha, update alpha.
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - alpha / 2.0)).max(self.cfg.min_rate.bps_f64());
        self.rate = Rate::from_bps_f64(self.rc);
        self.alpha = (1.0 - self.cfg.g) * alpha + self.cfg.g;
        self.alpha_ref = now;
        self.t_count = 0;
        self.bc_count = 0;
        self.bytes = 0;
        self.next_increase = Some(now + self.cfg.timer);
    }

    fn on_send(&mut self, _now: SimTime, wire_bytes: u64) {
        if self.next_increase.is_none() {
            return; // not rate limited: nothing to recover
        }
        self.bytes += wire_bytes;
        if self.bytes >= self.cfg.byte_counter.0 {
            self.bytes -= self.cfg.byte_counter.0;
            self.bc_count += 1;
            self.increase();
            if self.at_line_rate() {
                self.next_increase = None;
            }
        }
    }

    fn on_timer(&mut self, now: SimTime) {
        let Some(at) = self.next_increase else {
            return;
        };
        if now < at {
            return;
        }
        self.t_count += 1;
        self.increase();
        self.next_increase = if self.at_line_rate() {
            None
        } else {
            Some(at + self.cfg.timer)
        };
    }

    fn next_timer(&self) -> Option<SimTime> {
        self.next_increase
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::flow_ctx;

    fn ctx(line_gbps: u64) -> FlowCtx {
        flow_ctx(line_gbps, 5, 5)
    }

    #[test]
    fn first_cnp_halves_the_rate_because_alpha_starts_at_one() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), &ctx(40));
        d.on_cnp(SimTime(0));
        // Eq. (1) with alpha = 1: R_C = 40 (1 - 1/2) = 20 Gbps; R_T = 40 Gbps.
        assert_eq!(d.rate(), Rate::from_gbps(20));
        assert_eq!(d.target_rate(), Rate::from_gbps(40));
        // alpha = (1 - 1/256) * 1 + 1/256 = 1.
        assert!((d.alpha_at(SimTime(0)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn alpha_decays_once_per_quiet_period() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), &ctx(40));
        d.on_cnp(SimTime(0));
        let k = Delta::from_us(55);
        let g: f64 = 1.0 / 256.0;
        assert!((d.alpha_at(SimTime(0) + k.times(3)) - (1.0 - g).powi(3)).abs() < 1e-12);
        // Just short of the first period: no decay yet.
        assert_eq!(d.alpha_at(SimTime(k.ps() - 1)), 1.0);
        // Second CNP after 2 periods: cut with alpha = (1-g)^2, then alpha = (1-g)a + g.
        let t = SimTime(0) + k.times(2);
        let a = (1.0 - g).powi(2);
        d.on_cnp(t);
        let expect_rc = 20e9 * (1.0 - a / 2.0);
        assert!((d.rate().bps_f64() - expect_rc).abs() < 2.0);
        assert!((d.alpha_at(t) - ((1.0 - g) * a + g)).abs() < 1e-12);
    }

    #[test]
    fn timer_drives_five_fast_recovery_steps_then_additive_increase() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), &ctx(40));
        d.on_cnp(SimTime(0));
        let (mut rc, rt) = (20e9, 40e9);
        let mut t = SimTime(0);
        for _ in 0..5 {
            t = d.next_timer().unwrap();
            d.on_timer(t);
            rc = (rc + rt) / 2.0; // Eq. (3)
            assert!((d.rate().bps_f64() - rc).abs() < 1.0);
        }
        assert_eq!(d.target_rate(), Rate::from_gbps(40));
        // Sixth expiry: additive increase, R_T would exceed line rate so it is capped.
        d.on_timer(d.next_timer().unwrap());
        assert_eq!(d.target_rate(), Rate::from_gbps(40));
        assert!(t > SimTime(0));
    }

    #[test]
    fn additive_increase_raises_the_target_by_r_ai() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), &ctx(40));
        d.on_cnp(SimTime(0));
        d.on_cnp(SimTime(1)); // R_T = 20G, R_C = 20G (1 - 1/2) = 10G
        assert_eq!(d.target_rate(), Rate::from_gbps(20));
        for _ in 0..5 {
            d.on_timer(d.next_timer().unwrap());
        }
        let rc_before = d.rate().bps_f64();
        d.on_timer(d.next_timer().unwrap());
        // Eq. (4): R_T = 20G + 40M, R_C = (R_T + R_C)/2.
        assert_eq!(d.target_rate(), Rate::from_bps(20_040_000_000));
        assert!((d.rate().bps_f64() - (20.04e9 + rc_before) / 2.0).abs() < 1.0);
    }

    #[test]
    fn byte_counter_expiries_count_toward_hyper_increase() {
        let cfg = DcqcnConfig {
            byte_counter: Bytes(1000),
            ..DcqcnConfig::default()
        };
        let mut d = Dcqcn::new(cfg, &ctx(40));
        d.on_cnp(SimTime(0));
        d.on_cnp(SimTime(1)); // R_T = 20G
        // Both counters past F = 5: timer 7 times, byte counter 7 times.
        for _ in 0..7 {
            d.on_timer(d.next_timer().unwrap());
        }
        let rt_before = d.target_rate().bps();
        for _ in 0..7 {
            d.on_send(SimTime(1), 1000);
        }
        // bc = 6: min(t=7, bc=6) = 6 > 5 -> hyper with i = 1; bc = 7 -> i = 2.
        // bc = 1..5 with t = 7: additive (one count above F).
        let expect = rt_before + 5 * 40_000_000 + 400_000_000 + 2 * 400_000_000;
        assert_eq!(d.target_rate().bps(), expect.min(40_000_000_000));
    }

    #[test]
    fn rate_never_drops_below_the_minimum() {
        let mut d = Dcqcn::new(DcqcnConfig::default(), &ctx(40));
        for i in 0..100 {
            d.on_cnp(SimTime(i));
        }
        assert_eq!(d.rate(), Rate::from_mbps(100));
    }
}
