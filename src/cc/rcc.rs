//! RCC: receiver-driven RDMA congestion control (Zhang et al., IEEE/ACM ToN 2023,
//! §III, Algorithm 1, Eq. 1-5). The receiver-side half is in [`super::receiver`];
//! this file holds the decision logic both sides share ([`RccCore`]) and the sender.
//!
//! Per data packet (Alg. 1):
//!
//! 1. delay sample: the one-way delay `now - sent_at` (clocks are exact here;
//!    `clock_jitter` adds uniform noise in `[-j, +j]`, RCC-async of §V-D1);
//! 2. active messages `N` from the first/last packets of each message (§III-D);
//! 3. Explicit Window Assignment (EWA, §III-D): fair share `W = C x T / N`, `C` the
//!    receiver's line rate and `T` the control interval, sent in every ACK; the
//!    sender paces at `W / T` (per-ACK update plus pacing);
//! 4. a flow in PID stays in PID (lines 6-9);
//! 5. last hop busy, `B_R >= eta x C x min_i RTT_i^base` with `B_R` the wire bytes
//!    of every frame (data, ACK, CNP, PFC) the NIC received on its link in the
//!    last base RTT (§III-C: is the last hop full?): the fair share (lines 10-11);
//! 6. else congestion detection (Eq. 1): `n` consecutive delays above
//!    `base x (1 + delta)` mean in-network congestion: the flow enters PID;
//!    otherwise the fair share (lines 13-17). The detection sees only the
//!    samples of this branch: a busy last hop neither advances nor resets its
//!    count;
//! 7. PID (§III-E): `E = delay - base (1 + delta/2)` (Eq. 2-3),
//!    `U += K_p E + K_d (E - E_prev)` (Eq. 4), `W = W (1 - tanh U)` (Eq. 5), capped by
//!    the fair share; updated once per `update_interval` (Table I's "RTT update
//!    timer"; default T), between updates only the cap applies.
//!
//! **Units of the error term.** `E` is in seconds and the PID steps once per RTT
//! (T), so `K_p E` per step is the integral of Eq. (9)'s `K_p/R (R - R_ref)` over
//! one RTT, and `K_d dE` its `(K_d + K_p/2) dR` term up to the Tustin `K_p/2`: the
//! discrete law is the one the fluid model and its phase-margin analysis
//! (src/analytic/rcc_fluid.rs; 39.8 deg at the §V-A gains) describe. With the
//! §V-A gains `K_p` = 1e4 and `K_d` = 1e5 (per second), 1 us of excess delay moves
//! `U` by 0.01 per RTT and a 1 us rise between updates by 0.1 (a 10 % window step).
//!
//! Defaults: `n` = 3, `delta` = 0.2, `eta` = 0.95 (§III-F), `K_p` = 1e4, `K_d` = 1e5
//! (§V-A, [`RccGains::PaperEval`]; §IV-D's "actual use" range is
//! [`RccGains::Deployment`]), no clock jitter. Choices the paper leaves open: the base delay of a flow
//! is its path's one-way propagation plus serialization of a full packet (the
//! receiver's `RTT_i^base` for one-way delays; the flow's base RTT for `rcc-sender`);
//! flows start at line rate (§III-B) with `W = C x T`; a flow entering PID keeps its
//! current window and starts with `U = 0`, and `E(t-1)` is the error of the
//! previous per-RTT sample (the receiver keeps the last measured delay whatever
//! the branch, Table I's `last_rtt`), so entering PID adds no derivative kick
//! of its own; anti-windup: when `W` is held
//! at the cap (or the floor `min_rate x T`) and `U` pushes further that way, `U` is
//! reset to 0, so a flow leaving the cap reacts at once instead of unwinding a
//! large integral. Variants (§III-G, §V-D): `rcc-sender` moves detection and PID to
//! the sender on RTT samples (the receiver feeds back the fair share and whether its
//! last hop is busy); `rcc-ewa` is EWA only; `rcc-pid` is PID only (no fair share:
//! the cap is the line-rate window and every detected congestion goes to PID).

