//! Run counters reported in the summary: packets, bytes, drops and PFC frames,
//! counted by the event loop ([`crate::sim`]) and written by
//! [`crate::output`]. Plain data, below both.

/// Counters reported in the summary.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub packets_tx: u64,
    pub data_packets_tx: u64,
    /// Payload bytes senders put on the wire (retransmissions included).
    pub payload_tx_bytes: u64,
    /// Payload bytes that reached receivers (duplicates and out-of-order included).
    pub payload_rx_bytes: u64,
    /// Payload bytes delivered in order (each byte once).
    pub delivered_bytes: u64,
    pub drops_buffer: u64,
    pub drops_link: u64,
    pub drops_no_route: u64,
    pub pfc_pause_frames: u64,
    pub pfc_resume_frames: u64,
    /// P-PFC pauses (counted in `pfc_pause_frames` too).
    pub ppfc_pause_frames: u64,
    /// Data packets sent again (any loss recovery).
    pub retx_packets: u64,
    pub cnps_sent: u64,
    pub nacks_sent: u64,
    pub timeouts: u64,
    pub retx_bytes: u64,
}
