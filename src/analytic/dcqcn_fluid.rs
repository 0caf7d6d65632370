//! The DCQCN fluid model, DCQCN §5.1, Eq. (5)-(11), and its fixed point.
//!
//! N greedy flows share one bottleneck of capacity C (PFC ignored, as in §5.1):
//!
//! * Eq. (5): RED marking, `p(q) = 0` below `K_min`, `(q - K_min)/(K_max - K_min) P_max`
//!   up to `K_max`, 1 above;
//! * Eq. (6): `dq/dt = N R_C - C` (and Eq. (11), `dq/dt = sum_i R_Ci - C`, for flows
//!   with different rates, each with its own Eq. (7)-(9));
//! * Eq. (7): `dalpha/dt = g/tau' ((1 - (1-p*)^(tau' R_C*)) - alpha)`;
//! * Eq. (8): target rate: cut towards `R_C` when a CNP arrives, additive increase
//!   `R_AI` on byte-counter and timer expiries past the `F` fast-recovery stages;
//! * Eq. (9): current rate: cut by `alpha/2` on a CNP, recover half-way to `R_T` on
//!   every byte-counter or timer expiry.
//!
//! A star (`p*`, `R_C*`) is the value at `t - tau*`, the control-loop delay. Rates
//! count packets per second and queues packets, so that `tau R_C` and `B` are packet
//! counts as in the paper; the public API speaks bits/s and bytes.
//!
//! Reading the equations (choices the paper leaves open, named here once):
//! * `tau` in Eq. (8)-(9) is not in Table 2; it is the window over which at least
//!   one marked packet produces a CNP, i.e. the NP's CNP interval (§3.1: 50 us).
//! * The packet size is not stated; we use rocesim's default payload (1000 B), so
//!   `B = 10 MB` is 10^4 packets. Rates and queues do not depend on it at the fixed
//!   point; `p` (a per-packet probability) scales inversely with it.
//! * The RP never exceeds line rate (Fig. 7 caps `R_T` and `R_C`); Eq. (8)-(9) say
//!   nothing about it, so we add the cap as a one-sided limit (`line_rate`;
//!   without it a lone flow's `R_T` grows without bound at an idle link).
//! * `q >= 0`: the queue's derivative is clipped at an empty queue.
//!
//! The fixed point (Eq. 10) has `R_C = C/N`; setting Eq. (7)-(9) to zero leaves one
//! equation in `p` (`alpha` and `R_T` follow from it), solved by bisection in
//! [`fixed_point`]. Defaults are the deployment parameters (DCQCN Fig. 14) with the
//! Table 2 constants: C = 40 Gbps (§6.1 testbed), N = 2, K_min = 5 KB,
//! K_max = 200 KB, P_max = 1 %, g = 1/256, F = 5, B = 10 MB, T = 55 us,
//! R_AI = 40 Mbps, tau* = 50 us and tau' = 55 us (§5.2). [`DcqcnFluidParams::strawman`]
//! gives the QCN/DCTCP values of §5.2.
//!
//! Integration: [`super::dde::Rk4Dde`] with step `h = 0.5 us` (tau*/100). Halving
//! it moved the rates by at most 8e-5 C and the queue by 0.16 KB over the default
//! 100 ms run (which starts with a 2 x 40 Gbps burst), and by 3e-6 C and 1 B over
//! the 200 ms Fig. 11 run; `halving_the_step_changes_little` asserts 2e-4 C /
//! 0.4 KB and 1e-5 C / 10 B. With cut-off marking (K_min = K_max, the strawman)
//! Eq. (5) is discontinuous and trajectories are step-sensitive (up to 0.11 C
//! apart), though the unfairness finding is the same at every step we tried.

use super::dde::{DelaySystem, Rk4Dde};
use crate::error::InputError;
use crate::units::{Bytes, Delta, Rate};
use serde::{Deserialize, Serialize};