use super::registry::{Algorithm, ParamError, checked, member};
use super::{AckInfo, CongestionControl, FlowCtx, ReceiverKind};
use crate::units::{Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RccConfig {
    /// Consecutive high delays that signal congestion (Eq. 1). §III-F: 3.
    pub n: u32,
    /// Allowed queueing: detection at `base (1 + delta)`, target `base (1 + delta/2)`.
    /// §III-F: 0.2.
    pub delta: f64,
    /// Expected last-hop utilization (§III-C). §III-F: 0.95.
    pub eta: f64,
    /// The named pair of PID gains Eq. (4) uses unless `kp`/`kd` are given.
    pub gains: RccGains,
    /// PID gains of Eq. (4), per second of delay error; each overrides `gains`.
    pub kp: Option<f64>,
    pub kd: Option<f64>,
    /// Base PID update period `d`; the PID steps every `d` plus the sample's
    /// queueing delay, i.e. once per RTT. Omitted = the flow's base RTT.
    pub update_interval: Option<Delta>,
    /// Uniform noise `[-j, +j]` added to every delay sample (RCC-async, §V-D1).
    pub clock_jitter: Delta,
    /// Floor on the PID's window, as a rate (`W >= min_rate x T`), never above
    /// the fair share: the paper gives no floor, and one above `C / N` would let
    /// N flows together exceed the link.
    pub min_rate: Rate,
}

impl Default for RccConfig {
    fn default() -> Self {
        RccConfig {
            n: 3,
            delta: 0.2,
            eta: 0.95,
            gains: RccGains::default(),
            kp: None,
            kd: None,
            update_interval: None,
            clock_jitter: Delta::ZERO,
            min_rate: Rate::from_mbps(100),
        }
    }
}

impl RccConfig {
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if self.n == 0 {
            return bad("n", "must be >= 1 consecutive samples, e.g. 3");
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return bad("delta", "must be in (0, 1), e.g. 0.2");
        }
        if !(self.eta > 0.0 && self.eta < 1.0) {
            return bad("eta", "must be in (0, 1), e.g. 0.95");
        }
        if !(self.kp().is_finite() && self.kp() >= 0.0) {
            return bad("kp", "must be a finite number >= 0, e.g. 1e4");
        }
        if !(self.kd().is_finite() && self.kd() >= 0.0) {
            return bad("kd", "must be a finite number >= 0, e.g. 1e5");
        }
        if self.update_interval.is_some_and(|d| d.is_zero()) {
            return bad("update_interval", "must be > 0, e.g. \"10us\"");
        }
        if self.min_rate.bps() == 0 {
            return bad("min_rate", "must be > 0, e.g. \"100Mbps\"");
        }
        Ok(())
    }

    /// `K_p` of Eq. (4): `kp` if given, else the named `gains`.
    pub(crate) fn kp(&self) -> f64 {
        self.kp.unwrap_or(self.gains.kp_kd().0)
    }

    /// `K_d` of Eq. (4): `kd` if given, else the named `gains`.
    pub(crate) fn kd(&self) -> f64 {
        self.kd.unwrap_or(self.gains.kp_kd().1)
    }
}

/// The two gain settings the paper gives for Eq. (4), which disagree by three
/// orders of magnitude (per second of delay error, the unit of [`RccCore`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RccGains {
    /// §V-A, the gains of every experiment in the paper: `K_p` = 1e4, `K_d` = 1e5
    /// (phase margin 39.8 deg in the fluid model at 12 us). The default, for
    /// reproduction.
    #[default]
    PaperEval,
    /// §IV-D, "in actual use": `K_p` in [1, 16], `K_d` in [1e3, 7e3]; we take the
    /// fast end of that range, `K_p` = 16, `K_d` = 7e3 (the largest loop
    /// bandwidth in it). Slower to react, but it settles where the §V-A gains
    /// oscillate once the ACK's one-RTT delay is counted (docs/models.md).
    Deployment,
}

