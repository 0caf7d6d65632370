//! Flow-size distributions read from CDF files (HPCC §5.1's WebSearch and
//! FB_Hadoop, and the other workloads in `data/workloads/README.md`).
//!
//! Two file formats, told apart by the last row:
//! - HPCC `traffic_gen`: `size_bytes cdf_percent` per line, percent 0..100;
//! - `data/workloads/`: `size_bytes cdf` with cdf in 0..1, and `#` comment lines.
//!
//! Blank lines and lines starting with `#` are skipped anywhere. Sizes and cdf
//! values never decrease; the last cdf is 1 (or 100). The file is read as
//! piecewise-linear between rows: a repeated size is a point mass, two rows with
//! equal cdf leave a gap. A first row with cdf > 0 is a point mass at its size
//! (HPCC's own reader rejects such files; we accept them).
//!
//! Sampling is the inverse-CDF rule of `data/workloads/README.md`: draw u in (0, 1],
//! take the first row i with c_i >= u and return
//! `s_{i-1} + (s_i - s_{i-1}) (u - c_{i-1}) / (c_i - c_{i-1})`. Flow sizes are that
//! value truncated to whole bytes, at least 1 byte, as HPCC's `traffic_gen.py`
//! does (`int(...)`, then `size <= 0` becomes 1). The mean is the mean of the
//! piecewise-linear distribution (HPCC's `getAvg`), before truncation.

use crate::error::InputError;
use rand::Rng;

/// A validated flow-size CDF.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSizeCdf {
    /// What to call it in messages: a built-in name or the file path.
    pub name: String,
    /// Sizes in bytes, never decreasing.
    sizes: Vec<f64>,
    /// Cumulative probabilities in [0, 1], never decreasing; the last is 1.
    probs: Vec<f64>,
}

