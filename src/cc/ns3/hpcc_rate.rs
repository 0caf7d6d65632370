//! `hpcc-ns3`: the HPCC ns-3 simulator's rate-based HPCC (CC_MODE 3;
//! hpcc-ns3-model.md §7, rdma-hw.cc `HandleAckHp`/`UpdateRateHp`).
//!
//! * An ACK with `seq > lastUpdateSeq` does a full update; any other ACK a fast
//!   reaction when FAST_REACT = 1 (and nothing otherwise, not even storing its INT).
//! * The first ACK only stores the INT records and sets `lastUpdateSeq = snd_nxt`.
//! * Per hop: `tau` = time delta (24-bit), `txRate = dBytes x 8 / tau`,
//!   `u = txRate / B + min(qlen, qlen_prev) x line / B / m_win`; the stored hop is
//!   then replaced (fast reactions too). SAMPLE_FEEDBACK skips empty-queue hops in
//!   fast reactions.
//! * MULTI_RATE = 0: `U` is the largest `u` with its `tau`, `tau <= T`,
//!   `Ubar = (Ubar (T - tau) + U tau) / T` on every ACK (Ubar starts at 1),
//!   `k = Ubar / U_TARGET`; `R = R_c / k + RATE_AI` (stage 0) if `k >= 1` or
//!   `stage >= MI_THRESH`, else `R = R_c + RATE_AI` (stage + 1); clamp to
//!   [MIN_RATE, line]; `ChangeRate(R)`; only full updates commit `R_c` and stage.
//! * MULTI_RATE = 1: the same per hop with its own `Ubar_i`, `R_c,i`, stage; the
//!   rate is the least of the updated hops' new rates and the other hops' `R_c,i`.
//!
//! The rate is the controlled variable; the window follows it (`W = m_win R /
//! line`, see [`super::Ns3Qp`]). `ChangeRate` re-spaces the next packet, which
//! the NIC does for this algorithm (`CcKind::repace_on_rate_change`).

use super::{Ns3CcConfig, Ns3Qp, rate_and_window_of_qp, rate_div};
use crate::cc::{AckInfo, CongestionControl, FlowCtx};
use crate::packet::{IntHop, MAX_INT_HOPS};

/// INT time fields are 24 bits wide (int-header.h).
const TIME_MASK: u64 = (1 << 24) - 1;

#[derive(Clone, Copy, Debug)]
struct HopState {
    u: f64,
    rc: u64,
    inc_stage: u32,
}

#[derive(Clone, Debug)]
pub struct HpccRate {
    qp: Ns3Qp,
    target_util: f64,
    mi_thresh: u32,
    fast_react: bool,
    multi_rate: bool,
    sample_feedback: bool,
    rai: u64,
    min_rate: u64,
    /// `hp.m_curRate` (R_c), bit/s.
    cur_rate: u64,
    inc_stage: u32,
    /// `hp.u` (Ubar).
    u: f64,
    last_update_seq: u64,
    hops: [IntHop; MAX_INT_HOPS],
    hop_state: [HopState; MAX_INT_HOPS],
}

impl HpccRate {
    pub(crate) fn new(cfg: &Ns3CcConfig, ctx: &FlowCtx) -> Self {
        let qp = Ns3Qp::new(cfg, ctx);
        let line = qp.max_rate;
        HpccRate {
            qp,
            target_util: cfg.u_target,
            mi_thresh: cfg.mi_thresh,
            fast_react: cfg.fast_react,
            multi_rate: cfg.multi_rate,
            sample_feedback: cfg.sample_feedback,
            rai: cfg.rate_ai.bps(),
            min_rate: cfg.min_rate.bps(),
            cur_rate: line,
            inc_stage: 0,
            u: 1.0,
            last_update_seq: 0,
            hops: [IntHop::default(); MAX_INT_HOPS],
            hop_state: [HopState {
                u: 1.0,
                rc: line,
                inc_stage: 0,
            }; MAX_INT_HOPS],
        }
    }

    /// Ubar, for tests and traces.
    #[cfg(test)]
    pub(crate) fn utilization(&self) -> f64 {
        self.u
    }
    /// R_c in bit/s.
    #[cfg(test)]
    pub(crate) fn reference_rate(&self) -> u64 {
        self.cur_rate
    }

