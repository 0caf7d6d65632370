//! Buffer thresholds of a shared-buffer switch, DCQCN §4 ("Buffer settings").
//!
//! * `t_flight`: headroom per port and class, what arrives after a PAUSE is sent.
//!   DCQCN takes 22.4 KB "following guidelines in [8]" (Cisco's PFC white paper)
//!   without giving the inputs. We compute the IEEE 802.1Qbb worst case from its
//!   parts (bits at the link rate): the frame the receiver is sending when it
//!   decides to pause, the PAUSE frame, the interface delay at both ends, the
//!   cable both ways, the sender's response time, and the frame the sender has
//!   started. Interface and response delays are the IEEE 802.3 upper bounds for
//!   the rate (known for 10, 25, 40 and 100 Gbps); `t_flight` can be given instead.
//! * static `t_PFC <= (B - 8 n t_flight) / (8 n)`;
//! * dynamic `t_PFC = beta (B - 8 n t_flight - s) / 8`, `s` the occupied buffer;
//! * ECN before PFC: static `t_ECN < t_PFC / n`; dynamic
//!   `t_ECN < beta (B - 8 n t_flight) / (8 n (beta + 1))`.
//!
//! "8" is the number of lossless classes (`classes`). The printed formulas are
//! used as they are; upper bounds are rounded down to whole bytes.

use crate::units::{Delta, PS_PER_S, Rate};

/// Ethernet header (14) + 802.1Q tag (4, PFC's priority lives there) + FCS (4).
pub const FRAME_OVERHEAD: u64 = 22;
/// Preamble + start delimiter (8) and inter-frame gap (12).
pub const WIRE_GAP: u64 = 20;
/// A PAUSE frame: a minimum Ethernet frame.
pub const PAUSE_FRAME: u64 = 64;
/// Propagation in fiber, per metre (light at ~2/3 c).
pub const CABLE_PS_PER_M: u64 = 5_000;

/// IEEE 802.3 upper bounds in bit times: (interface delay per end, response
/// time to a PAUSE) for the rates the standard tabulates.
pub fn ieee_delays(rate: Rate) -> Option<(u64, u64)> {
    match rate.bps() {
        10_000_000_000 => Some((8_192, 30_720)),
        25_000_000_000 => Some((6_144, 40_960)),
        40_000_000_000 => Some((24_576, 60_416)),
        100_000_000_000 => Some((122_880, 201_728)),
        _ => None,
    }
}

/// The parts of the 802.1Qbb worst case, in bytes at the link rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    /// Largest frame the receiver is sending when it decides to pause.
    pub frame_at_receiver: u64,
    pub pause: u64,
    /// Interface delay, both ends.
    pub interfaces: u64,
    /// Cable delay, both ways.
    pub cable: u64,
    /// The sender's response time.
    pub response: u64,
    /// Largest frame the sender has started when the PAUSE takes effect.
    pub frame_at_sender: u64,
}

impl Headroom {
    pub fn total(&self) -> u64 {
        self.frame_at_receiver
            + self.pause
            + self.interfaces
            + self.cable
            + self.response
            + self.frame_at_sender
    }
}

/// The 802.1Qbb worst case for `mtu` (IP MTU in bytes) at `rate` over a cable of
/// `cable_m` metres; `None` for rates without tabulated delays.
pub fn headroom(rate: Rate, mtu: u64, cable_m: f64) -> Option<Headroom> {
    let (intf_bits, resp_bits) = ieee_delays(rate)?;
    let frame = mtu + FRAME_OVERHEAD + WIRE_GAP;
    let cable = Delta((cable_m * CABLE_PS_PER_M as f64).round() as u64);
    let cable_bits = cable.ps() as u128 * rate.bps() as u128 / PS_PER_S as u128;
    Some(Headroom {
        frame_at_receiver: frame,
        pause: PAUSE_FRAME + WIRE_GAP,
        interfaces: (2 * intf_bits).div_ceil(8),
        cable: (2 * cable_bits as u64).div_ceil(8),
        response: resp_bits.div_ceil(8),
        frame_at_sender: frame,
    })
}

/// A switch as DCQCN §4 describes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwitchBuffer {
    /// Total buffer `B`, bytes.
    pub buffer: u64,
    /// Ports `n`.
    pub ports: u64,
    /// Lossless classes (DCQCN: all 8).
    pub classes: u64,
    /// Headroom per port and class, bytes.
    pub t_flight: u64,
}

