//! Reader for MLCommons Chakra execution traces (ET), the trace format astra-sim
//! replays: one file per rank, `<prefix>.<rank>.et` (astra-sim
//! `workload/Workload.cc`), each a `GlobalMetadata` then the rank's `Node`s
//! (mlcommons/chakra `schema/protobuf/et_def.proto`; framing in [`wire`]).
//!
//! The result is a neutral, validated form ([`EtTrace`]): per rank, its nodes in
//! file order with their dependencies, and per node what it does:
//!
//! | node type | attributes read | [`EtKind`] |
//! |---|---|---|
//! | `COMP_NODE` | `duration_micros` (field), `num_ops`, `tensor_size` | `Compute` |
//! | `COMM_SEND_NODE` | `comm_dst`, `comm_size`, `comm_tag`, `comm_src` (optional, must be the own rank) | `Send` |
//! | `COMM_RECV_NODE` | `comm_src`, `comm_size`, `comm_tag`, `comm_dst` (optional, must be the own rank) | `Recv` |
//! | `COMM_COLL_NODE` | `comm_type`, `comm_size`, `pg_name`, `involved_dim`, `duration_micros` | `Collective` |
//! | `INVALID`/`METADATA`/`MEM_LOAD`/`MEM_STORE` | none | `Other` |
//!
//! Attribute names and their meaning follow the feeders astra-sim uses
//! (chakra `src/feeder/et_feeder_node.cpp`; astra-sim's FeederV3, which converts
//! between integer kinds, as [`wire::Value::integer`] does). A comm node with
//! `is_cpu_op` true is refused, as astra-sim refuses it ("Comm node should not be
//! on CPU"). `comm_type` on a SEND or RECV is not read: the samples' converter
//! writes the node type there (5, 6), not a collective.
//!
//! Checked: framing, one `GlobalMetadata` first, known node types, the
//! attributes each type needs and their ranges, unique node ids, every
//! `data_deps`/`ctrl_deps` id present in the same file, and no dependency cycle
//! (through either kind). [`read_trace`] also checks the files run 0..n without a
//! gap and every peer rank is below n. Mapping a trace onto a run is not done here.

mod wire;

use crate::error::InputError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use wire::{Value, node_type as nt};

pub use wire::MAX_TRACE_BYTES;

/// Every rank of a trace, rank `r` read from `<prefix>.<r>.et`.
#[derive(Clone, Debug, PartialEq)]
pub struct EtTrace {
    /// Rank 0's [`EtRank::version`].
    pub version: String,
    pub ranks: Vec<EtRank>,
}

/// One rank's file.
#[derive(Clone, Debug, PartialEq)]
pub struct EtRank {
    pub rank: u32,
    /// `GlobalMetadata.version`, or when that is empty its `schema` string
    /// attribute (the custom-collective converter writes only that), else empty.
    pub version: String,
    /// In file order.
    pub nodes: Vec<EtNode>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EtNode {
    pub id: u64,
    pub name: String,
    pub kind: EtKind,
    /// Node ids of this rank, as written (a repeated id is kept).
    pub data_deps: Vec<u64>,
    pub ctrl_deps: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EtKind {
    /// `COMP_NODE`: `duration_micros` × 1000. astra-sim replays it as 1 ns when it
    /// is 0, or uses a roofline from `num_ops` and `tensor_size` when asked.
    Compute {
        duration_ns: u64,
        num_ops: Option<u64>,
        tensor_size: Option<u64>,
    },
    /// `COMM_SEND_NODE`: `comm_size` bytes to rank `dst`.
    Send { dst: u32, size: u64, tag: i64 },
    /// `COMM_RECV_NODE`: `comm_size` bytes from rank `src`.
    Recv { src: u32, size: u64, tag: i64 },
    /// `COMM_COLL_NODE`. `size` is `comm_size` as written; what it means per
    /// operation is the consumer's (astra-sim's ring: the all-reduce's whole
    /// buffer, the all-gather's per-rank input). `group` is `pg_name` verbatim
    /// (astra-sim: absent, `""` or `"0"` = all ranks). `duration_ns` is the
    /// node's `duration_micros` × 1000 (astra-sim replays a BROADCAST with it).
    Collective {
        op: EtCollective,
        size: u64,
        group: Option<String>,
        involved_dim: Option<Vec<bool>>,
        duration_ns: u64,
    },
    /// A node kept so dependencies through it resolve: `INVALID_NODE` (0),
    /// `METADATA_NODE` (1), `MEM_LOAD_NODE` (2) or `MEM_STORE_NODE` (3).
    Other { node_type: i32 },
}

/// `CollectiveCommType` (et_def.proto), values 0 to 9 in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EtCollective {
    AllReduce,
    Reduce,
    AllGather,
    Gather,
    Scatter,
    Broadcast,
    AllToAll,
    ReduceScatter,
    ReduceScatterBlock,
    Barrier,
}

impl EtCollective {
    const ALL: [EtCollective; 10] = [
        EtCollective::AllReduce,
        EtCollective::Reduce,
        EtCollective::AllGather,
        EtCollective::Gather,
        EtCollective::Scatter,
        EtCollective::Broadcast,
        EtCollective::AllToAll,
        EtCollective::ReduceScatter,
        EtCollective::ReduceScatterBlock,
        EtCollective::Barrier,
    ];

