//! Swift: delay-based window control (Kumar et al., SIGCOMM'20, Algorithm 1,
//! §3.1-3.4), as htsim's `sim/swift.cpp` runs it (its structure follows
//! Algorithm 1; ../shared/reference/comparators.md §4 has the facts and lines).
//!
//! Per ACK (htsim `adjust_cwnd`, swift.cpp:431-465 and :80-106):
//!
//! * `delay = now − ts_echo`: from the data packet leaving the sender NIC to its
//!   ACK arriving there ([`AckInfo::rtt`]);
//! * `can_decrease = now − t_last_decrease ≥ srtt`, before srtt takes the sample
//!   (`srtt = 7/8 srtt + 1/8 delay`, the first sample as is; :52-74);
//! * `target = base + hops·h + clamp(fs_α/√(cwnd/mss) + fs_β, 0, fs_range)`
//!   (§3.3 topology and flow scaling; `targetDelay`, :775-794), with `fs_α`,
//!   `fs_β` such that the flow term is `fs_range` at `fs_min_cwnd` packets and 0
//!   at `fs_max_cwnd` (:618-628);
//! * `delay < target`: additive increase, `cwnd += ai·mss·acked/cwnd` (one `ai`
//!   packet per RTT) when `cwnd ≥ mss`, else `cwnd += ai·acked` (:92-102);
//! * else, if `can_decrease`: `cwnd *= max(1 − β (delay − target)/delay,
//!   1 − max_mdf)` (:103-106);
//! * then `applySwiftLimits` (:152-170): clamp to `[min_cwnd, max_cwnd]`, a cut
//!   sets `t_last_decrease = now`, and below one MSS the flow is paced at one
//!   packet per `srtt·mss/cwnd`.
//!
//! Loss (§3.4): on a retransmission timeout ([`CongestionControl::on_timeout`])
//! `retransmit_cnt += 1`; at `rtx_reset_threshold` timeouts in a row `cwnd =
//! min_cwnd`, otherwise `cwnd *= 1 − max_mdf` if `can_decrease` (:509-541). Every
//! ACK resets the count. Our NIC's go-back-N has no fast recovery: a NACK is the
//! loss signal in its place: `cwnd *= 1 − max_mdf` if `can_decrease`, as htsim
//! cuts on leaving fast recovery (:197-218); its delay updates srtt but brings no
//! increase or delay-based cut.
//!
//! Our choices, where htsim's values would not fit a 100 Gbps fabric with 4-13 us
//! base RTTs or where the NIC differs (docs/models.md, "Swift"):
//!
//! * `base` is the flow's own base RTT unless `base_delay` is set, so the target
//!   never asks for a queue below the unloaded RTT and the hop and flow terms are
//!   the queueing it allows; `h = base/6.55` and `fs_range = 5·base` keep htsim's
//!   proportions (:609, :618). `base_delay = "20us"` gives htsim's target.
//! * The hop count is the number of links on the flow's ECMP path, host links
//!   included, as htsim's `hop_count` (the path model's trace, [`FlowCtx::hops`]).
//! * The first window is line rate × the flow's base RTT (no slow start, as every
//!   RDMA controller here starts at line rate), not htsim's 15 packets.
//! * One window, on the whole RTT, as htsim (the paper's separate fabric and
//!   endpoint windows are not modelled: our NICs add no endpoint delay).
//! * `cwnd/mss` is real division (htsim truncates it to whole packets).
//! * At or above one MSS the NIC sends while fewer than `cwnd` bytes are in
//!   flight (the window of every windowed controller here); htsim sends only a
//!   packet that fits whole. Below one MSS there is no window: the NIC paces one
//!   packet per `srtt·mss/cwnd` (the pacing rate counts the packet's wire bytes,
//!   so the gap is exact), as htsim's pacer sends whatever the window.
//! * A timeout's cut also sets `t_last_decrease` (htsim sets it only on an ACK's
//!   cut), so the once-per-RTT limit covers every cut.
//! * srtt is used for `can_decrease` and pacing only; the retransmission timeout
//!   is the NIC's (`nic.rto`), not htsim's `srtt + 4 mdev`.

