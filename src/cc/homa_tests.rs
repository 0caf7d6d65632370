use super::*;

fn plan(overcommit: u32) -> HomaPlan {
    let cfg = HomaConfig {
        overcommit: Some(overcommit),
        ..HomaConfig::default()
    };
    HomaPlan::resolve("homa", &cfg).unwrap()
}

fn arrival(fid: u32, sender: u32, size: u64, seq: u64) -> HomaArrival {
    HomaArrival {
        fid: FlowId(fid),
        sender: NodeId(sender),
        size,
        seq,
        payload: 1000.min(size - seq),
        mtu: 1000,
        rtt_bytes: 10_000,
        now: SimTime::ZERO,
    }
}

#[test]
fn the_default_splits_seven_levels_into_six_scheduled_and_one_unscheduled() {
    let p = plan(7);
    assert_eq!((p.sched, p.unsched_levels()), (6, 1));
    let p = plan(2);
    assert_eq!((p.sched, p.unsched_levels()), (2, 5));
}

#[test]
fn scheduled_levels_are_right_aligned_so_the_lowest_are_used_first() {
    let p = plan(7); // levels 0..7, scheduled 1..=6
    assert_eq!(p.sched_prio(0, 1), 6);
    assert_eq!([0, 1].map(|r| p.sched_prio(r, 2)), [5, 6]);
    // Seven granted senders, six levels: the last two share the lowest.
    assert_eq!(
        (0..7).map(|r| p.sched_prio(r, 7)).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 6]
    );
}

#[test]
fn cutoffs_split_the_unscheduled_bytes_into_equal_shares_by_size() {
    // 100 messages of 1 KB (100 KB unscheduled), 10 of 10 KB (100 KB), 5 of
    // 1 MB (50 KB unscheduled at 10 KB each, 50 KB).
    let mut msgs = vec![(1_000, 1_000); 100];
    msgs.extend(vec![(10_000, 10_000); 10]);
    msgs.extend(vec![(1_000_000, 10_000); 5]);
    let c = unsched_cutoffs(5, msgs.iter().copied());
    // 250 KB in 5 shares of 50 KB: the first two end in the 1 KB messages,
    // the next two in the 10 KB ones.
    assert_eq!(c, [1_000, 1_000, 10_000, 10_000]);
    let mut p = plan(2);
    p.cutoffs = c;
    assert_eq!(p.unsched_prio(500), 0);
    assert_eq!(p.unsched_prio(5_000), 2);
    assert_eq!(p.unsched_prio(2_000_000), 4);
    // One size only: every message at the top level.
    let c = unsched_cutoffs(5, vec![(64_000, 10_000); 16].into_iter());
    assert_eq!(c, [64_000; 4]);
    assert!(unsched_cutoffs(1, msgs.into_iter()).is_empty());
}

#[test]
fn the_sender_sends_rtt_bytes_then_only_what_is_granted_at_the_grants_priority() {
    let p = plan(7);
    let ctx = FlowCtx {
        size: 50_000,
        pair_bdp: 9_500,
        ..crate::cc::test_util::flow_ctx(100, 1, 1)
    };
    let mut s = p.new_flow(&ctx);
    assert_eq!(s.send_limit(), Some(10_000), "RTTbytes up to whole packets");
    assert_eq!(s.data_class(0), Some(1), "unscheduled: top level, class 1");
    assert_eq!(
        s.data_class(10_000),
        Some(7),
        "scheduled before any grant: lowest"
    );
    let mut ack = crate::cc::test_util::delay_ack(SimTimeZ, SimTimeZ, 0);
    ack.grant = Some((12_000, 5));
    s.on_ack(&ack);
    assert_eq!(s.send_limit(), Some(12_000));
    assert_eq!(s.data_class(11_000), Some(6));
    ack.grant = Some((11_000, 6)); // a late, older grant never takes back bytes
    s.on_ack(&ack);
    assert_eq!(s.send_limit(), Some(12_000));
    assert_eq!(s.rate(), ctx.line_rate);
}

#[allow(non_upper_case_globals)]
const SimTimeZ: crate::units::SimTime = crate::units::SimTime::ZERO;

