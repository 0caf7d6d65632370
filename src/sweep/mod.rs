//! Parameter sweeps: one base scenario, many runs (docs/sweeps.md).
//!
//! A sweep file names a base scenario and either axes (`[axes]`, the full grid,
//! the first axis varying slowest) or listed points (`points = [{..}, ..]`) over
//! any scenario key, plus optional fixed overrides (`[set]`). Every key is
//! applied exactly as `rocesim run --set key=value` applies it
//! (`scenario::apply_override`). Each point is an ordinary run
//! directory `OUT/<point id>/`; [`collect`] reads the point directories back into
//! `OUT/sweep.csv` and `OUT/sweep.json`, so a local sweep ([`run_sweep`]) and
//! points run one by one elsewhere ([`run_point`], e.g. by a Slurm job array)
//! give the same bytes.
//!
//! A point is complete when its directory holds `sweep-point.json` with status
//! `ok` and the hash of the point's effective scenario; re-running a sweep skips
//! complete points, so an interrupted sweep resumes where it stopped.
//!
//! ```no_run
//! use rocesim::sweep::{SweepOptions, load_sweep_file, run_sweep};
//! let spec = load_sweep_file("scenarios/sweeps/tiny.toml".as_ref())?;
//! let opts = SweepOptions { out: "runs/tiny".into(), jobs: 2, progress: false };
//! let result = run_sweep(&spec, &opts)?;
//! for p in &result.points {
//!     println!("{} {}", p.id, p.status.label());
//! }
//! result.check()?; // Err naming the failed or missing points
//! # Ok::<(), rocesim::error::Error>(())
//! ```

mod output;
mod run;
pub mod slurm;

pub use output::{
    PLAN_FILE, POINT_FILE, PointResult, SweepResult, TEXT_BASE_FILE, TEXT_SWEEP_FILE, collect,
    read_plan, write_text_sweep,
};
pub use run::{SweepOptions, run_point, run_sweep};

use crate::error::{Error, InputError};
use crate::scenario::{self, Effective, Source};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use std::path::{Path, PathBuf};

/// A loaded and checked sweep file.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// The sweep file as given (names it in messages).
    pub path: PathBuf,
    /// The sweep file, absolute (the Slurm script runs it from anywhere).
    pub abs_path: PathBuf,
    /// The file stem: the default output directory is `runs/<stem>`.
    pub stem: String,
    /// `base` as written in the sweep file.
    pub base: String,
    /// The base scenario, absolute.
    pub base_path: PathBuf,
    /// The base scenario's text, read once.
    base_src: Source,
    /// Fixed overrides applied to every point, in file order.
    pub set: Vec<(String, toml::Value)>,
    /// `true` for a full grid over `[axes]`, `false` for listed points.
    pub grid: bool,
    /// The axes: each key with its distinct values in order (for listed points,
    /// every key a point sets, in order of first appearance).
    pub axes: Vec<(String, Vec<toml::Value>)>,
    pub points: Vec<Point>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// 0-based position in the point list (`--point K`).
    pub index: usize,
    /// Directory name: `p<index>-<key>=<value>-...`, see [`point_id`].
    pub id: String,
    /// The axis values of this point, in axis order.
    pub values: Vec<(String, toml::Value)>,
}

/// A point's status after running or collecting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointStatus {
    /// Complete (run now or earlier).
    Ok,
    /// Failed with this one-line error.
    Failed(String),
    /// Not run yet, or run for a different effective scenario.
    Missing(String),
}

impl PointStatus {
    pub fn label(&self) -> &'static str {
        match self {
            PointStatus::Ok => "ok",
            PointStatus::Failed(_) => "failed",
            PointStatus::Missing(_) => "missing",
        }
    }
}

/// The raw file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    base: String,
    #[serde(default)]
    set: Ordered,
    axes: Option<Ordered>,
    points: Option<Vec<Ordered>>,
}

