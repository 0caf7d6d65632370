//! `rocesim import-ns3`: turns an HPCC ns-3 simulator config file (third.cc's
//! `KEY value` lines; every key of mix/config_doc.txt) into an equivalent
//! scenario with `profile = "ns3-hpcc"` that references the same topology and
//! flow files. docs/ns3-compat.md has the key-by-key mapping.
//!
//! Keys we do not model give a warning naming the key; unknown keys (typos) a
//! warning naming the line; a bad value is an [`InputError`] naming the file,
//! line, key and what is valid.

mod parser;
mod sections;

use crate::error::InputError;
use parser::{Parser, parse_config};
use sections::Import;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The result of an import: the scenario text and the warnings to print.
#[derive(Debug)]
pub struct Imported {
    pub toml: String,
    pub warnings: Vec<String>,
}

/// Every key third.cc reads (mix/config_doc.txt).
const KEYS: &[&str] = &[
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
const CC_MODES: &[(u32, &str)] = &[
    (1, "dcqcn-ns3"),
    (3, "hpcc-ns3"),
    (7, "timely-ns3"),
    (8, "dctcp-ns3"),
    (10, "hpcc-pint"),
];

/// The files an ns-3 run of `config` read and wrote.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ns3RunFiles {
    /// FCT_OUTPUT_FILE: the flows' completion times (third.cc `qp_finish`).
    pub(crate) fct: PathBuf,
    /// TOPOLOGY_FILE, when given and found.
    pub(crate) topology: Option<PathBuf>,
}

/// Where the ns-3 run configured by `config` (its text `text`) left its fct.txt,
/// and which topology it used, both found as `import-ns3` finds files.
pub(crate) fn run_files(config: &Path, text: &str) -> Result<Ns3RunFiles, InputError> {
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
fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

/// `target` relative to directory `from` (both made absolute first).
fn relative_to(target: &Path, from: &Path) -> PathBuf {
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
    let stem = config
        .file_stem()
        .map_or("ns3".into(), |s| s.to_string_lossy().into_owned());
    let mut im = Import {
        p,
        s: String::new(),
        warnings,
    };
    writeln!(
        im.s,
        "# Imported from {file} by `rocesim import-ns3` (docs/ns3-compat.md)."
    )
    .ok();
    writeln!(im.s, "name = {}", toml_str(&format!("ns3-{stem}"))).ok();
    writeln!(im.s, "profile = \"ns3-hpcc\"").ok();
    let (topo, flows) = files(&im.p, config_dir)?;
    // Our simulated time starts at the whole second before the first flow, as
    // ns-3 runs usually start flows at 2 s.
    let offset_s = match &flows {
        Some(f) => earliest_start(f)?.map_or(0, |t| t.max(0.0).floor() as u64),
        None => 0,
    };
    im.stop(offset_s)?;
    let topo = path_str(&place(&topo));
    writeln!(im.s, "\n[topology]\nkind = \"ns3\"\nfile = {topo}").ok();
    im.switch()?;
    im.nic()?;
    im.model()?;
    im.cc()?;
    writeln!(im.s, "\n[workload]").ok();
    if let Some(f) = &flows {
        writeln!(im.s, "ns3_flow_files = [{}]", path_str(&place(f))).ok();
        writeln!(im.s, "ns3_time_offset = \"{offset_s}s\"").ok();
    }
    im.output(offset_s * 1_000_000_000)?;
    im.unmodelled();
    Ok(Imported {
        toml: im.s,
        warnings: im.warnings,
    })
}

/// TOPOLOGY_FILE (required) and FLOW_FILE, found as ns-3 finds them.
fn files(p: &Parser, config_dir: &Path) -> Result<(PathBuf, Option<PathBuf>), InputError> {
    let topo = p.locate(config_dir, "TOPOLOGY_FILE")?;
    let flows = p.locate(config_dir, "FLOW_FILE")?;
    let Some(topo) = topo else {
        return Err(InputError::new(
            p.file,
            "TOPOLOGY_FILE",
            "missing; the scenario needs a topology file",
        ));
    };
    Ok((topo, flows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_out_of_the_scenario_directory() {
        let r = relative_to(Path::new("/a/b/c.txt"), Path::new("/a/d/e"));
        assert_eq!(r, PathBuf::from("../../b/c.txt"));
    }
}
