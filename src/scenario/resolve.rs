//! Validation of a parsed scenario into a [`RunConfig`] (src/config/mod.rs): runtime types, profile
//! defaults filled in, every impossible value rejected with the field's path.

use super::ctx::{Ctx, check_flow, check_host, resolve_path};
use super::load::Loaded;
use super::*;
use crate::cc::CcKind;
use crate::config::{FlowSet, OutputPlan, RunConfig};
use crate::error::InputError;
use crate::nic::{NicPlan, Ns3Ack};
use crate::profile::{CnpMode, IntBytes, IntUnits, MmuModel, ModelConfig};
use crate::switch::ecn::EcnPlan;
use crate::switch::ecn::Red;
use crate::switch::flowctl::PfcPlan;
use crate::switch::mmu::PfcThreshold;
use crate::topology::{NodeId, NodeKind, Topology};
use crate::units::SimTime;
use crate::workload::{FlowSpec, incast::incast};
use std::path::Path;

/// Validates `loaded` into a [`RunConfig`].
pub fn resolve(loaded: &Loaded) -> Result<RunConfig, InputError> {
    let f = &loaded.file;
    let cx = Ctx {
        source: &loaded.source,
    };
    if let Some(name) = &f.name {
        check_name(name).map_err(|msg| cx.err("name", msg))?;
    }
    let mut topo = super::topology::build_topology(&f.topology, &loaded.base_dir, &cx)?;
    let cc = f.cc.resolve().map_err(|(field, msg)| cx.err(field, msg))?;
    let mut model = resolve_model(f, &cx)?;
    // Per-algorithm NIC behaviour the scenario did not set explicitly.
    if f.model.repace_on_rate_change.is_none()
        && let Some(v) = cc.repace_on_rate_change()
    {
        model.repace_on_rate_change = v;
    }
    if f.packet.int_bytes.is_none()
        && f.packet.int_mode.is_none()
        && let Some(b) = cc.int_bytes()
    {
        model.sizes.int = IntBytes::Fixed(b);
    }
    if model.ecmp_hash == crate::profile::EcmpHash::Ns3Murmur {
        // ns-3 lists equal-cost next hops in its BFS discovery order.
        topo.use_ns3_route_order();
    }
    // After the next-hop order: recomputing the routes would drop static ones.
    super::flowctl::apply_routes(&mut topo, &f.switch.routes, &cx)?;
    let int_on = f.switch.int.unwrap_or_else(|| cc.needs_int());

    let lossless = f.switch.pfc.enabled.unwrap_or(true);
    let nic = resolve_nic(&f.nic, f.profile, lossless, &cx)?;
    let mtu_wire = model.sizes.data_wire(nic.mtu, int_on) as u64;
    let mut pfc = resolve_pfc(&f.switch, mtu_wire, model.mmu, &cx)?;
    super::flowctl::resolve_dcqcn_rules(&f.switch, &mut pfc, &topo, mtu_wire, &cx)?;
    let flowctl = super::flowctl::resolve_flowctl(&f.switch, lossless, pfc.resume_offset, &cx)?;
    let diag = super::flowctl::resolve_diag(&f.diagnostics, &cx)?;
    let ecn = resolve_ecn(&f.switch.ecn, &cc, &cx)?;
    let mut flows = resolve_flows(&f.workload, &topo, &loaded.base_dir, f.seed, &cx)?;
    // Generated flows join the explicit ones, sorted by start time (stable).
    let payload_fraction = nic.mtu as f64 / mtu_wire as f64;
    flows.extend(super::generators::generate(
        &f.workload,
        &topo,
        &loaded.base_dir,
        &cx,
        f.seed,
        payload_fraction,
    )?);
    crate::limits::check_count(
        "the number of flows",
        flows.len() as u64,
        crate::limits::MAX_FLOWS,
    )
    .map_err(|m| cx.err("workload", m))?;
    // Every generator keeps its starts within the time limit; this is the net.
    if let Some(f) = flows
        .iter()
        .find(|f| f.start.ps() > crate::limits::MAX_TIME_PS)
    {
        return Err(cx.err(
            "workload",
            format!(
                "a flow from host {} starts at {} s, after the time limit of {:.0} s (docs/scenario.md, Limits)",
                f.src,
                f.start.as_secs_f64(),
                crate::limits::max_time_s()
            ),
        ));
    }
    flows.sort_by_key(|f| f.start);
    let output = resolve_output(&f.output, &f.workload, &topo, flows.len(), &cx)?;
    if let Some(stop) = f.stop
        && stop.is_zero()
    {
        return Err(cx.err(
            "stop",
            "must be > 0, e.g. \"10ms\" (or omit it to run until all flows finish)",
        ));
    }
    let threads = f.run.threads.unwrap_or(1);
    if !(1..=crate::limits::MAX_THREADS).contains(&threads) {
        return Err(cx.err(
            "run.threads",
            format!(
                "{threads} is not a thread count; give 1 to {}",
                crate::limits::MAX_THREADS
            ),
        ));
    }
    Ok(RunConfig {
        name: f.name.clone().unwrap_or_else(|| loaded.stem.clone()),
        threads,
        source: loaded.source.clone(),
        seed: f.seed,
        stop: f.stop.map(|d| SimTime(d.ps())),
        topo,
        model,
        pfc,
        flowctl,
        diag,
        ecn,
        int_on,
        nic,
        cc,
        flows,
        output,
        scenario_text: loaded.text.clone(),
    })
}

