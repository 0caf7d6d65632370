//! What an observer sees of the fabric at a sample: a read-only view the
//! dispatcher implements (`sim`), over its partitions on threads or, with
//! MPI, over every rank (values summed, each rank giving what it holds).

use crate::cc::Congestion;
use crate::ids::FlowId;
use crate::port::Egress;
use crate::topology::NodeId;
use crate::units::Rate;

/// The fabric as observers read it between events.
pub trait FabricView {
    /// `width` values of each of `ports` (switch egress ports), which `fill`
    /// writes from the port's [`PortView`]: port `k`'s at
    /// `[k * width, (k + 1) * width)`. With MPI, summed over the ranks (each
    /// gives its own ports' values and zeros): every rank calls it alike.
    fn port_values(
        &self,
        ports: &[(NodeId, u16)],
        width: usize,
        fill: &dyn Fn(PortView<'_>, &mut [u64]),
    ) -> Vec<u64>;

    /// The bytes queued at each of `ports` (all classes), as
    /// [`Self::port_values`] reads them.
    fn queued(&self, ports: &[(NodeId, u16)]) -> Vec<u64> {
        self.port_values(ports, 1, &|p, v| v[0] = p.queued)
    }

    /// The active flows `selected` picks, in id order, with their counters
    /// (with MPI gathered from every rank, each counter from the rank of the
    /// end that has it): every rank calls it alike.
    fn flow_counters(&self, selected: &dyn Fn(FlowId) -> bool) -> Vec<(FlowId, FlowCounters)>;

    /// Every active flow, host by host (each NIC's in its order), with its
    /// sender's and receiver's state. Not on MPI ranks.
    fn flow_states(&self) -> Vec<(FlowId, FlowState)>;
}

/// One switch egress port as an observer reads it.
#[derive(Clone, Copy)]
pub struct PortView<'a> {
    /// Bytes queued, all classes.
    pub queued: u64,
    pub eg: &'a Egress,
}

/// Sender and receiver counters of one flow at a sampling instant.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct FlowCounters {
    /// The controller's pacing rate.
    #[serde(with = "crate::units::raw_rate")]
    pub rate: Rate,
    pub window: Option<u64>,
    /// Payload bytes sent, retransmissions included.
    pub sent: u64,
    /// Payload bytes delivered in order at the receiver.
    pub delivered: u64,
}

/// One flow's sender and receiver state at a sampling instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowState {
    /// The controller's pacing rate.
    pub rate: Rate,
    /// The controller's window, if it has one.
    pub window: Option<u64>,
    /// Payload bytes the receiver has in order.
    pub delivered: u64,
    /// How receiver-driven control (RCC) classifies the flow's congestion:
    /// the receiver's classification, else the sender's.
    pub congestion: Congestion,
}
