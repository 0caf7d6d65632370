//! Flow-control keys of a scenario and their validation: the PFC scheme and pause
//! style (`[switch.pfc]`, `[switch.pfc.ppfc]`, `[switch.pfc.capfc]`), DCQCN §4
//! derived thresholds, static routes (`[[switch.routes]]`), loss recovery
//! (`nic.loss_recovery`, `[nic.irn]`) and `[diagnostics]`. docs/scenario.md is
//! the reference for every key.

use super::ctx::Ctx;
use super::{NicSection, SwitchSection, ThresholdKind};
use crate::config::DiagConfig;
use crate::error::InputError;
use crate::nic::irn::{IrnConfig, LossRecovery};
use crate::switch::flowctl::PfcPlan;
use crate::switch::flowctl::capfc::InputCounter;
use crate::switch::flowctl::ppfc::PauseTime;
use crate::switch::flowctl::{CapfcConfig, FlowControlConfig, PfcConfig, PpfcConfig, Scheme};
use crate::switch::thresholds::SwitchBuffer;
use crate::topology::{NodeId, NodeKind, Topology};
use crate::units::{Bytes, Delta};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeKind {
    Standard,
    Ppfc,
    Capfc,
}

/// `[switch.pfc.ppfc]` (P-PFC §4; defaults from its Table 2).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PpfcSection {
    pub interval: Option<Delta>,
    pub t: Option<Delta>,
    pub r: Option<f64>,
    pub kmax: Option<Bytes>,
    pub pause: Option<Delta>,
    pub pause_time: Option<PauseTimeKind>,
}

/// `switch.pfc.ppfc.pause_time`: the reading of Alg. 3's `Transmission_speed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PauseTimeKind {
    OwnBytes,
    FifoShare,
}

/// `[switch.pfc.capfc]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapfcSection {
    pub warn: Option<Bytes>,
    pub input_threshold: Option<Bytes>,
    pub counter: Option<CounterKind>,
}

/// `switch.pfc.capfc.counter`: what CaPFC's per-input counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CounterKind {
    Reserve,
    Total,
}

/// One static route: at switch node `switch`, packets for host `dst` leave
/// through `port`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteEntry {
    pub switch: u32,
    pub dst: u32,
    pub port: u16,
}

/// `[diagnostics]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsSection {
    pub storm_window: Option<Delta>,
    pub storm_fraction: Option<f64>,
    pub deadlock: Option<bool>,
    pub deadlock_confirm: Option<Delta>,
    pub congested_queue: Option<Bytes>,
    pub victims: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LossRecoveryKind {
    #[serde(rename = "go-back-n")]
    GoBackN,
    #[serde(rename = "go-back-0")]
    GoBack0,
    #[serde(rename = "irn")]
    Irn,
}

/// `[nic.irn]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IrnSection {
    pub rto_low: Option<Delta>,
    pub rto_high: Option<Delta>,
    pub low_packets: Option<u32>,
    pub bdp_cap: Option<u32>,
}

