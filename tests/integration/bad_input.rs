//! Bad input gets a one-line error naming the file, the field or line and what is
//! valid; exit code 2; no panic and no output files.

use crate::common::scratch;
use std::process::Command;

use crate::common::STAR3 as GOOD;

/// Runs `rocesim run` on `text`; returns (exit code, stderr). Asserts no outputs.
fn run_bad(name: &str, text: &str, extra: &[&str]) -> (i32, String) {
    let dir = scratch(&format!("bad-{name}"));
    let sc = dir.join("s.toml");
    std::fs::write(&sc, text).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !out.exists() || std::fs::read_dir(&out).unwrap().count() == 0,
        "no partial output for {name}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    (o.status.code().unwrap_or(-1), err)
}

fn assert_one_line(err: &str, needles: &[&str]) {
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} should mention {n:?}");
    }
}

#[test]
fn a_good_scenario_runs() {
    let (code, err) = {
        let dir = scratch("good");
        let sc = dir.join("s.toml");
        std::fs::write(&sc, GOOD).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
            .args([
                "run",
                sc.to_str().unwrap(),
                "--out",
                dir.join("o").to_str().unwrap(),
                "-q",
            ])
            .output()
            .unwrap();
        assert!(dir.join("o/summary.json").exists());
        (
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert_eq!(code, 0, "{err}");
}

#[test]
fn unknown_fields_are_rejected_with_the_valid_names() {
    let (code, err) = run_bad("unknown", &GOOD.replace("delay =", "dealy ="), &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["s.toml", "line 6", "dealy", "delay"]);
}

#[test]
fn bad_units_name_the_line_and_the_valid_units() {
    let (code, err) = run_bad(
        "units",
        &GOOD.replace("\"100Gbps\"", "\"100 furlongs\""),
        &[],
    );
    assert_eq!(code, 2);
    assert_one_line(&err, &["s.toml", "line 5", "Gbps"]);
}

#[test]
fn a_zero_rate_is_impossible() {
    let (code, err) = run_bad("zero", &GOOD.replace("\"100Gbps\"", "\"0Gbps\""), &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["topology.rate", "> 0"]);
}

#[test]
fn a_latency_window_must_be_a_start_before_an_end() {
    for (window, needle) in [
        (r#"["5us", "1us"]"#, "after the start"),
        (r#"["1us"]"#, "[start, end]"),
    ] {
        let set = format!("output.latency={{ flows = \"all\", window = {window} }}");
        let (code, err) = run_bad("latency-window", GOOD, &["--set", &set]);
        assert_eq!(code, 2);
        assert_one_line(&err, &["output.latency.window", needle]);
    }
}

#[test]
fn a_fixed_ppfc_pause_and_a_reading_of_alg_3_exclude_each_other() {
    let (code, err) = run_bad(
        "ppfc-pause",
        GOOD,
        &[
            "--set",
            "switch.pfc.scheme=\"ppfc\"",
            "--set",
            "switch.pfc.ppfc.pause=\"20us\"",
            "--set",
            "switch.pfc.ppfc.pause_time=\"own-bytes\"",
        ],
    );
    assert_eq!(code, 2);
    assert_one_line(&err, &["switch.pfc.ppfc.pause_time", "not both"]);
}

#[test]
fn hosts_out_of_range_and_flows_to_themselves_are_rejected() {
    let (code, err) = run_bad("range", &GOOD.replace("dst = 0", "dst = 9"), &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["workload.flows[0].dst", "does not exist", "0-2"]);
    let (code, err) = run_bad("switch", &GOOD.replace("dst = 0", "dst = 3"), &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["workload.flows[0].dst", "switch"]);
    let (code, err) = run_bad("self", &GOOD.replace("dst = 0", "dst = 1"), &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["workload.flows[0]", "itself"]);
}

#[test]
fn a_disconnected_topology_file_is_rejected() {
    let dir = scratch("disconnected-topo");
    let topo = dir.join("t.txt");
    std::fs::write(
        &topo,
        "5 2 2\n3 4\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n",
    )
    .unwrap();
    let text = format!(
        "[topology]\nkind = \"ns3\"\nfile = \"{}\"\n",
        topo.display()
    );
    // The file declares 2 links, so host 2's link is never read: it has none.
    let (code, err) = run_bad("disconnected", &text, &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["t.txt", "host 2 has no link"]);
    std::fs::write(
        &topo,
        "6 2 4\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n3 5 100Gbps 1us 0\n",
    )
    .unwrap();
    let (code, err) = run_bad("disconnected2", &text, &[]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["t.txt", "disconnected"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_flags_are_named() {
    let (code, err) = run_bad("set", GOOD, &["--set", "cc.algorithm=tcp-reno"]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["cc.algorithm", "tcp-reno", "hpcc"]);
    let (code, err) = run_bad("set-gains", GOOD, &["--set", "cc.rcc.gains=fast"]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["cc.rcc.gains", "fast", "paper-eval", "deployment"]);
    let (code, err) = run_bad("set2", GOOD, &["--set", "nic.mtu"]);
    assert_eq!(code, 2);
    assert_one_line(&err, &["--set nic.mtu", "key.path=value"]);
}

#[test]
fn a_missing_scenario_file_is_a_clear_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["validate", "/nonexistent/x.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_one_line(
        &String::from_utf8_lossy(&o.stderr),
        &["/nonexistent/x.toml", "no such scenario file"],
    );
}

#[test]
fn an_unknown_load_balancing_names_the_key_and_the_valid_values() {
    let (code, err) = run_bad(
        "load-balancing",
        GOOD,
        &["--set", "switch.load_balancing=\"letflow\""],
    );
    assert_eq!(code, 2);
    assert_one_line(
        &err,
        &[
            "switch.load_balancing",
            "letflow",
            "`ecmp`",
            "`spray`",
            "`flowlet`",
            "`adaptive`",
        ],
    );
}

#[test]
fn flowlets_and_adaptive_routing_are_refused_where_spraying_is() {
    // Adaptive routing moves every packet, flowlet switching every flowlet.
    for lb in ["flowlet", "adaptive"] {
        let quoted = format!("\"{lb}\"");
        let cases: [(&str, &[&str]); 5] = [
            (
                "cc.algorithm=\"expresspass\"",
                &["\"expresspass\"", "credit", "one path"],
            ),
            (
                "cc.algorithm=\"hpcc\"",
                &["\"hpcc\"", "one path", "\"ecmp\""],
            ),
            ("cc.algorithm=\"hpcc-ns3\"", &["\"hpcc-ns3\"", "one path"]),
            (
                "nic.loss_recovery=\"go-back-0\"",
                &["go-back-0", "out of order", "\"irn\""],
            ),
            ("diagnostics.victims=true", &["omit it or set false"]),
        ];
        for (other, needles) in cases {
            let set = format!("switch.load_balancing={quoted}");
            let (code, err) = run_bad("lb-refused", GOOD, &["--set", &set, "--set", other]);
            assert_eq!(code, 2, "{lb} with {other}");
            let field = match other.starts_with("diagnostics") {
                true => "diagnostics.victims",
                false => "switch.load_balancing",
            };
            let mut all = vec![field, quoted.as_str()];
            all.extend_from_slice(needles);
            assert_one_line(&err, &all);
        }
    }
}

#[test]
fn a_bad_flowlet_gap_names_the_key_and_what_is_valid() {
    let flowlet = "switch.load_balancing=\"flowlet\"";
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            flowlet,
            "\"0us\"",
            &["more than 0", "at most 1s", "\"25us\""],
        ),
        (flowlet, "\"2s\"", &["\"2s\"", "at most 1s"]),
        (flowlet, "\"fast\"", &["\"fast\"", "number"]),
        (
            "switch.load_balancing=\"ecmp\"",
            "\"10us\"",
            &["only used with", "\"flowlet\""],
        ),
    ];
    for (lb, gap, needles) in cases {
        let set = format!("switch.flowlet_gap={gap}");
        let (code, err) = run_bad("flowlet-gap", GOOD, &["--set", lb, "--set", &set]);
        assert_eq!(code, 2, "{gap}");
        let mut all = vec!["switch.flowlet_gap"];
        all.extend_from_slice(needles);
        assert_one_line(&err, &all);
    }
}

#[test]
fn spraying_is_refused_with_hpcc_expresspass_go_back_0_and_victim_tracking() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "cc.algorithm=\"expresspass\"",
            &[
                "switch.load_balancing",
                "\"expresspass\"",
                "credit",
                "one path",
            ],
        ),
        (
            "cc.algorithm=\"hpcc\"",
            &["switch.load_balancing", "\"hpcc\"", "one path", "\"ecmp\""],
        ),
        (
            "cc.algorithm=\"hpcc-ns3\"",
            &["switch.load_balancing", "\"hpcc-ns3\"", "one path"],
        ),
        (
            "nic.loss_recovery=\"go-back-0\"",
            &["switch.load_balancing", "go-back-0", "never complete"],
        ),
        (
            "diagnostics.victims=true",
            &["diagnostics.victims", "spray", "omit it or set false"],
        ),
    ];
    for (other, needles) in cases {
        let spray = "switch.load_balancing=\"spray\"";
        let (code, err) = run_bad("spray-refused", GOOD, &["--set", spray, "--set", other]);
        assert_eq!(code, 2, "{other}");
        assert_one_line(&err, needles);
    }
}

#[test]
fn a_bad_partition_count_or_balance_names_the_key_and_what_is_valid() {
    for (set, needles) in [
        ("run.partitions=0", &["run.partitions", "1 to 256"][..]),
        (
            "run.partitions=300",
            &["run.partitions", "300", "1 to 256"][..],
        ),
        (
            "run.balance=\"events\"",
            &["run.balance", "events", "`hosts`", "`traffic`"][..],
        ),
    ] {
        let (code, err) = run_bad("partitions", GOOD, &["--set", set]);
        assert_eq!(code, 2, "{set}: {err}");
        assert_one_line(&err, needles);
    }
}
