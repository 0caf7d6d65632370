//! The RCC fluid model and its stability analysis, RCC §IV (Eq. 6-18, Fig. 4, 5).
//!
//! N long flows share one bottleneck of capacity C; `R = Q/C + d` is the RTT:
//!
//! * Eq. (6): `dW_i/dt = -W_i tanh(U_i) / R`;
//! * Eq. (7): `dQ/dt = sum_i W_i / R - C` (clipped at an empty queue);
//! * Eq. (8): `dR/dt = (1/C) dQ/dt`;
//! * Eq. (9): `dU_i/dt = K_p/R (R - R_ref) + (K_d + K_p/2) dR/dt`.
//!
//! The fixed point (Eq. 10-11) has `R = R_ref`, `U = 0` and `sum_i W_i = C R_ref`.
//! Linearized there (Eq. 13-17), the loop from `U` back to `U` is
//!
//! `G(s) = K (1 + s/z) / (s^2 (s + 1/R_0))`, `K = K_p/R_0^2`, `z = K_p/((K_d + K_p/2) R_0)`.
//!
//! Eq. (18) as printed reads `(1 + z/s)`; multiplying out Eq. (17) gives `(1 + s/z)`,
//! which is also what a numerical linearization of Eq. (6)-(9) gives (tested), and
//! only that form has the positive phase margins of Fig. 4. We use the derived
//! form and keep the printed one ([`g_printed`]) for comparison.
//!
//! Phase margin and loop bandwidth (the gain-crossover frequency `w_c`, rad/s,
//! where `|G| = 1`) come from the frequency response (§IV-C, IV-D); [`pm_grid`]
//! evaluates them over a `(K_p, K_d)` grid (Fig. 4) and [`fig5_rows`] over K_p =
//! 1, 2, ..., 32 and 31 ratios `K_d/K_p` (Fig. 5).
//!
//! Defaults (RCC §V-A, §III-F): C = 100 Gbps, base RTT d = 12 us, delta = 0.2 so
//! `R_ref = d (1 + delta/2) = 13.2 us` (Eq. 2), K_p = 1e4, K_d = 1e5, N = 2.
//! Note what the model implies for fairness: every `U_i` obeys the same Eq. (9)
//! (it depends only on the shared RTT), so flows that start with equal `U_i` keep
//! their window ratios forever; Eq. (11) holds only if the flows start synchronized.
//! Integration: RK4 (no delay) with step 10 ns; halving it changes the windows by
//! < 3e-4 of the fair window (tested; the error is first order in the step
//! because the queue's clip at zero is a kink).

use super::dde::{DelaySystem, Rk4Dde};
use crate::error::InputError;
use crate::units::{Bytes, Delta, Rate};
use serde::{Deserialize, Serialize};

/// Parameters of the RCC fluid model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RccFluidParams {
    /// Bottleneck capacity C. §V-A: 100 Gbps host links.
    pub capacity: Rate,
    /// Number of flows N.
    pub flows: u32,
    /// Propagation (base) RTT d. §V-A: 12 us.
    pub base_rtt: Delta,
    /// delta of Eq. (2); R_ref = d (1 + delta/2). §III-F: 0.2.
    pub delta: f64,
    /// PID gains of Eq. (4)/(9). §V-A: K_p = 1e4, K_d = 1e5.
    pub kp: f64,
    pub kd: f64,
    /// Initial window of each flow (one for all, or one per flow). Default: the
    /// bandwidth-delay product C d (every flow starts at line rate).
    pub initial_windows: Vec<Bytes>,
    /// Simulated time.
    pub duration: Delta,
    /// Integration step.
    pub step: Delta,
    /// Interval between samples.
    pub sample: Delta,
}

