//! HPCC sender, Algorithm 1 of the HPCC paper (§3.2, Eq. 1-4), window-based with
//! pacing at `R = W / T`.
//!
//! * MEASUREINFLIGHT (lines 1-10): per hop, `txRate = dTxBytes / dts` and
//!   `u' = min(qLen, qLen_prev) / (B T) + txRate / B` (Eq. 2); keep the largest
//!   `u'` and its `tau = dts`; `tau = min(tau, T)`; parameter-free EWMA
//!   `U = (1 - tau/T) U + (tau/T) u`.
//! * COMPUTEWIND (lines 11-20): if `U >= eta` or `incStage >= maxStage`,
//!   `W = W^c / (U/eta) + W_AI` (Eq. 4), else `W = W^c + W_AI`; `W^c` and
//!   `incStage` are committed only on the once-per-RTT update.
//! * NEWACK (lines 21-27): the update commits `W^c` when `ack.seq > lastUpdateSeq`,
//!   then `lastUpdateSeq = snd_nxt` (the first packet sent with the new `W^c`).
//!
//! Defaults (§5.1): eta = 0.95, maxStage = 5, W_AI = 80 B, `W_init = B_NIC x T`,
//! T slightly above the largest base RTT (computed by the scenario, overridable).
//! Choices the paper leaves open: the first ACK only records the INT records (no
//! previous sample to difference against) and `U` starts at 1, as a flow starting at
//! line rate would measure; `W` is kept within `[min_rate x T, W_init]`, so the
//! pacing rate never exceeds the line rate.
//!
//! Design variants for HPCC's own design study (both default to the paper's HPCC):
//!
//! * `reaction` (§3.2, §5.4 Fig. 13): `combined` is Algorithm 1 (per-ACK reaction
//!   from the per-RTT reference `W^c`); `per-ack` commits `W^c = W` on every ACK (the
//!   reaction compounds within an RTT: the overreaction of Fig. 13); `per-rtt`
//!   reacts only to the first ACK beyond `lastUpdateSeq` and ignores the others
//!   entirely, INT records included (so `u` spans a whole RTT), as the HPCC
//!   authors' simulator does with fast reaction off (hpcc-ns3-model.md §7).
//! * `rate_signal` (§3.4, Fig. 6): `tx` uses txRate in Eq. (2); `rx` replaces it with
//!   rxRate, the rate of bytes arriving at the port, "in all calculations": the
//!   switches then put the port's received bytes in the INT records' byte
//!   counter (`CcKind::int_counter`), so Eq. (2) reads whichever it is given.

use super::registry::{Algorithm, ParamError, checked};
use super::{AckInfo, CongestionControl, FlowCtx};
use crate::packet::{IntCounter, IntHop, MAX_INT_HOPS};
use crate::units::{Bytes, Delta, PS_PER_S, Rate};
use serde::{Deserialize, Serialize};

/// Why HPCC needs every packet of a flow on one path (MEASUREINFLIGHT, §3.3).
pub(crate) const INT_ACK_TO_ACK: &str = "differences each hop's INT records ACK to ACK";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HpccConfig {
    /// Target utilization eta (§3.3). Default 0.95.
    pub eta: f64,
    /// Additive-increase stages before a multiplicative step (§3.3). Default 5.
    pub max_stage: u32,
    /// Additive increase W_AI (§5.1: 80 bytes).
    pub w_ai: Bytes,
    /// Control interval T; omitted = slightly above the largest base RTT.
    pub t: Option<Delta>,
    /// Floor on the pacing rate (and so on W = rate x T).
    pub min_rate: Rate,
    /// How ACKs drive the window: "combined" (Algorithm 1), "per-ack", "per-rtt".
    pub reaction: Reaction,
    /// Link-rate signal of Eq. (2): "tx" (txRate, the paper's) or "rx" (rxRate).
    pub rate_signal: RateSignal,
}

/// HPCC §5.4's reaction strategies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reaction {
    /// Per-ACK reaction from a per-RTT reference window (Algorithm 1).
    #[default]
    Combined,
    /// Every ACK updates the reference window.
    PerAck,
    /// Only the first ACK of each RTT reacts; the others are ignored.
    PerRtt,
}

/// HPCC §3.4's choice of the link-rate term.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateSignal {
    #[default]
    Tx,
    Rx,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig {
            eta: 0.95,
            max_stage: 5,
            w_ai: Bytes(80),
            t: None,
            min_rate: Rate::from_mbps(100),
            reaction: Reaction::Combined,
            rate_signal: RateSignal::Tx,
        }
    }
}

