//! Building a run: the partitions, their switches and NICs, each flow's
//! constants (ports, ideal FCT, RTT and BDP from the [`crate::config::paths`]), and
//! the window grid.

use super::limits;
use super::parallel::placement;
use super::part::{HANDOVER_PORT, Part, Parts, Slot};
use super::{RunOptions, Shared, Sim};
use crate::config::RunConfig;
use crate::config::nics;
use crate::config::paths::PathModel;
use crate::engine::EventQueue;
use crate::error::Error;
use crate::ids::{EgressId, FlowId, HostIdx, QpSlot, SwitchIdx};
use crate::lazy_rng::LazyRng;
use crate::nic::irn::LossRecovery;
use crate::nic::{FlowInfo, HostProgram, Nic, NicConfig};
use crate::node::MAX_EVENT_INDEX;
use crate::output::journal::{Journal, PauseRoots};
use crate::output::pfc_diag::PfcDiag;
use crate::output::{Engine, Recorder};
use crate::port::Egress;
use crate::switch::mmu::MmuFacts;
use crate::switch::{Switch, SwitchConfig, SwitchPlan, ecmp};
use crate::topology::NodeId;
use crate::units::{Delta, Rate};
use crate::workload::FlowSpec;
use std::sync::Arc;
use std::time::Instant;

impl Sim {
    /// Builds the network and flows. `rec` receives the outputs.
    pub fn new(cfg: RunConfig, opts: &RunOptions, rec: Recorder) -> Result<Sim, Error> {
        let seed = opts.seed.unwrap_or(cfg.seed);
        let ranks = super::parallel::join(opts)?;
        let rank_count = ranks.as_ref().map(|r| r.size());
        let threads = opts.threads.unwrap_or(cfg.threads).max(1);
        // More partitions than threads: the threads share them out window by
        // window (crate::sim::parallel::crew). Never fewer.
        let n_parts = rank_count.unwrap_or_else(|| cfg.partitions.unwrap_or(1).max(threads));
        let grid = lookahead(&cfg, n_parts)?;
        let node_part = placement::for_run(&cfg, n_parts);
        // On MPI ranks a rank builds only its own partition's nodes: ranks
        // divide the fabric's memory, not only its events.
        let mine = ranks.as_ref().map(|r| r.rank() as u16);
        let nodes = Nodes::build(&cfg, seed, n_parts, &node_part, mine);
        let path_model = PathModel::new(&cfg);
        let (base_rtt, max_bdp) = (path_model.base_rtt(), path_model.max_bdp());
        let flows = flow_infos(&cfg, seed, &path_model, &nodes.slots);
        let watched_ports = match &cfg.output.queue_ports {
            None => cfg.topo.switch_ports(),
            Some(list) => list.clone(),
        };
        let Nodes {
            switches,
            nics_of,
            egress_owner,
            egress_base,
            ..
        } = nodes;
        assert!(
            egress_owner.len() <= MAX_EVENT_INDEX as usize,
            "too many ports"
        );
        let diag = PfcDiag::new(cfg.diag.clone(), egress_owner.len(), flows.len());
        let n_egress = egress_owner.len();
        // A link's receiving end: the peer of the egress that sends into it.
        let mut link_dst: Vec<(NodeId, u16)> = egress_owner
            .iter()
            .map(|&(node, port)| {
                let p = &cfg.topo.ports[node.idx()][port as usize];
                (p.peer, p.peer_port)
            })
            .collect();
        // With host-wide queue pairs, a hand-over link into every node after
        // the real ones (crate::nic::Nic::hand_over).
        let handover = cfg.nic_rules.hands_over(&cfg.topo);
        if handover {
            let nodes = cfg.topo.spec.kinds.len();
            link_dst.extend((0..nodes).map(|i| (NodeId::from_idx(i), HANDOVER_PORT)));
        }
        assert!(link_dst.len() <= MAX_EVENT_INDEX as usize, "too many links");
        let link_part = link_dst.iter().map(|(n, _)| node_part[n.idx()]).collect();
        let mut nic_cfg = NicConfig::new(
            cfg.nic.clone(),
            cfg.model.clone(),
            cfg.int_on,
            cfg.cc.clone(),
            base_rtt,
            max_bdp,
        );
        if let crate::cc::CcKind::Homa(plan) = &mut nic_cfg.cc {
            // Unscheduled cutoffs from the run's messages (cc::homa).
            let (p, mtu) = (plan.clone(), cfg.nic.mtu as u64);
            let msgs = (cfg.flows.iter().zip(&flows))
                .map(|(s, f)| (s.size, s.size.min(p.rtt_bytes(f.pair_bdp, mtu))));
            plan.set_cutoffs(msgs);
        }
        let sw_cfg = switch_config(&cfg, base_rtt);
        nic_cfg.xoff_forever = sw_cfg.xoff_forever;
        nic_cfg.hold_back_looks = !opts.keep_idle_looks;
        nic_cfg.seed = seed;
        nic_cfg.handover_base = handover.then_some(n_egress as u32);
        nic_cfg.last = opts.limits.last_handled(cfg.stop);
        let n_links = link_dst.len();
        let (parts, place) =
            place_nodes(&cfg, n_parts, n_links, mine, &node_part, nics_of, switches);
        let note_paths = cfg.diag.victims && cfg.flowctl.enabled;
        nic_cfg.note_paths = note_paths;
        let engine = Engine {
            threads: rank_count.unwrap_or(threads.min(n_parts)),
            partitions: n_parts,
            lookahead_ns: grid as f64 / 1e3,
            ..Engine::default()
        };
        Ok(Sim {
            sh: Arc::new(Shared {
                flows,
                nic_cfg,
                sw_cfg,
                place,
                node_part,
                egress_owner,
                egress_base,
                link_dst,
                link_part,
                note_paths,
                seed,
                cfg,
            }),
            parts,
            gq: EventQueue::new(),
            grid,
            rec,
            watched_ports,
            trace_rates: opts.trace_rates,
            limits: opts.limits,
            diag,
            roots: PauseRoots::default(),
            searches: Vec::new(),
            merging: Vec::new(),
            visit: vec![0; n_egress],
            visit_epoch: 0,
            engine,
            past_event: 0,
            global_handled: 0,
            stall: limits::stall_limit(base_rtt),
            started: Instant::now(),
            ranks: ranks.map(std::rc::Rc::new),
        })
    }
}

