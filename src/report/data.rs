//! Reading a run directory: fct.csv and summary.json (required), pfc.csv,
//! queue_hist.csv, latency_hist.csv, flow_rates.csv, link_util.csv and
//! scenario.toml (each optional). Columns are found by name, so files with
//! appended columns still read. Every problem is an [`InputError`] naming the
//! file, the line and what would be valid.

use crate::error::{Error, InputError};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use std::path::{Path, PathBuf};

/// One completed flow from fct.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct FctRow {
    pub flow_id: u32,
    pub size: u64,
    pub start_ns: f64,
    pub fct_ns: f64,
    pub ideal_ns: f64,
    pub slowdown: f64,
    /// Destination port (absent in runs written before the column existed).
    pub dport: Option<u16>,
    /// Source and destination hosts (node ids), when the file has them.
    pub src: Option<u32>,
    pub dst: Option<u32>,
}

/// One PFC state change from pfc.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct PfcRow {
    pub time_ns: f64,
    pub node: u32,
    pub port: u16,
    pub priority: u8,
    pub pause: bool,
}

/// One histogram bin `[lo, hi)` with its weight (time in ns, or packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub weight: f64,
}

/// A queue_hist.csv bin of one port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortBin {
    pub node: u32,
    pub port: u16,
    pub bin: Bin,
}

/// One flow_rates.csv row.
#[derive(Clone, Debug, PartialEq)]
pub struct RateRow {
    pub time_ns: f64,
    pub flow_id: u32,
    pub interval_ns: f64,
    pub rate_gbps: f64,
    pub window_bytes: Option<f64>,
    pub sent_gbps: f64,
    pub delivered_gbps: f64,
    pub delivered_bytes: u64,
}

/// One link_util.csv row.
#[derive(Clone, Debug, PartialEq)]
pub struct UtilRow {
    pub time_ns: f64,
    pub node: u32,
    pub port: u16,
    pub utilization: f64,
}

/// summary.json's keys in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrderedJson(pub Vec<(String, serde_json::Value)>);

impl OrderedJson {
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn num(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(serde_json::Value::as_f64)
    }
}

