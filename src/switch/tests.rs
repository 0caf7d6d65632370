//! A switch driven packet by packet (`testkit::SwitchBench`): the test hands it
//! packets on ingress ports and reads what leaves each port.

use crate::packet::{PacketKind, flag};
use crate::port::quanta_to_time;
use crate::switch::mmu::PfcThreshold;
use crate::testkit::{SwitchBench, data, scenario, star};
use crate::units::{Delta, Rate, SimTime};

const LINE: Rate = Rate(100_000_000_000);
const PROP: Delta = Delta::from_us(1);
const WIRE: u32 = 1062;
/// A PFC frame on the wire (RoCEv2 sizes).
const PFC_WIRE: u32 = 64;

fn us(t: u64) -> SimTime {
    SimTime::ZERO + Delta::from_us(t)
}

/// The star's switch: port `p` leads to host `p` (hosts 0, 1, 2; switch node 3).
fn star_switch(extra: &str) -> SwitchBench {
    SwitchBench::new(star(extra), 0)
}

#[test]
fn ecmp_spreads_flows_evenly_over_equal_cost_next_hops_and_keeps_each_flow_on_one() {
    // Leaf 0 (node 4) reaches host 2 under leaf 1 through 4 spines (ports 2..=5).
    let run = scenario(
        "name = \"ecmp\"\n[topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 4\n\
         hosts_per_leaf = 2\nhost_rate = \"100Gbps\"\ndelay = \"1us\"\n\
         [cc]\nalgorithm = \"none\"\n\
         [[workload.incast]]\nfan_in = 2\nreceiver = 0\nsize = \"10KB\"\n",
    );
    assert_eq!(
        run.topo.routes.next_hops(0, crate::topology::NodeId(2)),
        [2, 3, 4, 5]
    );
    let mut b = SwitchBench::new(run, 0);
    let flows = 4_000u32;
    let gap = Delta::from_ns(100);
    for i in 0..flows {
        for rep in 0..2 {
            b.run_until(SimTime::ZERO + gap.times((2 * i + rep) as u64));
            b.arrive(0, data(0, 2, 10_000 + i as u16, 0, 1000, WIRE));
        }
    }
    b.run_until(us(1_000));
    let per_port: Vec<usize> = (2..6).map(|p| b.left(p, PacketKind::Data).len()).collect();
    assert_eq!(per_port.iter().sum::<usize>(), 2 * flows as usize);
    // Each flow's two packets take the same port.
    for p in 2..6 {
        let sports: Vec<u16> = b
            .left(p, PacketKind::Data)
            .iter()
            .map(|s| s.pkt.sport)
            .collect();
        assert!(sports.chunks(2).all(|c| c[0] == c[1]), "port {p}");
    }
    // Uniform hashing: each of 4 ports gets 1000 flows, std sqrt(4000 x 1/4 x 3/4) = 27.
    for (p, n) in per_port.iter().enumerate() {
        let flows_here = n / 2;
        assert!(
            flows_here.abs_diff(1000) < 4 * 27,
            "port {}: {flows_here}",
            p + 2
        );
    }
}

#[test]
fn spraying_spreads_one_flows_packets_and_acks_over_every_next_hop_and_leaves_the_rng_alone() {
    // Leaf 0 (node 4) reaches host 2 under leaf 1 through 4 spines (ports 2..=5).
    let run = scenario(
        "name = \"spray\"\n[topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 4\n\
         hosts_per_leaf = 2\nhost_rate = \"100Gbps\"\ndelay = \"1us\"\n\
         [switch]\nload_balancing = \"spray\"\n[cc]\nalgorithm = \"none\"\n\
         [[workload.incast]]\nfan_in = 2\nreceiver = 0\nsize = \"10KB\"\n",
    );
    let mut b = SwitchBench::new(run, 0);
    let rng = b.sw.rng.clone();
    let n = 4_000u32;
    for i in 0..n {
        b.run_until(SimTime::ZERO + Delta::from_ns(100).times(i as u64));
        b.arrive(0, data(0, 2, 10_000, i as u64 * 1000, 1000, WIRE));
        let mut ack = data(0, 2, 10_000, 0, 0, 64);
        (ack.kind, ack.class) = (PacketKind::Ack, 0);
        b.arrive(0, ack);
    }
    b.run_until(us(1_000));
    for kind in [PacketKind::Data, PacketKind::Ack] {
        let per_port: Vec<usize> = (2..6).map(|p| b.left(p, kind).len()).collect();
        assert_eq!(per_port.iter().sum::<usize>(), n as usize);
        // Binomial(4000, 1/4) per port: sd sqrt(4000 x 3/16) = 27.
        for (p, got) in per_port.iter().enumerate() {
            assert!(
                got.abs_diff(1000) < 5 * 27,
                "{kind:?} port {}: {got}",
                p + 2
            );
        }
    }
    assert_eq!(b.sw.rng, rng, "spraying draws from its own stream");
}

