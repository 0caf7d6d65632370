//! The transmit side of a port: one direction of a link.
//!
//! A port serializes one packet at a time at its line rate; the packet reaches
//! the peer one serialization time plus the propagation delay after it started
//! (store-and-forward, zero processing delay). PFC from the peer pauses classes
//! here; a paused class stops after the packet in flight. Switch ports and NIC
//! ports share this state.

use crate::ids::EgressId;
use crate::profile::Serialization;
use crate::topology::{NodeId, PortInfo};
use crate::units::{Delta, Rate, SimTime};
use rand::Rng;
use std::num::NonZeroU64;

/// Number of priority classes per port (IEEE 802.1Qbb).
pub const CLASSES: usize = 8;

/// Quanta of an X-OFF pause (no expiry unless pauses are timed).
pub const XOFF_QUANTA: u16 = u16::MAX;
/// Bits per pause quantum (IEEE 802.1Qbb).
pub const QUANTUM_BITS: u64 = 512;

/// How long `quanta` pause quanta last on a link of `rate` (rounded up to a ps).
pub fn quanta_to_time(rate: Rate, quanta: u16) -> Delta {
    let bits = quanta as u128 * QUANTUM_BITS as u128;
    Delta((bits * crate::units::PS_PER_S as u128).div_ceil(rate.bps() as u128) as u64)
}

/// Where the time-weighted queue histogram (`output::hist`) stands for the
/// queue a port serves. It is kept on the port, on a line every transmission
/// reads, so that an enqueue or a dequeue touches no recorder memory unless
/// the queue's length moves to another bin.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueClock {
    /// When the queue's length last changed.
    pub since: SimTime,
    /// Picoseconds spent in a row at lengths of bin `bin`, not yet handed to
    /// the recorder.
    pub ps: u64,
    pub bin: u32,
}

/// An egress port's transmitter. Laid out in declaration order (`repr(C)`,
/// line-aligned): what every transmission reads and writes fills the first 64
/// bytes, one cache line; the queue histogram's clock, read when a queue
/// changes and the histogram is recorded, follows it; the loss rate, the peer
/// and the pause clocks that only PFC frames touch come last, boxed and
/// allocated at a port's first pause: most ports of a large fabric are never
/// paused, and the clocks of eight classes (192 bytes) were 40 % of a switch
/// port (docs/performance-log.md, f28b8f5, "a switch port in three lines").
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Egress {
    /// End of the current transmission.
    pub busy_until: SimTime,
    /// Time of the earliest scheduled `TxDone` event, `SimTime::MAX` if none.
    pub next_event: SimTime,
    /// Picoseconds per byte when that is a whole number (fast path).
    ps_per_byte: Option<NonZeroU64>,
    pub rate: Rate,
    pub delay: Delta,
    /// Bytes put on the wire, all kinds of packets.
    pub tx_bytes: u64,
    /// Bytes of data packets put on the wire.
    pub tx_data_bytes: u64,
    /// Global index of this egress port (event addressing).
    pub gid: EgressId,
    /// Classes paused by the peer's PFC, as a bit mask.
    pub paused: u8,
    serialization: Serialization,
    /// `loss > 0`, read at every transmission; the loss rate itself, off
    /// this line, only when it is set.
    lossy: bool,
    /// The time-weighted queue histogram's clock of the queue this port serves.
    pub queue_clock: QueueClock,
    loss: f64,
    pub peer: NodeId,
    pub peer_port: u16,
    /// The pause clocks, from the port's first pause on.
    clocks: Option<Box<PauseClocks>>,
}

/// An egress port's pause clocks, per class.
#[derive(Clone, Debug)]
struct PauseClocks {
    /// When each class was paused (for paused-time totals).
    since: [SimTime; CLASSES],
    /// When a timed pause of each class expires (`SimTime::MAX` = X-OFF until X-ON).
    expiry: [SimTime; CLASSES],
    /// Total time each class spent paused.
    total: [Delta; CLASSES],
}

impl Default for PauseClocks {
    fn default() -> Self {
        PauseClocks {
            since: [SimTime::ZERO; CLASSES],
            expiry: [SimTime::MAX; CLASSES],
            total: [Delta::ZERO; CLASSES],
        }
    }
}

impl Egress {
    pub fn new(gid: EgressId, info: &PortInfo, serialization: Serialization) -> Egress {
        let bps = info.rate.bps();
        let ps_per_byte = match serialization {
            Serialization::Exact if (8 * crate::units::PS_PER_S).is_multiple_of(bps) => {
                Some(8 * crate::units::PS_PER_S / bps)
            }
            _ => None,
        }
        .and_then(NonZeroU64::new);
        Egress {
            gid,
            peer: info.peer,
            peer_port: info.peer_port,
            rate: info.rate,
            delay: info.delay,
            loss: info.loss,
            lossy: info.loss > 0.0,
            serialization,
            ps_per_byte,
            busy_until: SimTime::ZERO,
            next_event: SimTime::MAX,
            paused: 0,
            queue_clock: QueueClock::default(),
            clocks: None,
            tx_bytes: 0,
            tx_data_bytes: 0,
        }
    }

