//! Parallel runs (docs/parallel.md): every output file is byte-identical for
//! 1, 2, 3, 4 and 8 threads, and for 3 threads sharing 7 partitions balanced
//! by hosts, for each congestion control, flow control and
//! loss recovery mode, on fabrics, incasts, a lossy run and the deadlock ring;
//! the parallel phase really runs (windows, packets crossing partitions); a
//! zero-delay link refuses more than one thread.

use crate::common::{output_files as files, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// (threads, partitions and what they are balanced by, when not one a
/// thread by traffic).
const RUNS: [(usize, Option<(usize, &str)>); 6] = [
    (1, None),
    (2, None),
    (3, None),
    (4, None),
    (8, None),
    (3, Some((7, "hosts"))),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `scenario` with `args` on `threads` threads into `out`; the exit code.
fn run(scenario: &Path, args: &[&str], threads: usize, out: &Path) -> (i32, String) {
    run_parts(scenario, args, threads, None, out)
}

/// [`run`] with `partitions` balanced by what it says.
fn run_parts(
    scenario: &Path,
    args: &[&str],
    threads: usize,
    partitions: Option<(usize, &str)>,
    out: &Path,
) -> (i32, String) {
    let parts = partitions
        .map(|(n, by)| {
            vec![
                "--set".to_string(),
                format!("run.partitions={n}"),
                "--set".to_string(),
                format!("run.balance=\"{by}\""),
            ]
        })
        .unwrap_or_default();
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["-q", "--threads", &threads.to_string()])
        .args(parts)
        .args(args)
        .output()
        .expect("binary runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The engine section of a run's timing.json.
fn engine(dir: &Path) -> serde_json::Value {
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("timing.json")).unwrap()).unwrap();
    t["engine"].clone()
}

/// Runs the case on every thread count and asserts identical files; returns
/// the directory of the 2-thread run (`t3p7`: 3 threads, 7 partitions).
fn same_bytes(name: &str, scenario: &Path, args: &[&str], want_rc: i32) -> PathBuf {
    let dir = scratch(&format!("parallel-{name}"));
    let mut first: Option<Vec<(String, Vec<u8>)>> = None;
    for (t, parts) in RUNS {
        let tag = match parts {
            None => format!("{t}"),
            Some((p, _)) => format!("{t}p{p}"),
        };
        let out = dir.join(format!("t{tag}"));
        let (rc, err) = run_parts(scenario, args, t, parts, &out);
        let t = tag;
        assert_eq!(rc, want_rc, "{name} on {t} threads: {err}");
        let f = files(&out);
        assert!(
            f.iter().any(|(n, _)| n == "fct.csv"),
            "{name}: outputs written"
        );
        match &first {
            None => first = Some(f),
            Some(one) => {
                let names =
                    |v: &[(String, Vec<u8>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
                assert_eq!(
                    names(one),
                    names(&f),
                    "{name}: the same files on {t} threads"
                );
                for ((n, a), (_, b)) in one.iter().zip(&f) {
                    // The effective scenario records the `--set` of
                    // run.partitions and run.balance.
                    if parts.is_some() && n == "scenario.toml" {
                        continue;
                    }
                    assert!(a == b, "{name}: {n} differs between 1 and {t} threads");
                }
            }
        }
    }
    dir.join("t2")
}

fn scenario(name: &str) -> PathBuf {
    root().join("scenarios").join(format!("{name}.toml"))
}

/// Shipped scenario `name` with one more small flow, from host `src` to `dst`
/// at `start`: until it starts, the run is in its parallel phase (windows).
fn with_late_flow(name: &str, src: u32, dst: u32, start: &str) -> PathBuf {
    let text = std::fs::read_to_string(scenario(name))
        .unwrap()
        .replace("\"../data/", &format!("\"{}/data/", root().display()));
    let dir = scratch(&format!("parallel-scenario-{name}"));
    let p = dir.join(format!("{name}.toml"));
    let flow = format!(
        "\n[[workload.flows]]\nsrc = {src}\ndst = {dst}\nsize = \"2KB\"\nstart = \"{start}\"\n"
    );
    std::fs::write(&p, text + &flow).unwrap();
    p
}

/// Asserts that the 2-thread run in `dir` ran windows in parallel.
fn ran_windows(name: &str, dir: &Path) {
    let e = engine(dir);
    assert!(
        e["windows"].as_u64().unwrap() > 0,
        "{name}: windows ran: {e}"
    );
    assert!(e["window_events"].as_u64().unwrap() > 100, "{name}: {e}");
}

/// A short slice of the 320-host fat-tree workload (FbHdp at 30 %), with every
/// recorder on.
const FAT: &[&str] = &[
    "--set",
    "workload.poisson[0].duration=\"40us\"",
    "--set",
    "output.queue_interval=\"2us\"",
    "--set",
    "output.link_utilization=\"5us\"",
    "--set",
    "output.flow_rates.flows=[0,1,2,3]",
    "--fct-format",
    "ns3",
];

#[test]
fn a_sprayed_fat_tree_is_byte_identical_on_any_number_of_threads_and_runs_in_parallel() {
    // Each switch draws its next hops from its own stream, whichever thread
    // runs it.
    let t2 = same_bytes("spray", &scenario("fattree-k4-spray-irn"), &[], 0);
    ran_windows("spray", &t2);
}

#[test]
fn a_fat_tree_run_is_byte_identical_on_any_number_of_threads_and_runs_in_parallel() {
    let t2 = same_bytes("fat", &scenario("fattree-fbhdp-30pct"), FAT, 0);
    let e = engine(&t2);
    assert_eq!(e["threads"], 2);
    assert!(e["windows"].as_u64().unwrap() > 10, "windows ran: {e}");
    assert!(e["window_events"].as_u64().unwrap() > 10_000, "{e}");
    assert!(e["crossed_packets"].as_u64().unwrap() > 1000, "{e}");
    let parts = e["part_events"].as_array().unwrap();
    assert!(
        parts.iter().all(|n| n.as_u64().unwrap() > 0),
        "both partitions work: {e}"
    );
    // Each window is handed to the one worker and back, and each hand-over's
    // own cost lies within its window (those of one window may overlap).
    let handed = |e: &serde_json::Value, per_window: u64| {
        assert_eq!(
            e["handovers"].as_u64(),
            Some(per_window * e["windows"].as_u64().unwrap()),
            "{e}"
        );
        let secs = e["handover_seconds"].as_f64().unwrap();
        assert!(
            secs > 0.0 && secs < per_window as f64 * e["window_seconds"].as_f64().unwrap(),
            "{e}"
        );
    };
    handed(&e, 1);
    // 3 threads took 7 partitions in turn, and no more window events than
    // one thread's share of them, plus the largest partition's, on the
    // critical path (list scheduling).
    let e = engine(&t2.parent().unwrap().join("t3p7"));
    assert_eq!(
        (e["threads"].as_u64(), e["partitions"].as_u64()),
        (Some(3), Some(7))
    );
    let parts: Vec<u64> = e["part_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(parts.len(), 7);
    let crit = e["critical_events"].as_u64().unwrap();
    let windowed = e["window_events"].as_u64().unwrap();
    assert!(crit >= windowed / 3 && crit < windowed, "{e}");
    // The dispatcher hands each window to thread 2, then to thread 1.
    handed(&e, 2);
    std::fs::remove_dir_all(t2.parent().unwrap()).unwrap();
}

#[test]
fn every_congestion_control_gives_the_same_bytes_on_any_number_of_threads() {
    for cc in ["dcqcn", "timely", "dctcp", "rcc", "hpcc-ns3", "dcqcn-ns3"] {
        let algo = format!("cc.algorithm=\"{cc}\"");
        let mut args = vec![
            "--set",
            "workload.poisson[0].duration=\"20us\"",
            "--set",
            &algo,
        ];
        if cc.starts_with("dc") {
            args.extend([
                "--set",
                "switch.ecn.kmin=\"20KB\"",
                "--set",
                "switch.ecn.kmax=\"200KB\"",
            ]);
        }
        let t2 = same_bytes(
            &format!("cc-{cc}"),
            &scenario("fattree-fbhdp-30pct"),
            &args,
            0,
        );
        std::fs::remove_dir_all(t2.parent().unwrap()).unwrap();
    }
}

#[test]
fn incasts_with_pfc_p_pfc_capfc_and_a_lossy_irn_run_give_the_same_bytes() {
    for (name, late, extra) in [
        ("incast-16to1-dcqcn", (1, 2, "30us"), vec![]),
        ("ppfc-incast-16to1-ppfc", (1, 2, "30us"), vec![]),
        (
            "ppfc-incast-16to1-ppfc",
            (1, 2, "30us"),
            vec!["--set", "switch.pfc.scheme=\"capfc\""],
        ),
        ("lossy-irn-incast", (1, 2, "30us"), vec![]),
        ("lossy-gbn-incast", (1, 2, "30us"), vec![]),
    ] {
        let sc = with_late_flow(name, late.0, late.1, late.2);
        let tag = format!("{name}-{}", extra.len());
        let t2 = same_bytes(&tag, &sc, &extra, 0);
        ran_windows(&tag, &t2);
        std::fs::remove_dir_all(t2.parent().unwrap()).unwrap();
        std::fs::remove_dir_all(sc.parent().unwrap()).unwrap();
    }
    let ls = scenario("leafspine-websearch");
    let t2 = same_bytes(
        "leafspine",
        &ls,
        &["--set", "workload.poisson[0].duration=\"30us\""],
        0,
    );
    ran_windows("leafspine", &t2);
    std::fs::remove_dir_all(t2.parent().unwrap()).unwrap();
}

#[test]
fn the_deadlock_ring_is_found_at_the_same_time_on_any_number_of_threads() {
    let sc = with_late_flow("pfc-deadlock-ring", 0, 1, "500us");
    let t2 = same_bytes("deadlock", &sc, &[], 1);
    ran_windows("deadlock", &t2);
    let diag = std::fs::read_to_string(t2.join("pfc_diagnostics.json")).unwrap();
    assert!(diag.contains("\"cycle\""), "the cycle is reported: {diag}");
    std::fs::remove_dir_all(t2.parent().unwrap()).unwrap();
    std::fs::remove_dir_all(sc.parent().unwrap()).unwrap();
}

#[test]
fn a_zero_delay_link_refuses_more_than_one_thread_and_names_the_link() {
    let dir = scratch("parallel-zero-delay");
    let sc = dir.join("zero.toml");
    std::fs::write(
        &sc,
        r#"
name = "zero"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "0ns"
[[workload.flows]]
src = 0
dst = 1
size = "10KB"
"#,
    )
    .unwrap();
    let (rc, err) = run(&sc, &[], 2, &dir.join("t2"));
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("zero delay") && err.contains("threads = 1"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!dir.join("t2").exists(), "no output directory is left");
    let (rc, err) = run(&sc, &[], 1, &dir.join("t1"));
    assert_eq!(rc, 0, "one thread runs it: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_thread_count_is_refused() {
    let dir = scratch("parallel-bad-threads");
    let (rc, err) = run(&scenario("quickstart"), &[], 0, &dir.join("t0"));
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--threads") && err.contains("1 to"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A build without the `mpi` feature refuses `--mpi` in one line that says how
/// to build one that has it, and touches no output directory.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_without_the_feature_is_refused_with_how_to_build_it() {
    let dir = scratch("parallel-no-mpi");
    let (rc, err) = run(&scenario("quickstart"), &["--mpi"], 1, &dir.join("m"));
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("--mpi") && err.contains("--features mpi"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!dir.join("m").exists(), "no output directory");
    std::fs::remove_dir_all(&dir).ok();
}
