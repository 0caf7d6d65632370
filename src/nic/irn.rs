//! Loss recovery for lossy fabrics: go-back-N, go-back-0, and IRN's selective
//! retransmission (Mittal et al., "Revisiting Network Support for RDMA",
//! SIGCOMM'18, §3; HPCC §5.3 Fig. 12 compares PFC, go-back-N and IRN).
//!
//! IRN, as modelled here:
//! * **Receiver**: keeps out-of-order packets (a bitmap beyond the next expected
//!   packet) and NACKs every out-of-order arrival; the NACK carries the
//!   cumulative acknowledgement and the sequence of the packet that arrived (a
//!   one-block SACK). Filling a hole delivers every packet behind it.
//! * **Sender**: a NACK starts a recovery episode that ends when the cumulative
//!   acknowledgement passes what had been sent when it began. In recovery, a
//!   packet is lost when it is neither acknowledged nor SACKed and lies below the
//!   highest SACKed one; lost packets are retransmitted (each once per episode)
//!   before new ones.
//! * **BDP-FC**: at most `bdp_cap` packets between the cumulative acknowledgement
//!   and the next new packet (the sender's window in packets).
//! * **Timeouts**: `rto_low` while at most `low_packets` packets are outstanding,
//!   else `rto_high` (IRN §3.1: 100 us and 320 us, N = 3). A timeout treats every
//!   outstanding packet that is not SACKed as lost.
//!
//! Packets are numbered by `seq / mtu` (every packet but a message's last is
//! full). Bitmaps are rings sized by the BDP cap, allocated once per flow.

use crate::units::Delta;

/// How a NIC recovers from losses.
#[derive(Clone, Debug, PartialEq)]
pub enum LossRecovery {
    /// Back to the first unacknowledged byte (the RoCE NIC default).
    GoBackN,
    /// Back to the first byte of the message; the receiver discards the message.
    GoBack0,
    Irn(IrnConfig),
}

impl LossRecovery {
    pub fn name(&self) -> &'static str {
        match self {
            LossRecovery::GoBackN => "go-back-n",
            LossRecovery::GoBack0 => "go-back-0",
            LossRecovery::Irn(_) => "irn",
        }
    }

    /// Whether the receiver keeps a packet that arrives beyond the next
    /// expected one (selective repeat), as it must to run well under per-packet
    /// spraying, which reorders packets; otherwise it discards it and NACKs the
    /// gap, and the sender goes back.
    pub fn accepts_reordering(&self) -> bool {
        match self {
            LossRecovery::GoBackN | LossRecovery::GoBack0 => false,
            LossRecovery::Irn(_) => true,
        }
    }
}

/// IRN parameters (defaults: IRN §3.1 for 40 Gbps).
#[derive(Clone, Debug, PartialEq)]
pub struct IrnConfig {
    pub rto_low: Delta,
    pub rto_high: Delta,
    /// `rto_low` applies while at most this many packets are outstanding.
    pub low_packets: u32,
    /// BDP cap in packets; `None` = the control interval T x line rate / full
    /// data packet (T is the largest base RTT of the topology, docs/models.md).
    pub bdp_cap: Option<u32>,
}

impl Default for IrnConfig {
    fn default() -> Self {
        IrnConfig {
            rto_low: Delta::from_us(100),
            rto_high: Delta::from_us(320),
            low_packets: 3,
            bdp_cap: None,
        }
    }
}

/// A bitmap over a sliding window of packet numbers `[base, base + capacity)`.
#[derive(Clone, Debug)]
pub struct SeqBits {
    words: Vec<u64>,
    mask: u64,
    base: u64,
}

impl SeqBits {
    /// Room for at least `n` packets.
    pub fn new(n: u32) -> SeqBits {
        let cap = (n.max(64) as u64).next_power_of_two();
        SeqBits {
            words: vec![0; (cap / 64) as usize],
            mask: cap - 1,
            base: 0,
        }
    }
    pub fn capacity(&self) -> u64 {
        self.mask + 1
    }
    pub fn base(&self) -> u64 {
        self.base
    }
    #[inline]
    fn in_window(&self, k: u64) -> bool {
        k >= self.base && k - self.base <= self.mask
    }
    #[inline]
    pub fn get(&self, k: u64) -> bool {
        self.in_window(k) && self.words[((k & self.mask) / 64) as usize] >> (k % 64) & 1 != 0
    }
    /// Sets bit `k`; false when `k` is outside the window.
    #[inline]
    pub fn set(&mut self, k: u64) -> bool {
        if !self.in_window(k) {
            return false;
        }
        self.words[((k & self.mask) / 64) as usize] |= 1 << (k % 64);
        true
    }
    /// Moves the window start to `to`, clearing what falls out.
    pub fn advance_to(&mut self, to: u64) {
        if to <= self.base {
            return;
        }
        if to - self.base > self.mask {
            self.words.fill(0);
        } else {
            for k in self.base..to {
                self.words[((k & self.mask) / 64) as usize] &= !(1 << (k % 64));
            }
        }
        self.base = to;
    }
    pub fn clear(&mut self) {
        self.words.fill(0);
    }
}