/// A run's nodes before they go to their partitions, and the egress ids of
/// their ports.
struct Nodes {
    switches: Vec<Switch>,
    /// Per partition, its NICs in node id order.
    nics_of: Vec<Vec<Nic>>,
    /// Owner (node, port) of each egress id.
    egress_owner: Vec<(NodeId, u16)>,
    /// Per node id: the egress id of its port 0.
    egress_base: Vec<u32>,
    /// Per flow: its sending slot at its source NIC, its receiving slot at
    /// its destination NIC.
    slots: Vec<(QpSlot, QpSlot)>,
}

impl Nodes {
    /// The switches and NICs of `cfg` under run seed `seed`, each NIC built
    /// into its partition's list (`node_part`): a NIC is over a kilobyte, and
    /// a list of all of them moved over later would be a second copy of every
    /// one at the peak (40 MB on a 32,768-host fat-tree). With `mine` (an MPI
    /// rank), only that partition's nodes are built; every node's ports still
    /// get their egress ids, which are the same on every rank.
    fn build(
        cfg: &RunConfig,
        seed: u64,
        n_parts: usize,
        node_part: &[u16],
        mine: Option<u16>,
    ) -> Nodes {
        let built = |node: NodeId| mine.is_none_or(|m| node_part[node.idx()] == m);
        let topo = &cfg.topo;
        let mut egress_owner = Vec::new();
        let mut egress_base = vec![0u32; topo.spec.kinds.len()];
        let mut gid_of = |node: NodeId, port: usize| {
            if port == 0 {
                egress_base[node.idx()] = egress_owner.len() as u32;
            }
            egress_owner.push((node, port as u16));
            EgressId::from_idx(egress_owner.len() - 1)
        };
        let plan = switch_plan(cfg);
        let mut switches = Vec::new();
        for (si, &node) in topo.switches.iter().enumerate() {
            let (idx, infos) = (SwitchIdx::from_idx(si), &topo.ports[node.idx()]);
            if built(node) {
                switches.push(Switch::new(&plan, idx, node, infos, seed, &mut gid_of));
            } else {
                (0..infos.len()).for_each(|pi| _ = gid_of(node, pi));
            }
        }
        // Each NIC's timed starts, in start order; flows a program starts
        // have a sending slot but no timed start.
        let mut starts = vec![Vec::new(); topo.hosts.len()];
        let mut n_send = vec![0u32; topo.hosts.len()];
        let mut n_recv = vec![0u32; topo.hosts.len()];
        let programs = cfg.programs.as_deref();
        let slots = (cfg.flows.iter().enumerate())
            .map(|(fid, f)| {
                let (fid, src) = (FlowId::from_idx(fid), topo.host_idx(f.src).idx());
                if !programs.is_some_and(|p| p.starts(fid)) {
                    starts[src].push(fid);
                }
                n_send[src] += 1;
                let r = &mut n_recv[topo.host_idx(f.dst).idx()];
                *r += 1;
                (QpSlot(n_send[src] - 1), QpSlot(*r - 1))
            })
            .collect();
        let mut hosts_in = vec![0usize; n_parts];
        for &node in topo.hosts.iter().filter(|&&n| built(n)) {
            hosts_in[node_part[node.idx()] as usize] += 1;
        }
        let mut nics_of: Vec<Vec<Nic>> = hosts_in.iter().map(|&n| Vec::with_capacity(n)).collect();
        for (hi, &node) in topo.hosts.iter().enumerate() {
            if !built(node) {
                gid_of(node, 0);
                continue;
            }
            let rng = |salt: u64| LazyRng::new(ecmp::mix64(seed ^ salt ^ (node.0 as u64) << 20));
            let mut nic = Nic::new(
                node,
                HostIdx::from_idx(hi),
                Egress::new(
                    gid_of(node, 0),
                    topo.host_port(node),
                    cfg.model.serialization,
                ),
                (rng(0x41c), rng(0x7cc)),
                std::mem::take(&mut starts[hi]),
                n_recv[hi] as usize,
            );
            if let Some(prog) = programs.and_then(|p| HostProgram::new(p, HostIdx::from_idx(hi))) {
                nic.set_program(prog, n_send[hi] as usize);
            }
            nics_of[node_part[node.idx()] as usize].push(nic);
        }
        Nodes {
            switches,
            nics_of,
            egress_owner,
            egress_base,
            slots,
        }
    }
}