impl<'de> Deserialize<'de> for OrderedJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedJson;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<OrderedJson, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = m.next_entry::<String, serde_json::Value>()? {
                    v.push((k, x));
                }
                Ok(OrderedJson(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Everything the report reads from one run directory.
#[derive(Clone, Debug)]
pub struct RunData {
    pub dir: PathBuf,
    /// The name shown for this run (the directory name, or `--label`).
    pub label: String,
    pub summary: OrderedJson,
    pub fct: Vec<FctRow>,
    pub pfc: Option<Vec<PfcRow>>,
    pub queue_hist: Option<Vec<PortBin>>,
    pub latency_hist: Option<Vec<Bin>>,
    pub flow_rates: Option<Vec<RateRow>>,
    pub link_util: Option<Vec<UtilRow>>,
    /// collectives.csv and steps.csv, when the run had collectives or graphs.
    pub collectives: Option<Vec<CollRow>>,
    pub steps: Option<Vec<StepRow>>,
    pub scenario: Option<String>,
    /// Other files in the directory (issue-specific diagnostics), by name.
    pub extra_files: Vec<String>,
    /// pfc_diagnostics.json, when the run wrote one.
    pub pfc_diagnostics: Option<String>,
}

impl RunData {
    /// The run's end in ns (summary `sim_seconds`).
    pub fn end_ns(&self) -> f64 {
        self.summary.num("sim_seconds").unwrap_or(0.0) * 1e9
    }
}

/// The files a run directory may hold that the report reads or makes.
const KNOWN: [&str; 20] = [
    "collectives.csv",
    "steps.csv",
    "timing.json",
    "fct.csv",
    "pfc.csv",
    "queue.csv",
    "fct.parquet",
    "pfc.parquet",
    "queue.parquet",
    "flow_rates.parquet",
    "link_util.parquet",
    "summary.json",
    "scenario.toml",
    "queue_hist.csv",
    "latency_hist.csv",
    "flow_rates.csv",
    "link_util.csv",
    "report.html",
    "figures",
    "pfc_diagnostics.json",
];

/// Reads a run directory.
pub fn load_run(dir: &Path, label: String) -> Result<RunData, Error> {
    if !dir.is_dir() {
        return Err(InputError::in_file(
            dir,
            "",
            "no such run directory (give a directory written by `rocesim run --out DIR`)",
        )
        .into());
    }
    let summary_path = dir.join("summary.json");
    let text = read_required(&summary_path)?;
    let summary: OrderedJson = serde_json::from_str(&text).map_err(|e| {
        InputError::in_file(
            &summary_path,
            format!("line {}", e.line()),
            format!("not valid JSON: {e}"),
        )
    })?;
    if summary.num("sim_seconds").is_none() {
        return Err(InputError::in_file(
            &summary_path,
            "sim_seconds",
            "missing or not a number (is this a rocesim summary.json?)",
        )
        .into());
    }
    // The streamed tables are CSV or Parquet (`output.format`).
    let table = |stem: &str| crate::output::table::read_csv_text(dir, stem);
    let fct = match table("fct")? {
        Some((path, t)) => parse_fct(&path, &t)?,
        None => parse_fct(&dir.join("fct.csv"), &read_required(&dir.join("fct.csv"))?)?,
    };
    let opt = |name: &str| read_optional(&dir.join(name));
    let pfc = table("pfc")?
        .map(|(path, t)| parse_pfc(&path, &t))
        .transpose()?;
    let queue_hist = opt("queue_hist.csv")?
        .map(|t| parse_queue_hist(&dir.join("queue_hist.csv"), &t))
        .transpose()?;
    let latency_hist = opt("latency_hist.csv")?
        .map(|t| parse_latency_hist(&dir.join("latency_hist.csv"), &t))
        .transpose()?;
    let flow_rates = table("flow_rates")?
        .map(|(path, t)| parse_flow_rates(&path, &t))
        .transpose()?;
    let link_util = table("link_util")?
        .map(|(path, t)| parse_link_util(&path, &t))
        .transpose()?;
    let collectives = opt("collectives.csv")?
        .map(|t| parse_collectives(&dir.join("collectives.csv"), &t))
        .transpose()?;
    let steps = opt("steps.csv")?
        .map(|t| parse_steps(&dir.join("steps.csv"), &t))
        .transpose()?;
    let scenario = opt("scenario.toml")?;
    let pfc_diagnostics = opt("pfc_diagnostics.json")?;
    let mut extra_files: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !KNOWN.contains(&n.as_str()))
        .collect();
    extra_files.sort();
    Ok(RunData {
        dir: dir.to_path_buf(),
        label,
        summary,
        fct,
        pfc,
        queue_hist,
        latency_hist,
        flow_rates,
        link_util,
        collectives,
        steps,
        scenario,
        extra_files,
        pfc_diagnostics,
    })
}

fn read_required(path: &Path) -> Result<String, Error> {
    match read_optional(path)? {
        Some(t) => Ok(t),
        None => Err(InputError::in_file(
            path,
            "",
            "missing: not a rocesim run directory (`rocesim run --out DIR` writes fct.csv and summary.json)",
        )
        .into()),
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InputError::in_file(path, "", format!("cannot read: {e}")).into()),
    }
}

/// A CSV file with a header, read by column name.
struct Csv<'a> {
    path: &'a Path,
    cols: Vec<&'a str>,
    lines: std::iter::Skip<std::iter::Enumerate<std::str::Lines<'a>>>,
}

/// One data line of a [`Csv`].
struct Line<'a> {
    path: &'a Path,
    no: usize,
    fields: Vec<&'a str>,
}

impl<'a> Csv<'a> {
    /// Checks that the header has `needed` columns.
    fn new(path: &'a Path, text: &'a str, needed: &[&str]) -> Result<Csv<'a>, InputError> {
        let header = text.lines().next().unwrap_or("");
        let cols: Vec<&str> = header.split(',').map(str::trim).collect();
        for n in needed {
            if !cols.contains(n) {
                return Err(InputError::in_file(
                    path,
                    "line 1",
                    format!(
                        "header has no column `{n}` (expected the columns {})",
                        needed.join(",")
                    ),
                ));
            }
        }
        Ok(Csv {
            path,
            cols,
            lines: text.lines().enumerate().skip(1),
        })
    }

    fn idx(&self, name: &str) -> usize {
        self.cols
            .iter()
            .position(|c| *c == name)
            .expect("checked in new")
    }
}

impl<'a> Iterator for Csv<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        for (i, l) in self.lines.by_ref() {
            if l.trim().is_empty() {
                continue;
            }
            return Some(Line {
                path: self.path,
                no: i + 1,
                fields: l.split(',').map(str::trim).collect(),
            });
        }
        None
    }
}

