//! DCQCN's notification point (DCQCN §3.1, Fig. 6): a CNP at once for a marked
//! packet if none went out for the flow in the last N us; after that at most one
//! CNP per N us, sent when the window ends if any packet inside it was marked.
//!
//! ```text
//!   h1 ─┐
//!       switch ── h0
//!   h2 ─┘
//! ```

use super::common::{run, run_with, star};
use rocesim::sim::RunOptions;

/// h1 and h2 each send `size` to h0 at line rate with no congestion control;
/// every packet that finds more than 5 KB queued at the port to h0 is marked.
/// Meanwhile h0 sends `background` to h1 (the other direction, unmarked), which
/// keeps the run going after the burst.
fn burst(size: &str, cnp_interval: &str, background: &str) -> rocesim::output::RunOutputs {
    run(&burst_text(size, cnp_interval, background), &[])
}

fn burst_text(size: &str, cnp_interval: &str, background: &str) -> String {
    star(
        3,
        &format!(
            r#"
[switch.ecn]
enabled = true
kmin = "5KB"
kmax = "5KB"
pmax = 1.0
[nic]
cnp_interval = "{cnp_interval}"
[cc]
algorithm = "none"
[[workload.flows]]
src = 1
dst = 0
size = "{size}"
[[workload.flows]]
src = 2
dst = 0
size = "{size}"
[[workload.flows]]
src = 0
dst = 1
size = "{background}"
"#
        ),
    )
}

#[test]
fn marks_inside_a_window_get_one_cnp_when_it_ends() {
    // 30 KB each: the queue at h0's port lives ~3 us, so every flow's marks fall
    // in its first window. One CNP at the first mark, one at the window's end.
    let out = burst("30KB", "50us", "2MB");
    assert_eq!(out.summary.cnps_sent, 4, "two CNPs per flow");
}

#[test]
fn a_window_without_marks_sends_no_cnp() {
    // The same burst with a 1 ms window: the second CNP waits for the window's
    // end at 1 ms; then no packet is marked, so the NP goes idle.
    let out = burst("30KB", "1ms", "20MB");
    assert_eq!(out.summary.cnps_sent, 4);
    assert!(
        out.summary.sim_seconds >= 1e-3,
        "the last CNP left at 1 ms: {}",
        out.summary.sim_seconds
    );
}

#[test]
fn while_marks_keep_coming_there_is_one_cnp_per_flow_per_window() {
    // 300 KB each: the queue at h0's port stays above 5 KB for tens of us.
    // With 1 us windows each flow gets one CNP per microsecond of marking.
    let text = burst_text("300KB", "1us", "10KB");
    let opts = RunOptions {
        keep_samples: true,
        ..RunOptions::default()
    };
    let out = run_with(&text, &[], &opts);
    // The switch is node 3; its port 0 leads to h0; samples every 1 us.
    let marking_us = out
        .samples
        .iter()
        .filter(|s| (s.node, s.port) == (3, 0) && s.bytes > 5_000)
        .count() as u64;
    let n = out.summary.cnps_sent;
    eprintln!("{marking_us} us above K, {n} CNPs with 1 us windows");
    assert!(marking_us > 20, "a long marking spell: {marking_us} us");
    assert!(
        n.abs_diff(2 * marking_us) <= 6,
        "{n} CNPs for 2 flows x {marking_us} windows with marks"
    );
}

#[test]
fn with_the_timer_reading_a_flows_cnps_leave_only_at_its_window_ends() {
    // nic.cnp = "timer": the same 30 KB burst marks packets only in the
    // flows' first 3 us. While the run lasts past the windows' end (2 MB the
    // other way), each flow gets one CNP, at the end of its first 50 us
    // window, where the immediate NP sends two (one at the first mark).
    let long = burst_text("30KB", "50us", "2MB");
    let timer = ["nic.cnp=\"timer\""];
    assert_eq!(run(&long, &[]).summary.cnps_sent, 4);
    assert_eq!(run(&long, &timer).summary.cnps_sent, 2);
    // A run that ends within the first window (10 KB the other way): no CNP
    // has left yet with the timer; the immediate NP sent one per flow.
    let short = burst_text("30KB", "50us", "10KB");
    let (p, t) = (run(&short, &[]), run(&short, &timer));
    assert!(t.summary.sim_seconds < 50e-6, "{}", t.summary.sim_seconds);
    assert_eq!((p.summary.cnps_sent, t.summary.cnps_sent), (2, 0));
}
