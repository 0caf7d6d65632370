//! Modelling choices that differ between simulators, as configuration.
//!
//! rocesim's default profile is paper-faithful. The `ns3-hpcc` profile reproduces
//! the HPCC ns-3 simulator's choices (see docs/ns3-compat.md and
//! ../shared/reference/hpcc-ns3-model.md). Every choice here is a plain value the
//! scenario can override; nothing in the models hard-codes one simulator's habit.

use crate::units::{Delta, PS_PER_NS, Rate};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Profile {
    /// Paper-faithful modelling (the default).
    #[default]
    #[serde(rename = "default")]
    Default,
    /// Like-for-like with the HPCC ns-3 simulator.
    #[serde(rename = "ns3-hpcc")]
    Ns3Hpcc,
}

impl Profile {
    /// The name a scenario gives it (`profile = "ns3-hpcc"`).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Ns3Hpcc => "ns3-hpcc",
        }
    }
}

/// How serialization time is computed from wire bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Serialization {
    /// Exact, in picoseconds (rounded up).
    Exact,
    /// Whole nanoseconds, truncated, with exact values coming out 1 ns short, as
    /// ns-3's double-to-time conversion does (hpcc-ns3-model.md §1).
    Ns3Truncated,
}

impl Serialization {
    #[inline(always)]
    pub fn tx_time(self, rate: Rate, bytes: u64) -> Delta {
        match self {
            Serialization::Exact => rate.tx_time(bytes),
            Serialization::Ns3Truncated => {
                // 64-bit arithmetic when it cannot overflow (up to
                // 2,305,843,009 bytes: any packet).
                if let Some(num) = bytes.checked_mul(8 * 1_000_000_000) {
                    let ns = num.saturating_sub(1) / rate.bps();
                    return Delta(ns.saturating_mul(PS_PER_NS));
                }
                let num = bytes as u128 * 8 * 1_000_000_000;
                let ns = num.saturating_sub(1) / rate.bps() as u128;
                // Past u64::MAX ps (213 days) a time saturates, as in `Rate::tx_time`.
                Delta(u64::try_from(ns * PS_PER_NS as u128).unwrap_or(u64::MAX))
            }
        }
    }
}

/// How INT bytes are counted on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntBytes {
    /// A fixed area on every data packet whatever the hop count (HPCC §5.1's
    /// worst-case assumption: 42 B).
    Fixed(u32),
    /// `base` bytes from the sender plus `per_hop` bytes added by each switch.
    PerHop { base: u32, per_hop: u32 },
}

/// Wire sizes of every packet kind, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireSizes {
    /// Headers on every data packet (everything but payload and INT).
    pub data_header: u32,
    /// INT area, when the congestion control uses INT.
    pub int: IntBytes,
    /// ACK/NACK bytes before any copied INT area.
    pub ack: u32,
    /// ACKs are padded up to this size.
    pub ack_min: u32,
    /// Congestion notification packet.
    pub cnp: u32,
    /// PFC frame.
    pub pfc: u32,
}

impl WireSizes {
    /// RoCEv2 as we count it: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 +
    /// FCS 4 = 62 B on data; ACK adds AETH 4 (66 B); CNP carries a 16 B reserved
    /// field (78 B); a PFC frame is a minimum Ethernet frame (64 B). Preamble and
    /// inter-frame gap are not counted.
    pub const ROCEV2: WireSizes = WireSizes {
        data_header: 62,
        int: IntBytes::Fixed(42),
        ack: 66,
        ack_min: 64,
        cnp: 78,
        pfc: 64,
    };
    /// The ns-3 simulator's sizes (hpcc-ns3-model.md §1): 48 B of headers, fixed
    /// 42 B INT, ACK 14+20+12 padded to 60 (88 with INT), 43 B PFC frames.
    pub const NS3: WireSizes = WireSizes {
        data_header: 48,
        int: IntBytes::Fixed(42),
        ack: 46,
        ack_min: 60,
        cnp: 60,
        pfc: 43,
    };

