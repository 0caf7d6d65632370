//! The ns-3 NIC scheduler looks for a packet at the end of every transmission.
//! At a NIC with no flow to send, no control packet queued and no wake-up
//! pending, that look finds nothing, so it is held back until something comes
//! to send (docs/ns3-compat.md, "When the NIC looks for a packet"). Every result
//! must be that of a run that queues every look; only the count of events
//! handled falls. That includes runs cut by a stop time, which end at the first
//! event past it.
//!
//! ```text
//!   h1 ... hN ── switch ── h0   (h0 only receives: every look after one of
//!                                its ACKs finds nothing)
//! ```

use super::common::{run_with, star};
use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;

/// `fan_in` hosts each send `size` to h0 under HPCC, in the ns3-hpcc profile.
fn incast(fan_in: u32, size: &str) -> String {
    let extra = format!(
        r#"
[cc]
algorithm = "hpcc"
[[workload.incast]]
fan_in = {fan_in}
receiver = 0
size = "{size}"
start = "0us"
"#
    );
    format!("profile = \"ns3-hpcc\"\n{}", star(fan_in + 1, &extra))
}

/// The run with looks held back, and with every look queued.
fn both(text: &str, overrides: &[&str]) -> (RunOutputs, RunOutputs) {
    let held = run_with(text, overrides, &RunOptions::default());
    let kept = RunOptions {
        keep_idle_looks: true,
        ..RunOptions::default()
    };
    (held, run_with(text, overrides, &kept))
}

/// summary.json's keys but the count of events handled and the wall clock.
fn results(out: &RunOutputs) -> serde_json::Value {
    let mut v = serde_json::to_value(&out.summary).expect("a summary serializes");
    let m = v.as_object_mut().expect("an object");
    for k in [
        "events",
        "wall_seconds",
        "events_per_second",
        "packets_per_second",
    ] {
        m.remove(k);
    }
    v
}

fn assert_same_results(held: &RunOutputs, kept: &RunOutputs, what: &str) {
    assert_eq!(results(held), results(kept), "{what}: summary");
    assert_eq!(held.fct, kept.fct, "{what}: completed flows");
}

#[test]
fn held_back_looks_change_no_result_and_save_events() {
    let (held, kept) = both(&incast(4, "300KB"), &[]);
    assert_same_results(&held, &kept, "4-to-1 incast");
    assert_eq!(held.summary.flows_completed, 4);
    // h0 sends one ACK per data packet (ns-3's ACK every packet), and after
    // each the look that finds nothing is held back for good.
    let acks = held.summary.packets_transmitted / 4;
    assert!(
        held.summary.events + acks / 2 <= kept.summary.events,
        "held back: {} events, kept: {}",
        held.summary.events,
        kept.summary.events
    );
}

#[test]
fn a_run_cut_by_a_stop_time_ends_where_it_would_have() {
    // 6,182,962 and 6,268,988 ps fall while h0 sends an ACK, with no other
    // event due before that ACK's transmission ends: the first event past the
    // stop is h0's look, so the run ends there (rocesim c0c16f9 held such
    // looks back past the stop and ended these runs 6 and 4 ns later). The
    // others sweep 3-16 us in steps of 331 ns.
    let text = incast(1, "200KB");
    let mut stops = vec![6_182_962u64, 6_268_988];
    stops.extend((0..40).map(|i| 3_000_000 + i * 331_013));
    for ps in stops {
        let stop = format!("stop=\"{ps}ps\"");
        let (held, kept) = both(&text, &[&stop]);
        assert_same_results(&held, &kept, &stop);
    }
}
