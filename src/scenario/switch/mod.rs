//! `[switch]`: the shared buffer and PFC thresholds (`[switch.pfc]`, with DCQCN
//! §4's derived rules), RED/ECN marking (`[switch.ecn]`), INT stamping and
//! load balancing (ECMP, per-packet spraying, flowlets, adaptive routing). The
//! PFC scheme and pause style are in `flowctl`, static routes
//! (`[[switch.routes]]`) in `routes`. docs/scenario.md is the reference for every key.

mod flowctl;
mod routes;

use super::ctx::Ctx;
use crate::cc::CcKind;
use crate::error::InputError;
use crate::nic::irn::LossRecovery;
use crate::profile::MmuModel;
use crate::switch::Scheduling;
use crate::switch::ecn::{EcnPlan, Red};
use crate::switch::flowctl::FlowControlConfig;
use crate::switch::mmu::MmuPlan;
use crate::switch::mmu::PfcThreshold;
use crate::switch::spray::LoadBalancing;
use crate::switch::thresholds::SwitchBuffer;
use crate::topology::Topology;
use crate::units::{Bytes, Delta, Rate};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SwitchSection {
    /// Total buffer per switch. Default 32 MB (HPCC §5.1).
    buffer: Option<Bytes>,
    #[serde(default)]
    pfc: PfcSection,
    #[serde(default)]
    ecn: EcnSection,
    /// Stamp INT records; default: when the congestion control needs them.
    int: Option<bool>,
    /// Without PFC: an egress queue may hold `egress_alpha x` the free buffer.
    egress_alpha: Option<f64>,
    /// Cap on the shared pool (default: what headroom and reserves leave).
    shared_buffer: Option<Bytes>,
    /// "round-robin" or "strict" among the data classes; default: strict
    /// when the congestion control uses priorities (Homa), else round robin.
    scheduling: Option<SchedulingKind>,
    /// Static routes replacing the computed ones (`[[switch.routes]]`).
    #[serde(default)]
    routes: Vec<routes::RouteEntry>,
    /// "ecmp" (per flow, the default), "spray" (per packet), "flowlet"
    /// (LetFlow) or "adaptive" (per packet, least-queued port).
    load_balancing: Option<BalancingKind>,
    /// The idle time after which a flow's next packet starts a new flowlet.
    /// Default [`crate::switch::flowlet::DEFAULT_GAP`].
    flowlet_gap: Option<Delta>,
}

