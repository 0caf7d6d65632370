//! A fixed-step integrator for delay-differential equations (DDEs) with one
//! constant delay, used by the fluid models of DCQCN §5.1 (loop delay `tau*`) and
//! RCC §IV-A (no delay: an ODE).
//!
//! `x'(t) = f(t, x(t), x(t - tau))` is advanced with the classical fourth-order
//! Runge-Kutta scheme. The delayed state `x(t - tau)` at each stage time comes from
//! a ring buffer holding the last `ceil(tau/h) + 2` steps, linearly interpolated
//! between grid points; before the first step the history is the initial state
//! (constant history). Linear interpolation makes the delayed terms second-order
//! accurate, so the scheme as a whole is second order in `h` when the delay is
//! active and fourth order when it is not (`tau = 0`); the tests below measure both
//! orders on problems with exact solutions. The models document the step they use
//! and the difference measured when it is halved.
//!
//! The step must not exceed the delay (`h <= tau` or `tau = 0`): then every delayed
//! time a stage needs is already in the history. After each step the system may
//! `project` the state back into its domain (a queue is never negative, a rate
//! never above line rate), which is how the models express their one-sided limits.

/// A system `x' = f(t, x, x(t - tau))`.
pub trait DelaySystem {
    /// Number of state variables.
    fn dim(&self) -> usize;
    /// The delay `tau`, seconds; 0 means an ODE.
    fn delay(&self) -> f64;
    /// Writes `f(t, x, x_lag)` into `dx`.
    fn rhs(&self, t: f64, x: &[f64], x_lag: &[f64], dx: &mut [f64]);
    /// Moves a state back into the model's domain after a step. Default: nothing.
    fn project(&self, _x: &mut [f64]) {}
}

/// The last few states on the step grid, newest last.
#[derive(Clone, Debug)]
struct History {
    dim: usize,
    /// `cap` states of `dim` values each, as a ring.
    buf: Vec<f64>,
    cap: usize,
    /// Slot of the newest state.
    head: usize,
    /// States stored so far (at most `cap`).
    len: usize,
}

impl History {
    fn new(dim: usize, cap: usize, x0: &[f64]) -> History {
        let mut h = History {
            dim,
            buf: vec![0.0; dim * cap],
            cap,
            head: 0,
            len: 0,
        };
        h.push(x0);
        h
    }

    fn push(&mut self, x: &[f64]) {
        if self.len > 0 {
            self.head = (self.head + 1) % self.cap;
        }
        self.len = (self.len + 1).min(self.cap);
        self.buf[self.head * self.dim..(self.head + 1) * self.dim].copy_from_slice(x);
    }

    /// Replaces the newest state (after the caller changed the current state).
    fn replace_newest(&mut self, x: &[f64]) {
        self.buf[self.head * self.dim..(self.head + 1) * self.dim].copy_from_slice(x);
    }

    /// The state `k` steps before the newest; the oldest one past the start.
    fn back(&self, k: usize) -> &[f64] {
        let k = k.min(self.len - 1);
        let slot = (self.head + self.cap - k) % self.cap;
        &self.buf[slot * self.dim..(slot + 1) * self.dim]
    }

    /// The state `steps_back` (fractional) steps before the newest, linearly
    /// interpolated. Before the first state: the first state (constant history).
    fn at(&self, steps_back: f64, out: &mut [f64]) {
        assert!(steps_back >= -1e-9, "delayed time lies in the future");
        let s = steps_back.max(0.0);
        let k = s.floor() as usize;
        let w = s - k as f64;
        assert!(
            k + 1 < self.cap || (k < self.cap && w < 1e-9),
            "history too short for the delay"
        );
        let (a, b) = (self.back(k), self.back(k + 1));
        for i in 0..self.dim {
            out[i] = a[i] + w * (b[i] - a[i]);
        }
    }
}

/// Classical RK4 with a history buffer for the delayed state.
#[derive(Clone, Debug)]
pub struct Rk4Dde<S: DelaySystem> {
    pub sys: S,
    h: f64,
    t: f64,
    x: Vec<f64>,
    hist: History,
    // Scratch space for the stages.
    k: [Vec<f64>; 4],
    tmp: Vec<f64>,
    lag: Vec<f64>,
}