/// IRN sender state of one flow (packet numbers).
#[derive(Clone, Debug)]
pub struct IrnSender {
    pub cap: u32,
    sacked: SeqBits,
    retx: SeqBits,
    pub in_recovery: bool,
    /// Recovery ends when the cumulative acknowledgement reaches this.
    recovery_end: u64,
    /// Packets below this (not SACKed) are lost.
    lost_below: u64,
    /// Next packet to consider for retransmission (always normalized: below
    /// `lost_below` it is neither SACKed nor retransmitted).
    cursor: u64,
}

impl IrnSender {
    pub fn new(cap: u32) -> IrnSender {
        IrnSender {
            cap: cap.max(1),
            sacked: SeqBits::new(cap),
            retx: SeqBits::new(cap),
            in_recovery: false,
            recovery_end: 0,
            lost_below: 0,
            cursor: 0,
        }
    }

    fn normalize(&mut self) {
        self.cursor = self.cursor.max(self.sacked.base());
        while self.cursor < self.lost_below
            && (self.sacked.get(self.cursor) || self.retx.get(self.cursor))
        {
            self.cursor += 1;
        }
    }

    /// The cumulative acknowledgement moved to packet `una`.
    pub fn on_ack(&mut self, una: u64) {
        self.sacked.advance_to(una);
        self.retx.advance_to(una);
        if self.in_recovery && una >= self.recovery_end {
            self.in_recovery = false;
            self.lost_below = 0;
        }
        self.normalize();
    }

    /// A NACK: cumulative acknowledgement `una`, packet `sack` received; `next`
    /// is the first packet never sent.
    pub fn on_nack(&mut self, una: u64, sack: u64, next: u64) {
        self.on_ack(una);
        self.sacked.set(sack);
        if !self.in_recovery {
            self.in_recovery = true;
            self.recovery_end = next;
        }
        self.lost_below = self.lost_below.max(sack);
        self.normalize();
    }

    /// Retransmission timeout: every outstanding packet not SACKed is lost.
    pub fn on_timeout(&mut self, una: u64, next: u64) {
        self.on_ack(una);
        self.retx.clear();
        self.in_recovery = true;
        self.recovery_end = next;
        self.lost_below = next;
        self.cursor = una;
        self.normalize();
    }

    /// The next lost packet to retransmit, if any.
    #[inline]
    pub fn next_lost(&self) -> Option<u64> {
        (self.cursor < self.lost_below).then_some(self.cursor)
    }

    /// Packet `k` was retransmitted.
    pub fn retransmitted(&mut self, k: u64) {
        self.retx.set(k);
        self.normalize();
    }

    /// Whether BDP-FC lets a new packet `next` go with `una` acknowledged.
    #[inline]
    pub fn may_send_new(&self, una: u64, next: u64) -> bool {
        next - una < self.cap as u64
    }
}

/// IRN receiver state of one flow: out-of-order packets beyond the next expected.
#[derive(Clone, Debug)]
pub struct IrnReceiver {
    pub ooo: SeqBits,
}

impl IrnReceiver {
    pub fn new(cap: u32) -> IrnReceiver {
        IrnReceiver {
            ooo: SeqBits::new(cap),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_bitmap_slides_and_forgets() {
        let mut b = SeqBits::new(10);
        assert_eq!(b.capacity(), 64);
        assert!(b.set(5) && b.set(63));
        assert!(!b.set(64), "outside the window");
        b.advance_to(6);
        assert!(!b.get(5) && b.get(63));
        assert!(b.set(69));
        assert!(b.get(69) && !b.get(5));
        b.advance_to(1000);
        assert!(!b.get(1000) && !b.get(63));
    }

    #[test]
    fn only_the_holes_below_the_highest_sack_are_lost() {
        let mut s = IrnSender::new(100);
        // Packets 0..10 sent; 2 and 5 lost. NACKs for 3, 4, 6, ... (cum = 2).
        s.on_nack(2, 3, 10);
        assert_eq!(s.next_lost(), Some(2));
        s.retransmitted(2);
        assert_eq!(s.next_lost(), None, "nothing else below 3");
        s.on_nack(2, 4, 10);
        s.on_nack(2, 6, 10);
        assert_eq!(s.next_lost(), Some(5));
        s.retransmitted(5);
        for k in 7..10 {
            s.on_nack(2, k, 10);
        }
        assert_eq!(s.next_lost(), None, "2 and 5 only once each");
        // The retransmission of 2 arrives: cum jumps to 5; then 5 arrives: cum 10.
        s.on_ack(5);
        assert!(s.in_recovery);
        s.on_ack(10);
        assert!(!s.in_recovery);
        assert_eq!(s.next_lost(), None);
    }

    #[test]
    fn a_timeout_resends_every_outstanding_packet_not_sacked() {
        let mut s = IrnSender::new(100);
        s.on_nack(0, 2, 4); // 0, 1, 3 unaccounted for
        s.retransmitted(0);
        s.retransmitted(1);
        s.on_timeout(0, 4);
        let mut lost = Vec::new();
        while let Some(k) = s.next_lost() {
            lost.push(k);
            s.retransmitted(k);
        }
        assert_eq!(lost, vec![0, 1, 3]);
    }

    #[test]
    fn bdp_fc_caps_packets_beyond_the_cumulative_ack() {
        let s = IrnSender::new(8);
        assert!(s.may_send_new(10, 17));
        assert!(!s.may_send_new(10, 18));
    }
}
