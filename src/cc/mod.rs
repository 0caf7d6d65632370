//! Sender-side congestion control behind one trait.
//!
//! A controller is a plain struct that reacts to `on_ack`, `on_cnp`, `on_send`,
//! `on_timer` and `on_timeout` (the retransmission timeout), reports its pacing
//! `rate()` and optional `window()`, and tells the NIC when it next wants
//! `on_timer` (`next_timer()`). It never reads a clock: `now` is passed in.
//! Hooks default to no-ops. The NIC keeps the transport state (PSNs, bytes in
//! flight, go-back-N) apart from the algorithm's own variables.
//!
//! Dispatch on the hot path is static, through the [`Cc`] enum. Each algorithm has
//! its own file with its `XxxConfig: Default` beside it: `none`, `dcqcn` (DCQCN
//! SIGCOMM'15), `hpcc` (HPCC SIGCOMM'19, with its §3.4/§5.4 design variants),
//! `timely` (TIMELY SIGCOMM'15), `dctcp` (DCTCP SIGCOMM'10), the "+win" variants
//! (`windowed`, HPCC §5.1), `rcc` (RCC ToN'23, whose receiver side is behind the
//! [`receiver::ReceiverControl`] trait), `swift` (Swift SIGCOMM'20), `homa`
//! (Homa SIGCOMM'18: grants and priorities), the HPCC ns-3 simulator's (`ns3`)
//! and ExpressPass (`xpass`, SIGCOMM'17: credits from the receiver, shaped by
//! switches).
//!
//! Each is registered by one line below ([`registry`]), which makes its variant of
//! [`CcKind`] and [`Cc`], its names in [`ALGORITHMS`] and its `[cc.<table>]` in
//! [`CcSection`]; the file implements `Algorithm` for what `CcKind` keeps (names,
//! parameter checks, the per-flow controller, what it asks of the network).

pub mod dcqcn;
pub mod dctcp;
pub mod homa;
pub mod hpcc;
pub mod none;
pub mod ns3;
pub mod rcc;
pub mod receiver;
mod registry;
pub mod rx_nic;
pub mod swift;
pub mod timely;
pub mod windowed;
pub mod xpass;

#[cfg(test)]
mod proptests;

use crate::packet::{IntCounter, IntHop};
use crate::units::{Bytes, Delta, Rate, SimTime};
use ns3::pint::PintCodec;
use serde::{Deserialize, Serialize};

pub use rcc::Congestion;
pub use receiver::ReceiverKind;
use registry::Algorithm;

/// What an ACK (or NACK) tells the sender.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AckInfo<'a> {
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
    /// The PINT field copied from the data packet: the path's largest encoded
    /// utilisation (HPCC-PINT, [`ns3::pint`]).
    pub pint: u16,
    /// When the acknowledged data packet left the sender NIC (for RTT samples).
    pub data_sent_at: SimTime,
    /// Receiver-assigned window (RCC), if any.
    pub rx_window: Option<u64>,
    /// The receiver's last hop ran at `eta` of its rate over the last base RTT
    /// (RCC §III-C; fed back for `rcc-sender`).
    pub rx_busy: bool,
    /// A Homa GRANT: the message may be sent up to this byte offset, at this
    /// priority (0 = highest); `None` for every other acknowledgement.
    pub grant: Option<(u64, u8)>,
}

impl AckInfo<'_> {
    /// Round-trip time sample: from the data packet's departure to this ACK.
    pub(crate) fn rtt(&self) -> Delta {
        self.now.since(self.data_sent_at)
    }
}

/// Facts about a flow's path that controllers need at creation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowCtx {
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
    /// Links on this flow's data path, host to host (its ECMP path; Swift's
    /// hop count).
    pub hops: u32,
    /// Payload bytes per full packet.
    pub mtu: u32,
    /// Seeds the flow's own random draws (HPCC-PINT's ACK sampling): from the
    /// run's seed and the flow.
    pub seed: u64,
    /// The message's size in bytes (Homa's unscheduled bytes and priority).
    pub size: u64,
}

/// The sender-side congestion-control interface. Hooks default to no-ops.
pub(crate) trait CongestionControl {
    fn on_ack(&mut self, _ack: &AckInfo<'_>) {}
    fn on_cnp(&mut self, _now: SimTime) {}
    /// A data packet of `wire_bytes` was just put on the wire.
    fn on_send(&mut self, _now: SimTime, _wire_bytes: u64) {}
    fn on_timer(&mut self, _now: SimTime) {}
    /// The retransmission timeout fired and the transport went back to resend
    /// what was outstanding (Swift reacts to it).
    fn on_timeout(&mut self, _now: SimTime) {}
    /// When the controller next needs `on_timer`, if ever.
    fn next_timer(&self) -> Option<SimTime> {
        None
    }
    /// Current pacing rate.
    fn rate(&self) -> Rate;
    /// The byte offset the flow may send up to (Homa's grants); `None`: no limit.
    fn send_limit(&self) -> Option<u64> {
        None
    }
    /// Current window in bytes of payload in flight; `None` = no window.
    fn window(&self) -> Option<u64> {
        None
    }
    /// The traffic class of the data packet starting at byte `seq`, if the
    /// controller chooses it (Homa's priorities); `None`: the flow's class.
    fn data_class(&self, _seq: u64) -> Option<u8> {
        None
    }
    /// How the controller classifies the flow's congestion (RCC); for reports.
    fn congestion(&self) -> Congestion {
        Congestion::Unknown
    }
}

/// ECN marking an algorithm expects when the scenario does not say (the
/// `switch.ecn` defaults): RED `kmin`/`kmax`/`pmax`, optionally scaled by port
/// rate over `scale_from`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EcnDefaults {
    pub kmin: Bytes,
    pub kmax: Bytes,
    pub pmax: f64,
    pub scale_from: Option<Rate>,
}

