//! A NIC driven packet by packet: a sender and a receiver NIC back to back on a
//! 100 Gbps, 1 us wire the test controls (`testkit::NicPair`), no switch.

use crate::packet::{PacketKind, flag};
use crate::port::quanta_to_time;
use crate::testkit::{Fate, NicPair, RX, Seen, TX, star};
use crate::units::{Delta, Rate, SimTime};

const LINE: Rate = Rate(100_000_000_000);
const PROP: Delta = Delta::from_us(1);
/// Payload of a full packet and its wire size (RoCEv2 headers: 62 B).
const MTU: u64 = 1000;
const DATA_WIRE: u32 = 1062;
const ACK_WIRE: u32 = 66;
const CNP_WIRE: u32 = 78;

fn us(t: u64) -> SimTime {
    SimTime::ZERO + Delta::from_us(t)
}

/// Loses the first packet that `hit` picks, delivers everything else.
fn lose_first(hit: impl Fn(&Seen) -> bool) -> impl FnMut(&Seen) -> Fate {
    let mut lost = false;
    move |s| {
        if !lost && hit(s) {
            lost = true;
            return Fate::Lose;
        }
        Fate::Deliver
    }
}

fn data(p: &NicPair) -> Vec<&Seen> {
    p.arrived(TX, PacketKind::Data)
}

#[test]
fn a_started_flow_puts_line_rate_paced_data_packets_on_its_link() {
    let mut p = NicPair::new(&star(""), 1, 4_500);
    p.start(0);
    p.run(us(20));
    let d = data(&p);
    let seqs: Vec<u64> = d.iter().map(|s| s.pkt.seq).collect();
    assert_eq!(seqs, vec![0, 1000, 2000, 3000, 4000]);
    let mut start = SimTime::ZERO;
    for (k, s) in d.iter().enumerate() {
        let last = k == 4;
        let (payload, wire) = if last { (500, 562) } else { (1000, DATA_WIRE) };
        assert_eq!((s.pkt.payload, s.pkt.wire), (payload, wire), "packet {k}");
        assert_eq!(s.pkt.has(flag::FIRST), k == 0);
        assert_eq!(s.pkt.has(flag::LAST), last);
        assert!(!s.pkt.has(flag::RETX));
        // Back to back at line rate: each starts when the previous one ends.
        assert_eq!(s.pkt.sent_at, start, "packet {k}");
        start += LINE.tx_time(wire as u64);
        assert_eq!(
            s.at,
            start + PROP,
            "store and forward: serialization + propagation"
        );
    }
    assert_eq!(p.tx.eg.tx_data_bytes, 4 * 1062 + 562);
}

#[test]
fn the_receiver_acks_every_n_in_order_packets_and_the_flow_completes_with_its_fct() {
    let mut p = NicPair::new(&star("[nic]\nack_interval = 4\n"), 1, 10 * MTU);
    p.start(0);
    p.run(us(20));
    let acks = p.arrived(RX, PacketKind::Ack);
    let seqs: Vec<u64> = acks.iter().map(|s| s.pkt.seq).collect();
    assert_eq!(
        seqs,
        vec![4000, 8000, 10_000],
        "every 4th packet and the last"
    );
    let d = data(&p);
    for a in &acks {
        // The ACK leaves the idle receiver port as its data packet lands.
        let trigger = d.iter().find(|s| s.pkt.seq + MTU == a.pkt.seq).unwrap();
        assert_eq!(a.at, trigger.at + LINE.tx_time(ACK_WIRE as u64) + PROP);
        assert_eq!(a.pkt.wire, ACK_WIRE);
        assert_eq!(a.pkt.class, 0, "ACKs travel in the control class");
        assert_eq!(
            a.pkt.sent_at, trigger.pkt.sent_at,
            "the ACK echoes the send time"
        );
    }
    assert_eq!(p.w.progress.done, 1);
    assert_eq!(p.w.stats.delivered_bytes, 10 * MTU);
    let fct = p.w.rec.fct_records();
    assert_eq!(fct.len(), 1);
    assert_eq!(
        SimTime::ZERO + fct[0].fct,
        acks[2].at,
        "FCT ends at the last ACK"
    );
    assert_eq!(
        fct[0].fct,
        LINE.tx_time(10 * DATA_WIRE as u64) + LINE.tx_time(ACK_WIRE as u64) + PROP + PROP
    );
    assert!(p.tx.active.is_empty());
}

