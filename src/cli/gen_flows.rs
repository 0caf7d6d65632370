//! `rocesim gen-flows`: writes the flows a scenario would simulate, in our CSV and
//! in the HPCC ns-3 flow-file format, so that users can replace `traffic_gen.py`.
//!
//! CSV columns: `flow_id,src,dst,class,dport,size_bytes,start_ns`; `flow_id` is
//! the id the simulator gives the flow (its index after the stable sort by start
//! time). ns-3: `N`, then `src dst pg dport size start_seconds` (nanosecond
//! precision; generated start times are whole nanoseconds, so nothing is lost).
//! `--topology-out` also writes the topology as an ns-3 topology file.

use super::ScenarioArgs;
use crate::error::{Error, InputError};
use crate::output::AtomicFile;
use crate::output::fmt_ns;
use crate::topology::ns3::format_topology;
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use crate::workload::ns3::format_flows;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FlowFormat {
    Csv,
    Ns3,
    Both,
}

#[derive(clap::Args, Debug)]
pub struct GenFlowsArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Output file. With --format both: FILE's stem with .csv and .txt. Omitted:
    /// standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// csv, ns3 or both (default: both with --out, csv on standard output).
    #[arg(long, value_enum)]
    pub format: Option<FlowFormat>,
    /// Random seed (overrides the scenario's `seed`, as `rocesim run --seed` does).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Add this to every start time in the ns-3 file (HPCC's traffic_gen.py starts
    /// flows at 2 s; read such files back with workload.ns3_time_offset).
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_delta, default_value = "0s")]
    pub ns3_offset: Delta,
    /// Also write the scenario's topology as an HPCC ns-3 topology file.
    #[arg(long, value_name = "FILE")]
    pub topology_out: Option<PathBuf>,
}

/// Our CSV of `flows`.
pub fn format_csv(flows: &[FlowSpec]) -> String {
    let mut s = String::with_capacity(32 * flows.len() + 64);
    s.push_str("flow_id,src,dst,class,dport,size_bytes,start_ns\n");
    for (i, f) in flows.iter().enumerate() {
        let _ = writeln!(
            s,
            "{i},{},{},{},{},{},{}",
            f.src,
            f.dst,
            f.class,
            f.dport,
            f.size,
            fmt_ns(f.start.ps())
        );
    }
    s
}

pub fn gen_flows(args: &GenFlowsArgs) -> Result<(), Error> {
    let cfg = super::run::load_seeded(&args.scenario, args.seed)?;
    if cfg.programs.is_some() {
        // A flow file has a start time per flow; these start when what they
        // wait for is done.
        return Err(InputError::new(
            cfg.source.clone(),
            "workload",
            "has collectives or dependency graphs, whose flows start when the tasks they wait for are done: a flow file cannot hold them (run the scenario; fct.csv gives every message's real start)",
        )
        .into());
    }
    let format = match (args.format, &args.out) {
        (Some(f), _) => f,
        (None, Some(_)) => FlowFormat::Both,
        (None, None) => FlowFormat::Csv,
    };
    // The flows between servers, as the workload named them (a run places them
    // on the servers' NICs again, the same way: config::nics).
    let flows: Vec<FlowSpec> = (cfg.flows.iter())
        .map(|f| FlowSpec {
            src: cfg.topo.server(f.src),
            dst: cfg.topo.server(f.dst),
            ..f.clone()
        })
        .collect();
    let shifted: Vec<FlowSpec>;
    let ns3_flows = if args.ns3_offset.is_zero() {
        &flows
    } else {
        shifted = (flows.iter())
            .map(|f| FlowSpec {
                start: SimTime(f.start.ps() + args.ns3_offset.ps()),
                ..f.clone()
            })
            .collect();
        &shifted
    };
    let total: u64 = flows.iter().map(|f| f.size).sum();
    // Check every destination before writing any, so a bad one leaves nothing.
    if let Some(p) = &args.topology_out {
        check_dest("--topology-out", p)?;
    }
    if let Some(out) = &args.out {
        match format {
            FlowFormat::Both => {
                check_dest("--out", &out.with_extension("csv"))?;
                check_dest("--out", &out.with_extension("txt"))?;
            }
            _ => check_dest("--out", out)?,
        }
    }
    if let Some(p) = &args.topology_out {
        write_atomic(
            "--topology-out",
            p,
            format_topology(&cfg.topo.spec).as_bytes(),
        )?;
    }
    let Some(out) = &args.out else {
        let text = match format {
            FlowFormat::Csv => format_csv(&flows),
            FlowFormat::Ns3 => format_flows(ns3_flows),
            FlowFormat::Both => {
                return Err(InputError::new(
                    "--format",
                    "",
                    "both needs --out FILE (standard output takes one format: csv or ns3)",
                )
                .into());
            }
        };
        let mut stdout = std::io::stdout().lock();
        return match stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush())
        {
            // `gen-flows | head`: the reader has all it wants, as for any Unix tool.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|e| Error::io("<stdout>", e)),
        };
    };
    let mut written = Vec::new();
    let mut write = |path: PathBuf, text: String| -> Result<(), Error> {
        write_atomic("--out", &path, text.as_bytes())?;
        written.push(path.display().to_string());
        Ok(())
    };
    match format {
        FlowFormat::Csv => write(out.clone(), format_csv(&flows))?,
        FlowFormat::Ns3 => write(out.clone(), format_flows(ns3_flows))?,
        FlowFormat::Both => {
            write(out.with_extension("csv"), format_csv(&flows))?;
            write(out.with_extension("txt"), format_flows(ns3_flows))?;
        }
    }
    eprintln!(
        "{}: {} flows, {:.3} MB, first start {}, last start {}; wrote {}",
        cfg.source,
        cfg.flows.len(),
        total as f64 / 1e6,
        cfg.flows.first().map_or(SimTime::ZERO, |f| f.start),
        cfg.flows.last().map_or(SimTime::ZERO, |f| f.start),
        written.join(", ")
    );
    Ok(())
}

/// `path` (from `flag`) can be written: it names a file in an existing directory
/// and is not a directory itself.
fn check_dest(flag: &str, path: &Path) -> Result<(), InputError> {
    let bad = |msg: String| InputError::new(flag, "", msg);
    if path.is_dir() {
        return Err(bad(format!(
            "{} is a directory (valid: a file name, e.g. {})",
            path.display(),
            path.join("out.txt").display()
        )));
    }
    if path.file_name().is_none() {
        return Err(bad(format!("{} is not a file name", path.display())));
    }
    let dir = parent_dir(path);
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(bad(format!(
            "cannot write {}: {} {what}",
            path.display(),
            dir.display()
        )));
    }
    Ok(())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

fn write_atomic(flag: &str, path: &Path, data: &[u8]) -> Result<(), Error> {
    check_dest(flag, path)?;
    let name = path
        .file_name()
        .expect("checked")
        .to_string_lossy()
        .into_owned();
    AtomicFile::write_all_to(parent_dir(path), &name, data).map_err(|e| super::flag_error(flag, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::NodeId;

    #[test]
    fn csv_rows_carry_the_simulators_flow_ids_and_nanoseconds() {
        let f = FlowSpec {
            src: NodeId(1),
            dst: NodeId(0),
            size: 1000,
            start: SimTime(1_500),
            class: 3,
            dport: 100,
        };
        let csv = format_csv(&[f.clone(), f]);
        assert_eq!(
            csv,
            "flow_id,src,dst,class,dport,size_bytes,start_ns\n0,1,0,3,100,1000,1.500\n1,1,0,3,100,1000,1.500\n"
        );
    }
}
