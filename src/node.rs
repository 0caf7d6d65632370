//! The node interface: what a NIC or a switch sees of the world while it
//! handles a packet or a timer.
//!
//! A node ([`crate::nic::Nic`], [`crate::switch::Switch`]) owns its state and
//! behaviour and is driven by `on_packet` / `on_timer`-style calls from the
//! dispatcher ([`crate::sim`]). Everything else it may touch comes through a
//! [`Ctx`]: the current time, scheduling an event for itself, handing a packet to
//! the peer at the far end of one of its links, the packet pool, and its shards of
//! the stats, recorder and PFC diagnostics. A node never reads another node's
//! state; shared inputs (routing tables, flow specs, configuration) are immutable.
//!
//! Event order: `(time, lead, event)` ([`crate::engine`]); an arrival keeps the
//! lead its packet was sent with, whoever schedules it.
//!
//! Links: each direction of a link is a pipe whose in-flight packets wait in a
//! ring that belongs to the receiving side ([`Links`]). Propagation delay is
//! constant, so packets arrive in the order they were sent and only the head of a
//! ring has a pending `Arrive` event (htsim's pipe). Handing a packet to a peer is
//! a push into the ring of that link.

use crate::engine::{EventQueue, lead, prefetch};
use crate::ids::{EgressId, FlowId, HostIdx, SwitchIdx};
use crate::output::PfcKind;
use crate::output::journal::{Journal, PauseToken};
use crate::packet::{IntHop, MAX_INT_HOPS, Packet, PacketId, PacketPool};
use crate::port::{CLASSES, Egress};
use crate::port::{XOFF_QUANTA, quanta_to_time};
use crate::stats::Stats;
use crate::topology::NodeId;
use crate::units::SimTime;
use std::collections::VecDeque;

/// What an event asks a node (or the dispatcher) to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An egress port finished (or may have finished) serializing; send the next packet.
    TxDone { egress: EgressId },
    /// The head packet in flight on a link (named by its sending egress) reaches the peer.
    Arrive { link: EgressId },
    /// The next flow(s) a NIC sources begin (the NIC's start timer).
    FlowStart { host: HostIdx },
    /// A flow's controller timer or retransmission deadline (at its sender).
    QpTimer { flow: FlowId },
    /// The end of a flow's DCQCN NP window (§3.1, Fig. 6), at its receiver: a CNP
    /// if a packet marked inside the window is still unanswered.
    CnpTimer { flow: FlowId },
    /// A timed pause of an egress port may have lapsed.
    PauseExpiry { egress: EgressId },
    /// A switch's flow-control timer (P-PFC ticks, deadlock confirmation).
    SwitchTimer { switch: SwitchIdx },
}

const TAG_SHIFT: u32 = 29;
/// The tags of the two packet events, which the event loop's cache hints read
/// without unpacking ([`Packed::arrival_link`], [`Packed::tx_done_egress`]).
const TAG_TX_DONE: u32 = 0;
const TAG_ARRIVE: u32 = 1;
/// The tag of the dispatcher's own events (`sim`'s observers and deadlock
/// search, on its own queue), which share the nodes' order: at equal time and
/// lead they come after flows' timers and before CNP timers.
const TAG_DISPATCHER: u32 = 4;
/// Largest index an event can carry (packets, flows and egress ports are counted below it).
pub const MAX_EVENT_INDEX: u32 = (1 << TAG_SHIFT) - 1;

/// The bits of the dispatcher's event number `index` in the nodes' event
/// order ([`TAG_DISPATCHER`]); [`dispatcher_index`] gives it back.
#[inline]
pub fn dispatcher_bits(index: u32) -> u32 {
    assert!(
        index <= MAX_EVENT_INDEX,
        "dispatcher event {index} does not fit"
    );
    TAG_DISPATCHER << TAG_SHIFT | index
}

/// The number of a dispatcher's event from its bits ([`dispatcher_bits`]).
#[inline]
pub fn dispatcher_index(bits: u32) -> u32 {
    debug_assert_eq!(bits >> TAG_SHIFT, TAG_DISPATCHER, "a dispatcher's event");
    bits & MAX_EVENT_INDEX
}

