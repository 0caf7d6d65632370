//! ExpressPass (SIGCOMM'17): credits shaped at every port keep the data queues
//! near empty and the links near their data share (what credits and ACKs leave), every byte
//! arrives, flows share a receiver evenly, and runs repeat exactly.

use crate::common::{assert_all_delivered, run_with, star};
use rocesim::output::RunOutputs;
use rocesim::sim::RunOptions;
use rocesim::units::{Delta, SimTime};

const INCAST: &str = include_str!("../../scenarios/incast-16to1-expresspass.toml");
const FAIR: &str = include_str!("../../scenarios/expresspass-fairness-4to1.toml");

/// 100 Gbps, 1000 B payloads in 1062 B packets, 64 B credits, and a 64 B ACK
/// per data packet, which travels in its credit's direction: one credit per
/// 1190 B slot, so a link that carries credits one way carries at most
/// 1062/1190 of its rate in data the other way, 1000/1190 in payload.
const PAYLOAD_SHARE: f64 = 1000.0 / (64.0 + 1062.0 + 64.0);

fn traced() -> RunOptions {
    RunOptions {
        keep_samples: true,
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    }
}

/// Payload bytes the flows `flows` had delivered by sample time `t`.
fn delivered_at(out: &RunOutputs, t: SimTime, flows: impl Fn(u32) -> bool) -> u64 {
    out.rates
        .iter()
        .filter(|r| r.time == t && flows(r.flow))
        .map(|r| r.delivered)
        .sum()
}

/// Payload bits per second all flows delivered between sample times `from` and `to`.
fn goodput(out: &RunOutputs, from: SimTime, to: SimTime) -> f64 {
    let bytes = delivered_at(out, to, |_| true) - delivered_at(out, from, |_| true);
    bytes as f64 * 8.0 / to.since(from).as_secs_f64()
}

/// `rate` (payload bits/s) is at most a 100 Gbps link's payload share
/// (`PAYLOAD_SHARE` of it) and at least `low` of it.
fn assert_within_data_share(rate: f64, low: f64, what: &str) {
    let data_share = 100e9 * PAYLOAD_SHARE;
    assert!(
        rate <= data_share * 1.005 && rate >= low * data_share,
        "{what} {:.2} Gbps, data share {:.2} Gbps",
        rate / 1e9,
        data_share / 1e9
    );
}

/// The last rate sample time before `t`.
fn last_sample_before(out: &RunOutputs, t: SimTime) -> SimTime {
    out.rates
        .iter()
        .map(|r| r.time)
        .filter(|&s| s < t)
        .max()
        .unwrap()
}

#[test]
fn a_16_to_1_incast_keeps_the_bottleneck_queue_at_a_few_packets_and_the_link_near_its_data_share() {
    let out = run_with(INCAST, &[], &traced());
    assert_all_delivered(&out);
    let s = &out.summary;
    assert_eq!((s.drops, s.pfc_pause_frames), (0, 0));
    assert!(s.credits_sent > 0);
    // The bottleneck (switch 17's port to host 0) never holds more than a few
    // data packets: 1062 B each, plus one in service.
    assert!(
        s.max_queue_bytes <= 4 * 1126,
        "max queue {} B",
        s.max_queue_bytes
    );

    // Receiver goodput from 100 us until the first flow completes.
    let first_done = out.fct.iter().map(|f| f.start + f.fct).min().unwrap();
    let from = SimTime(Delta::from_us(100).ps());
    let to = last_sample_before(&out, first_done);
    assert_within_data_share(goodput(&out, from, to), 0.95, "receiver goodput");
}

/// ExpressPass, PFC off, on a 3-host star: two flows of `size` starting at
/// once, `(src, dst)` each.
fn two_flows_on_a_3_host_star(pairs: [(u32, u32); 2], size: &str) -> String {
    let flows: String = pairs
        .iter()
        .map(|(src, dst)| {
            format!(
                "[[workload.flows]]\nsrc = {src}\ndst = {dst}\nsize = \"{size}\"\nstart = \"0us\"\n"
            )
        })
        .collect();
    star(
        3,
        &format!("[switch.pfc]\nenabled = false\n[cc]\nalgorithm = \"expresspass\"\n{flows}"),
    )
}

#[test]
fn credits_from_two_receivers_through_one_switch_port_are_held_to_its_credit_share() {
    // Host 1 sends to hosts 0 and 2: both receivers credit it at up to the
    // full credit rate, and switch 3's port to host 1 shapes their sum.
    let text = two_flows_on_a_3_host_star([(1, 0), (1, 2)], "1GB");
    let out = run_with(&text, &["stop=\"1ms\""], &traced());
    let s = &out.summary;
    assert!(s.credits_dropped > 0, "the switch port drops credits");
    assert_eq!(s.drops, 0, "no data is lost");
    let from = SimTime(Delta::from_us(100).ps());
    let to = last_sample_before(&out, SimTime(Delta::from_ms(1).ps()));
    // One full data packet per credit: the sender's link carries at most its
    // data share, and nearly all of it.
    assert_within_data_share(goodput(&out, from, to), 0.9, "sender data");
}