use super::registry::{Algorithm, ParamError, checked};
use super::{AckInfo, CongestionControl, FlowCtx};
use crate::units::{Bytes, Delta, PS_PER_S, Rate, SimTime, round_u64};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SwiftConfig {
    /// Additive increase, packets per RTT. htsim: 1.0 (swift.cpp:605).
    pub ai: f64,
    /// Multiplicative decrease gain beta. htsim: 0.8 (:606).
    pub beta: f64,
    /// Largest cut per decision, `cwnd *= 1 − max_mdf` at most. htsim: 0.5 (:607).
    pub max_mdf: f64,
    /// Fixed part of the target; omitted = the flow's own base RTT (htsim: 20 us,
    /// :608).
    pub base_delay: Option<Delta>,
    /// Target per link on the path, h; omitted = base / 6.55 (htsim's `set_hdiv`
    /// default, :609).
    pub hop_delay: Option<Delta>,
    /// Largest flow-scaling term; omitted = 5 × base (:618).
    pub fs_range: Option<Delta>,
    /// Window (packets) at which the flow term is `fs_range`. htsim: 0.1 (:619).
    pub fs_min_cwnd: f64,
    /// Window (packets) at which the flow term is 0. htsim: 100 (:620).
    pub fs_max_cwnd: f64,
    /// Consecutive timeouts that reset the window to `min_cwnd`. htsim: 5 (:610).
    pub rtx_reset_threshold: u32,
    /// Smallest window. htsim: 10 bytes (:611).
    pub min_cwnd: Bytes,
    /// Largest window, in packets. htsim: 1000 (:612).
    pub max_cwnd: f64,
    /// First window; omitted = line rate × the flow's base RTT.
    pub init_cwnd: Option<Bytes>,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            base_delay: None,
            hop_delay: None,
            fs_range: None,
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            rtx_reset_threshold: 5,
            min_cwnd: Bytes(10),
            max_cwnd: 1000.0,
            init_cwnd: None,
        }
    }
}

impl SwiftConfig {
    pub(crate) fn validate(&self) -> Result<(), ParamError> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if !(self.ai > 0.0 && self.ai.is_finite()) {
            return bad("ai", "must be > 0 packets per RTT, e.g. 1.0");
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return bad("beta", "must be in (0, 1], e.g. 0.8");
        }
        if !(self.max_mdf > 0.0 && self.max_mdf < 1.0) {
            return bad("max_mdf", "must be in (0, 1), e.g. 0.5");
        }
        if self.base_delay.is_some_and(Delta::is_zero) {
            return bad("base_delay", "must be > 0, e.g. \"20us\"");
        }
        if !(self.fs_min_cwnd > 0.0 && self.fs_min_cwnd < self.fs_max_cwnd) {
            return bad("fs_min_cwnd", "must be > 0 and below fs_max_cwnd, e.g. 0.1");
        }
        if !self.fs_max_cwnd.is_finite() {
            return bad("fs_max_cwnd", "must be finite, e.g. 100");
        }
        if self.rtx_reset_threshold == 0 {
            return bad("rtx_reset_threshold", "must be >= 1, e.g. 5");
        }
        if self.min_cwnd.0 == 0 {
            return bad("min_cwnd", "must be > 0 bytes, e.g. 10");
        }
        if !(self.max_cwnd >= 1.0 && self.max_cwnd.is_finite()) {
            return bad("max_cwnd", "must be >= 1 packet, e.g. 1000");
        }
        if self.init_cwnd.is_some_and(|b| b.0 == 0) {
            return bad("init_cwnd", "must be > 0 bytes, e.g. \"15KB\"");
        }
        Ok(())
    }
}

