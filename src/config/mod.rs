//! The run configuration: everything one run needs, validated, in runtime
//! types. [`crate::scenario`] builds it from a scenario file; [`crate::sim`]
//! runs it. Each model's own settings live with the model ([`NicPlan`] in
//! `nic`, [`MmuPlan`] and [`EcnPlan`] in `switch`, `CcKind` in `cc`); this module
//! holds the aggregate and the settings of the run itself (outputs, diagnostics).

mod balance;
pub mod nics;
pub mod paths;

use crate::cc::CcKind;
use crate::nic::NicPlan;
use crate::profile::ModelConfig;
use crate::switch::ecn::EcnPlan;
use crate::switch::mmu::MmuPlan;
use crate::switch::spray::LoadBalancing;
use crate::topology::Topology;
use crate::units::SimTime;
use crate::workload::FlowSpec;

pub use crate::output::pfc_diag::DiagConfig;
pub use crate::output::plan::{FctFormat, FlowSet, OutputPlan};
pub use balance::Balance;

/// Everything a run needs, validated.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub name: String,
    pub source: String,
    pub seed: u64,
    /// Threads to run on (`run.threads`); outputs do not depend on it.
    pub threads: usize,
    /// Partitions of the nodes (`run.partitions`), at least one a thread;
    /// `None`: one a thread. Outputs do not depend on it.
    pub partitions: Option<usize>,
    /// What the partitions are balanced by (`run.balance`); outputs do not
    /// depend on it.
    pub balance: Balance,
    pub stop: Option<SimTime>,
    pub topo: Topology,
    pub model: ModelConfig,
    pub mmu: MmuPlan,
    /// When switches send PAUSE/RESUME (scheme, pause style).
    pub flowctl: crate::switch::flowctl::FlowControlConfig,
    pub diag: DiagConfig,
    pub ecn: EcnPlan,
    /// How switch ports choose among ready data classes (`switch.scheduling`).
    pub scheduling: crate::switch::Scheduling,
    pub int_on: bool,
    /// Per flow (ECMP) or per packet (spraying) among equal-cost next hops.
    pub load_balancing: LoadBalancing,
    pub nic: NicPlan,
    /// How flows use the NICs of servers with several.
    pub nic_rules: nics::NicRules,
    pub cc: CcKind,
    /// Flows sorted by start time (stable).
    pub flows: Vec<FlowSpec>,
    /// The programs that start some of the flows (collectives, dependency
    /// graphs; `crate::workload::program`), if any.
    pub programs: Option<std::sync::Arc<crate::workload::program::Programs>>,
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
