//! `[nic]`: packet size, the ACK policy (ours or the ns-3 simulator's), CNPs,
//! timeouts and loss recovery (go-back-N, go-back-0 or IRN, `[nic.irn]`).
//! docs/scenario.md is the reference for every key.

use super::ctx::Ctx;
use crate::config::nics::{NicPlacement, NicRules, QueuePairs, ReceiveOn};
use crate::error::InputError;
use crate::nic::irn::{IrnConfig, LossRecovery};
use crate::nic::{NicPlan, Ns3Ack};
use crate::profile::{CnpMode, Profile};
use crate::units::{Bytes, Delta};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NicSection {
    /// Payload bytes per packet. Default 1000.
    mtu: Option<u32>,
    /// ACK every this many in-order packets (and always the last one). Default 1.
    ack_interval: Option<u32>,
    /// The class ACK/NACK travel in at switches: "control" (class 0: strict
    /// priority, outside the MMU, never paused) or "data" (the flow's class).
    ack_class: Option<AckClass>,
    /// Which class's PAUSE stops the host's ACK queue: "ack" (the class the ACKs
    /// travel in) or "control" (class 0, which switches never pause: the ns-3
    /// simulator's ACK_HIGH_PRIO = 1).
    ack_pause_class: Option<AckPauseClass>,
    /// "packet" (a CNP at once for a marked packet, then at most once per
    /// `cnp_interval` per flow), "timer" (CNPs at the end of each
    /// `cnp_interval` window with a mark, timed from the flow's first packet)
    /// or "ack-flag".
    cnp: Option<CnpKind>,
    /// DCQCN §3.1 NP: 50 us.
    cnp_interval: Option<Delta>,
    /// Minimum time between NACKs for the same expected sequence. Default 500 us.
    nack_interval: Option<Delta>,
    /// Retransmission timeout (go back to the first unacknowledged byte);
    /// "0s" disables it. Default 10 ms with PFC, 1 ms without; none in ns3-hpcc.
    rto: Option<Delta>,
    /// "packets" (every `ack_interval` packets and the last) or "ns3" (the ns-3
    /// simulator's byte milestone and chunk rule; the ns3-hpcc default).
    ack_policy: Option<AckPolicy>,
    /// ns3 policy: L2_ACK_INTERVAL in bytes. Default 1 (every packet).
    ack_interval_bytes: Option<Bytes>,
    /// ns3 policy: L2_CHUNK_SIZE in bytes (0 = none). Default 4000.
    ack_chunk: Option<Bytes>,
    /// ns3 policy: L2_BACK_TO_ZERO. Default false.
    back_to_zero: Option<bool>,
    /// "go-back-n" (default), "go-back-0" or "irn".
    loss_recovery: Option<LossRecoveryKind>,
    /// IRN parameters (with loss_recovery = "irn").
    #[serde(default)]
    irn: IrnSection,
    /// Servers with several NICs: "ns3-hash" (the ns3-hpcc default), "hash"
    /// (the default), "round-robin" or "given" (the workload names NICs).
    placement: Option<Placement>,
    /// Servers with several NICs: "fabric" (where the switches deliver a flow
    /// routed to the server; default) or "same-rail" (the sending NIC's index).
    receive_on: Option<ReceiveOnKind>,
    /// Servers with several NICs: "per-nic" (a queue pair's packets come to
    /// its NIC; the default) or "per-server" (host-wide queue pairs, packets
    /// land on any NIC of the server and are handed over: ns-3's RdmaHw, the
    /// ns3-hpcc default).
    queue_pairs: Option<QueuePairsKind>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum QueuePairsKind {
    PerNic,
    PerServer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ReceiveOnKind {
    Fabric,
    SameRail,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Placement {
    Ns3Hash,
    Hash,
    RoundRobin,
    Given,
}

/// How flows use the NICs of servers with several (`nic.placement`,
/// `nic.receive_on`, `nic.queue_pairs`, else the profile's defaults).
pub(super) fn rules(n: &NicSection, profile: Profile) -> NicRules {
    let ns3 = profile == Profile::Ns3Hpcc;
    let receive = match n.receive_on {
        Some(ReceiveOnKind::SameRail) => ReceiveOn::SameRail,
        _ => ReceiveOn::Fabric,
    };
    let send = match n.placement {
        Some(Placement::Ns3Hash) => NicPlacement::Ns3Hash,
        Some(Placement::Hash) => NicPlacement::Hash,
        Some(Placement::RoundRobin) => NicPlacement::RoundRobin,
        Some(Placement::Given) => NicPlacement::Given,
        None if ns3 => NicPlacement::Ns3Hash,
        None => NicPlacement::Hash,
    };
    let queue_pairs = match n.queue_pairs {
        Some(QueuePairsKind::PerServer) => QueuePairs::PerServer,
        Some(QueuePairsKind::PerNic) => QueuePairs::PerNic,
        None if ns3 => QueuePairs::PerServer,
        None => QueuePairs::PerNic,
    };
    NicRules {
        placement: send,
        receive_on: receive,
        queue_pairs,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum AckPolicy {
    Packets,
    Ns3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum AckClass {
    Control,
    Data,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum AckPauseClass {
    Ack,
    Control,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum CnpKind {
    Packet,
    Timer,
    AckFlag,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
enum LossRecoveryKind {
    #[serde(rename = "go-back-n")]
    GoBackN,
    #[serde(rename = "go-back-0")]
    GoBack0,
    #[serde(rename = "irn")]
    Irn,
}

/// `[nic.irn]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct IrnSection {
    rto_low: Option<Delta>,
    rto_high: Option<Delta>,
    low_packets: Option<u32>,
    bdp_cap: Option<u32>,
}

/// Every NIC's settings; `lossless` (PFC on) sets the default timeout, which
/// is off when the congestion control does without one (`timeout_off`: Homa).
pub(super) fn resolve(
    n: &NicSection,
    profile: Profile,
    lossless: bool,
    timeout_off: bool,
    cx: &Ctx,
) -> Result<NicPlan, InputError> {
    let ns3 = profile == Profile::Ns3Hpcc;
    let mtu = n.mtu.unwrap_or(1000);
    if !(64..=9000).contains(&mtu) {
        return Err(cx.err(
            "nic.mtu",
            format!("{mtu} payload bytes per packet; valid: 64..9000"),
        ));
    }
    let ack_interval = n.ack_interval.unwrap_or(1);
    if ack_interval == 0 {
        return Err(cx.err("nic.ack_interval", "must be >= 1 packet"));
    }
    let ns3_ack = ns3_ack(n, ns3, cx)?;
    // In a lossless fabric packets wait in paused queues for long stretches, and a
    // short timeout would only retransmit what is not lost; RoCE NICs default to
    // tens of ms there. Without PFC, losses are routine and recovery must be quick.
    let default_rto = if lossless {
        Delta::from_ms(10)
    } else {
        Delta::from_ms(1)
    };
    // The ns-3 simulator has no retransmission timeout at all (§5).
    let rto = n.rto.unwrap_or(if ns3 || timeout_off {
        Delta::ZERO
    } else {
        default_rto
    });
    // ns-3: ACKs always ride in the data packet's class at switches
    // (hpcc-ns3-model.md §3 "Queue choice"); ACK_HIGH_PRIO only picks the class
    // whose PAUSE stops the host's ACK queue (§4), which is `ack_pause_class`.
    let ack_class = n.ack_class.unwrap_or(if ns3 {
        AckClass::Data
    } else {
        AckClass::Control
    });
    Ok(NicPlan {
        mtu,
        ack_interval,
        ns3_ack,
        ack_in_control_class: ack_class == AckClass::Control,
        ack_pause_control: n.ack_pause_class == Some(AckPauseClass::Control),
        nack_interval: n.nack_interval.unwrap_or(Delta::from_us(500)),
        rto: (!rto.is_zero()).then_some(rto),
        loss_recovery: loss_recovery(n, cx)?,
    })
}

/// The ns-3 simulator's ACK rule, when `nic.ack_policy` is "ns3" (the ns3-hpcc
/// profile's default); its keys are errors with the other policy.
fn ns3_ack(n: &NicSection, ns3: bool, cx: &Ctx) -> Result<Option<Ns3Ack>, InputError> {
    let policy = n.ack_policy.unwrap_or(if ns3 {
        AckPolicy::Ns3
    } else {
        AckPolicy::Packets
    });
    if policy == AckPolicy::Packets {
        let ns3_keys = [
            ("nic.ack_interval_bytes", n.ack_interval_bytes.is_some()),
            ("nic.ack_chunk", n.ack_chunk.is_some()),
            ("nic.back_to_zero", n.back_to_zero.is_some()),
        ];
        if let Some((k, _)) = ns3_keys.iter().find(|k| k.1) {
            return Err(cx.err(
                *k,
                "is only used with nic.ack_policy = \"ns3\" (the ns3-hpcc profile's default)",
            ));
        }
        return Ok(None);
    }
    if n.ack_interval.is_some() {
        return Err(cx.err(
            "nic.ack_interval",
            "is not used with nic.ack_policy = \"ns3\"; set nic.ack_interval_bytes (L2_ACK_INTERVAL)",
        ));
    }
    let interval_bytes = n.ack_interval_bytes.map(|b| b.0).unwrap_or(1);
    if interval_bytes == 0 {
        return Err(cx.err(
            "nic.ack_interval_bytes",
            "must be >= 1 (with 0 the ns-3 sender ignores ACKs and flows never finish)",
        ));
    }
    let chunk = n.ack_chunk.map(|b| b.0).unwrap_or(4000);
    let back_to_zero = n.back_to_zero.unwrap_or(false);
    if back_to_zero && chunk == 0 {
        return Err(cx.err(
            "nic.back_to_zero",
            "needs nic.ack_chunk > 0 (it rounds sequences down to a chunk)",
        ));
    }
    Ok(Some(Ns3Ack {
        interval_bytes,
        chunk,
        back_to_zero,
    }))
}

fn loss_recovery(n: &NicSection, cx: &Ctx) -> Result<LossRecovery, InputError> {
    let kind = n.loss_recovery.unwrap_or(LossRecoveryKind::GoBackN);
    let i = &n.irn;
    let given = i.rto_low.is_some()
        || i.rto_high.is_some()
        || i.low_packets.is_some()
        || i.bdp_cap.is_some();
    if kind != LossRecoveryKind::Irn {
        if given {
            return Err(cx.err("nic.irn", "is only used with nic.loss_recovery = \"irn\""));
        }
        return Ok(match kind {
            LossRecoveryKind::GoBack0 => LossRecovery::GoBack0,
            _ => LossRecovery::GoBackN,
        });
    }
    let d = IrnConfig::default();
    let c = IrnConfig {
        rto_low: i.rto_low.unwrap_or(d.rto_low),
        rto_high: i.rto_high.unwrap_or(d.rto_high),
        low_packets: i.low_packets.unwrap_or(d.low_packets),
        bdp_cap: i.bdp_cap,
    };
    if c.rto_low.is_zero() || c.rto_high.is_zero() {
        return Err(cx.err(
            "nic.irn",
            "rto_low and rto_high must be > 0, e.g. \"100us\" and \"320us\"",
        ));
    }
    if c.bdp_cap == Some(0) {
        return Err(cx.err("nic.irn.bdp_cap", "must be >= 1 packet"));
    }
    Ok(LossRecovery::Irn(c))
}

/// CNPs as `[nic]` sets them, else as `profile_default` (the profile's mode).
pub(super) fn cnp_mode(n: &NicSection, profile_default: CnpMode) -> CnpMode {
    let interval = n.cnp_interval.unwrap_or(Delta::from_us(50));
    let kind = n.cnp.unwrap_or(match profile_default {
        CnpMode::Packet { timer: false, .. } => CnpKind::Packet,
        CnpMode::Packet { timer: true, .. } => CnpKind::Timer,
        CnpMode::AckFlag => CnpKind::AckFlag,
    });
    match kind {
        CnpKind::Packet => CnpMode::Packet {
            interval,
            timer: false,
        },
        CnpKind::Timer => CnpMode::Packet {
            interval,
            timer: true,
        },
        CnpKind::AckFlag => CnpMode::AckFlag,
    }
}
