//! `[packet]` (wire sizes) and `[model]` (modelling choices): the profile's
//! values (docs/models.md) unless the congestion control makes its own choice,
//! and the scenario's where it gives one. docs/scenario.md is the reference.

use super::ctx::Ctx;
use crate::cc::CcKind;
use crate::error::InputError;
use crate::profile::{
    EcmpHash, EcnPoint, IdealFct, IntBytes, IntUnits, MmuModel, ModelConfig, NicScheduler, Profile,
    Serialization,
};
use serde::Deserialize;

/// Wire sizes in bytes; defaults come from the profile.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PacketSection {
    data_header: Option<u32>,
    /// "fixed" (`int_bytes` on every data packet) or "per-hop".
    int_mode: Option<IntMode>,
    /// Fixed INT area. Default 42 (HPCC §5.1).
    int_bytes: Option<u32>,
    /// Per-hop mode: bytes the sender adds and each switch adds. Default 2 and 8.
    int_base: Option<u32>,
    int_per_hop: Option<u32>,
    ack: Option<u32>,
    ack_min: Option<u32>,
    cnp: Option<u32>,
    pfc: Option<u32>,
    serialization: Option<Serialization>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum IntMode {
    Fixed,
    PerHop,
}

/// Other modelling choices; defaults come from the profile.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelSection {
    ecn_point: Option<EcnPoint>,
    ack_duplicates: Option<bool>,
    ideal_fct: Option<IdealFct>,
    ecmp_hash: Option<EcmpHash>,
    repace_on_rate_change: Option<bool>,
    /// "eager" or "ns3": when a NIC looks for the next packet to send.
    nic_scheduler: Option<NicScheduler>,
    /// "default" or "ns3" switch MMU rules.
    mmu: Option<MmuModel>,
    /// "exact" or "ns3" INT field encoding.
    int_units: Option<IntUnitsKind>,
    /// INT_MULTI: ns-3 INT units are 128 x N and 80 x N bytes. Default 1.
    int_multi: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum IntUnitsKind {
    Exact,
    Ns3,
}

/// The model of `profile` with `[packet]`, `[model]` and `cc`'s own choices.
pub(super) fn resolve(
    p: &PacketSection,
    md: &ModelSection,
    profile: Profile,
    cc: &CcKind,
    cx: &Ctx,
) -> Result<ModelConfig, InputError> {
    let mut m = ModelConfig::for_profile(profile);
    packet_sizes(p, &mut m, cx)?;
    model_keys(md, &mut m, cx)?;
    // Per-algorithm NIC behaviour the scenario did not set explicitly.
    if md.repace_on_rate_change.is_none()
        && let Some(v) = cc.repace_on_rate_change()
    {
        m.repace_on_rate_change = v;
    }
    if md.ecmp_hash.is_none() && matches!(cc, CcKind::ExpressPass(_)) {
        // Its data must follow its credits back (docs/models.md, "ExpressPass").
        m.ecmp_hash = crate::profile::EcmpHash::Symmetric;
    }
    if p.int_bytes.is_none()
        && p.int_mode.is_none()
        && let Some(b) = cc.int_bytes()
    {
        m.sizes.int = IntBytes::Fixed(b);
    }
    Ok(m)
}

fn packet_sizes(p: &PacketSection, m: &mut ModelConfig, cx: &Ctx) -> Result<(), InputError> {
    let s = &mut m.sizes;
    if let Some(v) = p.data_header {
        s.data_header = v;
    }
    let int_mode = p.int_mode.unwrap_or(match s.int {
        IntBytes::Fixed(_) => IntMode::Fixed,
        IntBytes::PerHop { .. } => IntMode::PerHop,
    });
    s.int = match int_mode {
        IntMode::Fixed => IntBytes::Fixed(p.int_bytes.unwrap_or(match s.int {
            IntBytes::Fixed(b) => b,
            IntBytes::PerHop { .. } => 42,
        })),
        IntMode::PerHop => IntBytes::PerHop {
            base: p.int_base.unwrap_or(2),
            per_hop: p.int_per_hop.unwrap_or(8),
        },
    };
    for (v, size) in [
        (p.ack, &mut s.ack),
        (p.ack_min, &mut s.ack_min),
        (p.cnp, &mut s.cnp),
        (p.pfc, &mut s.pfc),
    ] {
        if let Some(v) = v {
            *size = v;
        }
    }
    for (field, v) in [
        ("packet.ack", s.ack.max(s.ack_min)),
        ("packet.cnp", s.cnp),
        ("packet.pfc", s.pfc),
    ] {
        if v == 0 {
            return Err(cx.err(field, "a packet must have at least one byte"));
        }
    }
    if let Some(v) = p.serialization {
        m.serialization = v;
    }
    Ok(())
}

fn model_keys(md: &ModelSection, m: &mut ModelConfig, cx: &Ctx) -> Result<(), InputError> {
    m.ecn_point = md.ecn_point.unwrap_or(m.ecn_point);
    m.ack_duplicates = md.ack_duplicates.unwrap_or(m.ack_duplicates);
    m.ideal_fct = md.ideal_fct.unwrap_or(m.ideal_fct);
    m.ecmp_hash = md.ecmp_hash.unwrap_or(m.ecmp_hash);
    m.repace_on_rate_change = md.repace_on_rate_change.unwrap_or(m.repace_on_rate_change);
    m.nic_scheduler = md.nic_scheduler.unwrap_or(m.nic_scheduler);
    m.mmu = md.mmu.unwrap_or(m.mmu);
    let multi = md.int_multi.unwrap_or(match m.int_units {
        IntUnits::Ns3 { multi } => multi,
        IntUnits::Exact => 1,
    });
    if multi == 0 {
        return Err(cx.err(
            "model.int_multi",
            "must be >= 1 (INT_MULTI: units of 128 x N bytes)",
        ));
    }
    let units = md.int_units.unwrap_or(match m.int_units {
        IntUnits::Exact => IntUnitsKind::Exact,
        IntUnits::Ns3 { .. } => IntUnitsKind::Ns3,
    });
    m.int_units = match units {
        IntUnitsKind::Exact if md.int_multi.is_some() => {
            return Err(cx.err(
                "model.int_multi",
                "is only used with model.int_units = \"ns3\"",
            ));
        }
        IntUnitsKind::Exact => IntUnits::Exact,
        IntUnitsKind::Ns3 => IntUnits::Ns3 { multi },
    };
    Ok(())
}
