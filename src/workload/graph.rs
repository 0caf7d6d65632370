//! Dependency graphs: per-rank sends, receives, compute steps and collectives
//! with their dependencies, from rocesim's own JSON/TOML format or from a
//! Chakra execution trace ([`super::chakra`]), turned into programs
//! ([`super::program`]). docs/ai-workloads.md, "Dependency graphs", is the
//! reference of the file format.
//!
//! Semantics (as MPI's, and as astra-sim replays Chakra traces):
//! - a node waits for the nodes of its own rank it names in `deps`;
//! - the k-th send from rank a to rank b with tag t is received by the k-th
//!   receive at b from a with tag t, which must name the same size;
//! - the k-th collective node of every rank is one collective over all ranks
//!   (each rank's part waits for that rank's node's dependencies, and the
//!   node is done at a rank when its part there is);
//! - a node of no kind (`nop`; Chakra's metadata and memory nodes) takes no time.

use super::FlowSpec;
use super::chakra::{EtCollective, EtKind, EtTrace};
use super::collective::{self, Algorithm, Collective, Conns, Op};
use super::program::{Builder, Instance, Job, Task, TaskTag};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// A graph file: `ranks` and its nodes.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GraphFile {
    pub ranks: u32,
    #[serde(deserialize_with = "nodes")]
    pub nodes: Vec<GraphNode>,
}

/// One node: its id (unique within its rank), rank, what it does and what
/// it waits for.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphNode {
    pub id: u64,
    pub rank: u32,
    pub kind: NodeKind,
    pub deps: Vec<u64>,
}

/// What a node does.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Send {
        to: u32,
        size: u64,
        tag: i64,
    },
    Recv {
        from: u32,
        size: u64,
        tag: i64,
    },
    Compute {
        time: Delta,
    },
    /// A collective over all ranks; `size` as nccl-tests counts it.
    Collective {
        op: Op,
        size: u64,
        algorithm: Option<Algorithm>,
    },
    Nop,
}

/// A node as the file writes it: `kind` and that kind's fields.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum Written {
    Send {
        id: u64,
        rank: u32,
        to: u32,
        size: u64,
        #[serde(default)]
        tag: i64,
        #[serde(default)]
        deps: Vec<u64>,
    },
    Recv {
        id: u64,
        rank: u32,
        from: u32,
        size: u64,
        #[serde(default)]
        tag: i64,
        #[serde(default)]
        deps: Vec<u64>,
    },
    Compute {
        id: u64,
        rank: u32,
        time: Delta,
        #[serde(default)]
        deps: Vec<u64>,
    },
    Collective {
        id: u64,
        rank: u32,
        op: Op,
        size: u64,
        algorithm: Option<Algorithm>,
        #[serde(default)]
        deps: Vec<u64>,
    },
    Nop {
        id: u64,
        rank: u32,
        #[serde(default)]
        deps: Vec<u64>,
    },
}

fn nodes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<GraphNode>, D::Error> {
    let written: Vec<Written> = Vec::deserialize(d)?;
    Ok(written
        .into_iter()
        .map(|w| {
            let (id, rank, kind, deps) = match w {
                Written::Send {
                    id,
                    rank,
                    to,
                    size,
                    tag,
                    deps,
                } => (id, rank, NodeKind::Send { to, size, tag }, deps),
                Written::Recv {
                    id,
                    rank,
                    from,
                    size,
                    tag,
                    deps,
                } => (id, rank, NodeKind::Recv { from, size, tag }, deps),
                Written::Compute {
                    id,
                    rank,
                    time,
                    deps,
                } => (id, rank, NodeKind::Compute { time }, deps),
                Written::Collective {
                    id,
                    rank,
                    op,
                    size,
                    algorithm,
                    deps,
                } => (
                    id,
                    rank,
                    NodeKind::Collective {
                        op,
                        size,
                        algorithm,
                    },
                    deps,
                ),
                Written::Nop { id, rank, deps } => (id, rank, NodeKind::Nop, deps),
            };
            GraphNode {
                id,
                rank,
                kind,
                deps,
            }
        })
        .collect())
}

