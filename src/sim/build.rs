//! Building a run: the partitions, their switches and NICs, each flow's
//! constants (ports, ideal FCT, RTT and BDP from the [`super::path_model`]), and
//! the window grid.

use super::part::{Part, Slot};
use super::path_model::PathModel;
use super::{RunOptions, Shared, Sim};
use super::{limits, mmu_config, partition};
use crate::config::RunConfig;
use crate::engine::EventQueue;
use crate::error::Error;
use crate::ids::{EgressId, FlowId, HostIdx, QpSlot, SwitchIdx};
use crate::nic::irn::LossRecovery;
use crate::nic::{FlowInfo, Nic, NicConfig};
use crate::node::MAX_EVENT_INDEX;
use crate::output::journal::{Journal, PauseRoots};
use crate::output::pfc_diag::PfcDiag;
use crate::output::{Engine, Recorder};
use crate::port::Egress;
use crate::switch::flowctl::{PortFacts, SwitchFc};
use crate::switch::mmu::Mmu;
use crate::switch::{Switch, SwitchConfig, SwitchPort, ecmp};
use crate::topology::NodeId;
use crate::units::SimTime;
use crate::workload::FlowSpec;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Instant;

impl Sim {
    /// Builds the network and flows. `rec` receives the outputs.
    pub fn new(cfg: RunConfig, opts: &RunOptions, rec: Recorder) -> Result<Sim, Error> {
        let seed = opts.seed.unwrap_or(cfg.seed);
        #[cfg(feature = "mpi")]
        let ranks = super::distributed::join(opts)?;
        #[cfg(feature = "mpi")]
        let rank_count = ranks.as_ref().map(|r| r.size);
        #[cfg(not(feature = "mpi"))]
        let rank_count: Option<usize> = match opts.mpi {
            true => return Err(Error::Sim(super::NO_MPI.into())),
            false => None,
        };
        let n_parts = rank_count.unwrap_or_else(|| opts.threads.unwrap_or(cfg.threads).max(1));
        let topo = &cfg.topo;
        let model = &cfg.model;
        let grid = lookahead(&cfg, n_parts)?;
        let node_part = partition::assign(topo, n_parts);
        let mut egress_owner = Vec::new();
        let mut egress_base = vec![0u32; topo.spec.kinds.len()];
        let mut gid_of = |node: NodeId, port: usize| {
            if port == 0 {
                egress_base[node.idx()] = egress_owner.len() as u32;
            }
            egress_owner.push((node, port as u16));
            EgressId::from_idx(egress_owner.len() - 1)
        };
        let switches: Vec<Switch> = (0..topo.switches.len())
            .map(|i| build_switch(&cfg, i, seed, &mut gid_of))
            .collect();
        // Each flow's queue pairs: a sending slot at its source NIC, a
        // receiving slot at its destination NIC.
        let mut starts = vec![Vec::new(); topo.hosts.len()];
        let mut n_recv = vec![0u32; topo.hosts.len()];
        let slots_of: Vec<(QpSlot, QpSlot)> = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(fid, f)| {
                let s = &mut starts[topo.host_idx(f.src).idx()];
                s.push(FlowId::from_idx(fid));
                let r = &mut n_recv[topo.host_idx(f.dst).idx()];
                *r += 1;
                (QpSlot::from_idx(s.len() - 1), QpSlot(*r - 1))
            })
            .collect();
        // Each NIC is built into its partition's list (in node id order): a
        // NIC is over a kilobyte, and a list of all of them moved over later
        // would be a second copy of every one at the peak (40 MB on a 32,768-
        // host fat-tree).
        let mut hosts_in = vec![0usize; n_parts];
        for &node in &topo.hosts {
            hosts_in[node_part[node.idx()] as usize] += 1;
        }
        let mut nics_of: Vec<Vec<Nic>> = hosts_in.iter().map(|&n| Vec::with_capacity(n)).collect();
        for (hi, &node) in topo.hosts.iter().enumerate() {
            let rng = |salt: u64| {
                ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ salt ^ (node.0 as u64) << 20))
            };
            nics_of[node_part[node.idx()] as usize].push(Nic::new(
                node,
                HostIdx::from_idx(hi),
                Egress::new(gid_of(node, 0), topo.host_port(node), model.serialization),
                (rng(0x41c), rng(0x7cc)),
                std::mem::take(&mut starts[hi]),
                n_recv[hi] as usize,
            ));
        }

        let path_model = PathModel::new(&cfg);
        let (base_rtt, max_bdp) = (path_model.base_rtt(), path_model.max_bdp());
        let mtu_wire = cfg.mtu_wire();

        // Source ports: a per-(src, dst) counter from 10000, like the ns-3 simulator.
        let mut sport_ctr = std::collections::HashMap::<(u32, u32), u16>::new();
        let irn_cap = |spec: &FlowSpec| {
            let LossRecovery::Irn(c) = &cfg.nic.loss_recovery else {
                return None;
            };
            // Configured, or the control interval T x the sender's line rate / a
            // full data packet.
            Some(c.bdp_cap.unwrap_or_else(|| {
                let bdp = topo.host_port(spec.src).rate.bytes_in(base_rtt);
                bdp.div_ceil(mtu_wire as u64).max(1) as u32
            }))
        };
        let flows: Vec<FlowInfo> = cfg
            .flows
            .iter()
            .zip(&slots_of)
            .map(|(spec, &(send_slot, recv_slot))| {
                let c = sport_ctr.entry((spec.src.0, spec.dst.0)).or_insert(10_000);
                let sport = *c;
                *c = c.wrapping_add(1);
                let path = path_model.flow(&cfg, seed, spec, sport);
                FlowInfo {
                    sport,
                    ideal: path.ideal,
                    pair_rtt: path.pair_rtt,
                    pair_bdp: path.pair_bdp,
                    one_way: path.one_way,
                    irn_cap: irn_cap(spec),
                    send_slot,
                    recv_slot,
                }
            })
            .collect();
        let watched_ports = match &cfg.output.queue_ports {
            None => topo
                .switches
                .iter()
                .flat_map(|&s| (0..topo.ports[s.idx()].len() as u16).map(move |p| (s, p)))
                .collect(),
            Some(list) => list.clone(),
        };
        assert!(
            egress_owner.len() <= MAX_EVENT_INDEX as usize,
            "too many ports"
        );
        let diag = PfcDiag::new(cfg.diag.clone(), egress_owner.len(), flows.len());
        let n_egress = egress_owner.len();
        // A link's receiving end: the peer of the egress that sends into it.
        let link_dst: Vec<(NodeId, u16)> = egress_owner
            .iter()
            .map(|&(node, port)| {
                let p = &topo.ports[node.idx()][port as usize];
                (p.peer, p.peer_port)
            })
            .collect();
        let link_part = link_dst.iter().map(|(n, _)| node_part[n.idx()]).collect();
        let mut nic_cfg = NicConfig::new(
            cfg.nic.clone(),
            cfg.model.clone(),
            cfg.int_on,
            cfg.cc.clone(),
            base_rtt,
            max_bdp,
        );
        let sw_cfg = switch_config(&cfg);
        nic_cfg.xoff_forever = sw_cfg.xoff_forever;
        nic_cfg.hold_back_looks = !opts.keep_idle_looks;
        nic_cfg.last = opts.limits.last_handled(cfg.stop);
        // The nodes go to their partitions, in node id order.
        let mut parts: Vec<Part> = (0..n_parts)
            .map(|i| Part::new(i as u16, n_parts, n_egress, Journal::default()))
            .collect();
        let mut place = vec![Slot::Host(0); topo.spec.kinds.len()];
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
        let note_paths = cfg.diag.victims && cfg.flowctl.enabled;
        let engine = Engine {
            threads: n_parts,
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
                cfg,
            }),
            parts,
            gq: EventQueue::new(),
            grid,
            seed,
            rec,
            watched_ports,
            trace_rates: opts.trace_rates,
            limits: opts.limits,
            diag,
            roots: PauseRoots::default(),
            searches: Vec::new(),
            visit: vec![0; n_egress],
            visit_epoch: 0,
            engine,
            past_event: 0,
            global_handled: 0,
            stall: limits::stall_limit(base_rtt),
            started: Instant::now(),
            #[cfg(feature = "mpi")]
            ranks: ranks.map(std::rc::Rc::new),
        })
    }
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

