//! What a sweep writes besides the point directories: each point's
//! `sweep-point.json` (written by whoever runs the point), and `sweep.csv` /
//! `sweep.json` (written only by [`collect`], from the point directories).

use super::{PointStatus, SweepSpec, plain};
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use crate::report::data::OrderedJson;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// In each point directory: index, id, scenario hash, status and error.
pub const POINT_FILE: &str = "sweep-point.json";
/// In the sweep directory: which sweep file it belongs to (for `sweep collect DIR`).
pub const PLAN_FILE: &str = "sweep-plan.json";

/// The content of `sweep-point.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct PointRecord {
    pub index: usize,
    pub id: String,
    pub scenario_hash: String,
    /// "ok" or "failed".
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub values: serde_json::Value,
}

impl PointRecord {
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        let json = serde_json::to_string_pretty(self).expect("point record serializes") + "\n";
        AtomicFile::write_all_to(dir, POINT_FILE, json.as_bytes())
    }

    pub fn read(dir: &Path) -> Option<PointRecord> {
        let text = std::fs::read_to_string(dir.join(POINT_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// Axis values as a JSON object.
pub(super) fn values_json(values: &[(String, toml::Value)]) -> serde_json::Value {
    let map = values
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
            )
        })
        .collect();
    serde_json::Value::Object(map)
}

#[derive(Serialize, Deserialize)]
struct Plan {
    sweep_file: PathBuf,
    points: usize,
}

/// `--out` of a sweep must be new, empty, or a sweep's own directory (it holds
/// [`PLAN_FILE`]; the sweep resumes there): never a run directory or anything
/// else, whose files the sweep's would mix with.
pub(super) fn check_sweep_dir(out: &Path) -> Result<(), InputError> {
    InputError::check_out_dir(out)?;
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if names.is_empty() || names.iter().any(|n| n == PLAN_FILE) {
        return Ok(());
    }
    names.sort();
    let what = match names.iter().any(|n| n == "summary.json") {
        true => "is a run directory (it holds summary.json)".to_string(),
        false => format!(
            "holds files a sweep did not write ({}{})",
            names[0],
            if names.len() > 1 { ", ..." } else { "" }
        ),
    };
    let msg = format!(
        "{} {what}; give a new directory (a sweep resumes only in its own directory, which \
         holds {PLAN_FILE})",
        out.display()
    );
    Err(InputError::new("--out", "", msg))
}

/// The sweep file a binding writes into its sweep directory, and the base
/// scenario it writes beside it when the scenario is held in memory.
pub const TEXT_SWEEP_FILE: &str = "sweep.toml";
pub const TEXT_BASE_FILE: &str = "base.toml";

/// A sweep given as text by a binding (the Python package): `text` is a sweep
/// file whose `base` is an absolute path, or [`TEXT_BASE_FILE`] with the
/// scenario's text in `base`. Both are written into the sweep directory `out`
/// with its plan, so that the sweep resumes and collects there like one from
/// a sweep file (`rocesim sweep collect OUT`). The directory is checked first
/// (as `rocesim sweep` checks it), and when the sweep does not load (an
/// unknown key, a value the base scenario rejects) nothing is left behind.
pub fn write_text_sweep(out: &Path, text: &str, base: Option<&str>) -> Result<SweepSpec, Error> {
    check_sweep_dir(out)?;
    let existed = out.exists();
    // What a resumed sweep's directory held, put back if this text fails.
    let before = [TEXT_SWEEP_FILE, TEXT_BASE_FILE].map(|f| (f, std::fs::read(out.join(f)).ok()));
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let file = out.join(TEXT_SWEEP_FILE);
    let loaded = (|| {
        if let Some(b) = base {
            AtomicFile::write_all_to(out, TEXT_BASE_FILE, b.as_bytes())?;
        }
        AtomicFile::write_all_to(out, TEXT_SWEEP_FILE, text.as_bytes())?;
        let spec = super::load_sweep_file(&file)?;
        write_plan(&spec, out)?;
        Ok(spec)
    })();
    if loaded.is_err() {
        // The sweep did not load: leave the directory as it was.
        for (f, old) in before {
            let _ = match old {
                Some(bytes) => AtomicFile::write_all_to(out, f, &bytes),
                None => std::fs::remove_file(out.join(f)).map_err(|e| Error::io(out, e)),
            };
        }
        if !existed {
            let _ = std::fs::remove_dir(out);
        }
    }
    loaded
}

