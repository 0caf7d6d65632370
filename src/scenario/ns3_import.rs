//! `rocesim import-ns3`: turns an HPCC ns-3 simulator config file (third.cc's
//! `KEY value` lines; every key of mix/config_doc.txt) into an equivalent
//! scenario with `profile = "ns3-hpcc"` that references the same topology and
//! flow files. docs/ns3-compat.md has the key-by-key mapping.
//!
//! Keys we do not model give a warning naming the key; unknown keys (typos) a
//! warning naming the line; a bad value is an [`InputError`] naming the file,
//! line, key and what is valid.

use crate::error::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The result of an import: the scenario text and the warnings to print.
#[derive(Debug)]
pub struct Imported {
    pub toml: String,
    pub warnings: Vec<String>,
}

/// Every key third.cc reads (mix/config_doc.txt).
pub const KEYS: &[&str] = &[
    "ENABLE_QCN",
    "USE_DYNAMIC_PFC_THRESHOLD",
    "PACKET_PAYLOAD_SIZE",
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "TRACE_FILE",
    "TRACE_OUTPUT_FILE",
    "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE",
    "SIMULATOR_STOP_TIME",
    "CC_MODE",
    "ALPHA_RESUME_INTERVAL",
    "RATE_DECREASE_INTERVAL",
    "CLAMP_TARGET_RATE",
    "RP_TIMER",
    "EWMA_GAIN",
    "FAST_RECOVERY_TIMES",
    "RATE_AI",
    "RATE_HAI",
    "MIN_RATE",
    "DCTCP_RATE_AI",
    "ERROR_RATE_PER_LINK",
    "L2_CHUNK_SIZE",
    "L2_ACK_INTERVAL",
    "L2_BACK_TO_ZERO",
    "HAS_WIN",
    "GLOBAL_T",
    "VAR_WIN",
    "FAST_REACT",
    "U_TARGET",
    "MI_THRESH",
    "INT_MULTI",
    "MULTI_RATE",
    "SAMPLE_FEEDBACK",
    "PINT_LOG_BASE",
    "PINT_PROB",
    "RATE_BOUND",
    "ACK_HIGH_PRIO",
    "LINK_DOWN",
    "ENABLE_TRACE",
    "KMAX_MAP",
    "KMIN_MAP",
    "PMAX_MAP",
    "BUFFER_SIZE",
    "QLEN_MON_FILE",
    "QLEN_MON_START",
    "QLEN_MON_END",
];

/// CC_MODE numbers and our algorithm names.
pub const CC_MODES: &[(u32, &str)] = &[
    (1, "dcqcn-ns3"),
    (3, "hpcc-ns3"),
    (7, "timely-ns3"),
    (8, "dctcp-ns3"),
    (10, "hpcc-pint"),
];

/// A KMIN/KMAX/PMAX map: its line and value by port rate (bit/s).
type RateMap = (usize, BTreeMap<u64, String>);

/// One `KEY values` line.
struct Entry {
    line: usize,
    values: Vec<String>,
}

struct Parser<'a> {
    file: &'a str,
    keys: BTreeMap<&'static str, Entry>,
}

