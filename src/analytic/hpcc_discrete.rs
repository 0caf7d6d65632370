//! HPCC's discrete-time models, HPCC Appendix A.2 (Eq. 5-6 and the Lemma) and
//! A.3 (additive increase and its equilibrium).
//!
//! Resources `i = 1..I` (links, with target capacity `C_i`) and paths `j = 1..J`
//! (flows) are tied by the incidence matrix `A` (`A_ij = 1` when path `j` uses
//! resource `i`). Rates are updated synchronously once per RTT:
//!
//! * A.2, Eq. (5)-(6): `Y(n) = A R(n)`, `R_j(n+1) = R_j(n) / max_i {Y_i(n) A_ij / C_i}`.
//!   The Lemma claims (i) `Y(n) <= C` for `n >= 1`, (ii) `R(n+1) >= R(n)` for
//!   `n >= 1`, and (iii) `R(n)` is constant and Pareto optimal for `n >= I`.
//! * A.3: `R_j(n+1) = R_j(n) U_target / U_j(n) + a` with `U_j = max_i Y_i/C_i` over
//!   the path, whose equilibrium is `R = a / (1 - U_target/U)`.
//!
//! What the code finds (tests below): (i) and (ii) hold on every random
//! instance. (iii) holds when each step's most loaded remaining resource carries
//! no path already frozen at another bottleneck, but not in general: a resource
//! shared by a frozen path and a free one is approached geometrically and never
//! reached (see `lemma_iii_fails_when_a_frozen_path_shares_a_resource`). The
//! limit is still Pareto optimal. The proof's step "at each subsequent step at
//! least one more resource becomes bottlenecked" is where it breaks.
//!
//! Units are whatever the caller uses for rates and capacities (Gbps in the CLI).

use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// A set of resources and paths, plus the A.3 constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HpccDiscreteParams {
    /// Target capacity of each resource (link), Gbps.
    pub capacities: Vec<f64>,
    /// For each path (flow), the resources it uses (0-based).
    pub paths: Vec<Vec<usize>>,
    /// Initial rate of each path, Gbps (A.2 requires > 0). Default: 100 each
    /// (every flow starts at line rate, HPCC §3.2).
    pub initial_rates: Vec<f64>,
    /// Recursion steps to record for A.2.
    pub steps: usize,
    /// A.3 target utilization. HPCC §3.3: eta = 95 %.
    pub u_target: f64,
    /// A.3 additive increase per RTT, Gbps. HPCC §3.3 rule of thumb
    /// `W_AI = W_init (1 - eta)/N`: 100 Gbps x 0.05 / 100 flows = 0.05.
    pub additive: f64,
    /// A.3 iterations.
    pub a3_steps: usize,
}

impl Default for HpccDiscreteParams {
    /// A parking lot: links 0-1-2 with 100, 40 and 100 Gbps; one flow crosses all
    /// three, one uses each link alone, and one uses links 0 and 1.
    ///
    /// ```text
    ///   f0 ==================================>
    ///   f4 ===================>
    ///   f1 ======>    f2 =====>    f3 ======>
    ///   [s0]--L0 100G--[s1]--L1 40G--[s2]--L2 100G--[s3]
    /// ```
    fn default() -> Self {
        HpccDiscreteParams {
            capacities: vec![100.0, 40.0, 100.0],
            paths: vec![vec![0, 1, 2], vec![0], vec![1], vec![2], vec![0, 1]],
            initial_rates: vec![100.0; 5],
            steps: 12,
            u_target: 0.95,
            additive: 0.05,
            a3_steps: 200_000,
        }
    }
}

impl HpccDiscreteParams {
    pub fn validate(&self) -> Result<(), InputError> {
        let bad = |f: &str, m: String| Err(InputError::new("", f, m));
        let i = self.capacities.len();
        if i == 0 {
            return bad("capacities", "give at least one resource capacity".into());
        }
        if let Some(c) = self
            .capacities
            .iter()
            .find(|c| !(**c > 0.0 && c.is_finite()))
        {
            return bad("capacities", format!("capacities must be > 0, got {c}"));
        }
        if self.paths.is_empty() {
            return bad("paths", "give at least one path, e.g. [[0, 1], [1]]".into());
        }
        for (j, p) in self.paths.iter().enumerate() {
            if p.is_empty() {
                return bad("paths", format!("path {j} uses no resource"));
            }
            if let Some(r) = p.iter().find(|r| **r >= i) {
                return bad(
                    "paths",
                    format!("path {j} uses resource {r}; valid: 0..{}", i - 1),
                );
            }
        }
        if self.initial_rates.len() != self.paths.len() {
            return bad(
                "initial_rates",
                format!(
                    "give one rate per path ({}), got {}",
                    self.paths.len(),
                    self.initial_rates.len()
                ),
            );
        }
        if let Some(r) = self
            .initial_rates
            .iter()
            .find(|r| !(**r > 0.0 && r.is_finite()))
        {
            return bad("initial_rates", format!("rates must be > 0 (A.2), got {r}"));
        }
        if !(self.u_target > 0.0 && self.u_target <= 1.0) {
            return bad(
                "u_target",
                format!("must be in (0, 1], got {}", self.u_target),
            );
        }
        if !(self.additive >= 0.0 && self.additive.is_finite()) {
            return bad("additive", format!("must be >= 0, got {}", self.additive));
        }
        if self.steps == 0 || self.steps > 1_000_000 || self.a3_steps > 100_000_000 {
            return bad(
                "steps",
                "steps must be in 1..=1000000 (a3_steps <= 1e8)".into(),
            );
        }
        Ok(())
    }

