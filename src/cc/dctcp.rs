//! DCTCP (Alizadeh et al., SIGCOMM'10, §3.1-§3.2), window-based, as HPCC §5.1 runs
//! it: no slow start, the window starts at one bandwidth-delay product.
//!
//! * Switches mark (CE) every packet that arrives to a queue above `K` (step
//!   marking, §3.1); receivers echo each mark on the ACK (ECE; our NIC ACKs every
//!   packet, so the echo is exact, like DCTCP's two-state ACK machine).
//! * Once per window of data (the first ACK beyond the `snd_nxt` recorded at the
//!   previous update), `F` = marked bytes / acknowledged bytes over that window and
//!   `alpha = (1 - g) alpha + g F` (§3.1, Eq. 1), g = 1/16 (§3.4).
//! * On an ECE, at most once per window of marks (until the data outstanding at the
//!   cut is acknowledged): `cwnd = cwnd (1 - alpha/2)` (Eq. 2).
//! * Additive increase: `cwnd += MTU x newly_acked / cwnd` per ACK, one MTU per
//!   window of ACKs (per RTT), as TCP congestion avoidance; not while a cut's
//!   window is outstanding (TCP's CWR state).
//!
//! Defaults and their sources: g = 1/16 (DCTCP §3.4; HPCC's simulator uses the same),
//! alpha starts at 1 (RFC 8257 §3.3, Linux's default: the first marks halve the
//! window), `W_init` = line rate x T (HPCC §5.1: "we remove the slow start phase"),
//! the marking threshold K = 30 KB x rate / 10 Gbps is the switch's (HPCC §5.1;
//! `switch.ecn` defaults to it when the algorithm is dctcp). Our choices: the window
//! never drops below one MTU and has no upper bound but the marks (like TCP's cwnd:
//! a window above one BDP is what builds the queue to K), and the NIC does not pace
//! (rate = line rate): DCTCP is ACK-clocked.

use super::registry::{Algorithm, ParamError, checked};
use super::{AckInfo, CongestionControl, EcnDefaults, FlowCtx};
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DctcpConfig {
    /// EWMA gain for alpha. DCTCP §3.4: 1/16.
    pub g: f64,
    /// alpha before the first window of feedback. RFC 8257: 1.
    pub alpha_init: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
        }
    }
}

impl DctcpConfig {
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g".into(), "must be in (0, 1], e.g. 0.0625 (1/16)".into()));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(("alpha_init".into(), "must be in [0, 1], e.g. 1".into()));
        }
        Ok(())
    }
}