/// A scenario `name` names the run directory (`runs/<name>`): one non-empty
/// path component, so that a run never writes outside `runs/` or into it.
pub fn check_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.chars().any(char::is_control)
        || name.trim() != name;
    if bad {
        return Err(format!(
            "{name:?} is not a valid run name (valid: a non-empty file name without '/', '\\', \
             control characters such as a newline, or surrounding spaces, not \".\" or \"..\", \
             e.g. \"incast-hpcc\")"
        ));
    }
    Ok(())
}

fn resolve_model(f: &ScenarioFile, cx: &Ctx) -> Result<ModelConfig, InputError> {
    let mut m = ModelConfig::for_profile(f.profile);
    let p = &f.packet;
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
    if let Some(v) = p.ack {
        s.ack = v;
    }
    if let Some(v) = p.ack_min {
        s.ack_min = v;
    }
    if let Some(v) = p.cnp {
        s.cnp = v;
    }
    if let Some(v) = p.pfc {
        s.pfc = v;
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
    let md = &f.model;
    if let Some(v) = md.ecn_point {
        m.ecn_point = v;
    }
    if let Some(v) = md.ack_duplicates {
        m.ack_duplicates = v;
    }
    if let Some(v) = md.ideal_fct {
        m.ideal_fct = v;
    }
    if let Some(v) = md.ecmp_hash {
        m.ecmp_hash = v;
    }
    if let Some(v) = md.repace_on_rate_change {
        m.repace_on_rate_change = v;
    }
    if let Some(v) = md.nic_scheduler {
        m.nic_scheduler = v;
    }
    if let Some(v) = md.mmu {
        m.mmu = v;
    }
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
    let n = &f.nic;
    let interval = n.cnp_interval.unwrap_or(Delta::from_us(50));
    let kind = n.cnp.unwrap_or(match m.cnp {
        CnpMode::Packet { .. } => CnpKind::Packet,
        CnpMode::AckFlag => CnpKind::AckFlag,
    });
    m.cnp = match kind {
        CnpKind::Packet => CnpMode::Packet { interval },
        CnpKind::AckFlag => CnpMode::AckFlag,
    };
    Ok(m)
}

fn resolve_nic(
    n: &NicSection,
    profile: Profile,
    lossless: bool,
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
    let policy = n.ack_policy.unwrap_or(if ns3 {
        AckPolicy::Ns3
    } else {
        AckPolicy::Packets
    });
    let ns3_keys = [
        ("nic.ack_interval_bytes", n.ack_interval_bytes.is_some()),
        ("nic.ack_chunk", n.ack_chunk.is_some()),
        ("nic.back_to_zero", n.back_to_zero.is_some()),
    ];
    let ns3_ack = match policy {
        AckPolicy::Packets => {
            if let Some((k, _)) = ns3_keys.iter().find(|k| k.1) {
                return Err(cx.err(
                    *k,
                    "is only used with nic.ack_policy = \"ns3\" (the ns3-hpcc profile's default)",
                ));
            }
            None
        }
        AckPolicy::Ns3 => {
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
            Some(Ns3Ack {
                interval_bytes,
                chunk,
                back_to_zero,
            })
        }
    };
    // In a lossless fabric packets wait in paused queues for long stretches, and a
    // short timeout would only retransmit what is not lost; RoCE NICs default to
    // tens of ms there. Without PFC, losses are routine and recovery must be quick.
    let default_rto = if lossless {
        Delta::from_ms(10)
    } else {
        Delta::from_ms(1)
    };
    // The ns-3 simulator has no retransmission timeout at all (§5).
    let rto = n.rto.unwrap_or(if ns3 { Delta::ZERO } else { default_rto });
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
        loss_recovery: super::flowctl::resolve_loss_recovery(n, cx)?,
    })
}

