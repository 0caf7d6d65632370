//! `hpcc-pint`: HPCC-PINT as the HPCC ns-3 simulator runs it (CC_MODE 10;
//! comparators.md §1; simulator: `point-to-point/model/rdma-hw.cc`
//! `HandleAckHpPint`/`UpdateRateHpPint`, `rdma-queue-pair.h` struct `hpccPint`).
//!
//! Switches compute each egress port's utilisation themselves and stamp the
//! largest over the path, encoded, into one 2-byte field (`switch::pint`,
//! [`super::pint`]); the receiver echoes it in the ACK. The sender, per ACK:
//! * samples it: with PINT_PROB < 1 it ignores the ACK entirely unless a draw
//!   uniform over `0..65536` is below `65536 x PINT_PROB` (§1(b) sender 1; the
//!   simulator's `rand()`, here the flow's own seeded generator). With
//!   PINT_PROB = 1 it draws nothing;
//! * the first ACK only sets `lastUpdateSeq = snd_nxt` (sender 3);
//! * otherwise `U = b^p / 512`, `k = U / U_TARGET`; `R = R_c / k + RATE_AI`
//!   (stage 0) if `k >= 1` or `stage >= MI_THRESH`, else `R = R_c + RATE_AI`
//!   (stage + 1); clamp to [MIN_RATE, line]; `ChangeRate(R)` (sender 4);
//! * an ACK with `seq > lastUpdateSeq` is a full update, which also commits
//!   `R_c`, the stage and `lastUpdateSeq = snd_nxt` (sender 2, 5). Any other
//!   ACK is a fast reaction, whatever FAST_REACT says.
//!
//! Unlike `hpcc-ns3` (CC 3) there is no sender-side EWMA, no per-hop state,
//! and FAST_REACT, MULTI_RATE and SAMPLE_FEEDBACK are not read. The rate is the
//! controlled variable; the window follows it, `W = m_win R / line` (sender 6,
//! [`super::Ns3Qp`]), and a rate change re-spaces the next packet
//! (`ChangeRate`).

use super::pint::{PintCodec, WIRE_BYTES};
use super::{Ns3Algo, Ns3CcConfig, Ns3Qp, rate_and_window_of_qp, rate_div};
use crate::cc::registry::{Algorithm, ParamError};
use crate::cc::{AckInfo, CongestionControl, FlowCtx};

/// The configured algorithm: `[cc.ns3]` with its PINT keys checked.
#[derive(Clone, Debug, PartialEq)]
pub struct HpccPintKind {
    cfg: Ns3CcConfig,
    codec: PintCodec,
}

impl Algorithm for HpccPintKind {
    type Flow = HpccPint;
    type Table = Ns3CcConfig;
    const NAMES: &'static [&'static str] = &["hpcc-pint"];
    fn resolve(_: &str, table: &Ns3CcConfig) -> Result<Self, ParamError> {
        table.validate(Ns3Algo::Hpcc)?;
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        let base = table.pint_log_base;
        // A code of u = 512 must fit the 16-bit field.
        if !(base > 1.0 && base.is_finite()) || PintCodec::bits_for(base) > 16 {
            return bad(
                "pint_log_base",
                "must be above 1.0002 (the codes must fit 16 bits), e.g. 1.01",
            );
        }
        if !(table.pint_prob > 0.0 && table.pint_prob <= 1.0) {
            return bad("pint_prob", "must be in (0, 1], e.g. 1.0");
        }
        Ok(HpccPintKind {
            cfg: table.clone(),
            codec: PintCodec::new(base),
        })
    }
    fn new_flow(&self, ctx: &FlowCtx) -> HpccPint {
        HpccPint::new(&self.cfg, self.codec.clone(), ctx)
    }
    /// The INT area is the PINT field, which switches fill ([`Self::pint`]).
    fn needs_int(&self) -> bool {
        true
    }
    fn pint(&self) -> Option<PintCodec> {
        Some(self.codec.clone())
    }
    fn int_bytes(&self) -> Option<u32> {
        Some(WIRE_BYTES)
    }
    /// `ChangeRate` re-spaces the next packet.
    fn repace_on_rate_change(&self) -> Option<bool> {
        Some(true)
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<crate::units::Rate> {
        Some(self.cfg.min_rate)
    }
}

