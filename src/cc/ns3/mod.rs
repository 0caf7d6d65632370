//! The HPCC ns-3 simulator's congestion controls, as separate algorithms
//! (`dcqcn-ns3`, `hpcc-ns3`, `timely-ns3`, `dctcp-ns3`) that reproduce its
//! rdma-hw.cc exactly (hpcc-ns3-model.md §5-§8). docs/ns3-compat.md says how they
//! differ from the paper-faithful `dcqcn`, `hpcc`, `timely` and `dctcp`.
//! HPCC-PINT (`hpcc-pint`, CC_MODE 10, comparators.md §1) reads the same table
//! and shares the queue pair, but registers on its own line: it has no
//! paper-faithful twin, and it asks the switches for its PINT field
//! ([`pint`]) instead of INT records.
//!
//! What they share is the ns-3 queue pair's rate and window (§5):
//! * rates are integer bit/s, and every `rate x c` or `rate / c` truncates to a
//!   whole bit/s as ns-3's `DataRate` does;
//! * the window is `m_win x m_rate / m_max_rate` (at least 1) with VAR_WIN, the
//!   fixed `m_win` without, and none when `m_win = 0` (HAS_WIN = 0); `m_win` is the
//!   largest BDP over host pairs (GLOBAL_T = 1) or the pair's BDP, for every
//!   algorithm, not only HPCC;
//! * pacing uses `m_rate`, or the line rate with RATE_BOUND = 0.
//!
//! Parameters live in one `[cc.ns3]` table named after the ns-3 config keys, with
//! `mix/config.txt`'s values as defaults (third.cc's own defaults are unusable:
//! EWMA_GAIN 1/16 is integer division, i.e. 0, and RP_TIMER is uninitialized).

pub mod dcqcn_mlx;
pub mod dctcp;
pub mod hpcc_pint;
pub mod hpcc_rate;
pub mod pint;
pub mod timely;

use super::registry::{Algorithm, ParamError, member};
use super::{AckInfo, CongestionControl, FlowCtx};
use crate::units::{Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

/// Which ns-3 algorithm (CC_MODE 1, 3, 7, 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ns3Algo {
    Dcqcn,
    Hpcc,
    Timely,
    Dctcp,
}

impl Ns3Algo {
    /// In the order of [`Ns3Kind::NAMES`].
    const ALL: [Ns3Algo; 4] = [
        Ns3Algo::Dcqcn,
        Ns3Algo::Hpcc,
        Ns3Algo::Timely,
        Ns3Algo::Dctcp,
    ];
    pub(crate) fn name(self) -> &'static str {
        Ns3Kind::NAMES[self as usize]
    }
}

/// `[cc.ns3]`: the ns-3 config keys of the congestion controls, lower-cased.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ns3CcConfig {
    /// RATE_AI: additive increase (DCQCN, HPCC, TIMELY).
    pub rate_ai: Rate,
    /// RATE_HAI: hyper increase (DCQCN, TIMELY).
    pub rate_hai: Rate,
    /// MIN_RATE.
    pub min_rate: Rate,
    /// DCTCP_RATE_AI.
    pub dctcp_rate_ai: Rate,
    /// EWMA_GAIN: g of DCQCN's alpha and DCTCP's alpha.
    pub ewma_gain: f64,
    /// ALPHA_RESUME_INTERVAL (DCQCN alpha timer).
    pub alpha_resume_interval: Delta,
    /// RATE_DECREASE_INTERVAL (DCQCN decrease timer).
    pub rate_decrease_interval: Delta,
    /// RP_TIMER (DCQCN rate-increase timer).
    pub rp_timer: Delta,
    /// FAST_RECOVERY_TIMES (DCQCN F).
    pub fast_recovery_times: u32,
    /// CLAMP_TARGET_RATE (DCQCN).
    pub clamp_target_rate: bool,
    /// HAS_WIN: the queue pair has a window.
    pub has_win: bool,
    /// GLOBAL_T: T and the window come from the largest RTT/BDP, not the pair's.
    pub global_t: bool,
    /// VAR_WIN: the window follows the rate.
    pub var_win: bool,
    /// FAST_REACT (HPCC): react on every ACK, not once per RTT.
    pub fast_react: bool,
    /// U_TARGET (HPCC eta).
    pub u_target: f64,
    /// MI_THRESH (HPCC maxStage).
    pub mi_thresh: u32,
    /// MULTI_RATE (HPCC): one rate per hop.
    pub multi_rate: bool,
    /// SAMPLE_FEEDBACK (HPCC): fast reactions skip hops with an empty queue.
    pub sample_feedback: bool,
    /// PINT_LOG_BASE (HPCC-PINT): utilisation travels as a power of it.
    pub pint_log_base: f64,
    /// PINT_PROB (HPCC-PINT): the share of ACKs the sender uses.
    pub pint_prob: f64,
    /// RATE_BOUND: pace at the controlled rate (else at line rate).
    pub rate_bound: bool,
    /// TIMELY attributes (not settable from the ns-3 config; ns-3's defaults).
    pub timely_alpha: f64,
    pub timely_beta: f64,
    pub timely_t_low: Delta,
    pub timely_t_high: Delta,
    pub timely_min_rtt: Delta,
}