/// An [`Event`] packed into 32 bits (tag in the top 3 bits), so that queue
/// entries stay small: this is the hottest data structure of the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Packed(pub u32);

impl crate::engine::Bits for Packed {
    #[inline]
    fn to_bits(self) -> u32 {
        self.0
    }
    #[inline]
    fn from_bits(bits: u32) -> Self {
        Packed(bits)
    }
}

impl Event {
    #[inline(always)]
    pub fn pack(self) -> Packed {
        let (tag, idx) = match self {
            Event::TxDone { egress } => (TAG_TX_DONE, egress.0),
            Event::Arrive { link } => (TAG_ARRIVE, link.0),
            Event::FlowStart { host } => (2, host.0),
            Event::QpTimer { flow } => (3, flow.0),
            Event::CnpTimer { flow } => (5, flow.0),
            Event::PauseExpiry { egress } => (6, egress.0),
            Event::SwitchTimer { switch } => (7, switch.0),
        };
        assert!(
            idx <= MAX_EVENT_INDEX,
            "event index {idx} does not fit in 29 bits"
        );
        Packed(tag << TAG_SHIFT | idx)
    }
}

impl Packed {
    /// The link of an `Arrive` event, read without decoding any other kind.
    #[inline]
    pub fn arrival_link(self) -> Option<EgressId> {
        (self.0 >> TAG_SHIFT == TAG_ARRIVE).then_some(EgressId(self.0 & MAX_EVENT_INDEX))
    }

    /// The port of a `TxDone` event, read without decoding any other kind.
    #[inline]
    pub fn tx_done_egress(self) -> Option<EgressId> {
        (self.0 >> TAG_SHIFT == TAG_TX_DONE).then_some(EgressId(self.0 & MAX_EVENT_INDEX))
    }

    #[inline]
    pub fn unpack(self) -> Event {
        let idx = self.0 & MAX_EVENT_INDEX;
        match self.0 >> TAG_SHIFT {
            TAG_TX_DONE => Event::TxDone {
                egress: EgressId(idx),
            },
            TAG_ARRIVE => Event::Arrive {
                link: EgressId(idx),
            },
            2 => Event::FlowStart { host: HostIdx(idx) },
            3 => Event::QpTimer { flow: FlowId(idx) },
            TAG_DISPATCHER => unreachable!("the dispatcher's events are on its own queue"),
            5 => Event::CnpTimer { flow: FlowId(idx) },
            6 => Event::PauseExpiry {
                egress: EgressId(idx),
            },
            _ => Event::SwitchTimer {
                switch: SwitchIdx(idx),
            },
        }
    }
}

/// The in-flight rings of every link direction, indexed by the sending egress.
/// Each ring belongs to the node at its receiving end.
#[derive(Default)]
pub struct Links {
    /// Per link: packets in flight, their arrival times and the leads they were
    /// sent with (an arrival keeps its lead whoever schedules it).
    rings: Vec<VecDeque<(PacketId, u32, SimTime)>>,
    /// Per link: the packet at the head of its ring (stale when the ring is
    /// empty). 4 bytes a link, so that the dispatcher's cache hint for the
    /// next arrival reads one warm word instead of the ring's header and slot.
    fronts: Vec<PacketId>,
}

impl Links {
    pub fn new(n: usize) -> Links {
        Links {
            rings: (0..n).map(|_| VecDeque::new()).collect(),
            fronts: vec![0; n],
        }
    }

    /// The number of links this partition has rings for.
    #[cfg(test)]
    pub fn rings(&self) -> usize {
        self.rings.len()
    }

    /// Puts a packet that reaches the far end at `at` into the link. Returns true
    /// when it is the only one in flight, so its arrival must be scheduled.
    #[inline(always)]
    pub fn push(&mut self, link: EgressId, id: PacketId, at: SimTime, lead: u32) -> bool {
        let ring = &mut self.rings[link.idx()];
        ring.push_back((id, lead, at));
        let only = ring.len() == 1;
        if only {
            self.fronts[link.idx()] = id;
        }
        only
    }

