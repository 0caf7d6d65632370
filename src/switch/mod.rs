//! Switch: per-port egress queues (8 classes), a shared-buffer MMU, flow control
//! (PFC, P-PFC, CaPFC: [`flowctl`]), RED/ECN marking ([`ecn`]), INT stamping
//! ([`int`]), load balancing over equal-cost next hops: ECMP ([`ecmp`]), packet
//! spraying ([`spray`]), flowlets ([`flowlet`]) or adaptive routing
//! ([`adaptive`]); with ExpressPass, a credit queue per port ([`credit`]). One
//! model, used for every switch.
//!
//! Scheduling: class 0 carries control traffic (PFC frames, CNPs and, by default,
//! ACK/NACKs); it is served first and ignores PAUSE. Classes 1-7 carry data and
//! are served packet-by-packet round robin, skipping paused and empty classes,
//! or, with [`Scheduling::Strict`] (`switch.scheduling = "strict"`, what Homa's
//! priorities need), in strict priority: the lowest-numbered ready class first.
//! Forwarding is in [`forward`], PFC frames it sends and its flow-control
//! timer in [`pause`]. A switch handles packets and timers through a
//! [`crate::node::Ctx`] and never reads another node; its routing table is
//! shared, immutable data.

pub mod adaptive;
mod credit;
pub mod ecmp;
pub mod ecn;
pub mod flowctl;
pub mod flowlet;
mod forward;
pub mod int;
pub mod mmu;
mod pause;
pub mod pint;
pub mod spray;
pub mod thresholds;

use crate::ids::{EgressId, SwitchIdx};
use crate::output::journal::Journal;
use crate::packet::IntCounter;
use crate::packet::PktQueue;
use crate::port::{CLASSES, Egress};
use crate::profile::{ModelConfig, Serialization};
use crate::topology::routing::Routes;
use crate::topology::{NodeId, PortInfo};
use crate::units::SimTime;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How a port chooses among its ready data classes (class 0 always goes first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduling {
    /// Packet-by-packet round robin over classes 1-7.
    #[default]
    RoundRobin,
    /// Strict priority: class 1 before 2 before ... 7 (Homa's in-network
    /// priority queues, Homa SIGCOMM'18 §3; HomaSimulation serves the lowest
    /// priority value first).
    Strict,
}

/// What every switch of a run shares.
#[derive(Clone, Debug)]
pub struct SwitchConfig {
    pub model: ModelConfig,
    /// Switches stamp INT records on data packets.
    pub int_on: bool,
    /// The byte counter INT records carry (the congestion control's).
    pub int_counter: IntCounter,
    /// Switches fill HPCC-PINT's field instead ([`pint`]).
    pub pint: Option<pint::PintPlan>,
    /// How a switch picks among equal-cost next hops: per flow (ECMP), per
    /// packet (spraying, adaptive) or per flowlet.
    pub load_balancing: spray::LoadBalancing,
    /// A PAUSE of `XOFF_QUANTA` never lapses (X-OFF/X-ON style).
    pub xoff_forever: bool,
    /// PFC diagnostics: an egress queue of at least this many bytes is congested
    /// (flows queued there are not victims of a pause).
    pub congested_queue: u64,
    /// How ports choose among ready data classes.
    pub scheduling: Scheduling,
}

/// The shared, immutable inputs a switch reads while it handles an event.
#[derive(Clone, Copy)]
pub struct SwitchEnv<'a> {
    pub cfg: &'a SwitchConfig,
    pub routes: &'a Routes,
}

/// A switch egress port: its queues and transmitter. Laid out in declaration
/// order (`repr(C)`, line-aligned) so that a packet passing through touches
/// few cache lines of it: the counters, the ECN parameters, the mask of
/// non-empty classes and the control queue (class 0: ACKs, NACKs, CNPs and
/// PAUSE frames, half of a fabric's transmissions when every packet is
/// acknowledged) share the first line, so that a control packet's enqueue and
/// dequeue touch no other; the seven data classes' queues fill the second;
/// the transmitter's hot fields ([`Egress`]) the third (docs/performance-log.md,
/// f28b8f5, "a switch port in three lines").
#[repr(C, align(64))]
pub struct SwitchPort {
    /// Bytes queued at this port, all classes.
    pub bytes: u64,
    /// Most bytes ever queued at this port.
    pub peak_bytes: u64,
    /// Bytes ever enqueued here (INT rx counter, HPCC §3.4 rxRate variant).
    pub rx_bytes: u64,
    /// How this port marks ECN, [`ecn::Marker::NEVER`] when it does not
    /// (24 bytes where an `Option` would take 32).
    pub marker: ecn::Marker,
    /// Bit mask of non-empty classes.
    pub nonempty: u8,
    /// Last data class served (round robin).
    pub rr: u8,
    /// Each class's FIFO, 8 bytes (8-aligned: class 0 ends the first line).
    pub queues: [PktQueue; CLASSES],
    pub eg: Egress,
}