impl Default for Ns3CcConfig {
    fn default() -> Self {
        Ns3CcConfig {
            rate_ai: Rate::from_mbps(50),
            rate_hai: Rate::from_mbps(100),
            min_rate: Rate::from_mbps(100),
            dctcp_rate_ai: Rate::from_mbps(1000),
            ewma_gain: 0.00390625,
            alpha_resume_interval: Delta::from_us(1),
            rate_decrease_interval: Delta::from_us(4),
            rp_timer: Delta::from_us(900),
            fast_recovery_times: 1,
            clamp_target_rate: false,
            has_win: true,
            global_t: true,
            var_win: true,
            fast_react: true,
            u_target: 0.95,
            mi_thresh: 0,
            multi_rate: false,
            sample_feedback: false,
            // run.py's (mix/config.txt and third.cc say 1.05).
            pint_log_base: 1.01,
            pint_prob: 1.0,
            rate_bound: true,
            timely_alpha: 0.875,
            timely_beta: 0.8,
            timely_t_low: Delta::from_us(50),
            timely_t_high: Delta::from_us(500),
            timely_min_rtt: Delta::from_us(20),
        }
    }
}

impl Ns3CcConfig {
    fn validate(&self, algo: Ns3Algo) -> Result<(), ParamError> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if !(0.0..=1.0).contains(&self.ewma_gain) {
            return bad("ewma_gain", "must be in [0, 1], e.g. 0.00390625 (1/256)");
        }
        if algo == Ns3Algo::Dcqcn {
            for (f, d) in [
                ("alpha_resume_interval", self.alpha_resume_interval),
                ("rate_decrease_interval", self.rate_decrease_interval),
                ("rp_timer", self.rp_timer),
            ] {
                if d.is_zero() {
                    return bad(f, "must be > 0, e.g. \"4us\"");
                }
            }
        }
        if !(self.u_target > 0.0 && self.u_target.is_finite()) {
            return bad("u_target", "must be > 0, e.g. 0.95");
        }
        if !(self.timely_beta >= 0.0 && self.timely_alpha >= 0.0) {
            return bad("timely_beta", "TIMELY alpha and beta must be >= 0");
        }
        if self.timely_min_rtt.is_zero() {
            return bad("timely_min_rtt", "must be > 0, e.g. \"20us\"");
        }
        Ok(())
    }
}

/// `rate x c`, truncated to a whole bit/s (ns-3 `DataRate * double`).
#[inline]
fn rate_mul(bps: u64, c: f64) -> u64 {
    (bps as f64 * c) as u64
}

/// `rate / c`, truncated to a whole bit/s (ns-3 `DataRate / double`).
#[inline]
fn rate_div(bps: u64, c: f64) -> u64 {
    (bps as f64 / c) as u64
}

/// The rate and window state every ns-3 queue pair has (rdma-queue-pair.cc).
#[derive(Clone, Debug)]
struct Ns3Qp {
    /// `m_rate`, bit/s.
    rate: u64,
    /// `m_max_rate`: the NIC line rate.
    max_rate: u64,
    /// `m_win`, bytes; 0 = no window.
    win: u64,
    var_win: bool,
    rate_bound: bool,
    /// `m_baseRtt` in ns (T).
    base_rtt_ns: u64,
}