impl SwitchBuffer {
    /// `B - classes n t_flight`: what the headroom leaves.
    pub fn free_of_headroom(&self) -> Option<u64> {
        self.buffer
            .checked_sub(self.classes * self.ports * self.t_flight)
            .filter(|&b| b > 0)
    }
    /// Largest static `t_PFC`: `(B - 8 n t_flight) / (8 n)`.
    pub fn t_pfc_static(&self) -> Option<u64> {
        Some(self.free_of_headroom()? / (self.classes * self.ports))
    }
    /// Dynamic `t_PFC = beta (B - 8 n t_flight - s) / 8` with `s` bytes occupied.
    pub fn t_pfc_dynamic(&self, beta: f64, s: u64) -> Option<u64> {
        let free = self.free_of_headroom()?.saturating_sub(s);
        Some((beta * free as f64 / self.classes as f64).floor() as u64)
    }
    /// Static `t_ECN` bound: `t_PFC / n` (all egress queues fed by one ingress).
    pub fn t_ecn_static(&self) -> Option<u64> {
        Some(self.t_pfc_static()? / self.ports)
    }
    /// Dynamic `t_ECN` bound: `beta (B - 8 n t_flight) / (8 n (beta + 1))`.
    pub fn t_ecn_dynamic(&self, beta: f64) -> Option<u64> {
        let free = self.free_of_headroom()? as f64;
        Some(
            (beta * free / (self.classes as f64 * self.ports as f64 * (beta + 1.0))).floor() as u64,
        )
    }
    /// The dynamic-threshold alpha that gives DCQCN's `beta` (our threshold is
    /// `alpha x free shared pool`).
    pub fn alpha_for_beta(&self, beta: f64) -> f64 {
        beta / self.classes as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DCQCN §4's switch: Arista 7050QX32 (Trident II), 12 MB, 32 x 40 Gbps.
    fn trident2(t_flight: u64) -> SwitchBuffer {
        SwitchBuffer {
            buffer: 12_000_000,
            ports: 32,
            classes: 8,
            t_flight,
        }
    }

    #[test]
    fn the_papers_switch_gives_the_papers_t_pfc_and_dynamic_t_ecn() {
        let s = trident2(22_400);
        assert_eq!(s.t_pfc_static(), Some(24_475), "<= 24.47 KB");
        assert_eq!(s.t_ecn_dynamic(8.0), Some(21_755), "< 21.75 KB");
        assert_eq!(s.alpha_for_beta(8.0), 1.0);
        // The static bound is below one 1500 B MTU, the paper's conclusion
        // ("infeasible"); its printed 0.85 KB is not t_PFC / n = 0.76 KB.
        assert_eq!(s.t_ecn_static(), Some(764));
    }

    #[test]
    fn dynamic_t_pfc_shrinks_as_the_buffer_fills() {
        let s = trident2(22_400);
        let empty = s.t_pfc_dynamic(8.0, 0).unwrap();
        assert_eq!(empty, 6_265_600, "beta = 8: the whole free buffer");
        assert!(s.t_pfc_dynamic(8.0, 1_000_000).unwrap() < empty);
        assert_eq!(s.t_pfc_dynamic(8.0, 10_000_000), Some(0));
    }

    #[test]
    fn the_8021qbb_worst_case_adds_up_its_parts() {
        let h = headroom(Rate::from_gbps(40), 1500, 100.0).unwrap();
        assert_eq!(h.frame_at_receiver, 1542);
        assert_eq!(h.interfaces, 6_144);
        assert_eq!(h.response, 7_552, "118 quanta");
        assert_eq!(h.cable, 5_000, "2 x 500 ns at 40 Gbps");
        assert_eq!(h.total(), 1542 + 84 + 6144 + 5000 + 7552 + 1542);
        // Longer cables need more headroom; unknown rates have no table entry.
        assert!(headroom(Rate::from_gbps(40), 1500, 300.0).unwrap().total() > h.total());
        assert_eq!(headroom(Rate::from_gbps(50), 1500, 100.0), None);
    }

    #[test]
    fn too_much_headroom_leaves_no_threshold() {
        assert_eq!(trident2(50_000).t_pfc_static(), None);
    }
}
