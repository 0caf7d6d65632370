//! Per-flow transport state, kept apart from the congestion-control algorithm's
//! own variables: the sender's queue pair and the receiver's sequence tracking.

use super::irn::{IrnReceiver, IrnSender};
use crate::cc::Cc;
use crate::cc::receiver::RxCtl;
use crate::units::SimTime;

/// Sender side of a reliable connection (one RDMA WRITE message).
#[derive(Clone, Debug)]
pub struct SendQp {
    pub size: u64,
    /// Next byte to send.
    pub snd_nxt: u64,
    /// Lowest unacknowledged byte.
    pub snd_una: u64,
    /// Highest byte ever sent (bytes below it that are sent again are retransmissions).
    pub high_sent: u64,
    /// Pacing: earliest time the next packet may start.
    pub next_avail: SimTime,
    pub last_tx_start: SimTime,
    pub last_tx_wire: u32,
    pub cc: Cc,
    /// Time of the scheduled timer event, `SimTime::MAX` if none.
    pub timer_at: SimTime,
    /// Retransmission deadline, `SimTime::MAX` when nothing is outstanding.
    pub rto_at: SimTime,
    pub done: bool,
    /// IRN selective-retransmission state (IRN loss recovery only).
    pub irn: Option<IrnSender>,
    // Counters for the per-flow record.
    pub retx_bytes: u64,
    pub timeouts: u32,
    pub cnps: u32,
    pub nacks: u32,
}

impl SendQp {
    pub fn new(size: u64, cc: Cc, now: SimTime) -> SendQp {
        SendQp {
            size,
            snd_nxt: 0,
            snd_una: 0,
            high_sent: 0,
            next_avail: now,
            last_tx_start: now,
            last_tx_wire: 0,
            cc,
            timer_at: SimTime::MAX,
            rto_at: SimTime::MAX,
            done: false,
            irn: None,
            retx_bytes: 0,
            timeouts: 0,
            cnps: 0,
            nacks: 0,
        }
    }

    /// Payload bytes sent and not yet acknowledged.
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    #[inline]
    pub fn has_data(&self) -> bool {
        !self.done && self.snd_nxt < self.size
    }

    /// Whether a packet may go now, pacing and pauses aside: a lost packet to
    /// resend (IRN), or new data within the window (and IRN's BDP cap).
    #[inline(always)]
    pub fn sendable(&self, mtu: u64) -> bool {
        match &self.irn {
            None => self.has_data() && self.cc_window_open(),
            Some(irn) => {
                !self.done
                    && (irn.next_lost().is_some()
                        || (self.snd_nxt < self.size
                            && self.cc_window_open()
                            && irn.may_send_new(self.snd_una / mtu, self.snd_nxt / mtu)))
            }
        }
    }

    /// The class of the next new data packet: the controller's choice (Homa's
    /// priorities) or the flow's class.
    #[inline(always)]
    pub fn next_class(&self, flow_class: u8) -> u8 {
        use crate::cc::CongestionControl;
        self.cc.data_class(self.snd_nxt).unwrap_or(flow_class)
    }

    /// Payload bytes not yet sent (the sender's SRBF order, Homa).
    #[inline]
    pub fn bytes_left(&self) -> u64 {
        self.size - self.snd_nxt.min(self.size)
    }

    #[inline]
    fn cc_window_open(&self) -> bool {
        use crate::cc::CongestionControl;
        self.cc.window().is_none_or(|w| self.in_flight() < w)
            && self.cc.send_limit().is_none_or(|l| self.snd_nxt < l)
    }
}

/// Receiver side of a reliable connection.
///
/// Once its message is complete and the rest of its state is at rest
/// ([`RecvQp::at_rest`]), the NIC frees it; a packet of the flow that still
/// comes (a duplicate) finds it rebuilt as [`RecvQp::closed`], which behaves
/// exactly as the freed state would have.
#[derive(Clone, Debug, Default)]
pub struct RecvQp {
    /// Next byte expected in order.
    pub expected: u64,
    /// `expected` value last NACKed, and when.
    pub nacked_seq: Option<u64>,
    pub nack_at: SimTime,
    /// Last CNP sent for this flow.
    pub last_cnp: Option<SimTime>,
    /// A packet marked inside the current CNP window awaits its CNP, due when
    /// the window ends (DCQCN §3.1 NP).
    pub cnp_pending: bool,
    /// In-order packets since the last ACK.
    pub since_ack: u32,
    /// A CE-marked packet arrived since the last ACK (echoed as ECE).
    pub ce_since_ack: bool,
    /// Payload bytes delivered in order (each byte once).
    pub delivered: u64,
    /// When its first packet arrived: the NP timer's phase with
    /// `nic.cnp = "timer"`.
    pub first_at: Option<SimTime>,
    /// Time the last byte was delivered (`None` once rebuilt by [`RecvQp::closed`]).
    pub finished_at: Option<SimTime>,
    /// Receiver-side congestion control (RCC), if any.
    pub ctl: RxCtl,
    /// IRN: out-of-order packets kept (IRN loss recovery only).
    pub irn: Option<IrnReceiver>,
}

impl RecvQp {
    /// The receiver of a complete `size`-byte message whose state was freed.
    pub fn closed(size: u64) -> RecvQp {
        RecvQp {
            expected: size,
            delivered: size,
            ..RecvQp::default()
        }
    }

    /// Whether the message (`size` bytes) is complete and nothing a later
    /// packet of it could read differs from [`RecvQp::closed`]: no ACK is owed
    /// (in-order count and ECN echo), no CNP is pending and the CNP window
    /// (`cnp_window`, when CNPs are packets) has ended by `now`, and there is no
    /// receiver-side controller. After completion every packet is a duplicate
    /// (below `expected`), so the NACK and IRN state are never read again.
    pub fn at_rest(
        &self,
        size: u64,
        now: SimTime,
        cnp_window: Option<crate::units::Delta>,
    ) -> bool {
        self.expected >= size
            && self.since_ack == 0
            && !self.ce_since_ack
            && !self.cnp_pending
            && match (self.last_cnp, cnp_window) {
                (Some(t), Some(w)) => now.since(t) >= w,
                _ => true,
            }
            && matches!(self.ctl, RxCtl::None)
    }
}