impl GraphFile {
    /// A Chakra trace as a graph: COMP nodes by their duration, SEND and RECV
    /// as they are, COMM_COLL nodes of the collectives rocesim runs (sizes as
    /// astra-sim reads `comm_size`: the buffer for all-reduce, all-to-all and
    /// broadcast, a rank's input for all-gather, the whole input for
    /// reduce-scatter), other nodes as `nop`; `data_deps` and `ctrl_deps`
    /// both wait. Groups other than all ranks are refused.
    pub fn from_chakra(t: &EtTrace) -> Result<GraphFile, String> {
        let ranks = t.ranks.len() as u32;
        let mut nodes = Vec::new();
        for r in &t.ranks {
            for n in &r.nodes {
                let at = || format!("rank {} node {} ({})", r.rank, n.id, n.name);
                let kind = match &n.kind {
                    EtKind::Compute { duration_ns, .. } => NodeKind::Compute {
                        time: Delta::from_ns(*duration_ns),
                    },
                    EtKind::Send { dst, size, tag } => NodeKind::Send {
                        to: *dst,
                        size: *size,
                        tag: *tag,
                    },
                    EtKind::Recv { src, size, tag } => NodeKind::Recv {
                        from: *src,
                        size: *size,
                        tag: *tag,
                    },
                    EtKind::Collective {
                        op, size, group, ..
                    } => {
                        if group.as_deref().is_some_and(|g| !g.is_empty() && g != "0") {
                            return Err(format!(
                                "{}: collective group {:?}: only collectives over all ranks are supported (pg_name absent, \"\" or \"0\")",
                                at(),
                                group.as_deref().unwrap_or_default()
                            ));
                        }
                        let (op, size) = match op {
                            EtCollective::AllReduce => (Op::AllReduce, *size),
                            EtCollective::AllToAll => (Op::AllToAll, *size),
                            EtCollective::Broadcast => (Op::Broadcast, *size),
                            EtCollective::AllGather => (Op::AllGather, size * ranks as u64),
                            EtCollective::ReduceScatter => (Op::ReduceScatter, *size),
                            other => {
                                return Err(format!(
                                    "{}: a {other:?} collective is not supported (supported: all-reduce, all-gather, reduce-scatter, all-to-all, broadcast)",
                                    at()
                                ));
                            }
                        };
                        NodeKind::Collective {
                            op,
                            size,
                            algorithm: None,
                        }
                    }
                    EtKind::Other { .. } => NodeKind::Nop,
                };
                let mut deps = n.data_deps.clone();
                deps.extend(&n.ctrl_deps);
                nodes.push(GraphNode {
                    id: n.id,
                    rank: r.rank,
                    kind,
                    deps,
                });
            }
        }
        Ok(GraphFile { ranks, nodes })
    }
}

/// How a graph runs: its job's name and start, the ranks' NICs, and what
/// its flows and collectives use.
#[derive(Clone, Debug)]
pub struct GraphPlan {
    pub name: String,
    pub start: SimTime,
    /// Rank r's NIC.
    pub nics: Vec<NodeId>,
    pub class: u8,
    pub dport: u16,
    /// The algorithm of its collective nodes that name none (per op: the
    /// first of [`Op::algorithms`] unless given).
    pub algorithm: Option<Algorithm>,
    pub chunk: u64,
}

