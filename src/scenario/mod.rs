//! Scenario files: one TOML file describes an experiment.
//!
//! The structs here mirror the file (serde, `deny_unknown_fields`, human units);
//! `resolve` validates them into a `RunConfig` with runtime types and every
//! default filled in. docs/scenario.md is the reference for every key.
//!
//! Outside this module, scenarios go through the facade in `source.rs` only
//! ([`Source`], [`to_config`], [`effective`]): loading and resolving are private.

mod ctx;
pub mod flowctl;
pub mod generators;
mod load;
pub mod ns3_import;
mod resolve;
mod source;
mod tagged;
mod topology;

use crate::cc::CcSection;
pub use crate::config::FctFormat;
use crate::profile::{
    EcmpHash, EcnPoint, IdealFct, MmuModel, NicScheduler, Profile, Serialization,
};
use crate::units::{Bytes, Delta, Rate};
use serde::{Deserialize, Serialize};

pub use load::{apply_override, toml_error};
pub use source::{Effective, Source, effective, to_config};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name of the experiment; defaults to the file name.
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub profile: Profile,
    /// Simulated-time limit; omitted = run until every flow completes.
    pub stop: Option<Delta>,
    topology: topology::TopologySection,
    #[serde(default)]
    pub switch: SwitchSection,
    #[serde(default)]
    pub nic: NicSection,
    #[serde(default)]
    pub packet: PacketSection,
    #[serde(default)]
    pub model: ModelSection,
    #[serde(default)]
    pub cc: CcSection,
    #[serde(default)]
    pub workload: WorkloadSection,
    #[serde(default)]
    pub output: OutputSection,
    /// PFC diagnostics: storms, deadlocks, victims (see [`flowctl`]).
    #[serde(default)]
    pub diagnostics: flowctl::DiagnosticsSection,
    /// How to execute the run (not what it computes).
    #[serde(default)]
    pub run: RunSection,
}