/// Parameters of the DCQCN fluid model (DCQCN Table 2) plus integration settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DcqcnFluidParams {
    /// Bottleneck capacity C. §6.1 testbed: 40 Gbps.
    pub capacity: Rate,
    /// Number of flows N. Fig. 10/11: 2.
    pub flows: u32,
    /// RED thresholds and probability (Eq. 5). Fig. 14: 5 KB, 200 KB, 1 %.
    pub kmin: Bytes,
    pub kmax: Bytes,
    pub pmax: f64,
    /// alpha gain g (Eq. 7). Fig. 14: 1/256.
    pub g: f64,
    /// Fast-recovery stages F. §3.1: 5.
    pub fast_recovery: u32,
    /// Byte counter B. Fig. 14: 10 MB.
    pub byte_counter: Bytes,
    /// Rate-increase timer T. Fig. 14: 55 us.
    pub timer: Delta,
    /// Additive increase R_AI. Table 2: 40 Mbps.
    pub rate_ai: Rate,
    /// Control-loop delay tau*. §5.1: 50 us.
    pub loop_delay: Delta,
    /// alpha update interval tau' (Eq. 7). §5.2: 55 us.
    pub alpha_interval: Delta,
    /// CNP generation interval tau (Eq. 8, 9). §3.1: 50 us.
    pub cnp_interval: Delta,
    /// Packet size that turns bytes into the model's packet counts. 1000 B.
    pub packet: Bytes,
    /// RP line rate, the cap on R_C and R_T (Fig. 7). Default: the capacity.
    pub line_rate: Option<Rate>,
    /// Initial rate of each flow: one value for all or one per flow. Default:
    /// line rate (§3.1: no slow start).
    pub initial_rates: Vec<Rate>,
    /// Start time of each flow: empty (all at 0) or one per flow.
    pub starts: Vec<Delta>,
    /// Simulated time. Fig. 10: 100 ms.
    pub duration: Delta,
    /// Integration step h (see the module doc for its error).
    pub step: Delta,
    /// Interval between recorded samples.
    pub sample: Delta,
}

impl Default for DcqcnFluidParams {
    fn default() -> Self {
        DcqcnFluidParams {
            capacity: Rate::from_gbps(40),
            flows: 2,
            kmin: Bytes(5_000),
            kmax: Bytes(200_000),
            pmax: 0.01,
            g: 1.0 / 256.0,
            fast_recovery: 5,
            byte_counter: Bytes(10_000_000),
            timer: Delta::from_us(55),
            rate_ai: Rate::from_mbps(40),
            loop_delay: Delta::from_us(50),
            alpha_interval: Delta::from_us(55),
            cnp_interval: Delta::from_us(50),
            packet: Bytes(1000),
            line_rate: None,
            initial_rates: Vec::new(),
            starts: Vec::new(),
            duration: Delta::from_ms(100),
            step: Delta::from_ns(500),
            sample: Delta::from_us(10),
        }
    }
}

impl DcqcnFluidParams {
    /// The strawman of §5.2, the QCN and DCTCP recommendations: B = 150 KB,
    /// T = 1.5 ms, K_min = K_max = 40 KB, P_max = 1, g = 1/16; one flow starts at
    /// 40 Gbps and the other at 0, solved for 200 ms.
    pub fn strawman() -> Self {
        DcqcnFluidParams {
            byte_counter: Bytes(150_000),
            timer: Delta::from_us(1500),
            kmin: Bytes(40_000),
            kmax: Bytes(40_000),
            pmax: 1.0,
            g: 1.0 / 16.0,
            ..Self::fig11_base()
        }
    }

    /// The deployment parameters (Fig. 14) in the two-flow setting of §5.2.
    pub fn fig11_base() -> Self {
        DcqcnFluidParams {
            flows: 2,
            initial_rates: vec![Rate::from_gbps(40), Rate::from_bps(0)],
            duration: Delta::from_ms(200),
            ..Self::default()
        }
    }

    pub fn line(&self) -> Rate {
        self.line_rate.unwrap_or(self.capacity)
    }