impl RccGains {
    /// `(K_p, K_d)`.
    pub(crate) fn kp_kd(self) -> (f64, f64) {
        match self {
            RccGains::PaperEval => (1e4, 1e5),
            RccGains::Deployment => (16.0, 7e3),
        }
    }
}

/// The PID's window floor `min_rate x T`, in (fractional) bytes (capped at the
/// fair share where it is applied).
pub(crate) fn min_window(cfg: &RccConfig, t: Delta) -> f64 {
    (cfg.min_rate.bps_f64() / 8.0 * t.as_secs_f64()).max(1.0)
}

/// Which parts of RCC run, and where (§III-G, §V-D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RccVariant {
    /// `rcc`: EWA and PID at the receiver (Algorithm 1).
    Full,
    /// `rcc-sender`: detection and PID at the sender on RTTs.
    Sender,
    /// `rcc-ewa`: the fair share only.
    Ewa,
    /// `rcc-pid`: PID only, capped by the line-rate window.
    Pid,
}

impl RccVariant {
    pub(crate) const ALL: [RccVariant; 4] = [
        RccVariant::Full,
        RccVariant::Sender,
        RccVariant::Ewa,
        RccVariant::Pid,
    ];
}

/// `rcc` and its variants: the `[cc.rcc]` parameters and which variant.
#[derive(Clone, Debug, PartialEq)]
pub struct RccKind {
    cfg: RccConfig,
    variant: RccVariant,
}

impl Algorithm for RccKind {
    type Flow = RccSender;
    type Table = RccConfig;
    /// In the order of [`RccVariant::ALL`].
    const NAMES: &'static [&'static str] = &["rcc", "rcc-sender", "rcc-ewa", "rcc-pid"];
    fn resolve(name: &str, table: &RccConfig) -> Result<Self, ParamError> {
        Ok(RccKind {
            cfg: checked(table, RccConfig::validate)?,
            variant: member(Self::NAMES, &RccVariant::ALL, name),
        })
    }
    fn name(&self) -> &'static str {
        Self::NAMES[self.variant as usize]
    }
    fn new_flow(&self, ctx: &FlowCtx) -> RccSender {
        RccSender::new(&self.cfg, self.variant, ctx)
    }
    fn receiver(&self) -> Option<ReceiverKind> {
        Some(ReceiverKind::Rcc(self.cfg.clone(), self.variant))
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        Some(self.cfg.min_rate)
    }
}

/// How the controller last classified the flow's congestion (RCC Fig. 15's flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Congestion {
    /// Not classified (no receiver-driven control, or nothing seen yet).
    #[default]
    Unknown,
    /// The last hop is not busy and no in-network congestion was detected.
    None,
    /// The receiver's last hop runs at `eta` of its rate: EWA governs (C1).
    LastHop,
    /// In-network congestion detected: the flow is in PID for good (C2).
    InNetwork,
}

/// Congestion detection and the PID controller, on delay samples in seconds.
#[derive(Clone, Debug)]
pub(crate) struct RccCore {
    n: u32,
    threshold: f64,
    target: f64,
    kp: f64,
    kd: f64,
    interval: Delta,
    base: f64,
    w_min: f64,
    consecutive: u32,
    in_pid: bool,
    u: f64,
    /// The previous per-RTT delay sample (Table I's `last_rtt`), for `E(t-1)`.
    last_delay: Option<f64>,
    next_update: SimTime,
    w: f64,
    class: Congestion,
}

impl RccCore {
    /// `base`: the delay without queueing; `w_init`: the window before any
    /// decision; `w_min`: the floor.
    pub(crate) fn new(
        cfg: &RccConfig,
        base: Delta,
        interval: Delta,
        w_init: f64,
        w_min: f64,
    ) -> Self {
        let b = base.as_secs_f64();
        RccCore {
            n: cfg.n,
            threshold: b * (1.0 + cfg.delta),
            target: b * (1.0 + cfg.delta / 2.0),
            kp: cfg.kp(),
            kd: cfg.kd(),
            interval,
            base: b,
            w_min,
            consecutive: 0,
            in_pid: false,
            u: 0.0,
            last_delay: None,
            next_update: SimTime::ZERO,
            w: w_init.max(w_min),
            class: Congestion::Unknown,
        }
    }