    /// The `comm_type` value, or None outside 0-9.
    pub fn from_comm_type(v: i128) -> Option<EtCollective> {
        usize::try_from(v)
            .ok()
            .and_then(|i| Self::ALL.get(i).copied())
    }
}

/// Reads every rank of the trace `<prefix>.<r>.et`, r = 0, 1, ... The files
/// must run from 0 without a gap; every SEND/RECV peer must be one of them.
pub fn read_trace(prefix: &Path) -> Result<EtTrace, InputError> {
    let ranks = rank_files(prefix)?;
    let n = ranks.len();
    let mut out = Vec::with_capacity(n);
    for r in 0..n as u32 {
        let path = rank_path(prefix, r);
        let rank = read_file(&path, r)?;
        check_peers(&path, &rank, n)?;
        out.push(rank);
    }
    Ok(EtTrace {
        version: out[0].version.clone(),
        ranks: out,
    })
}

/// Reads one rank's file; the rank comes from its name, `<prefix>.<rank>.et`.
pub fn read_rank(path: &Path) -> Result<EtRank, InputError> {
    let rank = path
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.strip_suffix(".et"))
        .and_then(|f| f.rsplit_once('.'))
        .and_then(|(_, r)| canonical_rank(r))
        .ok_or_else(|| {
            InputError::in_file(
                path,
                "",
                "cannot tell the rank: a Chakra trace file is named <prefix>.<rank>.et",
            )
        })?;
    read_file(path, rank)
}

/// Decodes one rank's file held in memory (`path` only names it in errors).
pub fn decode_rank(path: &Path, rank: u32, bytes: &[u8]) -> Result<EtRank, InputError> {
    let err = |loc: String, msg: String| InputError::in_file(path, loc, msg);
    let bytes = wire::load(bytes).map_err(|m| err(String::new(), m))?;
    let mut frames = wire::frames(&bytes);
    let (at, first) = match frames.next() {
        None => {
            return Err(err(
                String::new(),
                "empty: no GlobalMetadata message".into(),
            ));
        }
        Some(f) => f.map_err(|(at, m)| err(format!("byte {at}"), m))?,
    };
    let meta: wire::GlobalMetadata = prost::Message::decode(first).map_err(|e| {
        err(
            format!("byte {at}"),
            format!("GlobalMetadata does not decode: {e}"),
        )
    })?;
    let mut nodes = Vec::new();
    // Node id -> index in `nodes`, filled as they are read so a file of repeated
    // (e.g. empty) messages stops at the second one.
    let mut index = BTreeMap::new();
    for frame in frames {
        let (at, msg) = frame.map_err(|(at, m)| err(format!("byte {at}"), m))?;
        let node: wire::Node = prost::Message::decode(msg)
            .map_err(|e| err(format!("byte {at}"), format!("Node does not decode: {e}")))?;
        if index.insert(node.id, nodes.len()).is_some() {
            let id = node.id;
            return Err(err(
                format!("node {id}"),
                format!("node id {id} is used twice"),
            ));
        }
        nodes.push(convert(path, rank, node)?);
    }
    check_graph(path, &nodes, &index)?;
    Ok(EtRank {
        rank,
        version: version(meta),
        nodes,
    })
}

fn version(meta: wire::GlobalMetadata) -> String {
    if !meta.version.is_empty() {
        return meta.version;
    }
    meta.attr
        .into_iter()
        .find(|a| a.name == "schema")
        .and_then(|a| match a.value {
            Some(Value::String(s)) => Some(s),
            _ => None,
        })
        .unwrap_or_default()
}