impl Line<'_> {
    fn err(&self, msg: impl Into<String>) -> InputError {
        InputError::in_file(self.path, format!("line {}", self.no), msg)
    }

    fn field(&self, i: usize, name: &str) -> Result<&str, InputError> {
        self.fields.get(i).copied().ok_or_else(|| {
            self.err(format!(
                "has {} fields; column `{name}` is missing",
                self.fields.len()
            ))
        })
    }

    fn parse<T: std::str::FromStr>(
        &self,
        i: usize,
        name: &str,
        what: &str,
    ) -> Result<T, InputError> {
        let s = self.field(i, name)?;
        s.parse()
            .map_err(|_| self.err(format!("column `{name}`: \"{s}\" is not {what}")))
    }

    fn int<T: std::str::FromStr>(&self, i: usize, name: &str) -> Result<T, InputError> {
        self.parse(i, name, "a non-negative integer")
    }

    fn num(&self, i: usize, name: &str) -> Result<f64, InputError> {
        let v: f64 = self.parse(i, name, "a number")?;
        if !v.is_finite() || v < 0.0 {
            return Err(self.err(format!("column `{name}`: {v} is not a finite number >= 0")));
        }
        Ok(v)
    }
}

pub fn parse_fct(path: &Path, text: &str) -> Result<Vec<FctRow>, InputError> {
    let need = [
        "flow_id",
        "size_bytes",
        "start_ns",
        "fct_ns",
        "ideal_fct_ns",
        "slowdown",
    ];
    let csv = Csv::new(path, text, &need)?;
    let [id, size, start, fct, ideal, sd] = need.map(|n| csv.idx(n));
    let col = |name: &str| csv.cols.iter().position(|c| *c == name);
    let (dport, src, dst) = (col("dport"), col("src"), col("dst"));
    let mut rows = Vec::new();
    for l in csv {
        let row = FctRow {
            flow_id: l.int(id, "flow_id")?,
            size: l.int(size, "size_bytes")?,
            start_ns: l.num(start, "start_ns")?,
            fct_ns: l.num(fct, "fct_ns")?,
            ideal_ns: l.num(ideal, "ideal_fct_ns")?,
            slowdown: l.num(sd, "slowdown")?,
            dport: dport.map(|i| l.int(i, "dport")).transpose()?,
            src: src.map(|i| l.int(i, "src")).transpose()?,
            dst: dst.map(|i| l.int(i, "dst")).transpose()?,
        };
        rows.push(row);
    }
    Ok(rows)
}

pub fn parse_pfc(path: &Path, text: &str) -> Result<Vec<PfcRow>, InputError> {
    let need = ["time_ns", "node", "port", "priority", "event"];
    let csv = Csv::new(path, text, &need)?;
    let [t, node, port, prio, ev] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        let pause = match l.field(ev, "event")? {
            "pause" => true,
            "resume" => false,
            other => {
                return Err(l.err(format!(
                    "column `event`: \"{other}\" is not valid (valid: pause, resume)"
                )));
            }
        };
        rows.push(PfcRow {
            time_ns: l.num(t, "time_ns")?,
            node: l.int(node, "node")?,
            port: l.int(port, "port")?,
            priority: l.int(prio, "priority")?,
            pause,
        });
    }
    Ok(rows)
}

fn bin(
    l: &Line,
    lo: (usize, &str),
    hi: (usize, &str),
    w: (usize, &str),
) -> Result<Bin, InputError> {
    let b = Bin {
        lo: l.num(lo.0, lo.1)?,
        hi: l.num(hi.0, hi.1)?,
        weight: l.num(w.0, w.1)?,
    };
    if b.hi <= b.lo {
        return Err(l.err(format!("{} must be greater than {}", hi.1, lo.1)));
    }
    Ok(b)
}

pub fn parse_queue_hist(path: &Path, text: &str) -> Result<Vec<PortBin>, InputError> {
    let need = ["node", "port", "lo_bytes", "hi_bytes", "time_ns"];
    let csv = Csv::new(path, text, &need)?;
    let [node, port, lo, hi, t] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        rows.push(PortBin {
            node: l.int(node, "node")?,
            port: l.int(port, "port")?,
            bin: bin(&l, (lo, "lo_bytes"), (hi, "hi_bytes"), (t, "time_ns"))?,
        });
    }
    Ok(rows)
}

pub fn parse_latency_hist(path: &Path, text: &str) -> Result<Vec<Bin>, InputError> {
    let need = ["lo_ns", "hi_ns", "packets"];
    let csv = Csv::new(path, text, &need)?;
    let [lo, hi, n] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        rows.push(bin(&l, (lo, "lo_ns"), (hi, "hi_ns"), (n, "packets"))?);
    }
    Ok(rows)
}