impl SwitchPort {
    pub fn new(eg: Egress, marker: ecn::Marker) -> SwitchPort {
        SwitchPort {
            eg,
            queues: [PktQueue::default(); CLASSES],
            nonempty: 0,
            rr: 0,
            bytes: 0,
            peak_bytes: 0,
            rx_bytes: 0,
            marker,
        }
    }

    /// The port as the sampled recorders read it between events.
    pub fn view(&self) -> crate::output::observers::PortView<'_> {
        crate::output::observers::PortView {
            queued: self.bytes,
            eg: &self.eg,
        }
    }

    /// Tells the recorder that the queue is about to change from its current
    /// length at `now` (queue_hist.csv).
    #[inline]
    pub fn queue_changing(&mut self, rec: &mut Journal, now: SimTime) {
        rec.queue_change(self.eg.gid, &mut self.eg.queue_clock, now, self.bytes);
    }

    /// The class to serve next, if any: control first, then data round robin
    /// or, under [`Scheduling::Strict`], the lowest-numbered ready class.
    #[inline]
    pub fn pick_class(&self, scheduling: Scheduling) -> Option<u8> {
        if self.nonempty & 1 != 0 {
            return Some(0);
        }
        let ready = (self.nonempty & !self.eg.paused & !1) as u32;
        if ready == 0 {
            return None;
        }
        if scheduling == Scheduling::Strict {
            return Some(ready.trailing_zeros() as u8);
        }
        // Round robin over classes 1..=7: the first ready class after the last
        // served, else the first ready class from the bottom.
        let after = ready & (!0u32 << (self.rr as u32 + 1));
        let pick = if after != 0 { after } else { ready };
        Some(pick.trailing_zeros() as u8)
    }

    /// Something could be sent now (ignoring the port being busy).
    #[inline]
    pub fn has_ready(&self) -> bool {
        self.nonempty & (1 | !self.eg.paused) != 0
    }
}

pub struct Switch {
    pub node: NodeId,
    /// Index among switches (routing table row).
    pub idx: SwitchIdx,
    pub ports: Vec<SwitchPort>,
    pub mmu: mmu::Mmu,
    /// When to send PAUSE/RESUME (the MMU keeps the accounts).
    pub fc: flowctl::SwitchFc,
    /// Time of the pending flow-control timer event, `SimTime::MAX` if none.
    pub timer_at: crate::units::SimTime,
    /// PAUSE frames sent so far (their tokens in the diagnostics).
    pub pauses_sent: u32,
    pub ecmp_seed: u64,
    /// ECN marking, link loss and HPCC-PINT draw from it.
    pub rng: ChaCha8Rng,
    /// Spraying and new flowlets draw from it alone ([`spray`]).
    pub spray: spray::SprayRng,
    /// The flowlet table, allocated at its first use ([`flowlet`]).
    pub flowlets: flowlet::FlowletTable,
    /// Each port's HPCC-PINT state, when the run uses it; else empty.
    pub pint: Vec<pint::PintPort>,
    /// Each port's ExpressPass credit queue, when the run uses it; else empty.
    pub credit: Vec<crate::cc::xpass::shaper::CreditShaper>,
}

/// What a switch is built from: the same for every switch of a run.
#[derive(Clone, Debug)]
pub struct SwitchPlan<'a> {
    pub serialization: Serialization,
    pub ecn: &'a ecn::EcnPlan,
    pub flowctl: &'a flowctl::FlowControlConfig,
    pub mmu: &'a mmu::MmuPlan,
    pub mmu_facts: mmu::MmuFacts,
    /// The ports keep HPCC-PINT's state.
    pub pint: bool,
    /// The ports have ExpressPass credit queues.
    pub credit: Option<crate::cc::xpass::shaper::CreditPlan>,
    /// With the symmetric ECMP hash, every node's level (`Topology::levels`),
    /// which seeds it.
    pub ecmp_levels: Option<&'a [u32]>,
}