/// One flow's HPCC-PINT sender (`qp->hpccPint`).
#[derive(Clone, Debug)]
pub struct HpccPint {
    qp: Ns3Qp,
    codec: PintCodec,
    target_util: f64,
    mi_thresh: u32,
    rai: u64,
    min_rate: u64,
    /// `m_curRate` (R_c), bit/s.
    cur_rate: u64,
    /// `m_incStage`.
    inc_stage: u32,
    /// `m_lastUpdateSeq`.
    last_update_seq: u64,
    /// An ACK is used when a draw over `0..65536` is below this; 65536 (PINT_PROB
    /// = 1) uses every ACK without drawing.
    sample_below: u32,
    /// The sampling generator's state (SplitMix64), seeded per flow.
    draws: u64,
}

impl HpccPint {
    pub(crate) fn new(cfg: &Ns3CcConfig, codec: PintCodec, ctx: &FlowCtx) -> HpccPint {
        let qp = Ns3Qp::new(cfg, ctx);
        HpccPint {
            cur_rate: qp.max_rate,
            qp,
            codec,
            target_util: cfg.u_target,
            mi_thresh: cfg.mi_thresh,
            rai: cfg.rate_ai.bps(),
            min_rate: cfg.min_rate.bps(),
            inc_stage: 0,
            last_update_seq: 0,
            // The simulator's `(uint32_t)(65536 * PINT_PROB)`.
            sample_below: (65536.0 * cfg.pint_prob) as u32,
            draws: ctx.seed,
        }
    }

    /// R_c in bit/s.
    #[cfg(test)]
    pub(crate) fn reference_rate(&self) -> u64 {
        self.cur_rate
    }

    /// Whether this ACK is one of the sampled: always with PINT_PROB = 1.
    fn sampled(&mut self) -> bool {
        if self.sample_below >= 65536 {
            return true;
        }
        // SplitMix64: a step of the golden-ratio increment, then its finaliser.
        self.draws = self.draws.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.draws;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (((z ^ (z >> 31)) & 0xffff) as u32) < self.sample_below
    }

    fn update(&mut self, ack: &AckInfo<'_>, fast: bool) {
        if self.last_update_seq == 0 {
            // First RTT: only remember where it ends.
            self.last_update_seq = ack.snd_nxt;
            return;
        }
        let k = self.codec.decode(ack.pint) / self.target_util;
        let (r, stage) = if k >= 1.0 || self.inc_stage >= self.mi_thresh {
            (rate_div(self.cur_rate, k) + self.rai, 0)
        } else {
            (self.cur_rate + self.rai, self.inc_stage + 1)
        };
        let r = r.max(self.min_rate).min(self.qp.max_rate);
        self.qp.rate = r;
        if !fast {
            self.cur_rate = r;
            self.inc_stage = stage;
            self.last_update_seq = self.last_update_seq.max(ack.snd_nxt);
        }
    }
}

