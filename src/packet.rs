//! Packets and their storage.
//!
//! Packets live in a [`PacketPool`] (an arena with a free list) and everything
//! else refers to them by [`PacketId`]; queues are intrusive FIFO lists threaded
//! through `Packet::next`. After warm-up the hot path allocates nothing.

use crate::ids::{FlowId, NodeId};
use crate::units::{Rate, SimTime};

/// Index of a packet in the pool.
pub type PacketId = u32;
pub const NIL: PacketId = u32::MAX;

/// Maximum number of INT hop records a packet carries (HPCC §4.1: 5 hops).
pub const MAX_INT_HOPS: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PacketKind {
    /// RDMA WRITE payload.
    Data,
    /// Cumulative acknowledgement.
    Ack,
    /// Negative acknowledgement: the receiver saw a gap and expects `seq`.
    Nack,
    /// Congestion notification packet (DCQCN §3.1 NP).
    Cnp,
    /// PFC frame (IEEE 802.1Qbb): `pause_quanta > 0` pauses `class`, 0 resumes it.
    Pfc,
    /// ExpressPass credit, receiver to sender: `seq` is its number, `sent_at`
    /// when the receiver sent it. Switches queue it apart from the classes
    /// ([`crate::cc::xpass::shaper`]).
    Credit,
    /// ExpressPass: the sender asks its receiver for credits (`seq`: bytes left).
    CreditRequest,
    /// ExpressPass: the sender has nothing left to send; credits stop.
    CreditStop,
}

/// One INT record, stamped by a switch egress port (HPCC §3.1, §4.1). 32
/// bytes and aligned to 32, so that a record never straddles two cache lines
/// and a packet's five take 160 bytes (docs/performance-log.md, f81a6ab,
/// "INT records in 32 bytes").
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[repr(C, align(32))]
pub struct IntHop {
    /// Time the packet left the port.
    pub ts: SimTime,
    /// The port's byte counter the sender differences (HPCC Eq. (2)): the
    /// bytes it had transmitted before this packet (`txBytes`), or, with
    /// HPCC's rxRate variant (§3.4), the bytes it had received into its
    /// queues (`rxBytes`). Which, the run's [`IntCounter`] says.
    pub bytes: u64,
    /// Bytes queued at the port (all classes) after this packet left.
    pub qlen: u64,
    /// The port's line rate.
    #[serde(with = "crate::units::raw_rate")]
    pub rate: Rate,
}

const _: () = assert!(std::mem::size_of::<IntHop>() == 32 && std::mem::align_of::<IntHop>() == 32);

/// Which byte counter of a port its INT records carry ([`IntHop::bytes`]):
/// one per run, the one its congestion control reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntCounter {
    /// Bytes transmitted (txRate, HPCC Eq. (2); every INT reader but one).
    Tx,
    /// Bytes received into the port's queues (HPCC §3.4's rxRate variant).
    Rx,
}

/// A packet header: 64 bytes, one cache line, so that the hot path touches one
/// line per packet. INT records live beside it in the pool ([`PacketPool::int`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[repr(C, align(64))]
pub struct Packet {
    /// Data: byte offset of the payload. ACK/NACK: cumulative bytes expected next.
    /// PFC: the root pause of its propagation tree (diagnostics).
    pub seq: u64,
    /// Data: when the sender NIC put it on the wire. ACK: echo of that time.
    pub sent_at: SimTime,
    /// Next packet in whatever queue holds this one.
    pub next: PacketId,
    /// The flow it belongs to; [`FlowId::NONE`] for PFC frames.
    pub flow: FlowId,
    /// Source and destination hosts (a PFC frame: the sending switch or NIC).
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (headers, INT and payload).
    pub wire: u32,
    /// NACK with IRN loss recovery: the packet number (`seq / mtu`) of the
    /// out-of-order packet that triggered it (a one-block SACK). PFC: the hop of
    /// the pause in its propagation tree (diagnostics). ExpressPass data: the
    /// number of the credit it spent. Otherwise unused. (It
    /// sits in what was alignment padding: the header stays 64 bytes.)
    pub aux: u32,
    /// Receiver-assigned window in bytes piggybacked on ACKs (RCC); 0 = none.
    /// ExpressPass data: the picosecond time its credit was sent (echoed).
    pub window: u64,
    /// Payload bytes (at most the MTU, which is below 9001).
    pub payload: u16,
    pub sport: u16,
    pub dport: u16,
    /// Ingress port at the switch currently holding the packet.
    pub ingress: u16,
    /// PFC: pause duration in quanta (0 = resume); `u16::MAX` with X-ON/X-OFF style.
    pub pause_quanta: u16,
    pub kind: PacketKind,
    /// Priority class (0 = control, served first and never paused).
    pub class: u8,
    /// Number of valid INT records.
    pub n_hops: u8,
    /// Bit flags, see [`flag`].
    pub flags: u8,
    /// HPCC-PINT's field: the largest encoded utilisation a switch on the path
    /// stamped (`cc::ns3::pint`); an ACK carries its data packet's. 0 otherwise.
    /// (It sits in what was alignment padding: the header stays 64 bytes.)
    pub pint: u16,
}