#[test]
fn the_receiver_grants_the_shortest_remaining_message_of_each_of_the_top_senders() {
    let p = plan(2);
    let mut rx = HomaRx::default();
    let mut g = Vec::new();
    // Three senders' messages: 100 KB, 40 KB, 70 KB (10 KB unscheduled each).
    for (fid, size) in [(0, 100_000), (1, 40_000), (2, 70_000)] {
        assert_ne!(
            rx.on_data(&arrival(fid, fid + 1, size, 0)),
            Arrival::Duplicate
        );
    }
    rx.grants(&p, 1000, &mut g);
    // Overcommit 2: the 40 KB then the 70 KB; each up to received + 10 KB.
    assert_eq!(
        g,
        [
            Grant {
                fid: FlowId(1),
                offset: 11_000,
                prio: 5
            },
            Grant {
                fid: FlowId(2),
                offset: 11_000,
                prio: 6
            },
        ]
    );
    g.clear();
    rx.grants(&p, 1000, &mut g);
    assert!(g.is_empty(), "RTTbytes outstanding each: nothing more");
    for (fid, out) in rx.outstanding() {
        assert!(out <= 10_000, "{fid:?}: {out}");
    }
}

#[test]
fn a_second_message_of_a_granted_sender_waits_and_a_finished_message_frees_its_slot() {
    let p = plan(1);
    let mut rx = HomaRx::default();
    let mut g = Vec::new();
    rx.on_data(&arrival(0, 1, 20_000, 0));
    rx.on_data(&arrival(1, 1, 30_000, 0)); // same sender
    rx.on_data(&arrival(2, 2, 40_000, 0));
    rx.grants(&p, 1000, &mut g);
    assert_eq!(g.iter().map(|g| g.fid.0).collect::<Vec<_>>(), [0]);
    // Message 0 arrives in full, out of order: it completes and message 1
    // (30 KB) now ranks first.
    for k in (1..20).rev() {
        rx.on_data(&arrival(0, 1, 20_000, k * 1000));
    }
    assert_eq!(
        rx.on_data(&arrival(1, 1, 30_000, 0)),
        Arrival::Duplicate,
        "a duplicate counts once"
    );
    assert_eq!(rx.active(), 2);
    g.clear();
    rx.grants(&p, 1000, &mut g);
    assert_eq!(
        g.iter().map(|g| (g.fid.0, g.offset)).collect::<Vec<_>>(),
        [(1, 11_000)]
    );
}

#[test]
fn bad_parameters_name_their_field() {
    let bad = |f: fn(&mut HomaConfig)| {
        let mut c = HomaConfig::default();
        f(&mut c);
        HomaPlan::resolve("homa", &c).unwrap_err().0
    };
    assert_eq!(bad(|c| c.overcommit = Some(0)), "overcommit");
    assert_eq!(bad(|c| c.priorities = 8), "priorities");
    assert_eq!(bad(|c| c.sched_priorities = Some(7)), "sched_priorities");
    assert_eq!(bad(|c| c.rtt_bytes = Some(Bytes(0))), "rtt_bytes");
}

#[test]
fn the_last_rtt_bytes_to_grant_go_at_the_unscheduled_level_of_what_is_left() {
    let p = plan(7); // one unscheduled level (0): the tail goes at level 0
    let mut rx = HomaRx::default();
    let mut g = Vec::new();
    rx.on_data(&arrival(0, 1, 15_000, 0)); // 5 KB left to grant after RTTbytes
    rx.on_data(&arrival(1, 2, 90_000, 0));
    rx.grants(&p, 1000, &mut g);
    assert_eq!(
        g.iter().map(|g| (g.fid.0, g.prio)).collect::<Vec<_>>(),
        [(0, 0), (1, 6)]
    );
}