fn read_file(path: &Path, rank: u32) -> Result<EtRank, InputError> {
    let bytes = read_bytes(path).map_err(|m| InputError::in_file(path, "", m))?;
    decode_rank(path, rank, &bytes)
}

/// A regular file's bytes (a device or pipe could be read without end).
fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("cannot read: is not a regular file".into());
    }
    if meta.len() > MAX_TRACE_BYTES {
        return Err(format!(
            "{} bytes, more than the limit of {MAX_TRACE_BYTES} for one trace file",
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("cannot read: {e}"))
}

fn rank_path(prefix: &Path, r: u32) -> PathBuf {
    let mut name = prefix.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{r}.et"));
    prefix.with_file_name(name)
}

/// `"12"` as 12; None for anything but a rank written as astra-sim writes it
/// (no sign, no leading zero).
fn canonical_rank(s: &str) -> Option<u32> {
    let r: u32 = s.parse().ok()?;
    (r.to_string() == s).then_some(r)
}

/// The ranks of the files `<prefix>.<r>.et` next to `prefix`, checked to be
/// 0..n without a gap; returns n ranks in order.
fn rank_files(prefix: &Path) -> Result<Vec<u32>, InputError> {
    let shown = prefix.display();
    let err = |m: String| InputError::new(shown.to_string(), "", m);
    let stem = prefix
        .file_name()
        .and_then(|s| s.to_str())
        .ok_or_else(|| err("a trace prefix names files <dir>/<prefix>.<rank>.et".into()))?;
    let dir = match prefix.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let entries =
        std::fs::read_dir(dir).map_err(|e| err(format!("cannot list {}: {e}", dir.display())))?;
    let mut ranks = BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| err(format!("cannot list {}: {e}", dir.display())))?;
        let name = entry.file_name();
        let rank = name
            .to_str()
            .and_then(|n| n.strip_prefix(stem))
            .and_then(|n| n.strip_prefix('.'))
            .and_then(|n| n.strip_suffix(".et"))
            .and_then(canonical_rank);
        ranks.extend(rank);
    }
    if ranks.is_empty() {
        return Err(err(format!(
            "no trace files: expected {shown}.0.et, {shown}.1.et, ..."
        )));
    }
    if let Some(gap) = (0..).zip(&ranks).find(|&(want, &got)| want != got) {
        let last = ranks.last().copied().unwrap_or_default();
        return Err(err(format!(
            "{shown}.{}.et is missing but {shown}.{last}.et exists: ranks must run from 0 without a gap",
            gap.0
        )));
    }
    Ok(ranks.into_iter().collect())
}

/// Every SEND's `dst` and RECV's `src` is one of the trace's `n` ranks.
fn check_peers(path: &Path, rank: &EtRank, n: usize) -> Result<(), InputError> {
    for node in &rank.nodes {
        let (what, peer) = match node.kind {
            EtKind::Send { dst, .. } => ("comm_dst", dst),
            EtKind::Recv { src, .. } => ("comm_src", src),
            _ => continue,
        };
        if peer as usize >= n {
            return Err(InputError::in_file(
                path,
                format!("node {}", node.id),
                format!(
                    "{what} {peer} is not a rank of this trace (it has {n} files, ranks 0-{})",
                    n - 1
                ),
            ));
        }
    }
    Ok(())
}

/// One wire node as an [`EtNode`], its attributes checked for its type.
fn convert(path: &Path, rank: u32, node: wire::Node) -> Result<EtNode, InputError> {
    let kind = Attrs { path, node: &node }.kind(rank)?;
    Ok(EtNode {
        id: node.id,
        name: node.name,
        kind,
        data_deps: node.data_deps,
        ctrl_deps: node.ctrl_deps,
    })
}

/// One node's attributes, looked up by name.
struct Attrs<'a> {
    path: &'a Path,
    node: &'a wire::Node,
}

