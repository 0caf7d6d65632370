//! The transport's rules on plain values: no NIC, no packets, no clock.

use super::*;
use crate::cc::{CcKind, FlowCtx};
use crate::nic::irn::{IrnConfig, IrnSender};
use crate::units::Rate;

const MTU: u64 = 1000;

fn transport(ack: AckRule, recovery: LossRecovery) -> Transport {
    Transport {
        mtu: MTU,
        ack,
        recovery,
        nack_interval: Delta::from_us(500),
        rto: Some(Delta::from_ms(1)),
        reorder: false,
    }
}

fn every(n: u32) -> AckRule {
    AckRule::EveryN {
        n,
        ack_duplicates: true,
    }
}

fn us(t: u64) -> SimTime {
    SimTime::ZERO + Delta::from_us(t)
}

/// A sender queue pair for a `size`-byte message, with no congestion control.
fn sender(size: u64) -> SendQp {
    let ctx = FlowCtx {
        now: SimTime::ZERO,
        line_rate: Rate::from_gbps(100),
        base_rtt: Delta::from_us(5),
        pair_rtt: Delta::from_us(5),
        max_bdp: 62_500,
        pair_bdp: 62_500,
        hops: 2,
        mtu: MTU as u32,
        seed: 1,
        size: 0,
    };
    SendQp::new(
        size,
        CcKind::None(crate::cc::none::NoCcConfig).new_flow(&ctx),
        SimTime::ZERO,
    )
}

/// The receiver as the NIC drives it: the in-order counter restarts when an
/// ACK or NACK goes out.
fn receive(t: &Transport, rx: &mut RecvQp, seq: u64, size: u64, now: SimTime) -> RxOutcome {
    let payload = MTU.min(size - seq);
    let out = t.receive(rx, seq, payload, size, now);
    if out.ack || out.nack {
        rx.since_ack = 0;
    }
    out
}

#[test]
fn the_receiver_acks_every_n_in_order_packets_and_the_last_one() {
    let t = transport(every(3), LossRecovery::GoBackN);
    let mut rx = RecvQp::default();
    let size = 7 * MTU;
    let acked: Vec<u64> = (0..7)
        .filter(|k| receive(&t, &mut rx, k * MTU, size, us(*k)).ack)
        .collect();
    assert_eq!(acked, vec![2, 5, 6], "the 3rd, the 6th and the last");
    assert_eq!(rx.expected, size);
    assert_eq!(rx.delivered, size);
    assert_eq!(rx.finished_at, Some(us(6)));
}

#[test]
fn a_gap_is_nacked_once_per_expected_byte_within_the_nack_interval_and_again_after_it() {
    let t = transport(every(1), LossRecovery::GoBackN);
    let mut rx = RecvQp::default();
    let size = 10 * MTU;
    assert!(receive(&t, &mut rx, 0, size, us(0)).ack);
    // Packet 1 is lost: 2 and 3 arrive.
    let first = receive(&t, &mut rx, 2 * MTU, size, us(1));
    assert!(first.nack && !first.ack && first.fresh == 0);
    assert!(!receive(&t, &mut rx, 3 * MTU, size, us(2)).nack);
    // Just inside the interval: still quiet; at its end: NACKed again.
    assert!(!receive(&t, &mut rx, 4 * MTU, size, us(500)).nack);
    assert!(receive(&t, &mut rx, 5 * MTU, size, us(501)).nack);
    assert_eq!(rx.expected, MTU, "nothing past the gap is accepted");
    // The hole fills; a new gap further on is a new expected byte: NACKed at once.
    assert!(receive(&t, &mut rx, MTU, size, us(502)).ack);
    assert!(receive(&t, &mut rx, 3 * MTU, size, us(503)).nack);
}

#[test]
fn go_back_n_rewinds_snd_nxt_to_snd_una_on_a_nack() {
    let t = transport(every(1), LossRecovery::GoBackN);
    let mut qp = sender(10 * MTU);
    for k in 0..5 {
        let s = t.next_segment(&mut qp, us(0));
        assert_eq!((s.seq, s.payload, s.retx), (k * MTU, MTU as u32, false));
    }
    // The receiver holds 0..2000 and NACKs (expects 2000).
    let newly = t.on_ack(&mut qp, 2 * MTU, Some(0), us(1));
    assert_eq!(newly, 2 * MTU);
    assert_eq!((qp.snd_una, qp.snd_nxt, qp.nacks), (2 * MTU, 2 * MTU, 1));
    let s = t.next_segment(&mut qp, us(1));
    assert_eq!((s.seq, s.retx), (2 * MTU, true));
    assert_eq!(qp.retx_bytes, MTU);
}

