//! ECN marking at the egress queue: the switch's extension point for marking
//! schemes. A port holds a [`Marker`]; the switch asks it [`Marker::should_mark`]
//! for every data packet at the marking point (`model.ecn_point`: enqueue or
//! dequeue) with the bytes queued in the packet's class, and P-PFC asks it
//! [`Marker::marks_all_above`] (TPDS'20 §4.2 sets its threshold from K_max).
//!
//! The one scheme today is RED (DCQCN §3.1 CP, Fig. 5, Eq. 5): `p = 0` for
//! `q <= K_min`, `p = P_max (q - K_min) / (K_max - K_min)` up to `K_max`, and
//! `p = 1` above. `K_min = K_max = K` with `P_max = 1` is DCTCP's step marking.
//! Thresholds are set per link rate, like the ns-3 simulator's
//! KMIN_MAP/KMAX_MAP/PMAX_MAP ([`EcnPlan`]).
//!
//! A new scheme is a [`Marker`] variant with its arms here and its keys in the
//! scenario's `[switch.ecn]` section (docs/architecture.md, "A new marking
//! scheme"). A port keeps its marker in its first cache line: a variant larger
//! than [`Red`] (24 bytes) moves the port's layout, which
//! `a_port_is_laid_out_in_three_hot_lines` (switch/mod.rs) pins.

use crate::units::Rate;
use rand::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Red {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

impl Red {
    /// Parameters that never mark: no queue exceeds `kmin`, and no random
    /// number is drawn ([`Marker::NEVER`]).
    pub const NEVER: Red = Red {
        kmin: u64::MAX,
        kmax: u64::MAX,
        pmax: 0.0,
    };

    /// Marking probability for a queue of `q` bytes (Eq. 5).
    pub fn probability(&self, q: u64) -> f64 {
        if q <= self.kmin {
            0.0
        } else if q > self.kmax || self.kmax == self.kmin {
            1.0
        } else {
            self.pmax * (q - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        }
    }

    /// Draws the marking decision for a queue of `q` bytes.
    #[inline]
    pub fn should_mark(&self, q: u64, rng: &mut impl Rng) -> bool {
        if q <= self.kmin {
            return false;
        }
        if q > self.kmax {
            return true;
        }
        let p = self.probability(q);
        p >= 1.0 || rng.random::<f64>() < p
    }
}

/// How one egress port marks ECN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marker {
    /// RED (DCQCN §3.1, Eq. 5); [`Red::NEVER`] marks nothing.
    Red(Red),
}

impl Marker {
    /// A port that never marks (ECN off).
    pub const NEVER: Marker = Marker::Red(Red::NEVER);

    /// Whether this port marks at all.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        *self != Marker::NEVER
    }

    /// Draws the marking decision for a data packet finding `q` bytes queued
    /// in its class at the marking point.
    #[inline(always)]
    pub fn should_mark(&self, q: u64, rng: &mut impl Rng) -> bool {
        match self {
            Marker::Red(r) => r.should_mark(q, rng),
        }
    }

    /// The queue length above which every packet is marked (RED's `K_max`),
    /// if the port marks: P-PFC's default threshold (TPDS'20 §4.2).
    pub fn marks_all_above(&self) -> Option<u64> {
        match self {
            _ if !self.is_on() => None,
            Marker::Red(r) => Some(r.kmax),
        }
    }
}

/// ECN marking plan: RED parameters as a function of port rate.
#[derive(Clone, Debug)]
pub struct EcnPlan {
    pub enabled: bool,
    pub base: Red,
    pub scale_from: Option<Rate>,
    pub per_rate: Vec<(Rate, Red)>,
}

impl EcnPlan {
    /// RED parameters for a port of `rate`, or `None` when marking is off.
    pub fn red_for(&self, rate: Rate) -> Option<Red> {
        if !self.enabled {
            return None;
        }
        if let Some((_, r)) = self.per_rate.iter().find(|(k, _)| *k == rate) {
            return Some(*r);
        }
        let mut r = self.base;
        if let Some(from) = self.scale_from {
            let k = rate.bps_f64() / from.bps_f64();
            r.kmin = (r.kmin as f64 * k).round() as u64;
            r.kmax = (r.kmax as f64 * k).round() as u64;
        }
        Some(r)
    }

    /// The marker of a port of `rate` ([`Marker::NEVER`] when marking is off).
    pub fn marker_for(&self, rate: Rate) -> Marker {
        self.red_for(rate).map_or(Marker::NEVER, Marker::Red)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn marking_probability_follows_eq_5() {
        let r = Red {
            kmin: 5_000,
            kmax: 200_000,
            pmax: 0.01,
        };
        assert_eq!(r.probability(5_000), 0.0);
        assert!((r.probability(102_500) - 0.005).abs() < 1e-12);
        assert!((r.probability(200_000) - 0.01).abs() < 1e-12);
        assert_eq!(r.probability(200_001), 1.0);
    }

    #[test]
    fn step_marking_is_the_kmin_equals_kmax_case() {
        let r = Red {
            kmin: 30_000,
            kmax: 30_000,
            pmax: 1.0,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert!(!r.should_mark(30_000, &mut rng));
        assert!(r.should_mark(30_001, &mut rng));
    }

    #[test]
    fn a_port_without_ecn_never_marks_and_has_no_full_marking_threshold() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert!(!Marker::NEVER.is_on());
        assert!(!Marker::NEVER.should_mark(u64::MAX, &mut rng));
        assert_eq!(Marker::NEVER.marks_all_above(), None);
        let red = Marker::Red(Red {
            kmin: 10,
            kmax: 20,
            pmax: 0.5,
        });
        assert_eq!(red.marks_all_above(), Some(20));
        assert!(red.should_mark(21, &mut rng));
    }

    #[test]
    fn sampled_marks_match_the_probability() {
        let r = Red {
            kmin: 0,
            kmax: 100,
            pmax: 0.2,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let marks = (0..100_000).filter(|_| r.should_mark(50, &mut rng)).count();
        assert!((marks as f64 / 100_000.0 - 0.1).abs() < 0.005, "{marks}");
    }
}