impl Algorithm for DctcpConfig {
    type Flow = Dctcp;
    type Table = DctcpConfig;
    const NAMES: &'static [&'static str] = &["dctcp"];
    fn resolve(_: &str, table: &DctcpConfig) -> Result<Self, ParamError> {
        checked(table, DctcpConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Dctcp {
        Dctcp::new(self.clone(), ctx)
    }
    fn uses_ecn(&self) -> bool {
        true
    }
    /// Step marking at K = 30 KB x rate / 10 Gbps (HPCC §5.1, after DCTCP §3.4).
    fn ecn_defaults(&self) -> EcnDefaults {
        EcnDefaults {
            kmin: Bytes(30_000),
            kmax: Bytes(30_000),
            pmax: 1.0,
            scale_from: Some(Rate::from_gbps(10)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    line_rate: Rate,
    mtu: f64,
    cwnd: f64,
    window: u64,
    alpha: f64,
    /// Bytes acknowledged, and of them marked, in the current observation window.
    acked: u64,
    marked: u64,
    /// The observation window ends when an ACK goes beyond this sequence.
    window_end: u64,
    /// No further cut until an ACK goes beyond this sequence (CWR).
    cwr_end: Option<u64>,
    cuts: u64,
}

impl Dctcp {
    pub(crate) fn new(cfg: DctcpConfig, ctx: &FlowCtx) -> Self {
        let w_init = ctx.line_rate.bytes_in(ctx.base_rtt) as f64;
        let mut d = Dctcp {
            g: cfg.g,
            line_rate: ctx.line_rate,
            mtu: ctx.mtu as f64,
            cwnd: 0.0,
            window: 0,
            alpha: cfg.alpha_init,
            acked: 0,
            marked: 0,
            window_end: 0,
            cwr_end: None,
            cuts: 0,
        };
        d.set_cwnd(w_init);
        d
    }

    fn set_cwnd(&mut self, w: f64) {
        self.cwnd = w.max(self.mtu);
        self.window = crate::units::round_u64(self.cwnd);
    }

    #[cfg(test)]
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }
    #[cfg(test)]
    pub(crate) fn cuts(&self) -> u64 {
        self.cuts
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        self.acked += ack.newly_acked;
        if ack.ecn_echo {
            self.marked += ack.newly_acked;
        }
        if ack.seq > self.window_end {
            // One window of feedback: Eq. (1).
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = ack.snd_nxt;
        }
        if self.cwr_end.is_some_and(|end| ack.seq > end) {
            self.cwr_end = None;
        }
        if ack.ecn_echo && self.cwr_end.is_none() {
            // Eq. (2), once per window of marks.
            self.set_cwnd(self.cwnd * (1.0 - self.alpha / 2.0));
            self.cwr_end = Some(ack.snd_nxt);
            self.cuts += 1;
        } else if ack.newly_acked > 0 && !ack.is_nack && self.cwr_end.is_none() {
            self.set_cwnd(self.cwnd + self.mtu * ack.newly_acked as f64 / self.cwnd);
        }
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.line_rate
    }

    #[inline]
    fn window(&self) -> Option<u64> {
        Some(self.window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::flow_ctx;
    use crate::units::SimTime;

    fn dctcp() -> Dctcp {
        Dctcp::new(DctcpConfig::default(), &flow_ctx(100, 8, 8))
    }

    fn ack(seq: u64, snd_nxt: u64, newly: u64, ece: bool) -> AckInfo<'static> {
        AckInfo {
            now: SimTime::ZERO,
            seq,
            snd_nxt,
            newly_acked: newly,
            is_nack: false,
            ecn_echo: ece,
            int: &[],
            pint: 0,
            data_sent_at: SimTime::ZERO,
            rx_window: None,
            rx_busy: false,
            grant: None,
        }
    }

    #[test]
    fn starts_at_one_bdp_without_slow_start() {
        // 100 Gbps x 8 us = 100 KB.
        assert_eq!(dctcp().window(), Some(100_000));
    }

    #[test]
    fn the_first_mark_halves_the_window_and_later_marks_in_the_window_do_not() {
        let mut d = dctcp();
        d.on_ack(&ack(1000, 100_000, 1000, true));
        // alpha was 1 and the first window (seq 1000 > 0) had F = 1: alpha stays 1.
        assert_eq!(d.window(), Some(50_000));
        d.on_ack(&ack(2000, 100_000, 1000, true));
        d.on_ack(&ack(50_000, 100_000, 1000, true));
        assert_eq!(d.window(), Some(50_000), "one cut per window of marks");
        assert_eq!(d.cuts(), 1);
        // Beyond the data outstanding at the cut: the next mark cuts again.
        d.on_ack(&ack(100_001, 150_000, 1000, true));
        assert_eq!(d.cuts(), 2);
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_per_window() {
        let mut d = dctcp();
        d.on_ack(&ack(1000, 10_000, 1000, false)); // first window: F = 0
        let a1 = 15.0 / 16.0;
        assert!((d.alpha() - a1).abs() < 1e-12);
        // Next window (ends beyond 10 000): 4 ACKs of 1000 B, one marked: F = 1/4.
        for (i, ece) in [false, true, false, false].into_iter().enumerate() {
            d.on_ack(&ack(2000 + 1000 * i as u64, 20_000, 1000, ece));
        }
        d.on_ack(&ack(10_001, 20_000, 1, false));
        let f = 1000.0 / 4001.0;
        let a2 = (1.0 - 1.0 / 16.0) * a1 + f / 16.0;
        assert!((d.alpha() - a2).abs() < 1e-12, "{} vs {a2}", d.alpha());
    }

    #[test]
    fn additive_increase_is_one_mtu_per_window_of_acks() {
        let mut d = dctcp();
        d.on_ack(&ack(1000, 100_000, 1000, true)); // halve to 50 KB
        d.on_ack(&ack(100_001, 200_000, 1000, false)); // out of CWR
        let w0 = d.window().unwrap() as f64;
        let mut seq = 100_001;
        let mut acked = 0.0;
        while acked < w0 {
            seq += 1000;
            d.on_ack(&ack(seq, 300_000, 1000, false));
            acked += 1000.0;
        }
        let w1 = d.window().unwrap() as f64;
        assert!((w1 - w0 - 1000.0).abs() < 20.0, "{w0} -> {w1}");
    }
}