pub fn parse_flow_rates(path: &Path, text: &str) -> Result<Vec<RateRow>, InputError> {
    let need = [
        "time_ns",
        "flow_id",
        "interval_ns",
        "rate_gbps",
        "window_bytes",
        "sent_gbps",
        "delivered_gbps",
        "delivered_bytes",
    ];
    let csv = Csv::new(path, text, &need)?;
    let [t, id, iv, rate, win, sent, del, delb] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        let window_bytes = match l.field(win, "window_bytes")? {
            "" => None,
            _ => Some(l.num(win, "window_bytes")?),
        };
        rows.push(RateRow {
            time_ns: l.num(t, "time_ns")?,
            flow_id: l.int(id, "flow_id")?,
            interval_ns: l.num(iv, "interval_ns")?,
            rate_gbps: l.num(rate, "rate_gbps")?,
            window_bytes,
            sent_gbps: l.num(sent, "sent_gbps")?,
            delivered_gbps: l.num(del, "delivered_gbps")?,
            delivered_bytes: l.int(delb, "delivered_bytes")?,
        });
    }
    Ok(rows)
}

pub fn parse_link_util(path: &Path, text: &str) -> Result<Vec<UtilRow>, InputError> {
    let need = ["time_ns", "node", "port", "utilization"];
    let csv = Csv::new(path, text, &need)?;
    let [t, node, port, u] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        rows.push(UtilRow {
            time_ns: l.num(t, "time_ns")?,
            node: l.int(node, "node")?,
            port: l.int(port, "port")?,
            utilization: l.num(u, "utilization")?,
        });
    }
    Ok(rows)
}

/// A row of collectives.csv (the columns the report draws).
#[derive(Clone, Debug, PartialEq)]
pub struct CollRow {
    pub job: String,
    pub iteration: u32,
    pub op: String,
    pub size: u64,
    pub duration_ns: f64,
    pub iteration_ns: f64,
    pub busbw_gbyte_s: f64,
}

/// A row of steps.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRow {
    pub job: String,
    pub duration_ns: f64,
}

pub fn parse_collectives(path: &Path, text: &str) -> Result<Vec<CollRow>, InputError> {
    let need = [
        "job",
        "iteration",
        "op",
        "size_bytes",
        "duration_ns",
        "iteration_ns",
        "busbw_GBps",
    ];
    let csv = Csv::new(path, text, &need)?;
    let [job, it, op, size, d, itd, bw] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        rows.push(CollRow {
            job: l.field(job, "job")?.to_string(),
            iteration: l.int(it, "iteration")?,
            op: l.field(op, "op")?.to_string(),
            size: l.int(size, "size_bytes")?,
            duration_ns: l.num(d, "duration_ns")?,
            iteration_ns: l.num(itd, "iteration_ns")?,
            busbw_gbyte_s: l.num(bw, "busbw_GBps")?,
        });
    }
    Ok(rows)
}

pub fn parse_steps(path: &Path, text: &str) -> Result<Vec<StepRow>, InputError> {
    let need = ["job", "duration_ns"];
    let csv = Csv::new(path, text, &need)?;
    let [job, d] = need.map(|n| csv.idx(n));
    let mut rows = Vec::new();
    for l in csv {
        rows.push(StepRow {
            job: l.field(job, "job")?.to_string(),
            duration_ns: l.num(d, "duration_ns")?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fct_rows_are_read_by_column_name_and_appended_columns_are_ignored() {
        let t = "flow_id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,cnps,timeouts,dport,extra\n\
                 3,1,0,1000,0,2000.5,1000,2.0005,0,0,0,200,x\n";
        let rows = parse_fct(Path::new("fct.csv"), t).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].flow_id, 3);
        assert_eq!(rows[0].fct_ns, 2000.5);
        assert_eq!(rows[0].dport, Some(200));
    }

    #[test]
    fn malformed_rows_name_the_file_the_line_and_the_column() {
        let t = "flow_id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown\n\
                 0,1,0,1000,0,10,5,2\n\
                 1,1,0,abc,0,10,5,2\n";
        let e = parse_fct(Path::new("run/fct.csv"), t).unwrap_err();
        assert_eq!(
            e.to_string(),
            "run/fct.csv: line 3: column `size_bytes`: \"abc\" is not a non-negative integer"
        );
        let e = parse_pfc(Path::new("pfc.csv"), "time_ns,node\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pfc.csv: line 1: header has no column `port`")
        );
        let e = parse_pfc(
            Path::new("pfc.csv"),
            "time_ns,node,port,priority,event\n5,1,0,3,stop\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("valid: pause, resume"), "{e}");
    }

    #[test]
    fn summary_keys_keep_their_file_order() {
        let s: OrderedJson = serde_json::from_str(r#"{"b": 1, "a": 2.5}"#).unwrap();
        assert_eq!(s.0[0].0, "b");
        assert_eq!(s.num("a"), Some(2.5));
    }
}