/// Adds graph `g` to `b` as one job; `Err` names the node that cannot run.
/// The job's collectives get a row each; its sends, receives and compute
/// steps outside collectives one row together (op `graph`).
pub fn add_graph(b: &mut Builder, g: &GraphFile, plan: &GraphPlan) -> Result<(), String> {
    if g.ranks as usize != plan.nics.len() {
        return Err(format!(
            "the graph has {} ranks and {} hosts were given",
            g.ranks,
            plan.nics.len()
        ));
    }
    let job = b.job(Job {
        name: plan.name.clone(),
        start: plan.start,
        iterations: 1,
    });
    let mut seen: HashMap<(u32, u64), usize> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if n.rank >= g.ranks {
            return Err(format!(
                "node {} names rank {} of {}",
                n.id, n.rank, g.ranks
            ));
        }
        if seen.insert((n.rank, n.id), i).is_some() {
            return Err(format!("rank {} has two nodes with id {}", n.rank, n.id));
        }
    }
    let p2p_bytes: u64 = (g.nodes.iter())
        .map(|n| match n.kind {
            NodeKind::Send { size, .. } => size,
            _ => 0,
        })
        .sum();
    let p2p = b.instance(Instance {
        job,
        iteration: 0,
        index: 0,
        op: "graph".into(),
        algorithm: "dag".into(),
        ranks: g.ranks,
        size: p2p_bytes / g.ranks.max(1) as u64,
        busbw_factor: 1.0,
    });
    let tag = TaskTag {
        instance: p2p,
        step: 0,
    };
    let nic = |r: u32| plan.nics[r as usize];
    // Each node's task (a send's, a receive's, a collective's exit at its rank).
    let mut task: HashMap<(u32, u64), Task> = HashMap::new();
    // Entry tasks of collective nodes, whose dependencies are added below.
    let mut entry: HashMap<(u32, u64), Task> = HashMap::new();
    // Sends and receives matched in order per (src, dst, tag).
    let mut sends: BTreeMap<(u32, u32, i64), Vec<&GraphNode>> = BTreeMap::new();
    let mut recvs: BTreeMap<(u32, u32, i64), Vec<&GraphNode>> = BTreeMap::new();
    let mut colls: Vec<Vec<&GraphNode>> = vec![Vec::new(); g.ranks as usize];
    for n in &g.nodes {
        match &n.kind {
            NodeKind::Send { to, tag, .. } => sends.entry((n.rank, *to, *tag)).or_default().push(n),
            NodeKind::Recv { from, tag, .. } => {
                recvs.entry((*from, n.rank, *tag)).or_default().push(n)
            }
            NodeKind::Collective { .. } => colls[n.rank as usize].push(n),
            NodeKind::Compute { time } => {
                let t = b.compute(nic(n.rank), *time, &[], tag, plan.start);
                task.insert((n.rank, n.id), t);
            }
            NodeKind::Nop => {
                let t = b.compute(nic(n.rank), Delta::ZERO, &[], tag, plan.start);
                task.insert((n.rank, n.id), t);
            }
        }
    }
    for (key, ss) in &sends {
        let rs = recvs.get(key).map_or(&[][..], Vec::as_slice);
        if ss.len() != rs.len() {
            return Err(format!(
                "rank {} sends {} messages to rank {} with tag {} and rank {} posts {} receives for them",
                key.0,
                ss.len(),
                key.1,
                key.2,
                key.1,
                rs.len()
            ));
        }
        for (s, r) in ss.iter().zip(rs) {
            let (NodeKind::Send { size, .. }, NodeKind::Recv { size: rsize, .. }) =
                (&s.kind, &r.kind)
            else {
                unreachable!("sorted by kind above");
            };
            if size != rsize {
                return Err(format!(
                    "rank {} node {} sends {size} B and its receive, rank {} node {}, expects {rsize} B",
                    s.rank, s.id, r.rank, r.id
                ));
            }
            if s.rank == key.1 {
                return Err(format!("rank {} node {} sends to itself", s.rank, s.id));
            }
            let spec = FlowSpec {
                src: nic(s.rank),
                dst: nic(key.1),
                size: *size,
                start: plan.start,
                class: plan.class,
                dport: plan.dport,
            };
            let (st, rt) = b.transfer(spec, None, &[], &[], tag);
            task.insert((s.rank, s.id), st);
            task.insert((r.rank, r.id), rt);
        }
    }
    if let Some((key, rs)) = recvs.iter().find(|(k, _)| !sends.contains_key(k)) {
        return Err(format!(
            "rank {} node {} receives from rank {} with tag {}, which sends it nothing",
            key.1, rs[0].id, key.0, key.2
        ));
    }
    add_collectives(b, g, plan, job, &colls, &mut task, &mut entry)?;
    // Dependencies, now that every node has its task.
    for n in &g.nodes {
        let me = entry
            .get(&(n.rank, n.id))
            .or_else(|| task.get(&(n.rank, n.id)));
        let me = *me.expect("every node has a task");
        let mut deps = Vec::with_capacity(n.deps.len());
        for d in &n.deps {
            match task.get(&(n.rank, *d)) {
                Some(&t) => deps.push(t),
                None => {
                    return Err(format!(
                        "rank {} node {} waits for node {d}, which rank {} does not have",
                        n.rank, n.id, n.rank
                    ));
                }
            }
        }
        b.depend(me, &deps);
    }
    Ok(())
}