    /// The next packet to land from `link`, if `link` has one in flight (an
    /// `Arrive` event is pending for it); a stale id otherwise.
    #[inline]
    pub fn front(&self, link: EgressId) -> PacketId {
        self.fronts[link.idx()]
    }

    /// Cache hint: the slot of the link's next packet.
    #[inline]
    pub fn warm_front(&self, link: EgressId) {
        if let Some(slot) = self.rings[link.idx()].front() {
            prefetch(slot);
        }
    }

    /// Takes the packet arriving now off the link; also returns when the next one
    /// arrives and its lead, if any.
    #[inline]
    pub fn land(&mut self, link: EgressId) -> (PacketId, Option<(SimTime, u32)>) {
        let ring = &mut self.rings[link.idx()];
        let (id, _, _) = ring
            .pop_front()
            .expect("an arrival event has a packet in flight");
        let next = ring.front().map(|&(next, lead, at)| {
            self.fronts[link.idx()] = next;
            (at, lead)
        });
        (id, next)
    }
}

/// A packet on its way to a node of another partition: handed over at the end
/// of the window it was sent in (its arrival is at least one lookahead later,
/// docs/parallel.md), with its INT records.
#[derive(Clone, Debug)]
pub struct Transit {
    pub link: EgressId,
    pub at: SimTime,
    pub lead: u32,
    pub pkt: Packet,
    pub int: [IntHop; MAX_INT_HOPS],
}

impl Transit {
    /// The key of the arrival event this packet may need (a lower bound of
    /// what handing it over can schedule).
    pub fn key(&self) -> crate::engine::Key {
        let bits = Event::Arrive { link: self.link }.pack().0 as u64;
        (self.at.0, ((u32::MAX - self.lead) as u64) << 32 | bits)
    }
}

/// Where a node's links lead, partition-wise: the partition of each link's
/// receiving node (by sending egress id), this partition's number, and the
/// outboxes (by destination partition) for packets that leave it.
pub struct Remote<'a> {
    pub link_part: &'a [u16],
    pub me: u16,
    pub outbox: &'a mut [Vec<Transit>],
}

impl Links {
    /// Takes a packet from another partition into this partition's ring of its
    /// link (allocating it in `pool`), scheduling its arrival if it is the only
    /// one in flight: the same event, with the same key, as a local send.
    pub fn accept(&mut self, t: &Transit, pool: &mut PacketPool, q: &mut EventQueue<Packed>) {
        let id = pool.alloc(t.pkt.clone());
        let n = t.pkt.n_hops as usize;
        pool.int_mut(id)[..n].copy_from_slice(&t.int[..n]);
        if self.push(t.link, id, t.at, t.lead) {
            q.schedule_lead(t.at, t.lead, Event::Arrive { link: t.link }.pack());
        }
    }
}

/// Flow-level progress the stall guard and the end of the run watch.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Flows whose sender has started.
    pub started: usize,
    /// Flows whose sender has seen the last byte acknowledged.
    pub done: usize,
    /// Flows whose sender has sent every byte at least once. A flow with a
    /// byte never sent cannot complete sooner than four link delays later (the
    /// byte to its receiver over two links at least, the ACK back), so while
    /// some flow has one the run cannot end within a window (docs/parallel.md).
    pub sent_all: usize,
    /// Last time data moved forward (in-order delivery or a new ACK), or the
    /// first flow after an idle period started.
    pub last: SimTime,
    /// Programs' compute steps under way (a run is not over while one is).
    pub computing: usize,
}

impl Progress {
    /// Whether the run has nothing left to do: every one of its `total`
    /// flows started and completed, and no program is computing.
    #[inline]
    pub fn finished(&self, total: usize) -> bool {
        self.done == total && self.started == total && self.computing == 0
    }
}

/// A node's view of the world while it handles one event.
pub struct Ctx<'a> {
    pub now: SimTime,
    q: &'a mut EventQueue<Packed>,
    links: &'a mut Links,
    pub pool: &'a mut PacketPool,
    pub stats: &'a mut Stats,
    /// The recorders' and diagnostics' shard ([`Journal`]).
    pub rec: &'a mut Journal,
    pub progress: &'a mut Progress,
    remote: Remote<'a>,
}

