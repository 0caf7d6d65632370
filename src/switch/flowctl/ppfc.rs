//! Predictive PFC (P-PFC, TPDS'20 §4, Algorithms 1-3), with standard PFC
//! underneath as the backstop.
//!
//! * **When** (§4.1): only while some egress queue exceeds the ECN `K_max`; then
//!   every `interval` (1 us).
//! * **Prediction** (§4.2, Alg. 1): the increment of every (ingress port, class)
//!   over the last interval (the change of what it holds: arrivals net of
//!   departures, since §4.3 rules out ports with a "negative buffer increase"),
//!   their sum, and the remaining time `free shared buffer / total increment`
//!   (per interval). Below `T` (100 us), pause. Once end-to-end control has cut
//!   the senders, the queue still grows but slowly, and the remaining time stays
//!   above `T`: P-PFC then waits, as §4.2 intends ("P-PFC would wait to see if
//!   other congestion control mechanisms would help").
//! * **Whom** (§4.3, Alg. 2): for every congested egress queue, its composition
//!   by ingress port (a scan of the queue). Ports are drawn at random in
//!   proportion to their share, skipping ports whose increment is not positive
//!   (their buffer is not growing: innocent), until the chosen share reaches `R`
//!   (80 %); only the ports drawn (marked) add to that share. A port already
//!   paused (by standard PFC, or a P-PFC pause still in force) is drawn only if
//!   its increment is still positive, and then gets no new frame.
//! * **How long** (§4.4, Alg. 3): (its bytes in the egress queue + its increment)
//!   / `Transmission_speed`, sent as pause quanta at the paused link's rate. Two
//!   readings of that speed ([`PauseTime`]): the port's share of the egress
//!   rate in the FIFO queue (default), so the pause lasts about as long as the
//!   queue takes to drain, or the whole egress rate, so it lasts as long as the
//!   port's own bytes take to send. A per-(port, class) bit suppresses repeats
//!   until that pause lapses (§6.3).
//!
//! Choices the paper leaves open: "increment > 1" (Alg. 2) is read as a positive
//! byte increment; "packets" (Alg. 3) are counted in bytes; the drawing stops when
//! no eligible port is left even if `R` is not reached; a tick is the first one
//! `interval` after activation (the increments need a baseline).

use super::pfc::Pfc;
use super::{
    Dequeue, Enqueue, FlowControl, Frame, FrameKind, PortFacts, Reaction, TickCtx, XOFF_QUANTA, ix,
    time_to_quanta,
};
use crate::port::CLASSES;
use crate::switch::mmu::Mmu;
use crate::units::{Delta, Rate, SimTime};
use rand::Rng;

/// P-PFC parameters (defaults: P-PFC Table 2 and §4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct PpfcConfig {
    /// Check period (§4.1, §6.3: 1 us).
    pub interval: Delta,
    /// Remaining-time threshold `T` (Table 2: 100 us).
    pub t: Delta,
    /// Share `R` of a congested egress queue to pause (Table 2: 80 %).
    pub r: f64,
    /// Egress queue length above which P-PFC acts; `None` = the port's ECN
    /// `K_max`, or 200 KB (Table 2) on ports that do not mark.
    pub kmax: Option<u64>,
    /// A fixed pause time instead of Alg. 3's dynamic one (`None`, the
    /// default); P-PFC Fig. 10 compares the two.
    pub fixed_pause: Option<Delta>,
    /// How Alg. 3's `Transmission_speed` is read (see [`PauseTime`]).
    pub pause_time: PauseTime,
}

/// Alg. 3, `duration = (packets[port] + increment[port]) / Transmission_speed`:
/// the speed at which the port's bytes leave the egress queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PauseTime {
    /// The port's share of the egress rate, `rate x bytes / queue`: in a FIFO
    /// queue its packets leave interleaved with everyone else's, so its bytes
    /// are out only when about the whole queue is, and the pause is close to
    /// the queue's drain time. The only reading that gives §2.3's worked
    /// example (Fig. 2c: X and Y each hold half of a queue growing by one unit
    /// per slot and draining one unit per slot; "the pause is set to be 2 time
    /// units") and the drain time of Theorem 3.2 (no throughput loss while
    /// `T_p < (q + v d*) / v_r`).
    #[default]
    FifoShare,
    /// The whole egress rate: the time the port's own bytes alone take to send
    /// (Fig. 2c would get one unit). It pauses a port with more bytes longer,
    /// as §4.4 describes for Fig. 5, but lets it resume while most of its
    /// packets still wait behind others'.
    OwnBytes,
}