impl Attrs<'_> {
    fn err(&self, msg: impl Into<String>) -> InputError {
        InputError::in_file(self.path, format!("node {}", self.node.id), msg)
    }

    fn kind(&self, rank: u32) -> Result<EtKind, InputError> {
        let n = self.node;
        Ok(match n.node_type {
            nt::COMP => EtKind::Compute {
                duration_ns: self.duration_ns()?,
                num_ops: self.opt_u64("num_ops")?,
                tensor_size: self.opt_u64("tensor_size")?,
            },
            nt::COMM_SEND => {
                self.not_on_cpu()?;
                self.own_rank("comm_src", rank)?;
                EtKind::Send {
                    dst: self.rank("comm_dst")?,
                    size: self.size()?,
                    tag: self.tag()?,
                }
            }
            nt::COMM_RECV => {
                self.not_on_cpu()?;
                self.own_rank("comm_dst", rank)?;
                EtKind::Recv {
                    src: self.rank("comm_src")?,
                    size: self.size()?,
                    tag: self.tag()?,
                }
            }
            nt::COMM_COLL => {
                self.not_on_cpu()?;
                let v = self.required_int("comm_type")?;
                let op = EtCollective::from_comm_type(v).ok_or_else(|| {
                    self.err(format!(
                        "unknown comm_type {v} (valid: 0-9, et_def.proto CollectiveCommType)"
                    ))
                })?;
                EtKind::Collective {
                    op,
                    size: self.size()?,
                    group: self.opt_string("pg_name")?,
                    involved_dim: self.opt_bool_list("involved_dim")?,
                    duration_ns: self.duration_ns()?,
                }
            }
            nt::INVALID | nt::METADATA | nt::MEM_LOAD | nt::MEM_STORE => EtKind::Other {
                node_type: n.node_type,
            },
            t => {
                return Err(self.err(format!(
                    "unknown node type {t} (valid: 0-7, et_def.proto NodeType)"
                )));
            }
        })
    }

    fn type_name(&self) -> &'static str {
        match self.node.node_type {
            nt::COMP => "COMP_NODE",
            nt::COMM_SEND => "COMM_SEND_NODE",
            nt::COMM_RECV => "COMM_RECV_NODE",
            nt::COMM_COLL => "COMM_COLL_NODE",
            _ => "node",
        }
    }

    /// The attribute's value, None when absent; a name given twice is refused.
    fn get(&self, name: &str) -> Result<Option<&Value>, InputError> {
        let mut found = self.node.attr.iter().filter(|a| a.name == name);
        let Some(first) = found.next() else {
            return Ok(None);
        };
        if found.next().is_some() {
            return Err(self.err(format!("attribute {name} is given more than once")));
        }
        match &first.value {
            Some(v) => Ok(Some(v)),
            None => Err(self.err(format!(
                "attribute {name} holds no value of a kind this reader knows"
            ))),
        }
    }

    fn opt_int(&self, name: &str) -> Result<Option<i128>, InputError> {
        let Some(v) = self.get(name)? else {
            return Ok(None);
        };
        match v.integer() {
            Some(i) => Ok(Some(i)),
            None => Err(self.err(format!(
                "attribute {name} is a {}; an integer kind is expected",
                v.kind()
            ))),
        }
    }

    fn required_int(&self, name: &str) -> Result<i128, InputError> {
        self.opt_int(name)?.ok_or_else(|| {
            self.err(format!(
                "{} needs attribute {name}, which is missing",
                self.type_name()
            ))
        })
    }

    fn opt_u64(&self, name: &str) -> Result<Option<u64>, InputError> {
        self.opt_int(name)?
            .map(|v| self.unsigned(name, v, u64::MAX.into()))
            .transpose()
    }

    fn unsigned(&self, name: &str, v: i128, max: i128) -> Result<u64, InputError> {
        if v < 0 {
            return Err(self.err(format!("{name} {v} is negative")));
        }
        if v > max {
            return Err(self.err(format!("{name} {v} is out of range (valid: 0 to {max})")));
        }
        Ok(v as u64)
    }

    fn size(&self) -> Result<u64, InputError> {
        let v = self.required_int("comm_size")?;
        self.unsigned("comm_size", v, u64::MAX.into())
    }

    fn rank(&self, name: &str) -> Result<u32, InputError> {
        let v = self.required_int(name)?;
        Ok(self.unsigned(name, v, u32::MAX.into())? as u32)
    }

    /// A SEND's `comm_src` (a RECV's `comm_dst`), when given, must be this rank.
    fn own_rank(&self, name: &str, rank: u32) -> Result<(), InputError> {
        match self.opt_int(name)? {
            Some(v) if v != i128::from(rank) => Err(self.err(format!(
                "{} with {name} {v} is in the file of rank {rank}: it must be issued by rank {v}",
                self.type_name()
            ))),
            _ => Ok(()),
        }
    }

    fn tag(&self) -> Result<i64, InputError> {
        let v = self.required_int("comm_tag")?;
        i64::try_from(v).map_err(|_| self.err(format!("comm_tag {v} is out of range")))
    }

    fn duration_ns(&self) -> Result<u64, InputError> {
        let us = self.node.duration_micros;
        us.checked_mul(1000)
            .ok_or_else(|| self.err(format!("duration_micros {us} is too large to hold in ns")))
    }

    fn not_on_cpu(&self) -> Result<(), InputError> {
        match self.get("is_cpu_op")? {
            None | Some(Value::Bool(false)) => Ok(()),
            Some(Value::Bool(true)) => Err(self.err(format!(
                "{} has is_cpu_op true; a communication node runs on the NPU",
                self.type_name()
            ))),
            Some(v) => Err(self.err(format!(
                "attribute is_cpu_op is a {}; bool_val is expected",
                v.kind()
            ))),
        }
    }

    fn opt_string(&self, name: &str) -> Result<Option<String>, InputError> {
        match self.get(name)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.err(format!(
                "attribute {name} is a {}; string_val is expected",
                v.kind()
            ))),
        }
    }

    fn opt_bool_list(&self, name: &str) -> Result<Option<Vec<bool>>, InputError> {
        match self.get(name)? {
            None => Ok(None),
            Some(Value::BoolList(l)) => Ok(Some(l.values.clone())),
            Some(v) => Err(self.err(format!(
                "attribute {name} is a {}; bool_list is expected",
                v.kind()
            ))),
        }
    }
}

