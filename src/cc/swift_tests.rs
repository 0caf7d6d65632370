use super::*;
use crate::cc::test_util::{delay_ack, flow_ctx};
use crate::cc::{CcSection, CongestionControl};

const MSS: f64 = 1000.0;

/// 100 Gbps, base RTT 5 us, two links, 1000-byte payloads.
fn swift() -> Swift {
    Swift::new(&SwiftConfig::default(), &flow_ctx(100, 5, 5))
}

fn us(t: f64) -> SimTime {
    SimTime((t * 1e6).round() as u64)
}

/// An ACK at `now_us` for `newly` bytes whose data packet left `delay_us` earlier.
fn ack(now_us: f64, delay_us: f64, newly: u64) -> AckInfo<'static> {
    delay_ack(us(now_us), us(now_us - delay_us), newly)
}

fn nack(now_us: f64, delay_us: f64) -> AckInfo<'static> {
    AckInfo {
        is_nack: true,
        ..ack(now_us, delay_us, 0)
    }
}

/// Equal within a part per million (times are whole picoseconds).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
}

#[test]
fn the_first_window_is_line_rate_times_the_base_rtt_at_line_rate() {
    let s = swift();
    // 100 Gbps x 5 us.
    assert_eq!(s.window(), Some(62_500));
    assert_eq!(s.rate(), Rate::from_gbps(100));
    let c = SwiftConfig {
        init_cwnd: Some(Bytes(15_000)),
        ..SwiftConfig::default()
    };
    assert_eq!(Swift::new(&c, &flow_ctx(100, 5, 5)).window(), Some(15_000));
}

#[test]
fn the_flow_term_is_fs_range_at_fs_min_cwnd_and_vanishes_at_fs_max_cwnd() {
    let mut s = swift();
    let base = 5e6; // the flow's base RTT, ps
    let hops = 2.0 * base / 6.55;
    let fs_range = 5.0 * base;
    s.cwnd = 0.1 * MSS;
    assert!(close(s.target_ps(), base + hops + fs_range));
    s.cwnd = 0.01 * MSS; // below fs_min_cwnd: clamped
    assert!(close(s.target_ps(), base + hops + fs_range));
    s.cwnd = 100.0 * MSS;
    assert!((s.target_ps() - (base + hops)).abs() < 1e-3);
    s.cwnd = 500.0 * MSS; // above fs_max_cwnd: clamped at 0
    assert!(close(s.target_ps(), base + hops));
    // In between, a smaller window is allowed a larger delay.
    let mut last = f64::INFINITY;
    for pkts in [0.2, 1.0, 4.0, 16.0, 64.0] {
        s.cwnd = pkts * MSS;
        let t = s.target_ps();
        assert!(t < last && t > base + hops, "{pkts} packets: {t}");
        last = t;
    }
}

#[test]
fn each_link_of_the_path_adds_h_to_the_target() {
    let one = |hops| {
        let ctx = FlowCtx {
            hops,
            ..flow_ctx(100, 5, 5)
        };
        Swift::new(&SwiftConfig::default(), &ctx).target_ps()
    };
    assert!(close(one(6) - one(2), 4.0 * 5e6 / 6.55));
    let fixed = SwiftConfig {
        base_delay: Some(Delta::from_us(20)),
        hop_delay: Some(Delta::from_us(1)),
        ..SwiftConfig::default()
    };
    let s = Swift::new(&fixed, &flow_ctx(100, 5, 5));
    // htsim's base and our h, whatever the flow's own RTT; 62.5 packets.
    let fs = 100e6 / (1.0 / 0.1f64.sqrt() - 0.1) * (1.0 / 62.5f64.sqrt() - 0.1);
    assert!(close(s.target_ps(), 20e6 + 2e6 + fs));
}

#[test]
fn below_the_target_a_window_of_acks_adds_about_ai_packets() {
    let mut s = swift();
    s.cwnd = 10.0 * MSS;
    let before = s.cwnd;
    s.on_ack(&ack(10.0, 5.0, 1000));
    // One ACK: cwnd += ai x mss x acked / cwnd.
    assert!(close(s.cwnd(), before + MSS * 1000.0 / before));
    // A whole window of ACKs below the target: about one packet more.
    let mut s = swift();
    s.cwnd = 10.0 * MSS;
    for i in 0..10 {
        s.on_ack(&ack(10.0 + i as f64, 5.0, 1000));
    }
    let grown = s.cwnd() - 10.0 * MSS;
    assert!(grown > 0.95 * MSS && grown <= MSS, "{grown}");
}

#[test]
fn below_one_mss_each_acked_byte_adds_ai_bytes() {
    let mut s = swift();
    s.cwnd = 400.0;
    s.on_ack(&ack(10.0, 5.0, 100));
    assert!(close(s.cwnd(), 500.0));
}

#[test]
fn above_the_target_the_cut_is_beta_times_the_excess_over_the_delay_once_per_rtt() {
    let mut s = swift();
    let target_us = s.target_ps() / 1e6;
    let delay = 1.5 * target_us;
    let w0 = s.cwnd();
    s.on_ack(&ack(100.0, delay, 1000));
    // 1 - 0.8 x (0.5 / 1.5).
    let f = 1.0 - 0.8 * (delay - target_us) / delay;
    assert!(close(s.cwnd(), w0 * f), "{} vs {}", s.cwnd(), w0 * f);
    // Less than one srtt (= the delay, the only sample) later: no second cut.
    let w1 = s.cwnd();
    s.on_ack(&ack(100.0 + 0.9 * delay, delay, 1000));
    assert_eq!(s.cwnd(), w1);
    // Once srtt has passed since the cut, the next congested ACK cuts again.
    let target_us = s.target_ps() / 1e6;
    let later = 100.0 + 1.01 * delay;
    s.on_ack(&ack(later, 1.5 * target_us, 1000));
    assert!(s.cwnd() < w1);
}