/// `switch.load_balancing`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum BalancingKind {
    Ecmp,
    Spray,
    Flowlet,
    Adaptive,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PfcSection {
    /// PFC on (lossless). Default true.
    enabled: Option<bool>,
    /// "dynamic" (alpha x free shared buffer) or "static".
    threshold: Option<ThresholdKind>,
    /// Dynamic-threshold alpha. Default 1/8 (HPCC §5.1: ~11 % of free buffer).
    alpha: Option<f64>,
    /// Static threshold per (ingress port, class).
    static_threshold: Option<Bytes>,
    /// Headroom per port; default 2 x link BDP (propagation) + 3 MTU-sized frames.
    headroom: Option<Bytes>,
    /// Reserve per (ingress port, class). Default 0.
    reserve: Option<Bytes>,
    /// XON when this far below the threshold. Default 2 MTU-sized frames (DCQCN §4).
    resume_offset: Option<Bytes>,
    /// DCQCN §4's beta: dynamic t_PFC = beta (B - 8 n t_flight - s) / 8, i.e.
    /// alpha = beta / classes. Exclusive with `alpha`.
    beta: Option<f64>,
    /// Lossless classes in DCQCN §4's rules (the "8"). Default 8.
    classes: Option<u32>,
    /// Timed pauses: every PAUSE lasts this many quanta (512 bit times). Omitted:
    /// X-OFF/X-ON (a pause lasts until RESUME).
    pause_quanta: Option<u32>,
    /// Send RESUME frames. Default true; false needs `pause_quanta`.
    resume: Option<bool>,
    /// "standard", "ppfc" (P-PFC) or "capfc" (CaPFC). Default "standard".
    scheme: Option<flowctl::SchemeKind>,
    #[serde(default)]
    ppfc: flowctl::PpfcSection,
    #[serde(default)]
    capfc: flowctl::CapfcSection,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ThresholdKind {
    Dynamic,
    Static,
    /// DCQCN §4's largest static t_PFC for this switch: (B - 8 n t_flight) / (8 n).
    DcqcnStatic,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EcnSection {
    /// Mark at all; default: when the congestion control reacts to ECN.
    enabled: Option<bool>,
    kmin: Option<Bytes>,
    kmax: Option<Bytes>,
    pmax: Option<f64>,
    /// Scale kmin/kmax by (port rate / this rate), as HPCC §5.1 does (25 Gbps for
    /// DCQCN, 10 Gbps for DCTCP).
    scale_from: Option<Rate>,
    /// Exact per-rate settings, like the ns-3 KMIN_MAP/KMAX_MAP/PMAX_MAP.
    #[serde(default)]
    per_rate: Vec<EcnRate>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EcnRate {
    rate: Rate,
    kmin: Bytes,
    kmax: Bytes,
    pmax: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum SchedulingKind {
    RoundRobin,
    Strict,
}

impl SwitchSection {
    /// How ports choose among data classes: as given, else strict priority
    /// when `cc` sends at several priorities (Homa), round robin otherwise.
    pub(super) fn scheduling(&self, cc: &CcKind) -> Scheduling {
        match self.scheduling {
            Some(SchedulingKind::RoundRobin) => Scheduling::RoundRobin,
            Some(SchedulingKind::Strict) => Scheduling::Strict,
            None if cc.uses_priorities() => Scheduling::Strict,
            None => Scheduling::RoundRobin,
        }
    }

    /// PFC on: a lossless fabric (the default).
    pub(super) fn lossless(&self) -> bool {
        self.pfc.enabled.unwrap_or(true)
    }

    /// Whether switches stamp INT records: as given, else when `cc` needs them.
    pub(super) fn int_on(&self, cc: &CcKind) -> bool {
        self.int.unwrap_or_else(|| cc.needs_int())
    }

    /// How switches pick among equal-cost next hops. Every mode but ECMP
    /// moves a flow's packets between paths, and is refused with an
    /// algorithm that needs every packet of a flow on one path, and with
    /// go-back-0, which needs them in order.
    pub(super) fn load_balancing(
        &self,
        cc: &CcKind,
        recovery: &LossRecovery,
        cx: &Ctx,
    ) -> Result<LoadBalancing, InputError> {
        let kind = self.load_balancing.unwrap_or(BalancingKind::Ecmp);
        if self.flowlet_gap.is_some() && kind != BalancingKind::Flowlet {
            return Err(cx.err(
                "switch.flowlet_gap",
                "is only used with switch.load_balancing = \"flowlet\"",
            ));
        }
        let lb = match kind {
            BalancingKind::Ecmp => return Ok(LoadBalancing::Ecmp),
            BalancingKind::Spray => LoadBalancing::Spray,
            BalancingKind::Adaptive => LoadBalancing::Adaptive,
            BalancingKind::Flowlet => LoadBalancing::Flowlet {
                gap: flowlet_gap(self.flowlet_gap, cx)?,
            },
        };
        let name = lb.name();
        // Per packet, a flow's packets share no path; per flowlet, only
        // until its next flowlet.
        let moves = match lb {
            LoadBalancing::Flowlet { .. } => {
                ", and a new flowlet (after switch.flowlet_gap idle) may take another"
            }
            _ => "",
        };
        if let Some(why) = cc.needs_one_path() {
            return Err(cx.err(
                "switch.load_balancing",
                format!(
                    "\"{name}\" cannot run with cc.algorithm = \"{}\", which {why} and so needs every packet of a flow on one path{moves}; use \"ecmp\"",
                    cc.name()
                ),
            ));
        }
        if *recovery == LossRecovery::GoBack0 {
            let consequence = match lb {
                LoadBalancing::Spray => {
                    "so a sprayed message of more than a few packets would never complete"
                }
                LoadBalancing::Adaptive => {
                    "so an adaptively routed message of more than a few packets would never complete"
                }
                _ => {
                    "and a new flowlet overtakes the one before it whenever the old path queues it more than switch.flowlet_gap longer, so a long message could start over without end"
                }
            };
            return Err(cx.err(
                "switch.load_balancing",
                format!(
                    "\"{name}\" cannot run with nic.loss_recovery = \"go-back-0\": its receiver drops the whole message at the first packet out of order, {consequence}; use \"ecmp\", or \"go-back-n\" or \"irn\""
                ),
            ));
        }
        Ok(lb)
    }

    /// Installs `[[switch.routes]]` over the computed routes.
    pub(super) fn apply_routes(&self, topo: &mut Topology, cx: &Ctx) -> Result<(), InputError> {
        routes::apply_routes(topo, &self.routes, cx)
    }
}

/// Flowlet switching's gap: as given, in (0, 1 s], else the default.
fn flowlet_gap(gap: Option<Delta>, cx: &Ctx) -> Result<Delta, InputError> {
    let max = Delta::from_ms(1_000);
    match gap {
        None => Ok(crate::switch::flowlet::DEFAULT_GAP),
        Some(g) if !g.is_zero() && g <= max => Ok(g),
        Some(g) => Err(cx.err(
            "switch.flowlet_gap",
            format!(
                "\"{g}\" is not a flowlet gap (valid: more than 0 and at most 1s, e.g. \"25us\")"
            ),
        )),
    }
}

/// The buffer and PFC thresholds of every switch, and the flow-control scheme.
pub(super) fn resolve_pfc(
    s: &SwitchSection,
    topo: &Topology,
    mtu_wire: u64,
    mmu: MmuModel,
    cx: &Ctx,
) -> Result<(MmuPlan, FlowControlConfig), InputError> {
    let mut plan = mmu_plan(s, mtu_wire, mmu, cx)?;
    dcqcn_rules(&s.pfc, &mut plan, topo, mtu_wire, cx)?;
    let ns3 = mmu == MmuModel::Ns3;
    let resume_offset =
        (s.pfc.resume_offset.map(|b| b.0)).unwrap_or(if ns3 { 3072 } else { 2 * mtu_wire });
    let flowctl = flowctl::resolve(&s.pfc, s.lossless(), resume_offset, cx)?;
    Ok((plan, flowctl))
}

/// The buffer and its PFC thresholds (`[switch]`, `[switch.pfc]`), with the
/// MMU model's defaults.
fn mmu_plan(
    s: &SwitchSection,
    mtu_wire: u64,
    mmu: MmuModel,
    cx: &Ctx,
) -> Result<MmuPlan, InputError> {
    let p = &s.pfc;
    let ns3 = mmu == MmuModel::Ns3;
    // ns-3: BUFFER_SIZE is in MiB; run.py uses 32 at 100 Gbps.
    let buffer = s
        .buffer
        .map(|b| b.0)
        .unwrap_or(if ns3 { 32 << 20 } else { 32_000_000 });
    if buffer < 10 * mtu_wire {
        return Err(cx.err(
            "switch.buffer",
            format!("{buffer} B is smaller than 10 packets of {mtu_wire} B"),
        ));
    }
    if let Some(alpha) = p.alpha
        && !(alpha > 0.0 && alpha.is_finite())
    {
        return Err(cx.err(
            "switch.pfc.alpha",
            format!("{alpha} must be > 0, e.g. 0.125"),
        ));
    }
    let threshold = match p.threshold.unwrap_or(ThresholdKind::Dynamic) {
        ThresholdKind::Dynamic => PfcThreshold::Dynamic,
        // Set per switch from DCQCN §4 once the topology is known.
        ThresholdKind::DcqcnStatic => PfcThreshold::Dynamic,
        ThresholdKind::Static => match p.static_threshold {
            Some(b) if b.0 > 0 => PfcThreshold::Static(b.0),
            _ => {
                return Err(cx.err(
                    "switch.pfc.static_threshold",
                    "threshold = \"static\" needs static_threshold > 0, e.g. \"24.47KB\"",
                ));
            }
        },
    };
    let egress_alpha = s.egress_alpha.unwrap_or(1.0);
    if !(egress_alpha > 0.0 && egress_alpha.is_finite()) {
        return Err(cx.err(
            "switch.egress_alpha",
            format!("{egress_alpha} must be > 0, e.g. 1.0"),
        ));
    }
    Ok(MmuPlan {
        buffer,
        lossless: p.enabled.unwrap_or(true),
        threshold,
        alpha: p.alpha,
        headroom: p.headroom.map(|b| b.0),
        reserve: p.reserve.map(|b| b.0).unwrap_or(if ns3 { 4096 } else { 0 }),
        egress_alpha,
        shared_buffer: s.shared_buffer.map(|b| b.0),
        dcqcn_static: Vec::new(),
    })
}

/// `alpha` from `beta` (DCQCN §4: `t_PFC = beta (B - 8 n t_flight - s) / 8`), the
/// lossless classes of those rules, and the `dcqcn-static` threshold per switch.
fn dcqcn_rules(
    p: &PfcSection,
    plan: &mut MmuPlan,
    topo: &Topology,
    mtu_wire: u64,
    cx: &Ctx,
) -> Result<(), InputError> {
    let classes = p.classes.unwrap_or(8);
    if !(1..=8).contains(&classes) {
        return Err(cx.err(
            "switch.pfc.classes",
            format!("{classes}; valid: 1..8 lossless classes"),
        ));
    }
    if let Some(beta) = p.beta {
        if p.alpha.is_some() {
            return Err(cx.err(
                "switch.pfc.beta",
                "give alpha or beta (alpha = beta / classes), not both",
            ));
        }
        if !(beta > 0.0 && beta.is_finite()) {
            return Err(cx.err("switch.pfc.beta", format!("{beta} must be > 0, e.g. 8")));
        }
        plan.alpha = Some(beta / classes as f64);
    }
    if p.threshold == Some(ThresholdKind::DcqcnStatic) {
        for &sw in &topo.switches {
            let ports = &topo.ports[sw.idx()];
            let t_flight = ports
                .iter()
                .map(|pi| plan.headroom_for(pi, mtu_wire))
                .max()
                .unwrap_or(0);
            let b = SwitchBuffer {
                buffer: plan.buffer,
                ports: ports.len() as u64,
                classes: classes as u64,
                t_flight,
            };
            match b.t_pfc_static() {
                Some(t) if t > 0 => plan.dcqcn_static.push(t),
                _ => {
                    return Err(cx.err(
                        "switch.pfc.threshold",
                        format!(
                            "\"dcqcn-static\": switch {sw} has {} ports x {classes} classes x {t_flight} B of headroom, more than its {} B buffer; give a larger switch.buffer or fewer classes",
                            ports.len(),
                            plan.buffer
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// RED marking at the egress queues (DCQCN Fig. 5, Eq. 5).
pub(super) fn resolve_ecn(s: &SwitchSection, cc: &CcKind, cx: &Ctx) -> Result<EcnPlan, InputError> {
    let e = &s.ecn;
    // Defaults: what the algorithm is evaluated with (DCQCN Fig. 14; DCTCP's step
    // at 30 KB x rate / 10 Gbps, HPCC §5.1). Thresholds the user gives are taken as
    // they are: the algorithm's rate scaling applies only to its own thresholds.
    let d = cc.ecn_defaults();
    let user_thresholds = e.kmin.is_some() || e.kmax.is_some();
    let base = Red {
        kmin: e.kmin.unwrap_or(d.kmin).0,
        kmax: e.kmax.unwrap_or(d.kmax).0,
        pmax: e.pmax.unwrap_or(d.pmax),
    };
    let scale_from = match e.scale_from {
        Some(r) => Some(r),
        None if user_thresholds => None,
        None => d.scale_from,
    };
    let check = |field: &str, r: &Red| {
        if r.kmin > r.kmax {
            return Err(cx.err(field, format!("kmin {} > kmax {}", r.kmin, r.kmax)));
        }
        if !(0.0..=1.0).contains(&r.pmax) {
            return Err(cx.err(field, format!("pmax {} must be in [0, 1]", r.pmax)));
        }
        Ok(())
    };
    check("switch.ecn", &base)?;
    let mut per_rate = Vec::new();
    for (i, pr) in e.per_rate.iter().enumerate() {
        let r = Red {
            kmin: pr.kmin.0,
            kmax: pr.kmax.0,
            pmax: pr.pmax,
        };
        check(&format!("switch.ecn.per_rate[{i}]"), &r)?;
        per_rate.push((pr.rate, r));
    }
    Ok(EcnPlan {
        enabled: e.enabled.unwrap_or_else(|| cc.uses_ecn()),
        base,
        scale_from,
        per_rate,
    })
}
