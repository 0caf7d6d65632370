//! The reliable-connection transport of a queue pair, as plain types: the
//! receiver's ACK policy and both ends of loss recovery. The NIC
//! ([`super::Nic`]) calls these and does the I/O.
//!
//! - ACK policy: ACK every `ack_interval` in-order packets and the last one
//!   (RoCEv2 NICs coalesce ACKs), or the HPCC ns-3 simulator's rule
//!   (hpcc-ns3-model.md §5, `ReceiverCheckSeq`: ACK once the expected byte has
//!   reached the milestone or a chunk boundary; NACK a gap once per expected byte
//!   and NACK interval; drop duplicates).
//! - Loss recovery: go-back-N (a NACK or a timeout rewinds to the first
//!   unacknowledged byte; DCQCN §2, the RoCE default), go-back-0 (the receiver
//!   drops the partial message; the sender starts it again), and IRN's selective
//!   retransmission (IRN §3.1, `super::irn`: out-of-order packets are kept and
//!   NACKed one by one; the sender resends only what is lost; RTO_low while at
//!   most N packets are outstanding, RTO_high otherwise).

use super::irn::{IrnReceiver, LossRecovery};
use super::qp::{RecvQp, SendQp};
use crate::units::{Delta, SimTime};

/// The ns-3 simulator's ACK rule (L2_ACK_INTERVAL, L2_CHUNK_SIZE, L2_BACK_TO_ZERO).
pub use super::Ns3Ack;

/// When the receiver acknowledges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AckRule {
    /// Every `n` in-order packets and the last packet of the message; duplicates
    /// are ACKed again when `ack_duplicates`.
    EveryN { n: u32, ack_duplicates: bool },
    /// hpcc-ns3-model.md §5.
    Ns3(Ns3Ack),
}

/// A NIC's transport settings (shared by all its queue pairs).
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    /// Payload bytes per full packet.
    pub mtu: u64,
    pub ack: AckRule,
    pub recovery: LossRecovery,
    /// A gap is NACKed at most once per expected byte within this interval.
    pub nack_interval: Delta,
    /// Retransmission timeout (IRN has its own two).
    pub rto: Option<Delta>,
    /// Keep every packet that arrives out of order, in a bitmap over the whole
    /// message, without NACKing it (Homa: a message's packets change priority
    /// and overtake each other by any distance; spraying reorders them too).
    /// Losses are then recovered by the RTO, or by Homa's RESEND (a NACK from
    /// the receiver's timeout, `cc.homa.resend_interval`).
    pub reorder: bool,
}

/// What the receiver does about one data packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxOutcome {
    /// Send an ACK (cumulative: the next expected byte).
    pub ack: bool,
    /// Send a NACK (the next expected byte; `sack` with IRN).
    pub nack: bool,
    /// IRN: the packet number (`seq / mtu`) that arrived out of order.
    pub sack: u64,
    /// Payload bytes delivered in order for the first time.
    pub fresh: u64,
    /// The packet was the next one expected (progress).
    pub in_order: bool,
}

/// The next data packet a sender puts on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub payload: u32,
    /// Bytes below the highest ever sent: a retransmission.
    pub retx: bool,
}

impl Transport {
    /// The out-of-order store of a `size`-byte message's receiver: the whole
    /// message when the receiver keeps reordered packets silently (Homa), else
    /// when the loss recovery keeps out-of-order packets (IRN; `cap`: its BDP
    /// cap in packets).
    pub fn new_receiver(&self, cap: Option<u32>, size: u64) -> Option<IrnReceiver> {
        if self.reorder {
            return Some(IrnReceiver::new(size.div_ceil(self.mtu) as u32));
        }
        match cap {
            Some(cap) if self.recovery.accepts_reordering() => Some(IrnReceiver::new(cap)),
            _ => None,
        }
    }