impl FlowSizeCdf {
    /// Parses CDF text. `source` names the file in errors (which carry the line).
    pub fn parse(source: &str, text: &str) -> Result<FlowSizeCdf, InputError> {
        let err = |line: usize, msg: String| InputError::new(source, format!("line {line}"), msg);
        let mut rows: Vec<(usize, f64, f64)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let toks: Vec<&str> = line.split_whitespace().collect();
            if toks.len() != 2 {
                return Err(err(
                    i + 1,
                    format!(
                        "expected two numbers \"size_bytes cdf\", found {} field(s) in \"{line}\"",
                        toks.len()
                    ),
                ));
            }
            let num = |t: &str, what: &str| -> Result<f64, InputError> {
                match t.parse::<f64>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                    _ => Err(err(
                        i + 1,
                        format!("{what} \"{t}\" is not a non-negative number"),
                    )),
                }
            };
            rows.push((i + 1, num(toks[0], "size")?, num(toks[1], "cdf value")?));
        }
        let Some(&(last_line, _, last)) = rows.last() else {
            return Err(InputError::new(
                source,
                "",
                "has no \"size_bytes cdf\" rows (expected e.g. \"1000 0.5\" lines)",
            ));
        };
        let scale = if last == 1.0 {
            1.0
        } else if last == 100.0 {
            100.0
        } else {
            return Err(err(
                last_line,
                format!(
                    "the last cdf value is {last}; it must be 1 (cdf as a fraction) or 100 (percent, HPCC format)"
                ),
            ));
        };
        let (mut sizes, mut probs) = (
            Vec::with_capacity(rows.len()),
            Vec::with_capacity(rows.len()),
        );
        let mut prev: Option<(f64, f64)> = None;
        for &(line, s, c) in &rows {
            if c > scale {
                return Err(err(
                    line,
                    format!("cdf value {c} exceeds the last row's {scale}"),
                ));
            }
            if let Some((ps, pc)) = prev {
                if s < ps {
                    return Err(err(
                        line,
                        format!(
                            "size {s} is smaller than the previous row's {ps}; sizes must not decrease"
                        ),
                    ));
                }
                if c < pc {
                    return Err(err(
                        line,
                        format!(
                            "cdf value {c} is smaller than the previous row's {pc}; the cdf must not decrease"
                        ),
                    ));
                }
            }
            prev = Some((s, c));
            sizes.push(s);
            probs.push(c / scale);
        }
        *probs.last_mut().expect("non-empty") = 1.0;
        let cdf = FlowSizeCdf {
            name: source.to_string(),
            sizes,
            probs,
        };
        if cdf.mean() <= 0.0 {
            return Err(err(
                last_line,
                "every size is 0; the mean flow size must be > 0 bytes".into(),
            ));
        }
        Ok(cdf)
    }

    pub fn rows(&self) -> usize {
        self.sizes.len()
    }

    /// Mean flow size in bytes of the piecewise-linear distribution.
    pub fn mean(&self) -> f64 {
        let mut m = self.probs[0] * self.sizes[0];
        for i in 1..self.sizes.len() {
            m += (self.probs[i] - self.probs[i - 1]) * (self.sizes[i - 1] + self.sizes[i]) / 2.0;
        }
        m
    }

    /// Largest possible size.
    pub fn max(&self) -> f64 {
        *self.sizes.last().expect("non-empty")
    }

    /// The size at cumulative probability `u` in (0, 1] (the inverse CDF).
    pub fn quantile(&self, u: f64) -> f64 {
        let i = self.probs.partition_point(|&c| c < u);
        if i == 0 {
            return self.sizes[0];
        }
        let i = i.min(self.sizes.len() - 1);
        let (s0, s1, c0, c1) = (
            self.sizes[i - 1],
            self.sizes[i],
            self.probs[i - 1],
            self.probs[i],
        );
        if c1 <= c0 {
            return s1;
        }
        s0 + (s1 - s0) * ((u - c0) / (c1 - c0)).clamp(0.0, 1.0)
    }

    /// A continuous draw (before truncation to bytes).
    pub fn sample_f64<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        // random() is in [0, 1); 1 - it is in (0, 1].
        self.quantile(1.0 - rng.random::<f64>())
    }

    /// A flow size in whole bytes (truncated, at least 1).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        (self.sample_f64(rng) as u64).max(1)
    }

    /// P(X < x) and P(X <= x) for the piecewise-linear distribution X.
    pub fn cdf_at(&self, x: f64) -> (f64, f64) {
        let (s, c) = (&self.sizes, &self.probs);
        if x < s[0] {
            return (0.0, 0.0);
        }
        // Rows lo..hi have size == x.
        let lo = s.partition_point(|&v| v < x);
        let hi = s.partition_point(|&v| v <= x);
        if lo < hi {
            // The segment ending at row lo approaches c[lo]; rows lo..hi are a point mass.
            let left = if lo == 0 { 0.0 } else { c[lo] };
            return (left, c[hi - 1]);
        }
        if lo == s.len() {
            return (1.0, 1.0);
        }
        // s[lo-1] < x < s[lo] (lo >= 1 because x > s[0]).
        let v = c[lo - 1] + (c[lo] - c[lo - 1]) * (x - s[lo - 1]) / (s[lo] - s[lo - 1]);
        (v, v)
    }

    /// P(size <= k) for the emitted whole-byte sizes (truncated, at least 1).
    pub fn size_cdf(&self, k: u64) -> f64 {
        if k == 0 {
            return 0.0;
        }
        self.cdf_at(k as f64 + 1.0).0
    }
}