    /// One packet's delay (`delay`, seconds) with the EWA fair share `fair`
    /// (bytes) and whether the receiver's last hop is busy; returns the window.
    /// The delay-driven parts (Eq. 1 detection, the PID) take one sample per RTT;
    /// the fair share and the cap apply to every packet.
    pub(crate) fn on_sample(
        &mut self,
        now: SimTime,
        delay: f64,
        fair: f64,
        busy: bool,
        variant: RccVariant,
    ) -> f64 {
        let sample = now >= self.next_update;
        let mut prev = None;
        if sample {
            prev = self.last_delay.replace(delay);
            // One sample per RTT R = d + queueing (Eq. 6 and 9 advance by R).
            let queueing = Delta::from_secs_f64((delay - self.base).max(0.0));
            self.next_update = now + self.interval + queueing;
        }
        // The floor never raises the fair share: N fair shares fill the link
        // exactly (W = C x T / N, §III-D), so N floors must not exceed it.
        let floor = self.w_min.min(fair);
        match variant {
            RccVariant::Ewa => {
                self.w = fair;
                self.class = if busy {
                    Congestion::LastHop
                } else {
                    Congestion::None
                };
            }
            RccVariant::Full | RccVariant::Sender | RccVariant::Pid => {
                // rcc-pid has no EWA: `fair` is the line-rate window, `busy` unused.
                let last_hop = busy && variant != RccVariant::Pid;
                if self.in_pid {
                    // Lines 6-9.
                    if sample {
                        self.pid_step(delay, prev, floor, fair);
                    }
                    self.w = self.w.clamp(floor, fair);
                } else if last_hop {
                    // Lines 10-11: the detection is not run, its count stands.
                    self.w = fair;
                    self.class = Congestion::LastHop;
                } else if sample && self.detect(delay) {
                    // Lines 13-15.
                    self.in_pid = true;
                    self.class = Congestion::InNetwork;
                    self.pid_step(delay, prev, floor, fair);
                } else {
                    // Lines 16-17.
                    self.w = fair;
                    self.class = Congestion::None;
                }
            }
        }
        self.w
    }

    /// CONGESTIONDETECTION (Alg. 1 line 13, Eq. 1) on one per-RTT sample: true
    /// once `n` consecutive samples it was given exceed `base (1 + delta)`.
    fn detect(&mut self, delay: f64) -> bool {
        self.consecutive = if delay > self.threshold {
            self.consecutive.saturating_add(1)
        } else {
            0
        };
        self.consecutive >= self.n
    }

    /// Eq. (3)-(5), one step; `prev` is the previous sample, for `E(t-1)`;
    /// the window stays within `[floor, cap]`.
    fn pid_step(&mut self, delay: f64, prev: Option<f64>, floor: f64, cap: f64) {
        let e = delay - self.target;
        let e_prev = prev.map_or(0.0, |d| d - self.target);
        self.u += self.kp * e + self.kd * (e - e_prev);
        self.w = (self.w * (1.0 - self.u.tanh())).clamp(floor, cap);
        if self.w >= cap && self.u < 0.0 {
            self.u = 0.0; // anti-windup at the fair share
        }
        if self.w <= floor && self.u > 0.0 {
            self.u = 0.0; // and at the floor
        }
    }

    #[cfg(test)]
    pub(crate) fn window(&self) -> f64 {
        self.w
    }
    #[cfg(test)]
    pub(crate) fn in_pid(&self) -> bool {
        self.in_pid
    }
    pub(crate) fn class(&self) -> Congestion {
        self.class
    }
    #[cfg(test)]
    pub(crate) fn control_factor(&self) -> f64 {
        self.u
    }
}