impl Parser<'_> {
    fn err(&self, e: &Entry, key: &str, msg: impl Into<String>) -> InputError {
        InputError::new(self.file, format!("line {}: {key}", e.line), msg.into())
    }

    fn get(&self, key: &str) -> Option<&Entry> {
        self.keys.get(key)
    }

    /// The single value of `key`, if given.
    fn one(&self, key: &str) -> Result<Option<(&Entry, &str)>, InputError> {
        let Some(e) = self.get(key) else {
            return Ok(None);
        };
        match e.values.as_slice() {
            [v] => Ok(Some((e, v.as_str()))),
            _ => Err(self.err(e, key, format!("takes one value, got {}", e.values.len()))),
        }
    }

    fn num<T: std::str::FromStr>(&self, key: &str, valid: &str) -> Result<Option<T>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => v
                .parse()
                .map(Some)
                .map_err(|_| self.err(e, key, format!("\"{v}\" is not valid; valid: {valid}"))),
        }
    }

    fn float(
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

    fn flag(&self, key: &str) -> Result<Option<bool>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((_, "0")) => Ok(Some(false)),
            Some((_, "1")) => Ok(Some(true)),
            Some((e, v)) => Err(self.err(e, key, format!("\"{v}\" is not valid; valid: 0 or 1"))),
        }
    }

    fn rate(&self, key: &str) -> Result<Option<u64>, InputError> {
        match self.one(key)? {
            None => Ok(None),
            Some((e, v)) => parse_data_rate(v)
                .map(Some)
                .map_err(|m| self.err(e, key, m)),
        }
    }

    /// The file `key` names, found relative to `config_dir` or its parents as
    /// ns-3 would from its working directory.
    fn locate(&self, config_dir: &Path, key: &str) -> Result<Option<PathBuf>, InputError> {
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
    fn micros(&self, key: &str) -> Result<Option<String>, InputError> {
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
fn parse_config<'a>(
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

/// The files an ns-3 run of `config` read and wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns3RunFiles {
    /// FCT_OUTPUT_FILE: the flows' completion times (third.cc `qp_finish`).
    pub fct: PathBuf,
    /// TOPOLOGY_FILE, when given and found.
    pub topology: Option<PathBuf>,
}

/// Where the ns-3 run configured by `config` (its text `text`) left its fct.txt,
/// and which topology it used, both found as `import-ns3` finds files.
pub fn run_files(config: &Path, text: &str) -> Result<Ns3RunFiles, InputError> {
    let file = config.display().to_string();
    let p = parse_config(&file, text, &mut Vec::new())?;
    let dir = config
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(fct) = p.locate(dir, "FCT_OUTPUT_FILE")? else {
        return Err(InputError::new(
            &file,
            "FCT_OUTPUT_FILE",
            "missing; give the ns-3 config that wrote the fct.txt, or the fct.txt itself",
        ));
    };
    Ok(Ns3RunFiles {
        fct,
        topology: p.locate(dir, "TOPOLOGY_FILE")?,
    })
}

/// Parses an ns-3 `DataRate` string ("100Gbps", "50Mb/s", "1.5GB/s", "10Kib/s",
/// or a bare number of bit/s) into bit/s.
pub fn parse_data_rate(s: &str) -> Result<u64, String> {
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

/// Where a path named in the config lives: relative to the config's directory or
/// one of its ancestors (ns-3 resolves them against its working directory, usually
/// the parent of mix/), or as given.
fn find_file(config_dir: &Path, name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.exists().then(|| p.to_path_buf());
    }
    config_dir
        .ancestors()
        .map(|d| d.join(p))
        .find(|c| c.exists())
}

/// `p` as an absolute path (canonical when it exists).
pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

/// `target` relative to directory `from` (both made absolute first).
pub fn relative_to(target: &Path, from: &Path) -> PathBuf {
    let (t, f) = (absolute(target), absolute(from));
    let tc: Vec<Component> = t.components().collect();
    let fc: Vec<Component> = f.components().collect();
    let common = tc.iter().zip(&fc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..fc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// The earliest start time (seconds) in an ns-3 flow file, if it has flows.
fn earliest_start(path: &Path) -> Result<Option<f64>, InputError> {
    // The whole file is checked here, as a run reads it: a short line is
    // reported as itself (not as a start time, nor later as a stop time).
    let flows = crate::workload::ns3::read_flows(path)?;
    let min = flows.iter().map(|f| f.start.ps()).min();
    Ok(min.map(|ps| ps as f64 / crate::units::PS_PER_S as f64))
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn path_str(p: &Path) -> String {
    toml_str(&p.to_string_lossy().replace('\\', "/"))
}

/// Imports the ns-3 config `text` (read from `config`) into a scenario to be
/// written at `out` (paths in it are relative to `out`'s directory).
pub fn import(config: &Path, text: &str, out: Option<&Path>) -> Result<Imported, InputError> {
    let file = config.display().to_string();
    let mut warnings = Vec::new();
    let p = parse_config(&file, text, &mut warnings)?;
    let unmodelled = |p: &Parser, key: &str, why: &str, warnings: &mut Vec<String>| {
        if let Some(e) = p.get(key) {
            warnings.push(format!(
                "{file}: line {}: {key} {} is not modelled: {why}",
                e.line,
                e.values.join(" ")
            ));
        }
    };
    // Paths relative to the scenario's directory; absolute when it is printed
    // (its reader may save it anywhere).
    let out_dir = out.map(|o| {
        o.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    });
    let place = |target: &Path| match out_dir {
        Some(d) => relative_to(target, d),
        None => absolute(target),
    };
    let config_dir = config
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut s = String::new();
    let stem = config
        .file_stem()
        .map_or("ns3".into(), |s| s.to_string_lossy().into_owned());
    writeln!(
        s,
        "# Imported from {} by `rocesim import-ns3` (docs/ns3-compat.md).",
        file
    )
    .ok();
    writeln!(s, "name = {}", toml_str(&format!("ns3-{stem}"))).ok();
    writeln!(s, "profile = \"ns3-hpcc\"").ok();

    // Files.
    let locate = |key: &str| p.locate(config_dir, key);
    let topo = locate("TOPOLOGY_FILE")?;
    let flows = locate("FLOW_FILE")?;
    let Some(topo) = topo else {
        return Err(InputError::new(
            &file,
            "TOPOLOGY_FILE",
            "missing; the scenario needs a topology file",
        ));
    };
    // Our simulated time starts at the whole second before the first flow, as
    // ns-3 runs usually start flows at 2 s.
    let offset_s = match &flows {
        Some(f) => earliest_start(f)?.map_or(0, |t| t.max(0.0).floor() as u64),
        None => 0,
    };
    let offset_ns = offset_s * 1_000_000_000;
    let max_s = crate::limits::max_time_s();
    if let Some(stop) = p.float("SIMULATOR_STOP_TIME", "a time in seconds, e.g. 4.00", |x| {
        (0.0..=max_s).contains(&x)
    })? {
        let ns = (stop * 1e9).round() as u64;
        if ns <= offset_ns {
            let e = p.get("SIMULATOR_STOP_TIME").expect("just read");
            return Err(p.err(
                e,
                "SIMULATOR_STOP_TIME",
                format!("{stop} s is not after the first flow's start ({offset_s} s)"),
            ));
        }
        writeln!(s, "stop = \"{}ns\"", ns - offset_ns).ok();
    }

    writeln!(
        s,
        "\n[topology]\nkind = \"ns3\"\nfile = {}",
        path_str(&place(&topo))
    )
    .ok();

    // Switch: buffer, ECN maps.
    writeln!(s, "\n[switch]").ok();
    let max_mib = 1e18 / (1024.0 * 1024.0);
    if let Some(mb) = p.float("BUFFER_SIZE", "a size in MiB > 0, e.g. 32", |x| {
        x > 0.0 && x <= max_mib
    })? {
        writeln!(s, "buffer = {}", (mb * 1024.0 * 1024.0).round() as u64).ok();
    }
    if p.flag("USE_DYNAMIC_PFC_THRESHOLD")? == Some(false) {
        let e = p.get("USE_DYNAMIC_PFC_THRESHOLD").expect("read");
        warnings.push(format!(
            "{file}: line {}: USE_DYNAMIC_PFC_THRESHOLD 0 has no effect in ns-3 (its threshold is always dynamic), nor here",
            e.line
        ));
    }
    writeln!(s, "\n[switch.ecn]").ok();
    if let Some(on) = p.flag("ENABLE_QCN")? {
        writeln!(s, "enabled = {on}").ok();
    }
    let map = |key: &str| -> Result<Option<RateMap>, InputError> {
        let Some(e) = p.get(key) else { return Ok(None) };
        let valid = "N then N pairs of (port rate in bit/s, value), e.g. 3 25000000000 400 50000000000 800 100000000000 1600";
        let n: usize = e
            .values
            .first()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| p.err(e, key, format!("no count; valid: {valid}")))?;
        if n > (e.values.len() - 1) / 2 {
            return Err(p.err(
                e,
                key,
                format!(
                    "{n} pairs announced, {} values given; valid: {valid}",
                    e.values.len() - 1
                ),
            ));
        }
        let mut m = BTreeMap::new();
        for k in 0..n {
            let (r, v) = (&e.values[1 + 2 * k], &e.values[2 + 2 * k]);
            let rate: u64 = r.parse().map_err(|_| {
                p.err(
                    e,
                    key,
                    format!("rate \"{r}\" is not an integer bit/s; valid: {valid}"),
                )
            })?;
            if v.parse::<f64>().map_or(true, |x| !x.is_finite() || x < 0.0) {
                return Err(p.err(
                    e,
                    key,
                    format!("value \"{v}\" is not a number >= 0; valid: {valid}"),
                ));
            }
            m.insert(rate, v.clone());
        }
        Ok(Some((e.line, m)))
    };
    let (kmin, kmax, pmax) = (map("KMIN_MAP")?, map("KMAX_MAP")?, map("PMAX_MAP")?);
    match (&kmin, &kmax, &pmax) {
        (None, None, None) => {}
        (Some((_, kmin)), Some((_, kmax)), Some((_, pmax))) => {
            for (&rate, lo) in kmin {
                let (Some(hi), Some(pm)) = (kmax.get(&rate), pmax.get(&rate)) else {
                    let e = p.get("KMIN_MAP").expect("read");
                    return Err(p.err(
                        e,
                        "KMIN_MAP",
                        format!("rate {rate} has no KMAX_MAP or PMAX_MAP entry; the three maps must list the same rates"),
                    ));
                };
                // ns-3 multiplies kmin and kmax by 1000 (KB).
                let kb = |v: &str| (v.parse::<f64>().expect("checked") * 1000.0).round() as u64;
                writeln!(
                    s,
                    "[[switch.ecn.per_rate]]\nrate = \"{rate}bps\"\nkmin = {}\nkmax = {}\npmax = {pm}",
                    kb(lo),
                    kb(hi)
                )
                .ok();
            }
            if kmax.len() != kmin.len() || pmax.len() != kmin.len() {
                let e = p.get("KMAX_MAP").expect("read");
                return Err(p.err(
                    e,
                    "KMAX_MAP",
                    "KMIN_MAP, KMAX_MAP and PMAX_MAP must list the same rates",
                ));
            }
        }
        _ => {
            let (key, e) = [
                ("KMIN_MAP", &kmin),
                ("KMAX_MAP", &kmax),
                ("PMAX_MAP", &pmax),
            ]
            .into_iter()
            .find(|(_, m)| m.is_some())
            .expect("one is given");
            let line = e.as_ref().expect("given").0;
            return Err(InputError::new(
                &file,
                format!("line {line}: {key}"),
                "KMIN_MAP, KMAX_MAP and PMAX_MAP go together; give all three",
            ));
        }
    }

    // NIC.
    writeln!(s, "\n[nic]\nack_policy = \"ns3\"").ok();
    let mtu_valid = "payload bytes per packet, 64..9000, e.g. 1000";
    if let Some(mtu) = p.num::<u32>("PACKET_PAYLOAD_SIZE", mtu_valid)? {
        if !(64..=9000).contains(&mtu) {
            let e = p.get("PACKET_PAYLOAD_SIZE").expect("read");
            return Err(p.err(
                e,
                "PACKET_PAYLOAD_SIZE",
                format!("{mtu} is not valid; valid: {mtu_valid}"),
            ));
        }
        writeln!(s, "mtu = {mtu}").ok();
    }
    if let Some(v) = p.num::<u64>("L2_CHUNK_SIZE", "bytes (0 = none), e.g. 4000")? {
        writeln!(s, "ack_chunk = {v}").ok();
    }
    if let Some(v) = p.num::<u64>("L2_ACK_INTERVAL", "bytes >= 1, e.g. 1")? {
        if v == 0 {
            let e = p.get("L2_ACK_INTERVAL").expect("read");
            return Err(p.err(
                e,
                "L2_ACK_INTERVAL",
                "0 makes ns-3 flows never finish; valid: bytes >= 1",
            ));
        }
        writeln!(s, "ack_interval_bytes = {v}").ok();
    }
    if let Some(v) = p.flag("L2_BACK_TO_ZERO")? {
        writeln!(s, "back_to_zero = {v}").ok();
    }
    if let Some(v) = p.flag("ACK_HIGH_PRIO")? {
        // hpcc-ns3-model.md §3-4: ACKs stay in the data class at switches either
        // way; the flag only chooses which PAUSE stops the hosts' ACK queue.
        writeln!(
            s,
            "ack_pause_class = \"{}\"",
            if v { "control" } else { "ack" }
        )
        .ok();
    }

    if let Some(m) = p.num::<u32>("INT_MULTI", "an integer >= 1, e.g. 1")? {
        writeln!(s, "\n[model]\nint_multi = {m}").ok();
    }

    // Congestion control.
    let algo = match p.one("CC_MODE")? {
        None => "hpcc-ns3",
        Some((e, v)) => {
            let valid = CC_MODES
                .iter()
                .map(|(n, a)| format!("{n} ({a})"))
                .collect::<Vec<_>>()
                .join(", ");
            let n: Option<u32> = v.parse().ok();
            match CC_MODES.iter().find(|(m, _)| Some(*m) == n) {
                Some((_, a)) => a,
                None => {
                    return Err(p.err(
                        e,
                        "CC_MODE",
                        format!("\"{v}\" is not valid; valid: {valid}"),
                    ));
                }
            }
        }
    };
    writeln!(s, "\n[cc]\nalgorithm = \"{algo}\"\n\n[cc.ns3]").ok();
    for (key, field) in [
        ("RATE_AI", "rate_ai"),
        ("RATE_HAI", "rate_hai"),
        ("MIN_RATE", "min_rate"),
        ("DCTCP_RATE_AI", "dctcp_rate_ai"),
    ] {
        if let Some(bps) = p.rate(key)? {
            writeln!(s, "{field} = \"{bps}bps\"").ok();
        }
    }
    if let Some(g) = p.float("EWMA_GAIN", "a number in (0, 1], e.g. 0.00390625", |x| {
        x > 0.0 && x <= 1.0
    })? {
        writeln!(s, "ewma_gain = {g:?}").ok();
    }
    for (key, field) in [
        ("ALPHA_RESUME_INTERVAL", "alpha_resume_interval"),
        ("RATE_DECREASE_INTERVAL", "rate_decrease_interval"),
        ("RP_TIMER", "rp_timer"),
    ] {
        if let Some(t) = p.micros(key)? {
            writeln!(s, "{field} = \"{t}\"").ok();
        }
    }
    if let Some(f) = p.num::<u32>("FAST_RECOVERY_TIMES", "an integer >= 0, e.g. 1")? {
        writeln!(s, "fast_recovery_times = {f}").ok();
    }
    if let Some(m) = p.num::<u32>("MI_THRESH", "an integer >= 0, e.g. 0")? {
        writeln!(s, "mi_thresh = {m}").ok();
    }
    if let Some(u) = p.float("U_TARGET", "a number in (0, 1], e.g. 0.95", |x| {
        x > 0.0 && x <= 1.0
    })? {
        writeln!(s, "u_target = {u:?}").ok();
    }
    if algo == "hpcc-pint" {
        // Read only by HPCC-PINT, as third.cc reads them only with CC_MODE 10.
        if let Some(b) = p.float("PINT_LOG_BASE", "a number > 1, e.g. 1.01", |x| x > 1.0)? {
            writeln!(s, "pint_log_base = {b:?}").ok();
        }
        if let Some(x) = p.float("PINT_PROB", "a number in (0, 1], e.g. 1.0", |x| {
            x > 0.0 && x <= 1.0
        })? {
            writeln!(s, "pint_prob = {x:?}").ok();
        }
    }
    for (key, field) in [
        ("CLAMP_TARGET_RATE", "clamp_target_rate"),
        ("HAS_WIN", "has_win"),
        ("GLOBAL_T", "global_t"),
        ("VAR_WIN", "var_win"),
        ("FAST_REACT", "fast_react"),
        ("MULTI_RATE", "multi_rate"),
        ("SAMPLE_FEEDBACK", "sample_feedback"),
        ("RATE_BOUND", "rate_bound"),
    ] {
        if let Some(v) = p.flag(key)? {
            writeln!(s, "{field} = {v}").ok();
        }
    }

    // Workload.
    writeln!(s, "\n[workload]").ok();
    if let Some(f) = &flows {
        writeln!(s, "ns3_flow_files = [{}]", path_str(&place(f))).ok();
        writeln!(s, "ns3_time_offset = \"{offset_s}s\"").ok();
    }

    // Output.
    writeln!(s, "\n[output]").ok();
    let outputs = ["FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE", "QLEN_MON_FILE"];
    if outputs.iter().any(|k| p.get(k).is_some()) {
        writeln!(s, "fct_format = \"ns3\"").ok();
    }
    for key in outputs {
        if let Some(e) = p.get(key) {
            let name = match key {
                "FCT_OUTPUT_FILE" => "fct.txt",
                "PFC_OUTPUT_FILE" => "pfc.txt",
                _ => "qlen.txt",
            };
            warnings.push(format!(
                "{file}: line {}: {key} {}: not used as a path; rocesim writes {name} into the run directory (rocesim run --out DIR)",
                e.line,
                e.values.join(" ")
            ));
        }
    }
    let mon = |key: &str| -> Result<Option<u64>, InputError> {
        let valid = "an absolute time in ns, e.g. 2000000000";
        match p.num::<u64>(key, valid)? {
            Some(t) if t > crate::limits::MAX_TIME_PS / 1000 => {
                let e = p.get(key).expect("read");
                Err(p.err(
                    e,
                    key,
                    format!(
                        "{t} ns is after the time limit of {:.0} s; valid: {valid}",
                        crate::limits::max_time_s()
                    ),
                ))
            }
            t => Ok(t),
        }
    };
    let (raw_start, raw_end) = (mon("QLEN_MON_START")?, mon("QLEN_MON_END")?);
    let (qs, qe) = (
        raw_start.map(|t| t.saturating_sub(offset_ns)),
        raw_end.map(|t| t.saturating_sub(offset_ns)),
    );
    if let (Some(start), Some(end)) = (raw_start, raw_end)
        && end < start
    {
        let (es, ee) = (p.get("QLEN_MON_START"), p.get("QLEN_MON_END"));
        let (es, ee) = (es.expect("read"), ee.expect("read"));
        return Err(p.err(
            ee,
            "QLEN_MON_END",
            format!(
                "{} is before QLEN_MON_START {} (line {}); valid: an absolute time in ns not before it",
                ee.values.join(" "),
                es.values.join(" "),
                es.line
            ),
        ));
    }
    if p.get("QLEN_MON_FILE").is_some() {
        if let Some(t) = qs {
            writeln!(s, "qlen_mon_start = \"{t}ns\"").ok();
        }
        if let Some(t) = qe {
            writeln!(s, "qlen_mon_end = \"{t}ns\"").ok();
        }
    }

    // Keys without an equivalent.
    // Warnings only for what changes a result or an output: a setting that is
    // off (ENABLE_TRACE 0, LINK_DOWN 0 0 0, ERROR_RATE_PER_LINK 0) is the same
    // here; TRACE_FILE and TRACE_OUTPUT_FILE matter only with ENABLE_TRACE 1;
    // PINT_* only with CC_MODE 10, where they are read.
    let is_zero = |v: &str| v.parse::<f64>().is_ok_and(|x| x == 0.0);
    let on = |key: &str| {
        p.get(key)
            .filter(|e| !e.values.is_empty() && !e.values.iter().all(|v| is_zero(v)))
            .is_some()
    };
    if on("ENABLE_TRACE") {
        unmodelled(
            &p,
            "ENABLE_TRACE",
            "no packet-level trace (TRACE_OUTPUT_FILE) is written",
            &mut warnings,
        );
    }
    if on("LINK_DOWN") {
        unmodelled(
            &p,
            "LINK_DOWN",
            "links do not go down during a run: that link stays up, and what follows its \
             failure in ns-3 differs here",
            &mut warnings,
        );
    }
    if on("ERROR_RATE_PER_LINK") {
        unmodelled(
            &p,
            "ERROR_RATE_PER_LINK",
            "ignored as third.cc ignores it; each link's error rate comes from the topology file",
            &mut warnings,
        );
    }
    Ok(Imported { toml: s, warnings })
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

    #[test]
    fn relative_paths_climb_out_of_the_scenario_directory() {
        let r = relative_to(Path::new("/a/b/c.txt"), Path::new("/a/d/e"));
        assert_eq!(r, PathBuf::from("../../b/c.txt"));
    }
}
