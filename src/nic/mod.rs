//! RDMA NIC: one port, reliable-connection queue pairs, pacing, windows, ACK/NACK
//! and CNP generation, loss recovery (go-back-N, go-back-0 or IRN, [`irn`]) and
//! retransmission timeouts.
//!
//! Transmit selection (per packet): the control queue (ACK/NACK/CNP) first, unless
//! its class is paused; then round robin over the queue pairs that are eligible:
//! class not paused, data left, window open, and pacing time reached. When nothing
//! is eligible the NIC sleeps until the earliest pacing time. The behaviour itself
//! is in `sim::hosts`.

pub mod irn;
pub mod qp;

use crate::packet::PktQueue;
use crate::port::Egress;
use crate::topology::NodeId;
use crate::units::Delta;
use rand_chacha::ChaCha8Rng;

pub struct Nic {
    pub node: NodeId,
    pub eg: Egress,
    /// ACK/NACK/CNP waiting to go out.
    pub ctrl: PktQueue,
    /// Flows with a sender queue pair at this NIC that has not completed.
    pub active: Vec<u32>,
    /// Round-robin position in `active`.
    pub rr: usize,
    pub rng: ChaCha8Rng,
    /// Receiver-side congestion-control state (RCC's N and B_R).
    pub rx: crate::cc::rx_nic::RxNicState,
    /// The one pending wake-up of the ns-3 NIC scheduler (`m_nextSend`),
    /// `SimTime::MAX` when none is pending. Unused by the eager scheduler.
    pub wake_at: crate::units::SimTime,
}

/// The ns-3 simulator's receiver ACK rule (hpcc-ns3-model.md §5, `ReceiverCheckSeq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns3Ack {
    /// L2_ACK_INTERVAL (bytes): ACK every in-order packet once the expected
    /// sequence has reached it (the milestone resets on every packet, issue #65).
    pub interval_bytes: u64,
    /// L2_CHUNK_SIZE (bytes): also ACK when the expected sequence is a multiple
    /// of it; 0 = no chunks.
    pub chunk: u64,
    /// L2_BACK_TO_ZERO: NACKs and ACKs round the sequence down to a chunk.
    pub back_to_zero: bool,
}

/// The NIC settings of a run (`[nic]` with the profile's defaults filled in).
#[derive(Clone, Debug)]
pub struct NicPlan {
    pub mtu: u32,
    pub ack_interval: u32,
    /// `Some` = the ns-3 ACK rule instead of `ack_interval`.
    pub ns3_ack: Option<Ns3Ack>,
    /// ACK/NACK travel in class 0 at switches (else in the flow's class).
    pub ack_in_control_class: bool,
    /// The host's ACK queue stops only for a PAUSE of class 0, whatever class
    /// the ACKs travel in (ns-3 ACK_HIGH_PRIO = 1); else for their own class.
    pub ack_pause_control: bool,
    pub nack_interval: Delta,
    pub rto: Option<Delta>,
    pub loss_recovery: irn::LossRecovery,
}
