//! Sender-side congestion control behind one trait.
//!
//! A controller is a plain struct that reacts to `on_ack`, `on_cnp`, `on_send`
//! and `on_timer`, reports its pacing `rate()` and optional `window()`, and tells
//! the NIC when it next wants `on_timer` (`next_timer()`). It never reads a clock:
//! `now` is passed in. Hooks default to no-ops. The NIC keeps the transport state
//! (PSNs, bytes in flight, go-back-N) apart from the algorithm's own variables.
//!
//! Dispatch on the hot path is static, through the [`Cc`] enum. Each algorithm has
//! its own file with its `XxxConfig: Default` beside it: `none`, `dcqcn` (DCQCN
//! SIGCOMM'15), `hpcc` (HPCC SIGCOMM'19, with its §3.4/§5.4 design variants),
//! `timely` (TIMELY SIGCOMM'15), `dctcp` (DCTCP SIGCOMM'10), the "+win" variants
//! (`windowed`, HPCC §5.1) and `rcc` (RCC ToN'23, whose receiver side is behind the
//! [`receiver::ReceiverControl`] trait).

pub mod dcqcn;
pub mod dctcp;
pub mod hpcc;
pub mod none;
pub mod ns3;
pub mod rcc;
pub mod receiver;
pub mod rx_nic;
pub mod timely;
pub mod windowed;

#[cfg(test)]
mod proptests;

use crate::packet::{IntCounter, IntHop};
use crate::units::{Bytes, Delta, Rate, SimTime};
use serde::{Deserialize, Serialize};

pub use rcc::{Congestion, RccVariant};
pub use receiver::ReceiverKind;

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
    /// The receiver's last hop ran at `eta` of its rate over the last base RTT
    /// (RCC §III-C; fed back for `rcc-sender`).
    pub rx_busy: bool,
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
    /// This flow's base one-way delay (the data path's propagation plus the
    /// serialization of a full data packet per link).
    pub one_way: Delta,
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
    /// How the controller classifies the flow's congestion (RCC); for reports.
    fn congestion(&self) -> Congestion {
        Congestion::Unknown
    }
}

/// The configured algorithm, shared by all flows of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum CcKind {
    None,
    Dcqcn(dcqcn::DcqcnConfig),
    /// DCQCN plus the window `W = R x T` (HPCC §5.1).
    DcqcnWin(dcqcn::DcqcnConfig),
    Hpcc(hpcc::HpccConfig),
    /// The HPCC ns-3 simulator's algorithms (`dcqcn-ns3`, `hpcc-ns3`, ...).
    Ns3(ns3::Ns3Kind),
    Timely(timely::TimelyConfig),
    /// TIMELY plus the window `W = R x T` (HPCC §5.1).
    TimelyWin(timely::TimelyConfig),
    Dctcp(dctcp::DctcpConfig),
    Rcc(rcc::RccConfig, RccVariant),
}

/// ECN marking an algorithm expects when the scenario does not say (the
/// `switch.ecn` defaults): RED `kmin`/`kmax`/`pmax`, optionally scaled by port
/// rate over `scale_from`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnDefaults {
    pub kmin: Bytes,
    pub kmax: Bytes,
    pub pmax: f64,
    pub scale_from: Option<Rate>,
}