/// The flow-control scheme and pause style of every switch.
pub(super) fn resolve_flowctl(
    s: &SwitchSection,
    lossless: bool,
    resume_offset: u64,
    cx: &Ctx,
) -> Result<FlowControlConfig, InputError> {
    let p = &s.pfc;
    let pause_quanta = match p.pause_quanta {
        None => None,
        Some(q) if (1..=65535).contains(&q) => Some(q as u16),
        Some(q) => {
            return Err(cx.err(
                "switch.pfc.pause_quanta",
                format!("{q} quanta; valid: 1..65535 (a quantum is 512 bit times)"),
            ));
        }
    };
    let send_resume = p.resume.unwrap_or(true);
    if !send_resume && pause_quanta.is_none() {
        return Err(cx.err(
            "switch.pfc.resume",
            "false needs timed pauses (switch.pfc.pause_quanta), or paused classes would never resume",
        ));
    }
    let kind = p.scheme.unwrap_or(SchemeKind::Standard);
    if !lossless && kind != SchemeKind::Standard {
        return Err(cx.err(
            "switch.pfc.scheme",
            "P-PFC and CaPFC need PFC (switch.pfc.enabled = true)",
        ));
    }
    let scheme = match kind {
        SchemeKind::Standard => Scheme::Standard,
        SchemeKind::Ppfc => {
            let d = PpfcConfig::default();
            let q = &p.ppfc;
            let c = PpfcConfig {
                interval: q.interval.unwrap_or(d.interval),
                t: q.t.unwrap_or(d.t),
                r: q.r.unwrap_or(d.r),
                kmax: q.kmax.map(|b| b.0),
                fixed_pause: q.pause,
                pause_time: match q.pause_time {
                    None => d.pause_time,
                    Some(PauseTimeKind::OwnBytes) => PauseTime::OwnBytes,
                    Some(PauseTimeKind::FifoShare) => PauseTime::FifoShare,
                },
            };
            if q.pause.is_some() && q.pause_time.is_some() {
                return Err(cx.err(
                    "switch.pfc.ppfc.pause_time",
                    "give pause (a fixed pause time) or pause_time (how Alg. 3 computes it), \
                     not both",
                ));
            }
            if c.fixed_pause.is_some_and(|d| d.is_zero()) {
                return Err(cx.err(
                    "switch.pfc.ppfc.pause",
                    "must be > 0, e.g. \"20us\" (omit it for the dynamic pause time)",
                ));
            }
            if c.interval.is_zero() {
                return Err(cx.err("switch.pfc.ppfc.interval", "must be > 0, e.g. \"1us\""));
            }
            if c.t.is_zero() {
                return Err(cx.err("switch.pfc.ppfc.t", "must be > 0, e.g. \"100us\""));
            }
            if !(c.r > 0.0 && c.r <= 1.0) {
                return Err(cx.err(
                    "switch.pfc.ppfc.r",
                    format!("{} must be in (0, 1], e.g. 0.8", c.r),
                ));
            }
            Scheme::Ppfc(c)
        }
        SchemeKind::Capfc => {
            let d = CapfcConfig::default();
            let c = CapfcConfig {
                warn: p.capfc.warn.map_or(d.warn, |b| b.0),
                input_threshold: p.capfc.input_threshold.map_or(d.input_threshold, |b| b.0),
                counter: match p.capfc.counter {
                    None => d.counter,
                    Some(CounterKind::Reserve) => InputCounter::Reserve,
                    Some(CounterKind::Total) => InputCounter::Total,
                },
            };
            for (f, v) in [("warn", c.warn), ("input_threshold", c.input_threshold)] {
                if v == 0 {
                    return Err(cx.err(format!("switch.pfc.capfc.{f}"), "must be > 0 bytes"));
                }
            }
            Scheme::Capfc(c)
        }
    };
    Ok(FlowControlConfig {
        enabled: lossless,
        pfc: PfcConfig {
            resume_offset,
            pause_quanta,
            send_resume,
        },
        scheme,
    })
}