/// Kolmogorov-Smirnov distance between whole-byte `samples` and the emitted-size
/// distribution of `cdf` (see [`FlowSizeCdf::size_cdf`]). Sorts `samples`.
pub fn ks_statistic(cdf: &FlowSizeCdf, samples: &mut [u64]) -> f64 {
    samples.sort_unstable();
    let n = samples.len() as f64;
    let mut d: f64 = 0.0;
    let mut below = 0.0; // empirical P(size < v)
    let mut i = 0;
    while i < samples.len() {
        let v = samples[i];
        let j = samples[i..].partition_point(|&x| x == v) + i;
        let at = j as f64 / n; // empirical P(size <= v)
        // Just below v, and at v.
        d = d.max((below - cdf.size_cdf(v - 1)).abs());
        d = d.max((at - cdf.size_cdf(v)).abs());
        below = at;
        i = j;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn parse(text: &str) -> Result<FlowSizeCdf, InputError> {
        FlowSizeCdf::parse("t.txt", text)
    }

    #[test]
    fn both_formats_give_the_same_distribution() {
        let a = parse("0 0\n1000 50\n3000 100\n").unwrap();
        let b = parse("# comment\n\n0 0\n1000 0.5\n3000 1\n").unwrap();
        assert_eq!(a.sizes, b.sizes);
        assert_eq!(a.probs, b.probs);
        assert_eq!(a.mean(), 0.5 * 500.0 + 0.5 * 2000.0);
        assert_eq!(a.quantile(0.5), 1000.0);
        assert_eq!(a.quantile(0.75), 2000.0);
    }

    #[test]
    fn repeated_sizes_are_point_masses_and_flat_cdf_is_a_gap() {
        let c = parse("1460 0\n1460 0.5\n2000 0.5\n3000 1\n").unwrap();
        assert_eq!(c.quantile(0.3), 1460.0);
        assert_eq!(c.quantile(0.5), 1460.0);
        assert!(c.quantile(0.5000001) >= 2000.0);
        assert_eq!(c.cdf_at(1460.0), (0.0, 0.5));
        assert_eq!(c.cdf_at(1700.0), (0.5, 0.5));
        assert_eq!(c.cdf_at(2500.0), (0.75, 0.75));
        assert_eq!(c.cdf_at(3000.0), (1.0, 1.0));
        assert_eq!(c.mean(), 0.5 * 1460.0 + 0.5 * 2500.0);
        // A first row with cdf > 0 is a point mass there.
        let p = parse("100 0.25\n200 1\n").unwrap();
        assert_eq!(p.quantile(0.1), 100.0);
        assert_eq!(p.mean(), 25.0 + 0.75 * 150.0);
        assert_eq!(p.cdf_at(100.0), (0.0, 0.25));
    }

    #[test]
    fn bad_files_name_the_line_and_what_is_valid() {
        let e = parse("0 0\n1000 0.6\n900 0.7\n2000 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.txt: line 3: size 900"), "{e}");
        let e = parse("0 0\n1000 0.6\n2000 0.5\n3000 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 3") && e.contains("must not decrease"),
            "{e}"
        );
        let e = parse("0 0\n1000 0.9\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("must be 1"), "{e}");
        let e = parse("0 0\n1000 x\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("\"x\""), "{e}");
        let e = parse("0 0 0\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("two numbers"), "{e}");
        let e = parse("# only comments\n").unwrap_err().to_string();
        assert!(e.contains("no \"size_bytes cdf\" rows"), "{e}");
        let e = parse("0 0\n10 -1\n20 1\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = parse("0 0\n0 1\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("mean flow size"), "{e}");
    }

    #[test]
    fn sizes_are_truncated_to_whole_bytes_and_at_least_one() {
        let c = parse("0 0\n10 1\n").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let v: Vec<u64> = (0..1000).map(|_| c.sample(&mut rng)).collect();
        assert!(v.iter().all(|&s| (1..=10).contains(&s)));
        // P(size = 1) = P(X < 2) = 0.2.
        let ones = v.iter().filter(|&&s| s == 1).count();
        assert!((150..250).contains(&ones), "{ones}");
        assert_eq!(c.size_cdf(1), 0.2);
        assert_eq!(c.size_cdf(9), 1.0);
    }

    #[test]
    fn the_ks_statistic_is_small_for_own_samples_and_large_for_others() {
        let c = parse("0 0\n1000 0.5\n100000 1\n").unwrap();
        let other = parse("0 0\n2000 0.5\n100000 1\n").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut v: Vec<u64> = (0..20_000).map(|_| c.sample(&mut rng)).collect();
        let d = ks_statistic(&c, &mut v);
        assert!(d < 1.63 / (20_000f64).sqrt(), "{d}");
        assert!(ks_statistic(&other, &mut v) > 0.2);
    }
}
