//! Run counters reported in the summary: packets, bytes, drops and PFC frames,
//! counted by the event loop ([`crate::sim`]) and written by
//! [`crate::output`]. Plain data, below both.

/// Counters reported in the summary.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
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
    /// ExpressPass credits receivers sent, and credits dropped at credit
    /// queues (NICs and switches).
    pub credits_sent: u64,
    pub credits_dropped: u64,
}

impl Stats {
    /// Adds `o`'s counters to these (the partitions of a parallel run).
    pub fn add(&mut self, o: &Stats) {
        let Stats {
            packets_tx,
            data_packets_tx,
            payload_tx_bytes,
            payload_rx_bytes,
            delivered_bytes,
            drops_buffer,
            drops_link,
            drops_no_route,
            pfc_pause_frames,
            pfc_resume_frames,
            ppfc_pause_frames,
            retx_packets,
            cnps_sent,
            nacks_sent,
            timeouts,
            retx_bytes,
            credits_sent,
            credits_dropped,
        } = o;
        self.packets_tx += packets_tx;
        self.data_packets_tx += data_packets_tx;
        self.payload_tx_bytes += payload_tx_bytes;
        self.payload_rx_bytes += payload_rx_bytes;
        self.delivered_bytes += delivered_bytes;
        self.drops_buffer += drops_buffer;
        self.drops_link += drops_link;
        self.drops_no_route += drops_no_route;
        self.pfc_pause_frames += pfc_pause_frames;
        self.pfc_resume_frames += pfc_resume_frames;
        self.ppfc_pause_frames += ppfc_pause_frames;
        self.retx_packets += retx_packets;
        self.cnps_sent += cnps_sent;
        self.nacks_sent += nacks_sent;
        self.timeouts += timeouts;
        self.retx_bytes += retx_bytes;
        self.credits_sent += credits_sent;
        self.credits_dropped += credits_dropped;
    }
}