#[test]
fn go_back_n_rewinds_on_a_timeout_and_rearms_the_rto() {
    let t = transport(every(1), LossRecovery::GoBackN);
    let mut qp = sender(10 * MTU);
    for _ in 0..3 {
        t.next_segment(&mut qp, us(0));
    }
    assert_eq!(qp.rto_at, us(1000), "armed by the first packet, 1 ms");
    t.on_ack(&mut qp, MTU, None, us(3));
    assert_eq!(qp.rto_at, us(1003), "an ACK that moves snd_una restarts it");
    assert!(t.on_timeout(&mut qp, us(1003)));
    assert_eq!((qp.snd_una, qp.snd_nxt, qp.timeouts), (MTU, MTU, 1));
    assert_eq!(qp.rto_at, us(2003));
    // Nothing outstanding: a timeout does nothing and disarms.
    t.on_ack(&mut qp, 3 * MTU, None, us(2000));
    assert!(!t.on_timeout(&mut qp, us(2003)));
    assert_eq!(qp.rto_at, SimTime::MAX);
}

#[test]
fn go_back_0_drops_the_partial_message_and_the_sender_restarts_from_byte_zero() {
    let t = transport(every(1), LossRecovery::GoBack0);
    let mut rx = RecvQp::default();
    let size = 5 * MTU;
    receive(&t, &mut rx, 0, size, us(0));
    receive(&t, &mut rx, MTU, size, us(1));
    let out = receive(&t, &mut rx, 3 * MTU, size, us(2));
    assert!(out.nack);
    assert_eq!(rx.expected, 0, "the receiver dropped what it had");
    let mut qp = sender(size);
    for _ in 0..4 {
        t.next_segment(&mut qp, us(0));
    }
    t.on_ack(&mut qp, 2 * MTU, None, us(1));
    t.on_ack(&mut qp, rx.expected, Some(0), us(3));
    assert_eq!((qp.snd_una, qp.snd_nxt), (0, 0));
    let s = t.next_segment(&mut qp, us(3));
    assert_eq!((s.seq, s.retx), (0, true));
    // A timeout goes back to byte 0 as well.
    let mut qp = sender(size);
    for _ in 0..4 {
        t.next_segment(&mut qp, us(0));
    }
    t.on_ack(&mut qp, 2 * MTU, None, us(1));
    assert!(t.on_timeout(&mut qp, us(1001)));
    assert_eq!((qp.snd_una, qp.snd_nxt), (0, 0));
}

#[test]
fn delivered_bytes_count_each_byte_once_when_go_back_0_delivers_a_prefix_again() {
    let t = transport(every(1), LossRecovery::GoBack0);
    let mut rx = RecvQp::default();
    let size = 4 * MTU;
    let mut fresh = 0;
    for (k, at) in [(0, 0), (1, 1), (3, 2), (0, 3), (1, 4), (2, 5), (3, 6)] {
        fresh += receive(&t, &mut rx, k * MTU, size, us(at)).fresh;
    }
    assert_eq!(fresh, size);
    assert_eq!(rx.delivered, size);
}

#[test]
fn a_duplicate_is_acked_again_only_with_ack_duplicates_and_delivers_nothing() {
    for ack_duplicates in [true, false] {
        let t = transport(
            AckRule::EveryN {
                n: 1,
                ack_duplicates,
            },
            LossRecovery::GoBackN,
        );
        let mut rx = RecvQp::default();
        receive(&t, &mut rx, 0, 3 * MTU, us(0));
        let dup = receive(&t, &mut rx, 0, 3 * MTU, us(1));
        assert_eq!((dup.ack, dup.nack, dup.fresh), (ack_duplicates, false, 0));
        assert_eq!(rx.delivered, MTU);
    }
}

fn irn() -> Transport {
    transport(every(1), LossRecovery::Irn(IrnConfig::default()))
}

#[test]
fn irn_keeps_out_of_order_packets_nacks_each_with_its_sack_and_delivers_them_when_the_hole_fills() {
    let t = irn();
    let mut rx = RecvQp {
        irn: t.new_receiver(Some(64), 0),
        ..RecvQp::default()
    };
    let size = 5 * MTU;
    receive(&t, &mut rx, 0, size, us(0));
    // Packet 1 is lost; 2 and 3 are kept, each NACKed with its own SACK.
    for k in [2, 3] {
        let out = receive(&t, &mut rx, k * MTU, size, us(k));
        assert_eq!((out.nack, out.sack, out.fresh), (true, k, 0));
        assert_eq!(rx.expected, MTU);
    }
    let out = receive(&t, &mut rx, MTU, size, us(4));
    assert!(out.ack && out.in_order);
    assert_eq!(out.fresh, 3 * MTU, "1, and the kept 2 and 3");
    assert_eq!(rx.expected, 4 * MTU);
}