impl HpccConfig {
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err(("eta".into(), "must be in (0, 1], e.g. 0.95".into()));
        }
        if let Some(t) = self.t
            && t.is_zero()
        {
            return Err(("t".into(), "must be > 0, e.g. \"13us\"".into()));
        }
        if self.min_rate.bps() == 0 {
            return Err(("min_rate".into(), "must be > 0, e.g. \"100Mbps\"".into()));
        }
        Ok(())
    }
}

impl Algorithm for HpccConfig {
    type Flow = Hpcc;
    type Table = HpccConfig;
    const NAMES: &'static [&'static str] = &["hpcc"];
    fn resolve(_: &str, table: &HpccConfig) -> Result<Self, ParamError> {
        checked(table, HpccConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Hpcc {
        Hpcc::new(self.clone(), ctx)
    }
    fn needs_int(&self) -> bool {
        true
    }
    /// MEASUREINFLIGHT differences each hop's records ACK to ACK.
    fn needs_one_path(&self) -> Option<&'static str> {
        Some(INT_ACK_TO_ACK)
    }
    /// The received bytes for the rxRate variant (§3.4), else the sent bytes.
    fn int_counter(&self) -> IntCounter {
        match self.rate_signal {
            RateSignal::Rx => IntCounter::Rx,
            RateSignal::Tx => IntCounter::Tx,
        }
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(self.min_rate)
    }
}

#[derive(Clone, Debug)]
pub struct Hpcc {
    cfg: HpccConfig,
    /// T in seconds.
    t_s: f64,
    line_bps: f64,
    w_init: f64,
    w_min: f64,
    /// Current window W and reference window W^c, bytes.
    w: f64,
    wc: f64,
    /// `w` rounded, and the pacing rate `w / T`, kept in step with `w`.
    window_bytes: u64,
    pacing: Rate,
    /// Normalized inflight bytes, EWMA.
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// INT records of the last ACK (L in Algorithm 1).
    last: [IntHop; MAX_INT_HOPS],
    n_last: u8,
}

impl Hpcc {
    pub(crate) fn new(cfg: HpccConfig, ctx: &FlowCtx) -> Self {
        let t = cfg.t.unwrap_or(ctx.base_rtt);
        let t_s = t.ps() as f64 / PS_PER_S as f64;
        let line_bps = ctx.line_rate.bps_f64();
        let w_init = line_bps / 8.0 * t_s;
        let w_min = cfg.min_rate.bps_f64() / 8.0 * t_s;
        let mut h = Hpcc {
            cfg,
            t_s,
            line_bps,
            w_init,
            w_min,
            w: w_init,
            wc: w_init,
            window_bytes: 0,
            pacing: Rate(0),
            u: 1.0,
            inc_stage: 0,
            last_update_seq: 0,
            last: [IntHop::default(); MAX_INT_HOPS],
            n_last: 0,
        };
        h.set_window(w_init);
        h
    }

    fn set_window(&mut self, w: f64) {
        self.w = w;
        self.window_bytes = crate::units::round_u64(w);
        self.pacing = Rate::from_bps_f64((w * 8.0 / self.t_s).min(self.line_bps));
    }

    #[cfg(test)]
    pub(crate) fn utilization(&self) -> f64 {
        self.u
    }
    #[cfg(test)]
    pub(crate) fn reference_window(&self) -> f64 {
        self.wc
    }

    /// MEASUREINFLIGHT: updates and returns U.
    #[inline(always)]
    fn measure_inflight(&mut self, hops: &[IntHop]) -> f64 {
        let mut u = 0.0;
        let mut tau = 0.0;
        for (new, old) in hops.iter().zip(&self.last[..self.n_last as usize]) {
            if new.ts <= old.ts {
                continue; // no new information from this hop
            }
            let dt = (new.ts.ps() - old.ts.ps()) as f64 / PS_PER_S as f64;
            let b = new.rate.bps_f64() / 8.0; // bytes per second
            // The sent bytes, or with `rate_signal = "rx"` the received ones:
            // the switches stamp the counter this run's variant reads
            // (`CcKind::int_counter`).
            let bytes = new.bytes.saturating_sub(old.bytes);
            let tx_rate = bytes as f64 / dt;
            let qlen = new.qlen.min(old.qlen) as f64;
            let u_hop = qlen / (b * self.t_s) + tx_rate / b;
            if u_hop > u {
                u = u_hop;
                tau = dt;
            }
        }
        let tau = tau.min(self.t_s);
        self.u = (1.0 - tau / self.t_s) * self.u + tau / self.t_s * u;
        self.u
    }