    /// The link this port sends into (the packets in flight on it wait in a
    /// ring of the receiving side, [`crate::node::Links`]).
    #[inline]
    pub fn link(&self) -> EgressId {
        self.gid
    }

    /// Serialization time of `bytes` on this port.
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> Delta {
        match self.ps_per_byte {
            Some(k) => Delta(k.get() * bytes as u64),
            None => self.serialization.tx_time(self.rate, bytes as u64),
        }
    }

    #[inline]
    pub fn is_paused(&self, class: u8) -> bool {
        self.paused & (1 << class) != 0
    }

    /// When the pause of `class` in force began (`SimTime::ZERO` before any).
    pub fn paused_since(&self, class: u8) -> SimTime {
        self.clocks
            .as_ref()
            .map_or(SimTime::ZERO, |k| k.since[class as usize])
    }

    /// When the timed pause of `class` expires (`SimTime::MAX` = X-OFF until
    /// X-ON, or not paused).
    pub fn pause_expiry(&self, class: u8) -> SimTime {
        self.clocks
            .as_ref()
            .map_or(SimTime::MAX, |k| k.expiry[class as usize])
    }

    /// Total time `class` spent in pauses that ended.
    pub fn paused_total(&self, class: u8) -> Delta {
        self.clocks
            .as_ref()
            .map_or(Delta::ZERO, |k| k.total[class as usize])
    }

    /// Applies a PAUSE (`expiry` = when it lapses) to `class`. Returns true if the
    /// class was running.
    pub fn pause(&mut self, class: u8, now: SimTime, expiry: SimTime) -> bool {
        let c = class as usize;
        let was_paused = self.is_paused(class);
        let clocks = self.clocks.get_or_insert_with(Box::default);
        clocks.expiry[c] = expiry;
        if was_paused {
            return false;
        }
        self.paused |= 1 << class;
        clocks.since[c] = now;
        true
    }

    /// Lifts the pause of `class`. Returns true if it was paused.
    pub fn resume(&mut self, class: u8, now: SimTime) -> bool {
        let c = class as usize;
        if !self.is_paused(class) {
            return false;
        }
        self.paused &= !(1 << class);
        let clocks = self.clocks.as_mut().expect("a paused class has its clocks");
        clocks.total[c] += now.since(clocks.since[c]);
        clocks.expiry[c] = SimTime::MAX;
        true
    }

    /// Starts serializing `wire` bytes at `now`. Returns when the packet reaches the
    /// peer, or `None` if the link loses it (only packets with `may_lose`).
    #[inline(always)]
    pub fn transmit(
        &mut self,
        now: SimTime,
        wire: u32,
        is_data: bool,
        may_lose: bool,
        rng: &mut impl Rng,
    ) -> Option<SimTime> {
        let end = now + self.tx_time(wire);
        self.busy_until = end;
        self.tx_bytes += wire as u64;
        if is_data {
            self.tx_data_bytes += wire as u64;
        }
        if may_lose && self.lossy && rng.random::<f64>() < self.loss {
            return None;
        }
        Some(end + self.delay)
    }

    /// Claims a `TxDone` at `at` unless one is already due by then. Returns true
    /// when the caller must schedule it.
    #[inline]
    pub fn claim_event(&mut self, at: SimTime) -> bool {
        if self.next_event <= at {
            return false;
        }
        self.next_event = at;
        true
    }

    /// A `TxDone` at `now` is the claimed one: releases the claim and returns
    /// true. Every `TxDone` is claimed when scheduled, so one whose time is not
    /// the claim's was superseded by an earlier claim and is to be ignored: at
    /// its time the port is busy or has nothing ready, because a packet that
    /// can go is sent at once or has a claimed event at or before its time.
    #[inline]
    pub fn take_event(&mut self, now: SimTime) -> bool {
        if self.next_event != now {
            return false;
        }
        self.next_event = SimTime::MAX;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    /// Every field a transmission reads or writes is declared before the
    /// queue clock, so with `repr(C)` they all lie on the transmitter's first
    /// cache line (docs/performance-log.md, f28b8f5, "a switch port in three
    /// lines").
    #[test]
    fn a_transmissions_fields_fill_the_first_line() {
        assert_eq!(offset_of!(Egress, queue_clock), 64);
    }

    /// A link with a loss rate loses about that share of what may be lost,
    /// and never a packet that may not (PFC frames).
    #[test]
    fn lossy_links_lose_their_share_and_spare_pfc_frames() {
        let info = |loss| PortInfo {
            peer: NodeId(1),
            peer_port: 0,
            rate: Rate::from_gbps(100),
            delay: Delta::from_us(1),
            loss,
        };
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
        let mut lost = |loss, may_lose| {
            let mut eg = Egress::new(EgressId(0), &info(loss), Serialization::Exact);
            (0..10_000)
                .filter(|_| {
                    let now = eg.busy_until;
                    eg.transmit(now, 1_000, true, may_lose, &mut rng).is_none()
                })
                .count()
        };
        assert_eq!(lost(0.0, true), 0);
        assert_eq!(lost(0.25, false), 0);
        let n = lost(0.25, true);
        assert!((2_300..2_700).contains(&n), "{n} of 10000 lost at 25 %");
    }
}