    /// Checks every field; the error names the field and what would be valid.
    pub fn validate(&self) -> Result<(), InputError> {
        let bad = |f: &str, m: String| Err(InputError::new("", f, m));
        let pos = |d: Delta| !d.is_zero();
        if self.capacity.bps() == 0 {
            return bad("capacity", "must be > 0, e.g. \"40Gbps\"".into());
        }
        if self.flows == 0 || self.flows > 10_000 {
            return bad("flows", format!("must be in 1..=10000, got {}", self.flows));
        }
        if self.kmin > self.kmax {
            return bad(
                "kmin",
                format!("kmin {} must not exceed kmax {}", self.kmin, self.kmax),
            );
        }
        if !(self.pmax > 0.0 && self.pmax <= 1.0) {
            return bad("pmax", format!("must be in (0, 1], got {}", self.pmax));
        }
        if !(self.g > 0.0 && self.g <= 1.0) {
            return bad("g", format!("must be in (0, 1], got {}", self.g));
        }
        if self.byte_counter.0 == 0 || self.packet.0 == 0 {
            let f = if self.packet.0 == 0 {
                "packet"
            } else {
                "byte_counter"
            };
            return bad(f, "must be > 0 bytes".into());
        }
        for (f, d) in [
            ("timer", self.timer),
            ("loop_delay", self.loop_delay),
            ("alpha_interval", self.alpha_interval),
            ("cnp_interval", self.cnp_interval),
            ("duration", self.duration),
            ("step", self.step),
            ("sample", self.sample),
        ] {
            if !pos(d) {
                return bad(f, "must be > 0, e.g. \"50us\"".into());
            }
        }
        if self.step > self.loop_delay {
            return bad(
                "step",
                format!(
                    "must not exceed loop_delay ({}), got {}",
                    self.loop_delay, self.step
                ),
            );
        }
        if self.duration.ps() / self.step.ps() > 100_000_000 {
            return bad("step", "more than 1e8 steps: use a larger step".into());
        }
        let n = self.flows as usize;
        if !matches!(self.initial_rates.len(), 0 | 1) && self.initial_rates.len() != n {
            return bad(
                "initial_rates",
                format!(
                    "give 1 or {n} (flows) values, got {}",
                    self.initial_rates.len()
                ),
            );
        }
        if !self.starts.is_empty() && self.starts.len() != n {
            return bad(
                "starts",
                format!("give {n} (flows) values or none, got {}", self.starts.len()),
            );
        }
        if let Some(r) = self.initial_rates.iter().find(|r| **r > self.line()) {
            return bad(
                "initial_rates",
                format!("{r} exceeds the line rate {}", self.line()),
            );
        }
        Ok(())
    }

    fn initial_rate(&self, i: usize) -> Rate {
        match self.initial_rates.len() {
            0 => self.line(),
            1 => self.initial_rates[0],
            _ => self.initial_rates[i],
        }
    }

    fn start(&self, i: usize) -> f64 {
        self.starts.get(i).map_or(0.0, |d| d.as_secs_f64())
    }

    /// Whether all flows start together at the same rate (then Eq. 5-9 apply).
    pub fn identical_flows(&self) -> bool {
        let n = self.flows as usize;
        (0..n).all(|i| self.initial_rate(i) == self.initial_rate(0) && self.start(i) == 0.0)
    }
}

/// The parameters in the model's own units: packets, packets/s and seconds.
#[derive(Clone, Debug)]
struct Units {
    c: f64,
    kmin: f64,
    kmax: f64,
    pmax: f64,
    g: f64,
    f: f64,
    b: f64,
    t: f64,
    r_ai: f64,
    tau_star: f64,
    tau_alpha: f64,
    tau: f64,
    line: f64,
    bits_per_packet: f64,
}

impl Units {
    fn new(p: &DcqcnFluidParams) -> Units {
        let bits = p.packet.0 as f64 * 8.0;
        let bytes = p.packet.0 as f64;
        Units {
            c: p.capacity.bps_f64() / bits,
            kmin: p.kmin.0 as f64 / bytes,
            kmax: p.kmax.0 as f64 / bytes,
            pmax: p.pmax,
            g: p.g,
            f: p.fast_recovery as f64,
            b: p.byte_counter.0 as f64 / bytes,
            t: p.timer.as_secs_f64(),
            r_ai: p.rate_ai.bps_f64() / bits,
            tau_star: p.loop_delay.as_secs_f64(),
            tau_alpha: p.alpha_interval.as_secs_f64(),
            tau: p.cnp_interval.as_secs_f64(),
            line: p.line().bps_f64() / bits,
            bits_per_packet: bits,
        }
    }

    /// Eq. (5): marking probability at queue `q` (packets).
    fn mark(&self, q: f64) -> f64 {
        if q <= self.kmin {
            0.0
        } else if q <= self.kmax {
            (q - self.kmin) / (self.kmax - self.kmin) * self.pmax
        } else {
            1.0
        }
    }
}