/// `[run]`: execution settings. Outputs do not depend on them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Threads (partitions of the nodes) to run on; default 1
    /// (docs/parallel.md). `rocesim run --threads` overrides it.
    pub threads: Option<usize>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSection {
    /// Total buffer per switch. Default 32 MB (HPCC §5.1).
    pub buffer: Option<Bytes>,
    #[serde(default)]
    pub pfc: PfcSection,
    #[serde(default)]
    pub ecn: EcnSection,
    /// Stamp INT records; default: when the congestion control needs them.
    pub int: Option<bool>,
    /// Without PFC: an egress queue may hold `egress_alpha x` the free buffer.
    pub egress_alpha: Option<f64>,
    /// Cap on the shared pool (default: what headroom and reserves leave).
    pub shared_buffer: Option<Bytes>,
    /// Static routes replacing the computed ones (`[[switch.routes]]`).
    #[serde(default)]
    pub routes: Vec<flowctl::RouteEntry>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcSection {
    /// PFC on (lossless). Default true.
    pub enabled: Option<bool>,
    /// "dynamic" (alpha x free shared buffer) or "static".
    pub threshold: Option<ThresholdKind>,
    /// Dynamic-threshold alpha. Default 1/8 (HPCC §5.1: ~11 % of free buffer).
    pub alpha: Option<f64>,
    /// Static threshold per (ingress port, class).
    pub static_threshold: Option<Bytes>,
    /// Headroom per port; default 2 x link BDP (propagation) + 3 MTU-sized frames.
    pub headroom: Option<Bytes>,
    /// Reserve per (ingress port, class). Default 0.
    pub reserve: Option<Bytes>,
    /// XON when this far below the threshold. Default 2 MTU-sized frames (DCQCN §4).
    pub resume_offset: Option<Bytes>,
    /// DCQCN §4's beta: dynamic t_PFC = beta (B - 8 n t_flight - s) / 8, i.e.
    /// alpha = beta / classes. Exclusive with `alpha`.
    pub beta: Option<f64>,
    /// Lossless classes in DCQCN §4's rules (the "8"). Default 8.
    pub classes: Option<u32>,
    /// Timed pauses: every PAUSE lasts this many quanta (512 bit times). Omitted:
    /// X-OFF/X-ON (a pause lasts until RESUME).
    pub pause_quanta: Option<u32>,
    /// Send RESUME frames. Default true; false needs `pause_quanta`.
    pub resume: Option<bool>,
    /// "standard", "ppfc" (P-PFC) or "capfc" (CaPFC). Default "standard".
    pub scheme: Option<flowctl::SchemeKind>,
    #[serde(default)]
    pub ppfc: flowctl::PpfcSection,
    #[serde(default)]
    pub capfc: flowctl::CapfcSection,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThresholdKind {
    Dynamic,
    Static,
    /// DCQCN §4's largest static t_PFC for this switch: (B - 8 n t_flight) / (8 n).
    DcqcnStatic,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSection {
    /// Mark at all; default: when the congestion control reacts to ECN.
    pub enabled: Option<bool>,
    pub kmin: Option<Bytes>,
    pub kmax: Option<Bytes>,
    pub pmax: Option<f64>,
    /// Scale kmin/kmax by (port rate / this rate), as HPCC §5.1 does (25 Gbps for
    /// DCQCN, 10 Gbps for DCTCP).
    pub scale_from: Option<Rate>,
    /// Exact per-rate settings, like the ns-3 KMIN_MAP/KMAX_MAP/PMAX_MAP.
    #[serde(default)]
    pub per_rate: Vec<EcnRate>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnRate {
    pub rate: Rate,
    pub kmin: Bytes,
    pub kmax: Bytes,
    pub pmax: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicSection {
    /// Payload bytes per packet. Default 1000.
    pub mtu: Option<u32>,
    /// ACK every this many in-order packets (and always the last one). Default 1.
    pub ack_interval: Option<u32>,
    /// The class ACK/NACK travel in at switches: "control" (class 0: strict
    /// priority, outside the MMU, never paused) or "data" (the flow's class).
    pub ack_class: Option<AckClass>,
    /// Which class's PAUSE stops the host's ACK queue: "ack" (the class the ACKs
    /// travel in) or "control" (class 0, which switches never pause: the ns-3
    /// simulator's ACK_HIGH_PRIO = 1).
    pub ack_pause_class: Option<AckPauseClass>,
    /// "packet" (a CNP at most once per `cnp_interval` per flow) or "ack-flag".
    pub cnp: Option<CnpKind>,
    /// DCQCN §3.1 NP: 50 us.
    pub cnp_interval: Option<Delta>,
    /// Minimum time between NACKs for the same expected sequence. Default 500 us.
    pub nack_interval: Option<Delta>,
    /// Retransmission timeout (go back to the first unacknowledged byte);
    /// "0s" disables it. Default 10 ms with PFC, 1 ms without; none in ns3-hpcc.
    pub rto: Option<Delta>,
    /// "packets" (every `ack_interval` packets and the last) or "ns3" (the ns-3
    /// simulator's byte milestone and chunk rule; the ns3-hpcc default).
    pub ack_policy: Option<AckPolicy>,
    /// ns3 policy: L2_ACK_INTERVAL in bytes. Default 1 (every packet).
    pub ack_interval_bytes: Option<Bytes>,
    /// ns3 policy: L2_CHUNK_SIZE in bytes (0 = none). Default 4000.
    pub ack_chunk: Option<Bytes>,
    /// ns3 policy: L2_BACK_TO_ZERO. Default false.
    pub back_to_zero: Option<bool>,
    /// "go-back-n" (default), "go-back-0" or "irn".
    pub loss_recovery: Option<flowctl::LossRecoveryKind>,
    /// IRN parameters (with loss_recovery = "irn").
    #[serde(default)]
    pub irn: flowctl::IrnSection,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckPolicy {
    Packets,
    Ns3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckClass {
    Control,
    Data,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckPauseClass {
    Ack,
    Control,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CnpKind {
    Packet,
    AckFlag,
}

/// Wire sizes in bytes; defaults come from the profile.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketSection {
    pub data_header: Option<u32>,
    /// "fixed" (`int_bytes` on every data packet) or "per-hop".
    pub int_mode: Option<IntMode>,
    /// Fixed INT area. Default 42 (HPCC §5.1).
    pub int_bytes: Option<u32>,
    /// Per-hop mode: bytes the sender adds and each switch adds. Default 2 and 8.
    pub int_base: Option<u32>,
    pub int_per_hop: Option<u32>,
    pub ack: Option<u32>,
    pub ack_min: Option<u32>,
    pub cnp: Option<u32>,
    pub pfc: Option<u32>,
    pub serialization: Option<Serialization>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntMode {
    Fixed,
    PerHop,
}

/// Other modelling choices; defaults come from the profile.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    pub ecn_point: Option<EcnPoint>,
    pub ack_duplicates: Option<bool>,
    pub ideal_fct: Option<IdealFct>,
    pub ecmp_hash: Option<EcmpHash>,
    pub repace_on_rate_change: Option<bool>,
    /// "eager" or "ns3": when a NIC looks for the next packet to send.
    pub nic_scheduler: Option<NicScheduler>,
    /// "default" or "ns3" switch MMU rules.
    pub mmu: Option<MmuModel>,
    /// "exact" or "ns3" INT field encoding.
    pub int_units: Option<IntUnitsKind>,
    /// INT_MULTI: ns-3 INT units are 128 x N and 80 x N bytes. Default 1.
    pub int_multi: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntUnitsKind {
    Exact,
    Ns3,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    #[serde(default)]
    pub flows: Vec<FlowEntry>,
    #[serde(default)]
    pub incast: Vec<IncastEntry>,
    /// Flow files in the HPCC ns-3 format (paths relative to the scenario file).
    #[serde(default)]
    pub ns3_flow_files: Vec<String>,
    /// Shift ns-3 flow-file start times by this much (they usually start at 2 s).
    pub ns3_time_offset: Option<Delta>,
    /// Generators (docs/topologies-and-workloads.md); see [`generators`].
    #[serde(default)]
    pub poisson: Vec<generators::PoissonEntry>,
    #[serde(default)]
    pub incast_periodic: Vec<generators::IncastPeriodicEntry>,
    #[serde(default)]
    pub permutation: Vec<generators::PermutationEntry>,
    #[serde(default)]
    pub all_to_all: Vec<generators::AllToAllEntry>,
    #[serde(default)]
    pub long_short: Vec<generators::LongShortEntry>,
    #[serde(default)]
    pub staggered: Vec<generators::StaggeredEntry>,
    #[serde(default)]
    pub periodic: Vec<generators::PeriodicEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry {
    pub src: u32,
    pub dst: u32,
    pub size: Bytes,
    #[serde(default)]
    pub start: Delta,
    #[serde(default = "default_class")]
    pub class: u8,
    #[serde(default = "default_dport")]
    pub dport: u16,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastEntry {
    /// Sender host ids; or omit and give `fan_in` to take the first hosts that are
    /// not the receiver.
    #[serde(default)]
    pub senders: Vec<u32>,
    pub fan_in: Option<u32>,
    pub receiver: u32,
    pub size: Bytes,
    #[serde(default)]
    pub start: Delta,
    /// Each sender starts at `start` plus its own offset, uniform in
    /// `[0, start_spread)` and drawn from the scenario seed: hosts of a real
    /// testbed do not start within the same nanosecond. Default 0 (together).
    #[serde(default)]
    pub start_spread: Delta,
    #[serde(default = "default_class")]
    pub class: u8,
}

pub(crate) fn default_class() -> u8 {
    3
}
pub(crate) fn default_dport() -> u16 {
    100
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Queue sampling interval for queue.csv. Default 1 us; "0s" turns sampling off.
    pub queue_interval: Option<Delta>,
    /// Which egress ports the per-port recorders watch (queue.csv, queue_hist.csv,
    /// link_util.csv): "switches" (every switch port, the default), "none", or a
    /// list of `{ node = N, port = P }`.
    pub queue_ports: Option<QueuePorts>,
    /// "csv" (default) or "ns3": also write the HPCC ns-3 simulator's fct.txt and
    /// pfc.txt (and qlen.txt with `qlen_mon_end`), docs/ns3-compat.md.
    pub fct_format: Option<FctFormat>,
    /// ns-3 qlen.txt: sample switch queues every 100 ns from here (sim time).
    pub qlen_mon_start: Option<Delta>,
    /// ns-3 qlen.txt: until here (sim time).
    pub qlen_mon_end: Option<Delta>,
    /// Time-weighted histogram of each watched port's queue length over the run
    /// (queue_hist.csv). Default true.
    pub queue_histogram: Option<bool>,
    /// Link utilization of each watched port, sampled at this interval
    /// (link_util.csv). Default "0s" = off.
    pub link_utilization: Option<Delta>,
    /// Sending rate and delivered throughput of selected flows over time
    /// (flow_rates.csv). Default: off.
    pub flow_rates: Option<FlowRatesSection>,
    /// One-way delay histogram of the data packets of selected flows
    /// (latency_hist.csv). Default: flows smaller than 100KB.
    pub latency: Option<LatencySection>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowRatesSection {
    /// "all" or a list of flow ids (fct.csv `flow_id`).
    pub flows: FlowSelect,
    /// Sampling interval. Default "10us".
    pub interval: Option<Delta>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencySection {
    /// "small" (default), "all", "none" or a list of flow ids.
    pub flows: Option<FlowSelect>,
    /// Flows smaller than this are "small". Default "100KB".
    pub small_below: Option<Bytes>,
    /// `[from, to]`: only packets delivered in this window of simulated time
    /// count (e.g. P-PFC §5.7's "first 1500 microseconds"). Default: the whole run.
    pub window: Option<Vec<Delta>>,
}

/// A set of flows named in `[output]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FlowSelect {
    Named(String),
    List(Vec<u32>),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum QueuePorts {
    Named(String),
    List(Vec<PortRef>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortRef {
    pub node: u32,
    pub port: u16,
}