impl EcnDefaults {
    /// The DCQCN deployment values (DCQCN Fig. 14), what every algorithm but
    /// DCTCP is evaluated with.
    pub const DCQCN: EcnDefaults = EcnDefaults {
        kmin: Bytes(5_000),
        kmax: Bytes(200_000),
        pmax: 0.01,
        scale_from: None,
    };
}

registry::congestion_controls! {
    // `[cc.<table>]`: the parameter tables, in the order `[cc]` lists its keys.
    tables {
        dcqcn: dcqcn::DcqcnConfig,
        hpcc: hpcc::HpccConfig,
        /// Used by the ns-3 algorithms (`*-ns3`).
        ns3: ns3::Ns3CcConfig,
        timely: timely::TimelyConfig,
        dctcp: dctcp::DctcpConfig,
        /// Used by rcc, rcc-sender, rcc-ewa and rcc-pid.
        rcc: rcc::RccConfig,
        swift: swift::SwiftConfig,
        expresspass: xpass::XpassConfig,
        homa: homa::HomaConfig,
    }
    // `Variant(Kind => per-flow controller) from table`, in the order
    // `cc.algorithm` lists the names (`Kind::NAMES`).
    algorithms {
        None(none::NoCcConfig => none::NoCc),
        Dcqcn(dcqcn::DcqcnConfig => dcqcn::Dcqcn) from dcqcn,
        /// DCQCN plus the window `W = R x T` (HPCC §5.1).
        DcqcnWin(windowed::Win<dcqcn::DcqcnConfig> => windowed::Windowed<dcqcn::Dcqcn>) from dcqcn,
        Hpcc(hpcc::HpccConfig => hpcc::Hpcc) from hpcc,
        Timely(timely::TimelyConfig => timely::Timely) from timely,
        /// TIMELY plus the window `W = R x T` (HPCC §5.1).
        TimelyWin(windowed::Win<timely::TimelyConfig> => windowed::Windowed<timely::Timely>) from timely,
        Dctcp(dctcp::DctcpConfig => dctcp::Dctcp) from dctcp,
        Rcc(rcc::RccKind => rcc::RccSender) from rcc,
        /// The HPCC ns-3 simulator's algorithms (`dcqcn-ns3`, `hpcc-ns3`, ...).
        Ns3(ns3::Ns3Kind => ns3::Ns3Cc) from ns3,
        /// HPCC-PINT as the HPCC ns-3 simulator runs it (CC_MODE 10).
        HpccPint(ns3::hpcc_pint::HpccPintKind => ns3::hpcc_pint::HpccPint) from ns3,
        Swift(swift::SwiftConfig => swift::Swift) from swift,
        /// ExpressPass (SIGCOMM'17): receiver credits, switch credit shaping.
        ExpressPass(xpass::XpassConfig => xpass::XpassSender) from expresspass,
        /// Homa's sender; its receiver is the NIC's (`nic/receiver.rs`, `homa::HomaRx`).
        Homa(homa::HomaPlan => homa::HomaSender) from homa,
    }
}

/// Fixtures the algorithms' unit tests share.
#[cfg(test)]
pub(crate) mod test_util {
    use super::{AckInfo, FlowCtx};
    use crate::packet::IntHop;
    use crate::units::{Delta, Rate, SimTime};

    /// A flow starting at 0 behind a `line_gbps` NIC: control interval `t_us`,
    /// its own base RTT `pair_rtt_us`, 1000-byte payloads, no bandwidth-delay
    /// products, two links (one switch).
    pub fn flow_ctx(line_gbps: u64, t_us: u64, pair_rtt_us: u64) -> FlowCtx {
        FlowCtx {
            now: SimTime::ZERO,
            line_rate: Rate::from_gbps(line_gbps),
            base_rtt: Delta::from_us(t_us),
            pair_rtt: Delta::from_us(pair_rtt_us),
            max_bdp: 0,
            pair_bdp: 0,
            hops: 2,
            mtu: 1000,
            seed: 1,
            size: 0,
        }
    }

