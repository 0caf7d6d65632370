//! One coordinate type for every chart: a linear, logarithmic or categorical axis
//! over `f64`, with its own tick placement ("nice" 1-2-5 steps, decades on log
//! axes) and compact labels (`0.25`, `40`, `1e4`). Implementing plotters' `Ranged`
//! ourselves keeps one chart type whatever the scales, and makes ticks and labels a
//! pure function of the data range (so figures are reproducible).

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use std::ops::Range;

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scale {
    #[default]
    Linear,
    /// Base-10 logarithmic; values <= 0 are not drawn.
    Log,
}

/// What the caller says about an axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AxisSpec {
    pub label: String,
    pub scale: Scale,
    /// Fixed range; `None` fits the data.
    pub range: Option<(f64, f64)>,
    /// Ticks at these positions with these labels instead of computed ones
    /// (e.g. flow-size percentiles labelled with sizes).
    pub ticks: Option<Vec<(f64, String)>>,
}

impl AxisSpec {
    pub fn linear(label: impl Into<String>) -> AxisSpec {
        AxisSpec {
            label: label.into(),
            ..AxisSpec::default()
        }
    }
    pub fn log(label: impl Into<String>) -> AxisSpec {
        AxisSpec {
            label: label.into(),
            scale: Scale::Log,
            ..AxisSpec::default()
        }
    }
    pub fn with_range(mut self, lo: f64, hi: f64) -> AxisSpec {
        self.range = Some((lo, hi));
        self
    }
    /// Labelled ticks at the given positions (replacing the computed ones).
    pub fn with_ticks(mut self, ticks: Vec<(f64, String)>) -> AxisSpec {
        self.ticks = Some(ticks);
        self
    }

    /// The axis for data spanning `values`, padded a little on linear scales.
    pub(crate) fn fit(&self, values: impl Iterator<Item = f64>) -> Axis {
        let log = self.scale == Scale::Log;
        let (lo, hi) = match self.range {
            Some(r) => r,
            None => {
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                if lo > hi {
                    if log { (1.0, 10.0) } else { (0.0, 1.0) }
                } else if log {
                    let (a, b) = (lo.log10().floor(), hi.log10().ceil());
                    (10f64.powf(a), 10f64.powf(b.max(a + 1.0)))
                } else {
                    let pad = if hi > lo {
                        0.04 * (hi - lo)
                    } else {
                        lo.abs().max(1.0)
                    };
                    let lo = if lo >= 0.0 && lo - pad < 0.0 {
                        0.0
                    } else {
                        lo - pad
                    };
                    (lo, hi + pad)
                }
            }
        };
        let mut axis = Axis::new(lo, hi, log);
        axis.labelled = self.ticks.clone();
        axis
    }
}

/// A plotters coordinate over `[lo, hi]`.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    /// Category names at 0.5, 1.5, ... (bar charts).
    categories: Option<Vec<String>>,
    /// Caller-given ticks (position, label).
    labelled: Option<Vec<(f64, String)>>,
}

impl Axis {
    pub(crate) fn new(lo: f64, hi: f64, log: bool) -> Axis {
        assert!(lo < hi || !(lo.is_finite() && hi.is_finite()) || lo == hi);
        let (lo, hi) = if lo == hi {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        };
        let (lo, hi) = if log && lo <= 0.0 {
            (hi / 1e3, hi)
        } else {
            (lo, hi)
        };
        Axis {
            lo,
            hi,
            log,
            categories: None,
            labelled: None,
        }
    }

    /// `n` categories, one per unit interval of `[0, n]`.
    pub(crate) fn categorical(names: Vec<String>) -> Axis {
        Axis {
            lo: 0.0,
            hi: names.len().max(1) as f64,
            log: false,
            categories: Some(names),
            labelled: None,
        }
    }

    pub(crate) fn lo(&self) -> f64 {
        self.lo
    }
    pub(crate) fn hi(&self) -> f64 {
        self.hi
    }