    /// Bytes of INT area a data packet leaves the sender with.
    pub fn int_at_sender(&self, int_on: bool) -> u32 {
        match (int_on, self.int) {
            (false, _) => 0,
            (true, IntBytes::Fixed(b)) => b,
            (true, IntBytes::PerHop { base, .. }) => base,
        }
    }
    /// Bytes each switch adds when it stamps INT.
    pub fn int_per_hop(&self) -> u32 {
        match self.int {
            IntBytes::Fixed(_) => 0,
            IntBytes::PerHop { per_hop, .. } => per_hop,
        }
    }
    /// Wire size of a full data packet leaving the sender.
    pub fn data_wire(&self, payload: u32, int_on: bool) -> u32 {
        payload + self.data_header + self.int_at_sender(int_on)
    }
    /// Wire size of an ACK that copies `int_bytes` of INT.
    pub fn ack_wire(&self, int_bytes: u32) -> u32 {
        (self.ack + int_bytes).max(self.ack_min)
    }
}

/// How congestion is signalled from receiver to sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CnpMode {
    /// A CNP packet, at most one per flow per interval (DCQCN §3.1 NP): at
    /// once for a marked packet when none went out in the last interval,
    /// else at the window's end; with `timer`, only at the end of each
    /// interval (timed from the flow's first packet) that saw a mark (DCQCN
    /// §5.2: "CNP generation is driven by a timer"; its fluid model's (§5.1) τ* = 50 µs
    /// is "the maximum possible delay of CNP generation").
    Packet { interval: Delta, timer: bool },
    /// A flag on the ACK of each marked packet (the ns-3 model).
    AckFlag,
}

/// How the ideal (stand-alone) FCT is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdealFct {
    /// The flow alone at line rate on an idle network under this model: store-and-
    /// forward of its real packets on its ECMP path plus the last ACK's return.
    Alone,
    /// ns-3: pair RTT + (size + packets x 48 B) x 8 / bottleneck rate
    /// (hpcc-ns3-model.md §9).
    Ns3,
}

/// Where switches mark ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcnPoint {
    /// On arrival, from the egress queue the packet joins (DCQCN §3.1 CP).
    Enqueue,
    /// On departure, from the queue left behind (the ns-3 model).
    Dequeue,
}

/// How ECMP picks among equal-cost next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcmpHash {
    /// A 64-bit mix of the 5-tuple, seeded per switch from the run seed.
    Seeded,
    /// MurmurHash3-x86_32 of (sip, dip, sport|dport<<16) seeded with the switch's
    /// node id, as the ns-3 simulator does.
    Ns3Murmur,
    /// A 64-bit mix of the unordered 5-tuple (the same for a flow and its
    /// reverse), seeded per tier (a switch's hop distance from the nearest
    /// host) from the run seed: on a fat-tree or leaf-spine, whose equal-cost
    /// next hops are listed in the same order at every switch of a tier, a
    /// packet and its reply take mirror paths (ExpressPass's data follows its
    /// credits, `large-scale-fattree.tcl:95-99`).
    Symmetric,
}

/// When a NIC looks again for a packet to send (hpcc-ns3-model.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NicScheduler {
    /// As soon as anything can go: when the port frees, at the earliest pacing
    /// time of any queue pair, and on every event that may unblock one.
    Eager,
    /// As the ns-3 simulator's qbb-net-device does: the NIC looks when a
    /// transmission completes, when an ACK/NACK arrives, when it queues an ACK,
    /// when a flow starts, on a RESUME, and at one pending wake-up. When nothing
    /// can go, the wake-up is set to the earliest pacing time of the queue pairs
    /// with bytes left (paused and window-bound ones included), and only if none
    /// is pending and that time is in the future; HPCC's rate changes may pull a
    /// pending wake-up earlier. Controller timers do not make it look.
    Ns3,
}

/// Which shared-buffer MMU rules switches follow (src/switch/mmu/derive.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MmuModel {
    /// rocesim's MMU (docs/models.md §Switch): headroom 2 x BDP + 3 frames, alpha
    /// 1/8, no reserve, resume offset two frames.
    Default,
    /// The ns-3 simulator's MMU (hpcc-ns3-model.md §2): 4 KiB reserve per (port,
    /// class) subtracted once per port, 3 x propagation BDP headroom, alpha 2^-shift
    /// by port speed, 3 KiB resume offset, and its exact admission arithmetic.
    Ns3,
}

/// How switches encode the INT records they stamp (HPCC's INT header fields;
/// the encoding is `switch::int::encode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntUnits {
    /// Exact values (picosecond time, byte counts).
    Exact,
    /// The ns-3 simulator's fields (hpcc-ns3-model.md §3): time in whole ns,
    /// transmitted bytes in units of 128 x `multi` and queue length in units of
    /// 80 x `multi` (both truncated), queue length 17 bits wide (wraps).
    Ns3 { multi: u32 },
}