/// The event rates and probabilities of Eq. (7)-(9) for one flow, given the
/// delayed marking probability `p` and rate `r` (packets/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// `1 - (1-p)^(tau R)`: probability of a CNP in one CNP interval.
    pub cut: f64,
    /// `1 - (1-p)^(tau' R)`: the same over one alpha interval (Eq. 7).
    pub cut_alpha: f64,
    /// Byte-counter expiries per second, `R p / ((1-p)^-B - 1)`.
    pub byte_events: f64,
    /// Timer expiries per second, `R p / ((1-p)^(-T R) - 1)`.
    pub timer_events: f64,
    /// `(1-p)^(F B)`: the byte counter is past fast recovery.
    pub byte_ai: f64,
    /// `(1-p)^(F T R)`: the timer is past fast recovery.
    pub timer_ai: f64,
}

/// `x / (e^x - 1)`, 1 at 0.
fn phi(x: f64) -> f64 {
    if x < 1e-12 {
        1.0 - x / 2.0
    } else {
        x / x.exp_m1()
    }
}

impl Units {
    /// The terms of Eq. (7)-(9), written so that `p -> 0` and `R -> 0` are exact
    /// limits rather than 0/0.
    fn feedback(&self, p: f64, r: f64) -> Feedback {
        let r = r.max(0.0);
        if p >= 1.0 {
            let cut = if r > 0.0 { 1.0 } else { 0.0 };
            return Feedback {
                cut,
                cut_alpha: cut,
                byte_events: 0.0,
                timer_events: 0.0,
                byte_ai: 0.0,
                timer_ai: 0.0,
            };
        }
        // L = -ln(1-p) >= 0, so (1-p)^n = e^(-nL).
        let l = -(-p).ln_1p();
        let psi = if p < 1e-12 { 1.0 } else { p / l };
        Feedback {
            cut: -(-self.tau * r * l).exp_m1(),
            cut_alpha: -(-self.tau_alpha * r * l).exp_m1(),
            byte_events: r / self.b * phi(self.b * l) * psi,
            timer_events: phi(self.t * r * l) * psi / self.t,
            byte_ai: (-self.f * self.b * l).exp(),
            timer_ai: (-self.f * self.t * r * l).exp(),
        }
    }

    /// Eq. (7)-(9) for one flow: (dalpha, dR_T, dR_C).
    fn flow_rhs(&self, alpha: f64, rt: f64, rc: f64, p_lag: f64, rc_lag: f64) -> [f64; 3] {
        let fb = self.feedback(p_lag, rc_lag);
        let d_alpha = self.g / self.tau_alpha * (fb.cut_alpha - alpha);
        let mut d_rt = -(rt - rc) / self.tau * fb.cut
            + self.r_ai * (fb.byte_ai * fb.byte_events + fb.timer_ai * fb.timer_events);
        let mut d_rc = -rc * alpha / (2.0 * self.tau) * fb.cut
            + (rt - rc) / 2.0 * (fb.byte_events + fb.timer_events);
        // Line-rate cap (Fig. 7): a one-sided limit.
        if rt >= self.line && d_rt > 0.0 {
            d_rt = 0.0;
        }
        if rc >= self.line && d_rc > 0.0 {
            d_rc = 0.0;
        }
        [d_alpha, d_rt, d_rc]
    }

    fn clamp_flow(&self, x: &mut [f64]) {
        x[0] = x[0].clamp(0.0, 1.0);
        x[1] = x[1].clamp(0.0, self.line);
        x[2] = x[2].clamp(0.0, self.line);
    }
}

/// The fluid model as a delay system. State: `[q, (alpha, R_T, R_C) per flow]`.
/// With `copies = N` and one flow it is Eq. (5)-(9); with `copies = 1` and N flows
/// it is the per-flow model coupled by Eq. (11).
#[derive(Clone, Debug)]
struct FluidSystem {
    u: Units,
    copies: f64,
    flows: usize,
    /// Flows not yet started neither send nor evolve.
    active: Vec<bool>,
}

