//! N-to-1 incast: every sender starts one message of the same size to one receiver.

use super::FlowSpec;
use crate::topology::NodeId;
use crate::units::SimTime;

/// One flow of `size` bytes from each sender to `receiver`, all at `start`.
pub fn incast(
    senders: &[NodeId],
    receiver: NodeId,
    size: u64,
    start: SimTime,
    class: u8,
) -> Vec<FlowSpec> {
    senders
        .iter()
        .map(|&src| FlowSpec {
            src,
            dst: receiver,
            size,
            start,
            class,
            dport: 100,
        })
        .collect()
}