impl Default for RccFluidParams {
    fn default() -> Self {
        RccFluidParams {
            capacity: Rate::from_gbps(100),
            flows: 2,
            base_rtt: Delta::from_us(12),
            delta: 0.2,
            kp: 1e4,
            kd: 1e5,
            initial_windows: Vec::new(),
            duration: Delta::from_ms(2),
            step: Delta::from_ns(10),
            sample: Delta::from_ns(500),
        }
    }
}

impl RccFluidParams {
    /// R_ref = RTT^target (Eq. 2), seconds.
    pub fn r_ref(&self) -> f64 {
        self.base_rtt.as_secs_f64() * (1.0 + self.delta / 2.0)
    }

    /// Capacity in bytes per second.
    fn c_bytes(&self) -> f64 {
        self.capacity.bps_f64() / 8.0
    }

    fn initial_window(&self, i: usize) -> f64 {
        match self.initial_windows.len() {
            0 => self.c_bytes() * self.base_rtt.as_secs_f64(),
            1 => self.initial_windows[0].0 as f64,
            _ => self.initial_windows[i].0 as f64,
        }
    }

    pub fn validate(&self) -> Result<(), InputError> {
        let bad = |f: &str, m: String| Err(InputError::new("", f, m));
        if self.capacity.bps() == 0 {
            return bad("capacity", "must be > 0, e.g. \"100Gbps\"".into());
        }
        if self.flows == 0 || self.flows > 10_000 {
            return bad("flows", format!("must be in 1..=10000, got {}", self.flows));
        }
        if !(self.delta > 0.0 && self.delta.is_finite()) {
            return bad("delta", format!("must be > 0, got {}", self.delta));
        }
        for (f, v) in [("kp", self.kp), ("kd", self.kd)] {
            if !(v > 0.0 && v.is_finite()) {
                return bad(f, format!("must be > 0, got {v}"));
            }
        }
        for (f, d) in [
            ("base_rtt", self.base_rtt),
            ("duration", self.duration),
            ("step", self.step),
            ("sample", self.sample),
        ] {
            if d.is_zero() {
                return bad(f, "must be > 0, e.g. \"10ns\"".into());
            }
        }
        if self.duration.ps() / self.step.ps() > 100_000_000 {
            return bad("step", "more than 1e8 steps: use a larger step".into());
        }
        let n = self.flows as usize;
        let k = self.initial_windows.len();
        if k > 1 && k != n {
            return bad(
                "initial_windows",
                format!("give 1 or {n} (flows) values, got {k}"),
            );
        }
        if self.initial_windows.iter().any(|w| w.0 == 0) {
            return bad("initial_windows", "windows must be > 0 bytes".into());
        }
        Ok(())
    }
}

/// Eq. (6)-(9) with state `[Q, W_1..W_N, U_1..U_N]` (bytes, bytes, 1).
#[derive(Clone, Debug)]
struct RccSystem {
    n: usize,
    c: f64,
    d: f64,
    r_ref: f64,
    kp: f64,
    kd: f64,
}

impl RccSystem {
    fn new(p: &RccFluidParams) -> RccSystem {
        RccSystem {
            n: p.flows as usize,
            c: p.c_bytes(),
            d: p.base_rtt.as_secs_f64(),
            r_ref: p.r_ref(),
            kp: p.kp,
            kd: p.kd,
        }
    }
}

impl DelaySystem for RccSystem {
    fn dim(&self) -> usize {
        1 + 2 * self.n
    }
    fn delay(&self) -> f64 {
        0.0
    }
    fn rhs(&self, _t: f64, x: &[f64], _lag: &[f64], dx: &mut [f64]) {
        let q = x[0].max(0.0);
        let r = q / self.c + self.d;
        let (w, u) = x[1..].split_at(self.n);
        let mut dq = w.iter().map(|w| w.max(0.0) / r).sum::<f64>() - self.c;
        if x[0] <= 0.0 {
            dq = dq.max(0.0);
        }
        dx[0] = dq;
        let dr = dq / self.c; // Eq. (8)
        let du = self.kp / r * (r - self.r_ref) + (self.kd + self.kp / 2.0) * dr;
        for i in 0..self.n {
            dx[1 + i] = -w[i] * u[i].tanh() / r;
            dx[1 + self.n + i] = du;
        }
    }
    fn project(&self, x: &mut [f64]) {
        x[0] = x[0].max(0.0);
        for w in &mut x[1..=self.n] {
            *w = w.max(0.0);
        }
    }
}

