//! Workloads: the flows a run simulates.
//!
//! Every generator produces a list of [`FlowSpec`]s; the simulator sorts them by
//! start time (stable, so equal start times keep their order) and gives them ids.

pub mod incast;

use crate::topology::NodeId;
use crate::units::SimTime;

/// One RDMA WRITE message from `src` to `dst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    pub src: NodeId,
    pub dst: NodeId,
    /// Message size in payload bytes.
    pub size: u64,
    pub start: SimTime,
    /// Priority class (0-7; 0 is reserved for control traffic). The ns-3 files call it `pg`.
    pub class: u8,
    /// Destination UDP port (part of the ECMP 5-tuple).
    pub dport: u16,
}