#[test]
fn a_delay_far_above_the_target_cuts_by_max_mdf_at_most() {
    let mut s = swift();
    let w0 = s.cwnd();
    s.on_ack(&ack(1000.0, 900.0, 1000));
    assert!(close(s.cwnd(), w0 * 0.5));
    let mut s = Swift::new(
        &SwiftConfig {
            max_mdf: 0.2,
            ..SwiftConfig::default()
        },
        &flow_ctx(100, 5, 5),
    );
    s.on_ack(&ack(1000.0, 900.0, 1000));
    assert!(close(s.cwnd(), w0 * 0.8));
}

#[test]
fn below_one_mss_the_nic_paces_one_packet_per_srtt_times_mss_over_cwnd() {
    let mut s = swift();
    s.on_send(SimTime::ZERO, 1062);
    s.on_ack(&ack(10.0, 8.0, 1000)); // srtt = 8 us
    s.cwnd = 250.0; // a quarter packet
    s.apply_limits(us(10.0), 250.0);
    assert_eq!(s.window(), None, "the pacer, not a window, sends");
    // One full packet every 8 us x 1000 / 250 = 32 us.
    let gap = s.rate().tx_time(1062);
    assert!((gap.as_us_f64() - 32.0).abs() < 1e-3, "{gap}");
    // Back at one MSS: a window, at line rate.
    s.cwnd = MSS;
    s.apply_limits(us(11.0), 250.0);
    assert_eq!(s.window(), Some(1000));
    assert_eq!(s.rate(), Rate::from_gbps(100));
}

#[test]
fn timeouts_cut_by_max_mdf_once_per_rtt_and_reset_to_min_cwnd_at_the_threshold() {
    let mut s = swift();
    s.on_ack(&ack(10.0, 5.0, 1000)); // srtt = 5 us
    let w0 = s.cwnd();
    s.on_timeout(us(100.0));
    assert!(close(s.cwnd(), w0 * 0.5));
    s.on_timeout(us(102.0)); // within srtt of the cut
    assert!(close(s.cwnd(), w0 * 0.5));
    s.on_timeout(us(110.0));
    assert!(close(s.cwnd(), w0 * 0.25));
    s.on_timeout(us(120.0));
    assert!(close(s.cwnd(), w0 * 0.125));
    // The fifth timeout in a row: the smallest window, paced.
    s.on_timeout(us(130.0));
    assert_eq!(s.cwnd(), 10.0);
    assert_eq!(s.window(), None);
}

#[test]
fn an_ack_resets_the_count_of_timeouts_in_a_row() {
    let mut s = swift();
    for t in 1..=4 {
        s.on_timeout(us(100.0 * t as f64));
    }
    s.on_ack(&ack(500.0, 5.0, 1000));
    let w = s.cwnd();
    s.on_timeout(us(600.0));
    assert!(close(s.cwnd(), w * 0.5), "not reset: {}", s.cwnd());
}

#[test]
fn a_nack_cuts_by_max_mdf_once_per_rtt_and_never_increases() {
    let mut s = swift();
    let w0 = s.cwnd();
    // A NACK whose delay is below the target still cuts: it signals a loss.
    s.on_ack(&nack(10.0, 5.0));
    assert!(close(s.cwnd(), w0 * 0.5));
    s.on_ack(&nack(12.0, 5.0));
    assert!(close(s.cwnd(), w0 * 0.5));
    s.on_ack(&nack(16.0, 5.0));
    assert!(close(s.cwnd(), w0 * 0.25));
}

#[test]
fn the_window_stays_within_min_cwnd_and_max_cwnd() {
    let mut s = swift();
    for i in 0..40 {
        s.on_ack(&ack(1000.0 * (i + 1) as f64, 900.0, 1000));
    }
    assert_eq!(s.cwnd(), 10.0);
    let mut s = Swift::new(
        &SwiftConfig {
            max_cwnd: 70.0,
            ..SwiftConfig::default()
        },
        &flow_ctx(100, 5, 5),
    );
    for i in 0..10_000 {
        s.on_ack(&ack(10.0 + i as f64 * 1e-3, 5.0, 1000));
    }
    assert_eq!(s.window(), Some(70_000));
}

#[test]
fn a_bad_parameter_names_its_field_in_one_line() {
    let mut c = CcSection {
        algorithm: "swift".into(),
        ..CcSection::default()
    };
    c.swift.max_mdf = 1.0;
    let (field, msg) = c.resolve().unwrap_err();
    assert_eq!(field, "cc.swift.max_mdf");
    assert!(msg.contains("(0, 1)") && !msg.contains('\n'), "{msg}");
    c.swift = SwiftConfig {
        fs_min_cwnd: 200.0,
        ..SwiftConfig::default()
    };
    assert_eq!(c.resolve().unwrap_err().0, "cc.swift.fs_min_cwnd");
    c.swift = SwiftConfig {
        base_delay: Some(Delta::ZERO),
        ..SwiftConfig::default()
    };
    assert_eq!(c.resolve().unwrap_err().0, "cc.swift.base_delay");
}
