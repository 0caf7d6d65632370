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
pub mod rx;

use crate::packet::PktQueue;
use crate::port::Egress;
use crate::topology::NodeId;
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
    pub rx: rx::RxNicState,
    /// The one pending wake-up of the ns-3 NIC scheduler (`m_nextSend`),
    /// `SimTime::MAX` when none is pending. Unused by the eager scheduler.
    pub wake_at: crate::units::SimTime,
}