impl Algorithm for SwiftConfig {
    type Flow = Swift;
    type Table = SwiftConfig;
    const NAMES: &'static [&'static str] = &["swift"];
    fn resolve(_: &str, table: &SwiftConfig) -> Result<Self, ParamError> {
        checked(table, SwiftConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Swift {
        Swift::new(self, ctx)
    }
    /// Below one MSS the pacing rate is `min_cwnd` per srtt at the lowest, which no
    /// fixed floor bounds; the rate is kept at 1 bit/s or more so the gap is finite.
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(MIN_PACING)
    }
}

/// The pacing rate's floor: only so that the NIC's gap stays finite.
const MIN_PACING: Rate = Rate::from_bps(1);

fn ps(d: Delta) -> f64 {
    d.ps() as f64
}

#[derive(Clone, Debug)]
pub struct Swift {
    ai: f64,
    beta: f64,
    max_mdf: f64,
    rtx_reset_threshold: u32,
    /// MSS (payload bytes per full packet) and the window bounds, bytes.
    mss: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    /// `base + hops·h` and the flow term's constants, ps.
    fixed_target_ps: f64,
    fs_alpha_ps: f64,
    fs_beta_ps: f64,
    fs_range_ps: f64,
    line_rate: Rate,
    /// The flow's base RTT, ps: pacing's RTT before the first sample.
    base_rtt_ps: f64,
    /// Wire bytes of the largest data packet sent so far (a full one).
    wire: u64,

    cwnd: f64,
    /// Smoothed RTT, ps; 0 before the first sample.
    srtt_ps: f64,
    last_decrease: Option<SimTime>,
    retransmit_cnt: u32,
    /// `cwnd` rounded, `None` while pacing below one MSS; the pacing rate.
    window: Option<u64>,
    rate: Rate,
}

impl Swift {
    pub(crate) fn new(cfg: &SwiftConfig, ctx: &FlowCtx) -> Self {
        let mss = ctx.mtu as f64;
        let base = cfg.base_delay.unwrap_or(ctx.pair_rtt);
        let h = cfg.hop_delay.map_or(ps(base) / 6.55, ps);
        let fs_range = cfg.fs_range.map_or(5.0 * ps(base), ps);
        let fs_alpha = fs_range / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
        let min_cwnd = cfg.min_cwnd.0 as f64;
        let max_cwnd = (cfg.max_cwnd * mss).max(min_cwnd);
        let init = cfg
            .init_cwnd
            .map_or(ctx.line_rate.bytes_in(ctx.pair_rtt), |b| b.0);
        let mut s = Swift {
            ai: cfg.ai,
            beta: cfg.beta,
            max_mdf: cfg.max_mdf,
            rtx_reset_threshold: cfg.rtx_reset_threshold,
            mss,
            min_cwnd,
            max_cwnd,
            fixed_target_ps: ps(base) + ctx.hops as f64 * h,
            fs_alpha_ps: fs_alpha,
            fs_beta_ps: -fs_alpha / cfg.fs_max_cwnd.sqrt(),
            fs_range_ps: fs_range,
            line_rate: ctx.line_rate,
            base_rtt_ps: ps(ctx.pair_rtt),
            wire: ctx.mtu.into(),
            cwnd: (init as f64).clamp(min_cwnd, max_cwnd),
            srtt_ps: 0.0,
            last_decrease: None,
            retransmit_cnt: 0,
            window: None,
            rate: ctx.line_rate,
        };
        s.refresh();
        s
    }

    /// The target delay at the current window, ps (§3.3).
    pub(crate) fn target_ps(&self) -> f64 {
        let pkts = self.cwnd / self.mss;
        let fs = (self.fs_alpha_ps / pkts.sqrt() + self.fs_beta_ps).clamp(0.0, self.fs_range_ps);
        self.fixed_target_ps + fs
    }

