//! Helpers shared by the integration tests.

use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;

/// A star of `hosts` hosts at 100 Gbps with 1 us links and the given extra TOML.
pub fn star(hosts: u32, extra: &str) -> String {
    format!(
        r#"
name = "test"
[topology]
kind = "star"
hosts = {hosts}
rate = "100Gbps"
delay = "1us"
{extra}
"#
    )
}

pub fn run(text: &str, overrides: &[&str]) -> RunOutputs {
    run_with(text, overrides, &RunOptions::default())
}

pub fn run_with(text: &str, overrides: &[&str], opts: &RunOptions) -> RunOutputs {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    rocesim::run_str(text, &o, opts).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Runs with the queue samples kept in memory and every flow's rate traced
/// each 10 us (what the congestion-control scenario tests measure).
pub fn traced(text: &str, overrides: &[&str]) -> RunOutputs {
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(rocesim::units::Delta::from_us(10)),
        ..RunOptions::default()
    };
    run_with(text, overrides, &opts)
}

/// Asserts every flow completed and each delivered exactly its size, in order.
pub fn assert_all_delivered(out: &RunOutputs) {
    let s = &out.summary;
    assert_eq!(s.flows_completed, s.flows_total, "every flow completes");
    for f in &out.fct {
        assert_eq!(
            f.delivered, f.size,
            "flow {} delivered {} of {} bytes",
            f.flow_id, f.delivered, f.size
        );
    }
    let total: u64 = out.fct.iter().map(|f| f.size).sum();
    assert_eq!(
        s.delivered_bytes, total,
        "in-order bytes delivered = bytes offered"
    );
}

/// The run configuration of scenario text `text` with `--set` `overrides`
/// (relative paths from `scenarios/`).
pub fn config(text: &str, overrides: &[&str]) -> rocesim::config::RunConfig {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let src = rocesim::scenario::Source::text(text, "<scenario>", &base, "test");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    rocesim::scenario::to_config(&src, &o).unwrap_or_else(|e| panic!("{e}"))
}

/// The switches ECMP sends flow `i` of `cfg` through under run seed `seed`,
/// for the first flow of its (source, destination) pair (source port 10,000).
pub fn ecmp_path(
    cfg: &rocesim::config::RunConfig,
    seed: u64,
    i: usize,
) -> Vec<rocesim::switch::ecmp::SwitchHop> {
    let f = &cfg.flows[i];
    let key = rocesim::switch::ecmp::FlowKey {
        src: f.src.0,
        dst: f.dst.0,
        sport: 10_000,
        dport: f.dport,
    };
    rocesim::switch::ecmp::trace(&cfg.topo, cfg.model.ecmp_hash, seed, key)
}

/// The data bytes each watched (node, port) sent over a run, from the
/// link_util.csv in `dir`.
pub fn link_data_bytes(dir: &std::path::Path) -> std::collections::BTreeMap<(u32, usize), u64> {
    let csv = std::fs::read_to_string(dir.join("link_util.csv")).unwrap();
    let mut by_link = std::collections::BTreeMap::new();
    for row in csv.lines().skip(1) {
        let c: Vec<&str> = row.split(',').collect();
        let link = (c[1].parse::<u32>().unwrap(), c[2].parse::<usize>().unwrap());
        *by_link.entry(link).or_insert(0) += c[5].parse::<u64>().unwrap();
    }
    by_link
}

/// A scratch directory unique to this test process and name.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rocesim-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run directory's files by name, sorted, without timing.json (which
/// measures the machine; every other file is byte-identical between runs).
pub fn output_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "timing.json")
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Three hosts on one 100 Gbps switch, one 10 KB flow from host 1 to host 0: a
/// valid scenario that the bad-input tests break one key at a time.
pub const STAR3: &str = r#"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "1us"
[[workload.flows]]
src = 1
dst = 0
size = "10KB"
"#;

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code 2 and one `error: ` line holding every needle.
pub fn assert_input_error(o: &std::process::Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit code 2: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("warning: "))
        .collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} should mention {n:?}");
    }
}