/// The collective nodes: the k-th of every rank is one collective, whose
/// part at each rank waits for an entry task (the node's dependencies) and
/// ends in an exit task (the node's task).
fn add_collectives(
    b: &mut Builder,
    g: &GraphFile,
    plan: &GraphPlan,
    job: u32,
    colls: &[Vec<&GraphNode>],
    task: &mut HashMap<(u32, u64), Task>,
    entry: &mut HashMap<(u32, u64), Task>,
) -> Result<(), String> {
    let count = colls.first().map_or(0, Vec::len);
    if let Some(r) = colls.iter().position(|c| c.len() != count) {
        return Err(format!(
            "rank {r} has {} collective nodes and rank 0 has {count}: every rank takes part in each",
            colls[r].len()
        ));
    }
    let mut conns = Conns::new();
    for k in 0..count {
        let first = colls[0][k];
        let NodeKind::Collective {
            op,
            size,
            algorithm,
        } = first.kind
        else {
            unreachable!("collective nodes")
        };
        for (r, c) in colls.iter().enumerate() {
            if c[k].kind != first.kind {
                return Err(format!(
                    "collective {k}: rank {r} node {} differs from rank 0 node {} (op, size and algorithm must agree)",
                    c[k].id, first.id
                ));
            }
        }
        let algorithm = algorithm
            .or(plan.algorithm.filter(|a| op.algorithms().contains(a)))
            .unwrap_or(op.algorithms()[0]);
        let coll = Collective {
            op,
            algorithm,
            size,
            ranks: plan.nics.iter().map(|&n| vec![n]).collect(),
            channels: if algorithm == Algorithm::DoubleBinaryTree {
                2
            } else {
                1
            },
            chunk: plan.chunk,
            step_compute: Delta::ZERO,
            class: plan.class,
            dport: plan.dport,
        };
        let least = coll.least_size();
        if size < least || (algorithm == Algorithm::HalvingDoubling && !g.ranks.is_power_of_two()) {
            return Err(format!(
                "collective {k} (rank 0 node {}): {} of {size} B cannot run on {} ranks (at least {least} B{})",
                first.id,
                op.name(),
                g.ranks,
                if algorithm == Algorithm::HalvingDoubling {
                    ", a power of two of ranks"
                } else {
                    ""
                }
            ));
        }
        let instance = b.instance(Instance {
            job,
            iteration: 0,
            index: k as u32 + 1,
            op: op.name().into(),
            algorithm: algorithm.name().into(),
            ranks: g.ranks,
            size,
            busbw_factor: op.busbw_factor(g.ranks),
        });
        let tag = TaskTag { instance, step: 0 };
        let mut gates = BTreeMap::new();
        for (r, c) in colls.iter().enumerate() {
            let e = b.compute(plan.nics[r], Delta::ZERO, &[], tag, plan.start);
            gates.insert(plan.nics[r], e);
            entry.insert((r as u32, c[k].id), e);
        }
        let added = collective::add_collective(b, &coll, instance, plan.start, &gates, &mut conns);
        let mut parts = collective::by_host(b, added);
        for (r, c) in colls.iter().enumerate() {
            let mine = parts.remove(&plan.nics[r]).unwrap_or_default();
            let mut deps = mine;
            deps.push(gates[&plan.nics[r]]);
            let exit = b.compute(plan.nics[r], Delta::ZERO, &deps, tag, plan.start);
            task.insert((r as u32, c[k].id), exit);
        }
    }
    Ok(())
}