/// Leaf 0 (node 4) of a two-leaf, four-spine fabric: ports 0-1 lead to
/// hosts 0-1, ports 2-5 to the spines, its equal-cost next hops toward host 2.
fn leaf(load_balancing: &str, extra: &str) -> SwitchBench {
    let run = scenario(&format!(
        "name = \"lb\"\n[topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 4\n\
         hosts_per_leaf = 2\nhost_rate = \"100Gbps\"\ndelay = \"1us\"\n\
         [switch]\nload_balancing = \"{load_balancing}\"\n{extra}[cc]\nalgorithm = \"none\"\n\
         [[workload.incast]]\nfan_in = 2\nreceiver = 0\nsize = \"10KB\"\n"
    ));
    SwitchBench::new(run, 0)
}

#[test]
fn a_flowlet_keeps_one_uplink_and_the_next_flowlet_after_the_gap_draws_its_own() {
    let mut b = leaf("flowlet", "flowlet_gap = \"10us\"\n");
    let (rng, mut twin) = (b.sw.rng.clone(), b.sw.spray.clone());
    // 400 bursts of 5 packets 100 ns apart, a burst every 20 us: within a
    // burst less than the gap, between bursts about 19.6 us, more than it.
    let (bursts, per) = (400u64, 5u64);
    for k in 0..bursts {
        for i in 0..per {
            b.run_until(us(20 * k) + Delta::from_ns(100 * i));
            b.arrive(0, data(0, 2, 10_000, (k * per + i) * 1000, 1000, WIRE));
        }
    }
    b.run_until(us(20 * bursts + 100));
    let mut port_of_seq = std::collections::BTreeMap::new();
    for p in 2..6 {
        for s in b.left(p, PacketKind::Data) {
            port_of_seq.insert(s.pkt.seq / 1000, p);
        }
    }
    assert_eq!(port_of_seq.len() as u64, bursts * per, "every packet left");
    let mut used = [0u32; 6];
    for k in 0..bursts {
        let ports: Vec<u16> = (0..per).map(|i| port_of_seq[&(k * per + i)]).collect();
        assert!(ports.iter().all(|&p| p == ports[0]), "burst {k}: {ports:?}");
        // One draw per flowlet, from the switch's spraying stream.
        assert_eq!(Some(ports[0]), twin.next_hop(&[2, 3, 4, 5]), "burst {k}");
        used[ports[0] as usize] += 1;
    }
    assert!(
        used[2..].iter().all(|&n| n > 60),
        "flowlets spread: {used:?}"
    );
    assert_eq!(b.sw.rng, rng, "flowlets draw from their own stream");
}

#[test]
fn adaptive_routing_sends_a_flow_around_paused_uplinks_where_ecmp_queues_behind_its_own() {
    for lb in ["adaptive", "ecmp"] {
        let mut b = leaf(lb, "");
        // The spines behind ports 2, 3 and 4 pause class 3.
        for p in 2..5 {
            let f = b.w.pfc(3, u16::MAX);
            b.arrive(p, f);
        }
        // 100 packets of one flow at line rate.
        let n = 100u64;
        for k in 0..n {
            b.run_until(SimTime::ZERO + LINE.tx_time(WIRE as u64).times(k));
            b.arrive(0, data(0, 2, 10_000, k * 1000, 1000, WIRE));
        }
        b.run_until(us(50));
        let queued: Vec<u64> = (2..6).map(|p| b.sw.ports[p].bytes / WIRE as u64).collect();
        let sent = b.left(5, PacketKind::Data).len() as u64;
        if lb == "adaptive" {
            // A paused port holds at most one packet: then it is more loaded
            // than port 5, which sends each packet as it comes. (Ties at 0
            // follow the flow's hash, so an empty paused port may take none.)
            assert!(queued[..3].iter().all(|&q| q <= 1), "{lb}: {queued:?}");
            assert_eq!(queued[3], 0, "{lb}");
            assert_eq!(sent + queued.iter().sum::<u64>(), n, "{lb}");
            assert!(sent >= n - 3, "{lb}: {sent}");
        } else {
            // ECMP: the flow's one port, paused or not.
            assert_eq!(
                queued.iter().filter(|&&q| q > 0).count() + (sent > 0) as usize,
                1
            );
            assert_eq!(queued.iter().sum::<u64>() + sent, n, "{lb}");
        }
        for p in 2..5 {
            let f = b.w.pfc(3, 0);
            b.arrive(p, f);
        }
        b.run_until(us(100));
        let left: usize = (2..6).map(|p| b.left(p, PacketKind::Data).len()).sum();
        assert_eq!(left as u64, n, "{lb}: every packet left after the resume");
    }
}

