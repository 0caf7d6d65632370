//! `rocesim sweep`: a grid of runs into one directory, sweep.csv equal to the
//! points' summary.json whatever the number of jobs, failures recorded, resume,
//! one point at a time + collect equal to the local sweep, the Slurm script,
//! one-line errors for bad sweep files, and the sweep report.

use crate::common::scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rocesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .unwrap()
}

fn tiny() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/sweeps/tiny.toml")
        .display()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `rocesim sweep SWEEP --out OUT ARGS..`.
fn sweep(file: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", file, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    rocesim(&args)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// sweep.csv as (header, rows).
fn csv(p: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = read(p);
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

/// A sweep file in `dir` over quickstart.toml with these lines after `base`.
fn sweep_file(dir: &Path, body: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/quickstart.toml");
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!("base = {:?}\n{body}", base.display().to_string()),
    )
    .unwrap();
    p
}

#[test]
fn a_four_point_sweep_writes_four_run_directories_and_a_row_per_point_equal_to_their_summaries() {
    let dir = scratch("sweep-grid");
    let out = dir.join("out");
    let o = sweep(&tiny(), &out, &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = csv(&out.join("sweep.csv"));
    assert_eq!(
        &header[..4],
        [
            "point",
            "status",
            "cc.algorithm",
            "workload.incast[0].fan_in"
        ]
    );
    assert!(
        !header
            .iter()
            .any(|h| h == "wall_seconds" || h.ends_with("per_second"))
    );
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0][0], "p000-algorithm=hpcc-fan_in=4");
    assert_eq!(rows[3][0], "p003-algorithm=dcqcn-fan_in=8");
    for r in &rows {
        assert_eq!(r[1], "ok");
        let pd = out.join(&r[0]);
        assert!(pd.join("fct.csv").is_file() && pd.join("scenario.toml").is_file());
        let summary: serde_json::Value =
            serde_json::from_str(&read(&pd.join("summary.json"))).unwrap();
        for (h, cell) in header.iter().zip(r).skip(4) {
            let v = &summary[h.as_str()];
            let expected = v
                .as_f64()
                .map(|x| x.to_string())
                .unwrap_or_else(|| v.to_string());
            let got = cell
                .parse::<f64>()
                .map(|x| x.to_string())
                .unwrap_or(cell.clone());
            assert_eq!(got, expected, "{} {h}", r[0]);
        }
        // The effective scenario names the point's values.
        let sc = read(&pd.join("scenario.toml"));
        assert!(sc.contains(&format!("algorithm = \"{}\"", r[2])), "{sc}");
        assert!(sc.contains(&format!("fan_in = {}", r[3])), "{sc}");
    }
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("sweep.json"))).unwrap();
    assert_eq!(json["ok"], 4);
    assert_eq!(json["points"][2]["values"]["cc.algorithm"], "dcqcn");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_job_and_two_jobs_give_byte_identical_sweep_csv() {
    let dir = scratch("sweep-jobs");
    let (a, b) = (dir.join("a"), dir.join("b"));
    assert!(sweep(&tiny(), &a, &["--jobs", "1", "-q"]).status.success());
    assert!(sweep(&tiny(), &b, &["--jobs", "2", "-q"]).status.success());
    assert_eq!(read(&a.join("sweep.csv")), read(&b.join("sweep.csv")));
    for id in [
        "p000-algorithm=hpcc-fan_in=4",
        "p003-algorithm=dcqcn-fan_in=8",
    ] {
        assert_eq!(
            read(&a.join(id).join("fct.csv")),
            read(&b.join(id).join("fct.csv"))
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_point_is_recorded_and_the_others_complete() {
    let dir = scratch("sweep-fail");
    // quickstart has 9 hosts: 12 senders is valid TOML but not a valid incast.
    let file = sweep_file(
        &dir,
        "[set]\n\"workload.incast[0].size\" = \"50KB\"\n[axes]\n\"workload.incast[0].fan_in\" = [2, 12, 4]\n",
    );
    let out = dir.join("out");
    let o = sweep(file.to_str().unwrap(), &out, &["--jobs", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("failed: p001-fan_in=12"), "{err}");
    let (_, rows) = csv(&out.join("sweep.csv"));
    let status: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(status, ["ok", "failed", "ok"]);
    assert!(
        rows[1][3..].iter().all(String::is_empty),
        "no numbers for a failed point"
    );
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("sweep.json"))).unwrap();
    let e = json["points"][1]["error"].as_str().unwrap();
    assert!(e.contains("fan_in") && e.contains("12 senders"), "{e}");
    assert!(out.join("p002-fan_in=4/summary.json").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn listed_points_run_as_listed_with_their_keys_as_columns() {
    let dir = scratch("sweep-points");
    let file = sweep_file(
        &dir,
        "points = [\n  { seed = 3 },\n  { \"cc.algorithm\" = \"dcqcn\", \"workload.incast[0].size\" = \"20KB\" },\n]\n",
    );
    let out = dir.join("out");
    let o = sweep(file.to_str().unwrap(), &out, &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = csv(&out.join("sweep.csv"));
    assert_eq!(
        &header[..5],
        [
            "point",
            "status",
            "seed",
            "cc.algorithm",
            "workload.incast[0].size"
        ]
    );
    assert_eq!(rows[0][..5], ["p000-seed=3", "ok", "3", "", ""]);
    assert_eq!(
        rows[1][..5],
        ["p001-algorithm=dcqcn-size=20KB", "ok", "", "dcqcn", "20KB"]
    );
    let sc = read(&out.join("p001-algorithm=dcqcn-size=20KB/scenario.toml"));
    assert!(
        sc.contains("size = \"20KB\"") && sc.contains("algorithm = \"dcqcn\""),
        "{sc}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn mtime(p: &Path) -> std::time::SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn rerunning_a_sweep_skips_complete_points_and_reruns_the_others() {
    let dir = scratch("sweep-resume");
    let out = dir.join("out");
    assert!(
        sweep(&tiny(), &out, &["--jobs", "2", "-q"])
            .status
            .success()
    );
    let csv_before = read(&out.join("sweep.csv"));
    let kept = out.join("p000-algorithm=hpcc-fan_in=4/summary.json");
    let before = mtime(&kept);
    // As if interrupted: one point never finished.
    std::fs::remove_file(out.join("p002-algorithm=dcqcn-fan_in=4/sweep-point.json")).unwrap();
    let o = sweep(&tiny(), &out, &["--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("skipped").count(), 3, "{err}");
    assert!(
        err.contains("ok      p002-algorithm=dcqcn-fan_in=4"),
        "{err}"
    );
    assert_eq!(mtime(&kept), before, "a complete point is not run again");
    assert_eq!(read(&out.join("sweep.csv")), csv_before);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn points_run_one_by_one_then_collected_equal_the_local_sweep_byte_for_byte() {
    let dir = scratch("sweep-collect");
    let (local, split) = (dir.join("local"), dir.join("split"));
    assert!(sweep(&tiny(), &local, &["-q"]).status.success());
    // --slurm prepares the directory, as on a cluster; then each array task.
    assert!(sweep(&tiny(), &split, &["--slurm"]).status.success());
    let o = rocesim(&["sweep", "collect", split.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "nothing run yet");
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 missing"));
    for k in ["3", "1", "0", "2"] {
        let o = sweep(&tiny(), &split, &["--point", k, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(
        !split.join("sweep.csv").exists() || read(&split.join("sweep.csv")).contains("missing")
    );
    let o = rocesim(&["sweep", "collect", split.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        read(&local.join("sweep.csv")),
        read(&split.join("sweep.csv"))
    );
    // The other shape gives the same file.
    let o = sweep(&tiny(), &split, &["--collect"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        read(&local.join("sweep.csv")),
        read(&split.join("sweep.csv"))
    );
    let o = sweep(&tiny(), &split, &["--point", "4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--point: 4 is out of range"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn slurm_writes_a_job_array_script_with_one_task_per_point() {
    let dir = scratch("sweep-slurm");
    let out = dir.join("out");
    let o = sweep(
        &tiny(),
        &out,
        &[
            "--slurm",
            "--partition",
            "debug",
            "--time",
            "10",
            "--cpus-per-task",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        stdout.contains("sbatch ") && stdout.contains("rocesim sweep collect"),
        "{stdout}"
    );
    let s = read(&out.join("sweep.sbatch"));
    assert!(s.starts_with("#!/bin/bash\n"), "{s}");
    for line in [
        "#SBATCH --array=0-3\n",
        "#SBATCH --partition=debug\n",
        "#SBATCH --time=10\n",
        "#SBATCH --cpus-per-task=1\n",
    ] {
        assert!(s.contains(line), "{line} in {s}");
    }
    let bin = std::fs::canonicalize(env!("CARGO_BIN_EXE_rocesim")).unwrap();
    let cmd = format!(
        "exec {} sweep {} --point \"$SLURM_ARRAY_TASK_ID\" --out {}\n",
        bin.display(),
        tiny(),
        std::path::absolute(&out).unwrap().display()
    );
    assert!(s.contains(&cmd), "{cmd} in {s}");
    // --submit without Slurm installed: one line, exit code 2.
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args([
            "sweep",
            &tiny(),
            "--out",
            out.to_str().unwrap(),
            "--slurm",
            "--submit",
        ])
        .env("PATH", dir.to_str().unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("sbatch not found") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_sweep_files_exit_2_with_one_line_naming_the_file_and_key() {
    let dir = scratch("sweep-bad");
    let cases = [
        (
            "[axes]\n\"cc.algoritm\" = [\"hpcc\"]\n",
            "axes.\"cc.algoritm\"",
        ),
        ("[axes]\nseed = 3\n", "axes.\"seed\""),
        ("[axes]\nseed = [\"one\"]\n", "axes.\"seed\""),
        (
            "[axes]\n\"topology.kind.x\" = [1]\n",
            "axes.\"topology.kind.x\"",
        ),
        ("points = [{ seeds = 1 }]\n", "points[0].\"seeds\""),
        (
            "[set]\n\"nic.mtuu\" = 1000\n[axes]\nseed = [1]\n",
            "set.\"nic.mtuu\"",
        ),
        ("[axis]\nseed = [1]\n", "axis"),
    ];
    for (body, key) in cases {
        let file = sweep_file(&dir, body);
        let out = dir.join("out");
        let o = sweep(file.to_str().unwrap(), &out, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{body}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: ") && err.contains("s.toml") && err.contains(key),
            "{key}: {err}"
        );
        assert!(!out.exists(), "nothing runs: {body}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_on_a_sweep_draws_each_metric_against_each_axis_and_compare_takes_points() {
    let dir = scratch("sweep-report");
    let out = dir.join("out");
    assert!(sweep(&tiny(), &out, &["-q"]).status.success());
    let o = rocesim(&["report", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = read(&out.join("report.html"));
    // Numeric axis: a line per CC with two points; categorical axis: bars.
    let fig = "<figure id=\"sweep_slowdown_p99_vs_workload_incast_0__fan_in\" data-points=\"4\">";
    assert!(html.contains(fig), "{html}");
    assert!(html.contains("id=\"sweep_slowdown_p99_vs_cc_algorithm\""));
    assert!(
        out.join("figures/sweep_slowdown_p99_vs_cc_algorithm.svg")
            .is_file()
    );
    // Points are run directories: compare takes them as they are.
    let cmp = dir.join("cmp");
    let o = rocesim(&[
        "compare",
        out.join("p000-algorithm=hpcc-fan_in=4").to_str().unwrap(),
        out.join("p002-algorithm=dcqcn-fan_in=4").to_str().unwrap(),
        "--out",
        cmp.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(&cmp.join("compare.html")).contains("p002-algorithm=dcqcn-fan_in=4"));
    std::fs::remove_dir_all(&dir).unwrap();
}