/// The resolved modelling choices of a run.
#[derive(Clone, Debug)]
pub struct ModelConfig {
    pub profile: Profile,
    pub sizes: WireSizes,
    pub serialization: Serialization,
    pub ecn_point: EcnPoint,
    pub cnp: CnpMode,
    /// Receivers re-ACK duplicate packets (so a lost last ACK cannot hang a flow).
    pub ack_duplicates: bool,
    pub ideal_fct: IdealFct,
    /// On a rate change, re-space the next packet from the last one at the new rate
    /// (otherwise the new rate applies from the gap after the next packet).
    pub repace_on_rate_change: bool,
    pub nic_scheduler: NicScheduler,
    pub ecmp_hash: EcmpHash,
    pub mmu: MmuModel,
    pub int_units: IntUnits,
}

impl ModelConfig {
    pub fn for_profile(profile: Profile) -> ModelConfig {
        match profile {
            Profile::Default => ModelConfig {
                profile,
                sizes: WireSizes::ROCEV2,
                serialization: Serialization::Exact,
                ecn_point: EcnPoint::Enqueue,
                cnp: CnpMode::Packet {
                    interval: Delta::from_us(50),
                    timer: false,
                },
                ack_duplicates: true,
                ideal_fct: IdealFct::Alone,
                repace_on_rate_change: true,
                nic_scheduler: NicScheduler::Eager,
                ecmp_hash: EcmpHash::Seeded,
                mmu: MmuModel::Default,
                int_units: IntUnits::Exact,
            },
            Profile::Ns3Hpcc => ModelConfig {
                profile,
                sizes: WireSizes::NS3,
                serialization: Serialization::Ns3Truncated,
                ecn_point: EcnPoint::Dequeue,
                cnp: CnpMode::AckFlag,
                ack_duplicates: false,
                ideal_fct: IdealFct::Ns3,
                repace_on_rate_change: true,
                nic_scheduler: NicScheduler::Ns3,
                ecmp_hash: EcmpHash::Ns3Murmur,
                mmu: MmuModel::Ns3,
                int_units: IntUnits::Ns3 { multi: 1 },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns3_serialization_is_the_128_bit_quotient_for_any_size() {
        for bps in [1u64, 7, 1_000_000_007, 25_000_000_000, 100_000_000_000] {
            for bytes in [
                0u64,
                1,
                64,
                1048,
                9000,
                2_305_843_009,
                2_305_843_010,
                1 << 40,
            ] {
                let ns = (bytes as u128 * 8_000_000_000).saturating_sub(1) / bps as u128;
                // Saturated beyond u64::MAX ps (1 TiB at 1 or 7 bps).
                let want = Delta(u64::try_from(ns * 1000).unwrap_or(u64::MAX));
                let got = Serialization::Ns3Truncated.tx_time(Rate::from_bps(bps), bytes);
                assert_eq!(got, want, "{bytes} B at {bps}");
            }
        }
    }

    #[test]
    fn ns3_serialization_truncates_and_exact_values_come_out_one_ns_short() {
        let r = Rate::from_gbps(100);
        let s = Serialization::Ns3Truncated;
        // hpcc-ns3-model.md §1: 1000 B -> 79 ns, 1048 -> 83, 1090 -> 87, 60 -> 4, 88 -> 7, 43 -> 3.
        for (bytes, ns) in [
            (1000, 79),
            (1048, 83),
            (1090, 87),
            (60, 4),
            (88, 7),
            (43, 3),
        ] {
            assert_eq!(s.tx_time(r, bytes), Delta::from_ns(ns), "{bytes} B");
        }
        assert_eq!(Serialization::Exact.tx_time(r, 1000), Delta::from_ns(80));
    }

    #[test]
    fn ns3_acks_are_60_bytes_or_88_with_int() {
        assert_eq!(WireSizes::NS3.ack_wire(0), 60);
        assert_eq!(WireSizes::NS3.ack_wire(42), 88);
        assert_eq!(WireSizes::NS3.data_wire(1000, true), 1090);
        assert_eq!(WireSizes::NS3.data_wire(1000, false), 1048);
    }
}