/// Records which sweep file `out` belongs to.
pub(super) fn write_plan(spec: &SweepSpec, out: &Path) -> Result<(), Error> {
    let plan = Plan {
        sweep_file: spec.abs_path.clone(),
        points: spec.points.len(),
    };
    let json = serde_json::to_string_pretty(&plan).expect("plan serializes") + "\n";
    AtomicFile::write_all_to(out, PLAN_FILE, json.as_bytes())
}

/// The sweep file a sweep directory belongs to (from its `sweep-plan.json`,
/// written by a local sweep and by `--slurm`).
pub fn read_plan(out: &Path) -> Result<PathBuf, Error> {
    let path = out.join(PLAN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|_| {
        InputError::in_file(
            &path,
            "",
            "missing: not a sweep directory (a local sweep and --slurm write it; \
             or collect with `rocesim sweep SWEEP.toml --collect --out DIR`)",
        )
    })?;
    let plan: Plan = serde_json::from_str(&text)
        .map_err(|e| InputError::in_file(&path, format!("line {}", e.line()), e.to_string()))?;
    Ok(plan.sweep_file)
}

/// One point after collecting.
#[derive(Clone, Debug, PartialEq)]
pub struct PointResult {
    pub index: usize,
    pub id: String,
    pub status: PointStatus,
    /// The point's run directory.
    pub dir: PathBuf,
}

/// What [`collect`] (and so [`super::run_sweep`]) found.
#[derive(Clone, Debug)]
pub struct SweepResult {
    pub out: PathBuf,
    pub points: Vec<PointResult>,
    /// `out/sweep.csv` and `out/sweep.json`.
    pub csv: PathBuf,
    pub json: PathBuf,
}

impl SweepResult {
    fn with(&self, label: &str) -> Vec<&PointResult> {
        self.points
            .iter()
            .filter(|p| p.status.label() == label)
            .collect()
    }
    pub fn failed(&self) -> Vec<&PointResult> {
        self.with("failed")
    }
    pub fn missing(&self) -> Vec<&PointResult> {
        self.with("missing")
    }
    /// Every point ok.
    pub fn is_complete(&self) -> bool {
        self.points.iter().all(|p| p.status == PointStatus::Ok)
    }
    /// One line per failed or missing point, then a count line.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for p in &self.points {
            match &p.status {
                PointStatus::Ok => {}
                PointStatus::Failed(e) => s += &format!("  failed  {}: {e}\n", p.id),
                PointStatus::Missing(why) => s += &format!("  missing {}: {why}\n", p.id),
            }
        }
        s + &format!(
            "{} points: {} ok, {} failed, {} missing; wrote {} and {}\n",
            self.points.len(),
            self.points.len() - self.failed().len() - self.missing().len(),
            self.failed().len(),
            self.missing().len(),
            self.csv.display(),
            self.json.display()
        )
    }
    /// `Err` naming the failed and missing points, for a non-zero exit code.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_complete() {
            return Ok(());
        }
        let ids = |v: Vec<&PointResult>| {
            v.iter()
                .map(|p| p.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        if !self.failed().is_empty() {
            parts.push(format!("failed: {}", ids(self.failed())));
        }
        if !self.missing().is_empty() {
            parts.push(format!("missing: {}", ids(self.missing())));
        }
        Err(Error::Sim(format!(
            "sweep {}: {} (details in {})",
            self.out.display(),
            parts.join("; "),
            self.json.display()
        )))
    }
}

/// A point's status from its directory, and its summary.json when ok.
fn read_point(
    spec: &SweepSpec,
    p: &super::Point,
    dir: &Path,
) -> (PointStatus, Option<String>, Option<OrderedJson>) {
    let hash = spec.point_hash(p).ok();
    let Some(rec) = PointRecord::read(dir) else {
        return (PointStatus::Missing("not run".into()), hash, None);
    };
    if rec.scenario_hash != hash.clone().unwrap_or_default() {
        let why = format!(
            "its results are for another scenario (hash {}, the sweep's is {}); run it again",
            rec.scenario_hash,
            hash.as_deref().unwrap_or("none")
        );
        return (PointStatus::Missing(why), hash, None);
    }
    if rec.status != "ok" {
        let e = rec.error.unwrap_or_else(|| "failed".into());
        return (PointStatus::Failed(e), hash, None);
    }
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<OrderedJson>(&t).ok());
    match summary {
        Some(s) => (PointStatus::Ok, hash, Some(with_jobs(s))),
        None => (
            PointStatus::Missing("summary.json is missing or unreadable".into()),
            hash,
            None,
        ),
    }
}