    fn bound(&self, r: u64) -> u64 {
        r.max(self.min_rate).min(self.qp.max_rate)
    }

    fn update(&mut self, ack: &AckInfo<'_>, fast: bool) {
        let next_seq = ack.snd_nxt;
        let int = ack.int;
        if self.last_update_seq == 0 {
            // First RTT: only remember the path's INT.
            self.last_update_seq = next_seq;
            self.hops[..int.len()].copy_from_slice(int);
            return;
        }
        let t = self.qp.base_rtt_ns;
        let mut big_u = 0.0f64;
        let mut dt = 0u64;
        let mut updated = [false; MAX_INT_HOPS];
        let mut any = false;
        for (i, new) in int.iter().enumerate() {
            if self.sample_feedback && new.qlen == 0 && fast {
                continue;
            }
            updated[i] = true;
            any = true;
            let old = &self.hops[i];
            let tau = new.ts.as_ns().wrapping_sub(old.ts.as_ns()) & TIME_MASK;
            let duration = tau as f64 * 1e-9;
            let tx_rate = new.bytes.wrapping_sub(old.bytes).wrapping_mul(8) as f64 / duration;
            let line = new.rate.bps() as f64;
            let u = tx_rate / line
                + new.qlen.min(old.qlen) as f64 * self.qp.max_rate as f64
                    / line
                    / self.qp.win as f64;
            if !self.multi_rate {
                if u > big_u {
                    big_u = u;
                    dt = tau;
                }
            } else {
                let tau = tau.min(t);
                let hs = &mut self.hop_state[i];
                hs.u = (hs.u * (t - tau) as f64 + u * tau as f64) / t as f64;
            }
            self.hops[i] = *new;
        }
        if !self.multi_rate {
            if any {
                let dt = dt.min(t);
                self.u = (self.u * (t - dt) as f64 + big_u * dt as f64) / t as f64;
                let max_c = self.u / self.target_util;
                let (r, stage) = if max_c >= 1.0 || self.inc_stage >= self.mi_thresh {
                    (rate_div(self.cur_rate, max_c) + self.rai, 0)
                } else {
                    (self.cur_rate + self.rai, self.inc_stage + 1)
                };
                let r = self.bound(r);
                self.qp.rate = r;
                if !fast {
                    self.cur_rate = r;
                    self.inc_stage = stage;
                }
            }
        } else {
            let mut new_rate = self.qp.max_rate;
            let mut per_hop = [(0u64, 0u32); MAX_INT_HOPS];
            for i in 0..int.len() {
                let hs = self.hop_state[i];
                if updated[i] {
                    let c = hs.u / self.target_util;
                    let (r, stage) = if c >= 1.0 || hs.inc_stage >= self.mi_thresh {
                        (rate_div(hs.rc, c) + self.rai, 0)
                    } else {
                        (hs.rc + self.rai, hs.inc_stage + 1)
                    };
                    let r = self.bound(r);
                    per_hop[i] = (r, stage);
                    new_rate = new_rate.min(r);
                } else {
                    new_rate = new_rate.min(hs.rc);
                }
            }
            if any {
                self.qp.rate = new_rate;
                if !fast {
                    self.cur_rate = new_rate;
                    for i in 0..int.len() {
                        if updated[i] {
                            self.hop_state[i].rc = per_hop[i].0;
                            self.hop_state[i].inc_stage = per_hop[i].1;
                        }
                    }
                }
            }
        }
        if !fast && next_seq > self.last_update_seq {
            self.last_update_seq = next_seq;
        }
    }
}

