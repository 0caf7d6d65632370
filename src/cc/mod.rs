//! Sender-side congestion control behind one trait.
//!
//! A controller is a plain struct that reacts to `on_ack`, `on_cnp`, `on_send`
//! and `on_timer`, reports its pacing `rate()` and optional `window()`, and tells
//! the NIC when it next wants `on_timer` (`next_timer()`). It never reads a clock:
//! `now` is passed in. Hooks default to no-ops. The NIC keeps the transport state
//! (PSNs, bytes in flight, go-back-N) apart from the algorithm's own variables.
//!
//! Dispatch on the hot path is static, through the [`Cc`] enum. Each algorithm has
//! its own file with its `XxxConfig: Default` beside it.

pub mod dcqcn;
pub mod hpcc;
pub mod none;
pub mod ns3;

use crate::packet::IntHop;
use crate::units::{Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

/// What an ACK (or NACK) tells the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    pub now: SimTime,
    /// Cumulative bytes the receiver has (next byte it expects).
    pub seq: u64,
    /// Sender's next byte to send, after this ACK was processed.
    pub snd_nxt: u64,
    /// Bytes newly acknowledged by this ACK.
    pub newly_acked: u64,
    pub is_nack: bool,
    /// ECN-Echo: a data packet this ACK acknowledges was CE-marked (DCTCP reacts
    /// to it). CNPs, in either form, reach the controller through `on_cnp`.
    pub ecn_echo: bool,
    /// INT records copied from the data packet (HPCC).
    pub int: &'a [IntHop],
    /// When the acknowledged data packet left the sender NIC (for RTT samples).
    pub data_sent_at: SimTime,
    /// Receiver-assigned window (RCC), if any.
    pub rx_window: Option<u64>,
}

impl AckInfo<'_> {
    /// Round-trip time sample: from the data packet's departure to this ACK.
    pub fn rtt(&self) -> Delta {
        self.now.since(self.data_sent_at)
    }
}

/// Facts about a flow's path that controllers need at creation.
#[derive(Clone, Copy, Debug)]
pub struct FlowCtx {
    pub now: SimTime,
    /// The sender NIC's line rate.
    pub line_rate: Rate,
    /// The control interval T: slightly above the topology's largest base RTT
    /// unless configured (HPCC §5.1).
    pub base_rtt: Delta,
    /// This flow's own base RTT (propagation + serialization, idle network).
    pub pair_rtt: Delta,
    /// The largest bandwidth-delay product over host pairs, bytes (ns-3's maxBdp).
    pub max_bdp: u64,
    /// This flow's bandwidth-delay product (bottleneck x pair RTT), bytes.
    pub pair_bdp: u64,
    /// Payload bytes per full packet.
    pub mtu: u32,
    /// Wire bytes of a full data packet.
    pub mtu_wire: u32,
}

/// The sender-side congestion-control interface. Hooks default to no-ops.
pub trait CongestionControl {
    fn on_ack(&mut self, _ack: &AckInfo<'_>) {}
    fn on_cnp(&mut self, _now: SimTime) {}
    /// A data packet of `wire_bytes` was just put on the wire.
    fn on_send(&mut self, _now: SimTime, _wire_bytes: u64) {}
    fn on_timer(&mut self, _now: SimTime) {}
    /// When the controller next needs `on_timer`, if ever.
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// Current window in bytes of payload in flight; `None` = no window.
    fn window(&self) -> Option<u64> {
        None
    }
}

/// The configured algorithm, shared by all flows of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum CcKind {
    None,
    Dcqcn(dcqcn::DcqcnConfig),
    Hpcc(hpcc::HpccConfig),
    /// The HPCC ns-3 simulator's algorithms (`dcqcn-ns3`, `hpcc-ns3`, ...).
    Ns3(ns3::Ns3Kind),
}