    /// COMPUTEWIND.
    #[inline(always)]
    fn compute_wind(&mut self, u: f64, update_wc: bool) -> f64 {
        let eta = self.cfg.eta;
        let w_ai = self.cfg.w_ai.0 as f64;
        let w;
        if u >= eta || self.inc_stage >= self.cfg.max_stage {
            w = (self.wc / (u / eta) + w_ai).clamp(self.w_min, self.w_init);
            if update_wc {
                self.inc_stage = 0;
                self.wc = w;
            }
        } else {
            w = (self.wc + w_ai).clamp(self.w_min, self.w_init);
            if update_wc {
                self.inc_stage += 1;
                self.wc = w;
            }
        }
        w
    }
}

impl CongestionControl for Hpcc {
    #[inline(always)]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let hops = ack.int;
        if hops.is_empty() {
            return;
        }
        if hops.len() != self.n_last as usize {
            // First ACK, or the path changed (HPCC §4.1 pathID): start the records over.
            self.n_last = hops.len() as u8;
            self.last[..hops.len()].copy_from_slice(hops);
            return;
        }
        let new_rtt = ack.seq > self.last_update_seq;
        let update_wc = match self.cfg.reaction {
            Reaction::Combined => new_rtt,
            Reaction::PerAck => true,
            Reaction::PerRtt if new_rtt => true,
            Reaction::PerRtt => return,
        };
        let u = self.measure_inflight(hops);
        let w = self.compute_wind(u, update_wc);
        if update_wc {
            self.last_update_seq = ack.snd_nxt;
        }
        self.set_window(w);
        self.last[..hops.len()].copy_from_slice(hops);
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.pacing
    }

    #[inline]
    fn window(&self) -> Option<u64> {
        Some(self.window_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcKind;
    use crate::cc::test_util::{flow_ctx, hop};
    use crate::packet::IntCounter;
    use crate::units::SimTime;

    const T_US: u64 = 10;

    fn hpcc() -> Hpcc {
        let ctx = FlowCtx {
            max_bdp: 125_000,
            pair_bdp: 125_000,
            ..flow_ctx(100, T_US, T_US)
        };
        Hpcc::new(HpccConfig::default(), &ctx)
    }

    fn hpcc_with(cfg: HpccConfig) -> Hpcc {
        let mut h = hpcc();
        h.cfg = cfg;
        h
    }

    fn ack(seq: u64, snd_nxt: u64, hops: &[IntHop]) -> AckInfo<'_> {
        AckInfo {
            now: SimTime::ZERO,
            seq,
            snd_nxt,
            newly_acked: 1000,
            is_nack: false,
            ecn_echo: false,
            int: hops,
            pint: 0,
            data_sent_at: SimTime::ZERO,
            rx_window: None,
            rx_busy: false,
            grant: None,
        }
    }

    #[test]
    fn starts_at_line_rate_with_w_init_equal_to_bdp() {
        let h = hpcc();
        // W_init = 100 Gbps x 10 us = 125000 B; R = W / T = 100 Gbps.
        assert_eq!(h.window(), Some(125_000));
        assert_eq!(h.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn a_full_queue_cuts_the_window_by_u_over_eta_in_one_step() {
        let mut h = hpcc();
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 125_000)]));
        // One full T later: the link sent at line rate (125000 B in 10 us) and kept
        // a 125 KB queue (= B x T), so u = 1 + 1 = 2; tau = T so U = u = 2.
        h.on_ack(&ack(2000, 20_000, &[hop(10_000, 125_000, 125_000)]));
        assert!((h.utilization() - 2.0).abs() < 1e-9);
        // Eq. (4): W = W^c / (U/eta) + W_AI = 125000 x 0.95 / 2 + 80.
        let expect: f64 = 125_000.0 * 0.95 / 2.0 + 80.0;
        assert_eq!(h.window(), Some(expect.round() as u64));
        assert!((h.reference_window() - expect).abs() < 1e-6);
    }

    #[test]
    fn the_ewma_weighs_a_sample_by_its_interval_over_t() {
        let mut h = hpcc();
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 0)]));
        // 1 us later at full rate, empty queue: u = 1, tau = 1 us = T/10.
        // U = 0.9 x 1 (initial) + 0.1 x 1 = 1.
        h.on_ack(&ack(2000, 10_000, &[hop(1_000, 12_500, 0)]));
        assert!((h.utilization() - 1.0).abs() < 1e-9);
        // Half-rate 1 us sample: u = 0.5 -> U = 0.9 x 1 + 0.1 x 0.5 = 0.95.
        h.on_ack(&ack(3000, 10_000, &[hop(2_000, 18_750, 0)]));
        assert!((h.utilization() - 0.95).abs() < 1e-9);
    }

    #[test]
    fn acks_within_the_same_rtt_do_not_compound_the_cut() {
        let mut h = hpcc();
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 125_000)]));
        // Full update (seq > lastUpdateSeq = 0): W^c is committed, lastUpdateSeq = 50000.
        h.on_ack(&ack(2000, 50_000, &[hop(10_000, 125_000, 125_000)]));
        // Two more ACKs below lastUpdateSeq report the same load. Each recomputes W
        // from the unchanged W^c (Eq. 4), so the second does not cut again (Fig. 5).
        h.on_ack(&ack(3000, 60_000, &[hop(20_000, 250_000, 125_000)]));
        let w2 = h.window().unwrap();
        let wc = h.reference_window();
        h.on_ack(&ack(4000, 60_000, &[hop(30_000, 375_000, 125_000)]));
        let w3 = h.window().unwrap();
        assert_eq!(w2, w3);
        assert_eq!(h.reference_window(), wc, "fast reactions leave W^c alone");
        let expect = wc / (2.0 / 0.95) + 80.0;
        assert!((w3 as f64 - expect).abs() <= 1.0, "{w3} vs {expect}");
    }

    #[test]
    fn additive_increase_runs_max_stage_times_before_a_multiplicative_step() {
        let mut h = hpcc();
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 0)]));
        // Link half used for a long time: U -> 0.5 < eta.
        let mut ts = 0;
        let mut tx = 0;
        let mut seq = 1000;
        // Bring W^c down first with one congested sample.
        ts += 10_000;
        tx += 125_000;
        seq += 10_000;
        h.on_ack(&ack(seq, seq + 1, &[hop(ts, tx, 250_000)]));
        let wc0 = h.reference_window();
        for stage in 1..=5 {
            ts += 10_000;
            tx += 62_500;
            seq += 10_000;
            h.on_ack(&ack(seq, seq + 1, &[hop(ts, tx, 0)]));
            assert!((h.reference_window() - (wc0 + 80.0 * stage as f64)).abs() < 1e-6);
        }
        // incStage == maxStage: the next update is multiplicative, W^c / (U/eta).
        ts += 10_000;
        tx += 62_500;
        seq += 10_000;
        let wc = h.reference_window();
        h.on_ack(&ack(seq, seq + 1, &[hop(ts, tx, 0)]));
        let u = h.utilization();
        let expect = (wc / (u / 0.95) + 80.0).min(125_000.0);
        assert!((h.reference_window() - expect).abs() < 1e-6);
    }

    #[test]
    fn per_ack_reaction_compounds_the_cut_within_an_rtt() {
        let cfg = HpccConfig {
            reaction: Reaction::PerAck,
            ..HpccConfig::default()
        };
        let mut h = hpcc_with(cfg);
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 125_000)]));
        h.on_ack(&ack(2000, 50_000, &[hop(10_000, 125_000, 125_000)]));
        let w1 = h.window().unwrap();
        // Below lastUpdateSeq, the same load cuts again: W^c moved with W.
        h.on_ack(&ack(3000, 60_000, &[hop(20_000, 250_000, 125_000)]));
        let w2 = h.window().unwrap();
        let expect = w1 as f64 / (2.0 / 0.95) + 80.0;
        assert!((w2 as f64 - expect).abs() <= 1.0, "{w1} -> {w2}");
    }

    #[test]
    fn per_rtt_reaction_ignores_acks_inside_the_rtt() {
        let cfg = HpccConfig {
            reaction: Reaction::PerRtt,
            ..HpccConfig::default()
        };
        let mut h = hpcc_with(cfg);
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 125_000)]));
        h.on_ack(&ack(2000, 50_000, &[hop(10_000, 125_000, 125_000)]));
        let w1 = h.window();
        let u1 = h.utilization();
        h.on_ack(&ack(3000, 60_000, &[hop(12_000, 150_000, 0)]));
        assert_eq!(h.window(), w1);
        assert_eq!(h.utilization(), u1, "the ACK is ignored entirely");
        // The next RTT's first ACK differences against the records of the last
        // reaction (ts 10 us), not the ignored ACK's (12 us): tau = T, U = u.
        h.on_ack(&ack(50_001, 90_000, &[hop(20_000, 250_000, 0)]));
        assert!((h.utilization() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn rx_rate_signal_has_switches_stamp_the_bytes_arriving_at_the_port() {
        let rx = HpccConfig {
            rate_signal: RateSignal::Rx,
            ..HpccConfig::default()
        };
        assert_eq!(CcKind::Hpcc(rx.clone()).int_counter(), IntCounter::Rx);
        assert_eq!(
            CcKind::Hpcc(HpccConfig::default()).int_counter(),
            IntCounter::Tx
        );
        // Twice the line rate arrived at the port in 10 us (the records carry
        // the received bytes): u = 2.
        let mut h = hpcc_with(rx);
        h.on_ack(&ack(1000, 10_000, &[hop(0, 0, 0)]));
        h.on_ack(&ack(2000, 20_000, &[hop(10_000, 250_000, 0)]));
        assert!((h.utilization() - 2.0).abs() < 1e-9);
    }
}