/// The RCC sender: window from the receiver's ACKs (or, for `rcc-sender`, from its
/// own [`RccCore`] on RTT samples), pacing at `W / T`.
#[derive(Clone, Debug)]
pub struct RccSender {
    t_s: f64,
    line_bps: f64,
    w_max: f64,
    window: u64,
    pacing: Rate,
    /// Present for `rcc-sender` only.
    core: Option<Box<RccCore>>,
}

impl RccSender {
    pub(crate) fn new(cfg: &RccConfig, variant: RccVariant, ctx: &FlowCtx) -> Self {
        let t = ctx.base_rtt;
        let w_max = ctx.line_rate.bytes_in(t) as f64;
        let w_min = min_window(cfg, t).min(w_max);
        let core = (variant == RccVariant::Sender).then(|| {
            let interval = cfg.update_interval.unwrap_or(ctx.pair_rtt);
            Box::new(RccCore::new(cfg, ctx.pair_rtt, interval, w_max, w_min))
        });
        let mut s = RccSender {
            t_s: t.as_secs_f64(),
            line_bps: ctx.line_rate.bps_f64(),
            w_max,
            window: 0,
            pacing: Rate(0),
            core,
        };
        s.set_window(w_max);
        s
    }

    /// The window the controller (the receiver, or `rcc-sender`'s own core)
    /// decided; the floor is the controller's, so it is not applied again here.
    fn set_window(&mut self, w: f64) {
        let w = w.clamp(1.0, self.w_max);
        self.window = w.round().max(1.0) as u64;
        self.pacing = Rate::from_bps_f64((w * 8.0 / self.t_s).min(self.line_bps));
    }
}

