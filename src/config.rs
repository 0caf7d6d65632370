//! The run configuration: everything one run needs, validated, in runtime
//! types. [`crate::scenario`] builds it from a scenario file; [`crate::sim`]
//! runs it. Each model's own settings live with the model ([`NicPlan`] in
//! `nic`, [`PfcPlan`] and [`EcnPlan`] in `switch`, `CcKind` in `cc`); this module
//! holds the aggregate and the settings of the run itself (outputs, diagnostics).

use crate::cc::CcKind;
use crate::nic::NicPlan;
use crate::profile::ModelConfig;
use crate::switch::ecn::EcnPlan;
use crate::switch::flowctl::PfcPlan;
use crate::topology::{NodeId, Topology};
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};

/// What the recorders write beyond the summary (`[output]`).
#[derive(Clone, Debug)]
pub struct OutputPlan {
    pub queue_interval: Option<Delta>,
    /// Ports the per-port recorders watch; `None` = every switch egress port.
    pub queue_ports: Option<Vec<(NodeId, u16)>>,
    /// Also write the ns-3 simulator's fct.txt / pfc.txt (/ qlen.txt).
    pub fct_format: FctFormat,
    /// ns-3 qlen.txt monitoring window (simulated time), if any.
    pub qlen_mon: Option<(SimTime, SimTime)>,
    /// Added to times in the ns-3 files (workload.ns3_time_offset), so they read
    /// as the ns-3 run's absolute times.
    pub ns3_time_offset: Delta,
    /// Time-weighted queue-length histogram per watched port.
    pub queue_histogram: bool,
    /// Link utilization sampling interval of watched ports.
    pub link_utilization: Option<Delta>,
    /// Flow rate time series: which flows, at what interval.
    pub flow_rates: Option<(FlowSet, Delta)>,
    /// Flows whose data packets' one-way delays are recorded.
    pub latency: FlowSet,
}

/// A set of flows, by id (index in start order, fct.csv `flow_id`) or by size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowSet {
    None,
    All,
    /// Flows smaller than this many bytes.
    SmallerThan(u64),
    /// These flow ids (valid, sorted, without duplicates).
    Ids(Vec<u32>),
}

impl FlowSet {
    /// Whether each of `flows` belongs to the set.
    pub fn mask(&self, flows: &[FlowSpec]) -> Vec<bool> {
        match self {
            FlowSet::None => vec![false; flows.len()],
            FlowSet::All => vec![true; flows.len()],
            FlowSet::SmallerThan(b) => flows.iter().map(|f| f.size < *b).collect(),
            FlowSet::Ids(ids) => {
                let mut m = vec![false; flows.len()];
                for &i in ids {
                    m[i as usize] = true;
                }
                m
            }
        }
    }
    pub fn is_empty(&self) -> bool {
        matches!(self, FlowSet::None) || matches!(self, FlowSet::Ids(v) if v.is_empty())
    }
}

/// Everything a run needs, validated.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub name: String,
    pub source: String,
    pub seed: u64,
    pub stop: Option<SimTime>,
    pub topo: Topology,
    pub model: ModelConfig,
    pub pfc: PfcPlan,
    /// When switches send PAUSE/RESUME (scheme, pause style).
    pub flowctl: crate::switch::flowctl::FlowControlConfig,
    pub diag: DiagConfig,
    pub ecn: EcnPlan,
    pub int_on: bool,
    pub nic: NicPlan,
    pub cc: CcKind,
    /// Flows sorted by start time (stable).
    pub flows: Vec<FlowSpec>,
    pub output: OutputPlan,
    /// The effective scenario text (for reports).
    pub scenario_text: String,
}

impl RunConfig {
    /// Wire bytes of a full data packet leaving the sender.
    pub fn mtu_wire(&self) -> u32 {
        self.model.sizes.data_wire(self.nic.mtu, self.int_on)
    }
}

/// The format of the per-flow completion file (`output.fct_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FctFormat {
    Csv,
    Ns3,
}

/// Diagnostics settings (`[diagnostics]`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiagConfig {
    pub storm_window: Delta,
    pub storm_fraction: f64,
    /// Detect deadlocks and stop the run.
    pub deadlock: bool,
    pub deadlock_confirm: Delta,
    /// An egress queue holding at least this much is congested (victim rule).
    pub congested_queue: u64,
    /// Track victim flows (traces every flow's path once).
    pub victims: bool,
}

impl Default for DiagConfig {
    fn default() -> Self {
        DiagConfig {
            storm_window: Delta::from_ms(1),
            storm_fraction: 0.5,
            deadlock: true,
            deadlock_confirm: Delta::from_ms(1),
            congested_queue: 10_000,
            victims: true,
        }
    }
}
