//! A verdict rule on one number: its thresholds, and the words that state them
//! on the page, from one definition, so the page says exactly what the code
//! judges.

use super::Verdict;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Larger is better: matches at `v >= matches`.
    AtLeast,
    /// Smaller is better: matches at `v <= matches`.
    AtMost,
    /// Relative distance from a target: matches at `|v - t| <= matches x t`.
    Within(f64),
}

/// Thresholds for `matches` and (optionally) `partly`; anything else differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    kind: Kind,
    matches: f64,
    partly: Option<f64>,
    unit: &'static str,
    of: String,
}

impl Rule {
    /// Matches at `value >= matches` (`unit` follows the numbers: "x", " %", " Gbps").
    pub fn at_least(matches: f64, unit: &'static str) -> Rule {
        Rule::new(Kind::AtLeast, matches, unit)
    }
    /// Matches at `value <= matches`.
    pub fn at_most(matches: f64, unit: &'static str) -> Rule {
        Rule::new(Kind::AtMost, matches, unit)
    }
    /// Matches within `±tolerance` (a fraction: 0.3 = ±30 %) of `target`.
    pub fn within(target: f64, tolerance: f64, unit: &'static str) -> Rule {
        Rule::new(Kind::Within(target), tolerance, unit)
    }
    fn new(kind: Kind, matches: f64, unit: &'static str) -> Rule {
        Rule {
            kind,
            matches,
            partly: None,
            unit,
            of: String::new(),
        }
    }
    /// The weaker threshold for "partly".
    pub fn partly(mut self, at: f64) -> Rule {
        self.partly = Some(at);
        self
    }
    /// What the value is, e.g. "PFC's peak / P-PFC's"; starts the statement.
    pub fn of(mut self, what: impl Into<String>) -> Rule {
        self.of = what.into();
        self
    }

    fn holds(&self, v: f64, at: f64) -> bool {
        match self.kind {
            Kind::AtLeast => v >= at,
            Kind::AtMost => v <= at,
            Kind::Within(t) => (v - t).abs() <= at * t.abs(),
        }
    }

    /// The verdict for `value` (NaN differs).
    pub fn judge(&self, value: f64) -> Verdict {
        if value.is_nan() {
            Verdict::Differs
        } else if self.holds(value, self.matches) {
            Verdict::Matches
        } else if self.partly.is_some_and(|p| self.holds(value, p)) {
            Verdict::Partly
        } else {
            Verdict::Differs
        }
    }

    fn bound(&self, at: f64) -> String {
        match self.kind {
            Kind::AtLeast => format!("≥ {}{}", num(at), self.unit),
            Kind::AtMost => format!("≤ {}{}", num(at), self.unit),
            Kind::Within(t) => format!("within ±{:.0} % of {}{}", at * 100.0, num(t), self.unit),
        }
    }

    /// "X: matches at ≥ 3x, partly at ≥ 1.2x" (or "within ±30 % of 76.6 KB").
    pub fn describe(&self) -> String {
        let at = |b: String| match self.kind {
            Kind::Within(_) => b,
            _ => format!("at {b}"),
        };
        let mut s = if self.of.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.of)
        };
        s.push_str(&format!("matches {}", at(self.bound(self.matches))));
        if let Some(p) = self.partly {
            s.push_str(&format!(", partly {}", at(self.bound(p))));
        }
        s
    }
}

/// A threshold as written: no trailing zeros ("3", "1.2", "0.05").
pub fn num(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_rule_judges_and_states_the_same_thresholds() {
        let r = Rule::at_least(3.0, "x").partly(1.2).of("PFC / P-PFC peak");
        assert_eq!(r.judge(3.0), Verdict::Matches);
        assert_eq!(r.judge(2.99), Verdict::Partly);
        assert_eq!(r.judge(1.19), Verdict::Differs);
        assert_eq!(r.judge(f64::NAN), Verdict::Differs);
        assert_eq!(
            r.describe(),
            "PFC / P-PFC peak: matches at ≥ 3x, partly at ≥ 1.2x"
        );
    }

    #[test]
    fn a_tolerance_rule_is_relative_to_its_target() {
        let r = Rule::within(76.6, 0.3, " KB").partly(0.6);
        assert_eq!(r.judge(99.0), Verdict::Matches);
        assert_eq!(r.judge(100.0), Verdict::Partly);
        assert_eq!(r.judge(130.0), Verdict::Differs);
        assert_eq!(
            r.describe(),
            "matches within ±30 % of 76.6 KB, partly within ±60 % of 76.6 KB"
        );
    }

    #[test]
    fn an_upper_bound_rule_matches_below_it() {
        let r = Rule::at_most(0.1, "");
        assert_eq!(r.judge(0.05), Verdict::Matches);
        assert_eq!(r.judge(0.2), Verdict::Differs);
        assert_eq!(r.describe(), "matches at ≤ 0.1");
    }
}