/// `alpha` from `beta` (DCQCN §4: `t_PFC = beta (B - 8 n t_flight - s) / 8`), the
/// lossless classes of those rules, and the `dcqcn-static` threshold per switch.
pub(super) fn resolve_dcqcn_rules(
    s: &SwitchSection,
    plan: &mut PfcPlan,
    topo: &Topology,
    mtu_wire: u64,
    cx: &Ctx,
) -> Result<(), InputError> {
    let p = &s.pfc;
    let classes = p.classes.unwrap_or(8);
    if !(1..=8).contains(&classes) {
        return Err(cx.err(
            "switch.pfc.classes",
            format!("{classes}; valid: 1..8 lossless classes"),
        ));
    }
    plan.classes = classes;
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

pub(super) fn resolve_diag(d: &DiagnosticsSection, cx: &Ctx) -> Result<DiagConfig, InputError> {
    let def = DiagConfig::default();
    let c = DiagConfig {
        storm_window: d.storm_window.unwrap_or(def.storm_window),
        storm_fraction: d.storm_fraction.unwrap_or(def.storm_fraction),
        deadlock: d.deadlock.unwrap_or(def.deadlock),
        deadlock_confirm: d.deadlock_confirm.unwrap_or(def.deadlock_confirm),
        congested_queue: d.congested_queue.map_or(def.congested_queue, |b| b.0),
        victims: d.victims.unwrap_or(def.victims),
    };
    if c.storm_window.is_zero() {
        return Err(cx.err("diagnostics.storm_window", "must be > 0, e.g. \"1ms\""));
    }
    if !(c.storm_fraction > 0.0 && c.storm_fraction < 1.0) {
        return Err(cx.err(
            "diagnostics.storm_fraction",
            format!("{} must be in (0, 1), e.g. 0.5", c.storm_fraction),
        ));
    }
    if c.deadlock_confirm.is_zero() {
        return Err(cx.err("diagnostics.deadlock_confirm", "must be > 0, e.g. \"1ms\""));
    }
    Ok(c)
}

pub(super) fn resolve_loss_recovery(n: &NicSection, cx: &Ctx) -> Result<LossRecovery, InputError> {
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

/// Installs `[[switch.routes]]`, rejecting routes that name no switch or host, a
/// port that does not exist or leads to another host, and loops.
pub(super) fn apply_routes(
    topo: &mut Topology,
    routes: &[RouteEntry],
    cx: &Ctx,
) -> Result<(), InputError> {
    let n = topo.spec.kinds.len() as u32;
    for (i, r) in routes.iter().enumerate() {
        let field = format!("switch.routes[{i}]");
        if r.switch >= n || topo.kind(NodeId(r.switch)) != NodeKind::Switch {
            return Err(cx.err(
                format!("{field}.switch"),
                format!("node {} is not a switch", r.switch),
            ));
        }
        if r.dst >= n || topo.kind(NodeId(r.dst)) != NodeKind::Host {
            return Err(cx.err(
                format!("{field}.dst"),
                format!("node {} is not a host", r.dst),
            ));
        }
        let ports = &topo.ports[r.switch as usize];
        let Some(pi) = ports.get(r.port as usize) else {
            return Err(cx.err(
                format!("{field}.port"),
                format!("switch {} has ports 0..{}", r.switch, ports.len() - 1),
            ));
        };
        if topo.is_host(pi.peer) && pi.peer.0 != r.dst {
            return Err(cx.err(
                format!("{field}.port"),
                format!(
                    "port {} of switch {} leads to host {}, not to host {}",
                    r.port, r.switch, pi.peer, r.dst
                ),
            ));
        }
        let si = topo.kind_index[r.switch as usize];
        topo.routes.set_route(si, NodeId(r.dst), r.port);
    }
    // Loops: follow every next hop toward each destination with a static route.
    let mut dsts: Vec<u32> = routes.iter().map(|r| r.dst).collect();
    dsts.sort_unstable();
    dsts.dedup();
    for dst in dsts {
        if let Some(cycle) = route_loop(topo, NodeId(dst)) {
            let names: Vec<String> = cycle.iter().map(|&s| topo.name(s)).collect();
            return Err(cx.err(
                "switch.routes",
                format!("routes toward host {dst} loop: {}", names.join(" -> ")),
            ));
        }
    }
    Ok(())
}

/// A cycle of switches in the next-hop graph toward `dst`, if any.
fn route_loop(topo: &Topology, dst: NodeId) -> Option<Vec<NodeId>> {
    // 0 = unseen, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; topo.spec.kinds.len()];
    let mut path = Vec::new();
    fn visit(
        topo: &Topology,
        dst: NodeId,
        u: NodeId,
        state: &mut [u8],
        path: &mut Vec<NodeId>,
    ) -> Option<Vec<NodeId>> {
        state[u.idx()] = 1;
        path.push(u);
        let si = topo.kind_index[u.idx()];
        for &p in topo.routes.next_hops(si, dst) {
            let v = topo.ports[u.idx()][p as usize].peer;
            if topo.is_host(v) {
                continue;
            }
            match state[v.idx()] {
                1 => {
                    let at = path.iter().position(|&x| x == v).expect("on the stack");
                    let mut c = path[at..].to_vec();
                    c.push(v);
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(topo, dst, v, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state[u.idx()] = 2;
        None
    }
    for &s in &topo.switches {
        if state[s.idx()] == 0
            && let Some(c) = visit(topo, dst, s, &mut state, &mut path)
        {
            return Some(c);
        }
    }
    None
}