impl Ns3Qp {
    fn new(cfg: &Ns3CcConfig, ctx: &FlowCtx) -> Ns3Qp {
        let line = ctx.line_rate.bps();
        let (win, t) = if cfg.global_t {
            (ctx.max_bdp, ctx.base_rtt)
        } else {
            (ctx.pair_bdp, ctx.pair_rtt)
        };
        Ns3Qp {
            rate: line,
            max_rate: line,
            // ns-3 keeps the window in 32 bits.
            win: if cfg.has_win { win as u32 as u64 } else { 0 },
            var_win: cfg.var_win,
            rate_bound: cfg.rate_bound,
            base_rtt_ns: t.as_ns(),
        }
    }

    /// `GetWin` / `IsWinBound`: `None` when there is no window.
    #[inline]
    fn window(&self) -> Option<u64> {
        if self.win == 0 {
            return None;
        }
        if !self.var_win {
            return Some(self.win);
        }
        let w = (self.win as u128 * self.rate as u128 / self.max_rate as u128) as u64;
        Some(w.max(1))
    }

    /// The pacing rate (`UpdateNextAvail`).
    #[inline]
    fn pacing(&self) -> Rate {
        Rate(if self.rate_bound {
            self.rate
        } else {
            self.max_rate
        })
    }
}

/// `rate()` and `window()` of an ns-3 algorithm: its queue pair's, `Ns3Qp::pacing`
/// and `Ns3Qp::window` (§5). Goes in its `CongestionControl` impl; the algorithm
/// keeps the queue pair in a field `qp`.
macro_rules! rate_and_window_of_qp {
    () => {
        #[inline]
        fn rate(&self) -> crate::units::Rate {
            self.qp.pacing()
        }

        #[inline]
        fn window(&self) -> Option<u64> {
            self.qp.window()
        }
    };
}
use rate_and_window_of_qp;

/// The configured ns-3 algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns3Kind {
    algo: Ns3Algo,
    cfg: Ns3CcConfig,
}

impl Algorithm for Ns3Kind {
    type Flow = Ns3Cc;
    type Table = Ns3CcConfig;
    const NAMES: &'static [&'static str] = &["dcqcn-ns3", "hpcc-ns3", "timely-ns3", "dctcp-ns3"];
    const NAMES_AS_ONE: Option<&'static str> = Some("the *-ns3 algorithms");
    fn resolve(name: &str, table: &Ns3CcConfig) -> Result<Self, ParamError> {
        let algo = member(Self::NAMES, &Ns3Algo::ALL, name);
        table.validate(algo)?;
        Ok(Ns3Kind {
            algo,
            cfg: table.clone(),
        })
    }
    fn name(&self) -> &'static str {
        self.algo.name()
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Ns3Cc {
        let c = &self.cfg;
        match self.algo {
            Ns3Algo::Dcqcn => Ns3Cc::Dcqcn(dcqcn_mlx::DcqcnMlx::new(c, ctx)),
            Ns3Algo::Hpcc => Ns3Cc::Hpcc(hpcc_rate::HpccRate::new(c, ctx)),
            Ns3Algo::Timely => Ns3Cc::Timely(timely::TimelyNs3::new(c, ctx)),
            Ns3Algo::Dctcp => Ns3Cc::Dctcp(dctcp::DctcpNs3::new(c, ctx)),
        }
    }
    fn needs_int(&self) -> bool {
        matches!(self.algo, Ns3Algo::Hpcc | Ns3Algo::Timely)
    }
    /// HPCC differences each hop's records ACK to ACK (TIMELY reads only the
    /// timestamps).
    fn needs_one_path(&self) -> Option<&'static str> {
        (self.algo == Ns3Algo::Hpcc).then_some(crate::cc::hpcc::INT_ACK_TO_ACK)
    }
    fn uses_ecn(&self) -> bool {
        matches!(self.algo, Ns3Algo::Dcqcn | Ns3Algo::Dctcp)
    }
    /// ns-3 re-spaces on a rate change (`ChangeRate`) only for HPCC.
    fn repace_on_rate_change(&self) -> Option<bool> {
        Some(self.algo == Ns3Algo::Hpcc)
    }
    /// ns-3 TIMELY: an 8-byte timestamp.
    fn int_bytes(&self) -> Option<u32> {
        (self.algo == Ns3Algo::Timely).then_some(8)
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(self.cfg.min_rate)
    }
}