/// Packet flag bits (`Packet::flags`).
pub mod flag {
    /// ECN Congestion Experienced (set by a switch on a data packet).
    pub const ECN_CE: u8 = 1 << 0;
    /// ACK/NACK carries a congestion notification (the ns-3 model's CNP-in-ACK).
    pub const CNP: u8 = 1 << 1;
    /// Data: last packet of its message (RDMA WRITE Last).
    pub const LAST: u8 = 1 << 2;
    /// Data: first packet of its message (RDMA WRITE First).
    pub const FIRST: u8 = 1 << 3;
    /// ACK: ECN-Echo, a data packet acknowledged by it was CE-marked.
    pub const ECE: u8 = 1 << 4;
    /// Data: a retransmission.
    pub const RETX: u8 = 1 << 5;
    /// ACK: the receiver's last hop is busy (RCC §III-C, fed back for rcc-sender).
    pub const RX_BUSY: u8 = 1 << 6;
    /// ACK: a Homa GRANT (`window`: the offset granted, `aux`: the priority).
    pub const GRANT: u8 = 1 << 7;
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64);

impl Packet {
    pub fn new(kind: PacketKind) -> Packet {
        Packet {
            seq: 0,
            sent_at: SimTime::ZERO,
            next: NIL,
            flow: FlowId::NONE,
            src: NodeId(0),
            dst: NodeId(0),
            payload: 0,
            wire: 0,
            aux: 0,
            window: 0,
            sport: 0,
            dport: 0,
            ingress: 0,
            pause_quanta: 0,
            kind,
            class: 0,
            n_hops: 0,
            flags: 0,
            pint: 0,
        }
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    #[inline]
    pub fn set_flag(&mut self, f: u8, on: bool) {
        if on {
            self.flags |= f;
        } else {
            self.flags &= !f;
        }
    }
}

/// Arena of packets with a free list; INT records in a parallel array.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    ints: Vec<[IntHop; MAX_INT_HOPS]>,
    free: Vec<PacketId>,
    live: usize,
    peak: usize,
}

impl PacketPool {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            self.ints.push([IntHop::default(); MAX_INT_HOPS]);
            (self.slots.len() - 1) as PacketId
        }
    }
    /// Allocates a fresh packet of `kind` (its INT records are invalid until stamped).
    #[inline]
    pub fn alloc_blank(&mut self, kind: PacketKind) -> PacketId {
        self.alloc(Packet::new(kind))
    }
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }
    /// The slot of `id`, if the pool has one (cache hints given ids that may
    /// be stale).
    #[inline]
    pub fn try_get(&self, id: PacketId) -> Option<&Packet> {
        self.slots.get(id as usize)
    }
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    /// The INT records of a packet (valid up to its `n_hops`).
    #[inline]
    pub fn int(&self, id: PacketId) -> &[IntHop; MAX_INT_HOPS] {
        &self.ints[id as usize]
    }
    #[inline]
    pub fn int_mut(&mut self, id: PacketId) -> &mut [IntHop; MAX_INT_HOPS] {
        &mut self.ints[id as usize]
    }
    /// The packet and its INT records, both mutable.
    #[inline]
    pub fn get_with_int(&mut self, id: PacketId) -> (&mut Packet, &mut [IntHop; MAX_INT_HOPS]) {
        (&mut self.slots[id as usize], &mut self.ints[id as usize])
    }
    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }
    /// Most packets ever allocated at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

/// Intrusive FIFO of packets, linked through their headers: a head and a
/// tail, 8 bytes, so that a switch port's control queue fits on the line of
/// its counters and the seven data queues fill the next line
/// ([`crate::switch::SwitchPort`]). The bytes a class holds are the MMU's
/// egress counter ([`crate::switch::mmu::Mmu`]).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(8))]
pub struct PktQueue {
    head: PacketId,
    tail: PacketId,
}

impl Default for PktQueue {
    fn default() -> Self {
        PktQueue {
            head: NIL,
            tail: NIL,
        }
    }
}

impl PktQueue {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
    #[inline]
    pub fn push(&mut self, pool: &mut PacketPool, id: PacketId) {
        let p = pool.get_mut(id);
        p.next = NIL;
        if self.tail == NIL {
            self.head = id;
        } else {
            pool.get_mut(self.tail).next = id;
        }
        self.tail = id;
    }
    #[inline]
    pub fn pop(&mut self, pool: &mut PacketPool) -> Option<PacketId> {
        if self.head == NIL {
            return None;
        }
        let id = self.head;
        let p = pool.get_mut(id);
        self.head = p.next;
        p.next = NIL;
        if self.head == NIL {
            self.tail = NIL;
        }
        Some(id)
    }
    pub fn front(&self) -> Option<PacketId> {
        (self.head != NIL).then_some(self.head)
    }
    /// Iterates the queued packet ids from head to tail.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketId> + 'a {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let id = cur;
            cur = pool.get(id).next;
            Some(id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_are_fifo() {
        let mut pool = PacketPool::new();
        let mut q = PktQueue::default();
        for w in [100, 200, 300] {
            let mut p = Packet::new(PacketKind::Data);
            p.wire = w;
            let id = pool.alloc(p);
            q.push(&mut pool, id);
        }
        let mut order = Vec::new();
        while let Some(id) = q.pop(&mut pool) {
            order.push(pool.get(id).wire);
        }
        assert_eq!(order, [100, 200, 300]);
        assert!(q.is_empty());
    }

    #[test]
    fn freed_slots_are_reused() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::new(PacketKind::Ack));
        pool.free(a);
        let b = pool.alloc(Packet::new(PacketKind::Data));
        assert_eq!(a, b);
        assert_eq!(pool.live(), 1);
        assert_eq!(pool.peak(), 1);
    }
}