impl DelaySystem for FluidSystem {
    fn dim(&self) -> usize {
        1 + 3 * self.flows
    }
    fn delay(&self) -> f64 {
        self.u.tau_star
    }
    fn rhs(&self, _t: f64, x: &[f64], lag: &[f64], dx: &mut [f64]) {
        let p_lag = self.u.mark(lag[0]);
        let mut arrival = 0.0;
        for i in 0..self.flows {
            let s = 1 + 3 * i;
            if !self.active[i] {
                dx[s..s + 3].fill(0.0);
                continue;
            }
            arrival += self.copies * x[s + 2].max(0.0);
            let d = self.u.flow_rhs(x[s], x[s + 1], x[s + 2], p_lag, lag[s + 2]);
            dx[s..s + 3].copy_from_slice(&d);
        }
        // Eq. (6) / (11), clipped at an empty queue.
        let dq = arrival - self.u.c;
        dx[0] = if x[0] <= 0.0 { dq.max(0.0) } else { dq };
    }
    fn project(&self, x: &mut [f64]) {
        x[0] = x[0].max(0.0);
        for i in 0..self.flows {
            self.u.clamp_flow(&mut x[1 + 3 * i..4 + 3 * i]);
        }
    }
}

/// A solution of the fluid model, sampled every `params.sample`.
#[derive(Clone, Debug, PartialEq)]
pub struct FluidTrace {
    /// Number of flows each trajectory stands for: N for the identical-flow model
    /// (one trajectory), 1 for the per-flow model.
    pub copies: u32,
    /// Sample times, seconds.
    pub time: Vec<f64>,
    /// Bottleneck queue, bytes.
    pub queue: Vec<f64>,
    /// Marking probability p(q) (Eq. 5), not delayed.
    pub p: Vec<f64>,
    /// Per trajectory: current rate R_C and target rate R_T (bits/s), alpha.
    pub rc: Vec<Vec<f64>>,
    pub rt: Vec<Vec<f64>>,
    pub alpha: Vec<Vec<f64>>,
}

impl FluidTrace {
    /// Index of the first sample at or after `t` seconds.
    pub fn index_at(&self, t: f64) -> usize {
        self.time.partition_point(|&s| s < t - 1e-12)
    }
    /// Mean of `v` over samples at or after `t`.
    pub fn mean_from(&self, v: &[f64], t: f64) -> f64 {
        let tail = &v[self.index_at(t).min(v.len().saturating_sub(1))..];
        tail.iter().sum::<f64>() / tail.len() as f64
    }
}

/// Solves the model: the identical-flow model (Eq. 5-9) when every flow starts
/// together at the same rate, else the per-flow model (Eq. 7-9 per flow, Eq. 11).
pub fn solve(params: &DcqcnFluidParams) -> FluidTrace {
    if params.identical_flows() {
        solve_identical(params)
    } else {
        solve_per_flow(params)
    }
}

/// Eq. (5)-(9): N identical flows as one trajectory.
pub fn solve_identical(params: &DcqcnFluidParams) -> FluidTrace {
    let u = Units::new(params);
    let r0 = params.initial_rate(0).bps_f64() / u.bits_per_packet;
    let sys = FluidSystem {
        u,
        copies: params.flows as f64,
        flows: 1,
        active: vec![true],
    };
    integrate(sys, params, &[0.0, 1.0, r0, r0], &[0.0])
}

/// Eq. (7)-(9) for each flow, coupled by Eq. (11).
pub fn solve_per_flow(params: &DcqcnFluidParams) -> FluidTrace {
    let u = Units::new(params);
    let n = params.flows as usize;
    let mut x0 = vec![0.0; 1 + 3 * n];
    let starts: Vec<f64> = (0..n).map(|i| params.start(i)).collect();
    for i in 0..n {
        let r = params.initial_rate(i).bps_f64() / u.bits_per_packet;
        x0[1 + 3 * i..4 + 3 * i].copy_from_slice(&[1.0, r, r]);
    }
    let sys = FluidSystem {
        u,
        copies: 1.0,
        flows: n,
        active: vec![false; n],
    };
    integrate(sys, params, &x0, &starts)
}

