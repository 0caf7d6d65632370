//! Issue 17's output-side robustness: runaway runs stop (limits), signals leave no
//! temporary files, run directories are fresh or reused with --force, and bad
//! flags get one-line errors naming the flag and path, exit code 2, nothing left
//! behind. Each test feeds the exact input of the issue.

use crate::common::{assert_input_error, scratch, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::STAR3 as STAR;

fn rocesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `rocesim run [scenario] --out DIR -q extra...`; DIR must not exist after.
fn run_refused(dir: &Path, scenario: Option<&Path>, extra: &[&str]) -> Output {
    let out = dir.join("out");
    let mut args = vec!["run"];
    if let Some(sc) = scenario {
        args.push(s(sc));
    }
    args.extend(["--out", s(&out), "-q"]);
    args.extend_from_slice(extra);
    let o = rocesim(&args);
    assert!(!out.exists(), "no output directory left: {}", stderr(&o));
    o
}

// Item 5: runaway runs.

#[test]
fn a_1bps_link_is_refused_before_running() {
    let dir = scratch("ro-1bps");
    let o = run_refused(&dir, None, &["--set", "topology.rate=\"1bps\""]);
    assert_input_error(
        &o,
        &[
            "built-in quickstart",
            "workload",
            "flow 0",
            "--max-sim-time",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_1000gb_flow_without_stop_is_refused_by_validate_and_by_run() {
    let dir = scratch("ro-1000gb");
    let sc = write(&dir, "s.toml", &STAR.replace("\"10KB\"", "\"1000GB\""));
    let o = rocesim(&["validate", s(&sc)]);
    assert_input_error(&o, &["s.toml", "workload", "flow 0", "--max-sim-time"]);
    let o = run_refused(&dir, Some(&sc), &[]);
    assert_input_error(&o, &["s.toml", "flow 0", "80s"]);
    // The flag raises the limit: validate then accepts it.
    let o = rocesim(&["validate", s(&sc), "--max-sim-time", "100s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_flow_of_i64_max_bytes_is_refused() {
    let dir = scratch("ro-i64max");
    let sc = write(
        &dir,
        "s.toml",
        &STAR.replace("\"10KB\"", "9223372036854775807"),
    );
    let o = run_refused(&dir, Some(&sc), &[]);
    assert_input_error(&o, &["s.toml", "flow 0", "--max-sim-time"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_1ps_queue_interval_is_refused_for_its_output_volume() {
    let dir = scratch("ro-1ps");
    let o = run_refused(&dir, None, &["--set", "output.queue_interval=\"1ps\""]);
    assert_input_error(
        &o,
        &[
            "output.queue_interval",
            "queue.csv",
            "2.0GB",
            "--max-output",
        ],
    );
    let o = rocesim(&["validate", "--set", "output.queue_interval=\"1ps\""]);
    assert_input_error(&o, &["output.queue_interval", "--max-output"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_that_passes_the_simulated_time_limit_stops_and_leaves_nothing() {
    // Each quickstart flow alone needs 80 us, but eight share one link: ~700 us.
    let dir = scratch("ro-simtime");
    let o = run_refused(&dir, None, &["--max-sim-time", "200us"]);
    assert_input_error(
        &o,
        &[
            "built-in quickstart",
            "simulated-time limit",
            "--max-sim-time",
        ],
    );
    // The default output directory, runs/quickstart: neither it nor runs/ is left.
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["run", "-q", "--max-sim-time", "200us"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_input_error(&o, &["simulated-time limit"]);
    assert!(!dir.join("runs").exists(), "runs/ removed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_that_delivers_nothing_for_100ms_stops_and_leaves_nothing() {
    // Every packet lost: go-back-N retries for ever without progress.
    let dir = scratch("ro-stall");
    let sc = write(
        &dir,
        "s.toml",
        &STAR.replace("delay = \"1us\"", "delay = \"1us\"\nloss = 0.999999"),
    );
    let o = run_refused(&dir, Some(&sc), &[]);
    assert_input_error(
        &o,
        &[
            "s.toml",
            "no packet was delivered for 100ms",
            "1 of 1 flows",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_whose_files_outgrow_max_output_stops_and_leaves_nothing() {
    let dir = scratch("ro-maxout");
    let o = run_refused(
        &dir,
        None,
        &[
            "--set",
            "output.queue_interval=\"10ns\"",
            "--max-output",
            "1MB",
        ],
    );
    assert_input_error(&o, &["built-in quickstart", "output", "--max-output"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 6: signals.

fn temporaries(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return vec![];
    };
    rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

fn interrupted_run_leaves_no_temporaries(signal: &str, code: i32) {
    let dir = scratch(&format!("ro-signal-{signal}"));
    let sc = write(&dir, "s.toml", &STAR.replace("\"10KB\"", "\"10GB\""));
    let out = dir.join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["run", s(&sc), "--out", s(&out), "-q"])
        .args(["--set", "output.queue_interval=\"1us\""])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run is writing its files.
    let started = std::time::Instant::now();
    while temporaries(&out).len() < 3 {
        assert!(
            started.elapsed().as_secs() < 30,
            "the run never opened its files"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let st = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(
        err.contains(&format!("interrupted by SIG{signal}")),
        "{err}"
    );
    assert!(
        temporaries(&out).is_empty(),
        "temporaries left: {:?}",
        temporaries(&out)
    );
    assert!(!out.exists(), "the run's empty directory is removed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_removes_the_runs_temporary_files_and_exits_143() {
    interrupted_run_leaves_no_temporaries("TERM", 143);
}

#[test]
fn sigint_removes_the_runs_temporary_files_and_exits_130() {
    interrupted_run_leaves_no_temporaries("INT", 130);
}

// Item 7: run directories.

#[test]
fn an_existing_run_directory_needs_force_and_force_replaces_only_rocesims_files() {
    let dir = scratch("ro-force");
    let sc = write(&dir, "s.toml", STAR);
    let out = dir.join("out");
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q", "--report"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("report.html").exists() && out.join("figures").is_dir());
    // Again, without --force: refused, the previous run untouched.
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q"]);
    assert_input_error(&o, &["--out", "already holds a run", "--force"]);
    assert!(out.join("report.html").exists());
    // With --force: the previous run's report and figures are gone.
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("fct.csv").exists() && out.join("summary.json").exists());
    assert!(!out.join("report.html").exists(), "stale report removed");
    assert!(!out.join("figures").exists(), "stale figures removed");
    // A file rocesim did not write is never deleted: refused, named.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q", "--force"]);
    assert_input_error(&o, &["--out", "notes.txt", "did not write"]);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(out.join("fct.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 8: reproduce and scenario names.

#[test]
fn scenario_names_that_escape_or_are_empty_are_refused() {
    for (case, name) in [("escape", "../../escape"), ("empty", "")] {
        let dir = scratch(&format!("ro-name-{case}"));
        let sc = write(&dir, "s.toml", &format!("name = {name:?}\n{STAR}"));
        // Default output: runs/<name>, relative to the working directory.
        let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
            .args(["run", s(&sc), "-q"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_input_error(&o, &["s.toml", "name", "not a valid run name"]);
        assert!(!dir.join("runs").exists(), "nothing written for {name:?}");
        let o = rocesim(&["validate", s(&sc)]);
        assert_input_error(&o, &["s.toml: name:"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn reproduce_doc_refuses_a_file_that_is_not_a_reproduction_document() {
    let dir = scratch("ro-doc");
    let doc = write(&dir, "notes.md", "# My notes\n");
    let out = dir.join("out");
    let o = rocesim(&["reproduce", "hpcc-fig9", "--quick", "--doc", s(&doc)]);
    assert_input_error(
        &o,
        &[
            "--doc",
            "notes.md",
            "not a reproduction document",
            "--force",
        ],
    );
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), "# My notes\n");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reproduce_from_an_empty_scenarios_directory_creates_nothing() {
    let dir = scratch("ro-emptyscen");
    let empty = dir.join("emptydir");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("D");
    let o = rocesim(&[
        "reproduce",
        "hpcc-fig9",
        "--quick",
        "--scenarios",
        s(&empty),
        "--out",
        s(&out),
    ]);
    assert_input_error(&o, &["--scenarios", "emptydir", "hpcc-fig9"]);
    assert!(!out.exists(), "no empty output directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 9: output paths.

#[test]
fn out_under_a_file_names_the_flag_and_the_file() {
    let dir = scratch("ro-afile");
    write(&dir, "afile", "x");
    let sc = write(&dir, "s.toml", STAR);
    let o = rocesim(&["run", s(&sc), "--out", s(&dir.join("afile/sub")), "-q"]);
    assert_input_error(&o, &["--out", "afile", "is a file, not a directory"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gen_flows_topology_out_errors_name_topology_out() {
    let dir = scratch("ro-topo-out");
    let sc = write(&dir, "s.toml", STAR);
    let flows = dir.join("flows.csv");
    let o = rocesim(&[
        "gen-flows",
        s(&sc),
        "--out",
        s(&flows),
        "--format",
        "csv",
        "--topology-out",
        s(&dir),
    ]);
    assert_input_error(&o, &["--topology-out", "is a directory"]);
    assert!(!flows.exists(), "nothing written");
    let o = rocesim(&["gen-flows", s(&sc), "--topology-out", "/nodir/t.txt"]);
    assert_input_error(&o, &["--topology-out", "/nodir", "does not exist"]);
    assert!(!stderr(&o).contains("--out"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 10: import-ns3.

fn ns3_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hpcc-ns3/mix/config.txt")
}

#[test]
fn import_ns3_creates_the_scenarios_directory_and_its_paths_resolve() {
    let dir = scratch("ro-import-newdir");
    let sc = dir.join("newdir/deeper/x.toml");
    let o = rocesim(&["import-ns3", s(&ns3_config()), "--out", s(&sc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = rocesim(&["validate", s(&sc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn import_ns3_to_stdout_writes_absolute_paths_that_validate_anywhere() {
    let dir = scratch("ro-import-stdout");
    let o = rocesim(&["import-ns3", s(&ns3_config())]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sc = write(&dir, "x.toml", &String::from_utf8(o.stdout).unwrap());
    let o = rocesim(&["validate", s(&sc)]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 12 (command-line parts).

#[test]
fn bench_only_nosuch_and_repeat_0_are_errors_naming_the_choices() {
    let o = rocesim(&["bench", "--only", "nosuch"]);
    assert_input_error(&o, &["--only", "nosuch", "incast-16to1-hpcc"]);
    let o = rocesim(&["bench", "--repeat", "0"]);
    assert_input_error(&o, &["--repeat", "at least 1"]);
}

/// The events `rocesim bench --scenario FILE --recorders R --repeat 1` reports.
fn bench_events(sc: &Path, recorders: &str) -> u64 {
    let o = rocesim(&[
        "bench",
        "--scenario",
        s(sc),
        "--recorders",
        recorders,
        "--repeat",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let row = text.lines().last().expect("a result row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[0], "s", "{text}");
    cols[4].parse().expect("the events column")
}

#[test]
fn bench_recorders_scenario_runs_what_run_records_queue_samples_included() {
    let dir = scratch("ro-bench-rec");
    // 200 KB: 16 us at 100 Gbps, so the run samples its queues a few dozen times.
    let sc = write(&dir, "s.toml", &STAR.replace("\"10KB\"", "\"200KB\""));
    let out = dir.join("out");
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let run_events = summary["events"].as_u64().expect("summary.json's events");
    // queue.csv's samples: one Sample event each, at distinct times.
    let queue = std::fs::read_to_string(out.join("queue.csv")).unwrap();
    let mut times: Vec<&str> = queue
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    times.dedup();
    assert!(times.len() >= 16, "one sample a us: {}", times.len());
    // `scenario`: the very run `rocesim run` does, event for event.
    assert_eq!(bench_events(&sc, "scenario"), run_events);
    // `off` and `default` turn queue sampling off: exactly its events fewer.
    let off = bench_events(&sc, "off");
    assert_eq!(off + times.len() as u64, run_events);
    assert_eq!(bench_events(&sc, "default"), off);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_dport_999_names_the_ports_the_run_has() {
    let dir = scratch("ro-dport");
    let sc = write(&dir, "s.toml", STAR);
    let out = dir.join("out");
    let o = rocesim(&["run", s(&sc), "--out", s(&out), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = rocesim(&["report", s(&out), "--dport", "999"]);
    assert_input_error(&o, &["--dport", "999", "valid: "]);
    assert!(!out.join("report.html").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gen_flows_into_a_closed_pipe_exits_quietly_with_0() {
    let dir = scratch("ro-epipe");
    // 3000 flows: more CSV than a pipe holds.
    let flows = "[[workload.flows]]\nsrc = 1\ndst = 0\nsize = \"1KB\"\n".repeat(3000);
    let sc = write(&dir, "s.toml", &format!("{}{flows}", STAR));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["gen-flows", s(&sc)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // as `| head` does once it has its lines
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    // The other commands' tables too (`println!` would panic).
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["reproduce", "--list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// Item 13: byte-identical outputs.

#[test]
fn identical_runs_give_byte_identical_files_except_timing_json() {
    let dir = scratch("ro-identical");
    let sc = write(&dir, "s.toml", STAR);
    // The same --out both times (report.html names it): the first run is moved
    // aside before the second.
    let out = dir.join("run");
    let mut trees = Vec::new();
    for side in ["a", "b"] {
        let o = rocesim(&[
            "run",
            s(&sc),
            "--out",
            s(&out),
            "-q",
            "--report",
            "--fct-format",
            "ns3",
            "--set",
            "output.link_utilization=\"1us\"",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut files = Vec::new();
        let mut stack = vec![out.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&out).unwrap().display().to_string();
                    files.push((rel, std::fs::read(&p).unwrap()));
                }
            }
        }
        files.sort();
        trees.push(files);
        std::fs::rename(&out, dir.join(side)).unwrap();
    }
    let names: Vec<&str> = trees[0].iter().map(|f| f.0.as_str()).collect();
    for n in ["summary.json", "timing.json", "fct.txt", "report.html"] {
        assert!(names.contains(&n), "{n} written: {names:?}");
    }
    let summary = String::from_utf8(
        trees[0]
            .iter()
            .find(|f| f.0 == "summary.json")
            .unwrap()
            .1
            .clone(),
    )
    .unwrap();
    assert!(!summary.contains("wall_seconds"), "{summary}");
    for (a, b) in trees[0].iter().zip(&trees[1]) {
        assert_eq!(a.0, b.0);
        if a.0 != "timing.json" {
            assert!(a.1 == b.1, "{} differs between identical runs", a.0);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