/// Per-flow state of an ns-3 algorithm.
// Per-flow state lives inline in the flow arena like the other controllers'
// (`Cc::Hpcc` is as large); boxing would add a pointer chase to every ACK.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Ns3Cc {
    Dcqcn(dcqcn_mlx::DcqcnMlx),
    Hpcc(hpcc_rate::HpccRate),
    Timely(timely::TimelyNs3),
    Dctcp(dctcp::DctcpNs3),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Ns3Cc::Dcqcn($c) => $e,
            Ns3Cc::Hpcc($c) => $e,
            Ns3Cc::Timely($c) => $e,
            Ns3Cc::Dctcp($c) => $e,
        }
    };
}

impl CongestionControl for Ns3Cc {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        dispatch!(self, c => c.on_ack(ack))
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_cnp(now))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_timer(now))
    }
    #[inline]
    fn next_timer(&self) -> Option<SimTime> {
        dispatch!(self, c => c.next_timer())
    }
    #[inline]
    fn rate(&self) -> Rate {
        dispatch!(self, c => c.rate())
    }
    #[inline]
    fn window(&self) -> Option<u64> {
        dispatch!(self, c => c.window())
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;
    use crate::packet::IntHop;

    /// The calibration setup's context (hpcc-ns3-model.md §12): 100G, maxRtt
    /// 4160 ns, maxBdp 52000 B, payload 1000.
    pub fn ctx() -> FlowCtx {
        FlowCtx {
            now: SimTime::ZERO,
            line_rate: Rate::from_gbps(100),
            base_rtt: Delta::from_ns(4160),
            pair_rtt: Delta::from_ns(4160),
            max_bdp: 52_000,
            pair_bdp: 52_000,
            hops: 2,
            mtu: 1000,
            seed: 7,
            size: 0,
        }
    }

    pub fn ack<'a>(now_ns: u64, seq: u64, snd_nxt: u64, int: &'a [IntHop]) -> AckInfo<'a> {
        AckInfo {
            pint: 0,
            now: SimTime(now_ns * 1000),
            seq,
            snd_nxt,
            newly_acked: 1000,
            is_nack: false,
            ecn_echo: false,
            int,
            data_sent_at: SimTime::ZERO,
            rx_window: None,
            rx_busy: false,
            grant: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_follows_the_rate_and_never_reaches_zero() {
        let cfg = Ns3CcConfig::default();
        let mut qp = Ns3Qp::new(&cfg, &test_util::ctx());
        assert_eq!(qp.window(), Some(52_000));
        qp.rate = 50_000_000_000;
        assert_eq!(qp.window(), Some(26_000));
        qp.rate = 1;
        assert_eq!(qp.window(), Some(1));
        qp.var_win = false;
        assert_eq!(qp.window(), Some(52_000));
        let no_win = Ns3Qp::new(
            &Ns3CcConfig {
                has_win: false,
                ..cfg
            },
            &test_util::ctx(),
        );
        assert_eq!(no_win.window(), None);
    }

    #[test]
    fn rate_arithmetic_truncates_to_whole_bits_per_second() {
        assert_eq!(rate_div(100_000_000_000, 3.0), 33_333_333_333);
        assert_eq!(rate_mul(99_999_999_999, 0.5), 49_999_999_999);
        assert_eq!(rate_div(99_999_999_999, 2.0), 49_999_999_999);
    }

    #[test]
    fn without_rate_bound_pacing_is_at_line_rate() {
        let cfg = Ns3CcConfig {
            rate_bound: false,
            ..Ns3CcConfig::default()
        };
        let mut qp = Ns3Qp::new(&cfg, &test_util::ctx());
        qp.rate = 1_000_000_000;
        assert_eq!(qp.pacing(), Rate::from_gbps(100));
    }
}
