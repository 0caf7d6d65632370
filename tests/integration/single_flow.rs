//! A single flow on an idle 2-hop path finishes close to its ideal FCT with every
//! congestion control.

use crate::common::{assert_all_delivered, run, star};

fn one_flow(cc: &str, overrides: &[&str]) -> f64 {
    let text = star(
        2,
        &format!(
            r#"
[cc]
algorithm = "{cc}"
[[workload.flows]]
src = 1
dst = 0
size = "1MB"
"#
        ),
    );
    let out = run(&text, overrides);
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    assert_eq!(out.summary.pfc_pause_frames, 0);
    out.fct[0].slowdown()
}

#[test]
fn a_lone_1mb_flow_runs_at_line_rate_without_congestion_control() {
    let sd = one_flow("none", &[]);
    // Alone at line rate, the flow takes exactly its ideal time.
    assert!((sd - 1.0).abs() < 1e-9, "slowdown {sd}");
}

#[test]
fn a_lone_1mb_flow_stays_within_5_percent_of_ideal_with_dcqcn() {
    let sd = one_flow("dcqcn", &[]);
    assert!((1.0..=1.05).contains(&sd), "slowdown {sd}");
}

/// HPCC deliberately leaves 1 - eta of the bandwidth free (HPCC §3.3, §5.3
/// "Throughput for long flows"), so a flow alone settles at eta x line rate and a
/// 1 MB flow (about 20 RTTs) cannot get within 5 % of its line-rate ideal with the
/// default eta = 0.95: its slowdown is about 1/eta. Without the headroom it can.
#[test]
fn a_lone_1mb_flow_with_hpcc_runs_at_eta_times_line_rate() {
    let sd = one_flow("hpcc", &[]);
    assert!((1.0..=1.0 / 0.95 + 0.01).contains(&sd), "slowdown {sd}");
    let sd = one_flow("hpcc", &["cc.hpcc.eta=1.0"]);
    assert!((1.0..=1.05).contains(&sd), "slowdown {sd} with eta = 1");
}