    /// The congestion window, bytes.
    #[cfg(test)]
    pub(crate) fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// `now − t_last_decrease ≥ srtt`: at most one cut per RTT.
    fn can_decrease(&self, now: SimTime) -> bool {
        self.last_decrease
            .is_none_or(|t| now.since(t).ps() as f64 >= self.srtt_ps)
    }

    /// htsim `update_rtt` (swift.cpp:52-74), srtt only; a zero sample is skipped.
    fn update_srtt(&mut self, delay_ps: f64) {
        if delay_ps == 0.0 {
            return;
        }
        self.srtt_ps = if self.srtt_ps > 0.0 {
            0.875 * self.srtt_ps + 0.125 * delay_ps
        } else {
            delay_ps
        };
    }

    /// The window after one ACK of `acked` bytes with `delay_ps`, given the cut
    /// permission (Algorithm 1's per-ACK branch).
    fn react(&self, delay_ps: f64, acked: f64, can_decrease: bool) -> f64 {
        let cwnd = self.cwnd;
        if delay_ps < self.target_ps() {
            if cwnd >= self.mss {
                cwnd + self.ai * self.mss * acked / cwnd
            } else {
                cwnd + self.ai * acked
            }
        } else if can_decrease {
            cwnd * self.md_factor(delay_ps)
        } else {
            cwnd
        }
    }

    /// `max(1 − β (delay − target)/delay, 1 − max_mdf)`, for a delay at or above
    /// the target.
    fn md_factor(&self, delay_ps: f64) -> f64 {
        let target = self.target_ps();
        (1.0 - self.beta * (delay_ps - target) / delay_ps).max(1.0 - self.max_mdf)
    }

    /// `applySwiftLimits`: clamp, note a cut, and set the window and pacing.
    fn apply_limits(&mut self, now: SimTime, prev: f64) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.max_cwnd);
        if self.cwnd < prev {
            self.last_decrease = Some(now);
        }
        self.refresh();
    }

    /// At or above one MSS: the window, at line rate. Below: no window, one full
    /// packet per `srtt·mss/cwnd`.
    fn refresh(&mut self) {
        if self.cwnd >= self.mss {
            self.window = Some(round_u64(self.cwnd));
            self.rate = self.line_rate;
            return;
        }
        self.window = None;
        let srtt = if self.srtt_ps > 0.0 {
            self.srtt_ps
        } else {
            self.base_rtt_ps
        };
        let gap_s = srtt * self.mss / self.cwnd / PS_PER_S as f64;
        let bps = self.wire as f64 * 8.0 / gap_s;
        self.rate = Rate::from_bps_f64(bps.min(self.line_rate.bps_f64())).max(MIN_PACING);
    }
}

impl CongestionControl for Swift {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let now = ack.now;
        let prev = self.cwnd;
        let can_decrease = self.can_decrease(now);
        let delay_ps = ps(ack.rtt());
        self.update_srtt(delay_ps);
        self.retransmit_cnt = 0;
        self.cwnd = if ack.is_nack {
            if can_decrease {
                self.cwnd * (1.0 - self.max_mdf)
            } else {
                self.cwnd
            }
        } else {
            self.react(delay_ps, ack.newly_acked as f64, can_decrease)
        };
        self.apply_limits(now, prev);
    }

    fn on_timeout(&mut self, now: SimTime) {
        let prev = self.cwnd;
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.rtx_reset_threshold {
            self.cwnd = self.min_cwnd;
        } else if self.can_decrease(now) {
            self.cwnd *= 1.0 - self.max_mdf;
        }
        self.apply_limits(now, prev);
    }

    #[inline]
    fn on_send(&mut self, _now: SimTime, wire_bytes: u64) {
        if wire_bytes > self.wire {
            self.wire = wire_bytes;
            self.refresh();
        }
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.rate
    }

    #[inline]
    fn window(&self) -> Option<u64> {
        self.window
    }
}

#[cfg(test)]
#[path = "swift_tests.rs"]
mod tests;