impl Default for PpfcConfig {
    fn default() -> Self {
        PpfcConfig {
            interval: Delta::from_us(1),
            t: Delta::from_us(100),
            r: 0.8,
            kmax: None,
            fixed_pause: None,
            pause_time: PauseTime::default(),
        }
    }
}

/// `K_max` when neither the scenario nor the port's ECN gives one (Table 2).
pub const DEFAULT_KMAX: u64 = 200_000;

#[derive(Clone, Debug)]
pub struct Ppfc {
    cfg: PpfcConfig,
    pub(super) pfc: Pfc,
    kmax: Vec<u64>,
    rate: Vec<Rate>,
    /// Next tick, `SimTime::MAX` while inactive.
    next: SimTime,
    /// Ingress bytes per (port, class) at the last tick.
    prev: Vec<u64>,
    /// Increment per (port, class) over the last interval.
    inc: Vec<i64>,
    /// Per (port, class): a P-PFC pause is in force until then.
    suppress_until: Vec<SimTime>,
    /// Scratch: bytes of each ingress port in the egress queue being examined.
    share: Vec<u64>,
    /// Scratch: eligible (port, bytes).
    cand: Vec<(u16, u64)>,
    /// Predictive pause frames sent.
    pub sent: u64,
    /// Ticks whose remaining time was below `T`.
    pub predictions: u64,
}

impl Ppfc {
    pub fn new(cfg: PpfcConfig, pfc: Pfc, ports: &[PortFacts]) -> Ppfc {
        let n = ports.len();
        let kmax = ports
            .iter()
            .map(|p| {
                cfg.kmax
                    .unwrap_or_else(|| p.marker.marks_all_above().unwrap_or(DEFAULT_KMAX))
            })
            .collect();
        Ppfc {
            cfg,
            pfc,
            kmax,
            rate: ports.iter().map(|p| p.rate).collect(),
            next: SimTime::MAX,
            prev: vec![0; n * CLASSES],
            inc: vec![0; n * CLASSES],
            suppress_until: vec![SimTime::ZERO; n * CLASSES],
            share: vec![0; n],
            cand: Vec::new(),
            sent: 0,
            predictions: 0,
        }
    }

    fn ports(&self) -> usize {
        self.kmax.len()
    }

    /// Starts ticking: the increments are measured from now.
    fn activate(&mut self, mmu: &Mmu, now: SimTime) {
        for p in 0..self.ports() as u16 {
            for c in 1..CLASSES as u8 {
                self.prev[ix(p, c)] = mmu.ingress_bytes(p, c);
            }
        }
        self.next = now + self.cfg.interval;
    }

    fn congested(&self, mmu: &Mmu, q: u16, c: u8) -> bool {
        mmu.egress_bytes(q, c) > self.kmax[q as usize]
    }