impl<'a> Ctx<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        now: SimTime,
        q: &'a mut EventQueue<Packed>,
        links: &'a mut Links,
        pool: &'a mut PacketPool,
        stats: &'a mut Stats,
        rec: &'a mut Journal,
        progress: &'a mut Progress,
        remote: Remote<'a>,
    ) -> Ctx<'a> {
        Ctx {
            now,
            q,
            links,
            pool,
            stats,
            rec,
            progress,
            remote,
        }
    }

    /// Schedules a packet-paced event for this node (a port's next transmission).
    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        self.q.schedule(at, ev.pack());
    }

    /// [`Self::schedule`] for an event decided `lead` ps before `at` (earlier
    /// than now): it takes the place in the order it would have had if queued
    /// then.
    #[inline(always)]
    pub fn schedule_lead(&mut self, at: SimTime, lead: u32, ev: Event) {
        self.q.schedule_lead(at, lead, ev.pack());
    }

    /// The lead of an event scheduled now for `at` ([`Self::schedule`]'s).
    #[inline]
    pub fn lead(&self, at: SimTime) -> u32 {
        crate::engine::lead(self.q.now(), at)
    }

    /// The key of the event being handled (its place in the run's order).
    #[inline]
    pub fn key(&self) -> crate::engine::Key {
        self.rec.key()
    }

    /// Schedules a timer for this node (controller timers, RTOs, pause expiry):
    /// kept apart from packet events because most are cancelled lazily.
    #[inline]
    pub fn schedule_timer(&mut self, at: SimTime, ev: Event) {
        self.q.schedule_cold(at, ev.pack());
    }

    /// Hands packet `id` now, at no delay, into hand-over link `link`: from a
    /// NIC to a sibling NIC of its server, which is always in the same
    /// partition (`sim::parallel::placement`). Its arrival is decided now
    /// (lead 0), so it comes after the event being handled.
    #[inline]
    pub fn hand_over(&mut self, link: EgressId, id: PacketId) {
        debug_assert_eq!(self.remote.link_part[link.idx()], self.remote.me);
        let now = self.now;
        let lead = self.lead(now);
        if self.links.push(link, id, now, lead) {
            self.q
                .schedule_lead(now, lead, Event::Arrive { link }.pack());
        }
    }

    /// Hands packet `id` to the far end of `link`, where it arrives at `at`.
    #[inline(always)]
    pub fn send(&mut self, link: EgressId, id: PacketId, at: SimTime) {
        let lead = lead(self.now, at);
        let to = self.remote.link_part[link.idx()];
        if to != self.remote.me {
            let (pkt, ints) = self.pool.get_with_int(id);
            let mut int = [IntHop::default(); MAX_INT_HOPS];
            let n = pkt.n_hops as usize;
            int[..n].copy_from_slice(&ints[..n]);
            let pkt = pkt.clone();
            self.pool.free(id);
            self.remote.outbox[to as usize].push(Transit {
                link,
                at,
                lead,
                pkt,
                int,
            });
            return;
        }
        if self.links.push(link, id, at, lead) {
            self.q
                .schedule_lead(at, lead, Event::Arrive { link }.pack());
        }
    }
}

/// What a received PFC frame did to a port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcRx {
    /// The class it paused, when that class was running.
    pub newly_paused: Option<u8>,
    /// A RESUME ended a pause: the port may send again.
    pub resumed: bool,
}

