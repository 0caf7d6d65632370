//! The path model: what a run takes as each flow's ideal FCT, base RTT, BDP and
//! one-way delay, and the global control interval T and largest BDP (HPCC §5.1:
//! T "slightly greater than the maximum RTT"; HPCC Eq. (3)-(4) use T and the
//! BDP). Built once per run, by the model the profile selects (`model.ideal_fct`):
//!
//! - [`IdealFct::Alone`]: rocesim's own model ([`ecmp`]): the flow alone on its
//!   ECMP path under this run's wire sizes and serialization; T is the largest
//!   base RTT over host pairs rounded up to the next whole microsecond.
//! - [`IdealFct::Ns3`]: the HPCC ns-3 simulator's arithmetic ([`ns3`],
//!   hpcc-ns3-model.md §9): BFS-path pair RTTs and BDPs, `maxRtt`, `maxBdp`, and
//!   its stand-alone FCT formula.
//!
//! The one-way delay is the data packet's store-and-forward delay along the flow's
//! real ECMP path in both models. When switches move a flow's packets between
//! its equal-cost paths (`switch.load_balancing = "spray"`, `"flowlet"` or
//! `"adaptive"`) these values are those of the one ECMP would take; on the
//! generated fabrics every equal-cost path crosses the same rates and delays,
//! so they hold for each (a test in [`ecmp`] checks it). On a topology file
//! whose equal-cost paths differ, packets on other paths see other base delays.

pub mod ecmp;
pub mod ns3;

use crate::config::RunConfig;
use crate::profile::IdealFct;
use crate::switch::ecmp::FlowKey;
use crate::units::{Delta, PS_PER_US};
use crate::workload::FlowSpec;

/// The 5-tuple ECMP hashes for the data packets of flow `spec` from source port `sport`.
pub fn flow_key(spec: &FlowSpec, sport: u16) -> FlowKey {
    FlowKey {
        src: spec.src.0,
        dst: spec.dst.0,
        sport,
        dport: spec.dport,
    }
}

/// The path model of a run.
pub enum PathModel {
    /// rocesim's own model. `ack_wire`: an ACK's wire size before per-hop INT.
    Alone {
        base_rtt: Delta,
        max_bdp: u64,
        ack_wire: u32,
    },
    /// The ns-3 simulator's.
    Ns3(ns3::Ns3Paths),
}

/// A flow's base values under the path model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowPath {
    /// Ideal (stand-alone) FCT.
    pub ideal: Delta,
    /// The pair's base RTT.
    pub pair_rtt: Delta,
    /// The pair's bandwidth-delay product, bytes.
    pub pair_bdp: u64,
    /// Base one-way delay of a full data packet.
    pub one_way: Delta,
    /// Links the flow's data packets cross, host to host (its ECMP path).
    pub hops: u16,
}

impl PathModel {
    pub fn new(cfg: &RunConfig) -> PathModel {
        let topo = &cfg.topo;
        let model = &cfg.model;
        match model.ideal_fct {
            IdealFct::Alone => {
                let mtu_wire = cfg.mtu_wire();
                let ack_wire = model.sizes.ack_wire(model.sizes.int_at_sender(cfg.int_on));
                let rtt = ecmp::max_base_rtt(topo, |rate, delay| {
                    2 * delay.ps()
                        + model.serialization.tx_time(rate, mtu_wire as u64).ps()
                        + model.serialization.tx_time(rate, ack_wire as u64).ps()
                });
                // "Slightly greater than the maximum RTT" (HPCC §5.1): the next whole us.
                let base_rtt = Delta::from_us(rtt.ps() / PS_PER_US + 1);
                let max_bdp = topo
                    .hosts
                    .iter()
                    .map(|&h| topo.host_port(h).rate.bytes_in(base_rtt))
                    .max()
                    .unwrap_or(0);
                PathModel::Alone {
                    base_rtt,
                    max_bdp,
                    ack_wire,
                }
            }
            IdealFct::Ns3 => PathModel::Ns3(ns3::Ns3Paths::new(topo, cfg.nic.mtu)),
        }
    }

    /// The control interval T given to controllers (ns-3's `maxRtt`).
    pub fn base_rtt(&self) -> Delta {
        match self {
            PathModel::Alone { base_rtt, .. } => *base_rtt,
            PathModel::Ns3(p) => p.max_rtt,
        }
    }

    /// The largest BDP over host pairs, bytes (ns-3's `maxBdp`).
    pub fn max_bdp(&self) -> u64 {
        match self {
            PathModel::Alone { max_bdp, .. } => *max_bdp,
            PathModel::Ns3(p) => p.max_bdp,
        }
    }

    /// The base values of flow `spec` with source port `sport` (run seed `seed`,
    /// which ECMP hashes with).
    pub fn flow(&self, cfg: &RunConfig, seed: u64, spec: &FlowSpec, sport: u16) -> FlowPath {
        let (topo, model) = (&cfg.topo, &cfg.model);
        let key = flow_key(spec, sport);
        let data = ecmp::trace(topo, model, seed, key);
        let one_way = ecmp::one_way(model, &data, cfg.mtu_wire());
        let hops = u16::try_from(data.len()).expect("a path has fewer than 65536 links");
        match self {
            PathModel::Alone { ack_wire, .. } => {
                let ack = ecmp::trace(topo, model, seed, key.reversed());
                let sizes = &model.sizes;
                let per_hop = if cfg.int_on { sizes.int_per_hop() } else { 0 };
                let switches = data.len().saturating_sub(1) as u32;
                let ack_wire = ack_wire + per_hop * switches;
                let inp = ecmp::IdealInput {
                    size: spec.size,
                    mtu: cfg.nic.mtu,
                    data_overhead: sizes.data_header + sizes.int_at_sender(cfg.int_on),
                    per_hop,
                    ack_wire,
                };
                let pair_rtt = ecmp::pair_rtt(model, &data, cfg.mtu_wire(), ack_wire);
                let bottleneck = data.iter().map(|h| h.rate).min().expect("a path has links");
                FlowPath {
                    ideal: ecmp::ideal_alone(model, &data, &ack, &inp),
                    pair_rtt,
                    pair_bdp: bottleneck.bytes_in(pair_rtt),
                    one_way,
                    hops,
                }
            }
            PathModel::Ns3(p) => {
                let pair = p.pair(topo, spec.src, spec.dst);
                let header = model.sizes.data_header;
                FlowPath {
                    ideal: ns3::ns3_standalone(&pair, spec.size, cfg.nic.mtu, header),
                    pair_rtt: pair.rtt,
                    pair_bdp: pair.bdp,
                    one_way,
                    hops,
                }
            }
        }
    }
}