/// Runs the integrator; a flow's state is (re)set to its initial value when it
/// starts, and it sends nothing before.
fn integrate(
    sys: FluidSystem,
    params: &DcqcnFluidParams,
    x0: &[f64],
    starts: &[f64],
) -> FluidTrace {
    let n = sys.flows;
    let h = params.step.as_secs_f64();
    let steps = params.duration.ps() / params.step.ps();
    let every = (params.sample.ps() / params.step.ps()).max(1);
    // Inactive flows contribute R_C = 0 to the history.
    let mut x = x0.to_vec();
    for i in 0..n {
        if starts[i] > 0.0 {
            x[1 + 3 * i + 2] = 0.0;
        }
    }
    let mut r = Rk4Dde::new(sys, 0.0, &x, h);
    let bits = r.sys.u.bits_per_packet;
    let bytes = bits / 8.0;
    let mut tr = FluidTrace {
        copies: r.sys.copies as u32,
        time: Vec::new(),
        queue: Vec::new(),
        p: Vec::new(),
        rc: vec![Vec::new(); n],
        rt: vec![Vec::new(); n],
        alpha: vec![Vec::new(); n],
    };
    for k in 0..=steps {
        let t = k as f64 * h;
        // Start flows whose time has come (within half a step).
        let mut changed = false;
        let mut xs = r.state().to_vec();
        for i in 0..n {
            if !r.sys.active[i] && starts[i] <= t + h / 2.0 {
                r.sys.active[i] = true;
                xs[1 + 3 * i..4 + 3 * i].copy_from_slice(&x0[1 + 3 * i..4 + 3 * i]);
                changed = true;
            }
        }
        if changed {
            r.set_state(&xs);
        }
        if k % every == 0 {
            let s = r.state();
            tr.time.push(t);
            tr.queue.push(s[0] * bytes);
            tr.p.push(r.sys.u.mark(s[0]));
            for i in 0..n {
                tr.alpha[i].push(s[1 + 3 * i]);
                tr.rt[i].push(s[2 + 3 * i] * bits);
                tr.rc[i].push(s[3 + 3 * i] * bits);
            }
        }
        if k < steps {
            r.step();
        }
    }
    tr
}

/// The fixed point of Eq. (5)-(9) for N identical flows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedPoint {
    /// R_C = C/N (Eq. 10), bits/s.
    pub rate: f64,
    /// Target rate R_T, bits/s.
    pub target: f64,
    pub alpha: f64,
    /// Marking probability p.
    pub p: f64,
    /// Queue that gives p through Eq. (5), bytes; with a cut-off (K_min = K_max) or
    /// p above P_max it sits on a jump of Eq. (5) and is K_max.
    pub queue: f64,
}

/// Solves Eq. (7)-(9) = 0 at R_C = C/N for p (bisection in log p), then alpha
/// (Eq. 7), R_T (Eq. 9) and q (Eq. 5 inverted).
///
/// With `a = 1-(1-p)^(tau R)`, byte/timer event rates `E_B`, `E_T` and AI
/// probabilities `A_B`, `A_T` (see [`Feedback`]): Eq. (9) = 0 gives
/// `R_T - R = R alpha a / (tau (E_B + E_T))`, and Eq. (8) = 0 then reads
/// `F(p) = R alpha a^2 - tau^2 R_AI (A_B E_B + A_T E_T)(E_B + E_T) = 0`,
/// negative at p -> 0 and positive at p -> 1.
pub fn fixed_point(params: &DcqcnFluidParams) -> FixedPoint {
    let u = Units::new(params);
    let r = u.c / params.flows as f64;
    let parts = |p: f64| {
        let fb = u.feedback(p, r);
        let alpha = fb.cut_alpha;
        let events = fb.byte_events + fb.timer_events;
        let ai = fb.byte_ai * fb.byte_events + fb.timer_ai * fb.timer_events;
        let f = r * alpha * fb.cut * fb.cut - u.tau * u.tau * u.r_ai * ai * events;
        (f, alpha, fb.cut, events)
    };
    let (mut lo, mut hi) = ((1e-15f64).ln(), (1.0 - 1e-15f64).ln());
    assert!(
        parts(lo.exp()).0 < 0.0 && parts(hi.exp()).0 > 0.0,
        "no sign change"
    );
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if parts(mid.exp()).0 < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let p = (0.5 * (lo + hi)).exp();
    let (_, alpha, cut, events) = parts(p);
    let target = r + r * alpha * cut / (u.tau * events);
    let queue_pkts = if u.kmax > u.kmin && p <= u.pmax {
        u.kmin + p / u.pmax * (u.kmax - u.kmin)
    } else {
        u.kmax
    };
    FixedPoint {
        rate: r * u.bits_per_packet,
        target: target * u.bits_per_packet,
        alpha,
        p,
        queue: queue_pkts * u.bits_per_packet / 8.0,
    }
}

#[cfg(test)]
#[path = "dcqcn_fluid_tests.rs"]
mod tests;