#[test]
fn red_marks_nothing_below_kmin_everything_above_kmax_and_a_linear_fraction_between() {
    let mut b = star_switch(
        "[switch.ecn]\nenabled = true\nkmin = \"20KB\"\nkmax = \"200KB\"\npmax = 1.0\n",
    );
    use crate::switch::ecn::{Marker, Red};
    let red = Red {
        kmin: 20_000,
        kmax: 200_000,
        pmax: 1.0,
    };
    assert_eq!(
        b.sw.ports[0].marker,
        Marker::Red(red),
        "port 0 marks by RED"
    );
    // Host 0 pauses the switch's port 0, so the queue only grows.
    let f = b.w.pfc(3, u16::MAX);
    b.arrive(0, f);
    let n = 250u64;
    for k in 0..n {
        b.run_until(SimTime::ZERO + LINE.tx_time(WIRE as u64).times(k));
        b.arrive(1, data(1, 0, 10_000, k * 1000, 1000, WIRE));
    }
    assert_eq!(b.sw.ports[0].bytes, n * WIRE as u64);
    let f = b.w.pfc(3, 0);
    b.arrive(0, f);
    b.run_until(us(100));
    let out = b.left(0, PacketKind::Data);
    assert_eq!(out.len() as u64, n);
    // Packet k found k packets queued ahead of it (marking at enqueue).
    let mut expected = 0.0;
    let mut var = 0.0;
    let mut between = 0;
    for (k, s) in out.iter().enumerate() {
        assert_eq!(s.pkt.seq, k as u64 * 1000, "FIFO");
        let q = k as u64 * WIRE as u64;
        let marked = s.pkt.has(flag::ECN_CE);
        if q <= red.kmin {
            assert!(!marked, "q = {q} <= K_min");
        } else if q > red.kmax {
            assert!(marked, "q = {q} > K_max");
        } else {
            let p = red.pmax * (q - red.kmin) as f64 / (red.kmax - red.kmin) as f64;
            expected += p;
            var += p * (1.0 - p);
            between += marked as u32;
        }
    }
    let sd = f64::sqrt(var);
    assert!(
        (between as f64 - expected).abs() < 4.0 * sd,
        "{between} marks between K_min and K_max, Eq. 5 expects {expected:.1} +- {sd:.1}"
    );
}

#[test]
fn pfc_sends_pause_when_an_ingress_crosses_xoff_and_resume_when_it_drains_to_xon() {
    let mut b = star_switch(
        "[switch.pfc]\nthreshold = \"static\"\nstatic_threshold = \"10KB\"\nreserve = \"0B\"\n",
    );
    let PfcThreshold::Static(t) = b.sw.mmu.cfg.threshold else {
        panic!("static threshold")
    };
    let offset = b.run.flowctl.pfc.resume_offset;
    let w = WIRE as u64;
    assert_eq!(t, 10_000);
    // Port 0 is paused by host 0: what comes in on port 1 stays.
    let f = b.w.pfc(3, u16::MAX);
    b.arrive(0, f);
    // A packet is admitted to the shared pool while it fits under the
    // threshold; the first that does not goes to headroom, and that is XOFF.
    let fits = t / w;
    let total = fits + 4;
    let gap = LINE.tx_time(w);
    for k in 0..total {
        b.run_until(us(1) + gap.times(k));
        b.arrive(1, data(1, 0, 10_000, k * 1000, 1000, WIRE));
    }
    b.run_until(us(9));
    assert_eq!(b.sw.mmu.shared_bytes(1, 3), fits * w);
    assert_eq!(b.sw.mmu.headroom_bytes(1, 3), (total - fits) * w);
    let frames = b.left(1, PacketKind::Pfc);
    assert_eq!(frames.len(), 1);
    let pause = frames[0];
    assert_eq!((pause.pkt.class, pause.pkt.pause_quanta), (3, u16::MAX));
    // It left as packet `fits` (0-based) arrived.
    let sent = us(1) + gap.times(fits);
    assert_eq!(pause.at, sent + LINE.tx_time(PFC_WIRE as u64) + PROP);
    // Drain: RESUME from host 0 at 9 us. Headroom leaves first; XON when the
    // shared use is `offset` below the threshold.
    let headroom = total - fits;
    let mut shared = fits * w;
    let mut m = 0;
    while shared > 0 && shared + offset > t {
        shared -= w;
        m += 1;
    }
    let xon_departure = headroom + m; // 1-based
    let f = b.w.pfc(3, 0);
    b.arrive(0, f);
    let resumed = b.w.now;
    b.run_until(us(50));
    let frames = b.left(1, PacketKind::Pfc);
    assert_eq!(frames.len(), 2);
    let resume = frames[1];
    assert_eq!(resume.pkt.pause_quanta, 0);
    let at = resumed + gap.times(xon_departure - 1);
    assert_eq!(resume.at, at + LINE.tx_time(PFC_WIRE as u64) + PROP);
    assert_eq!(b.w.stats.pfc_pause_frames, 1);
    assert_eq!(b.w.stats.pfc_resume_frames, 1);
}

