//! Reading scenario files and `--set key.path=value` overrides.
//!
//! Errors are one line: the file, the line (when the text has one) and the field
//! path, then what is wrong and what would be valid.

use super::ScenarioFile;
use super::tagged;
use super::topology::TopologySection;
use crate::error::InputError;
use crate::limits::{MAX_KEY_LEN, MAX_KEY_PARTS};
use std::path::{Path, PathBuf};

/// A parsed scenario with where it came from.
#[derive(Clone, Debug)]
pub(super) struct Loaded {
    pub(super) file: ScenarioFile,
    /// How to name the source in messages (the path, or "built-in quickstart").
    pub(super) source: String,
    /// Directory that relative paths in the scenario are resolved against.
    pub(super) base_dir: PathBuf,
    /// The effective scenario as TOML (overrides applied).
    pub(super) text: String,
    /// File stem, the default experiment name.
    pub(super) stem: String,
}

/// Reads and parses a scenario file, applying `overrides` (`key.path=value`).
pub(super) fn load_path(path: &Path, overrides: &[String]) -> Result<Loaded, InputError> {
    let text = crate::limits::read_text(path)
        .map_err(|e| InputError::in_file(path, "", format!("cannot read scenario: {e}")))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    load_str(&text, &path.display().to_string(), &base, &stem, overrides)
}

/// Parses scenario text. `source` names it in error messages.
pub(super) fn load_str(
    text: &str,
    source: &str,
    base_dir: &Path,
    stem: &str,
    overrides: &[String],
) -> Result<Loaded, InputError> {
    let effective = if overrides.is_empty() {
        text.to_string()
    } else {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| toml_error(source, text, &e))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        toml::to_string(&table)
            .map_err(|e| InputError::new(source, "", format!("cannot apply overrides: {e}")))?
    };
    let mut track = serde_path_to_error::Track::new();
    let de =
        serde_path_to_error::Deserializer::new(toml::Deserializer::new(&effective), &mut track);
    // `[topology]` is read as its kind's struct, the kind read ahead.
    let kind = tagged::peek_kind(&effective, "topology");
    let read = tagged::read_file::<ScenarioFile, TopologySection, _>(de, "topology", kind);
    let file = read.map_err(|e| {
        let path = track.path().to_string();
        let label = if overrides.is_empty() {
            source.to_string()
        } else {
            format!("{source} (with --set overrides)")
        };
        let mut err = toml_error(&label, &effective, &e);
        if !overrides.is_empty() {
            // Line numbers of the re-serialized text would mislead; the path names the field.
            err.location.clear();
        }
        err.with_path(&path)
    })?;
    Ok(Loaded {
        file,
        source: source.to_string(),
        base_dir: base_dir.to_path_buf(),
        text: effective,
        stem: stem.to_string(),
    })
}

trait WithPath {
    fn with_path(self, path: &str) -> Self;
}

impl WithPath for InputError {
    /// Adds the field path to the location when serde knows it.
    fn with_path(mut self, path: &str) -> Self {
        if !path.is_empty() && path != "." && !self.location.contains(path) {
            self.location = if self.location.is_empty() {
                path.to_string()
            } else {
                format!("{}: {path}", self.location)
            };
        }
        self
    }
}

pub(crate) fn toml_error(source: &str, text: &str, e: &toml::de::Error) -> InputError {
    let mut message = e.message().trim().to_string();
    let location = match e.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(1, |t| t.matches('\n').count() + 1);
            let mut location = format!("line {line}");
            // The TOML parser rejects an integer beyond 64 bits before any field
            // sees it, and names no field: name the key on that line.
            if message.contains("to fit in target type")
                && let Some((field, value)) = key_on_line(text, line)
            {
                // A byte count can be given as a string with a unit; a seed
                // or a count cannot be larger.
                let last = field.rsplit('.').next().unwrap_or(&field);
                let bytes = ["size", "buffer", "byte", "bytes", "counter"]
                    .iter()
                    .any(|w| last.contains(w));
                let hint = match bytes {
                    true => "; give large byte counts with a unit, e.g. \"20GB\"",
                    false => "",
                };
                location = format!("{location}: {field}");
                message = format!(
                    "{value} does not fit a TOML integer (valid: {}..={}){hint}",
                    i64::MIN,
                    i64::MAX
                );
            }
            location
        }
        None => String::new(),
    };
    InputError::new(source, location, message)
}

/// The dotted field path and the value text of a `key = value` line (1-based),
/// with the table header above it (`[[workload.flows]]` gets its index).
fn key_on_line(text: &str, line: usize) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let (key, value) = lines.get(line.checked_sub(1)?)?.split_once('=')?;
    let (key, value) = (key.trim(), value.split('#').next().unwrap_or("").trim());
    let mut table = String::new();
    let mut seen: Vec<String> = Vec::new();
    for l in &lines[..line - 1] {
        let l = l.trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = name.trim().to_string();
            let index = seen.iter().filter(|s| **s == name).count();
            table = format!("{name}[{index}]");
            seen.push(name);
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.split(']').next()) {
            table = name.trim().to_string();
        }
    }
    let field = if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    };
    Some((field, value.to_string()))
}

