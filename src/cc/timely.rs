//! TIMELY: RTT-gradient rate control (Mittal et al., SIGCOMM'15, §4-§5,
//! Algorithm 1), rate-based, one update per completion event.
//!
//! Per completion event with RTT sample `rtt` (Algorithm 1):
//!
//! * `new_rtt_diff = rtt - prev_rtt`, `prev_rtt = rtt`;
//! * `rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff` (EWMA of the gradient);
//! * `normalized_gradient = rtt_diff / minRTT`;
//! * `rtt < T_low`: `rate += delta` (additive increase);
//! * `rtt > T_high`: `rate *= 1 - beta (1 - T_high / rtt)`;
//! * else if `normalized_gradient <= 0`: `rate += N delta`, with `N = 5` once the
//!   gradient has been negative for five completion events in a row (hyper-additive
//!   increase, "HAI mode"), `N = 1` otherwise;
//! * else `rate *= 1 - beta normalized_gradient`.
//!
//! Defaults, all from the TIMELY paper as HPCC §5.1 uses them ("for TIMELY, we use
//! the parameters suggested in [31]", the values of the HPCC authors' simulator,
//! ../shared/reference/hpcc-ns3-model.md §8): `T_low` = 50 us, `T_high` = 500 us,
//! multiplicative factor `beta` = 0.8, EWMA weight `alpha` = 0.875, `minRTT` =
//! 20 us, HAI after `N` = 5 negative gradients with a step of 5 `delta`. The
//! additive step `delta` = 10 Mbps is for the paper's 10 Gbps NICs; by default it
//! scales with the line rate, 10 Mbps per 10 Gbps, as the authors' public code
//! (people.eecs.berkeley.edu/~radhika/timely-code-snippet.cc: "additiveIncrement:
//! 10Mbps for 10Gbps line rate") says; at 100 Gbps a fixed 10 Mbps would take
//! tens of ms to refill a link after a cut. (That code recommends other values
//! for per-packet pacing, EWMA 0.02, `T_low` = 0, `T_high` = 1 ms; a scenario can
//! set them.) Flows start at line rate, like every RDMA controller here.
//!
//! **Completion events.** TIMELY takes one RTT sample per completion of a segment
//! (16-64 KB in the paper, §5) and its `delta` and `beta` are calibrated per such
//! event. Our NIC acknowledges every packet, so we make a completion event of every
//! `segment` bytes acknowledged (default 16 KB, the paper's smallest segment) and
//! sample the RTT of the ACK that completes it; reacting to every 1 KB ACK would
//! apply `delta` and the gradient step 16-64 times as often as the paper does. The
//! RTT is `now - sent_at` of the acknowledged (last) packet of the segment: for
//! that packet the segment's own serialization, which TIMELY subtracts, is already
//! excluded. NACKs carry no sample. `rate` stays within `[min_rate, line rate]`.

use super::registry::{Algorithm, ParamError, checked};
use super::{AckInfo, CongestionControl, FlowCtx};
use crate::units::{Bytes, Delta, Rate};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimelyConfig {
    /// Below this RTT: additive increase. TIMELY: 50 us.
    pub t_low: Delta,
    /// Above this RTT: multiplicative decrease. TIMELY: 500 us.
    pub t_high: Delta,
    /// Additive increase step delta; omitted = 10 Mbps per 10 Gbps of line rate
    /// (TIMELY: 10 Mbps at 10 Gbps).
    pub delta: Option<Rate>,
    /// Multiplicative decrease factor beta. TIMELY: 0.8.
    pub beta: f64,
    /// EWMA weight of a new RTT difference. TIMELY: 0.875.
    pub alpha: f64,
    /// minRTT that normalizes the gradient. TIMELY: 20 us.
    pub min_rtt: Delta,
    /// Consecutive negative gradients before hyper-additive increase. TIMELY: 5.
    pub hai_after: u32,
    /// The hyper-additive step, in units of delta. TIMELY: N = 5.
    pub hai_factor: u32,
    /// Bytes acknowledged per completion event. TIMELY §5: 16-64 KB; 16 KB.
    pub segment: Bytes,
    /// Floor on the rate.
    pub min_rate: Rate,
}

impl Default for TimelyConfig {
    fn default() -> Self {
        TimelyConfig {
            t_low: Delta::from_us(50),
            t_high: Delta::from_us(500),
            delta: None,
            beta: 0.8,
            alpha: 0.875,
            min_rtt: Delta::from_us(20),
            hai_after: 5,
            hai_factor: 5,
            segment: Bytes(16_000),
            min_rate: Rate::from_mbps(100),
        }
    }
}

