//! The HPCC ns-3 simulator's ACK path (hpcc-ns3-model.md §3 "Queue choice", §4):
//! at switches ACK/NACK wait in the data packet's class whatever ACK_HIGH_PRIO
//! says; at hosts the ACK queue is served first, and ACK_HIGH_PRIO only chooses
//! which class's PAUSE stops it (0, which switches never pause, or the data class).
//!
//! ```text
//!   h1 ─┐
//!   h2 ─┤ switch ── h0
//!   h3 ─┘
//! ```

use super::common::{run, star};
use rocesim::output::RunOutputs;

/// The star of `common` in the ns3-hpcc profile.
fn ns3_star(hosts: u32, extra: &str) -> String {
    format!("profile = \"ns3-hpcc\"\n{}", star(hosts, extra))
}

fn fct_us(out: &RunOutputs, src: u32, dst: u32) -> f64 {
    let f = out
        .fct
        .iter()
        .find(|f| f.src == src && f.dst == dst)
        .unwrap_or_else(|| panic!("flow {src}->{dst} completed"));
    f.fct.ps() as f64 / 1e6
}

/// h1 and h2 blast 4 MB each at h0 with no congestion control, so the switch's
/// port to h0 holds a growing queue; at 100 us h0 sends 10 KB to h3, whose ACKs
/// come back to h0 through that port.
fn congested_return_path(ack_class: &str) -> RunOutputs {
    let text = ns3_star(
        4,
        &format!(
            r#"
[switch]
buffer = "32MB"
[nic]
ack_class = "{ack_class}"
[cc]
algorithm = "none"
[[workload.flows]]
src = 1
dst = 0
size = "4MB"
[[workload.flows]]
src = 2
dst = 0
size = "4MB"
[[workload.flows]]
src = 0
dst = 3
size = "10KB"
start = "100us"
"#
        ),
    );
    run(&text, &[])
}

#[test]
fn ns3_acks_queue_behind_data_at_switches_so_the_fct_includes_the_wait() {
    let data = congested_return_path("data");
    let control = congested_return_path("control");
    assert_eq!(data.summary.pfc_pause_frames, 0, "no PFC in this setup");
    let (d, c) = (fct_us(&data, 0, 3), fct_us(&control, 0, 3));
    // By 100 us two line-rate senders have queued ~1.25 MB at the port to h0:
    // ~100 us of waiting for the ACKs that ride behind it.
    assert!(c < 10.0, "ACKs in class 0 skip the queue: fct {c} us");
    assert!(d > c + 50.0, "ACKs in the data class wait: {d} vs {c} us");
}

#[test]
fn the_default_ns3_profile_puts_acks_in_the_data_class() {
    let text = ns3_star(
        4,
        r#"
[cc]
algorithm = "none"
[[workload.flows]]
src = 1
dst = 0
size = "4MB"
[[workload.flows]]
src = 2
dst = 0
size = "4MB"
[[workload.flows]]
src = 0
dst = 3
size = "10KB"
start = "100us"
"#,
    );
    let default = run(&text, &[]);
    let data = congested_return_path("data");
    assert_eq!(fct_us(&default, 0, 3), fct_us(&data, 0, 3));
}

/// ```text
///   h0 ─┐
///   h1 ─┼ L ── 1 Gbps ── R ── h3
///   h2 ─┘
/// ```
/// h0 and h1 send to h3 through a 1 Gbps middle link and a 1 MB buffer, so L
/// pauses both in the data class for long stretches; from 50 us h2 sends 200 KB
/// to h0 through L alone, and h0's ACKs for it leave while h0 is being paused.
fn paused_ack_sender(pause_class: &str) -> RunOutputs {
    let text = format!(
        r#"
profile = "ns3-hpcc"
name = "test"
stop = "3ms"
[topology]
kind = "dumbbell"
left = 3
right = 1
host_rate = "100Gbps"
bottleneck_rate = "1Gbps"
delay = "1us"
[switch]
buffer = "1MB"
[nic]
ack_pause_class = "{pause_class}"
[cc]
algorithm = "none"
[[workload.flows]]
src = 0
dst = 3
size = "8MB"
[[workload.flows]]
src = 1
dst = 3
size = "8MB"
[[workload.flows]]
src = 2
dst = 0
size = "200KB"
start = "50us"
"#
    );
    run(&text, &[])
}

#[test]
fn ack_high_prio_only_chooses_which_pause_stops_the_hosts_ack_queue() {
    let own = paused_ack_sender("ack");
    let control = paused_ack_sender("control");
    for o in [&own, &control] {
        assert!(o.summary.pfc_pause_frames > 0, "L pauses h0 and h1");
        assert_eq!(o.summary.drops, 0);
        assert_eq!(o.fct.len(), 1, "only h2's flow completes by 3 ms");
    }
    let (a, c) = (fct_us(&own, 2, 0), fct_us(&control, 2, 0));
    eprintln!("h2->h0 fct: ACK queue paused with the data class {a} us, never paused {c} us");
    // With the data class's pause stopping it, h0's ACK queue waits out each
    // PAUSE; with class 0 (never paused by a switch) it does not.
    assert!(c < 30.0, "200 KB at 100 Gbps plus a round trip: {c} us");
    assert!(a > c + 100.0, "ACK queue paused: {a} us vs unpaused {c} us");
}

/// Imports data/hpcc-ns3/mix/config.txt with ACK_HIGH_PRIO set to `flag`.
fn imported_nic_section(flag: u8) -> String {
    let dir = super::common::scratch(&format!("ack-high-prio-{flag}"));
    let mix = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hpcc-ns3/mix");
    let text = std::fs::read_to_string(mix.join("config.txt")).unwrap();
    let text: String = text
        .lines()
        .map(|l| match l.split_whitespace().next() {
            Some("ACK_HIGH_PRIO") => format!("ACK_HIGH_PRIO {flag}"),
            Some(k @ ("TOPOLOGY_FILE" | "FLOW_FILE" | "TRACE_FILE")) => {
                let file = l.split_whitespace().nth(1).unwrap();
                let name = std::path::Path::new(file).file_name().unwrap();
                format!("{k} {}", mix.join(name).display())
            }
            _ => l.to_string(),
        })
        .map(|l| l + "\n")
        .collect();
    let config = dir.join("config.txt");
    std::fs::write(&config, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["import-ns3", config.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toml = String::from_utf8(out.stdout).unwrap();
    let nic = toml.split("[nic]").nth(1).expect("a [nic] section");
    nic.split("\n[").next().unwrap().to_string()
}

#[test]
fn import_maps_ack_high_prio_to_the_hosts_pause_class_only() {
    let high = imported_nic_section(1);
    let low = imported_nic_section(0);
    assert!(high.contains("ack_pause_class = \"control\""), "{high}");
    assert!(low.contains("ack_pause_class = \"ack\""), "{low}");
    for nic in [&high, &low] {
        // ACKs keep the ns3-hpcc default: the data class at switches.
        assert!(!nic.contains("ack_class"), "{nic}");
    }
}
