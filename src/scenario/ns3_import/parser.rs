//! Reading an ns-3 config file: `KEY values` lines (third.cc's format), each
//! key once, and its values as third.cc reads them (numbers, 0/1 flags, ns-3
//! `DataRate`s, microseconds, files found as ns-3 finds them).

use super::{KEYS, find_file};
use crate::error::InputError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `KEY values` line.
pub(super) struct Entry {
    pub(super) line: usize,
    pub(super) values: Vec<String>,
}

/// The config's keys, each with its line, read as third.cc reads them.
pub(super) struct Parser<'a> {
    pub(super) file: &'a str,
    keys: BTreeMap<&'static str, Entry>,
}

impl Parser<'_> {
    pub(super) fn err(&self, e: &Entry, key: &str, msg: impl Into<String>) -> InputError {
        InputError::new(self.file, format!("line {}: {key}", e.line), msg.into())
    }

    pub(super) fn get(&self, key: &str) -> Option<&Entry> {
        self.keys.get(key)
    }

    /// The single value of `key`, if given.
    pub(super) fn one(&self, key: &str) -> Result<Option<(&Entry, &str)>, InputError> {
        let Some(e) = self.get(key) else {
            return Ok(None);
        };
        match e.values.as_slice() {
            [v] => Ok(Some((e, v.as_str()))),
            _ => Err(self.err(e, key, format!("takes one value, got {}", e.values.len()))),
        }
    }

    pub(super) fn num<T: std::str::FromStr>(
        &self,
        key: &str,
        valid: &str,
    ) -> Result<Option<T>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => v
                .parse()
                .map(Some)
                .map_err(|_| self.err(e, key, format!("\"{v}\" is not valid; valid: {valid}"))),
        }
    }

    pub(super) fn float(
        &self,
        key: &str,
        valid: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Result<Option<f64>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && ok(x) => Ok(Some(x)),
                _ => Err(self.err(e, key, format!("\"{v}\" is not valid; valid: {valid}"))),
            },
        }
    }

    pub(super) fn flag(&self, key: &str) -> Result<Option<bool>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((_, "0")) => Ok(Some(false)),
            Some((_, "1")) => Ok(Some(true)),
            Some((e, v)) => Err(self.err(e, key, format!("\"{v}\" is not valid; valid: 0 or 1"))),
        }
    }

    pub(super) fn rate(&self, key: &str) -> Result<Option<u64>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => parse_data_rate(v)
                .map(Some)
                .map_err(|m| self.err(e, key, m)),
        }
    }

    /// The file `key` names, found relative to `config_dir` or its parents as
    /// ns-3 would from its working directory.
    pub(super) fn locate(
        &self,
        config_dir: &Path,
        key: &str,
    ) -> Result<Option<PathBuf>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => find_file(config_dir, v).map(Some).ok_or_else(|| {
                self.err(
                    e,
                    key,
                    format!(
                        "\"{v}\" not found (looked relative to {} and its parent directories)",
                        config_dir.display()
                    ),
                )
            }),
        }
    }

    /// A time in microseconds (third.cc multiplies by `MicroSeconds`).
    pub(super) fn micros(&self, key: &str) -> Result<Option<String>, InputError> {
        let max_us = crate::limits::max_time_s() * 1e6;
        Ok(self
            .float(key, "a time in microseconds > 0, e.g. 4", |x| {
                x > 0.0 && x <= max_us
            })?
            .map(|us| format!("{}ns", (us * 1000.0).round() as u64)))
    }
}

/// Reads `KEY values` lines; an unknown key (a typo) becomes a warning naming
/// its line, a key given twice an error naming both lines.
pub(super) fn parse_config<'a>(
    file: &'a str,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Parser<'a>, InputError> {
    let mut p = Parser {
        file,
        keys: BTreeMap::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        // config_doc.txt's {explanations} and '#' comments are not values.
        let line = raw
            .split('{')
            .next()
            .unwrap_or("")
            .split('#')
            .next()
            .unwrap_or("");
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else { continue };
        let values: Vec<String> = words.map(str::to_string).collect();
        match KEYS.iter().find(|k| **k == key) {
            Some(k) => {
                if let Some(first) = p.keys.get(k) {
                    return Err(InputError::new(
                        file,
                        format!("line {}: {k}", i + 1),
                        format!(
                            "is given again (first on line {}); give each key once",
                            first.line
                        ),
                    ));
                }
                p.keys.insert(
                    k,
                    Entry {
                        line: i + 1,
                        values,
                    },
                );
            }
            None => warnings.push(format!(
                "{file}: line {}: unknown key {key} (ignored; is it a typo? third.cc reads: {})",
                i + 1,
                KEYS.join(", ")
            )),
        }
    }
    Ok(p)
}

/// Parses an ns-3 `DataRate` string ("100Gbps", "50Mb/s", "1.5GB/s", "10Kib/s",
/// or a bare number of bit/s) into bit/s.
fn parse_data_rate(s: &str) -> Result<u64, String> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let bad = || {
        format!(
            "\"{s}\" is not an ns-3 DataRate; valid: a number with bps, b/s, Bps or B/s and an optional k/K, Ki, M, Mi, G or Gi prefix, e.g. \"100Gbps\", \"50Mb/s\""
        )
    };
    let x: f64 = num.parse().map_err(|_| bad())?;
    let (prefix, bytes) = if let Some(p) = unit.strip_suffix("bps").or(unit.strip_suffix("b/s")) {
        (p, false)
    } else if let Some(p) = unit.strip_suffix("Bps").or(unit.strip_suffix("B/s")) {
        (p, true)
    } else if unit.is_empty() {
        ("", false)
    } else {
        return Err(bad());
    };
    let scale = match prefix {
        "" => 1.0,
        "k" | "K" => 1e3,
        "Ki" => 1024.0,
        "M" => 1e6,
        "Mi" => 1024.0 * 1024.0,
        "G" => 1e9,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bps = x * scale * if bytes { 8.0 } else { 1.0 };
    if !bps.is_finite() || !(0.0..=1e16).contains(&bps) {
        return Err(bad());
    }
    Ok(bps.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns3_data_rates_parse_with_si_binary_and_byte_units() {
        assert_eq!(parse_data_rate("100Gbps"), Ok(100_000_000_000));
        assert_eq!(parse_data_rate("50Mb/s"), Ok(50_000_000));
        assert_eq!(parse_data_rate("1KB/s"), Ok(8_000));
        assert_eq!(parse_data_rate("1Kib/s"), Ok(1024));
        assert_eq!(parse_data_rate("2500"), Ok(2500));
        assert!(parse_data_rate("5Mbits").is_err());
    }
}
