//! A switch's MMU parameters, derived from the PFC plan, the MMU model
//! (`model.mmu`) and the switch's ports.
//!
//! * `default` (docs/models.md §Switch; DCQCN §4, HPCC §5.1): headroom per port
//!   `2 x rate x delay + 3` full frames, alpha 1/8 on every port, reserve and
//!   resume offset as the scenario says.
//! * `ns3` (hpcc-ns3-model.md §2; third.cc `main`, switch-mmu.cc): headroom per
//!   port `floor(rate_bps x delay_ns / 8 / 1e9) x 3` (propagation only, integer
//!   division before the x 3), alpha `2^-shift` with shift 3 lowered by one while
//!   the port rate, halved each time, is above the NIC rate (floor 0), a 4 KiB
//!   reserve per (port, class) that the pool subtracts once per port, and
//!   ns-3's admission arithmetic. (Its 3 KiB resume offset is the ns3-hpcc
//!   default of the PFC controller's `switch.pfc.resume_offset`.) The NIC rate is the rate of
//!   the lowest-numbered host's link, as third.cc's `get_nic_rate` takes it.
//!
//! Explicit `switch.pfc.*` values win over either model's derived ones.

use super::{MmuConfig, PfcThreshold};
use crate::profile::MmuModel;
use crate::topology::PortInfo;
use crate::units::Rate;

/// ns-3's dynamic-threshold shift for a port: 3, minus one per halving of the
/// port rate while it stays above the NIC rate.
pub fn ns3_alpha_shift(port: Rate, nic: Rate) -> u32 {
    let mut shift = 3;
    let mut rate = port.bps();
    while rate > nic.bps() && shift > 0 {
        shift -= 1;
        rate /= 2;
    }
    shift
}

/// ns-3's headroom for a port: three times the one-way propagation BDP.
pub fn ns3_headroom(port: &PortInfo) -> u64 {
    (port.rate.bps() as u128 * port.delay.as_ns() as u128 / 8 / 1_000_000_000) as u64 * 3
}

/// The run's buffer settings (`[switch]`, `[switch.pfc]`): the same for every
/// switch; each switch's per-port values are derived from them when it is built.
#[derive(Clone, Debug)]
pub struct MmuPlan {
    pub buffer: u64,
    /// PFC on: lossless classes, headroom, XOFF/XON.
    pub lossless: bool,
    pub threshold: PfcThreshold,
    /// `None` = derived per port by the MMU model (1/8; ns-3: by port speed).
    pub alpha: Option<f64>,
    /// `None` = derived per port by the MMU model.
    pub headroom: Option<u64>,
    /// Bytes reserved per (ingress port, class).
    pub reserve: u64,
    /// Lossy mode: egress dynamic-threshold alpha.
    pub egress_alpha: f64,
    /// Cap on the shared pool (`switch.shared_buffer`).
    pub shared_buffer: Option<u64>,
    /// `threshold = "dcqcn-static"`: the static threshold of each switch (by
    /// switch index); empty otherwise.
    pub dcqcn_static: Vec<u64>,
}

/// What the derivation reads beyond the plan and the ports.
#[derive(Clone, Copy, Debug)]
pub struct MmuFacts {
    pub model: MmuModel,
    /// A full data packet on the wire (the default headroom's frames).
    pub mtu_wire: u64,
    /// The NIC rate: ns-3's alpha shift halves the port rate down to it.
    pub nic_rate: Rate,
}

impl MmuPlan {
    /// Headroom of a port: as configured, or 2 x (rate x delay) in flight both
    /// ways + 3 full frames (the one being sent when XOFF leaves, the PAUSE
    /// itself, the one the upstream has started).
    pub fn headroom_for(&self, port: &PortInfo, mtu_wire: u64) -> u64 {
        self.headroom
            .unwrap_or_else(|| 2 * port.rate.bytes_in(port.delay) + 3 * mtu_wire)
    }

    /// The MMU configuration of switch number `switch_idx`, whose ports are `infos`.
    pub fn config(&self, facts: MmuFacts, switch_idx: usize, infos: &[PortInfo]) -> MmuConfig {
        let ns3 = facts.model == MmuModel::Ns3;
        let (mtu_wire, nic_rate) = (facts.mtu_wire, facts.nic_rate);
        let headroom = infos
            .iter()
            .map(|p| {
                if ns3 && self.headroom.is_none() {
                    ns3_headroom(p)
                } else {
                    self.headroom_for(p, mtu_wire)
                }
            })
            .collect();
        let alpha = infos
            .iter()
            .map(|p| match self.alpha {
                Some(a) => a,
                None if ns3 => 1.0 / (1u32 << ns3_alpha_shift(p.rate, nic_rate)) as f64,
                None => 0.125,
            })
            .collect();
        MmuConfig {
            buffer: self.buffer,
            lossless: self.lossless,
            threshold: match self.dcqcn_static.get(switch_idx) {
                Some(&t) => PfcThreshold::Static(t),
                None => self.threshold,
            },
            alpha,
            headroom,
            reserve: self.reserve,
            reserve_once_per_port: ns3,
            egress_alpha: self.egress_alpha,
            ns3_admission: ns3,
            shared_cap: self.shared_buffer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::NodeId;
    use crate::units::Delta;

    #[test]
    fn the_ns3_shift_halves_the_port_rate_until_it_reaches_the_nic_rate() {
        let g = Rate::from_gbps;
        assert_eq!(ns3_alpha_shift(g(100), g(100)), 3);
        assert_eq!(ns3_alpha_shift(g(200), g(100)), 2);
        assert_eq!(ns3_alpha_shift(g(400), g(100)), 1);
        assert_eq!(ns3_alpha_shift(g(1600), g(25)), 0);
        // Not a power of two: 150 > 100 once, then 75 stops it.
        assert_eq!(ns3_alpha_shift(g(150), g(100)), 2);
        assert_eq!(ns3_alpha_shift(g(25), g(100)), 3);
    }

    #[test]
    fn ns3_headroom_is_three_propagation_bdps_truncated_first() {
        let p = |gbps, ns| PortInfo {
            peer: NodeId(0),
            peer_port: 0,
            rate: Rate::from_gbps(gbps),
            delay: Delta::from_ns(ns),
            loss: 0.0,
        };
        assert_eq!(ns3_headroom(&p(100, 1000)), 37_500);
        assert_eq!(ns3_headroom(&p(400, 1000)), 150_000);
        // 25G x 1001 ns / 8 = 3128.125 -> 3128, x 3.
        assert_eq!(ns3_headroom(&p(25, 1001)), 9384);
    }
}
