//! Per-receiver-NIC state for receiver-driven congestion control (RCC §III-C,
//! §III-D): the number of active messages and the bytes received over the last
//! base RTT. The NIC holds one ([`crate::nic::Nic`]`::rx`) so that controllers
//! stay plain structs; it lives in `cc` because only receiver-side control reads it.
//!
//! `B_R` is about the last hop being full (§III-C: "the bandwidth of the last hop
//! has been fully utilized"), so the NIC feeds it every frame that arrives on its
//! link, at its wire size: data, and also the ACKs, NACKs, CNPs and PFC frames
//! that share the downlink with the data ([`RxNicState::on_frame`], called from
//! `Nic::on_packet`). Counting data alone would read a saturated downlink that
//! also carries the host's returning ACKs as below `eta`.

use crate::units::{Delta, SimTime};

#[derive(Clone, Debug)]
pub struct RxNicState {
    /// Messages whose first packet arrived and whose last has not (RCC's N).
    pub active_msgs: u32,
    /// Length of the byte-count window: the smallest base RTT of the flows this
    /// NIC has received (`min_i RTT_i^base`).
    window_len: Delta,
    window_start: SimTime,
    bytes_in_window: u64,
    /// Wire bytes received in the last complete window (`B_R`).
    bytes_last_window: u64,
    // Until the first flow registers there is no window length; `window_start`
    // then follows the latest frame and `bytes_in_window` holds the frames of that
    // instant, so the frame that registers the first flow counts in its window.
    /// For clock-jitter noise on delay samples (its own stream, so turning jitter
    /// on does not change the link-loss draws).
    pub rng: crate::lazy_rng::LazyRng,
}

impl RxNicState {
    pub fn new(rng: crate::lazy_rng::LazyRng) -> Self {
        RxNicState {
            active_msgs: 0,
            window_len: Delta(u64::MAX),
            window_start: SimTime::ZERO,
            bytes_in_window: 0,
            bytes_last_window: 0,
            rng,
        }
    }

    /// A flow with base RTT `base_rtt` starts arriving here.
    pub fn register_flow(&mut self, now: SimTime, base_rtt: Delta) {
        if base_rtt < self.window_len {
            if self.window_len.0 == u64::MAX && self.window_start != now {
                self.window_start = now;
                self.bytes_in_window = 0;
            }
            self.window_len = base_rtt.max(Delta(1));
        }
    }

    /// Counts one frame of `wire` bytes (any kind) arriving at `now` into tumbling
    /// windows of one base RTT.
    #[inline]
    pub fn on_frame(&mut self, now: SimTime, wire: u64) {
        let len = self.window_len.ps();
        if len == u64::MAX {
            if now != self.window_start {
                self.window_start = now;
                self.bytes_in_window = 0;
            }
            self.bytes_in_window += wire;
            return;
        }
        let elapsed = now.since(self.window_start).ps();
        if elapsed >= len {
            let k = elapsed / len;
            self.bytes_last_window = if k == 1 { self.bytes_in_window } else { 0 };
            self.bytes_in_window = 0;
            self.window_start = SimTime(self.window_start.ps() + k * len);
        }
        self.bytes_in_window += wire;
    }

    /// `B_R >= eta x C x min_i RTT_i^base` (RCC §III-C), `line_bps` being C.
    #[inline]
    pub fn last_hop_busy(&self, line_bps: f64, eta: f64) -> bool {
        let len = self.window_len.ps();
        len != u64::MAX
            && self.bytes_last_window as f64 * 8.0 >= eta * line_bps * self.window_len.as_secs_f64()
    }

    pub fn bytes_last_window(&self) -> u64 {
        self.bytes_last_window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_per_base_rtt_and_an_idle_window_counts_zero() {
        let mut s = RxNicState::new(crate::lazy_rng::LazyRng::new(1));
        let us = |t: u64| SimTime(t * 1_000_000);
        s.register_flow(us(0), Delta::from_us(10));
        for t in 0..10 {
            s.on_frame(us(t), 12_500); // 100 Gbps for 10 us
        }
        s.on_frame(us(10), 1);
        assert_eq!(s.bytes_last_window(), 125_000);
        assert!(s.last_hop_busy(100e9, 0.95));
        assert!(!s.last_hop_busy(200e9, 0.95));
        // Nothing from 11 to 35 us: the window before 30 us was empty.
        s.on_frame(us(35), 1);
        assert_eq!(s.bytes_last_window(), 0);
        assert!(!s.last_hop_busy(100e9, 0.95));
    }

    #[test]
    fn the_frame_that_registers_the_first_flow_counts_and_earlier_ones_do_not() {
        let mut s = RxNicState::new(crate::lazy_rng::LazyRng::new(1));
        let us = |t: u64| SimTime(t * 1_000_000);
        s.on_frame(us(1), 5_000); // an ACK before any data: no window yet
        s.on_frame(us(2), 1_062); // the first data packet, then its flow registers
        s.register_flow(us(2), Delta::from_us(10));
        s.on_frame(us(12), 1);
        assert_eq!(s.bytes_last_window(), 1_062);
    }
}
