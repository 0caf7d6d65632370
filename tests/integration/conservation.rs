//! Bytes are conserved: with PFC nothing is lost even when PFC must act; without
//! PFC packets are dropped and go-back-N still delivers everything.

use crate::common::{assert_all_delivered, run, star};

/// 8-to-1 incast of 2 MB each into a switch with a small buffer.
fn incast_small_buffer(cc: &str, pfc: bool) -> String {
    star(
        9,
        &format!(
            r#"
[switch]
buffer = "400KB"
[switch.pfc]
enabled = {pfc}
[cc]
algorithm = "{cc}"
[[workload.incast]]
fan_in = 8
receiver = 0
size = "2MB"
"#
        ),
    )
}

#[test]
fn with_pfc_and_no_congestion_control_pfc_fires_and_nothing_is_lost() {
    let out = run(&incast_small_buffer("none", true), &[]);
    let s = &out.summary;
    assert!(
        s.pfc_pause_frames > 0,
        "the buffer is small enough that PFC must fire"
    );
    assert!(s.pfc_paused_ns > 0.0);
    assert_eq!(s.drops, 0, "lossless");
    assert!(
        s.max_buffer_bytes <= 400_000,
        "the MMU never holds more than the buffer"
    );
    assert_all_delivered(&out);
    // Every payload byte was sent once and arrived once.
    let total: u64 = out.fct.iter().map(|f| f.size).sum();
    assert_eq!(s.payload_sent_bytes, total);
    assert_eq!(s.payload_received_bytes, total);
    assert_eq!(s.retransmitted_bytes, 0);
}

#[test]
fn with_pfc_dcqcn_and_hpcc_lose_nothing_either() {
    for cc in ["dcqcn", "hpcc"] {
        let out = run(&incast_small_buffer(cc, true), &[]);
        assert_eq!(out.summary.drops, 0, "{cc}");
        assert_all_delivered(&out);
        assert_eq!(out.summary.retransmitted_bytes, 0, "{cc}");
    }
}

#[test]
fn without_pfc_a_small_buffer_drops_and_go_back_n_still_completes_every_flow() {
    let out = run(&incast_small_buffer("none", false), &[]);
    let s = &out.summary;
    assert!(
        s.drops_buffer > 0,
        "an 8x overload of a 400 KB buffer must drop"
    );
    assert_eq!(s.pfc_pause_frames, 0);
    assert!(s.retransmitted_bytes > 0, "lost bytes are sent again");
    assert!(s.nacks_sent > 0, "gaps are NACKed");
    assert_all_delivered(&out);
    // Everything that arrived was either delivered once or discarded as out of order.
    assert!(s.payload_received_bytes >= s.delivered_bytes);
}

#[test]
fn random_link_loss_is_recovered_by_go_back_n_and_timeouts() {
    let text = star(
        3,
        r#"
[switch.pfc]
enabled = false
[[workload.flows]]
src = 1
dst = 0
size = "3MB"
[[workload.flows]]
src = 2
dst = 0
size = "3MB"
"#,
    );
    let out = run(&text, &["topology.loss=0.001"]);
    assert!(out.summary.drops_link > 0);
    assert_all_delivered(&out);
}