/// What every switch of a run of `cfg` shares.
pub(crate) fn switch_config(cfg: &RunConfig) -> SwitchConfig {
    SwitchConfig {
        model: cfg.model.clone(),
        int_on: cfg.int_on,
        int_counter: cfg.cc.int_counter(),
        xoff_forever: cfg.flowctl.pfc.pause_quanta.is_none(),
        congested_queue: cfg.diag.congested_queue,
    }
}

/// Switch number `si` of `cfg` under run seed `seed`; `gid_of(node, port)` gives
/// each port's egress id.
pub(crate) fn build_switch(
    cfg: &RunConfig,
    si: usize,
    seed: u64,
    gid_of: &mut impl FnMut(NodeId, usize) -> EgressId,
) -> Switch {
    let node = cfg.topo.switches[si];
    let infos = &cfg.topo.ports[node.idx()];
    let ports = infos
        .iter()
        .enumerate()
        .map(|(pi, p)| {
            SwitchPort::new(
                Egress::new(gid_of(node, pi), p, cfg.model.serialization),
                cfg.ecn.red_for(p.rate),
            )
        })
        .collect();
    let facts: Vec<PortFacts> = infos
        .iter()
        .map(|p| PortFacts {
            rate: p.rate,
            red: cfg.ecn.red_for(p.rate),
        })
        .collect();
    Switch {
        node,
        idx: SwitchIdx::from_idx(si),
        ports,
        mmu: Mmu::new(mmu_config::mmu_config(cfg, si, infos)),
        fc: SwitchFc::new(&cfg.flowctl, &facts),
        timer_at: SimTime::MAX,
        pauses_sent: 0,
        ecmp_seed: ecmp::ecmp_seed(seed, node),
        rng: ChaCha8Rng::seed_from_u64(ecmp::mix64(seed ^ 0xec0 ^ (node.0 as u64) << 20)),
    }
}