/// A solution of Eq. (6)-(9).
#[derive(Clone, Debug, PartialEq)]
pub struct RccTrace {
    pub time: Vec<f64>,
    /// Queue, bytes.
    pub queue: Vec<f64>,
    /// RTT R = Q/C + d, seconds.
    pub rtt: Vec<f64>,
    /// Per flow: window (bytes), rate W/R (bits/s), control factor U.
    pub window: Vec<Vec<f64>>,
    pub rate: Vec<Vec<f64>>,
    pub u: Vec<Vec<f64>>,
}

/// Integrates Eq. (6)-(9) from an empty queue and `U = 0`.
pub fn solve(p: &RccFluidParams) -> RccTrace {
    let sys = RccSystem::new(p);
    let n = sys.n;
    let mut x0 = vec![0.0; 1 + 2 * n];
    for i in 0..n {
        x0[1 + i] = p.initial_window(i);
    }
    let (c, d) = (sys.c, sys.d);
    let h = p.step.as_secs_f64();
    let steps = p.duration.ps() / p.step.ps();
    let every = (p.sample.ps() / p.step.ps()).max(1);
    let mut r = Rk4Dde::new(sys, 0.0, &x0, h);
    let mut tr = RccTrace {
        time: Vec::new(),
        queue: Vec::new(),
        rtt: Vec::new(),
        window: vec![Vec::new(); n],
        rate: vec![Vec::new(); n],
        u: vec![Vec::new(); n],
    };
    for k in 0..=steps {
        if k % every == 0 {
            let s = r.state();
            let rtt = s[0] / c + d;
            tr.time.push(k as f64 * h);
            tr.queue.push(s[0]);
            tr.rtt.push(rtt);
            for i in 0..n {
                tr.window[i].push(s[1 + i]);
                tr.rate[i].push(s[1 + i] / rtt * 8.0);
                tr.u[i].push(s[1 + n + i]);
            }
        }
        if k < steps {
            r.step();
        }
    }
    tr
}

/// A complex number, enough for frequency responses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    pub const fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    /// Argument in (-pi, pi].
    pub fn arg(self) -> f64 {
        self.im.atan2(self.re)
    }
    pub fn scale(self, k: f64) -> Complex {
        Complex::new(self.re * k, self.im * k)
    }
}

impl std::ops::Add for Complex {
    type Output = Complex;
    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }
}

impl std::ops::Sub for Complex {
    type Output = Complex;
    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }
}