/// Every dependency names a node of the file (`index`: id -> position), and the
/// dependencies (data and control together) form no cycle.
fn check_graph(
    path: &Path,
    nodes: &[EtNode],
    index: &BTreeMap<u64, usize>,
) -> Result<(), InputError> {
    let err = |id: u64, msg: String| InputError::in_file(path, format!("node {id}"), msg);
    let mut parents = Vec::with_capacity(nodes.len());
    for n in nodes {
        let mut p = Vec::with_capacity(n.data_deps.len() + n.ctrl_deps.len());
        for (list, deps) in [("data_deps", &n.data_deps), ("ctrl_deps", &n.ctrl_deps)] {
            for d in deps {
                let &i = index.get(d).ok_or_else(|| {
                    err(
                        n.id,
                        format!("{list} names node {d}, which is not in this file"),
                    )
                })?;
                p.push(i);
            }
        }
        parents.push(p);
    }
    match find_cycle(&parents) {
        None => Ok(()),
        Some(cycle) => {
            let first = nodes[cycle[0]].id;
            let mut ids: Vec<String> = cycle
                .iter()
                .take(8)
                .map(|&i| nodes[i].id.to_string())
                .collect();
            if cycle.len() > 8 {
                ids.push(format!("... ({} nodes)", cycle.len()));
            }
            ids.push(first.to_string());
            Err(err(
                first,
                format!(
                    "dependency cycle: {} (each depends on the next)",
                    ids.join(" -> ")
                ),
            ))
        }
    }
}

/// A cycle of the graph whose node `i` depends on `parents[i]`, as indices
/// (each depends on the next, the last on the first); None when it is acyclic.
fn find_cycle(parents: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = parents.len();
    let mut waiting: Vec<usize> = parents.iter().map(Vec::len).collect();
    let mut children = vec![Vec::new(); n];
    for (i, ps) in parents.iter().enumerate() {
        for &p in ps {
            children[p].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    while let Some(i) = ready.pop() {
        for &c in &children[i] {
            waiting[c] -= 1;
            if waiting[c] == 0 {
                ready.push(c);
            }
        }
    }
    // Every node left waits on some parent also left: walking parents from one
    // of them must come back to a node already seen.
    let start = (0..n).find(|&i| waiting[i] > 0)?;
    let mut seen_at = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut i = start;
    while seen_at[i] == usize::MAX {
        seen_at[i] = walk.len();
        walk.push(i);
        i = parents[i]
            .iter()
            .copied()
            .find(|&p| waiting[p] > 0)
            .expect("a node left by the topological sort has a parent left too");
    }
    Some(walk.split_off(seen_at[i]))
}

#[cfg(test)]
mod tests;