    /// Alg. 2 and 3 for egress queue (`q`, `c`).
    fn pause_for(&mut self, ctx: &mut TickCtx<'_>, q: u16, c: u8, out: &mut Vec<Frame>) {
        let now = ctx.now;
        self.share.fill(0);
        let mut total = 0u64;
        for id in ctx.ports[q as usize].queues[c as usize].iter(ctx.pool) {
            let pkt = ctx.pool.get(id);
            self.share[pkt.ingress as usize] += pkt.wire as u64;
            total += pkt.wire as u64;
        }
        if total == 0 {
            return;
        }
        // Alg. 2: only ports whose increment is positive are marked, and only
        // marked ports add their fraction to fraction_total (lines 3-5). A port
        // already paused is no exception: while it is stopped its increment is
        // not positive, and if it still is (packets in flight) it is marked like
        // any other but gets no second frame (the repeat bit, §6.3).
        let mut chosen = 0u64;
        self.cand.clear();
        for p in 0..self.ports() as u16 {
            let bytes = self.share[p as usize];
            if bytes > 0 && self.inc[ix(p, c)] > 0 {
                self.cand.push((p, bytes));
            }
        }
        while (chosen as f64) < self.cfg.r * total as f64 && !self.cand.is_empty() {
            let sum: u64 = self.cand.iter().map(|&(_, b)| b).sum();
            let mut u = ctx.rng.random_range(0..sum);
            let k = self
                .cand
                .iter()
                .position(|&(_, b)| {
                    if u < b {
                        true
                    } else {
                        u -= b;
                        false
                    }
                })
                .expect("the draw falls on a candidate");
            let (p, bytes) = self.cand.swap_remove(k);
            chosen += bytes;
            let i = ix(p, c);
            if self.pfc.is_xoff(p, c) || self.suppress_until[i] > now {
                continue;
            }
            // Alg. 3: drain its bytes in the queue plus what it adds per interval.
            let own = bytes + self.inc[i].max(0) as u64;
            let drain = match self.cfg.pause_time {
                PauseTime::OwnBytes => own,
                PauseTime::FifoShare => (own as u128 * total as u128 / bytes as u128) as u64,
            };
            let dur = self
                .cfg
                .fixed_pause
                .unwrap_or_else(|| self.rate[q as usize].tx_time(drain));
            let quanta =
                time_to_quanta(self.rate[p as usize], dur).clamp(1, XOFF_QUANTA as u64 - 1);
            self.suppress_until[i] = now + dur;
            self.sent += 1;
            out.push(Frame {
                port: p,
                class: c,
                quanta: quanta as u16,
                kind: FrameKind::Predictive,
                cause: Some(q),
            });
        }
    }
}

impl FlowControl for Ppfc {
    #[inline]
    fn on_enqueue(&mut self, mmu: &Mmu, ev: &Enqueue) -> Reaction {
        let mut r = self.pfc.on_enqueue(mmu, ev);
        if self.next == SimTime::MAX && self.congested(mmu, ev.out, ev.class) {
            self.activate(mmu, ev.now);
            r.wake = Some(r.wake.map_or(self.next, |w| w.min(self.next)));
        }
        r
    }

    #[inline]
    fn on_dequeue(&mut self, mmu: &Mmu, ev: &Dequeue) -> Option<Frame> {
        self.pfc.on_dequeue(mmu, ev)
    }

    fn next_tick(&self) -> Option<SimTime> {
        let t = self
            .next
            .min(self.pfc.next_refresh().unwrap_or(SimTime::MAX));
        (t != SimTime::MAX).then_some(t)
    }