fn resolve_pfc(
    s: &SwitchSection,
    mtu_wire: u64,
    mmu: MmuModel,
    cx: &Ctx,
) -> Result<PfcPlan, InputError> {
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
    Ok(PfcPlan {
        buffer,
        enabled: p.enabled.unwrap_or(true),
        threshold,
        alpha: p.alpha,
        headroom: p.headroom.map(|b| b.0),
        reserve: p.reserve.map(|b| b.0).unwrap_or(if ns3 { 4096 } else { 0 }),
        resume_offset: p.resume_offset.map(|b| b.0).unwrap_or(if ns3 {
            3072
        } else {
            2 * mtu_wire
        }),
        egress_alpha,
        shared_buffer: s.shared_buffer.map(|b| b.0),
        classes: 8,
        dcqcn_static: Vec::new(),
    })
}

fn resolve_ecn(e: &EcnSection, cc: &CcKind, cx: &Ctx) -> Result<EcnPlan, InputError> {
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

fn resolve_flows(
    w: &WorkloadSection,
    topo: &Topology,
    base: &Path,
    seed: u64,
    cx: &Ctx,
) -> Result<Vec<FlowSpec>, InputError> {
    let mut flows = Vec::new();
    for (i, e) in w.flows.iter().enumerate() {
        let f = FlowSpec {
            src: NodeId(e.src),
            dst: NodeId(e.dst),
            size: e.size.0,
            start: SimTime(e.start.ps()),
            class: e.class,
            dport: e.dport,
        };
        check_flow(&f, topo, &format!("workload.flows[{i}]"), cx)?;
        flows.push(f);
    }
    for (i, e) in w.incast.iter().enumerate() {
        let field = format!("workload.incast[{i}]");
        // Errors name the fields as written: receiver, senders[j], size, class.
        let receiver = NodeId(e.receiver);
        check_host(receiver, topo, &format!("{field}.receiver"), cx)?;
        let senders =
            super::generators::pick_senders(topo, cx, &field, &e.senders, e.fan_in, receiver)?;
        for (j, &s) in senders.iter().enumerate() {
            let at = format!("{field}.senders[{j}]");
            check_host(s, topo, &at, cx)?;
            if s == receiver {
                return Err(cx.err(at, format!("host {s} is the receiver")));
            }
        }
        let mut spread = crate::workload::incast::StartSpread::new(
            e.start_spread,
            crate::workload::derive_seed(seed, "incast", i),
        );
        for mut f in incast(&senders, receiver, e.size.0, SimTime(e.start.ps()), e.class) {
            f.start += spread.offset();
            check_flow(&f, topo, &field, cx)?;
            flows.push(f);
        }
    }
    let offset = w.ns3_time_offset.unwrap_or(Delta::ZERO);
    for (i, file) in w.ns3_flow_files.iter().enumerate() {
        let path = resolve_path(base, file);
        let read = crate::workload::ns3::read_flows(&path)?;
        for (j, mut f) in read.into_iter().enumerate() {
            if f.start.ps() < offset.ps() {
                return Err(InputError::in_file(
                    &path,
                    format!("flow {}", j + 1),
                    format!(
                        "starts at {} before workload.ns3_time_offset = {offset}",
                        f.start
                    ),
                ));
            }
            f.start = SimTime(f.start.ps() - offset.ps());
            check_flow(
                &f,
                topo,
                &format!("workload.ns3_flow_files[{i}] flow {}", j + 1),
                cx,
            )?;
            flows.push(f);
        }
    }
    flows.sort_by_key(|f| f.start);
    Ok(flows)
}

fn resolve_output(
    o: &OutputSection,
    w: &WorkloadSection,
    topo: &Topology,
    n_flows: usize,
    cx: &Ctx,
) -> Result<OutputPlan, InputError> {
    let fct_format = o.fct_format.unwrap_or(FctFormat::Csv);
    let qlen_mon = match (o.qlen_mon_start, o.qlen_mon_end) {
        (None, None) => None,
        (_, None) => {
            return Err(cx.err(
                "output.qlen_mon_end",
                "is required with output.qlen_mon_start, e.g. \"10ms\"",
            ));
        }
        (start, Some(end)) => {
            let start = start.unwrap_or(Delta::ZERO);
            if end.ps() < start.ps() {
                return Err(cx.err(
                    "output.qlen_mon_end",
                    format!("{end} is before output.qlen_mon_start = {start}"),
                ));
            }
            if fct_format != FctFormat::Ns3 {
                return Err(cx.err(
                    "output.qlen_mon_end",
                    "qlen.txt is an ns-3 file: set output.fct_format = \"ns3\" too",
                ));
            }
            Some((SimTime(start.ps()), SimTime(end.ps())))
        }
    };
    let interval = o.queue_interval.unwrap_or(Delta::from_us(1));
    let ports = match &o.queue_ports {
        None => None,
        Some(QueuePorts::Named(s)) if s == "switches" => None,
        Some(QueuePorts::Named(s)) if s == "none" => Some(Vec::new()),
        Some(QueuePorts::Named(s)) => {
            return Err(cx.err(
                "output.queue_ports",
                format!("\"{s}\" is not valid (valid: \"switches\", \"none\", or a list of {{ node, port }})"),
            ));
        }
        Some(QueuePorts::List(list)) => {
            let mut v = Vec::new();
            for (i, p) in list.iter().enumerate() {
                let field = format!("output.queue_ports[{i}]");
                let node = NodeId(p.node);
                if p.node as usize >= topo.spec.kinds.len() || topo.kind(node) != NodeKind::Switch {
                    return Err(cx.err(field, format!("node {} is not a switch", p.node)));
                }
                let np = topo.ports[node.idx()].len();
                if p.port as usize >= np {
                    return Err(cx.err(field, format!("switch {} has ports 0..{}", p.node, np - 1)));
                }
                v.push((node, p.port));
            }
            Some(v)
        }
    };
    let flow_rates = match &o.flow_rates {
        None => None,
        Some(fr) => {
            let set = resolve_flow_set(&fr.flows, false, n_flows, "output.flow_rates.flows", cx)?;
            let iv = fr.interval.unwrap_or(Delta::from_us(10));
            if iv.is_zero() {
                return Err(cx.err(
                    "output.flow_rates.interval",
                    "must be > 0, e.g. \"10us\" (omit output.flow_rates to turn it off)",
                ));
            }
            Some((set, iv))
        }
    };
    let lat = o.latency.clone().unwrap_or_default();
    let small_below = lat.small_below.map_or(100_000, |b| b.get());
    let latency = match &lat.flows {
        None => FlowSet::SmallerThan(small_below),
        Some(sel) => match resolve_flow_set(sel, true, n_flows, "output.latency.flows", cx)? {
            FlowSet::SmallerThan(_) => FlowSet::SmallerThan(small_below),
            set => set,
        },
    };
    let latency_window = match lat.window.as_deref() {
        None => None,
        Some(&[from, to]) if from.ps() < to.ps() => Some((SimTime(from.ps()), SimTime(to.ps()))),
        Some(&[from, to]) => {
            return Err(cx.err(
                "output.latency.window",
                format!("[\"{from}\", \"{to}\"] is empty: the end must be after the start"),
            ));
        }
        Some(w) => {
            return Err(cx.err(
                "output.latency.window",
                format!(
                    "{} times; valid: [start, end], e.g. [\"0us\", \"1500us\"]",
                    w.len()
                ),
            ));
        }
    };
    Ok(OutputPlan {
        queue_interval: (!interval.is_zero()).then_some(interval),
        queue_ports: ports,
        fct_format,
        qlen_mon,
        ns3_time_offset: w.ns3_time_offset.unwrap_or(Delta::ZERO),
        queue_histogram: o.queue_histogram.unwrap_or(true),
        link_utilization: o.link_utilization.filter(|d| !d.is_zero()),
        flow_rates,
        latency,
        latency_window,
    })
}

/// `"all"`, `"none"`, `"small"` (when `small_ok`) or a list of flow ids.
fn resolve_flow_set(
    sel: &FlowSelect,
    small_ok: bool,
    n_flows: usize,
    field: &str,
    cx: &Ctx,
) -> Result<FlowSet, InputError> {
    let valid = if small_ok {
        "\"all\", \"small\", \"none\" or a list of flow ids"
    } else {
        "\"all\", \"none\" or a list of flow ids"
    };
    match sel {
        FlowSelect::Named(s) if s == "all" => Ok(FlowSet::All),
        FlowSelect::Named(s) if s == "none" => Ok(FlowSet::None),
        FlowSelect::Named(s) if s == "small" && small_ok => Ok(FlowSet::SmallerThan(0)),
        FlowSelect::Named(s) => {
            Err(cx.err(field, format!("\"{s}\" is not valid (valid: {valid})")))
        }
        FlowSelect::List(ids) => {
            let mut v = ids.clone();
            v.sort_unstable();
            v.dedup();
            if let Some(&bad) = v.iter().find(|&&i| i as usize >= n_flows) {
                return Err(cx.err(
                    field,
                    format!(
                        "flow {bad} does not exist (the scenario has {n_flows} flows, ids 0..{}, in start order as in fct.csv)",
                        n_flows.saturating_sub(1)
                    ),
                ));
            }
            Ok(FlowSet::Ids(v))
        }
    }
}