#[test]
fn a_gap_is_nacked_and_the_go_back_n_sender_resends_from_snd_una() {
    let mut p = NicPair::new(&star(""), 1, 100 * MTU);
    p.start(0);
    p.run_until(
        us(50),
        lose_first(|s| s.pkt.kind == PacketKind::Data && s.pkt.seq == 2000),
    );
    let nacks = p.arrived(RX, PacketKind::Nack);
    assert!(!nacks.is_empty());
    let nack = nacks[0];
    assert_eq!(nack.pkt.seq, 2000, "the NACK names the first missing byte");
    let d = data(&p);
    let first_retx = d.iter().position(|s| s.pkt.has(flag::RETX)).unwrap();
    let r = d[first_retx];
    assert_eq!(r.pkt.seq, 2000, "go-back-N: back to snd_una");
    // It starts when the packet on the wire as the NACK came ends.
    assert!(r.pkt.sent_at >= nack.at && r.pkt.sent_at < nack.at + LINE.tx_time(1062));
    let high = d[..first_retx]
        .iter()
        .map(|s| s.pkt.seq + MTU)
        .max()
        .unwrap();
    // From there on every byte goes again in order.
    let after: Vec<u64> = d[first_retx..].iter().map(|s| s.pkt.seq).collect();
    let want: Vec<u64> = (2..100).map(|k| k * MTU).collect();
    assert_eq!(after, want);
    assert_eq!(
        p.w.stats.retx_bytes,
        high - 2000,
        "everything sent past the hole, once more"
    );
    assert_eq!(p.w.stats.delivered_bytes, 100 * MTU);
    assert_eq!(p.w.progress.done, 1);
}

#[test]
fn an_irn_sender_resends_only_the_lost_packet() {
    let run = star("[switch.pfc]\nenabled = false\n[nic]\nloss_recovery = \"irn\"\n");
    let mut p = NicPair::new(&run, 1, 100 * MTU);
    p.start(0);
    p.run_until(
        us(50),
        lose_first(|s| s.pkt.kind == PacketKind::Data && s.pkt.seq == 2000),
    );
    let retx: Vec<u64> = data(&p)
        .iter()
        .filter(|s| s.pkt.has(flag::RETX))
        .map(|s| s.pkt.seq)
        .collect();
    assert_eq!(retx, vec![2000]);
    let sacks: Vec<u32> = p
        .arrived(RX, PacketKind::Nack)
        .iter()
        .map(|s| s.pkt.aux)
        .collect();
    assert_eq!(
        sacks[..3],
        [3, 4, 5],
        "one NACK per out-of-order packet, with its SACK"
    );
    assert_eq!(p.w.stats.retx_bytes, MTU);
    assert_eq!(p.w.stats.delivered_bytes, 100 * MTU);
    assert_eq!(p.w.progress.done, 1);
}

#[test]
fn when_acks_stop_the_rto_fires_and_the_sender_resends() {
    let mut p = NicPair::new(&star("[nic]\nrto = \"100us\"\n"), 1, 3 * MTU);
    p.start(0);
    // The last packet is lost: no later packet reveals the gap.
    p.run_until(us(500), lose_first(|s| s.pkt.has(flag::LAST)));
    assert!(p.arrived(RX, PacketKind::Nack).is_empty());
    let acks = p.arrived(RX, PacketKind::Ack);
    let before = acks.iter().find(|s| s.pkt.seq == 2000).unwrap();
    let resent = data(&p)
        .into_iter()
        .find(|s| s.pkt.has(flag::RETX))
        .unwrap();
    assert_eq!(resent.pkt.seq, 2000);
    // The last ACK that moved snd_una restarted the RTO.
    assert_eq!(resent.pkt.sent_at, before.at + Delta::from_us(100));
    assert_eq!(p.w.stats.timeouts, 1);
    assert_eq!(p.w.progress.done, 1);
    assert_eq!(p.w.rec.fct_records()[0].timeouts, 1);
}

fn cnp_times(p: &NicPair) -> Vec<SimTime> {
    // Back to the CNP's departure from the receiver.
    p.arrived(RX, PacketKind::Cnp)
        .iter()
        .map(|s| SimTime(s.at.ps() - (PROP + LINE.tx_time(CNP_WIRE as u64)).ps()))
        .collect()
}

#[test]
fn marked_packets_get_at_most_one_cnp_per_interval_the_last_at_the_end_of_its_window() {
    // DCQCN §3.1 NP: N = 50 us (the default profile); ACKs rare, so the
    // receiver's port is idle whenever a CNP is due.
    let mut p = NicPair::new(&star("[nic]\nack_interval = 100000\n"), 1, 1_500 * MTU);
    p.start(0);
    p.run_until(us(400), |s| {
        if s.pkt.kind == PacketKind::Data {
            Fate::Mark
        } else {
            Fate::Deliver
        }
    });
    let d = data(&p);
    let (t1, tlast) = (d[0].at, d.last().unwrap().at);
    let cnps = cnp_times(&p);
    let n = Delta::from_us(50);
    assert_eq!(cnps[0], t1, "the first mark is answered at once");
    for w in cnps.windows(2) {
        assert_eq!(w[1].since(w[0]), n, "then one per window, at its end");
    }
    // The window holding the last mark ends with one more CNP, and that is all.
    let last = *cnps.last().unwrap();
    assert!(last >= tlast && last.since(tlast) < n);
    assert_eq!(p.w.stats.cnps_sent, cnps.len() as u64);
    // The sender counts the CNPs that reach it before its flow completes.
    let done = SimTime::ZERO + p.w.rec.fct_records()[0].fct;
    let before_done = p
        .arrived(RX, PacketKind::Cnp)
        .iter()
        .filter(|s| s.at <= done)
        .count();
    assert_eq!(p.w.rec.fct_records()[0].cnps as usize, before_done);
}

