//! `pfc_ports.csv` and `pfc_diagnostics.json` (docs/models.md §Outputs): the
//! end-of-run rendering of the PFC diagnostics ([`super::pfc_diag`]) and of each
//! port's paused time.

use super::fmt_ns;
use super::pfc_diag::{Deadlock, PfcDiag, StormWindow};
use crate::ids::{EgressId, FlowId};
use crate::port::CLASSES;
use crate::stats::Stats;
use crate::topology::NodeId;
use crate::units::Delta;
use serde::Serialize;
use std::fmt::Write as _;

/// One egress port's paused time per class, open pauses counted to the end.
pub struct PortPauses {
    pub gid: EgressId,
    pub node: NodeId,
    pub port: u16,
    pub paused: [Delta; CLASSES],
}

/// The two files; `ports` holds every egress port with a PFC counter or
/// paused time, in egress id order (the others have no row), `flow_ends(fid)`
/// gives a flow's (src, dst) node ids.
pub fn render(
    diag: &PfcDiag,
    stats: &Stats,
    ports: &[PortPauses],
    flow_ends: impl Fn(FlowId) -> (NodeId, NodeId),
) -> Vec<(&'static str, Vec<u8>)> {
    assert!(
        ports.windows(2).all(|w| w[0].gid < w[1].gid),
        "ports are in egress id order"
    );
    let mut order: Vec<&PortPauses> = ports.iter().collect();
    order.sort_by_key(|p| (p.node, p.port));
    let mut csv = String::from(PFC_PORTS_HEADER);
    csv.push('\n');
    for p in order {
        for c in 0..CLASSES as u8 {
            let k = diag.counters(p.gid, c);
            let paused = p.paused[c as usize];
            if k.is_zero() && paused.is_zero() {
                continue;
            }
            let _ = writeln!(
                csv,
                "{},{},{c},{},{},{},{},{},{},{},{}",
                p.node,
                p.port,
                k.pause_rx,
                k.resume_rx,
                k.expire,
                fmt_ns(paused.ps()),
                k.pause_tx,
                k.resume_tx,
                k.predictive_tx,
                k.storm_windows
            );
        }
    }
    let w = diag.cfg.storm_window;
    let report = Report {
        pause_frames: stats.pfc_pause_frames,
        resume_frames: stats.pfc_resume_frames,
        ppfc_pause_frames: stats.ppfc_pause_frames,
        propagation: Propagation {
            roots: diag.roots_by_max_hops().iter().sum(),
            max_hops: diag.max_hops(),
            roots_by_max_hops: diag.roots_by_max_hops(),
            pauses_by_hop: diag.pauses_by_hop().to_vec(),
        },
        victims: Victims {
            congested_queue_bytes: diag.cfg.congested_queue,
            count: diag.victim_flows(),
            flows: diag
                .victim_pauses
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(i, &n)| {
                    let fid = FlowId::from_idx(i);
                    let (src, dst) = flow_ends(fid);
                    VictimFlow {
                        flow_id: fid.0,
                        src: src.0,
                        dst: dst.0,
                        pauses: n,
                    }
                })
                .collect(),
        },
        storms: Storms {
            window_ns: w.as_ns_f64(),
            fraction: diag.cfg.storm_fraction,
            windows: diag.storm_windows(),
            listed: diag
                .storm_list()
                .iter()
                .map(|&(gid, c, win, ps)| {
                    let k = ports.binary_search_by_key(&gid, |p| p.gid);
                    let p = &ports[k.expect("a storm window's port was paused")];
                    StormWindow {
                        node: p.node.0,
                        port: p.port,
                        priority: c,
                        window_start_ns: (win * w.ps()) as f64 / 1e3,
                        paused_fraction: ps as f64 / w.ps() as f64,
                    }
                })
                .collect(),
        },
        deadlock: diag.deadlock.clone(),
    };
    let json = serde_json::to_string_pretty(&report).expect("the report serializes") + "\n";
    vec![
        ("pfc_ports.csv", csv.into_bytes()),
        ("pfc_diagnostics.json", json.into_bytes()),
    ]
}

/// Columns of pfc_ports.csv (docs/models.md §Outputs).
pub const PFC_PORTS_HEADER: &str = "node,port,priority,pause_rx,resume_rx,expire,paused_ns,pause_tx,resume_tx,ppfc_tx,storm_windows";

#[derive(Serialize)]
struct Report {
    pause_frames: u64,
    resume_frames: u64,
    ppfc_pause_frames: u64,
    propagation: Propagation,
    victims: Victims,
    storms: Storms,
    deadlock: Option<Deadlock>,
}

#[derive(Serialize)]
struct Propagation {
    roots: u64,
    max_hops: u8,
    /// Index = hops: how many root pauses spread that far (HPCC Fig. 1a).
    roots_by_max_hops: Vec<u64>,
    /// Index = hop: pauses sent at that distance from their root.
    pauses_by_hop: Vec<u64>,
}

#[derive(Serialize)]
struct Victims {
    congested_queue_bytes: u64,
    count: usize,
    flows: Vec<VictimFlow>,
}

#[derive(Serialize)]
struct VictimFlow {
    flow_id: u32,
    src: u32,
    dst: u32,
    pauses: u32,
}

#[derive(Serialize)]
struct Storms {
    window_ns: f64,
    fraction: f64,
    windows: u64,
    listed: Vec<StormWindow>,
}