impl std::ops::Mul for Complex {
    type Output = Complex;
    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

impl std::ops::Div for Complex {
    type Output = Complex;
    fn div(self, o: Complex) -> Complex {
        let d = o.re * o.re + o.im * o.im;
        Complex::new(
            (self.re * o.re + self.im * o.im) / d,
            (self.im * o.re - self.re * o.im) / d,
        )
    }
}

/// The loop gain's constants: `K = K_p/R_0^2`, `z = K_p/((K_d + K_p/2) R_0)`, `1/R_0`.
fn constants(kp: f64, kd: f64, r0: f64) -> (f64, f64, f64) {
    (kp / (r0 * r0), kp / ((kd + kp / 2.0) * r0), 1.0 / r0)
}

/// `G(jw) = K (1 + s/z) / (s^2 (s + 1/R_0))`, the loop of Eq. (17).
pub fn g_closed(kp: f64, kd: f64, r0: f64, w: f64) -> Complex {
    let (k, z, pole) = constants(kp, kd, r0);
    let s = Complex::new(0.0, w);
    let num = (Complex::new(1.0, 0.0) + s.scale(1.0 / z)).scale(k);
    num / (s * s * (s + Complex::new(pole, 0.0)))
}

/// Eq. (18) as printed: `K (1 + z/s) / (s^2 (s + 1/R_0))`.
pub fn g_printed(kp: f64, kd: f64, r0: f64, w: f64) -> Complex {
    let (k, z, pole) = constants(kp, kd, r0);
    let s = Complex::new(0.0, w);
    let num = (Complex::new(1.0, 0.0) + Complex::new(z, 0.0) / s).scale(k);
    num / (s * s * (s + Complex::new(pole, 0.0)))
}

/// The open loop linearized numerically: central differences of Eq. (6)-(9) for N
/// synchronized flows (state `[W, Q, U_c]`, input `U` applied to the window),
/// then `L(jw) = -c^T (jw I - A)^-1 b` with the output `U_c`.
pub struct LinearizedLoop {
    a: [[f64; 3]; 3],
    b: [f64; 3],
}

impl LinearizedLoop {
    pub fn new(p: &RccFluidParams) -> LinearizedLoop {
        let s = RccSystem::new(p);
        let n = s.n as f64;
        let f = |x: [f64; 3], u: f64| -> [f64; 3] {
            let (w, q) = (x[0], x[1]);
            let r = q / s.c + s.d;
            let dq = n * w / r - s.c;
            let du = s.kp / r * (r - s.r_ref) + (s.kd + s.kp / 2.0) * dq / s.c;
            [-w * u.tanh() / r, dq, du]
        };
        let x0 = [s.c * s.r_ref / n, s.c * (s.r_ref - s.d), 0.0];
        let mut a = [[0.0; 3]; 3];
        for j in 0..3 {
            let hstep = 1e-6 * x0[j].abs().max(1.0);
            let (mut xp, mut xm) = (x0, x0);
            xp[j] += hstep;
            xm[j] -= hstep;
            let (fp, fm) = (f(xp, 0.0), f(xm, 0.0));
            for i in 0..3 {
                a[i][j] = (fp[i] - fm[i]) / (2.0 * hstep);
            }
        }
        let du = 1e-6;
        let (fp, fm) = (f(x0, du), f(x0, -du));
        let b = [0, 1, 2].map(|i| (fp[i] - fm[i]) / (2.0 * du));
        LinearizedLoop { a, b }
    }

    /// `L(jw)`.
    pub fn at(&self, w: f64) -> Complex {
        // Solve (jw I - A) v = b by Gaussian elimination with partial pivoting.
        let mut m = [[Complex::new(0.0, 0.0); 4]; 3];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().take(3).enumerate() {
                let diag = if i == j { w } else { 0.0 };
                *cell = Complex::new(-self.a[i][j], diag);
            }
            row[3] = Complex::new(self.b[i], 0.0);
        }
        for col in 0..3 {
            let piv = (col..3)
                .max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))
                .expect("rows");
            m.swap(col, piv);
            let pivot_row = m[col];
            for row in m.iter_mut().skip(col + 1) {
                let k = row[col] / pivot_row[col];
                for (cell, p) in row.iter_mut().zip(pivot_row.iter()).skip(col) {
                    *cell = *cell - k * *p;
                }
            }
        }
        let mut v = [Complex::new(0.0, 0.0); 3];
        for i in (0..3).rev() {
            let mut acc = m[i][3];
            for (cell, vj) in m[i].iter().zip(v.iter()).take(3).skip(i + 1) {
                acc = acc - *cell * *vj;
            }
            v[i] = acc / m[i][i];
        }
        v[2].scale(-1.0)
    }
}

/// Phase margin and loop bandwidth of one loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margins {
    /// Gain-crossover frequency `w_c` (rad/s), where `|G(jw_c)| = 1`: the loop
    /// bandwidth.
    pub crossover: f64,
    /// `180 deg + arg G(jw_c)`, with the phase unwrapped from low frequency.
    pub phase_margin_deg: f64,
}