    fn unit(&self, v: f64) -> f64 {
        if self.log {
            let v = v.max(self.lo * 1e-6);
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    /// Tick positions, at most `max` of them.
    pub(crate) fn ticks(&self, max: usize) -> Vec<f64> {
        let max = max.max(2);
        if let Some(t) = &self.labelled {
            return t
                .iter()
                .map(|&(v, _)| v)
                .filter(|&v| v >= self.lo && v <= self.hi)
                .collect();
        }
        if let Some(c) = &self.categories {
            let every = c.len().div_ceil(max).max(1);
            return (0..c.len())
                .step_by(every)
                .map(|i| i as f64 + 0.5)
                .collect();
        }
        if self.log {
            let (a, b) = (
                self.lo.log10().ceil() as i32,
                self.hi.log10().floor() as i32,
            );
            let decades = (b - a + 1).max(0) as usize;
            if decades <= 2 {
                // Few decades: 1, 2, 5 per decade.
                let mut t = Vec::new();
                for e in (a - 1)..=b {
                    for m in [1.0, 2.0, 5.0] {
                        let v = m * 10f64.powi(e);
                        if v >= self.lo * (1.0 - 1e-9) && v <= self.hi * (1.0 + 1e-9) {
                            t.push(v);
                        }
                    }
                }
                return t;
            }
            let every = decades.div_ceil(max).max(1) as i32;
            return (a..=b)
                .filter(|e| (e - a) % every == 0)
                .map(|e| 10f64.powi(e))
                .collect();
        }
        let (m, e) = nice_step((self.hi - self.lo) / (max.min(8) as f64));
        // k m 10^e, computed so that decimal ticks print exactly (6/10, not 3 * 0.2).
        let tick = |k: i64| {
            if e < 0 {
                (k * m) as f64 / 10f64.powi(-e)
            } else {
                (k * m) as f64 * 10f64.powi(e)
            }
        };
        let step = tick(1);
        let first = (self.lo / step - 1e-9).ceil() as i64;
        let last = (self.hi / step + 1e-9).floor() as i64;
        (first..=last).map(tick).collect()
    }
}

/// The smallest 1, 2 or 5 times a power of ten at least `raw`, as (1|2|5, exponent).
fn nice_step(raw: f64) -> (i64, i32) {
    if !(raw > 0.0 && raw.is_finite()) {
        return (1, 0);
    }
    let e = raw.log10().floor() as i32;
    for m in [1, 2, 5] {
        if m as f64 * 10f64.powi(e) >= raw * (1.0 - 1e-9) {
            return (m, e);
        }
    }
    (1, e + 1)
}

/// Compact, deterministic number labels: `0`, `0.25`, `40`, `1500`, `1e5`, `2e-4`.
pub fn format_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v.is_finite() {
            "0".into()
        } else {
            format!("{v}")
        };
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.2e}");
        let (m, e) = s.split_once('e').expect("exponent form");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let u = self.unit(*value).clamp(-10.0, 10.0);
        limit.0 + (u * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        self.ticks(hint.max_num_points().min(12))
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        if let Some(t) = &self.labelled {
            return t
                .iter()
                .find(|(v, _)| v == value)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(|| format_number(*value));
        }
        match &self.categories {
            Some(c) => {
                let i = value.floor().max(0.0) as usize;
                c.get(i).cloned().unwrap_or_default()
            }
            None => format_number(*value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_one_two_five_steps_inside_the_range() {
        let a = Axis::new(0.0, 40.0, false);
        assert_eq!(a.ticks(6), vec![0.0, 10.0, 20.0, 30.0, 40.0]);
        let a = Axis::new(-0.3, 0.7, false);
        assert_eq!(a.ticks(6), vec![-0.2, 0.0, 0.2, 0.4, 0.6]);
    }

    #[test]
    fn log_ticks_are_decades_or_one_two_five() {
        let a = Axis::new(1.0, 1e4, true);
        assert_eq!(a.ticks(10), vec![1.0, 10.0, 100.0, 1000.0, 1e4]);
        let a = Axis::new(1.0, 10.0, true);
        assert_eq!(a.ticks(10), vec![1.0, 2.0, 5.0, 10.0]);
        // Positions: a decade maps to equal pixels.
        let a = Axis::new(1.0, 100.0, true);
        assert_eq!(a.map(&10.0, (0, 200)), 100);
    }

    #[test]
    fn labels_are_compact() {
        let cases = [
            (0.0, "0"),
            (0.25, "0.25"),
            (40.0, "40"),
            (1500.0, "1500"),
            (1e5, "1e5"),
            (2.5e-4, "2.5e-4"),
            (-3.0, "-3"),
        ];
        for (v, s) in cases {
            assert_eq!(format_number(v), s);
        }
    }

    #[test]
    fn labelled_ticks_replace_computed_ones_inside_the_range() {
        let spec = AxisSpec::linear("size")
            .with_range(0.0, 100.0)
            .with_ticks(vec![
                (50.0, "1KB".into()),
                (100.0, "1MB".into()),
                (150.0, "outside".into()),
            ]);
        let a = spec.fit(std::iter::empty());
        assert_eq!(a.ticks(10), vec![50.0, 100.0]);
        assert_eq!(a.format_ext(&100.0), "1MB");
    }

    #[test]
    fn fitting_pads_linear_axes_and_rounds_log_axes_to_decades() {
        let a = AxisSpec::linear("x").fit([1.0, 11.0].into_iter());
        assert!(a.lo() < 1.0 && a.hi() > 11.0);
        let a = AxisSpec::log("x").fit([3.0, 300.0, -1.0].into_iter());
        assert_eq!((a.lo(), a.hi()), (1.0, 1000.0));
        let a = AxisSpec::linear("x").fit(std::iter::empty());
        assert_eq!((a.lo(), a.hi()), (0.0, 1.0));
    }
}