impl Ctx<'_> {
    /// PFC frame `id` reached `node`, whose port `port` (egress `eg`) it pauses
    /// or resumes (IEEE 802.1Qbb: a PAUSE lasts its quanta unless X-OFF style,
    /// a new one restarts the timer, RESUME ends it). Frees the frame.
    pub fn receive_pfc(
        &mut self,
        eg: &mut Egress,
        node: NodeId,
        port: u16,
        id: PacketId,
        xoff_forever: bool,
    ) -> PfcRx {
        let now = self.now;
        let p = self.pool.get(id);
        let (class, quanta, token) = (p.class, p.pause_quanta, PauseToken(p.seq));
        self.pool.free(id);
        let gid = eg.gid;
        let mut r = PfcRx::default();
        if quanta > 0 {
            let forever = xoff_forever && quanta == XOFF_QUANTA;
            let expiry = if forever {
                SimTime::MAX
            } else {
                now + quanta_to_time(eg.rate, quanta)
            };
            if eg.pause(class, now, expiry) {
                self.rec.pfc_event(now, node, port, class, PfcKind::Pause);
                r.newly_paused = Some(class);
            }
            self.rec.pause_received(gid, class, token);
            if expiry != SimTime::MAX {
                self.schedule_timer(expiry, Event::PauseExpiry { egress: gid });
            }
        } else {
            let since = eg.paused_since(class);
            if eg.resume(class, now) {
                self.rec.pfc_event(now, node, port, class, PfcKind::Resume);
                self.rec.resumed(gid, class, since, false);
                r.resumed = true;
            }
        }
        r
    }

    /// Ends the timed pauses of `eg` that have lapsed. Returns true if any did.
    pub fn expire_pauses(&mut self, eg: &mut Egress, node: NodeId, port: u16) -> bool {
        let now = self.now;
        let mut any = false;
        for c in 0..CLASSES as u8 {
            if eg.is_paused(c) && eg.pause_expiry(c) <= now {
                let since = eg.paused_since(c);
                eg.resume(c, now);
                self.rec.pfc_event(now, node, port, c, PfcKind::Expire);
                self.rec.resumed(eg.gid, c, since, true);
                any = true;
            }
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_packing() {
        let all = [
            Event::TxDone {
                egress: EgressId(7),
            },
            Event::Arrive {
                link: EgressId(MAX_EVENT_INDEX),
            },
            Event::FlowStart { host: HostIdx(2) },
            Event::QpTimer { flow: FlowId(3) },
            Event::CnpTimer { flow: FlowId(0) },
            Event::PauseExpiry {
                egress: EgressId(12),
            },
            Event::SwitchTimer {
                switch: SwitchIdx(9),
            },
        ];
        for e in all {
            let p = e.pack();
            assert_eq!(p.unpack(), e);
            // The cache hints read these two kinds without decoding the rest.
            let link = match e {
                Event::Arrive { link } => Some(link),
                _ => None,
            };
            let egress = match e {
                Event::TxDone { egress } => Some(egress),
                _ => None,
            };
            assert_eq!(p.arrival_link(), link);
            assert_eq!(p.tx_done_egress(), egress);
        }
    }

    /// The dispatcher's events keep the place the samplers had among the
    /// nodes' events at equal time and lead: after flows' timers, before CNP
    /// timers, whatever their number.
    #[test]
    fn dispatcher_events_sort_between_flow_timers_and_cnp_timers() {
        let qp = Event::QpTimer {
            flow: FlowId(MAX_EVENT_INDEX),
        };
        let cnp = Event::CnpTimer { flow: FlowId(0) };
        for k in [0, 1, 5, MAX_EVENT_INDEX] {
            let bits = dispatcher_bits(k);
            assert!(qp.pack().0 < bits && bits < cnp.pack().0);
            assert_eq!(dispatcher_index(bits), k);
        }
    }

    #[test]
    fn a_link_delivers_in_order_and_asks_for_one_event_at_a_time() {
        let mut l = Links::new(2);
        let link = EgressId(1);
        assert!(l.push(link, 10, SimTime(5), 5));
        assert!(!l.push(link, 11, SimTime(9), 7));
        assert_eq!(l.front(link), 10);
        assert_eq!(l.land(link), (10, Some((SimTime(9), 7))));
        assert_eq!(l.front(link), 11);
        assert_eq!(l.land(link), (11, None));
        // Empty again: the next packet in is the front.
        assert!(l.push(link, 12, SimTime(20), 3));
        assert_eq!(l.front(link), 12);
    }
}