/// Applies one `key.path=value` override. The value is read as TOML (a number,
/// boolean, string in quotes, array...) and as a plain string otherwise.
pub(crate) fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), InputError> {
    let flag = format!("--set {}", clip(spec));
    let Some((key, raw)) = spec.split_once('=') else {
        return Err(InputError::new(
            flag,
            "",
            "expected key.path=value, e.g. --set cc.hpcc.eta=0.9",
        ));
    };
    let key = key.trim();
    // Bounded before anything is built for it: a key thousands of levels deep
    // would nest tables that deep, and dropping or writing them recurses.
    let depth = key.split('.').count();
    if depth > MAX_KEY_PARTS || key.len() > MAX_KEY_LEN {
        return Err(InputError::new(
            flag,
            "",
            format!(
                "a key path of {depth} parts and {} characters is longer than any scenario key \
                 (limit {MAX_KEY_PARTS} parts, {MAX_KEY_LEN} characters; valid: e.g. \
                 topology.rate or workload.flows[0].size)",
                key.len()
            ),
        ));
    }
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(InputError::new(
            flag,
            "",
            format!(
                "\"{}\" is not a key path like topology.rate or workload.flows[0].size",
                clip(key)
            ),
        ));
    }
    let raw = raw.trim();
    let value = parse_value(raw);
    let digits = raw.strip_prefix(['-', '+']).unwrap_or(raw);
    let huge = digits.len() >= 19 && !digits.starts_with('0');
    if value.is_str() && huge && digits.bytes().all(|b| b.is_ascii_digit()) {
        // As in a scenario file: an integer TOML cannot hold (issue 42 item 10).
        let msg = format!(
            "{raw} does not fit a TOML integer (valid: {}..={})",
            i64::MIN,
            i64::MAX
        );
        return Err(InputError::new(flag, "", msg));
    }
    set_path(table, &parts, value).map_err(|msg| InputError::new(flag, "", msg))
}