impl CcKind {
    pub fn name(&self) -> &'static str {
        match self {
            CcKind::None => "none",
            CcKind::Dcqcn(_) => "dcqcn",
            CcKind::DcqcnWin(_) => "dcqcn+win",
            CcKind::Hpcc(_) => "hpcc",
            CcKind::Ns3(k) => k.algo.name(),
            CcKind::Timely(_) => "timely",
            CcKind::TimelyWin(_) => "timely+win",
            CcKind::Dctcp(_) => "dctcp",
            CcKind::Rcc(_, RccVariant::Full) => "rcc",
            CcKind::Rcc(_, RccVariant::Sender) => "rcc-sender",
            CcKind::Rcc(_, RccVariant::Ewa) => "rcc-ewa",
            CcKind::Rcc(_, RccVariant::Pid) => "rcc-pid",
        }
    }
    /// Whether switches must stamp INT records for this algorithm.
    pub fn needs_int(&self) -> bool {
        matches!(self, CcKind::Hpcc(_))
            || matches!(self, CcKind::Ns3(k) if matches!(k.algo, ns3::Ns3Algo::Hpcc | ns3::Ns3Algo::Timely))
    }
    /// The port counter switches put in INT records for this algorithm: the
    /// received bytes for HPCC's rxRate variant (§3.4), else the sent bytes.
    pub fn int_counter(&self) -> IntCounter {
        match self {
            CcKind::Hpcc(c) if c.rate_signal == hpcc::RateSignal::Rx => IntCounter::Rx,
            _ => IntCounter::Tx,
        }
    }
    /// Whether the algorithm reacts to ECN marks (so switches should mark by default).
    pub fn uses_ecn(&self) -> bool {
        matches!(
            self,
            CcKind::Dcqcn(_) | CcKind::DcqcnWin(_) | CcKind::Dctcp(_)
        ) || matches!(self, CcKind::Ns3(k) if matches!(k.algo, ns3::Ns3Algo::Dcqcn | ns3::Ns3Algo::Dctcp))
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
    /// The ECN marking this algorithm is evaluated with: DCTCP's step marking at
    /// K = 30 KB x rate / 10 Gbps (HPCC §5.1, after DCTCP §3.4), the DCQCN
    /// deployment values (DCQCN Fig. 14) otherwise.
    pub fn ecn_defaults(&self) -> EcnDefaults {
        match self {
            CcKind::Dctcp(_) => EcnDefaults {
                kmin: Bytes(30_000),
                kmax: Bytes(30_000),
                pmax: 1.0,
                scale_from: Some(Rate::from_gbps(10)),
            },
            _ => EcnDefaults {
                kmin: Bytes(5_000),
                kmax: Bytes(200_000),
                pmax: 0.01,
                scale_from: None,
            },
        }
    }
    /// The receiver-side controller, if the algorithm has one.
    pub fn receiver(&self) -> Option<ReceiverKind> {
        match self {
            CcKind::Rcc(c, v) => Some(ReceiverKind::Rcc(c.clone(), *v)),
            _ => None,
        }
    }
    /// Creates the controller for one new flow.
    pub fn new_flow(&self, ctx: &FlowCtx) -> Cc {
        match self {
            CcKind::None => Cc::None(none::NoCc::new(ctx)),
            CcKind::Dcqcn(c) => Cc::Dcqcn(dcqcn::Dcqcn::new(c.clone(), ctx)),
            CcKind::DcqcnWin(c) => Cc::DcqcnWin(windowed::Windowed::new(
                dcqcn::Dcqcn::new(c.clone(), ctx),
                ctx,
            )),
            CcKind::Hpcc(c) => Cc::Hpcc(hpcc::Hpcc::new(c.clone(), ctx)),
            CcKind::Ns3(k) => Cc::Ns3(k.new_flow(ctx)),
            CcKind::Timely(c) => Cc::Timely(timely::Timely::new(c.clone(), ctx)),
            CcKind::TimelyWin(c) => Cc::TimelyWin(windowed::Windowed::new(
                timely::Timely::new(c.clone(), ctx),
                ctx,
            )),
            CcKind::Dctcp(c) => Cc::Dctcp(dctcp::Dctcp::new(c.clone(), ctx)),
            CcKind::Rcc(c, v) => Cc::Rcc(rcc::RccSender::new(c, *v, ctx)),
        }
    }
}

/// The names `cc.algorithm` accepts.
pub const ALGORITHMS: &[&str] = &[
    "none",
    "dcqcn",
    "dcqcn+win",
    "hpcc",
    "timely",
    "timely+win",
    "dctcp",
    "rcc",
    "rcc-sender",
    "rcc-ewa",
    "rcc-pid",
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
    DcqcnWin(windowed::Windowed<dcqcn::Dcqcn>),
    Hpcc(hpcc::Hpcc),
    Ns3(ns3::Ns3Cc),
    Timely(timely::Timely),
    TimelyWin(windowed::Windowed<timely::Timely>),
    Dctcp(dctcp::Dctcp),
    Rcc(rcc::RccSender),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::None($c) => $e,
            Cc::Dcqcn($c) => $e,
            Cc::DcqcnWin($c) => $e,
            Cc::Hpcc($c) => $e,
            Cc::Ns3($c) => $e,
            Cc::Timely($c) => $e,
            Cc::TimelyWin($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Rcc($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline(always)]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        dispatch!(self, c => c.on_ack(ack))
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_cnp(now))
    }
    #[inline(always)]
    fn on_send(&mut self, now: SimTime, wire_bytes: u64) {
        dispatch!(self, c => c.on_send(now, wire_bytes))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_timer(now))
    }
    #[inline(always)]
    fn next_timer(&self) -> Option<SimTime> {
        dispatch!(self, c => c.next_timer())
    }
    #[inline(always)]
    fn rate(&self) -> Rate {
        dispatch!(self, c => c.rate())
    }
    #[inline]
    fn window(&self) -> Option<u64> {
        dispatch!(self, c => c.window())
    }
    fn congestion(&self) -> Congestion {
        dispatch!(self, c => c.congestion())
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
    #[serde(default)]
    pub timely: timely::TimelyConfig,
    #[serde(default)]
    pub dctcp: dctcp::DctcpConfig,
    /// Used by rcc, rcc-sender, rcc-ewa and rcc-pid.
    #[serde(default)]
    pub rcc: rcc::RccConfig,
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
            timely: Default::default(),
            dctcp: Default::default(),
            rcc: Default::default(),
        }
    }
}