    /// An ACK at `now` of `newly` bytes whose data packet left at `sent_at`,
    /// with no INT, ECN or receiver feedback (for the delay-based controllers).
    pub fn delay_ack(now: SimTime, sent_at: SimTime, newly: u64) -> AckInfo<'static> {
        AckInfo {
            now,
            seq: 0,
            snd_nxt: 0,
            newly_acked: newly,
            is_nack: false,
            ecn_echo: false,
            int: &[],
            pint: 0,
            data_sent_at: sent_at,
            rx_window: None,
            rx_busy: false,
            grant: None,
        }
    }

    /// An INT record of a 100 Gbps port at `ts_ns`.
    pub fn hop(ts_ns: u64, bytes: u64, qlen: u64) -> IntHop {
        IntHop {
            ts: SimTime(ts_ns * 1000),
            bytes,
            qlen,
            rate: Rate::from_gbps(100),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_algorithm_resolves_and_reports_its_name() {
        for name in ALGORITHMS {
            assert_eq!(resolved(name).name(), *name);
        }
    }

    #[test]
    fn no_two_algorithms_share_a_name() {
        let mut names = ALGORITHMS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALGORITHMS.len(), "{ALGORITHMS:?}");
    }

    #[test]
    fn each_table_names_the_algorithms_that_read_it() {
        assert_eq!(table_of("none"), None);
        assert_eq!(table_of("dcqcn+win"), Some("dcqcn"));
        assert_eq!(table_of("rcc-ewa"), Some("rcc"));
        assert_eq!(table_of("hpcc-ns3"), Some("ns3"));
        assert_eq!(table_of("hpcc-pint"), Some("ns3"));
        assert_eq!(table_of("expresspass"), Some("expresspass"));
        let tables = [
            "dcqcn",
            "hpcc",
            "ns3",
            "timely",
            "dctcp",
            "rcc",
            "swift",
            "expresspass",
            "homa",
        ];
        assert_eq!(
            tables.map(readers_of),
            [
                "dcqcn and dcqcn+win",
                "hpcc",
                "the *-ns3 algorithms and hpcc-pint",
                "timely and timely+win",
                "dctcp",
                "rcc, rcc-sender, rcc-ewa and rcc-pid",
                "swift",
                "expresspass",
                "homa"
            ]
        );
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

    fn resolved(name: &str) -> CcKind {
        CcSection {
            algorithm: name.into(),
            ..CcSection::default()
        }
        .resolve()
        .unwrap()
    }

    /// The algorithms (with default parameters) for which `f` holds.
    fn those(f: impl Fn(&CcKind) -> bool) -> Vec<&'static str> {
        ALGORITHMS
            .iter()
            .copied()
            .filter(|a| f(&resolved(a)))
            .collect()
    }

    #[test]
    fn only_ecn_reacting_algorithms_turn_marking_on_and_dctcp_marks_at_a_step() {
        assert_eq!(
            those(|k| k.uses_ecn()),
            ["dcqcn", "dcqcn+win", "dctcp", "dcqcn-ns3", "dctcp-ns3"]
        );
        let d = CcKind::Dctcp(Default::default()).ecn_defaults();
        assert_eq!(
            (d.kmin, d.kmax, d.pmax),
            (Bytes(30_000), Bytes(30_000), 1.0)
        );
        assert_eq!(d.scale_from, Some(Rate::from_gbps(10)));
        assert_eq!(those(|k| k.ecn_defaults() != EcnDefaults::DCQCN), ["dctcp"]);
    }

    #[test]
    fn only_homa_sends_at_several_priorities_and_does_without_a_timeout() {
        assert_eq!(those(|k| k.uses_priorities()), ["homa"]);
        assert_eq!(those(|k| !k.default_rto()), ["homa"]);
    }

    #[test]
    fn int_pacing_and_receivers_are_asked_for_by_the_algorithms_that_use_them() {
        assert_eq!(
            those(|k| k.needs_int()),
            ["hpcc", "hpcc-ns3", "timely-ns3", "hpcc-pint"]
        );
        // HPCC-PINT's INT area is its 2-byte field, which switches fill instead
        // of pushing records.
        assert_eq!(those(|k| k.pint().is_some()), ["hpcc-pint"]);
        assert_eq!(those(|k| k.int_counter() != IntCounter::Tx), [""; 0]);
        let mut rx = CcSection {
            algorithm: "hpcc".into(),
            ..CcSection::default()
        };
        rx.hpcc.rate_signal = hpcc::RateSignal::Rx;
        assert_eq!(rx.resolve().unwrap().int_counter(), IntCounter::Rx);
        assert_eq!(those(|k| k.int_bytes() == Some(8)), ["timely-ns3"]);
        assert_eq!(those(|k| k.int_bytes() == Some(2)), ["hpcc-pint"]);
        assert_eq!(
            those(|k| k.int_bytes().is_some()),
            ["timely-ns3", "hpcc-pint"]
        );
        assert_eq!(
            those(|k| k.repace_on_rate_change().is_some()),
            [
                "dcqcn-ns3",
                "hpcc-ns3",
                "timely-ns3",
                "dctcp-ns3",
                "hpcc-pint"
            ]
        );
        assert_eq!(
            those(|k| k.repace_on_rate_change() == Some(true)),
            ["hpcc-ns3", "hpcc-pint"]
        );
        assert_eq!(
            those(|k| k.receiver().is_some()),
            ["rcc", "rcc-sender", "rcc-ewa", "rcc-pid", "expresspass"]
        );
    }
}
