//! What the recorders write beyond the summary (`[output]`): the recorders own
//! their configuration; [`crate::scenario`] builds it from the scenario file.

use crate::topology::NodeId;
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
    /// The streamed tables' format (`output.format`); `None`: CSV, or
    /// Parquet where the run is sure to write a lot ([`crate::sim::limits::table_format`]).
    pub format: Option<super::TableFormat>,
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
    /// Only the packets delivered in `[from, to)` (simulated time) count.
    pub latency_window: Option<(SimTime, SimTime)>,
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

/// The format of the per-flow completion file (`output.fct_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FctFormat {
    Csv,
    Ns3,
}