#[test]
fn a_mark_inside_the_window_gets_one_cnp_when_the_window_ends() {
    let mut p = NicPair::new(&star("[nic]\nack_interval = 100000\n"), 1, 100 * MTU);
    p.start(0);
    p.run_until(us(200), |s| match s.pkt.seq {
        0 | 10_000 | 20_000 if s.pkt.kind == PacketKind::Data => Fate::Mark,
        _ => Fate::Deliver,
    });
    let t1 = data(&p)[0].at;
    assert_eq!(cnp_times(&p), vec![t1, t1 + Delta::from_us(50)]);
}

#[test]
fn a_pause_of_the_flow_class_stops_data_and_a_resume_restarts_it() {
    let run = star("");
    let mut p = NicPair::new(&run, 1, 200 * MTU);
    p.start(0);
    p.run(us(1));
    let f = p.w.pfc(3, u16::MAX);
    p.inject(RX, f);
    // The receiver's own class 3 is paused too: its ACKs (class 0) still go.
    let f = p.w.pfc(3, u16::MAX);
    p.inject(TX, f);
    assert!(p.tx.eg.is_paused(3) && p.rx.eg.is_paused(3));
    p.run(us(5));
    let d = data(&p);
    let in_progress_end = d.last().unwrap().pkt.sent_at + LINE.tx_time(1062);
    assert!(
        d.iter().all(|s| s.pkt.sent_at < us(1)),
        "nothing starts while paused"
    );
    assert!(in_progress_end >= us(1), "the packet on the wire finishes");
    let acks_after = p
        .arrived(RX, PacketKind::Ack)
        .iter()
        .filter(|s| s.at > us(3))
        .count();
    assert!(acks_after > 0, "a data-class PAUSE does not stop ACKs");
    let sent = d.len();
    let f = p.w.pfc(3, 0);
    p.inject(RX, f);
    p.run(us(8));
    let d = data(&p);
    assert_eq!(
        d[sent].pkt.sent_at,
        us(5),
        "RESUME: the idle port sends at once"
    );
    assert_eq!(d[sent].pkt.seq, sent as u64 * MTU);
}

#[test]
fn a_timed_pause_lapses_after_its_quanta() {
    let run = star("[switch.pfc]\npause_quanta = 1000\n");
    let mut p = NicPair::new(&run, 1, 200 * MTU);
    p.start(0);
    p.run(us(1));
    let f = p.w.pfc(3, 1000);
    p.inject(RX, f);
    p.run(us(10));
    let d = data(&p);
    let resumed = d.iter().find(|s| s.pkt.sent_at >= us(1)).unwrap();
    // 1000 quanta x 512 bit at 100 Gbps = 5.12 us.
    assert_eq!(quanta_to_time(LINE, 1000), Delta::from_ns(5_120));
    assert_eq!(resumed.pkt.sent_at, us(1) + Delta::from_ns(5_120));
}

/// ACKs in the data class (`nic.ack_class = "data"`), one per packet; the
/// receiver's class 3 is paused from 2 to 6 us. Returns the ACKs back at the
/// sender by 6 us and by 8 us.
fn acks_during_a_receiver_pause(extra: &str) -> (u64, u64) {
    let mut p = NicPair::new(&star(extra), 1, 200 * MTU);
    p.start(0);
    p.run(us(2));
    let f = p.w.pfc(3, u16::MAX);
    p.inject(TX, f);
    p.run(us(6));
    let acks = |p: &NicPair| p.arrived(RX, PacketKind::Ack).len() as u64;
    let during = acks(&p);
    let f = p.w.pfc(3, 0);
    p.inject(TX, f);
    p.run(us(8));
    (during, acks(&p))
}

/// Data packets landed at the receiver by `t` (back to back from time 0).
fn landed_by(t: SimTime) -> u64 {
    t.since(SimTime::ZERO + PROP).ps() / LINE.tx_time(DATA_WIRE as u64).ps()
}

/// An ACK sent at `t` is back at the sender at `t + back`.
fn back() -> Delta {
    LINE.tx_time(ACK_WIRE as u64) + PROP
}

