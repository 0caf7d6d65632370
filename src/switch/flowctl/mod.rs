//! Switch-side flow control: when a switch sends PAUSE and RESUME frames upstream.
//!
//! One small trait, [`FlowControl`]: the switch calls `on_enqueue` after the MMU
//! admitted a packet, `on_dequeue` after it released one, and `on_tick` when the
//! scheme's timer (`next_tick`) comes due; each hook returns the frames to send.
//! The MMU (`switch::mmu`) stays the accounting layer: schemes read its counters
//! and never change them. Static dispatch through [`SwitchFc`]:
//!
//! * [`pfc::Pfc`]: standard PFC (IEEE 802.1Qbb), XOFF at the ingress threshold
//!   (DCQCN §4), X-OFF/X-ON or timed (duration-style) pauses.
//! * [`ppfc::Ppfc`]: predictive PFC (P-PFC, TPDS'20 §4, Alg. 1-3) over standard PFC.
//! * [`capfc::Capfc`]: congestion-aware PFC (P-PFC §2.3, §5.6) over standard PFC.
//!
//! **Pause quanta** (IEEE 802.1Qbb): a PAUSE frame carries, per class, a duration
//! in quanta of 512 bit times at the link's rate; the upstream class resumes when
//! it lapses or on a RESUME (a frame with 0 quanta); a new PAUSE restarts the
//! timer. Real switches in X-OFF/X-ON style send the largest value and refresh it
//! while congested; rocesim models that as a pause without expiry, carried as
//! [`XOFF_QUANTA`] when no timed style is configured (`switch.pfc.pause_quanta`).

pub mod capfc;
pub mod pfc;
pub mod ppfc;

use super::SwitchPort;
use super::ecn::Marker;
use super::mmu::Mmu;
use crate::packet::PacketPool;
use crate::port::CLASSES;
use crate::units::{Delta, PS_PER_S, Rate, SimTime};
use rand_chacha::ChaCha8Rng;

pub use capfc::{Capfc, CapfcConfig};
pub use pfc::{Pfc, PfcConfig};
pub use ppfc::{Ppfc, PpfcConfig};

pub use crate::port::{QUANTUM_BITS, XOFF_QUANTA, quanta_to_time};

/// The number of quanta that covers `d` on a link of `rate` (rounded up).
pub fn time_to_quanta(rate: Rate, d: Delta) -> u64 {
    let bits = d.ps() as u128 * rate.bps() as u128;
    bits.div_ceil(QUANTUM_BITS as u128 * PS_PER_S as u128) as u64
}

#[inline]
pub(crate) fn ix(port: u16, class: u8) -> usize {
    port as usize * CLASSES + class as usize
}

/// Why a frame is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Standard (or CaPFC) pause: X-OFF, or timed with the configured quanta.
    Pause,
    /// A P-PFC pause with its own duration (P-PFC Alg. 3).
    Predictive,
    /// A timed pause sent again before it lapses (the XOFF condition holds).
    Refresh,
    /// RESUME (0 quanta).
    Resume,
}

/// A PFC frame to send out of `port` (toward the upstream that feeds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub port: u16,
    pub class: u8,
    pub quanta: u16,
    pub kind: FrameKind,
    /// The congested egress behind a tick's pause; hook frames leave it `None`
    /// (the packet's egress is the cause).
    pub cause: Option<u16>,
}

/// A packet was admitted on (`inp`, `class`) for egress `out`.
#[derive(Clone, Copy, Debug)]
pub struct Enqueue {
    pub now: SimTime,
    pub inp: u16,
    pub out: u16,
    pub class: u8,
}

/// A packet of (`inp`, `class`) left through egress `out`.
pub type Dequeue = Enqueue;

/// What a hook asks of the switch: a frame to send, a timer to arm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reaction {
    pub frame: Option<Frame>,
    pub wake: Option<SimTime>,
}

impl Reaction {
    /// Nothing to do (the common case).
    #[inline]
    pub fn is_none(&self) -> bool {
        self.frame.is_none() && self.wake.is_none()
    }
}

/// What a tick may look at: the accounts, the queues (for their composition),
/// and the switch's random generator.
pub struct TickCtx<'a> {
    pub now: SimTime,
    pub mmu: &'a Mmu,
    pub ports: &'a [SwitchPort],
    pub pool: &'a PacketPool,
    pub rng: &'a mut ChaCha8Rng,
}

