//! The `ns3-hpcc` profile reproduces the HPCC ns-3 simulator's calibration
//! vectors exactly (hpcc-ns3-model.md §12): one flow between the two hosts of a
//! 100 Gbps star with 1000 ns links, payload 1000 (or 910), mix/config.txt's
//! parameters. fct is first byte queued to last ACK received; the ideal is ns-3's
//! "standalone" FCT.

use crate::common;

/// FCT and ideal (standalone) FCT in ns of a single flow of `size` bytes.
fn single_flow_ns(algorithm: &str, size: u64, payload: u32) -> (u64, u64) {
    // `profile` is a top-level key, so it goes before the star's [topology].
    let text = format!(
        "profile = \"ns3-hpcc\"\n{}",
        common::star(
            2,
            &format!(
                r#"
[nic]
mtu = {payload}
[cc]
algorithm = "{algorithm}"
[[switch.ecn.per_rate]]
rate = "100Gbps"
kmin = "400KB"
kmax = "1600KB"
pmax = 0.2
[[workload.flows]]
src = 0
dst = 1
size = {size}
[output]
queue_interval = "0s"
"#
            ),
        )
    );
    let out = common::run(&text, &[]);
    common::assert_all_delivered(&out);
    let f = &out.fct[0];
    (f.fct.ps() / 1000, f.ideal.ps() / 1000)
}

#[test]
fn hpcc_1000_bytes_takes_two_data_and_two_ack_hops() {
    assert_eq!(single_flow_ns("hpcc-ns3", 1000, 1000), (4188, 4243));
}

#[test]
fn hpcc_10000_bytes_adds_nine_serializations() {
    assert_eq!(single_flow_ns("hpcc-ns3", 10_000, 1000), (4971, 4998));
}

/// Known deviation: ns-3 reports 95685 ns; we get 95696 ns (+11 ns, 0.011 %).
/// The first RTT and the line-rate vectors match to the ns, so the difference is
/// in HPCC's rate dynamics over ~23 RTTs (likely the order of same-ns events
/// between ACK processing and the NIC's pacing wakeup, which we cannot check
/// without the ns-3 binary). docs/ns3-compat.md lists it.
#[test]
fn hpcc_1_mb_is_within_0_02_percent_of_ns3() {
    let (fct, ideal) = single_flow_ns("hpcc-ns3", 1_000_000, 1000);
    assert_eq!(ideal, 88_000, "ns-3's standalone FCT exactly");
    let err = (fct as f64 - 95_685.0).abs() / 95_685.0;
    assert!(err < 2e-4, "fct {fct} ns vs ns-3 95685 ns");
}

#[test]
fn hpcc_with_payload_910_sends_1000_byte_packets_in_79_ns() {
    assert_eq!(single_flow_ns("hpcc-ns3", 910, 910), (4172, 4220));
}

#[test]
fn dcqcn_1000_bytes_carries_no_int() {
    assert_eq!(single_flow_ns("dcqcn-ns3", 1000, 1000), (4174, 4243));
}

#[test]
fn dcqcn_10000_bytes_matches_ns3() {
    assert_eq!(single_flow_ns("dcqcn-ns3", 10_000, 1000), (4921, 4998));
}

#[test]
fn dcqcn_1_mb_runs_at_line_rate_like_ns3() {
    assert_eq!(
        single_flow_ns("dcqcn-ns3", 1_000_000, 1000),
        (87_091, 88_000)
    );
}