impl<S: DelaySystem> Rk4Dde<S> {
    /// Starts at time `t0` in state `x0` with step `h` (seconds).
    pub fn new(sys: S, t0: f64, x0: &[f64], h: f64) -> Self {
        let n = sys.dim();
        assert_eq!(x0.len(), n, "initial state has the wrong dimension");
        assert!(h > 0.0 && h.is_finite(), "step must be positive, got {h}");
        let tau = sys.delay();
        assert!(
            tau == 0.0 || tau >= h * (1.0 - 1e-9),
            "step {h} s exceeds the delay {tau} s; use a step <= the delay"
        );
        let cap = (tau / h).ceil() as usize + 3;
        Rk4Dde {
            hist: History::new(n, cap, x0),
            sys,
            h,
            t: t0,
            x: x0.to_vec(),
            k: [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            tmp: vec![0.0; n],
            lag: vec![0.0; n],
        }
    }

    pub fn t(&self) -> f64 {
        self.t
    }
    pub fn state(&self) -> &[f64] {
        &self.x
    }

    /// Changes the current state (an event such as a flow starting). The history
    /// records the new value at the current time.
    pub fn set_state(&mut self, x: &[f64]) {
        self.x.copy_from_slice(x);
        self.hist.replace_newest(x);
    }

    /// The state at `t - tau` for a stage at time `t_stage` = `self.t + frac h`.
    fn lagged(&mut self, frac: f64, stage_x: &[f64]) {
        let tau = self.sys.delay();
        if tau == 0.0 {
            self.lag.copy_from_slice(stage_x);
        } else {
            self.hist.at(tau / self.h - frac, &mut self.lag);
        }
    }

    /// Advances one step.
    pub fn step(&mut self) {
        let (h, t, n) = (self.h, self.t, self.x.len());
        let stages = [(0.0, 0.0), (0.5, 0.5), (0.5, 0.5), (1.0, 1.0)];
        for (s, &(frac, weight)) in stages.iter().enumerate() {
            for i in 0..n {
                self.tmp[i] = if s == 0 {
                    self.x[i]
                } else {
                    self.x[i] + weight * h * self.k[s - 1][i]
                };
            }
            let stage_x = std::mem::take(&mut self.tmp);
            self.lagged(frac, &stage_x);
            let mut k = std::mem::take(&mut self.k[s]);
            self.sys.rhs(t + frac * h, &stage_x, &self.lag, &mut k);
            self.k[s] = k;
            self.tmp = stage_x;
        }
        for i in 0..n {
            self.x[i] +=
                h / 6.0 * (self.k[0][i] + 2.0 * self.k[1][i] + 2.0 * self.k[2][i] + self.k[3][i]);
        }
        self.sys.project(&mut self.x);
        self.t += h;
        self.hist.push(&self.x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x'(t) = -x(t - 1), x = 1 for t <= 0. Exact by the method of steps:
    /// 1 - t on [0, 1], 1 - t + (t-1)^2/2 on [1, 2], and on [2, 3]
    /// 1 - t + (t-1)^2/2 - (t-2)^3/6.
    struct Hutchinson;
    impl DelaySystem for Hutchinson {
        fn dim(&self) -> usize {
            1
        }
        fn delay(&self) -> f64 {
            1.0
        }
        fn rhs(&self, _t: f64, _x: &[f64], lag: &[f64], dx: &mut [f64]) {
            dx[0] = -lag[0];
        }
    }

    fn exact(t: f64) -> f64 {
        1.0 - t + (t - 1.0).powi(2) / 2.0 - (t - 2.0).powi(3) / 6.0
    }

    /// x' = -x(t - 1) has a kink at t = 0 in the history; the solution is a
    /// polynomial, so the error comes from the interpolation of delayed values.
    fn error_at_3(h: f64) -> f64 {
        let mut r = Rk4Dde::new(Hutchinson, 0.0, &[1.0], h);
        let n = (3.0 / h).round() as usize;
        for _ in 0..n {
            r.step();
        }
        (r.state()[0] - exact(3.0)).abs()
    }

    #[test]
    fn the_delay_equation_matches_its_exact_solution_with_second_order_error() {
        let (e1, e2) = (error_at_3(0.1), error_at_3(0.05));
        assert!(e1 < 1e-3, "error {e1}");
        // Second order: halving the step divides the error by about 4.
        let order = (e1 / e2).log2();
        assert!(order > 1.8, "observed order {order} (errors {e1}, {e2})");
    }

    #[test]
    fn grid_aligned_delays_need_no_interpolation_at_whole_steps() {
        // A step that divides the delay: the first and last stages read exact
        // history points, so on [0, 1] (lag from the constant history) RK4 is exact.
        let mut r = Rk4Dde::new(Hutchinson, 0.0, &[1.0], 0.25);
        for _ in 0..4 {
            r.step();
        }
        assert!((r.state()[0] - 0.0).abs() < 1e-14);
    }

    struct Growth;
    impl DelaySystem for Growth {
        fn dim(&self) -> usize {
            1
        }
        fn delay(&self) -> f64 {
            0.0
        }
        fn rhs(&self, _t: f64, x: &[f64], _lag: &[f64], dx: &mut [f64]) {
            dx[0] = x[0];
        }
    }

    #[test]
    fn without_delay_it_is_fourth_order_runge_kutta() {
        let err = |h: f64| {
            let mut r = Rk4Dde::new(Growth, 0.0, &[1.0], h);
            for _ in 0..(1.0 / h).round() as usize {
                r.step();
            }
            (r.state()[0] - 1f64.exp()).abs()
        };
        let (e1, e2) = (err(0.1), err(0.05));
        assert!(e1 < 3e-6, "{e1}");
        assert!((e1 / e2).log2() > 3.8, "order {}", (e1 / e2).log2());
    }

    #[test]
    fn set_state_is_what_later_steps_see_as_history() {
        let mut r = Rk4Dde::new(Hutchinson, 0.0, &[1.0], 0.5);
        r.set_state(&[0.0]);
        // x' = -x(t - 1) = -0 ... but the constant history before t = 0 is the
        // replaced state only at t = 0; earlier times are the same slot.
        r.step();
        assert_eq!(r.state()[0], 0.0);
    }

    #[test]
    #[should_panic(expected = "exceeds the delay")]
    fn a_step_longer_than_the_delay_is_refused() {
        let _ = Rk4Dde::new(Hutchinson, 0.0, &[1.0], 2.0);
    }
}