/// Every flow's constants: its source port (a per-(src, dst) server counter
/// from 10000, like the ns-3 simulator), its path's ideal FCT, RTT and BDP, and
/// IRN's window cap.
fn flow_infos(
    cfg: &RunConfig,
    seed: u64,
    path_model: &PathModel,
    slots: &[(QpSlot, QpSlot)],
) -> Vec<FlowInfo> {
    let base_rtt = path_model.base_rtt();
    let mtu_wire = cfg.mtu_wire();
    let irn_cap = |spec: &FlowSpec| {
        let LossRecovery::Irn(c) = &cfg.nic.loss_recovery else {
            return None;
        };
        // Configured, or the control interval T x the sender's line rate / a
        // full data packet.
        Some(c.bdp_cap.unwrap_or_else(|| {
            let bdp = cfg.topo.host_port(spec.src).rate.bytes_in(base_rtt);
            bdp.div_ceil(mtu_wire as u64).max(1) as u32
        }))
    };
    let sports = crate::config::nics::source_ports(&cfg.flows, &cfg.topo, cfg.programs.as_deref());
    let hash = (cfg.model.ecmp_hash, seed);
    (cfg.flows.iter().zip(slots).zip(sports))
        .map(|((spec, &(send_slot, recv_slot)), sport)| {
            let (data_to, ack_to) = nics::routing(&cfg.topo, cfg.nic_rules, hash, spec, sport);
            // The data's path, to where it lands.
            let routed = FlowSpec {
                dst: data_to,
                ..spec.clone()
            };
            let path = path_model.flow(cfg, seed, &routed, sport);
            FlowInfo {
                sport,
                ideal: path.ideal,
                pair_rtt: path.pair_rtt,
                pair_bdp: path.pair_bdp,
                one_way: path.one_way,
                hops: path.hops,
                irn_cap: irn_cap(spec),
                send_slot,
                recv_slot,
                data_to,
                ack_to,
            }
        })
        .collect()
}