#[test]
fn int_is_stamped_at_dequeue_and_the_wire_grows_by_the_per_hop_bytes() {
    let mut b = star_switch("[packet]\nint_mode = \"per-hop\"\n[switch]\nint = true\n");
    let per_hop = b.cfg.model.sizes.int_per_hop();
    assert_eq!(per_hop, 8);
    // Three packets for host 0 arrive together at 1 us from hosts 1 and 2.
    let wire = 1000 + 62 + 2;
    b.run_until(us(1));
    b.arrive(1, data(1, 0, 10_000, 0, 1000, wire));
    b.arrive(2, data(2, 0, 10_000, 0, 1000, wire));
    b.arrive(1, data(1, 0, 10_000, 1000, 1000, wire));
    b.run_until(us(10));
    let out = b.left(0, PacketKind::Data);
    assert_eq!(out.len(), 3);
    let grown = wire + per_hop;
    let tx = LINE.tx_time(grown as u64);
    // The first leaves as it arrives, before the others; the second when the
    // first's (grown) serialization ends, the third behind it still queued; the
    // third last. Each record: its departure, the bytes the port sent before
    // it, and the queue it left behind.
    let want = [
        (us(1), 0, 0),
        (us(1) + tx, grown as u64, wire as u64),
        (us(1) + tx.times(2), 2 * grown as u64, 0),
    ];
    for (k, s) in out.iter().enumerate() {
        assert_eq!((s.pkt.n_hops, s.pkt.wire), (1, grown));
        let h = s.hops[0];
        assert_eq!(h.rate, LINE);
        assert_eq!((h.ts, h.bytes, h.qlen), want[k], "packet {k}");
        assert_eq!(s.at, want[k].0 + tx + PROP);
    }
}

#[test]
fn a_pause_stops_its_class_at_the_port_but_not_control_and_resume_restarts_it() {
    let mut b = star_switch("");
    let f = b.w.pfc(3, u16::MAX);
    b.arrive(0, f);
    assert!(b.sw.ports[0].eg.is_paused(3));
    b.run_until(us(1));
    b.arrive(1, data(1, 0, 10_000, 0, 1000, WIRE));
    let mut ack = data(1, 0, 10_000, 0, 0, 66);
    ack.kind = PacketKind::Ack;
    ack.class = 0;
    b.arrive(1, ack);
    b.run_until(us(5));
    assert!(b.left(0, PacketKind::Data).is_empty(), "class 3 waits");
    let acks = b.left(0, PacketKind::Ack);
    assert_eq!(acks.len(), 1, "class 0 is never paused");
    assert_eq!(acks[0].at, us(1) + LINE.tx_time(66) + PROP);
    let f = b.w.pfc(3, 0);
    b.arrive(0, f);
    b.run_until(us(10));
    let d = b.left(0, PacketKind::Data);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].at, us(5) + LINE.tx_time(WIRE as u64) + PROP);
}

#[test]
fn a_timed_pause_lapses_after_its_quanta() {
    let mut b = star_switch("");
    let f = b.w.pfc(3, 1000);
    b.arrive(0, f);
    b.run_until(us(1));
    b.arrive(1, data(1, 0, 10_000, 0, 1000, WIRE));
    b.run_until(us(20));
    let d = b.left(0, PacketKind::Data);
    assert_eq!(d.len(), 1);
    let expiry = SimTime::ZERO + quanta_to_time(LINE, 1000);
    assert_eq!(expiry, SimTime::ZERO + Delta::from_ns(5_120));
    assert_eq!(d[0].at, expiry + LINE.tx_time(WIRE as u64) + PROP);
    assert!(!b.sw.ports[0].eg.is_paused(3));
}