impl Switch {
    /// Switch number `idx` (its routing-table row) at `node`, with the ports
    /// `infos`, under run seed `seed`; `gid_of(node, port)` gives each port's
    /// egress id.
    pub fn new(
        plan: &SwitchPlan,
        idx: SwitchIdx,
        node: NodeId,
        infos: &[PortInfo],
        seed: u64,
        gid_of: &mut impl FnMut(NodeId, usize) -> EgressId,
    ) -> Switch {
        let ports: Vec<SwitchPort> = infos
            .iter()
            .enumerate()
            .map(|(pi, p)| {
                let eg = Egress::new(gid_of(node, pi), p, plan.serialization);
                SwitchPort::new(eg, plan.ecn.marker_for(p.rate))
            })
            .collect();
        let facts: Vec<flowctl::PortFacts> = ports
            .iter()
            .map(|sp| flowctl::PortFacts {
                rate: sp.eg.rate,
                marker: sp.marker,
            })
            .collect();
        let rng_seed = ecmp::mix64(seed ^ 0xec0 ^ (node.0 as u64) << 20);
        Switch {
            node,
            idx,
            ports,
            mmu: mmu::Mmu::new(plan.mmu.config(plan.mmu_facts, idx.idx(), infos)),
            fc: flowctl::SwitchFc::new(plan.flowctl, &facts),
            timer_at: SimTime::MAX,
            pauses_sent: 0,
            ecmp_seed: match plan.ecmp_levels {
                Some(l) => ecmp::level_seed(seed, l[node.idx()]),
                None => ecmp::ecmp_seed(seed, node),
            },
            rng: ChaCha8Rng::seed_from_u64(rng_seed),
            spray: spray::SprayRng::new(seed, node),
            flowlets: flowlet::FlowletTable::default(),
            pint: match plan.pint {
                true => infos.iter().map(|p| pint::PintPort::new(p.rate)).collect(),
                false => Vec::new(),
            },
            credit: match &plan.credit {
                Some(c) => infos
                    .iter()
                    .map(|p| crate::cc::xpass::shaper::CreditShaper::new(c, p.rate))
                    .collect(),
                None => Vec::new(),
            },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ids::EgressId;
    use crate::profile::Serialization;
    use crate::topology::PortInfo;
    use crate::units::{Delta, Rate};

    /// An idle 100 Gbps port with a 1 us link and no ECN (for unit tests).
    pub(crate) fn port() -> SwitchPort {
        let info = PortInfo {
            peer: NodeId(0),
            peer_port: 0,
            rate: Rate::from_gbps(100),
            delay: Delta::from_us(1),
            loss: 0.0,
        };
        SwitchPort::new(
            Egress::new(EgressId(0), &info, Serialization::Exact),
            ecn::Marker::NEVER,
        )
    }

    /// A packet passing through touches at most three lines of its port:
    /// the counters, ECN parameters and control queue; the data classes'
    /// queues; the transmitter's first line (docs/performance-log.md, f28b8f5,
    /// "a switch port in three lines"). The marker fits the first line: 24 bytes.
    #[test]
    fn a_port_is_laid_out_in_three_hot_lines() {
        use std::mem::{offset_of, size_of};
        assert_eq!(offset_of!(SwitchPort, queues), 56);
        assert_eq!(size_of::<PktQueue>(), 8);
        assert_eq!(offset_of!(SwitchPort, eg), 128);
        assert_eq!(size_of::<ecn::Marker>(), 24);
        // The pause clocks are boxed at a port's first pause: four lines a
        // port, two of them the transmitter's.
        assert_eq!(size_of::<crate::port::Egress>(), 128);
        assert_eq!(size_of::<SwitchPort>(), 256);
    }

    #[test]
    fn control_class_goes_first_and_data_classes_take_turns() {
        let mut p = port();
        p.nonempty = 0b0000_1001; // classes 0 and 3
        assert_eq!(p.pick_class(RR), Some(0));
        p.nonempty = 0b0010_1000; // classes 3 and 5
        p.rr = 3;
        assert_eq!(p.pick_class(RR), Some(5));
        p.rr = 5;
        assert_eq!(p.pick_class(RR), Some(3));
        p.rr = 7;
        assert_eq!(p.pick_class(RR), Some(3));
        p.nonempty = 0b1000_0010; // classes 1 and 7
        p.rr = 1;
        assert_eq!(p.pick_class(RR), Some(7));
        p.rr = 0;
        assert_eq!(p.pick_class(RR), Some(1));
    }

    const RR: Scheduling = Scheduling::RoundRobin;

    #[test]
    fn strict_priority_serves_the_lowest_ready_data_class_whatever_was_served_last() {
        let strict = Scheduling::Strict;
        let mut p = port();
        p.nonempty = 0b1010_1001; // classes 0, 3, 5, 7
        assert_eq!(p.pick_class(strict), Some(0), "control still goes first");
        p.nonempty = 0b1010_1000;
        for rr in [0, 3, 5, 7] {
            p.rr = rr;
            assert_eq!(p.pick_class(strict), Some(3));
        }
        p.eg.paused = 0b0000_1000; // class 3 paused: the next one down
        assert_eq!(p.pick_class(strict), Some(5));
        p.eg.paused = 0b1010_1000;
        assert_eq!(p.pick_class(strict), None);
    }

    #[test]
    fn paused_classes_are_skipped_but_control_is_not() {
        let mut p = port();
        p.nonempty = 0b0000_1001;
        p.eg.paused = 0b0000_1001;
        assert_eq!(p.pick_class(RR), Some(0));
        p.nonempty = 0b0000_1000;
        assert_eq!(p.pick_class(RR), None);
        assert!(!p.has_ready());
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod node_tests;