impl CcKind {
    pub fn name(&self) -> &'static str {
        match self {
            CcKind::None => "none",
            CcKind::Dcqcn(_) => "dcqcn",
            CcKind::Hpcc(_) => "hpcc",
            CcKind::Ns3(k) => k.algo.name(),
        }
    }
    /// Whether switches must stamp INT records for this algorithm.
    pub fn needs_int(&self) -> bool {
        matches!(self, CcKind::Hpcc(_))
            || matches!(self, CcKind::Ns3(k) if matches!(k.algo, ns3::Ns3Algo::Hpcc | ns3::Ns3Algo::Timely))
    }
    /// Whether the algorithm reacts to ECN marks (so switches should mark by default).
    pub fn uses_ecn(&self) -> bool {
        matches!(self, CcKind::Dcqcn(_))
            || matches!(self, CcKind::Ns3(k) if matches!(k.algo, ns3::Ns3Algo::Dcqcn | ns3::Ns3Algo::Dctcp))
    }
    /// Whether a rate change re-spaces the next packet from the last one, when
    /// the scenario does not say (`model.repace_on_rate_change`): ns-3 does it
    /// (`ChangeRate`) only for HPCC.
    pub fn repace_on_rate_change(&self) -> Option<bool> {
        match self {
            CcKind::Ns3(k) => Some(k.algo == ns3::Ns3Algo::Hpcc),
            _ => None,
        }
    }
    /// A fixed INT area this algorithm puts on data packets instead of the
    /// profile's, when the scenario does not say (ns-3 TIMELY: an 8-byte timestamp).
    pub fn int_bytes(&self) -> Option<u32> {
        match self {
            CcKind::Ns3(k) if k.algo == ns3::Ns3Algo::Timely => Some(8),
            _ => None,
        }
    }
    /// Creates the controller for one new flow.
    pub fn new_flow(&self, ctx: &FlowCtx) -> Cc {
        match self {
            CcKind::None => Cc::None(none::NoCc::new(ctx)),
            CcKind::Dcqcn(c) => Cc::Dcqcn(dcqcn::Dcqcn::new(c.clone(), ctx)),
            CcKind::Hpcc(c) => Cc::Hpcc(hpcc::Hpcc::new(c.clone(), ctx)),
            CcKind::Ns3(k) => Cc::Ns3(k.new_flow(ctx)),
        }
    }
}

/// The names `cc.algorithm` accepts.
pub const ALGORITHMS: &[&str] = &[
    "none",
    "dcqcn",
    "hpcc",
    "dcqcn-ns3",
    "hpcc-ns3",
    "timely-ns3",
    "dctcp-ns3",
];

/// Per-flow controller state; static dispatch over the algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    None(none::NoCc),
    Dcqcn(dcqcn::Dcqcn),
    Hpcc(hpcc::Hpcc),
    Ns3(ns3::Ns3Cc),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::None($c) => $e,
            Cc::Dcqcn($c) => $e,
            Cc::Hpcc($c) => $e,
            Cc::Ns3($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        dispatch!(self, c => c.on_ack(ack))
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_cnp(now))
    }
    #[inline]
    fn on_send(&mut self, now: SimTime, wire_bytes: u64) {
        dispatch!(self, c => c.on_send(now, wire_bytes))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_timer(now))
    }
    #[inline]
    fn next_timer(&self) -> Option<SimTime> {
        dispatch!(self, c => c.next_timer())
    }
    #[inline]
    fn rate(&self) -> Rate {
        dispatch!(self, c => c.rate())
    }
    #[inline]
    fn window(&self) -> Option<u64> {
        dispatch!(self, c => c.window())
    }
}

/// `cc` section of a scenario: the algorithm's name plus optional per-algorithm
/// parameter tables (only the chosen one is used).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcSection {
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    #[serde(default)]
    pub dcqcn: dcqcn::DcqcnConfig,
    #[serde(default)]
    pub hpcc: hpcc::HpccConfig,
    /// Used by the ns-3 algorithms (`*-ns3`).
    #[serde(default)]
    pub ns3: ns3::Ns3CcConfig,
}

fn default_algorithm() -> String {
    "none".into()
}

impl Default for CcSection {
    fn default() -> Self {
        CcSection {
            algorithm: default_algorithm(),
            dcqcn: Default::default(),
            hpcc: Default::default(),
            ns3: Default::default(),
        }
    }
}

impl CcSection {
    /// Resolves the algorithm name; the error names what would be valid.
    pub fn resolve(&self) -> Result<CcKind, (String, String)> {
        match self.algorithm.as_str() {
            "none" => Ok(CcKind::None),
            "dcqcn" => {
                self.dcqcn
                    .validate()
                    .map_err(|e| (format!("cc.dcqcn.{}", e.0), e.1))?;
                Ok(CcKind::Dcqcn(self.dcqcn.clone()))
            }
            "hpcc" => {
                self.hpcc
                    .validate()
                    .map_err(|e| (format!("cc.hpcc.{}", e.0), e.1))?;
                Ok(CcKind::Hpcc(self.hpcc.clone()))
            }
            name if ns3::Ns3Algo::from_name(name).is_some() => {
                let algo = ns3::Ns3Algo::from_name(name).expect("checked by the guard");
                self.ns3
                    .validate(algo)
                    .map_err(|e| (format!("cc.ns3.{}", e.0), e.1))?;
                Ok(CcKind::Ns3(ns3::Ns3Kind {
                    algo,
                    cfg: self.ns3.clone(),
                }))
            }
            other => Err((
                "cc.algorithm".into(),
                format!(
                    "unknown algorithm \"{other}\" (valid: {})",
                    ALGORITHMS.join(", ")
                ),
            )),
        }
    }
}