impl CongestionControl for HpccPint {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        if !self.sampled() {
            return;
        }
        let fast = ack.seq <= self.last_update_seq;
        self.update(ack, fast);
    }

    rate_and_window_of_qp!();
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ack, ctx};
    use super::*;
    use crate::units::Rate;

    const LINE: u64 = 100_000_000_000;

    fn kind(cfg: Ns3CcConfig) -> HpccPintKind {
        HpccPintKind::resolve("hpcc-pint", &cfg).unwrap()
    }

    fn pint(cfg: Ns3CcConfig) -> HpccPint {
        kind(cfg).new_flow(&ctx())
    }

    /// An ACK carrying PINT code `p`.
    fn ack_p(seq: u64, snd_nxt: u64, p: u16) -> AckInfo<'static> {
        AckInfo {
            pint: p,
            ..ack(5000, seq, snd_nxt, &[])
        }
    }

    /// The code whose `U` is `u` at base 1.01 (rounded down).
    fn code_of(u: f64) -> u16 {
        ((u * 512.0).ln() / 1.01f64.ln()).floor() as u16
    }

    fn expected_cut(rc: u64, p: u16, cfg: &Ns3CcConfig) -> u64 {
        let k = 1.01f64.powf(p as f64) / 512.0 / cfg.u_target;
        ((rc as f64 / k) as u64 + cfg.rate_ai.bps()).clamp(cfg.min_rate.bps(), LINE)
    }

    #[test]
    fn the_first_ack_only_sets_last_update_seq() {
        let mut h = pint(Ns3CcConfig::default());
        h.on_ack(&ack_p(1000, 48_000, code_of(4.0)));
        assert_eq!(h.rate(), Rate(LINE));
        assert_eq!(h.reference_rate(), LINE);
        assert_eq!(h.last_update_seq, 48_000);
    }

    #[test]
    fn a_full_update_divides_by_u_over_eta_and_adds_rate_ai() {
        let cfg = Ns3CcConfig::default();
        let mut h = pint(cfg.clone());
        h.on_ack(&ack_p(1000, 48_000, 0));
        let p = code_of(1.9);
        h.on_ack(&ack_p(48_001, 60_000, p));
        let want = expected_cut(LINE, p, &cfg);
        assert_eq!((h.rate().bps(), h.reference_rate()), (want, want));
        assert_eq!(h.last_update_seq, 60_000);
        // The window follows the rate.
        let w = (52_000u128 * want as u128 / LINE as u128) as u64;
        assert_eq!(h.window(), Some(w));
    }

    #[test]
    fn a_fast_reaction_moves_the_rate_from_r_c_but_commits_nothing() {
        let cfg = Ns3CcConfig::default();
        let mut h = pint(cfg.clone());
        h.on_ack(&ack_p(1000, 48_000, 0));
        let p = code_of(1.5);
        // seq <= lastUpdateSeq: fast, even with FAST_REACT off (not consulted).
        let mut h2 = pint(Ns3CcConfig {
            fast_react: false,
            ..cfg.clone()
        });
        h2.on_ack(&ack_p(1000, 48_000, 0));
        for h in [&mut h, &mut h2] {
            h.on_ack(&ack_p(2000, 49_000, p));
            assert_eq!(h.rate().bps(), expected_cut(LINE, p, &cfg));
            assert_eq!(h.reference_rate(), LINE);
            assert_eq!(h.last_update_seq, 48_000);
            assert_eq!(h.inc_stage, 0);
        }
    }

    #[test]
    fn below_target_the_rate_grows_additively_until_mi_thresh_then_multiplicatively() {
        let cfg = Ns3CcConfig {
            mi_thresh: 2,
            min_rate: Rate::from_mbps(1000),
            ..Ns3CcConfig::default()
        };
        let mut h = pint(cfg.clone());
        h.on_ack(&ack_p(1000, 1000, 0));
        // Start from a low R_c: one full update at U = 4.
        h.on_ack(&ack_p(1001, 2000, code_of(4.0)));
        let mut rc = h.reference_rate();
        let low = code_of(0.5);
        let mut seq = 2000;
        for stage in 1..=2 {
            seq += 1000;
            h.on_ack(&ack_p(seq - 999, seq, low));
            rc += cfg.rate_ai.bps();
            assert_eq!((h.reference_rate(), h.inc_stage), (rc, stage));
        }
        // Stage 2 = MI_THRESH: the next full update is multiplicative, stage 0.
        h.on_ack(&ack_p(seq + 1, seq + 1000, low));
        assert_eq!(h.reference_rate(), expected_cut(rc, low, &cfg));
        assert_eq!(h.inc_stage, 0);
    }

    #[test]
    fn the_rate_stays_within_min_rate_and_line_rate() {
        let cfg = Ns3CcConfig {
            min_rate: Rate::from_mbps(1000),
            ..Ns3CcConfig::default()
        };
        let mut h = pint(cfg);
        h.on_ack(&ack_p(1000, 1000, 0));
        h.on_ack(&ack_p(1001, 2000, code_of(400.0)));
        assert_eq!(h.rate(), Rate::from_mbps(1000));
        // U = 1/512: k < 1, R = R_c / k + AI is far above line rate.
        h.on_ack(&ack_p(2001, 3000, 0));
        assert_eq!(h.rate(), Rate(LINE));
    }

    #[test]
    fn with_pint_prob_below_one_unsampled_acks_change_nothing() {
        let mut h = pint(Ns3CcConfig {
            pint_prob: 0.25,
            ..Ns3CcConfig::default()
        });
        let mut used = 0;
        for i in 0..4000u64 {
            let before = h.last_update_seq;
            h.on_ack(&ack_p(i * 1000 + 1, (i + 1) * 1000, 0));
            used += (h.last_update_seq != before) as u32;
        }
        // Each used ACK moves lastUpdateSeq; a quarter are used.
        assert!((800..1200).contains(&used), "{used} of 4000");
    }

    #[test]
    fn pint_parameters_are_checked() {
        for (base, prob, field) in [
            (1.0, 1.0, "pint_log_base"),
            (1.0001, 1.0, "pint_log_base"),
            (f64::NAN, 1.0, "pint_log_base"),
            (1.01, 0.0, "pint_prob"),
            (1.01, 1.5, "pint_prob"),
        ] {
            let cfg = Ns3CcConfig {
                pint_log_base: base,
                pint_prob: prob,
                ..Ns3CcConfig::default()
            };
            let err = HpccPintKind::resolve("hpcc-pint", &cfg).unwrap_err();
            assert_eq!(err.0, field, "{base} {prob}");
        }
    }
}