    /// Receiver: one data packet of a `size`-byte message at `seq`.
    #[inline(always)]
    pub fn receive(
        &self,
        rx: &mut RecvQp,
        seq: u64,
        payload: u64,
        size: u64,
        now: SimTime,
    ) -> RxOutcome {
        let mut out = RxOutcome::default();
        match self.ack {
            AckRule::Ns3(rule) => {
                if seq == rx.expected {
                    rx.expected += payload;
                    // With back-to-zero, bytes after a rewind arrive again: count each once.
                    out.fresh = rx.expected.saturating_sub(rx.delivered);
                    rx.delivered += out.fresh;
                    if rx.expected >= size {
                        rx.finished_at.get_or_insert(now);
                    }
                    out.ack = rx.expected >= rule.interval_bytes
                        || (rule.chunk > 0 && rx.expected.is_multiple_of(rule.chunk));
                    out.in_order = true;
                } else if seq > rx.expected && self.nack_due(rx, now) {
                    if rule.back_to_zero {
                        rx.expected = rx.expected / rule.chunk * rule.chunk;
                    }
                    out.nack = true;
                }
            }
            AckRule::EveryN { n, ack_duplicates } => {
                if seq == rx.expected {
                    rx.expected += payload;
                    if let Some(irn) = rx.irn.as_mut() {
                        // Packets kept out of order behind this one are delivered too.
                        let mtu = self.mtu;
                        while rx.expected < size && irn.ooo.get(rx.expected / mtu) {
                            rx.expected = (rx.expected + mtu).min(size);
                        }
                        irn.ooo.advance_to(rx.expected / mtu);
                    }
                    // Each byte counts once (go-back-0 may deliver a prefix again).
                    if rx.expected > rx.delivered {
                        out.fresh = rx.expected - rx.delivered;
                        rx.delivered = rx.expected;
                    }
                    rx.since_ack += 1;
                    if rx.expected >= size {
                        rx.finished_at.get_or_insert(now);
                        out.ack = true;
                    }
                    out.ack |= rx.since_ack >= n;
                    out.in_order = true;
                } else if seq > rx.expected {
                    if let Some(irn) = rx.irn.as_mut() {
                        // IRN: keep it and NACK every out-of-order packet (a
                        // one-block SACK); with `reorder`, keep it silently.
                        irn.ooo.set(seq / self.mtu);
                        out.nack = !self.reorder;
                        out.sack = seq / self.mtu;
                    } else {
                        if self.recovery == LossRecovery::GoBack0 {
                            // Go-back-0: the receiver drops the partial message.
                            rx.expected = 0;
                        }
                        out.nack = self.nack_due(rx, now);
                    }
                } else {
                    out.ack = ack_duplicates;
                }
            }
        }
        out
    }

    /// A gap NACK goes out once per expected byte and NACK interval.
    fn nack_due(&self, rx: &mut RecvQp, now: SimTime) -> bool {
        if rx.nacked_seq == Some(rx.expected) && now.since(rx.nack_at) < self.nack_interval {
            return false;
        }
        rx.nacked_seq = Some(rx.expected);
        rx.nack_at = now;
        true
    }

    /// The cumulative sequence an ACK/NACK carrying `seq` acknowledges (the ns-3
    /// back-to-zero rule rounds it down to a chunk).
    pub fn acked_seq(&self, seq: u64) -> u64 {
        match self.ack {
            AckRule::Ns3(rule) if rule.back_to_zero => seq / rule.chunk * rule.chunk,
            _ => seq,
        }
    }

    /// The retransmission timeout that applies to `qp` now: IRN's RTO_low while
    /// at most N packets are outstanding, else RTO_high; the configured one otherwise.
    pub fn rto(&self, qp: &SendQp) -> Option<Delta> {
        match &self.recovery {
            LossRecovery::Irn(c) => {
                let outstanding = (qp.snd_nxt - qp.snd_una).div_ceil(self.mtu);
                Some(if outstanding <= c.low_packets as u64 {
                    c.rto_low
                } else {
                    c.rto_high
                })
            }
            _ => self.rto,
        }
    }

