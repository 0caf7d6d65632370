//! RCC's last-hop test (§III-C, Alg. 1 line 10) on a link shared by data and
//! ACKs: h0 and h1 send to h2 while h2 sends to h0, so h2's downlink carries the
//! two incoming flows' data and the ACKs of h2's own flow. The link is full
//! (`B_R` counts every frame on it), so the queue it builds is last-hop
//! congestion: the fair share governs and no flow into h2 enters PID.
//!
//! ```text
//!   h0 ──┐
//!   h1 ──┤ switch ├── h2     h0, h1 → h2 (data);  h2 → h0 (data, ACKs back to h2)
//! ```

use crate::common::{assert_all_delivered, run_with, star};
use crate::measure::us;
use rocesim::cc::Congestion;
use rocesim::sim::RunOptions;
use rocesim::units::Delta;

fn scenario() -> String {
    star(
        3,
        r#"
[cc]
algorithm = "rcc"

[[workload.flows]]
src = 0
dst = 2
size = "4MB"

[[workload.flows]]
src = 1
dst = 2
size = "4MB"

[[workload.flows]]
src = 2
dst = 0
size = "8MB"
"#,
    )
}

#[test]
fn a_last_hop_full_of_data_and_returning_acks_is_last_hop_congestion() {
    let opts = RunOptions {
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    };
    let out = run_with(&scenario(), &[], &opts);
    assert_all_delivered(&out);
    // The two flows into h2, after their first RTTs and while both run.
    let end = out
        .fct
        .iter()
        .filter(|f| f.flow_id < 2)
        .map(|f| f.start + f.fct)
        .min()
        .expect("two flows into h2");
    let into_h2: Vec<Congestion> = out
        .rates
        .iter()
        .filter(|r| r.flow < 2 && r.time >= us(50.0) && r.time < end)
        .map(|r| r.congestion)
        .collect();
    assert!(into_h2.len() > 100, "{} samples", into_h2.len());
    assert!(
        !into_h2.contains(&Congestion::InNetwork),
        "a full last hop read as in-network congestion: {} of {} samples",
        into_h2
            .iter()
            .filter(|c| **c == Congestion::InNetwork)
            .count(),
        into_h2.len()
    );
    assert!(
        into_h2.contains(&Congestion::LastHop),
        "the last hop should read busy"
    );
}