#[test]
fn data_credits_and_acks_into_one_port_fit_it_without_a_standing_queue() {
    // Host 0 sends to host 1 and host 1 to host 2: the switch's port to host 1
    // carries flow 0->1's data (from host 0) and flow 1->2's credits and ACKs
    // (from host 2). A credit share that left the ACKs out offered that port
    // ~106 % of its rate and its queue grew for as long as the flows lasted
    // (205 KB with 4 MB flows).
    let text = two_flows_on_a_3_host_star([(0, 1), (1, 2)], "4MB");
    let out = run_with(&text, &[], &RunOptions::default());
    assert_all_delivered(&out);
    let s = &out.summary;
    assert_eq!(s.drops, 0);
    assert!(
        s.max_queue_bytes <= 4 * 1126,
        "max queue {} B",
        s.max_queue_bytes
    );
}

/// Jain's fairness index of `x`.
fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn four_flows_into_one_receiver_share_it_evenly() {
    let out = run_with(FAIR, &[], &traced());
    let from = SimTime(Delta::from_us(500).ps());
    let to = last_sample_before(&out, SimTime(Delta::from_ms(3).ps()));
    let per_flow: Vec<f64> = (0..4)
        .map(|f| {
            let b = delivered_at(&out, to, |g| g == f) - delivered_at(&out, from, |g| g == f);
            b as f64 * 8.0 / to.since(from).as_secs_f64()
        })
        .collect();
    let j = jain(&per_flow);
    assert!(j >= 0.9, "Jain {j:.4}, rates {per_flow:?}");
    let total: f64 = per_flow.iter().sum();
    assert!(total >= 0.95 * 100e9 * PAYLOAD_SHARE, "{total}");
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let a = run_with(INCAST, &[], &RunOptions::default());
    let b = run_with(INCAST, &[], &RunOptions::default());
    let key = |o: &RunOutputs| {
        (
            serde_json::to_string(&o.summary).unwrap(),
            o.fct.iter().map(|f| (f.flow_id, f.fct)).collect::<Vec<_>>(),
        )
    };
    assert_eq!(key(&a), key(&b));
}

#[test]
fn expresspass_runs_on_a_fat_tree_with_symmetric_ecmp_and_refuses_another_hash_in_one_line() {
    let text = include_str!("../../scenarios/fattree-k4-fbhdp-30pct.toml");
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let o = set(&[
        "cc.algorithm=\"expresspass\"",
        "switch.pfc.enabled=false",
        "workload.poisson[0].duration=\"0.05ms\"",
    ]);
    let out = rocesim::run_str(text, &o, &RunOptions::default()).expect("runs");
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    let mut o = o;
    o.push("model.ecmp_hash=\"seeded\"".into());
    let Err(err) = rocesim::run_str(text, &o, &RunOptions::default()) else {
        panic!("a fat-tree with expresspass and a seeded hash must be refused");
    };
    let err = err.to_string();
    assert!(err.contains("model.ecmp_hash"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_short_flow_gets_half_the_credits_next_to_a_long_one_which_then_takes_them_back() {
    let out = run_with(
        include_str!("../../scenarios/expresspass-long-short.toml"),
        &[],
        &traced(),
    );
    assert_all_delivered(&out);
    assert_eq!(out.summary.drops, 0);
    let short = out.fct.iter().find(|f| f.flow_id == 1).unwrap();
    // The receiver credits both flows; each gets about half the credit rate,
    // so the short flow takes about twice its time alone at the data share
    // (1 MB at 84 Gbps of payload: 95 us, against an ideal of 89 us at line
    // rate), plus the feedback's first rounds.
    let alone = 1e6 * 8.0 / (100e9 * PAYLOAD_SHARE);
    let fct = short.fct.as_secs_f64();
    assert!(
        fct > 1.5 * alone && fct < 3.0 * alone,
        "short flow {:.1} us, alone {:.1} us",
        fct * 1e6,
        alone * 1e6
    );
    // From 100 us after the short flow leaves, the long flow has the
    // receiver's credits to itself again.
    let end = short.start + short.fct;
    let from = last_sample_before(&out, end + Delta::from_us(110));
    let to = last_sample_before(&out, end + Delta::from_us(300));
    let bytes = delivered_at(&out, to, |f| f == 0) - delivered_at(&out, from, |f| f == 0);
    let rate = bytes as f64 * 8.0 / to.since(from).as_secs_f64();
    assert_within_data_share(rate, 0.95, "long flow after the short one");
}