    /// Sender: takes the next packet to send (IRN resends a lost packet before
    /// new ones) and arms the RTO if none is running.
    #[inline(always)]
    pub fn next_segment(&self, qp: &mut SendQp, now: SimTime) -> Segment {
        let lost = qp.irn.as_ref().and_then(|irn| irn.next_lost());
        let seq = match lost {
            None => qp.snd_nxt,
            Some(k) => k * self.mtu,
        };
        let payload = self.mtu.min(qp.size - seq);
        let retx = seq < qp.high_sent;
        if retx {
            qp.retx_bytes += payload;
        }
        match lost {
            None => qp.snd_nxt += payload,
            Some(k) => qp.irn.as_mut().expect("IRN found it").retransmitted(k),
        }
        qp.high_sent = qp.high_sent.max(seq + payload);
        if qp.rto_at == SimTime::MAX
            && let Some(rto) = self.rto(qp)
        {
            qp.rto_at = now + rto;
        }
        Segment {
            seq,
            payload: payload as u32,
            retx,
        }
    }

    /// Sender: an ACK or NACK acknowledging everything below `seq` (already
    /// passed through [`Transport::acked_seq`]). Returns the newly acknowledged bytes.
    #[inline(always)]
    pub fn on_ack(&self, qp: &mut SendQp, seq: u64, nack: Option<u64>, now: SimTime) -> u64 {
        let mtu = self.mtu;
        let mut newly = 0;
        if seq > qp.snd_una {
            newly = seq - qp.snd_una;
            qp.snd_una = seq;
            qp.snd_nxt = qp.snd_nxt.max(seq);
            if let Some(irn) = qp.irn.as_mut() {
                irn.on_ack(seq / mtu);
            }
            qp.rto_at = match self.rto(qp) {
                Some(r) if qp.snd_una < qp.snd_nxt => now + r,
                _ => SimTime::MAX,
            };
        }
        if let Some(sack) = nack {
            qp.nacks += 1;
            match (&self.recovery, qp.irn.as_mut()) {
                (LossRecovery::Irn(_), Some(irn)) => {
                    irn.on_nack(qp.snd_una / mtu, sack, qp.snd_nxt.div_ceil(mtu));
                }
                (LossRecovery::GoBack0, _) => {
                    // The receiver dropped the message: start it again.
                    qp.snd_una = qp.snd_una.min(seq);
                    qp.snd_nxt = qp.snd_una;
                }
                _ => qp.snd_nxt = qp.snd_una,
            }
        }
        newly
    }

    /// Sender: the retransmission deadline passed. Returns true when it went
    /// back to resend (something was outstanding for a whole RTO).
    pub fn on_timeout(&self, qp: &mut SendQp, now: SimTime) -> bool {
        if qp.snd_una >= qp.snd_nxt {
            qp.rto_at = SimTime::MAX;
            return false;
        }
        // Nothing acknowledged for a whole RTO: go back to the first unacked
        // byte (go-back-0: to the first byte; IRN: resend what is not SACKed).
        let mtu = self.mtu;
        qp.timeouts += 1;
        match (&self.recovery, qp.irn.as_mut()) {
            (LossRecovery::Irn(_), Some(irn)) => {
                irn.on_timeout(qp.snd_una / mtu, qp.snd_nxt.div_ceil(mtu));
            }
            (LossRecovery::GoBack0, _) => {
                qp.snd_una = 0;
                qp.snd_nxt = 0;
            }
            _ => qp.snd_nxt = qp.snd_una,
        }
        let rto = self.rto(qp).expect("an RTO runs only when enabled");
        qp.rto_at = now + rto;
        true
    }
}

#[cfg(test)]
#[path = "transport_tests.rs"]
mod tests;