#[test]
fn a_pause_of_the_ack_class_holds_the_receivers_acks_until_resume() {
    let (during, after) = acks_during_a_receiver_pause("[nic]\nack_class = \"data\"\n");
    assert_eq!(
        during,
        landed_by(us(2)),
        "only ACKs that left before the pause"
    );
    // After RESUME the held ACKs leave back to back (5.28 ns each, well within
    // the second), then each data packet is ACKed as it lands.
    assert_eq!(after, landed_by(SimTime(us(8).ps() - back().ps())));
}

#[test]
fn acks_that_answer_only_to_class_0_keep_flowing_through_a_data_class_pause() {
    let (during, _) = acks_during_a_receiver_pause(
        "[nic]\nack_class = \"data\"\nack_pause_class = \"control\"\n",
    );
    assert_eq!(during, landed_by(SimTime(us(6).ps() - back().ps())));
}

#[test]
fn with_ack_flag_cnps_a_marked_packet_is_acked_at_once_with_the_cnp_flag() {
    let run = star("[nic]\nack_interval = 1000\ncnp = \"ack-flag\"\n");
    let mut p = NicPair::new(&run, 1, 20 * MTU);
    p.start(0);
    p.run_until(us(10), |s| match s.pkt.seq {
        5_000 if s.pkt.kind == PacketKind::Data => Fate::Mark,
        _ => Fate::Deliver,
    });
    assert!(p.arrived(RX, PacketKind::Cnp).is_empty());
    let acks = p.arrived(RX, PacketKind::Ack);
    let flagged: Vec<(u64, bool)> = acks
        .iter()
        .map(|s| (s.pkt.seq, s.pkt.has(flag::CNP) && s.pkt.has(flag::ECE)))
        .collect();
    // The marked packet's own ACK, then the last packet's.
    assert_eq!(flagged, vec![(6_000, true), (20_000, false)]);
}

#[test]
fn a_completed_flow_frees_its_queue_pairs_at_both_ends() {
    let mut p = NicPair::new(&star(""), 1, 10 * MTU);
    p.start(0);
    assert!(p.tx.send[0].is_some() && p.rx.recv[0].is_none());
    p.run(us(20));
    assert_eq!(p.w.progress.done, 1);
    assert!(p.tx.send[0].is_none(), "the sender's state is freed");
    assert!(
        p.rx.recv[0].is_none() && p.rx.is_closed(0),
        "so is the receiver's"
    );
}

#[test]
fn a_duplicate_reaching_a_closed_receiver_is_acked_as_the_open_one_would() {
    // The last ACK is lost: the sender times out and resends the last packet,
    // which reaches a receiver that has completed and freed its state.
    let size = 3 * MTU;
    let mut p = NicPair::new(&star("[nic]\nrto = \"100us\"\n"), 1, size);
    p.start(0);
    p.run_until(
        us(500),
        lose_first(|s| s.pkt.kind == PacketKind::Ack && s.pkt.seq == size),
    );
    let resent: Vec<u64> = data(&p)
        .iter()
        .filter(|s| s.pkt.has(flag::RETX))
        .map(|s| s.pkt.seq)
        .collect();
    assert_eq!(resent, vec![2000], "go-back-N resends from snd_una");
    let acks: Vec<u64> = p
        .arrived(RX, PacketKind::Ack)
        .iter()
        .map(|s| s.pkt.seq)
        .collect();
    assert_eq!(acks.last(), Some(&size), "the duplicate is acknowledged");
    assert_eq!(p.w.stats.delivered_bytes, size, "and not delivered twice");
    assert_eq!(p.w.progress.done, 1);
    assert_eq!(p.w.rec.fct_records()[0].timeouts, 1);
    assert!(p.rx.recv[0].is_none() && p.rx.is_closed(0));
}

#[test]
fn a_receiver_is_kept_while_its_cnp_window_is_open_and_freed_after() {
    // Flow 0's packets are all marked: its receiver completes inside a CNP
    // window (N = 50 us) and keeps its state; a packet of flow 1 after the
    // window has ended lets the NIC free it.
    let mut p = NicPair::new(&star(""), 2, 10 * MTU);
    p.start(0);
    p.run_until(us(20), |s| {
        if s.pkt.kind == PacketKind::Data && s.pkt.flow == crate::ids::FlowId(0) {
            Fate::Mark
        } else {
            Fate::Deliver
        }
    });
    assert_eq!(p.w.progress.done, 1);
    assert!(p.rx.recv[0].is_some(), "the CNP window is still open");
    p.run(us(100));
    p.start(1);
    p.run(us(120));
    assert_eq!(p.w.progress.done, 2);
    assert!(p.rx.recv[0].is_none() && p.rx.is_closed(0));
    assert!(p.rx.recv[1].is_none() && p.rx.is_closed(1));
}