impl CcSection {
    /// Resolves the algorithm name; the error names what would be valid.
    pub fn resolve(&self) -> Result<CcKind, (String, String)> {
        fn checked<T: Clone>(
            table: &str,
            cfg: &T,
            validate: impl Fn(&T) -> Result<(), (String, String)>,
        ) -> Result<T, (String, String)> {
            validate(cfg).map_err(|e| (format!("cc.{table}.{}", e.0), e.1))?;
            Ok(cfg.clone())
        }
        let dcqcn = || checked("dcqcn", &self.dcqcn, dcqcn::DcqcnConfig::validate);
        let timely = || checked("timely", &self.timely, timely::TimelyConfig::validate);
        let rcc = |v| {
            Ok(CcKind::Rcc(
                checked("rcc", &self.rcc, rcc::RccConfig::validate)?,
                v,
            ))
        };
        match self.algorithm.as_str() {
            "none" => Ok(CcKind::None),
            "dcqcn" => Ok(CcKind::Dcqcn(dcqcn()?)),
            "dcqcn+win" => Ok(CcKind::DcqcnWin(dcqcn()?)),
            "hpcc" => Ok(CcKind::Hpcc(checked(
                "hpcc",
                &self.hpcc,
                hpcc::HpccConfig::validate,
            )?)),
            "timely" => Ok(CcKind::Timely(timely()?)),
            "timely+win" => Ok(CcKind::TimelyWin(timely()?)),
            "dctcp" => Ok(CcKind::Dctcp(checked(
                "dctcp",
                &self.dctcp,
                dctcp::DctcpConfig::validate,
            )?)),
            "rcc" => rcc(RccVariant::Full),
            "rcc-sender" => rcc(RccVariant::Sender),
            "rcc-ewa" => rcc(RccVariant::Ewa),
            "rcc-pid" => rcc(RccVariant::Pid),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_algorithm_resolves_and_reports_its_name() {
        for name in ALGORITHMS {
            let s = CcSection {
                algorithm: name.to_string(),
                ..CcSection::default()
            };
            assert_eq!(s.resolve().unwrap().name(), *name);
        }
    }

    #[test]
    fn a_bad_parameter_names_its_table_and_field() {
        let mut s = CcSection {
            algorithm: "timely+win".into(),
            ..CcSection::default()
        };
        s.timely.beta = 2.0;
        let (field, msg) = s.resolve().unwrap_err();
        assert_eq!(field, "cc.timely.beta");
        assert!(msg.contains("(0, 1]"), "{msg}");
        let mut s = CcSection {
            algorithm: "rcc-pid".into(),
            ..CcSection::default()
        };
        s.rcc.n = 0;
        assert_eq!(s.resolve().unwrap_err().0, "cc.rcc.n");
    }

    #[test]
    fn only_ecn_reacting_algorithms_turn_marking_on_and_dctcp_marks_at_a_step() {
        let on: Vec<_> = ALGORITHMS
            .iter()
            .filter(|a| {
                CcSection {
                    algorithm: a.to_string(),
                    ..CcSection::default()
                }
                .resolve()
                .unwrap()
                .uses_ecn()
            })
            .collect();
        assert_eq!(
            on,
            [&"dcqcn", &"dcqcn+win", &"dctcp", &"dcqcn-ns3", &"dctcp-ns3"]
        );
        let d = CcKind::Dctcp(Default::default()).ecn_defaults();
        assert_eq!(
            (d.kmin, d.kmax, d.pmax),
            (Bytes(30_000), Bytes(30_000), 1.0)
        );
        assert_eq!(d.scale_from, Some(Rate::from_gbps(10)));
    }
}
