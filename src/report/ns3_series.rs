//! The HPCC ns-3 simulator's output as a series of `rocesim compare`: its
//! `fct.txt` (third.cc `qp_finish` lines: sip dip sport dport size start_ns fct_ns
//! standalone_ns; hpcc-ns3-model.md §9) read into the same [`RunData`] a rocesim
//! run directory gives, so every comparison figure and table takes it as it is.
//!
//! Hosts come from the IPs (`11.(id/256).(id%256).1`, §10). With the topology file
//! the ids are checked to be hosts of that fabric, so a fct.txt from another
//! topology is an error, not a silent mismatch. The slowdown is fct / standalone,
//! as ns-3's own `analysis/fct_analysis.py` computes it.

use super::data::{FctRow, OrderedJson, RunData};
use crate::error::{Error, InputError};
use crate::output::ns3::parse_fct_line;
use crate::output::percentile;
use crate::topology::{NodeKind, TopologySpec};
use std::path::{Path, PathBuf};

/// Where an ns-3 series comes from.
#[derive(Clone, Debug)]
pub struct Ns3Source {
    /// The fct.txt file.
    pub fct: PathBuf,
    /// The topology the run used, to check the hosts.
    pub topology: Option<TopologySpec>,
    /// The config.txt that produced it, shown in the page like a scenario.
    pub config: Option<(PathBuf, String)>,
}

/// Reads `src.fct` into a series named `label`.
pub fn load(src: &Ns3Source, label: String) -> Result<RunData, Error> {
    let path = &src.fct;
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::in_file(path, "", format!("cannot read: {e}")))?;
    let fct = parse(path, &text, src.topology.as_ref())?;
    if fct.is_empty() {
        return Err(InputError::in_file(path, "", "holds no flow (an empty ns-3 fct.txt)").into());
    }
    let summary = summary_of(&fct);
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    Ok(RunData {
        dir,
        label,
        summary,
        fct,
        pfc: None,
        queue_hist: None,
        latency_hist: None,
        flow_rates: None,
        link_util: None,
        collectives: None,
        steps: None,
        scenario: src
            .config
            .as_ref()
            .map(|(p, t)| format!("# {}\n{t}", p.display())),
        extra_files: Vec::new(),
        pfc_diagnostics: None,
    })
}

/// Parses fct.txt lines into flows numbered in file order.
pub fn parse(
    path: &Path,
    text: &str,
    topo: Option<&TopologySpec>,
) -> Result<Vec<FctRow>, InputError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("line {}", i + 1);
        let Some((src, dst, _sport, dport, size, start, fct, standalone)) = parse_fct_line(line)
        else {
            return Err(InputError::in_file(
                path,
                at,
                "expected 8 fields: sip dip sport dport size start_ns fct_ns standalone_ns \
                 (hex IPs, integers), as ns-3's third.cc writes fct.txt",
            ));
        };
        if let Some(t) = topo {
            for (what, id) in [("source", src), ("destination", dst)] {
                if t.kinds.get(id as usize) != Some(&NodeKind::Host) {
                    return Err(InputError::in_file(
                        path,
                        at,
                        format!(
                            "{what} {id} is not a host of the topology ({} nodes); is this \
                             fct.txt from another fabric?",
                            t.kinds.len()
                        ),
                    ));
                }
            }
        }
        if standalone == 0 {
            return Err(InputError::in_file(
                path,
                at,
                "standalone FCT is 0; valid: > 0 ns",
            ));
        }
        rows.push(FctRow {
            flow_id: rows.len() as u32,
            size,
            start_ns: start as f64,
            fct_ns: fct as f64,
            ideal_ns: standalone as f64,
            slowdown: fct as f64 / standalone as f64,
            dport: Some(dport),
            src: Some(src),
            dst: Some(dst),
        });
    }
    Ok(rows)
}

/// The headline numbers that fct.txt supports, under summary.json's keys.
fn summary_of(fct: &[FctRow]) -> OrderedJson {
    let mut sd: Vec<f64> = fct.iter().map(|r| r.slowdown).collect();
    sd.sort_by(f64::total_cmp);
    // ns-3 runs start their flows at an offset (usually 2 s): the simulated time
    // shown is from the first start to the last completion.
    let first = fct.iter().map(|r| r.start_ns).fold(f64::MAX, f64::min);
    let end = fct
        .iter()
        .map(|r| r.start_ns + r.fct_ns - first)
        .fold(0.0, f64::max);
    let n = |v: f64| serde_json::Value::from(v);
    OrderedJson(vec![
        ("flows_completed".into(), fct.len().into()),
        ("slowdown_p50".into(), n(percentile(&sd, 50.0))),
        ("slowdown_p95".into(), n(percentile(&sd, 95.0))),
        ("slowdown_p99".into(), n(percentile(&sd, 99.0))),
        ("slowdown_max".into(), n(sd[sd.len() - 1])),
        ("sim_seconds".into(), n(end / 1e9)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fct_txt_lines_become_flows_with_hosts_from_their_ips() {
        let text = "0b00ce01 0b00ca01 10000 100 600 2000003423 4110 4211\n\n\
                    0b010101 0b000001 10001 100 5000 2000000000 9000 4500\n";
        let rows = parse(Path::new("fct.txt"), text, None).unwrap();
        assert_eq!(rows.len(), 2);
        let r = &rows[0];
        assert_eq!((r.src, r.dst, r.dport), (Some(206), Some(202), Some(100)));
        assert_eq!((r.size, r.start_ns, r.fct_ns), (600, 2000003423.0, 4110.0));
        assert!((rows[1].slowdown - 2.0).abs() < 1e-12);
        assert_eq!(rows[1].src, Some(257));
        assert_eq!(rows[1].flow_id, 1);
    }

    #[test]
    fn a_bad_line_or_a_host_outside_the_topology_is_an_error_naming_the_line() {
        let e = parse(Path::new("f.txt"), "0b000001 0b000101 1 100 5\n", None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.txt: line 1: expected 8 fields"),
            "{e}"
        );
        let mut t = TopologySpec::default();
        t.add_node(NodeKind::Host);
        t.add_node(NodeKind::Switch);
        let line = "0b000001 0b000101 1 100 5 0 10 10\n";
        let e = parse(Path::new("f.txt"), line, Some(&t)).unwrap_err();
        assert!(e.to_string().contains("destination 1 is not a host"), "{e}");
    }
}