/// A TOML table with its keys in file order.
#[derive(Clone, Debug, Default)]
struct Ordered(Vec<(String, toml::Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of \"key.path\" = value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = m.next_entry::<String, toml::Value>()? {
                    v.push((k, x));
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// How a value is written in a `--set` override and in scenario files.
pub fn toml_literal(v: &toml::Value) -> String {
    v.to_string()
}

/// How a value is shown in point ids and sweep.csv: strings bare, the rest as TOML.
pub fn plain(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads and checks a sweep file: the base scenario exists and parses, every
/// axis, point and `set` key with each of its values is accepted by the base
/// scenario (errors name the sweep file and the key), and the point list.
/// Bad input is an [`Error::Input`]: one line, exit code 2 on the command line.
pub fn load_sweep_file(path: &Path) -> Result<SweepSpec, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::in_file(path, "", format!("cannot read sweep file: {e}")))?;
    load_sweep_str(&text, path)
}

/// [`load_sweep_file`] for sweep text held in memory (e.g. built by a binding):
/// `path` names it in messages, gives the default output directory's name (its
/// stem) and its directory resolves `base`; it need not exist (then
/// `rocesim sweep collect DIR` cannot find the sweep: call [`collect`]).
pub fn load_sweep_str(text: &str, path: &Path) -> Result<SweepSpec, Error> {
    let shown = path.display().to_string();
    let file: SweepFile = {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            let mut err = scenario::toml_error(&shown, text, e.inner());
            if !field.is_empty() && field != "." {
                err.location = if err.location.is_empty() {
                    field
                } else {
                    format!("{}: {field}", err.location)
                };
            }
            err
        })?
    };
    let abs_path = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
    let dir = abs_path.parent().map(Path::to_path_buf).unwrap_or_default();
    let base_path = dir.join(&file.base);
    let base_src = Source::read(&base_path).map_err(|e| {
        InputError::new(
            &shown,
            "base",
            format!(
                "cannot read the base scenario {} ({e}); give a scenario file relative to the sweep file",
                base_path.display()
            ),
        )
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sweep".into());
    let mut spec = SweepSpec {
        path: path.to_path_buf(),
        abs_path,
        stem,
        base: file.base,
        base_path,
        base_src,
        set: file.set.0,
        grid: true,
        axes: Vec::new(),
        points: Vec::new(),
    };
    // The base itself must load, so later errors are about the keys.
    spec.load_with(&[]).map_err(|e| {
        InputError::new(
            &shown,
            "base",
            format!("the base scenario does not load: {e}"),
        )
    })?;
    for (key, value) in &spec.set {
        spec.check_key(&format!("set.\"{key}\""), key, value)?;
    }
    let bad = |loc: String, msg: &str| InputError::new(&shown, loc, msg.to_string());
    match (file.axes, file.points) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(bad(
                String::new(),
                "give either [axes] (a full grid) or points = [{ \"key\" = value, .. }, ..] (listed points), not both",
            )
            .into());
        }
        (Some(axes), None) => {
            if axes.0.is_empty() {
                return Err(bad("axes".into(), "no axis: add e.g. seed = [1, 2]").into());
            }
            for (key, values) in axes.0 {
                let loc = format!("axes.\"{key}\"");
                let toml::Value::Array(values) = values else {
                    return Err(bad(loc, "expected an array of values, e.g. [1, 2]").into());
                };
                if values.is_empty() {
                    return Err(bad(loc, "an axis needs at least one value").into());
                }
                for (i, v) in values.iter().enumerate() {
                    if values[..i].contains(v) {
                        return Err(bad(loc, &format!("{} appears twice", toml_literal(v))).into());
                    }
                    spec.check_key(&loc, &key, v)?;
                }
                spec.axes.push((key, values));
            }
            spec.points = grid(&spec.axes);
        }
        (None, Some(points)) => {
            spec.grid = false;
            if points.is_empty() {
                return Err(bad("points".into(), "no point: list at least one").into());
            }
            for (i, p) in points.iter().enumerate() {
                if p.0.is_empty() {
                    return Err(bad(format!("points[{i}]"), "a point sets no key").into());
                }
                for (key, v) in &p.0 {
                    spec.check_key(&format!("points[{i}].\"{key}\""), key, v)?;
                    match spec.axes.iter_mut().find(|(k, _)| k == key) {
                        Some((_, vals)) if !vals.contains(v) => vals.push(v.clone()),
                        Some(_) => {}
                        None => spec.axes.push((key.clone(), vec![v.clone()])),
                    }
                }
            }
            spec.points = points
                .into_iter()
                .enumerate()
                .map(|(index, p)| Point {
                    index,
                    id: String::new(),
                    values: p.0,
                })
                .collect();
        }
    }
    let keys: Vec<String> = spec.axes.iter().map(|a| a.0.clone()).collect();
    let n = spec.points.len();
    for p in &mut spec.points {
        p.id = point_id(p.index, n, &p.values, &keys);
    }
    Ok(spec)
}