/// `summary` with each job of its `jobs` list (collectives, graphs) as
/// columns of its own: `job.<name>.jct_ns`, `job.<name>.iteration_ns_mean`,
/// `job.<name>.busbw_gbyte_s_mean`.
fn with_jobs(mut summary: OrderedJson) -> OrderedJson {
    let jobs = summary
        .0
        .iter()
        .find(|(k, _)| k == "jobs")
        .map(|(_, v)| v.clone());
    let Some(serde_json::Value::Array(jobs)) = jobs else {
        return summary;
    };
    for j in &jobs {
        let Some(name) = j.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        for key in ["jct_ns", "iteration_ns_mean", "busbw_gbyte_s_mean"] {
            if let Some(v) = j.get(key) {
                summary.0.push((format!("job.{name}.{key}"), v.clone()));
            }
        }
    }
    summary
}

/// A CSV field, quoted when it needs to be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn json_cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Reads every point directory of `spec` under `out` and writes `out/sweep.csv`
/// (one row per point: `point`, `status`, the axis values, then the numbers of
/// summary.json except its wall-clock keys; empty cells for points that are
/// not ok) and `out/sweep.json` (the sweep, and every point's id, values,
/// scenario hash, status and error). Only the point directories are read, so
/// the files are the same however and wherever the points ran.
pub fn collect(spec: &SweepSpec, out: &Path) -> Result<SweepResult, Error> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut rows = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for p in &spec.points {
        let dir = out.join(&p.id);
        let (status, hash, summary) = read_point(spec, p, &dir);
        if let Some(s) = &summary {
            for (k, v) in &s.0 {
                let numeric = v.is_number() || v.is_boolean();
                if numeric && !metrics.contains(k) {
                    metrics.push(k.clone());
                }
            }
        }
        rows.push((p, dir, status, hash, summary));
    }
    let mut csv = String::new();
    let header: Vec<String> = ["point", "status"]
        .iter()
        .map(|s| s.to_string())
        .chain(spec.axes.iter().map(|a| a.0.clone()))
        .chain(metrics.iter().cloned())
        .collect();
    csv += &header
        .iter()
        .map(|h| csv_field(h))
        .collect::<Vec<_>>()
        .join(",");
    csv.push('\n');
    let mut json_points = Vec::new();
    let mut results = Vec::new();
    for (p, dir, status, hash, summary) in rows {
        let mut cells = vec![p.id.clone(), status.label().to_string()];
        for (key, _) in &spec.axes {
            let v = p.values.iter().find(|(k, _)| k == key);
            cells.push(v.map(|(_, v)| plain(v)).unwrap_or_default());
        }
        for m in &metrics {
            let v = summary.as_ref().and_then(|s| s.get(m));
            cells.push(v.map(json_cell).unwrap_or_default());
        }
        csv += &cells
            .iter()
            .map(|c| csv_field(c))
            .collect::<Vec<_>>()
            .join(",");
        csv.push('\n');
        let mut jp = serde_json::json!({
            "index": p.index,
            "id": p.id,
            "values": super::output::values_json(&p.values),
            "scenario_hash": hash,
            "status": status.label(),
        });
        match &status {
            PointStatus::Ok => {}
            PointStatus::Failed(e) | PointStatus::Missing(e) => {
                jp["error"] = serde_json::Value::String(e.clone());
            }
        }
        json_points.push(jp);
        results.push(PointResult {
            index: p.index,
            id: p.id.clone(),
            status,
            dir,
        });
    }
    let count = |l: &str| results.iter().filter(|r| r.status.label() == l).count();
    let json = serde_json::json!({
        "sweep_file": spec.abs_path,
        "base": spec.base,
        "mode": if spec.grid { "grid" } else { "points" },
        "set": super::output::values_json(&spec.set),
        "axes": spec.axes.iter().map(|(k, vals)| serde_json::json!({
            "key": k,
            "values": vals.iter().map(|v| serde_json::to_value(v).unwrap_or(serde_json::Value::Null)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "columns": header,
        "ok": count("ok"),
        "failed": count("failed"),
        "missing": count("missing"),
        "points": json_points,
    });
    let json = serde_json::to_string_pretty(&json).expect("sweep.json serializes") + "\n";
    AtomicFile::write_all_to(out, "sweep.csv", csv.as_bytes())?;
    AtomicFile::write_all_to(out, "sweep.json", json.as_bytes())?;
    Ok(SweepResult {
        out: out.to_path_buf(),
        points: results,
        csv: out.join("sweep.csv"),
        json: out.join("sweep.json"),
    })
}