/// The partitions with their nodes, in node id order, and each node's place
/// in its partition. With `mine` (an MPI rank) the other partitions are
/// empty, without link rings: a node that is not built has no place (a
/// slot past the end of its partition's empty list).
fn place_nodes(
    cfg: &RunConfig,
    n_parts: usize,
    n_links: usize,
    mine: Option<u16>,
    node_part: &[u16],
    nics_of: Vec<Vec<Nic>>,
    switches: Vec<Switch>,
) -> (Parts, Vec<Slot>) {
    let mut parts: Parts = (0..n_parts)
        .map(|i| {
            let links = match mine {
                Some(m) if m as usize != i => 0,
                _ => n_links,
            };
            Box::new(Part::new(i as u16, n_parts, links, Journal::default()))
        })
        .collect();
    let mut place: Vec<Slot> = (0..cfg.topo.spec.kinds.len())
        .map(|n| match cfg.topo.is_host(NodeId::from_idx(n)) {
            true => Slot::Host(u32::MAX),
            false => Slot::Switch(u32::MAX),
        })
        .collect();
    for (p, nics) in parts.iter_mut().zip(nics_of) {
        for (l, nic) in nics.iter().enumerate() {
            place[nic.node.idx()] = Slot::Host(l as u32);
        }
        p.nics = nics;
    }
    for sw in switches {
        let p = &mut parts[node_part[sw.node.idx()] as usize];
        place[sw.node.idx()] = Slot::Switch(p.switches.len() as u32);
        p.switches.push(sw);
    }
    (parts, place)
}

/// The window grid of a run on `n_parts` partitions: the smallest link delay
/// (the lookahead: a packet needs at least that long to reach another node).
/// A parallel run needs it above zero; a sequential run uses 1 ps then (the
/// grid only times the deadlock searches there).
fn lookahead(cfg: &RunConfig, n_parts: usize) -> Result<u64, Error> {
    let topo = &cfg.topo;
    let zero = topo.spec.links.iter().find(|l| l.delay.ps() == 0);
    match zero {
        Some(l) if n_parts > 1 => Err(crate::error::InputError::new(
            cfg.source.clone(),
            "topology",
            format!(
                "the link between {} and {} has zero delay; a run on {n_parts} threads needs every link delay > 0 (it is the lookahead between partitions): give the link a delay or run with threads = 1",
                topo.name(l.a),
                topo.name(l.b)
            ),
        )
        .into()),
        Some(_) => Ok(1),
        None => Ok(topo
            .spec
            .links
            .iter()
            .map(|l| l.delay.ps())
            .min()
            .unwrap_or(1)),
    }
}

/// What every switch of a run of `cfg` shares, `max_rtt` being the network's
/// largest base RTT (HPCC-PINT's T at switches: ns-3's `maxRtt`).
pub(crate) fn switch_config(cfg: &RunConfig, max_rtt: Delta) -> SwitchConfig {
    let pint = cfg
        .cc
        .pint()
        .map(|codec| crate::switch::pint::PintPlan::new(codec, max_rtt));
    SwitchConfig {
        model: cfg.model.clone(),
        // HPCC-PINT's INT area is its field, not records.
        int_on: cfg.int_on && pint.is_none(),
        int_counter: cfg.cc.int_counter(),
        pint,
        load_balancing: cfg.load_balancing,
        xoff_forever: cfg.flowctl.pfc.pause_quanta.is_none(),
        congested_queue: cfg.diag.congested_queue,
        scheduling: cfg.scheduling,
    }
}

/// What every switch of a run of `cfg` is built from.
pub(crate) fn switch_plan(cfg: &RunConfig) -> SwitchPlan<'_> {
    let nic_rate = cfg
        .topo
        .hosts
        .first()
        .map(|&h| cfg.topo.host_port(h).rate)
        .unwrap_or(Rate(1));
    SwitchPlan {
        serialization: cfg.model.serialization,
        ecn: &cfg.ecn,
        flowctl: &cfg.flowctl,
        mmu: &cfg.mmu,
        mmu_facts: MmuFacts {
            model: cfg.model.mmu,
            mtu_wire: cfg.mtu_wire() as u64,
            nic_rate,
        },
        pint: cfg.cc.pint().is_some(),
        credit: match &cfg.cc {
            crate::cc::CcKind::ExpressPass(x) => {
                Some(x.plan(cfg.nic.credit_slot_wire(&cfg.model.sizes, cfg.int_on)))
            }
            _ => None,
        },
        ecmp_levels: (cfg.model.ecmp_hash == crate::profile::EcmpHash::Symmetric)
            .then_some(&cfg.topo.levels[..]),
    }
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