impl CongestionControl for RccSender {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let w = match self.core.as_mut() {
            Some(core) => {
                let fair = ack.rx_window.map_or(self.w_max, |w| w as f64);
                core.on_sample(
                    ack.now,
                    ack.rtt().as_secs_f64(),
                    fair,
                    ack.rx_busy,
                    RccVariant::Sender,
                )
            }
            None => match ack.rx_window {
                Some(w) => w as f64,
                None => return,
            },
        };
        self.set_window(w);
    }

    #[inline]
    fn rate(&self) -> Rate {
        self.pacing
    }

    #[inline]
    fn window(&self) -> Option<u64> {
        Some(self.window)
    }

    fn congestion(&self) -> Congestion {
        self.core
            .as_ref()
            .map_or(Congestion::Unknown, |c| c.class())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::flow_ctx;

    const BASE_US: u64 = 4;

    fn core() -> RccCore {
        // Window 100 KB, floor 1 KB, PID every 10 us.
        RccCore::new(
            &RccConfig::default(),
            Delta::from_us(BASE_US),
            Delta::from_us(10),
            100_000.0,
            1_000.0,
        )
    }

    fn us(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }

    #[test]
    fn the_gains_default_to_section_v_a_and_deployment_is_in_section_iv_d_range() {
        let parse = |t: &str| toml::from_str::<RccConfig>(t).expect("valid");
        let d = parse("");
        assert_eq!((d.kp(), d.kd()), (1e4, 1e5));
        let dep = parse("gains = \"deployment\"");
        assert!((1.0..=16.0).contains(&dep.kp()) && (1e3..=7e3).contains(&dep.kd()));
        // An explicit gain overrides the named pair, the other one stays.
        let o = parse("gains = \"deployment\"\nkd = 2e3");
        assert_eq!((o.kp(), o.kd()), (dep.kp(), 2e3));
        let c = RccCore::new(&o, Delta::from_us(4), Delta::from_us(10), 1e5, 1e3);
        assert_eq!((c.kp, c.kd), (dep.kp(), 2e3));
    }

    #[test]
    fn ewa_gives_the_fair_share_while_no_congestion_is_detected() {
        let mut c = core();
        let w = c.on_sample(us(0), 4e-6, 50_000.0, false, RccVariant::Full);
        assert_eq!(w, 50_000.0);
        assert_eq!(c.class(), Congestion::None);
        // High delays with a busy last hop: still the fair share (C1).
        for k in 0..5 {
            let w = c.on_sample(us(k), 6e-6, 25_000.0, true, RccVariant::Full);
            assert_eq!(w, 25_000.0);
        }
        assert!(!c.in_pid());
        assert_eq!(c.class(), Congestion::LastHop);
    }

    #[test]
    fn the_floor_never_raises_a_fair_share_so_many_flows_fit_the_link() {
        // 1001 flows on a 150 KB line window: each fair share is ~150 B, below
        // the 1 KB floor. Raising them to the floor would offer 6.7x the link.
        let mut c = core();
        let fair = 150_000.0 / 1001.0;
        let w = c.on_sample(us(0), 4e-6, fair, true, RccVariant::Full);
        assert_eq!(w, fair);
        // In PID too the window stays within the fair share.
        for k in 0..6 {
            c.on_sample(us(20 * k), 9e-6, fair, false, RccVariant::Full);
        }
        assert!(c.in_pid());
        assert!(c.window() <= fair, "{} > {fair}", c.window());
        // With a fair share above the floor, PID's cuts stop at the floor.
        let mut c = core();
        for k in 0..40 {
            c.on_sample(us(20 * k), 20e-6, 50_000.0, false, RccVariant::Full);
        }
        assert_eq!(c.window(), 1_000.0);
    }

    #[test]
    fn n_consecutive_high_delays_without_a_busy_last_hop_enter_pid_for_good() {
        let mut c = core();
        // Threshold 4 us x 1.2 = 4.8 us; one sample per RTT (10 us + queueing).
        // Two high samples, one low: the counter resets.
        c.on_sample(us(0), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(20), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(40), 4.5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(60), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(80), 5e-6, 50_000.0, false, RccVariant::Full);
        // Packets within the same RTT are not new samples.
        for k in 81..90 {
            c.on_sample(us(k), 9e-6, 50_000.0, false, RccVariant::Full);
        }
        assert!(!c.in_pid());
        c.on_sample(us(100), 5e-6, 50_000.0, false, RccVariant::Full);
        assert!(c.in_pid());
        assert_eq!(c.class(), Congestion::InNetwork);
        // Even with a busy last hop and low delays it stays in PID.
        c.on_sample(us(100), 4e-6, 50_000.0, true, RccVariant::Full);
        assert!(c.in_pid());
    }

    #[test]
    fn high_delays_while_the_last_hop_is_busy_do_not_count_toward_detection() {
        // Alg. 1 runs CONGESTIONDETECTION only when the last hop is not busy
        // (line 13): three high samples while busy, then one after, is one.
        let mut c = core();
        for k in 0..3 {
            c.on_sample(us(20 * k), 5e-6, 50_000.0, true, RccVariant::Full);
        }
        c.on_sample(us(60), 5e-6, 50_000.0, false, RccVariant::Full);
        assert!(!c.in_pid(), "one high sample after the busy period");
        assert_eq!(c.class(), Congestion::None);
        c.on_sample(us(80), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(100), 5e-6, 50_000.0, false, RccVariant::Full);
        assert!(c.in_pid(), "three high samples the detection saw");
    }

    #[test]
    fn a_busy_spell_neither_advances_nor_resets_the_detection_count() {
        // The detection keeps its own count and only sees the samples it is
        // given: two high samples, a busy spell, then a third one detect.
        let mut c = core();
        c.on_sample(us(0), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(20), 5e-6, 50_000.0, false, RccVariant::Full);
        c.on_sample(us(40), 4e-6, 50_000.0, true, RccVariant::Full);
        c.on_sample(us(60), 4e-6, 50_000.0, true, RccVariant::Full);
        assert!(!c.in_pid());
        c.on_sample(us(80), 5e-6, 50_000.0, false, RccVariant::Full);
        assert!(c.in_pid());
    }

    #[test]
    fn the_pid_step_follows_eq_3_to_5_in_seconds() {
        let mut c = core();
        for k in 0..2 {
            c.on_sample(us(20 * k), 5e-6, 50_000.0, false, RccVariant::Full);
        }
        // Third high sample: enter PID and step at once. E = 5.2 - 4 x 1.1 =
        // 0.8 us; E(t-1) is the previous sample's, 0.6 us (Table I's last_rtt):
        // U = 1e4 x 0.8e-6 + 1e5 x (0.8e-6 - 0.6e-6) = 0.008 + 0.02.
        let w = c.on_sample(us(40), 5.2e-6, 50_000.0, false, RccVariant::Full);
        let u1: f64 = 0.028;
        assert!((c.control_factor() - u1).abs() < 1e-12);
        let w1 = 50_000.0 * (1.0 - u1.tanh());
        assert!((w - w1).abs() < 1e-6);
        // Within one RTT (10 us + 1.2 us of queueing) only the cap applies.
        assert_eq!(
            c.on_sample(us(50), 9e-6, 50_000.0, false, RccVariant::Full),
            w1
        );
        // Next step: E = 1.0 us, dE = 0.2 us: U += 0.01 + 0.02.
        let w2 = c.on_sample(us(60), 5.4e-6, 50_000.0, false, RccVariant::Full);
        let u2 = u1 + 0.01 + 0.02;
        assert!((c.control_factor() - u2).abs() < 1e-12);
        assert!((w2 - w1 * (1.0 - u2.tanh())).abs() < 1e-6);
    }

    #[test]
    fn the_fair_share_caps_the_pid_window_and_unwinds_u() {
        let mut c = core();
        for k in 0..3 {
            c.on_sample(us(20 * k), 5e-6, 50_000.0, false, RccVariant::Full);
        }
        assert!(c.in_pid());
        // Queue gone: E < 0, U goes negative and W grows until the cap.
        let mut t = 60;
        for _ in 0..200 {
            c.on_sample(us(t), 4e-6, 50_000.0, false, RccVariant::Full);
            t += 20;
        }
        assert_eq!(c.window(), 50_000.0);
        assert_eq!(c.control_factor(), 0.0, "no wind-up at the cap");
        // A new flow halves the fair share: the cap applies before the next step.
        assert_eq!(
            c.on_sample(us(t + 1), 4e-6, 25_000.0, false, RccVariant::Full),
            25_000.0
        );
    }

    #[test]
    fn ewa_only_ignores_delays_and_pid_only_ignores_the_last_hop() {
        let mut e = core();
        for k in 0..10 {
            assert_eq!(
                e.on_sample(us(k), 50e-6, 30_000.0, false, RccVariant::Ewa),
                30_000.0
            );
        }
        assert!(!e.in_pid());
        let mut p = core();
        for k in 0..3 {
            p.on_sample(us(20 * k), 6e-6, 100_000.0, true, RccVariant::Pid);
        }
        assert!(p.in_pid(), "a busy last hop does not stop rcc-pid");
    }

    #[test]
    fn the_sender_follows_the_receivers_window_and_paces_at_w_over_t() {
        let ctx = flow_ctx(100, 10, 8);
        let mut s = RccSender::new(&RccConfig::default(), RccVariant::Full, &ctx);
        assert_eq!(s.window(), Some(125_000));
        assert_eq!(s.rate(), Rate::from_gbps(100));
        let ack = AckInfo {
            now: us(10),
            seq: 1000,
            snd_nxt: 10_000,
            newly_acked: 1000,
            is_nack: false,
            ecn_echo: false,
            int: &[],
            pint: 0,
            data_sent_at: us(1),
            rx_window: Some(31_250),
            rx_busy: true,
            grant: None,
        };
        s.on_ack(&ack);
        assert_eq!(s.window(), Some(31_250));
        assert_eq!(s.rate(), Rate::from_gbps(25));
    }
}