impl CongestionControl for HpccRate {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        // ns-3 skips every update on paths of more than 5 switches.
        if ack.int.len() > MAX_INT_HOPS {
            return;
        }
        if ack.seq > self.last_update_seq {
            self.update(ack, false);
        } else if self.fast_react {
            self.update(ack, true);
        }
    }

    rate_and_window_of_qp!();
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ack, ctx};
    use super::*;
    use crate::cc::test_util::hop;
    use crate::units::Rate;

    fn hpcc() -> HpccRate {
        HpccRate::new(&Ns3CcConfig::default(), &ctx())
    }

    #[test]
    fn the_first_ack_only_records_int_and_the_flow_starts_at_line_rate() {
        let mut h = hpcc();
        assert_eq!(h.rate(), Rate::from_gbps(100));
        assert_eq!(h.window(), Some(52_000));
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(2000, 0, 0)]));
        assert_eq!(h.rate(), Rate::from_gbps(100));
        assert_eq!(h.utilization(), 1.0);
    }

    #[test]
    fn a_fast_reaction_moves_the_rate_but_not_the_reference_rate() {
        let mut h = hpcc();
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(2000, 0, 0)]));
        // 1024 B (8 units of 128) in 87 ns: u = 1024 x 8 / 87e-9 / 100e9.
        h.on_ack(&ack(4275, 2000, 49_000, &[hop(2087, 1024, 0)]));
        let u = 1024.0 * 8.0 / (87.0 * 1e-9) / 100e9;
        let ubar = (4160.0 - 87.0 + u * 87.0) / 4160.0;
        assert_eq!(h.utilization(), ubar);
        let expect = (100e9 / (ubar / 0.95)) as u64 + 50_000_000;
        assert_eq!(h.rate(), Rate(expect));
        assert_eq!(h.reference_rate(), 100_000_000_000);
        // The window follows the rate: 52000 x R / line.
        assert_eq!(
            h.window(),
            Some((52_000u128 * expect as u128 / 100_000_000_000) as u64)
        );
    }

    #[test]
    fn a_full_update_commits_the_rate_and_moves_last_update_seq() {
        let mut h = hpcc();
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(2000, 0, 0)]));
        h.on_ack(&ack(9000, 48_001, 60_000, &[hop(6160, 52_000, 0)]));
        assert_eq!(h.reference_rate(), h.rate().bps());
        // An ACK below lastUpdateSeq = 60000 is a fast reaction from the new R_c.
        let rc = h.reference_rate();
        h.on_ack(&ack(9087, 49_001, 61_000, &[hop(6247, 53_024, 0)]));
        assert_eq!(h.reference_rate(), rc);
    }

    #[test]
    fn without_fast_react_acks_inside_the_rtt_change_nothing() {
        let mut h = HpccRate::new(
            &Ns3CcConfig {
                fast_react: false,
                ..Ns3CcConfig::default()
            },
            &ctx(),
        );
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(2000, 0, 0)]));
        h.on_ack(&ack(4275, 2000, 49_000, &[hop(2087, 1024, 80_000)]));
        assert_eq!(h.rate(), Rate::from_gbps(100));
        assert_eq!(h.utilization(), 1.0);
    }

    #[test]
    fn a_queue_of_one_bdp_halves_the_rate_in_one_full_update() {
        let mut h = hpcc();
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(0, 0, 52_000)]));
        // tau = T, full link and one BDP queued on both samples: u = 2, Ubar = 2.
        let b = 100_000_000_000u64 / 8 * 4160 / 1_000_000_000;
        h.on_ack(&ack(9000, 48_001, 60_000, &[hop(4160, b, 52_000)]));
        assert!((h.utilization() - 2.0).abs() < 1e-12);
        let expect = (100e9 / (h.utilization() / 0.95)) as u64 + 50_000_000;
        assert_eq!(h.reference_rate(), expect);
    }

    #[test]
    fn multi_rate_takes_the_slowest_hop() {
        let mut h = HpccRate::new(
            &Ns3CcConfig {
                multi_rate: true,
                ..Ns3CcConfig::default()
            },
            &ctx(),
        );
        // u counts min(qlen now, qlen before): hop 1 has had a BDP queued on both samples.
        h.on_ack(&ack(4188, 1000, 48_000, &[hop(0, 0, 0), hop(0, 0, 52_000)]));
        let b = 100_000_000_000u64 / 8 * 4160 / 1_000_000_000;
        // Hop 0 idle at half rate, hop 1 full with a BDP of queue.
        h.on_ack(&ack(
            9000,
            48_001,
            60_000,
            &[hop(4160, b / 2, 0), hop(4160, b, 52_000)],
        ));
        let r1 = (100e9 / (2.0 / 0.95)) as u64 + 50_000_000;
        assert!(
            h.rate().bps().abs_diff(r1) <= 1,
            "{} vs {r1}",
            h.rate().bps()
        );
    }
}