/// Every combination of the axes' values, the first axis varying slowest.
fn grid(axes: &[(String, Vec<toml::Value>)]) -> Vec<Point> {
    let mut combos: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
    for (key, values) in axes {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((key.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    combos
        .into_iter()
        .enumerate()
        .map(|(index, values)| Point {
            index,
            id: String::new(),
            values,
        })
        .collect()
}

/// A point's directory name: `p` and its index (zero-padded to the width of the
/// largest index, at least 3 digits), then `-key=value` for each axis value. The
/// key is its last path component (`cc.algorithm` → `algorithm`) unless two axes
/// share it; characters other than letters, digits and `._+=-` become `_`. Ids
/// longer than 100 characters are cut to `p<index>` alone. sweep.json lists
/// every id with its values.
pub fn point_id(
    index: usize,
    n: usize,
    values: &[(String, toml::Value)],
    keys: &[String],
) -> String {
    let width = (n.saturating_sub(1)).to_string().len().max(3);
    let prefix = format!("p{index:0width$}");
    let short = |key: &str| -> String {
        let last = key.rsplit('.').next().unwrap_or(key);
        let last = last.split('[').next().unwrap_or(last);
        let clash = keys
            .iter()
            .filter(|k| {
                let l = k.rsplit('.').next().unwrap_or(k);
                l.split('[').next().unwrap_or(l) == last
            })
            .count()
            > 1;
        if clash {
            key.to_string()
        } else {
            last.to_string()
        }
    };
    let mut id = prefix.clone();
    for (k, v) in values {
        id.push('-');
        id.push_str(&short(k));
        id.push('=');
        id.push_str(&plain(v));
    }
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+=-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.len() > 100 { prefix } else { id }
}

/// FNV-1a (64 bit) of the text, as 16 hex digits: stable across builds and
/// machines, unlike `std`'s hasher.
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl SweepSpec {
    /// The `key=value` overrides of a point: `[set]` first, then its axis values.
    pub fn overrides(&self, p: &Point) -> Vec<String> {
        self.set
            .iter()
            .chain(&p.values)
            .map(|(k, v)| format!("{k}={}", toml_literal(v)))
            .collect()
    }

    fn load_with(&self, overrides: &[String]) -> Result<Effective, InputError> {
        scenario::effective(&self.base_src, overrides)
    }

    /// The point's effective scenario (parsed, not yet resolved).
    pub fn load_point(&self, p: &Point) -> Result<Effective, InputError> {
        self.load_with(&self.overrides(p))
    }

    /// The hash of the point's effective scenario text (`scenario_hash`).
    pub fn point_hash(&self, p: &Point) -> Result<String, InputError> {
        Ok(text_hash(self.load_point(p)?.text()))
    }

    /// The base scenario must accept `key = value` (with `[set]`): an unknown key
    /// or a value of the wrong type is an error naming the sweep file and `loc`.
    fn check_key(&self, loc: &str, key: &str, value: &toml::Value) -> Result<(), InputError> {
        let mut o: Vec<String> = self
            .set
            .iter()
            .take_while(|(k, _)| k != key)
            .map(|(k, v)| format!("{k}={}", toml_literal(v)))
            .collect();
        o.push(format!("{key}={}", toml_literal(value)));
        self.load_with(&o).map(|_| ()).map_err(|e| {
            let inner = if e.location.is_empty() {
                e.message
            } else {
                format!("{}: {}", e.location, e.message)
            };
            InputError::new(
                self.path.display().to_string(),
                loc,
                format!(
                    "{} is rejected by the base scenario {}: {inner}",
                    toml_literal(value),
                    self.base
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests;
