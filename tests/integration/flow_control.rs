//! Switch-side flow control: DCQCN §4 thresholds, P-PFC against standard PFC
//! (P-PFC §5), timed pauses, and PFC deadlock detection.

use crate::common::{assert_all_delivered, run, scratch, star};
use rocesim::output::RunOutputs;
use std::path::Path;
use std::process::Command;

fn rocesim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn scenario(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Receiver throughput (bits/s): all bytes over the time to the last completion.
fn receiver_throughput(out: &RunOutputs) -> f64 {
    let start = out.fct.iter().map(|f| f.start.ps()).min().unwrap();
    let end = out
        .fct
        .iter()
        .map(|f| f.start.ps() + f.fct.ps())
        .max()
        .unwrap();
    let bytes: u64 = out.fct.iter().map(|f| f.size).sum();
    bytes as f64 * 8.0 / ((end - start) as f64 / 1e12)
}

#[test]
fn thresholds_reproduce_dcqcn_section_4_for_its_switch() {
    let args = [
        "thresholds",
        "--buffer",
        "12MB",
        "--ports",
        "32",
        "--rate",
        "40Gbps",
        "--classes",
        "8",
        "--mtu",
        "1500",
        "--beta",
        "8",
    ];
    let mut with_paper_t_flight = args.to_vec();
    with_paper_t_flight.extend(["--t-flight", "22.4KB"]);
    let o = rocesim(&with_paper_t_flight);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let line = |key: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_string()
    };
    assert!(line("t_flight").contains("22.40 KB"), "{text}");
    assert!(line("t_PFC    <=").contains("24.47 KB"), "{text}");
    // Static t_ECN: t_PFC / n = 0.76 KB, below one MTU (the paper's "infeasible").
    assert!(line("t_ECN    <  ").contains("0.76 KB"), "{text}");
    assert!(text.contains("infeasible"), "{text}");
    assert!(text.contains("21.75 KB"), "beta = 8: {text}");
    // Without --t-flight: the IEEE 802.1Qbb worst case for 1500 B frames at
    // 40 Gbps over 100 m, which lands close to the paper's 22.4 KB.
    let o = rocesim(&args);
    let text = String::from_utf8(o.stdout).unwrap();
    let kb: f64 = text
        .lines()
        .find(|l| l.trim_start().starts_with("t_flight"))
        .and_then(|l| l.split('=').nth(1))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((kb - 22.4).abs() / 22.4 < 0.03, "{kb} KB");
}