impl TimelyConfig {
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if self.t_low >= self.t_high {
            return bad("t_low", "must be below t_high, e.g. \"50us\" and \"500us\"");
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return bad("beta", "must be in (0, 1], e.g. 0.8");
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return bad("alpha", "must be in (0, 1], e.g. 0.875");
        }
        if self.min_rtt.is_zero() {
            return bad("min_rtt", "must be > 0, e.g. \"20us\"");
        }
        if self.segment.0 == 0 {
            return bad("segment", "must be > 0 bytes, e.g. \"16KB\"");
        }
        if self.hai_factor == 0 {
            return bad("hai_factor", "must be >= 1 (N = 5 in TIMELY)");
        }
        if self.min_rate.bps() == 0 {
            return bad("min_rate", "must be > 0, e.g. \"100Mbps\"");
        }
        Ok(())
    }
}

impl Algorithm for TimelyConfig {
    type Flow = Timely;
    type Table = TimelyConfig;
    const NAMES: &'static [&'static str] = &["timely"];
    fn resolve(_: &str, table: &TimelyConfig) -> Result<Self, ParamError> {
        checked(table, TimelyConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Timely {
        Timely::new(self.clone(), ctx)
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(self.min_rate)
    }
}

#[derive(Clone, Debug)]
pub struct Timely {
    cfg: TimelyConfig,
    line_bps: f64,
    /// The additive step, bits/s.
    delta: f64,
    /// Current rate, bits/s, and the same as a [`Rate`].
    rate_bps: f64,
    rate: Rate,
    /// Last RTT sample and the EWMA of RTT differences, seconds.
    prev_rtt: Option<f64>,
    rtt_diff: f64,
    /// Consecutive completion events with a negative gradient.
    neg_gradients: u32,
    /// Bytes acknowledged since the last completion event.
    acked: u64,
    events: u64,
}

impl Timely {
    pub(crate) fn new(cfg: TimelyConfig, ctx: &FlowCtx) -> Self {
        let line = ctx.line_rate.bps_f64();
        Timely {
            delta: cfg.delta.map_or(line * 1e-3, |d| d.bps_f64()),
            cfg,
            line_bps: line,
            rate_bps: line,
            rate: ctx.line_rate,
            prev_rtt: None,
            rtt_diff: 0.0,
            neg_gradients: 0,
            acked: 0,
            events: 0,
        }
    }

    /// The EWMA of RTT differences over minRTT.
    #[cfg(test)]
    pub(crate) fn normalized_gradient(&self) -> f64 {
        self.rtt_diff / self.cfg.min_rtt.as_secs_f64()
    }
    /// Completion events so far.
    #[cfg(test)]
    pub(crate) fn completion_events(&self) -> u64 {
        self.events
    }

    /// Algorithm 1 for one completion event with RTT `rtt` (seconds).
    pub(crate) fn on_completion(&mut self, rtt: f64) {
        let c = &self.cfg;
        self.events += 1;
        let prev = self.prev_rtt.unwrap_or(rtt);
        self.prev_rtt = Some(rtt);
        self.rtt_diff = (1.0 - c.alpha) * self.rtt_diff + c.alpha * (rtt - prev);
        let g = self.rtt_diff / c.min_rtt.as_secs_f64();
        self.neg_gradients = if g < 0.0 { self.neg_gradients + 1 } else { 0 };
        let delta = self.delta;
        let r = self.rate_bps;
        let new = if rtt < c.t_low.as_secs_f64() {
            r + delta
        } else if rtt > c.t_high.as_secs_f64() {
            r * (1.0 - c.beta * (1.0 - c.t_high.as_secs_f64() / rtt))
        } else if g <= 0.0 {
            let n = if self.neg_gradients >= c.hai_after {
                c.hai_factor
            } else {
                1
            };
            r + n as f64 * delta
        } else {
            r * (1.0 - c.beta * g)
        };
        self.rate_bps = new.clamp(c.min_rate.bps_f64(), self.line_bps);
        self.rate = Rate::from_bps_f64(self.rate_bps);
    }
}

impl CongestionControl for Timely {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        if ack.is_nack || ack.newly_acked == 0 {
            return;
        }
        self.acked += ack.newly_acked;
        if self.acked < self.cfg.segment.0 {
            return;
        }
        self.acked %= self.cfg.segment.0;
        self.on_completion(ack.rtt().as_secs_f64());
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{delay_ack, flow_ctx};
    use crate::units::SimTime;

    fn ctx() -> FlowCtx {
        flow_ctx(100, 5, 5)
    }

    fn ack(sent_us: u64, now_us: u64, newly: u64) -> AckInfo<'static> {
        let us = |t: u64| SimTime(t * 1_000_000);
        delay_ack(us(now_us), us(sent_us), newly)
    }

    #[test]
    fn one_sample_per_segment_of_acknowledged_bytes() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        for _ in 0..15 {
            t.on_ack(&ack(0, 10, 1000));
        }
        assert_eq!(t.completion_events(), 0);
        t.on_ack(&ack(0, 10, 1000));
        assert_eq!(t.completion_events(), 1);
    }

    #[test]
    fn below_t_low_the_rate_grows_by_delta() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        t.on_completion(100e-6); // 100 us: gradient region, first sample g = 0
        let r0 = t.rate().bps_f64();
        assert_eq!(r0, 100e9, "g = 0 increases, capped at line rate");
        // Pull the rate down, then check the T_low branch adds exactly delta.
        t.on_completion(400e-6); // big positive gradient: cut
        let r1 = t.rate().bps_f64();
        assert!(r1 < r0);
        t.on_completion(10e-6);
        // delta = 10 Mbps per 10 Gbps: 100 Mbps at 100 Gbps.
        assert!((t.rate().bps_f64() - (r1 + 100e6)).abs() < 1.0);
    }

    #[test]
    fn an_explicit_delta_is_used_as_is() {
        let cfg = TimelyConfig {
            delta: Some(Rate::from_mbps(10)),
            ..TimelyConfig::default()
        };
        let mut t = Timely::new(cfg, &ctx());
        t.on_completion(400e-6);
        t.on_completion(900e-6); // cut
        let r = t.rate().bps_f64();
        t.on_completion(10e-6);
        assert!((t.rate().bps_f64() - (r + 10e6)).abs() < 1.0);
    }

    #[test]
    fn a_positive_gradient_cuts_by_beta_times_the_gradient() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        t.on_completion(100e-6);
        // +10 us: rtt_diff = 0.875 x 10 us; g = 8.75/20 = 0.4375; cut by 0.8 g = 35 %.
        t.on_completion(110e-6);
        let expect = 100e9 * (1.0 - 0.8 * 0.4375);
        assert!((t.rate().bps_f64() - expect).abs() < 1.0);
        assert!((t.normalized_gradient() - 0.4375).abs() < 1e-9);
    }

    #[test]
    fn above_t_high_the_cut_depends_on_the_rtt_only() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        t.on_completion(1000e-6);
        // 1 - 0.8 (1 - 500/1000) = 0.6.
        assert!((t.rate().bps_f64() - 60e9).abs() < 1.0);
    }

    #[test]
    fn five_negative_gradients_switch_to_hyper_additive_increase() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        t.on_completion(450e-6);
        t.on_completion(490e-6); // cut hard
        let mut rtt = 480e-6;
        let mut steps = Vec::new();
        for _ in 0..7 {
            // Falling RTTs keep the EWMA gradient negative after a few samples.
            let before = t.rate().bps_f64();
            t.on_completion(rtt);
            steps.push(t.rate().bps_f64() - before);
            rtt -= 20e-6;
        }
        // Once the gradient has been negative 5 times in a row the step is 5 delta.
        let hai = steps.iter().filter(|&&s| (s - 500e6).abs() < 1.0).count();
        let ai = steps.iter().filter(|&&s| (s - 100e6).abs() < 1.0).count();
        assert!(hai >= 2 && ai >= 1, "{steps:?}");
        let first_hai = steps.iter().position(|&s| (s - 500e6).abs() < 1.0).unwrap();
        assert!(steps[..first_hai].iter().all(|&s| s <= 100e6 + 1.0));
    }

    #[test]
    fn the_rate_stays_between_the_floor_and_line_rate() {
        let mut t = Timely::new(TimelyConfig::default(), &ctx());
        t.on_completion(100e-6);
        // A gradient of 0.875 x 300/20 = 13: 1 - 0.8 g < 0, floored.
        t.on_completion(400e-6);
        assert_eq!(t.rate(), Rate::from_mbps(100));
        for _ in 0..20_000 {
            t.on_completion(1e-6);
        }
        assert_eq!(t.rate(), Rate::from_gbps(100));
    }
}
