//! Typed indices into the simulator's arenas, so that a flow index cannot be
//! passed where a host index is meant. Each is a `u32` (events pack one into
//! 29 bits, packets carry them in their 64-byte header); `.idx()` indexes the
//! arena it names and `from_idx` makes one from an arena position.

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// As an index into the arena it names.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }

            /// From an arena index (which fits in 32 bits by construction).
            #[inline]
            pub fn from_idx(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize, "index {i} does not fit in 32 bits");
                $name(i as u32)
            }
        }
    };
}

index_type!(
    /// A node (host or switch): its index in the topology
    /// ([`crate::topology::Topology`], re-exported as `topology::NodeId`).
    NodeId
);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

index_type!(
    /// A flow: its index in start order (fct.csv `flow_id`).
    FlowId
);

impl FlowId {
    /// No flow (PFC frames and packets not yet assigned to one).
    pub const NONE: FlowId = FlowId(u32::MAX);
}
index_type!(
    /// A NIC: its index among hosts.
    HostIdx
);
index_type!(
    /// A switch: its index among switches (its routing-table row).
    SwitchIdx
);
index_type!(
    /// A queue pair's slot at its NIC: the index of a flow's sending queue pair
    /// in its source NIC's `send`, or of its receiving one in its destination
    /// NIC's `recv`.
    QpSlot
);
index_type!(
    /// One direction of a link, named by the egress port that sends into it:
    /// the port's global index (event addressing, per-port recorders).
    EgressId
);