/// Sets the value at `parts` (`name` or `name[index]` each), making the
/// tables on the way; a message when the scenario's shape does not allow it.
fn set_path(table: &mut toml::Table, parts: &[&str], value: toml::Value) -> Result<(), String> {
    let no_key =
        |here: &str, i: usize| format!("{here} is not a table, so it has no key {}", parts[i + 1]);
    let mut cur = table;
    for (i, part) in parts.iter().enumerate() {
        let (name, index) = split_index(part)?;
        let here = parts[..=i].join(".");
        let last = i + 1 == parts.len();
        match (index, last) {
            (None, true) => {
                cur.insert(name.to_string(), value);
                return Ok(());
            }
            (None, false) => {
                let entry = cur
                    .entry(name.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                cur = entry.as_table_mut().ok_or_else(|| no_key(&here, i))?;
            }
            (Some(k), _) => {
                let arr = cur
                    .get_mut(name)
                    .and_then(toml::Value::as_array_mut)
                    .ok_or_else(|| {
                        format!("{name} is not an array in the scenario, so {here} does not exist")
                    })?;
                let len = arr.len();
                let slot = arr.get_mut(k).ok_or_else(|| {
                    format!("{here}: index {k} is out of range (the array has {len} entries)")
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                cur = slot.as_table_mut().ok_or_else(|| no_key(&here, i))?;
            }
        }
    }
    unreachable!("the loop returns at the last key")
}

/// `text` for a message: whole when short, else its first 60 characters and
/// how long it is, so that a huge input gives a readable line.
fn clip(text: &str) -> String {
    const SHOW: usize = 60;
    match text.char_indices().nth(SHOW) {
        None => text.to_string(),
        Some((at, _)) => format!("{}... ({} characters)", &text[..at], text.chars().count()),
    }
}

/// `name[3]` → (`name`, Some(3)); `name` → (`name`, None).
fn split_index(part: &str) -> Result<(&str, Option<usize>), String> {
    match part.split_once('[') {
        None => Ok((part, None)),
        Some((name, rest)) => {
            let idx = rest
                .strip_suffix(']')
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| format!("\"{}\" is not a key or key[index]", clip(part)))?;
            Ok((name, Some(idx)))
        }
    }
}

fn parse_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "1us"
"#;

    #[test]
    fn a_set_key_thousands_of_parts_deep_is_an_error_not_a_stack_overflow() {
        // Issue 42 item 1: 6,000 (the CLI) and 10,000 (Python) parts.
        for n in [6_000, 10_000] {
            let spec = format!("{}=1", vec!["a"; n].join("."));
            let e = load_str(MINIMAL, "x.toml", Path::new("."), "x", &[spec]).unwrap_err();
            let s = e.to_string();
            assert!(
                s.contains("--set a.a.a") && s.contains("characters)"),
                "{s}"
            );
            assert!(
                s.contains(&format!("{n} parts")) && s.contains("limit 16 parts"),
                "{s}"
            );
            assert!(s.len() < 400 && !s.contains('\n'), "one short line: {s}");
        }
    }

    #[test]
    fn a_huge_seed_or_host_count_gets_no_byte_count_hint() {
        // Issue 42 item 10.
        for (key, line) in [("seed", 1), ("topology.hosts", 4)] {
            let text = match key {
                "seed" => format!("seed = 99999999999999999999{MINIMAL}"),
                _ => MINIMAL.replace("hosts = 3", "hosts = 99999999999999999999"),
            };
            let e = load_str(&text, "x.toml", Path::new("."), "x", &[]).unwrap_err();
            let s = e.to_string();
            assert!(
                s.starts_with(&format!("x.toml: line {line}: {key}: ")),
                "{s}"
            );
            assert!(s.contains("does not fit a TOML integer"), "{s}");
            assert!(!s.contains("byte counts"), "{s}");
        }
    }

    #[test]
    fn a_huge_integer_in_a_set_override_says_it_does_not_fit() {
        // Issue 42 item 10, through --set: not "invalid type: string".
        for spec in [
            "seed=9223372036854775808",
            "topology.hosts=99999999999999999999",
        ] {
            let e = load_str(MINIMAL, "x.toml", Path::new("."), "x", &[spec.into()]).unwrap_err();
            let s = e.to_string();
            assert!(s.contains("does not fit a TOML integer"), "{s}");
            assert!(!s.contains("invalid type"), "{s}");
        }
        // Text that merely starts with digits, or has leading zeros, is still
        // a string value.
        for text in ["name=123abc", "name=007"] {
            load_str(MINIMAL, "x.toml", Path::new("."), "x", &[text.into()]).unwrap();
        }
    }

    #[test]
    fn unknown_fields_are_rejected_with_line_and_valid_names() {
        let text = format!("{MINIMAL}\n[nic]\nmtuu = 1000\n");
        let e = load_str(&text, "x.toml", Path::new("."), "x", &[]).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("x.toml: line 9"), "{s}");
        assert!(s.contains("mtuu") && s.contains("mtu"), "{s}");
        assert!(!s.contains('\n'));
    }

    #[test]
    fn integers_beyond_64_bits_name_the_field() {
        let text = format!(
            "{MINIMAL}\n[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 1000\n\n[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 18446744073709551616\n"
        );
        let e = load_str(&text, "x.toml", Path::new("."), "x", &[]).unwrap_err();
        let s = e.to_string();
        assert!(
            s.starts_with(
                "x.toml: line 16: workload.flows[1].size: 18446744073709551616 does not fit"
            ),
            "{s}"
        );
    }

    #[test]
    fn bad_units_name_the_field() {
        let text = MINIMAL.replace("\"1us\"", "\"1 fortnight\"");
        let e = load_str(&text, "x.toml", Path::new("."), "x", &[]).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("line 6") && s.contains("unknown time unit"),
            "{s}"
        );
    }

    #[test]
    fn overrides_set_nested_keys_and_parse_values_as_toml() {
        let l = load_str(
            MINIMAL,
            "x.toml",
            Path::new("."),
            "x",
            &[
                "cc.algorithm=hpcc".into(),
                "cc.hpcc.eta=0.9".into(),
                "seed=7".into(),
            ],
        )
        .unwrap();
        assert_eq!(l.file.cc.algorithm, "hpcc");
        assert_eq!(l.file.cc.hpcc.eta, 0.9);
        assert_eq!(l.file.seed, 7);
    }

    #[test]
    fn overrides_reach_into_arrays_of_tables() {
        let text = format!("{MINIMAL}\n[[workload.flows]]\nsrc = 1\ndst = 0\nsize = 1000\n");
        let l = load_str(
            &text,
            "x.toml",
            Path::new("."),
            "x",
            &["workload.flows[0].size=\"5KB\"".into()],
        )
        .unwrap();
        assert_eq!(l.file.workload.flows[0].size.0, 5000);
        let e = load_str(
            &text,
            "x.toml",
            Path::new("."),
            "x",
            &["workload.flows[3].size=1".into()],
        )
        .unwrap_err();
        assert!(e.to_string().contains("index 3 is out of range"), "{e}");
        let e = load_str(
            &text,
            "x.toml",
            Path::new("."),
            "x",
            &["workload.poisson[0].load=1".into()],
        )
        .unwrap_err();
        assert!(e.to_string().contains("poisson is not an array"), "{e}");
    }

    #[test]
    fn bad_overrides_name_the_flag() {
        let e = load_str(MINIMAL, "x.toml", Path::new("."), "x", &["seed".into()]).unwrap_err();
        assert!(e.to_string().starts_with("--set seed"), "{e}");
        let e = load_str(
            MINIMAL,
            "x.toml",
            Path::new("."),
            "x",
            &["topology.kind.x=1".into()],
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("topology.kind is not a table"),
            "{e}"
        );
        let e = load_str(
            MINIMAL,
            "x.toml",
            Path::new("."),
            "x",
            &["cc.hpcc.eta=fast".into()],
        )
        .unwrap_err();
        assert!(e.to_string().contains("cc.hpcc.eta"), "{e}");
    }
}