/// A switch-side flow-control scheme. Hooks other than enqueue/dequeue default
/// to no-ops.
pub trait FlowControl {
    fn on_enqueue(&mut self, mmu: &Mmu, ev: &Enqueue) -> Reaction;
    /// A packet left: the frame to send, if any (a departure never arms a timer).
    fn on_dequeue(&mut self, mmu: &Mmu, ev: &Dequeue) -> Option<Frame>;
    /// When the scheme next wants `on_tick`, if ever.
    fn next_tick(&self) -> Option<SimTime> {
        None
    }
    fn on_tick(&mut self, _ctx: TickCtx<'_>, _out: &mut Vec<Frame>) {}
}

/// The configured scheme.
#[derive(Clone, Debug, PartialEq)]
pub enum Scheme {
    Standard,
    Ppfc(PpfcConfig),
    Capfc(CapfcConfig),
}

impl Scheme {
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::Standard => "standard",
            Scheme::Ppfc(_) => "ppfc",
            Scheme::Capfc(_) => "capfc",
        }
    }
}

/// Flow control of every switch of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowControlConfig {
    /// `false`: lossy fabric, no frames at all.
    pub enabled: bool,
    pub pfc: PfcConfig,
    pub scheme: Scheme,
}

/// Per-port facts a scheme needs.
#[derive(Clone, Copy, Debug)]
pub struct PortFacts {
    pub rate: Rate,
    /// How the port marks ECN.
    pub marker: Marker,
}

/// A switch's flow control, statically dispatched.
#[derive(Clone, Debug)]
pub enum SwitchFc {
    /// PFC off (lossy): never sends a frame.
    Off,
    Pfc(Pfc),
    Ppfc(Box<Ppfc>),
    Capfc(Capfc),
}

impl SwitchFc {
    pub fn new(cfg: &FlowControlConfig, ports: &[PortFacts]) -> SwitchFc {
        if !cfg.enabled {
            return SwitchFc::Off;
        }
        let pfc = Pfc::new(cfg.pfc.clone(), ports);
        match &cfg.scheme {
            Scheme::Standard => SwitchFc::Pfc(pfc),
            Scheme::Ppfc(p) => SwitchFc::Ppfc(Box::new(Ppfc::new(p.clone(), pfc, ports))),
            Scheme::Capfc(c) => SwitchFc::Capfc(Capfc::new(c.clone(), pfc)),
        }
    }
}

impl FlowControl for SwitchFc {
    #[inline(always)]
    fn on_enqueue(&mut self, mmu: &Mmu, ev: &Enqueue) -> Reaction {
        match self {
            SwitchFc::Off => Reaction::default(),
            SwitchFc::Pfc(p) => p.on_enqueue(mmu, ev),
            SwitchFc::Ppfc(p) => p.on_enqueue(mmu, ev),
            SwitchFc::Capfc(c) => c.on_enqueue(mmu, ev),
        }
    }
    #[inline(always)]
    fn on_dequeue(&mut self, mmu: &Mmu, ev: &Dequeue) -> Option<Frame> {
        match self {
            SwitchFc::Off => None,
            SwitchFc::Pfc(p) => p.on_dequeue(mmu, ev),
            SwitchFc::Ppfc(p) => p.on_dequeue(mmu, ev),
            SwitchFc::Capfc(c) => c.on_dequeue(mmu, ev),
        }
    }
    fn next_tick(&self) -> Option<SimTime> {
        match self {
            SwitchFc::Off => None,
            SwitchFc::Pfc(p) => p.next_tick(),
            SwitchFc::Ppfc(p) => p.next_tick(),
            SwitchFc::Capfc(c) => c.next_tick(),
        }
    }
    fn on_tick(&mut self, ctx: TickCtx<'_>, out: &mut Vec<Frame>) {
        match self {
            SwitchFc::Off => {}
            SwitchFc::Pfc(p) => p.on_tick(ctx, out),
            SwitchFc::Ppfc(p) => p.on_tick(ctx, out),
            SwitchFc::Capfc(c) => c.on_tick(ctx, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantum_is_512_bit_times() {
        // 512 bits at 40 Gbps = 12.8 ns; at 100 Gbps = 5.12 ns.
        assert_eq!(
            quanta_to_time(Rate::from_gbps(40), 1),
            Delta::from_ps(12_800)
        );
        assert_eq!(
            quanta_to_time(Rate::from_gbps(100), 1000),
            Delta::from_ns(5_120)
        );
        assert_eq!(
            quanta_to_time(Rate::from_gbps(100), u16::MAX),
            Delta::from_ps(335_539_200)
        );
        assert_eq!(
            time_to_quanta(Rate::from_gbps(40), Delta::from_ps(12_800)),
            1
        );
        assert_eq!(
            time_to_quanta(Rate::from_gbps(40), Delta::from_ps(12_801)),
            2
        );
        assert_eq!(time_to_quanta(Rate::from_gbps(40), Delta::ZERO), 0);
    }
}
