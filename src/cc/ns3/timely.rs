//! `timely-ns3`: the HPCC ns-3 simulator's TIMELY (CC_MODE 7; hpcc-ns3-model.md
//! §8, rdma-hw.cc `UpdateRateTimely`).
//!
//! The data packet carries the time the sender NIC put it on the wire (an 8-byte
//! INT area, so a 1000 B payload is 1056 B on the wire); `rtt` = ACK arrival minus
//! that time. Only ACKs with `seq > lastUpdateSeq` act (about once per window);
//! the first of them just stores `lastRtt`. Each update:
//! 1. `diff = (1 - a) diff + a (rtt - lastRtt)`, a = 0.875; `g = diff / MinRtt`;
//! 2. `rtt < T_low`: increase; `rtt > T_high`: `R = R_c (1 - b (1 - T_high/rtt))`;
//!    `g <= 0`: increase; else `R = R_c max(0, 1 - b g)`; decreases floor at
//!    MIN_RATE;
//! 3. an increase adds RATE_AI while the stage is below 5, RATE_HAI after, capped
//!    at line rate, and counts a stage (a decrease resets it);
//! 4. `R_c = R`, `lastUpdateSeq = snd_nxt`, `lastRtt = rtt`.
//!
//! The rate is assigned directly: no re-spacing of the next packet.

use super::{Ns3CcConfig, Ns3Qp, rate_and_window_of_qp, rate_mul};
use crate::cc::{AckInfo, CongestionControl, FlowCtx};

#[derive(Clone, Debug)]
pub struct TimelyNs3 {
    qp: Ns3Qp,
    alpha: f64,
    beta: f64,
    t_low: u64,
    t_high: u64,
    min_rtt: u64,
    rai: u64,
    rhai: u64,
    min_rate: u64,
    cur_rate: u64,
    inc_stage: u32,
    last_update_seq: u64,
    last_rtt: u64,
    rtt_diff: f64,
}

impl TimelyNs3 {
    pub(crate) fn new(cfg: &Ns3CcConfig, ctx: &FlowCtx) -> Self {
        let qp = Ns3Qp::new(cfg, ctx);
        TimelyNs3 {
            cur_rate: qp.max_rate,
            qp,
            alpha: cfg.timely_alpha,
            beta: cfg.timely_beta,
            t_low: cfg.timely_t_low.as_ns(),
            t_high: cfg.timely_t_high.as_ns(),
            min_rtt: cfg.timely_min_rtt.as_ns(),
            rai: cfg.rate_ai.bps(),
            rhai: cfg.rate_hai.bps(),
            min_rate: cfg.min_rate.bps(),
            inc_stage: 0,
            last_update_seq: 0,
            last_rtt: 0,
            rtt_diff: 0.0,
        }
    }
}

impl CongestionControl for TimelyNs3 {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        if ack.seq <= self.last_update_seq {
            return; // ns-3's fast reaction for TIMELY is empty
        }
        let rtt = ack.rtt().as_ns();
        if self.last_update_seq != 0 {
            let new_diff = rtt as i64 - self.last_rtt as i64;
            let diff = (1.0 - self.alpha) * self.rtt_diff + self.alpha * new_diff as f64;
            let gradient = diff / self.min_rtt as f64;
            let mut c = 0.0;
            let inc = if rtt < self.t_low {
                true
            } else if rtt > self.t_high {
                c = 1.0 - self.beta * (1.0 - self.t_high as f64 / rtt as f64);
                false
            } else if gradient <= 0.0 {
                true
            } else {
                c = (1.0 - self.beta * gradient).max(0.0);
                false
            };
            if inc {
                let step = if self.inc_stage < 5 {
                    self.rai
                } else {
                    self.rhai
                };
                self.qp.rate = (self.cur_rate + step).min(self.qp.max_rate);
                self.inc_stage += 1;
            } else {
                self.qp.rate = self.min_rate.max(rate_mul(self.cur_rate, c));
                self.inc_stage = 0;
            }
            self.cur_rate = self.qp.rate;
            self.rtt_diff = diff;
        }
        if ack.snd_nxt > self.last_update_seq {
            self.last_update_seq = ack.snd_nxt;
            self.last_rtt = rtt;
        }
    }

    rate_and_window_of_qp!();
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ack, ctx};
    use super::*;
    use crate::cc::AckInfo;
    use crate::units::Rate;
    use crate::units::SimTime;

    fn timed(now_us: u64, rtt_us: u64, seq: u64, snd_nxt: u64) -> AckInfo<'static> {
        AckInfo {
            data_sent_at: SimTime((now_us - rtt_us) * 1_000_000),
            ..ack(now_us * 1000, seq, snd_nxt, &[])
        }
    }

    #[test]
    fn low_rtts_add_rate_ai_five_times_then_rate_hai() {
        let mut t = TimelyNs3::new(&Ns3CcConfig::default(), &ctx());
        let mut q = TimelyNs3 {
            cur_rate: 50_000_000_000,
            ..t.clone()
        };
        q.qp.rate = q.cur_rate;
        t = q;
        t.on_ack(&timed(10, 5, 1000, 10_000)); // stores lastRtt only
        assert_eq!(t.rate(), Rate::from_gbps(50));
        let mut seq = 10_000;
        for i in 1..=7u64 {
            t.on_ack(&timed(10 + i * 10, 5, seq + 1, seq + 10_000));
            seq += 10_000;
            let expect = 50_000 + 50 * i.min(5) + 100 * i.saturating_sub(5);
            assert_eq!(t.rate(), Rate::from_mbps(expect), "step {i}");
        }
    }

    #[test]
    fn rtts_above_t_high_cut_by_beta_times_the_excess() {
        let mut t = TimelyNs3::new(&Ns3CcConfig::default(), &ctx());
        t.on_ack(&timed(1000, 600, 1000, 10_000));
        t.on_ack(&timed(2000, 1000, 10_001, 20_000));
        // c = 1 - 0.8 (1 - 500/1000) = 0.6.
        assert_eq!(t.rate(), Rate::from_gbps(60));
    }

    #[test]
    fn a_rising_rtt_between_the_thresholds_cuts_by_the_gradient() {
        let mut t = TimelyNs3::new(&Ns3CcConfig::default(), &ctx());
        t.on_ack(&timed(1000, 100, 1000, 10_000));
        t.on_ack(&timed(2000, 110, 10_001, 20_000));
        // diff = 0.875 x 10 us; g = 8.75 / 20; c = 1 - 0.8 g = 0.65.
        let c: f64 = 1.0 - 0.8 * (0.875 * 10_000.0 / 20_000.0);
        assert_eq!(t.rate(), Rate((100e9 * c) as u64));
    }
}