    pub fn network(&self) -> Network {
        Network {
            capacities: self.capacities.clone(),
            paths: self.paths.clone(),
        }
    }
}

/// Resources with capacities and the paths over them (the incidence matrix by
/// columns).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub capacities: Vec<f64>,
    pub paths: Vec<Vec<usize>>,
}

/// Relative slack used to call a resource saturated or a rate unchanged.
pub const TOL: f64 = 1e-9;

impl Network {
    /// Number of resources, I.
    pub fn resources(&self) -> usize {
        self.capacities.len()
    }

    /// The incidence matrix A (I rows, J columns).
    pub fn incidence(&self) -> Vec<Vec<u8>> {
        let mut a = vec![vec![0u8; self.paths.len()]; self.resources()];
        for (j, p) in self.paths.iter().enumerate() {
            for &i in p {
                a[i][j] = 1;
            }
        }
        a
    }

    /// Eq. (5): `Y = A R`.
    pub fn loads(&self, r: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.resources()];
        for (p, rate) in self.paths.iter().zip(r) {
            for &i in p {
                y[i] += rate;
            }
        }
        y
    }

    /// `max_i {Y_i A_ij / C_i}` for each path j: its most loaded resource.
    pub fn path_utilization(&self, y: &[f64]) -> Vec<f64> {
        self.paths
            .iter()
            .map(|p| {
                p.iter()
                    .map(|&i| y[i] / self.capacities[i])
                    .fold(0.0, f64::max)
            })
            .collect()
    }

    /// Eq. (6): one synchronous update.
    pub fn step(&self, r: &[f64]) -> Vec<f64> {
        let u = self.path_utilization(&self.loads(r));
        r.iter().zip(u).map(|(r, u)| r / u).collect()
    }

    /// `R(0), R(1), ..., R(steps)`.
    pub fn recursion(&self, r0: &[f64], steps: usize) -> Vec<Vec<f64>> {
        let mut out = vec![r0.to_vec()];
        for _ in 0..steps {
            let next = self.step(out.last().expect("non-empty"));
            out.push(next);
        }
        out
    }

    /// `Y <= C` (within TOL).
    pub fn is_feasible(&self, r: &[f64]) -> bool {
        let y = self.loads(r);
        y.iter()
            .zip(&self.capacities)
            .all(|(y, c)| *y <= c * (1.0 + TOL))
    }

    /// Feasible, and every path uses a saturated resource, so no rate can grow
    /// without another shrinking.
    pub fn is_pareto_optimal(&self, r: &[f64], tol: f64) -> bool {
        let y = self.loads(r);
        let saturated: Vec<bool> = y
            .iter()
            .zip(&self.capacities)
            .map(|(y, c)| *y >= c * (1.0 - tol))
            .collect();
        self.is_feasible(r) && self.paths.iter().all(|p| p.iter().any(|&i| saturated[i]))
    }

    /// A.3: `R_j(n+1) = R_j(n) U_target/U_j(n) + a`, iterated `steps` times.
    pub fn additive_increase(&self, r0: &[f64], u_target: f64, a: f64, steps: usize) -> Vec<f64> {
        let mut r = r0.to_vec();
        for _ in 0..steps {
            let u = self.path_utilization(&self.loads(&r));
            for (rj, uj) in r.iter_mut().zip(u) {
                *rj = *rj * u_target / uj + a;
            }
        }
        r
    }
}

/// What the recursion did on one instance, against the Lemma's claims.
#[derive(Clone, Debug, PartialEq)]
pub struct LemmaReport {
    /// (i) `Y(n) <= C` for every `n >= 1` computed.
    pub feasible_after_one_step: bool,
    /// (ii) `R(n+1) >= R(n)` for every `n >= 1` computed.
    pub non_decreasing: bool,
    /// (iii) `R(n)` constant for `n >= I` (up to TOL) and Pareto optimal at `n = I`.
    pub constant_and_pareto_from_i: bool,
    /// First n from which R stays constant (within TOL) up to the last step.
    pub constant_from: Option<usize>,
    /// Whether the last computed R is Pareto optimal (within 1e-6).
    pub pareto_at_end: bool,
    pub steps: usize,
}

/// Runs `steps` (>= I + 1) steps of Eq. (5)-(6) and checks the Lemma.
pub fn check_lemma(net: &Network, r0: &[f64], steps: usize) -> LemmaReport {
    let i = net.resources();
    let steps = steps.max(i + 1);
    let rs = net.recursion(r0, steps);
    let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= TOL * y.abs());
    let feasible = rs[1..].iter().all(|r| net.is_feasible(r));
    let non_decreasing = rs[1..]
        .windows(2)
        .all(|w| w[1].iter().zip(&w[0]).all(|(b, a)| *b >= a * (1.0 - 1e-12)));
    let constant_from = (0..=steps)
        .rev()
        .take_while(|&n| same(&rs[n], &rs[steps]))
        .last();
    let constant_and_pareto_from_i =
        constant_from.is_some_and(|n| n <= i) && net.is_pareto_optimal(&rs[i], TOL);
    LemmaReport {
        feasible_after_one_step: feasible,
        non_decreasing,
        constant_and_pareto_from_i,
        constant_from,
        pareto_at_end: net.is_pareto_optimal(&rs[steps], 1e-6),
        steps,
    }
}

/// A.3's equilibrium rate for a path whose most congested resource has
/// utilization `u`: `R = a / (1 - U_target/u)`.
pub fn a3_equilibrium_rate(a: f64, u_target: f64, u: f64) -> f64 {
    a / (1.0 - u_target / u)
}

#[cfg(test)]
#[path = "hpcc_discrete_tests.rs"]
mod tests;