    fn on_tick(&mut self, mut ctx: TickCtx<'_>, out: &mut Vec<Frame>) {
        self.pfc.refresh(ctx.now, None, out);
        if ctx.now < self.next {
            return;
        }
        let mmu = ctx.mmu;
        let n = self.ports() as u16;
        // Alg. 1: increments and their total.
        let mut total = 0i64;
        for p in 0..n {
            for c in 1..CLASSES as u8 {
                let i = ix(p, c);
                let cur = mmu.ingress_bytes(p, c);
                self.inc[i] = cur as i64 - self.prev[i] as i64;
                self.prev[i] = cur;
                total += self.inc[i];
            }
        }
        let congested = (0..n).any(|q| (1..CLASSES as u8).any(|c| self.congested(mmu, q, c)));
        if !congested {
            self.next = SimTime::MAX;
            return;
        }
        self.next = ctx.now + self.cfg.interval;
        if total <= 0 {
            return;
        }
        // remaining = free / (total per interval) < T
        let free = mmu.shared_free() as u128;
        if free * self.cfg.interval.ps() as u128 >= self.cfg.t.ps() as u128 * total as u128 {
            return;
        }
        self.predictions += 1;
        for q in 0..n {
            for c in 1..CLASSES as u8 {
                if self.congested(mmu, q, c) {
                    self.pause_for(&mut ctx, q, c, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::pfc::tests::{facts, mmu};
    use super::super::{PfcConfig, SwitchFc};
    use super::*;
    use crate::ids::EgressId;
    use crate::packet::{Packet, PacketKind, PacketPool};
    use crate::port::Egress;
    use crate::profile::Serialization;
    use crate::switch::SwitchPort;
    use crate::switch::mmu::PfcThreshold;
    use crate::topology::{NodeId, PortInfo};
    use rand::SeedableRng;

    fn ports() -> Vec<SwitchPort> {
        (0..4)
            .map(|i| {
                let info = PortInfo {
                    peer: NodeId(i),
                    peer_port: 0,
                    rate: Rate::from_gbps(40),
                    delay: Delta::from_us(1),
                    loss: 0.0,
                };
                SwitchPort::new(
                    Egress::new(EgressId(i), &info, Serialization::Exact),
                    crate::switch::ecn::Marker::NEVER,
                )
            })
            .collect()
    }

    /// A switch where ingress ports 0 and 1 (class 3) fill egress 3.
    struct Bench {
        m: Mmu,
        ports: Vec<SwitchPort>,
        pool: PacketPool,
        fc: Ppfc,
    }

    impl Bench {
        fn new(cfg: PpfcConfig) -> Bench {
            let f = facts();
            let pfc = Pfc::new(PfcConfig::default(), &f);
            Bench {
                m: mmu(PfcThreshold::Static(900_000)),
                ports: ports(),
                pool: PacketPool::new(),
                fc: Ppfc::new(cfg, pfc, &f),
            }
        }
        fn arrive(&mut self, now: SimTime, inp: u16, n: u32) -> Reaction {
            let mut r = Reaction::default();
            for _ in 0..n {
                let mut p = Packet::new(PacketKind::Data);
                p.wire = 1000;
                p.ingress = inp;
                let id = self.pool.alloc(p);
                self.m.admit(inp, 3, 3, 1000);
                self.ports[3].queues[3].push(&mut self.pool, id);
                let ev = Enqueue {
                    now,
                    inp,
                    out: 3,
                    class: 3,
                };
                let x = self.fc.on_enqueue(&self.m, &ev);
                r.wake = r.wake.or(x.wake);
            }
            r
        }
        fn tick(&mut self, now: SimTime) -> Vec<Frame> {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let mut out = Vec::new();
            let ctx = TickCtx {
                now,
                mmu: &self.m,
                ports: &self.ports,
                pool: &self.pool,
                rng: &mut rng,
            };
            self.fc.on_tick(ctx, &mut out);
            out
        }
    }

    fn us(x: u64) -> SimTime {
        SimTime::ZERO + Delta::from_us(x)
    }

    #[test]
    fn it_stays_asleep_while_the_egress_queue_is_below_kmax() {
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(50_000),
            ..PpfcConfig::default()
        });
        assert_eq!(
            b.arrive(us(0), 0, 50).wake,
            None,
            "50 KB is not above K_max"
        );
        assert_eq!(b.fc.next_tick(), None);
        assert_eq!(
            b.arrive(us(0), 0, 1).wake,
            Some(us(1)),
            "the first tick is 1 us later"
        );
    }

    #[test]
    fn a_fast_growing_queue_pauses_the_ports_that_feed_it_until_the_queue_drains() {
        // Pool 900 KB. P-PFC wakes at 60 KB queued (20 KB from port 1, 40 KB
        // from port 0). Port 0 then grows by 40 KB/us, port 1 not at all:
        // remaining time = 780 KB / 40 KB/us = 19.5 us < 100 us.
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(59_000),
            ..PpfcConfig::default()
        });
        b.arrive(us(0), 1, 20);
        b.arrive(us(0), 0, 40);
        b.arrive(us(1), 0, 40);
        let frames = b.tick(us(1));
        assert_eq!(frames.len(), 1, "{frames:?}");
        let f = frames[0];
        assert_eq!((f.port, f.class, f.kind), (0, 3, FrameKind::Predictive));
        // Port 0 holds 80 of the 100 KB queued, so it leaves at 80 % of 40 Gbps:
        // (80 KB + 40 KB increment) / 32 Gbps = 30 us = 2343.75, so 2344 quanta.
        assert_eq!(f.quanta, 2344);
        assert_eq!(b.fc.sent, 1);
        // The repeat bit holds while that pause is in force.
        b.arrive(us(2), 0, 40);
        assert!(b.tick(us(2)).is_empty());
    }

    /// P-PFC §2.3, Fig. 2c, at 40 Gbps with one unit = 40 KB and one slot = the
    /// 8 us that 40 KB takes to leave: X (port 0) and Y (port 1) each add half a
    /// unit per slot to a queue that holds one unit, half from each.
    fn two_senders_half_a_queue_each(pause_time: PauseTime) -> Vec<Frame> {
        let mut b = Bench::new(PpfcConfig {
            interval: Delta::from_us(8),
            t: Delta::from_us(1000),
            kmax: Some(0),
            pause_time,
            ..PpfcConfig::default()
        });
        b.fc.activate(&b.m, us(0));
        b.arrive(us(8), 0, 20);
        b.arrive(us(8), 1, 20);
        b.tick(us(8))
    }

    #[test]
    fn the_section_2_3_example_pauses_both_senders_for_two_slots() {
        let frames = two_senders_half_a_queue_each(PauseTime::FifoShare);
        assert_eq!(frames.len(), 2, "R = 80 % needs both: {frames:?}");
        // "the pause is set to be 2 time units": 16 us = 1250 quanta at 40 Gbps.
        assert!(frames.iter().all(|f| f.quanta == 1250), "{frames:?}");
        // Read as the own bytes at the full rate, it would be one slot.
        let own = two_senders_half_a_queue_each(PauseTime::OwnBytes);
        assert!(own.iter().all(|f| f.quanta == 625), "{own:?}");
    }

    #[test]
    fn a_port_already_paused_does_not_count_toward_r() {
        // Alg. 2: only ports marked now (increment > 0) add to fraction_total.
        // Port 1 fills the queue alone and is paused at 1 us. At 2 us it holds
        // 150 of 210 KB (71 %) and adds nothing, while ports 0 (40 KB) and 2
        // (20 KB) grow. Counting port 1 toward R = 80 % would pause only one
        // of them; by Alg. 2 both are marked (60 KB never reaches 168 KB).
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(59_000),
            ..PpfcConfig::default()
        });
        b.arrive(us(0), 1, 60);
        b.arrive(us(1), 1, 90);
        let first = b.tick(us(1));
        assert_eq!(first.iter().map(|f| f.port).collect::<Vec<_>>(), [1]);
        b.arrive(us(2), 0, 40);
        b.arrive(us(2), 2, 20);
        let mut ports: Vec<u16> = b.tick(us(2)).iter().map(|f| f.port).collect();
        ports.sort();
        assert_eq!(ports, [0, 2], "both growing ports paused, port 1 not again");
    }

    #[test]
    fn a_fixed_pause_time_replaces_the_dynamic_one() {
        // As above, but every pause lasts 10 us = 781.25, so 782 quanta at 40 Gbps.
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(59_000),
            fixed_pause: Some(Delta::from_us(10)),
            ..PpfcConfig::default()
        });
        b.arrive(us(0), 1, 20);
        b.arrive(us(0), 0, 40);
        b.arrive(us(1), 0, 40);
        let frames = b.tick(us(1));
        assert_eq!(frames.len(), 1, "{frames:?}");
        assert_eq!(frames[0].quanta, 782);
    }

    #[test]
    fn a_slowly_growing_queue_is_left_to_the_end_to_end_control() {
        // 2 KB/us of growth: remaining = 838 KB / 2 KB/us >> 100 us.
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(59_000),
            ..PpfcConfig::default()
        });
        b.arrive(us(0), 0, 60);
        b.arrive(us(1), 0, 2);
        assert!(b.tick(us(1)).is_empty());
        assert_eq!(b.fc.predictions, 0);
        assert_eq!(
            b.fc.next_tick(),
            Some(us(2)),
            "still above K_max: keeps ticking"
        );
    }

    #[test]
    fn ticking_stops_when_every_queue_is_below_kmax() {
        let mut b = Bench::new(PpfcConfig {
            kmax: Some(50_000),
            ..PpfcConfig::default()
        });
        b.arrive(us(0), 0, 60);
        while let Some(id) = b.ports[3].queues[3].pop(&mut b.pool) {
            b.m.release(0, 3, 3, 1000);
            b.pool.free(id);
        }
        assert!(b.tick(us(1)).is_empty());
        assert_eq!(b.fc.next_tick(), None);
        let fc = SwitchFc::Ppfc(Box::new(b.fc));
        assert_eq!(fc.next_tick(), None);
    }
}