#[test]
fn thresholds_reject_bad_flags_with_exit_code_2() {
    let o = rocesim(&[
        "thresholds",
        "--buffer",
        "12XB",
        "--ports",
        "32",
        "--rate",
        "40Gbps",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: --buffer"), "{err}");
    let o = rocesim(&[
        "thresholds",
        "--buffer",
        "12MB",
        "--ports",
        "32",
        "--rate",
        "50Gbps",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "no 802.3 table for 50 Gbps without --t-flight"
    );
}

/// Runs a P-PFC scenario as it is and with standard PFC instead.
fn ppfc_and_standard(name: &str) -> (RunOutputs, RunOutputs) {
    let text = scenario(name);
    let quiet = "output.queue_interval=\"0s\"";
    let ppfc = run(&text, &[quiet]);
    let pfc = run(&text, &["switch.pfc.scheme=\"standard\"", quiet]);
    (ppfc, pfc)
}

#[test]
fn ppfc_keeps_the_16_to_1_buffer_well_below_standard_pfc_without_losing_throughput() {
    let (ppfc, pfc) = ppfc_and_standard("ppfc-incast-16to1-ppfc.toml");
    let (sp, ss) = (&ppfc.summary, &pfc.summary);
    // Standard PFC lets the 4 MB shared buffer fill (P-PFC §5.1).
    assert!(ss.max_buffer_bytes > 3_600_000, "{}", ss.max_buffer_bytes);
    assert_eq!(ss.ppfc_pause_frames, 0);
    assert!(sp.ppfc_pause_frames > 0);
    assert!(
        (sp.max_buffer_bytes as f64) < 0.8 * ss.max_buffer_bytes as f64,
        "P-PFC peak {} vs PFC {}",
        sp.max_buffer_bytes,
        ss.max_buffer_bytes
    );
    let (tp, ts) = (receiver_throughput(&ppfc), receiver_throughput(&pfc));
    // §5.2: "P-PFC does no harm to throughput" (its shorter queue lets DCQCN
    // settle sooner, so it may even finish a little earlier).
    assert!(tp >= 0.98 * ts, "{tp:.3e} vs {ts:.3e} b/s");
    for o in [&ppfc, &pfc] {
        assert_eq!(o.summary.drops, 0);
        assert_all_delivered(o);
    }
}

#[test]
fn ppfc_sends_no_pause_at_4_to_1_and_then_behaves_like_pfc() {
    let (ppfc, pfc) = ppfc_and_standard("ppfc-incast-4to1-ppfc.toml");
    assert_eq!(ppfc.summary.ppfc_pause_frames, 0);
    assert_eq!(ppfc.summary.max_buffer_bytes, pfc.summary.max_buffer_bytes);
    assert_eq!(ppfc.fct, pfc.fct, "no pause: the same run");
}

#[test]
fn ppfc_pauses_more_often_as_t_grows_at_6_to_1_and_16_to_1() {
    // P-PFC acts in the first few hundred microseconds; 1 ms covers it.
    for file in ["ppfc-incast-6to1-ppfc.toml", "ppfc-incast-16to1-ppfc.toml"] {
        let text = scenario(file);
        let pauses: Vec<u64> = ["\"50us\"", "\"100us\"", "\"150us\""]
            .iter()
            .map(|t| {
                let set = format!("switch.pfc.ppfc.t={t}");
                run(
                    &text,
                    &[&set, "stop=\"1ms\"", "output.queue_interval=\"0s\""],
                )
                .summary
                .ppfc_pause_frames
            })
            .collect();
        assert!(
            pauses.windows(2).all(|w| w[0] <= w[1]),
            "{file}: {pauses:?}"
        );
        assert!(pauses[2] > pauses[0], "{file}: {pauses:?}");
    }
}

/// 4-to-1 incast at 100 Gbps into a 400 KB buffer with the given PFC keys.
fn small_incast(pfc: &str) -> String {
    star(
        5,
        &format!(
            r#"
[switch]
buffer = "400KB"
[switch.pfc]
{pfc}
[[workload.incast]]
fan_in = 4
receiver = 0
size = "1MB"
"#
        ),
    )
}

#[test]
fn a_timed_pause_lapses_and_traffic_resumes_without_a_resume_frame() {
    let dir = scratch("timed-pause");
    let sc = dir.join("s.toml");
    std::fs::write(&sc, small_incast("pause_quanta = 2000\nresume = false")).unwrap();
    let out = dir.join("out");
    let o = rocesim(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["flows_completed"], 4);
    assert_eq!(
        summary["drops"], 0,
        "refreshed before it lapses: still lossless"
    );
    assert!(summary["pfc_pause_frames"].as_u64().unwrap() > 0);
    assert_eq!(summary["pfc_resume_frames"], 0);
    // At the paused NICs, every pause ends by lapsing.
    let pfc = std::fs::read_to_string(out.join("pfc.csv")).unwrap();
    let count = |ev: &str| pfc.lines().filter(|l| l.ends_with(ev)).count();
    assert!(count(",pause") > 0);
    assert_eq!(count(",pause"), count(",expire"), "{pfc}");
    assert_eq!(count(",resume"), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn timed_pauses_with_resume_frames_and_capfc_stay_lossless() {
    for keys in [
        "pause_quanta = 2000",
        "scheme = \"capfc\"",
        "scheme = \"capfc\"\npause_quanta = 3000\nresume = false",
    ] {
        let out = run(&small_incast(keys), &[]);
        assert_eq!(out.summary.drops, 0, "{keys}");
        assert!(out.summary.pfc_pause_frames > 0, "{keys}");
        assert_all_delivered(&out);
    }
}

#[test]
fn capfc_pauses_inputs_early_and_holds_less_buffer_than_pfc() {
    let text = scenario("incast-16to1-pfc-only.toml");
    let quiet = "output.queue_interval=\"0s\"";
    let pfc = run(&text, &[quiet]);
    let capfc = run(&text, &["switch.pfc.scheme=\"capfc\"", quiet]);
    assert!(capfc.summary.max_buffer_bytes * 4 < pfc.summary.max_buffer_bytes);
    assert_all_delivered(&capfc);
}

#[test]
fn a_cyclic_routing_deadlock_is_detected_reported_and_stops_the_run() {
    let dir = scratch("deadlock");
    let sc = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/pfc-deadlock-ring.toml");
    let out = dir.join("out");
    let o = rocesim(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("PFC deadlock"), "{err}");
    for q in [
        "switch 4 port 1",
        "switch 5 port 2",
        "switch 6 port 2",
        "switch 7 port 2",
    ] {
        assert!(err.contains(q), "{q} in {err}");
    }
    assert!(
        err.contains("pfc_diagnostics.json"),
        "says what it wrote: {err}"
    );
    let diag: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pfc_diagnostics.json")).unwrap())
            .unwrap();
    let d = &diag["deadlock"];
    assert_eq!(d["cycle"].as_array().unwrap().len(), 4);
    // Found long before the 100 ms stall watchdog.
    assert!(d["time_ns"].as_f64().unwrap() < 5e6, "{d}");
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"pfc_deadlock\": true"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_the_static_routes_the_ring_does_not_deadlock() {
    // The same ring and flows, with shortest-path ECMP (relative paths resolve
    // against scenarios/).
    let text: String = scenario("pfc-deadlock-ring.toml")
        .split("[[switch.routes]]")
        .next()
        .unwrap()
        .to_string()
        + r#"
[[workload.flows]]
src = 0
dst = 2
size = "20MB"
[[workload.flows]]
src = 1
dst = 3
size = "20MB"
[[workload.flows]]
src = 2
dst = 0
size = "20MB"
[[workload.flows]]
src = 3
dst = 1
size = "20MB"
"#;
    let out = run(&text, &[]);
    assert!(out.summary.pfc_pause_frames > 0);
    assert!(!out.summary.pfc_deadlock);
    assert_all_delivered(&out);
}

/// Runs `rocesim run` on `text` (written to a scratch file); returns (exit code,
/// stderr) and checks that nothing was written.
fn run_bad(name: &str, text: &str) -> (i32, String) {
    let dir = scratch(&format!("fc-bad-{name}"));
    let sc = dir.join("s.toml");
    std::fs::write(&sc, text).unwrap();
    let out = dir.join("out");
    let o = rocesim(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() == 0);
    std::fs::remove_dir_all(&dir).unwrap();
    (o.status.code().unwrap_or(-1), err)
}

#[test]
fn bad_flow_control_keys_are_one_line_errors_with_exit_code_2() {
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/topologies/ring4.txt");
    let ring_with = |routes: &str| {
        format!(
            "[topology]\nkind = \"ns3\"\nfile = \"{}\"\n{routes}\n[[workload.flows]]\nsrc = 0\ndst = 2\nsize = \"10KB\"\n",
            ring.display()
        )
    };
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "no-resume",
            small_incast("resume = false"),
            &["switch.pfc.resume", "pause_quanta"],
        ),
        (
            "quanta",
            small_incast("pause_quanta = 70000"),
            &["switch.pfc.pause_quanta", "1..65535"],
        ),
        (
            "lossy-ppfc",
            small_incast("enabled = false\nscheme = \"ppfc\""),
            &["switch.pfc.scheme"],
        ),
        (
            "scheme",
            small_incast("scheme = \"qcn\""),
            &["scheme", "ppfc"],
        ),
        (
            "ppfc-r",
            small_incast("scheme = \"ppfc\"\nppfc.r = 1.5"),
            &["switch.pfc.ppfc.r"],
        ),
        (
            "beta",
            small_incast("alpha = 0.5\nbeta = 8"),
            &["switch.pfc.beta"],
        ),
        (
            "recovery",
            star(
                3,
                "[nic]\nloss_recovery = \"go-back-2\"\n[[workload.flows]]\nsrc = 1\ndst = 0\nsize = \"1KB\"",
            ),
            &["nic.loss_recovery", "irn"],
        ),
        (
            "route-port",
            ring_with("[[switch.routes]]\nswitch = 4\ndst = 2\nport = 9"),
            &["switch.routes[0].port", "0..2"],
        ),
        (
            "route-host",
            ring_with("[[switch.routes]]\nswitch = 4\ndst = 2\nport = 0"),
            &["switch.routes[0].port", "leads to host 0"],
        ),
        (
            "route-loop",
            ring_with(
                "[[switch.routes]]\nswitch = 4\ndst = 2\nport = 2\n[[switch.routes]]\nswitch = 7\ndst = 2\nport = 2",
            ),
            &["switch.routes", "loop"],
        ),
    ];
    for (name, text, needles) in cases {
        let (code, err) = run_bad(name, &text);
        assert_eq!(code, 2, "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        for n in needles {
            assert!(err.contains(n), "{name}: {err:?} should mention {n:?}");
        }
    }
}