#[test]
fn an_irn_sender_resends_only_the_lost_packet_then_continues_with_new_data() {
    let t = irn();
    let mut qp = sender(10 * MTU);
    qp.irn = Some(IrnSender::new(64));
    for _ in 0..5 {
        t.next_segment(&mut qp, us(0));
    }
    // 1 lost: ACK for 0, then NACKs (cum 1000) with SACKs 2, 3, 4.
    t.on_ack(&mut qp, MTU, None, us(1));
    for k in 2..5 {
        t.on_ack(&mut qp, MTU, Some(k), us(1));
    }
    assert_eq!(qp.snd_nxt, 5 * MTU, "IRN does not go back");
    let s = t.next_segment(&mut qp, us(2));
    assert_eq!((s.seq, s.retx), (MTU, true));
    let s = t.next_segment(&mut qp, us(2));
    assert_eq!((s.seq, s.retx), (5 * MTU, false));
    assert_eq!(qp.retx_bytes, MTU);
}

#[test]
fn irn_uses_rto_low_with_few_packets_outstanding_and_rto_high_otherwise() {
    let t = irn();
    let c = IrnConfig::default();
    let mut qp = sender(10 * MTU);
    qp.irn = Some(IrnSender::new(64));
    for k in 1..=c.low_packets as u64 {
        t.next_segment(&mut qp, us(0));
        assert_eq!(qp.in_flight(), k * MTU);
        assert_eq!(t.rto(&qp), Some(c.rto_low), "{k} outstanding");
    }
    t.next_segment(&mut qp, us(0));
    assert_eq!(t.rto(&qp), Some(c.rto_high), "N + 1 outstanding");
    assert_eq!(c.rto_low, Delta::from_us(100));
    assert_eq!(c.rto_high, Delta::from_us(320));
}

fn ns3(interval_bytes: u64, chunk: u64, back_to_zero: bool) -> Transport {
    transport(
        AckRule::Ns3(Ns3Ack {
            interval_bytes,
            chunk,
            back_to_zero,
        }),
        LossRecovery::GoBackN,
    )
}

#[test]
fn the_ns3_rule_acks_at_chunk_boundaries_and_every_packet_past_the_milestone() {
    let t = ns3(5 * MTU, 2 * MTU, false);
    let mut rx = RecvQp::default();
    let size = 8 * MTU;
    let acked: Vec<u64> = (0..8)
        .filter(|k| receive(&t, &mut rx, k * MTU, size, us(*k)).ack)
        .map(|k| (k + 1) * MTU)
        .collect();
    // Expected bytes 2000 and 4000 are chunk boundaries; from 5000 on, the milestone.
    assert_eq!(acked, vec![2000, 4000, 5000, 6000, 7000, 8000]);
}

#[test]
fn ns3_back_to_zero_rounds_the_receiver_and_the_acknowledgement_down_to_a_chunk() {
    let t = ns3(1, 2 * MTU, true);
    let mut rx = RecvQp::default();
    let size = 8 * MTU;
    for k in 0..3 {
        receive(&t, &mut rx, k * MTU, size, us(k));
    }
    let out = receive(&t, &mut rx, 4 * MTU, size, us(3));
    assert!(out.nack);
    assert_eq!(rx.expected, 2 * MTU, "3000 rounds down to the 2000 chunk");
    assert_eq!(t.acked_seq(3500), 2000);
    assert_eq!(ns3(1, 2 * MTU, false).acked_seq(3500), 3500);
    // Bytes 2000..3000 arrive again: delivered once.
    let again = receive(&t, &mut rx, 2 * MTU, size, us(4));
    assert_eq!((again.in_order, again.fresh), (true, 0));
    assert_eq!(rx.delivered, 3 * MTU);
}

#[test]
fn ns3_drops_duplicates_without_an_ack() {
    let t = ns3(1, 2 * MTU, false);
    let mut rx = RecvQp::default();
    receive(&t, &mut rx, 0, 4 * MTU, us(0));
    let dup = receive(&t, &mut rx, 0, 4 * MTU, us(1));
    assert_eq!(dup, RxOutcome::default());
}

#[test]
fn with_reorder_a_receiver_keeps_overtaking_packets_silently_and_delivers_them_when_the_hole_fills()
{
    let t = Transport {
        reorder: true,
        ..transport(every(1), LossRecovery::GoBackN)
    };
    let mut rx = RecvQp {
        irn: t.new_receiver(None, 4 * MTU),
        ..RecvQp::default()
    };
    // Packets 2 and 1 overtake packet 0 (a higher priority, another path).
    for k in [2, 1] {
        let out = t.receive(&mut rx, k * MTU, MTU, 4 * MTU, us(0));
        assert!(!out.nack && !out.ack && out.fresh == 0, "{k}: {out:?}");
    }
    let out = t.receive(&mut rx, 0, MTU, 4 * MTU, us(1));
    assert_eq!((out.ack, out.fresh, rx.expected), (true, 3 * MTU, 3 * MTU));
    let out = t.receive(&mut rx, 3 * MTU, MTU, 4 * MTU, us(2));
    assert_eq!((out.fresh, rx.finished_at), (MTU, Some(us(2))));
}