/// Finds the first gain crossover on a log scan from 1e-3 to 1e12 rad/s (40 points
/// per decade), refines it by bisection, and unwraps the phase along the scan up to
/// it. `None` when the gain never crosses 1.
pub fn margins(g: impl Fn(f64) -> Complex) -> Option<Margins> {
    let per_decade = 40;
    let ws: Vec<f64> = (0..=15 * per_decade)
        .map(|k| 10f64.powf(-3.0 + k as f64 / per_decade as f64))
        .collect();
    // Start on the branch in (-360, 0] deg (a loop with integrators starts at
    // -90 k deg): -180 - e reads as +180 - e from atan2.
    let mut prev_arg = g(ws[0]).arg();
    let mut phase = if prev_arg > 1f64.to_radians() {
        prev_arg - 2.0 * std::f64::consts::PI
    } else {
        prev_arg
    };
    for pair in ws.windows(2) {
        let (w0, w1) = (pair[0], pair[1]);
        let (g0, g1) = (g(w0), g(w1));
        let unwrap = |prev: f64, next: f64| {
            let mut d = next - prev;
            while d > std::f64::consts::PI {
                d -= 2.0 * std::f64::consts::PI;
            }
            while d < -std::f64::consts::PI {
                d += 2.0 * std::f64::consts::PI;
            }
            d
        };
        if g0.abs() >= 1.0 && g1.abs() < 1.0 {
            let (mut lo, mut hi) = (w0.ln(), w1.ln());
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                if g(mid.exp()).abs() >= 1.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let wc = (0.5 * (lo + hi)).exp();
            phase += unwrap(prev_arg, g(wc).arg());
            return Some(Margins {
                crossover: wc,
                phase_margin_deg: 180.0 + phase.to_degrees(),
            });
        }
        let a1 = g1.arg();
        phase += unwrap(prev_arg, a1);
        prev_arg = a1;
    }
    None
}

/// Margins of the closed-form loop at `(K_p, K_d)` with `R_0 = R_ref`.
pub fn margins_at(p: &RccFluidParams, kp: f64, kd: f64) -> Option<Margins> {
    let r0 = p.r_ref();
    margins(|w| g_closed(kp, kd, r0, w))
}

/// One point of a `(K_p, K_d)` sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridPoint {
    pub kp: f64,
    pub kd: f64,
    pub margins: Option<Margins>,
}

/// `n` log-spaced values from `10^a` to `10^b`.
pub fn log_space(a: f64, b: f64, n: usize) -> Vec<f64> {
    let n = n.max(2);
    (0..n)
        .map(|k| 10f64.powf(a + (b - a) * k as f64 / (n - 1) as f64))
        .collect()
}

/// Fig. 4: margins over every `(K_p, K_d)` pair (rows K_d, columns K_p).
pub fn pm_grid(p: &RccFluidParams, kps: &[f64], kds: &[f64]) -> Vec<GridPoint> {
    kds.iter()
        .flat_map(|&kd| {
            kps.iter().map(move |&kp| GridPoint {
                kp,
                kd,
                margins: margins_at(p, kp, kd),
            })
        })
        .collect()
}

/// Fig. 5's sweep: K_p = 1 with five doublings, and 31 ratios `K_d/K_p`
/// (10^1 ... 10^4, ten per decade; the paper does not list its ratios).
pub fn fig5_rows(p: &RccFluidParams) -> Vec<GridPoint> {
    let ratios = log_space(1.0, 4.0, 31);
    (0..6)
        .flat_map(|k| {
            let kp = f64::from(1u32 << k);
            ratios.iter().map(move |&r| GridPoint {
                kp,
                kd: kp * r,
                margins: margins_at(p, kp, kp * r),
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "rcc_fluid_tests.rs"]
mod tests;