#[test]
fn whatever_order_packets_arrive_in_no_message_has_more_than_rtt_bytes_granted_and_unreceived() {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    let p = plan(3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut rx = HomaRx::default();
    let sizes = [25_000u64, 60_000, 33_000, 120_000, 8_000, 47_000];
    // Packets the senders may send and have not: (fid, seq), in a shuffled
    // "network" that delivers them in random order.
    let mut net: Vec<(u32, u64)> = Vec::new();
    let mut sent = [0u64; 6];
    for (f, &s) in sizes.iter().enumerate() {
        sent[f] = s.min(10_000);
        net.extend((0..sent[f]).step_by(1000).map(|q| (f as u32, q)));
    }
    let mut g = Vec::new();
    let mut done = 0;
    while let Some(i) = (!net.is_empty()).then(|| rng.random_range(0..net.len())) {
        let (f, seq) = net.swap_remove(i);
        let size = sizes[f as usize];
        assert_ne!(
            rx.on_data(&arrival(f, f + 1, size, seq)),
            Arrival::Duplicate
        );
        done += 1000.min(size - seq);
        g.clear();
        rx.grants(&p, 1000, &mut g);
        for gr in &g {
            let f = gr.fid.0 as usize;
            net.extend((sent[f]..gr.offset).step_by(1000).map(|q| (f as u32, q)));
            sent[f] = gr.offset;
        }
        net.shuffle(&mut rng);
        for (fid, out) in rx.outstanding() {
            assert!(out <= 10_000, "{fid:?}: {out} granted and not received");
        }
    }
    assert_eq!(done, sizes.iter().sum::<u64>(), "every byte arrives");
    assert_eq!(rx.active(), 0);
}

#[test]
fn the_overcommitment_follows_the_workload_unless_given() {
    let mut p = HomaPlan::resolve("homa", &HomaConfig::default()).unwrap();
    p.fit_workload(&["homa-w1"]);
    assert_eq!((p.overcommit, p.sched, p.unsched_levels()), (1, 1, 6));
    p.fit_workload(&["homa-w3", "fb-webserver"]);
    assert_eq!((p.overcommit, p.sched), (6, 6));
    p.fit_workload(&[]);
    assert_eq!((p.overcommit, p.sched), (7, 6));
    let mut p = plan(2);
    p.fit_workload(&["homa-w1"]);
    assert_eq!(p.overcommit, 2, "given: kept");
}

#[test]
fn a_message_owing_bytes_gets_a_resend_after_an_interval_of_silence_and_not_before() {
    let mut rx = HomaRx::default();
    let iv = Delta::from_us(100);
    let at = |us: u64| SimTime(Delta::from_us(us).ps());
    let next = |us: u64, now: bool| Resend::Next { at: at(us), now };
    let mut a = arrival(0, 1, 20_000, 0);
    a.now = at(10);
    assert_eq!(rx.on_data(&a), Arrival::Opened);
    // 10 KB unscheduled owed, one packet in: quiet only from 110 us.
    assert_eq!(rx.resend_check(FlowId(0), at(60), iv), next(110, false));
    assert_eq!(rx.resend_check(FlowId(0), at(110), iv), next(210, true));
    // A RESEND restarts the silence; an arrival does too.
    assert_eq!(rx.resend_check(FlowId(0), at(150), iv), next(210, false));
    let mut b = arrival(0, 1, 20_000, 1000);
    b.now = at(200);
    assert_eq!(rx.on_data(&b), Arrival::Counted);
    assert_eq!(rx.resend_check(FlowId(0), at(210), iv), next(300, false));
    assert_eq!(rx.resend_check(FlowId(9), at(210), iv), Resend::Done);
}

#[test]
fn a_message_that_owes_nothing_waits_for_grants_without_a_resend() {
    let mut rx = HomaRx::default();
    let iv = Delta::from_us(100);
    // A 3-packet message with RTTbytes of 10 KB: everything is unscheduled;
    // once all three arrived it is complete and forgotten.
    for k in 0..3 {
        rx.on_data(&arrival(0, 1, 3_000, k * 1000));
    }
    // A one-packet message is complete on arrival: nothing to time out.
    assert_eq!(rx.on_data(&arrival(5, 3, 500, 0)), Arrival::Counted);
    assert_eq!(rx.active(), 0);
    assert_eq!(
        rx.resend_check(FlowId(0), SimTime(Delta::from_ms(5).ps()), iv),
        Resend::Done
    );
    // 20 KB, all 10 unscheduled packets in and no grant yet: owes nothing.
    for k in 0..10 {
        rx.on_data(&arrival(1, 2, 20_000, k * 1000));
    }
    let later = SimTime(Delta::from_ms(1).ps());
    assert!(matches!(
        rx.resend_check(FlowId(1), later, iv),
        Resend::Next { now: false, .. }
    ));
}
