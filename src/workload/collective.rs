//! Collectives as programs of sends, receives and reductions (docs/ai-workloads.md;
//! the algorithms as ../shared/reference/ai-workloads.md §2-3 describes NCCL's
//! and MPICH's): ring all-reduce, all-gather and reduce-scatter; NCCL's double
//! binary tree all-reduce; recursive halving-doubling (Rabenseifner) all-reduce;
//! all-to-all, direct or pairwise; ring broadcast.
//!
//! Each rank is a server; its NICs carry the collective's channels (channel
//! `c` on NIC `c mod nics`), each channel a contiguous share of the data with
//! its own connections (NCCL splits data over channels, `ncclCollCbdPart`). A
//! connection (a queue pair: one channel, one direction between two ranks)
//! keeps its source port, so its ECMP path, for the whole job. A step's data
//! may be cut into chunks (`chunk`): chunk `p` of step `j + 1` leaves a rank
//! once chunk `p` of step `j` has arrived there (and, where the algorithm
//! reduces it, after `step_compute`), which pipelines rings, trees and chains.
//! Halving-doubling and all-to-all steps are one message per channel and peer.
//!
//! Iterations: a NIC starts iteration `k + 1` after its own part of
//! iteration `k` is done and `compute` has passed. A server's NICs do not wait
//! for each other (each runs the program of its own channels: docs/ai-workloads.md,
//! "What is modelled").

use super::FlowSpec;
use super::program::{Builder, Instance, Job, Task, TaskTag};
use crate::topology::NodeId;
use crate::units::{Delta, SimTime};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The operation (nccl-tests' names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::AllReduce => "all-reduce",
            Op::AllGather => "all-gather",
            Op::ReduceScatter => "reduce-scatter",
            Op::AllToAll => "all-to-all",
            Op::Broadcast => "broadcast",
        }
    }

    /// nccl-tests' bus-bandwidth factor for `n` ranks (doc/PERFORMANCE.md):
    /// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
    /// broadcast 1.
    pub fn busbw_factor(self, n: u32) -> f64 {
        let n = n as f64;
        match self {
            Op::AllReduce => 2.0 * (n - 1.0) / n,
            Op::AllGather | Op::ReduceScatter | Op::AllToAll => (n - 1.0) / n,
            Op::Broadcast => 1.0,
        }
    }

    /// The algorithms this operation has.
    pub fn algorithms(self) -> &'static [Algorithm] {
        match self {
            Op::AllReduce => &[
                Algorithm::Ring,
                Algorithm::DoubleBinaryTree,
                Algorithm::HalvingDoubling,
            ],
            Op::AllGather | Op::ReduceScatter | Op::Broadcast => &[Algorithm::Ring],
            Op::AllToAll => &[Algorithm::Direct, Algorithm::Pairwise],
        }
    }
}

/// How the data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    Ring,
    DoubleBinaryTree,
    HalvingDoubling,
    /// All-to-all: every send at once (NCCL groups them).
    Direct,
    /// All-to-all: n-1 steps, to rank+s and from rank-s (MPI's pairwise exchange).
    Pairwise,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::DoubleBinaryTree => "double-binary-tree",
            Algorithm::HalvingDoubling => "halving-doubling",
            Algorithm::Direct => "direct",
            Algorithm::Pairwise => "pairwise",
        }
    }
}

/// One collective, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Collective {
    pub op: Op,
    pub algorithm: Algorithm,
    /// nccl-tests' size: the buffer for all-reduce and broadcast, the whole
    /// output for all-gather, the whole input for reduce-scatter, a rank's
    /// send buffer (its own block included) for all-to-all.
    pub size: u64,
    /// Each rank's NICs (a server's; one on single-NIC fabrics).
    pub ranks: Vec<Vec<NodeId>>,
    pub channels: u32,
    /// Largest message a step's data is cut into (0: whole).
    pub chunk: u64,
    /// Reduction time after each received chunk that is reduced.
    pub step_compute: Delta,
    pub class: u8,
    pub dport: u16,
}

impl Collective {
    /// The bytes of the data one channel of one rank holds: what ring
    /// steps cut into `ranks` blocks.
    fn channel_bytes(&self, c: u32) -> u64 {
        split(self.data_bytes(), self.channels, c)
    }

    /// The data the algorithm moves around, per rank (before channels).
    fn data_bytes(&self) -> u64 {
        let n = self.ranks.len() as u64;
        match self.op {
            Op::AllReduce | Op::Broadcast => self.size,
            // The total; each rank holds a block of size / n.
            Op::AllGather | Op::ReduceScatter => self.size,
            // A rank's buffer of n blocks: each peer gets size / n.
            Op::AllToAll => self.size / n * n,
        }
    }

    /// Whether each channel of each step has at least a byte to send: the
    /// size a collective needs at least.
    pub fn least_size(&self) -> u64 {
        let n = self.ranks.len() as u64;
        let c = self.channels as u64;
        match (self.op, self.algorithm) {
            (Op::AllReduce, Algorithm::HalvingDoubling) => n * c,
            (Op::AllReduce, Algorithm::DoubleBinaryTree) => c,
            (Op::Broadcast, _) => c,
            _ => n * c,
        }
    }
}

/// A job: one collective, `iterations` times, `compute` between them.
#[derive(Clone, Debug, PartialEq)]
pub struct JobPlan {
    pub name: String,
    pub start: SimTime,
    pub iterations: u32,
    pub compute: Delta,
    pub collective: Collective,
}

/// Part `i` of `total` cut into `parts` near-equal contiguous parts.
pub fn split(total: u64, parts: u32, i: u32) -> u64 {
    let (q, r) = (total / parts as u64, total % parts as u64);
    q + u64::from((i as u64) < r)
}

/// A job's connections: one per (channel, sending rank, receiving rank),
/// kept across its collectives as a communicator keeps its queue pairs.
pub type Conns = BTreeMap<(u32, u32, u32), u32>;

/// Adds job `job` to `b`.
pub fn add_job(b: &mut Builder, job: &JobPlan) {
    let coll = &job.collective;
    let n = coll.ranks.len() as u32;
    let j = b.job(Job {
        name: job.name.clone(),
        start: job.start,
        iterations: job.iterations,
    });
    let mut conns = Conns::new();
    // Per NIC: the task its next iteration waits for.
    let mut gates: BTreeMap<NodeId, Task> = BTreeMap::new();
    for it in 0..job.iterations {
        let instance = b.instance(Instance {
            job: j,
            iteration: it,
            index: 0,
            op: coll.op.name().into(),
            algorithm: coll.algorithm.name().into(),
            ranks: n,
            size: coll.size,
            busbw_factor: coll.op.busbw_factor(n),
        });
        let added = add_collective(b, coll, instance, job.start, &gates, &mut conns);
        if it + 1 < job.iterations {
            // Each NIC's gap after its own part of this iteration.
            for (nic, tasks) in by_host(b, added) {
                let gap = b.compute(nic, job.compute, &tasks, TaskTag::NONE, job.start);
                gates.insert(nic, gap);
            }
        }
    }
}

/// The tasks `tasks` of `b` by host.
pub fn by_host(b: &Builder, tasks: std::ops::Range<usize>) -> BTreeMap<NodeId, Vec<Task>> {
    let mut mine: BTreeMap<NodeId, Vec<Task>> = BTreeMap::new();
    for t in tasks {
        let t = Task(t as u32);
        mine.entry(b.host(t)).or_default().push(t);
    }
    mine
}

/// Adds collective `coll` as instance `instance` of its job: every rank's
/// part on a NIC waits for that NIC's `gates` entry, if any; `release` is the
/// job's start. Returns the tasks added.
pub fn add_collective(
    b: &mut Builder,
    coll: &Collective,
    instance: u32,
    release: SimTime,
    gates: &BTreeMap<NodeId, Task>,
    conns: &mut Conns,
) -> std::ops::Range<usize> {
    let n = coll.ranks.len() as u32;
    let first = b.len();
    for c in 0..coll.channels {
        let mut g = Gen {
            b,
            coll,
            channel: c,
            instance,
            release,
            gates,
            conns,
        };
        match (coll.op, coll.algorithm) {
            (Op::AllReduce, Algorithm::Ring) => g.ring(2 * (n - 1), n - 1),
            (Op::ReduceScatter, _) => g.ring(n - 1, n - 1),
            (Op::AllGather, _) => g.ring(n - 1, 0),
            (Op::AllReduce, Algorithm::DoubleBinaryTree) => g.tree(c % 2 == 1),
            (Op::AllReduce, Algorithm::HalvingDoubling) => g.halving_doubling(),
            (Op::AllToAll, Algorithm::Pairwise) => g.all_to_all(true),
            (Op::AllToAll, _) => g.all_to_all(false),
            (Op::Broadcast, _) => g.chain(),
            (op, a) => unreachable!("{} has no {} algorithm", op.name(), a.name()),
        }
    }
    first..b.len()
}

/// The generator of one channel of one iteration.
struct Gen<'a> {
    b: &'a mut Builder,
    coll: &'a Collective,
    channel: u32,
    instance: u32,
    release: SimTime,
    gates: &'a BTreeMap<NodeId, Task>,
    conns: &'a mut Conns,
}

impl Gen<'_> {
    fn n(&self) -> u32 {
        self.coll.ranks.len() as u32
    }

    /// Rank `r`'s NIC for this channel.
    fn nic(&self, r: u32) -> NodeId {
        let nics = &self.coll.ranks[r as usize];
        nics[self.channel as usize % nics.len()]
    }

    /// What a rank's first send of the iteration waits for.
    fn gate(&self, r: u32) -> Vec<Task> {
        self.gates.get(&self.nic(r)).copied().into_iter().collect()
    }

    /// How many chunks a step's `bytes` are cut into.
    fn chunks(&self, bytes: u64) -> u32 {
        match self.coll.chunk {
            0 => 1,
            c => bytes.div_ceil(c).clamp(1, bytes.max(1)) as u32,
        }
    }

    /// `bytes` from rank `s` to rank `d` after `deps` at `s`, in step `step`:
    /// the receive at `d`.
    fn send(&mut self, s: u32, d: u32, bytes: u64, deps: &[Task], step: u32) -> Task {
        self.transfer(s, d, bytes, deps, step).1
    }

    /// [`Self::send`], with the send's task as well as the receive's.
    fn transfer(&mut self, s: u32, d: u32, bytes: u64, deps: &[Task], step: u32) -> (Task, Task) {
        let (src, dst) = (self.nic(s), self.nic(d));
        let key = (self.channel, s, d);
        let conn = match self.conns.get(&key) {
            Some(&c) => c,
            None => {
                let c = self.b.connection();
                self.conns.insert(key, c);
                c
            }
        };
        let spec = FlowSpec {
            src,
            dst,
            size: bytes,
            start: self.release,
            class: self.coll.class,
            dport: self.coll.dport,
        };
        let tag = TaskTag {
            instance: self.instance,
            step,
        };
        self.b.transfer(spec, Some(conn), deps, &[], tag)
    }

    /// A receive `r` at rank `at` that is reduced before it is used: the
    /// reduction's task, or `r` itself with no reduction time.
    fn reduced(&mut self, at: u32, r: Task, step: u32) -> Task {
        let time = self.coll.step_compute;
        if time.is_zero() {
            return r;
        }
        let tag = TaskTag {
            instance: self.instance,
            step,
        };
        self.b.compute(self.nic(at), time, &[r], tag, self.release)
    }

    /// A ring of `steps` steps: at step `j` rank `i` sends block `(i - j) mod n`
    /// to rank `i + 1`, what it received at step `j - 1`; the blocks received
    /// at steps below `reduced` are reduced before they go on. All-reduce is
    /// 2(n-1) steps (n-1 reduced: reduce-scatter, then all-gather),
    /// reduce-scatter n-1 reduced, all-gather n-1 plain (NCCL's `runRing`).
    fn ring(&mut self, steps: u32, reduced: u32) {
        let n = self.n();
        let data = self.coll.channel_bytes(self.channel);
        let block = |b: u32| split(data, n, b);
        let m = self.chunks(block(0));
        // What rank i received at the previous step, by chunk.
        let mut held: Vec<Vec<Vec<Task>>> =
            (0..n).map(|i| vec![self.gate(i); m as usize]).collect();
        for j in 0..steps {
            let mut got: Vec<Vec<Vec<Task>>> = vec![vec![Vec::new(); m as usize]; n as usize];
            for i in 0..n {
                let b = (i + n - j % n) % n;
                let to = (i + 1) % n;
                for p in 0..m {
                    let bytes = split(block(b), m, p);
                    let r = self.send(i, to, bytes, &held[i as usize][p as usize], j);
                    let r = if j < reduced {
                        self.reduced(to, r, j)
                    } else {
                        r
                    };
                    got[to as usize][p as usize] = vec![r];
                }
            }
            held = got;
        }
    }

    /// Broadcast as NCCL's ring: a chain from rank 0, each rank forwarding
    /// every chunk as it arrives.
    fn chain(&mut self) {
        let n = self.n();
        let data = self.coll.channel_bytes(self.channel);
        let m = self.chunks(data);
        let mut held = vec![self.gate(0); m as usize];
        for j in 0..n - 1 {
            let gate = if j == 0 { Vec::new() } else { self.gate(j) };
            for (p, h) in held.iter_mut().enumerate() {
                let mut deps = std::mem::take(h);
                deps.extend(&gate);
                *h = vec![self.send(j, j + 1, split(data, m, p as u32), &deps, j)];
            }
        }
    }

    /// Half of NCCL's double binary tree (ai-workloads.md §2: each tree carries
    /// the data of half the channels; tree 1 mirrors tree 0, or shifts it by
    /// one for an odd count): every chunk goes up the tree, reduced at each
    /// inner rank once all its children's have arrived, then down from the root.
    fn tree(&mut self, mirrored: bool) {
        let n = self.n();
        let data = self.coll.channel_bytes(self.channel);
        let m = self.chunks(data);
        // Tree positions to ranks: tree 1 is tree 0 over r -> n-1-r (n even)
        // or r -> r+1 mod n (n odd).
        let rank = |pos: u32| match (mirrored, n % 2) {
            (false, _) => pos,
            (true, 0) => n - 1 - pos,
            (true, _) => (pos + 1) % n,
        };
        let tree = BinaryTree::new(n);
        for p in 0..m {
            let bytes = split(data, m, p);
            // Up: children before parents (deepest first).
            let mut up: Vec<Vec<Task>> = (0..n).map(|pos| self.gate(rank(pos))).collect();
            for &pos in tree.bottom_up().iter() {
                let Some(parent) = tree.parent(pos) else {
                    continue;
                };
                let deps = std::mem::take(&mut up[pos as usize]);
                let r = self.send(rank(pos), rank(parent), bytes, &deps, 0);
                let r = self.reduced(rank(parent), r, 0);
                up[parent as usize].push(r);
            }
            // Down: the root's reduced chunk, forwarded by each inner rank.
            let mut down: Vec<Vec<Task>> = vec![Vec::new(); n as usize];
            down[0] = std::mem::take(&mut up[0]);
            for &pos in tree.bottom_up().iter().rev() {
                for child in tree.children(pos) {
                    let deps = down[pos as usize].clone();
                    let r = self.send(rank(pos), rank(child), bytes, &deps, 1);
                    down[child as usize] = vec![r];
                }
            }
        }
    }

    /// Recursive halving then doubling (Rabenseifner, ai-workloads.md §3):
    /// reduce-scatter with the partner `rank XOR 2^s` at step s, half of the
    /// current segment each time (n/2, n/4, ..., n/p), reduced; then
    /// all-gather back (n/p, ..., n/2). Each step waits for the previous
    /// step's receive from its partner. Ranks: a power of two.
    fn halving_doubling(&mut self) {
        let n = self.n();
        let k = n.trailing_zeros();
        let data = self.coll.channel_bytes(self.channel);
        let mut held: Vec<Vec<Task>> = (0..n).map(|i| self.gate(i)).collect();
        let mut seg = data;
        let mut sizes = Vec::new();
        for s in 0..k {
            seg = seg.div_ceil(2);
            sizes.push(seg);
            held = self.exchange(&held, 1 << s, seg, s, true);
        }
        for s in 0..k {
            let mask = 1 << (k - 1 - s);
            held = self.exchange(&held, mask, sizes[(k - 1 - s) as usize], k + s, false);
        }
    }

    /// Every rank sends `bytes` to `rank XOR mask` after `held`; what each
    /// received (reduced if `reduce`).
    fn exchange(
        &mut self,
        held: &[Vec<Task>],
        mask: u32,
        bytes: u64,
        step: u32,
        reduce: bool,
    ) -> Vec<Vec<Task>> {
        let n = self.n();
        let mut got = vec![Vec::new(); n as usize];
        for i in 0..n {
            let to = i ^ mask;
            let r = self.send(i, to, bytes, &held[i as usize], step);
            let r = if reduce { self.reduced(to, r, step) } else { r };
            got[to as usize] = vec![r];
        }
        got
    }

    /// All-to-all: each rank's block of size/n to every other rank, all at
    /// once (`direct`), or in n-1 pairwise steps, step s to rank+s and from
    /// rank-s, each after the previous step's send (its last ACK) and receive
    /// (MPI's blocking sendrecv).
    fn all_to_all(&mut self, pairwise: bool) {
        let n = self.n();
        let per_peer = self.coll.size / n as u64;
        let bytes = split(per_peer, self.coll.channels, self.channel);
        let mut held: Vec<Vec<Task>> = (0..n).map(|i| self.gate(i)).collect();
        for s in 1..n {
            let mut next = vec![Vec::new(); n as usize];
            for i in 0..n {
                let to = (i + s) % n;
                let step = if pairwise { s - 1 } else { 0 };
                let (sent, got) = self.transfer(i, to, bytes, &held[i as usize], step);
                next[i as usize].push(sent);
                next[to as usize].push(got);
            }
            if pairwise {
                held = next;
            }
        }
    }
}

/// The in-order binary tree over positions 0..n that NCCL's `ncclGetBtree`
/// describes (ai-workloads.md §2): position r's lowest set bit b places it;
/// its parent is `(r ^ b) | 2b` (or `r ^ b` where that is past the end), its
/// children `r - b/2` and `r + b/2` (the latter pulled in below n); odd
/// positions are leaves; 0 is the root, its one child the largest power of
/// two below n.
struct BinaryTree {
    parent: Vec<Option<u32>>,
    depth: Vec<u32>,
}

impl BinaryTree {
    fn new(n: u32) -> BinaryTree {
        let mut parent = vec![None; n as usize];
        for r in 1..n {
            let b = 1 << r.trailing_zeros();
            let up = (r ^ b) | (b << 1);
            parent[r as usize] = Some(if up < n { up } else { r ^ b });
        }
        let depth = (0..n as usize)
            .map(|r| {
                let (mut d, mut at) = (0, r);
                while let Some(p) = parent[at] {
                    at = p as usize;
                    d += 1;
                }
                d
            })
            .collect();
        BinaryTree { parent, depth }
    }

    fn parent(&self, r: u32) -> Option<u32> {
        self.parent[r as usize]
    }

    fn children(&self, r: u32) -> Vec<u32> {
        (0..self.parent.len() as u32)
            .filter(|&c| self.parent[c as usize] == Some(r))
            .collect()
    }

    /// Positions deepest first (ties by position).
    fn bottom_up(&self) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.parent.len() as u32).collect();
        v.sort_by_key(|&r| (std::cmp::Reverse(self.depth[r as usize]), r));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::program::TaskKind;

    fn ring_job(op: Op, algorithm: Algorithm, n: u32, channels: u32, chunk: u64) -> Builder {
        let mut b = Builder::new();
        let job = JobPlan {
            name: "j".into(),
            start: SimTime::ZERO,
            iterations: 2,
            compute: Delta::from_us(10),
            collective: Collective {
                op,
                algorithm,
                size: 8_000_000,
                ranks: (0..n).map(|r| vec![NodeId(r)]).collect(),
                channels,
                chunk,
                step_compute: Delta::ZERO,
                class: 3,
                dport: 100,
            },
        };
        add_job(&mut b, &job);
        b
    }

    #[test]
    fn the_binary_tree_is_nccls_in_order_tree_with_every_rank_reached_from_the_root() {
        for n in 1..40u32 {
            let t = BinaryTree::new(n);
            assert_eq!(t.parent(0), None);
            for r in 1..n {
                let p = t.parent(r).expect("every rank but 0 has a parent");
                assert!(p < n);
                // Odd ranks are leaves; a rank has at most two children.
                if r % 2 == 1 {
                    assert!(t.children(r).is_empty(), "n = {n}, rank {r}");
                }
                assert!(t.children(r).len() <= 2);
            }
            // Depth grows as log2 n.
            let deepest = t.depth.iter().max().copied().unwrap_or(0);
            assert!(
                deepest <= 32 - n.leading_zeros(),
                "n = {n}: depth {deepest}"
            );
        }
        // n = 8: 0 -> 4; 4 -> 2, 6; 2 -> 1, 3; 6 -> 5, 7.
        let t = BinaryTree::new(8);
        assert_eq!(t.children(0), [4]);
        assert_eq!(t.children(4), [2, 6]);
        assert_eq!(t.children(6), [5, 7]);
    }

    #[test]
    fn a_ring_all_reduce_is_2_n_minus_1_steps_per_channel_and_iteration() {
        let b = ring_job(Op::AllReduce, Algorithm::Ring, 8, 2, 0);
        // 2 iterations x 2 channels x 8 ranks x 14 steps, one message each.
        assert_eq!(b.flows().len(), 2 * 2 * 8 * 14);
        assert!(b.cycle().is_none());
        // Every message of a channel between two ranks shares one connection.
        let b = ring_job(Op::AllReduce, Algorithm::Ring, 8, 1, 100_000);
        let per_step = split(8_000_000, 8, 0).div_ceil(100_000);
        assert_eq!(b.flows().len() as u64, 2 * 8 * 14 * per_step);
        assert_eq!(b.conns, 8, "one connection from each rank to the next");
        let sizes: u64 = b.flows().iter().map(|f| f.size).sum();
        assert_eq!(
            sizes,
            2 * 8 * 14 * 1_000_000,
            "each step moves S/N per rank"
        );
    }

    #[test]
    fn halving_doubling_pairs_each_rank_with_rank_xor_a_power_of_two() {
        let b = ring_job(Op::AllReduce, Algorithm::HalvingDoubling, 8, 1, 0);
        // Per iteration: 2 log2 8 = 6 steps of 8 messages.
        assert_eq!(b.flows().len(), 2 * 6 * 8);
        for f in b.flows() {
            let x = f.src.0 ^ f.dst.0;
            assert!(x.is_power_of_two(), "{} -> {}", f.src, f.dst);
        }
        let first: Vec<u64> = b.flows()[..48].chunks(8).map(|c| c[0].size).collect();
        assert_eq!(
            first,
            [
                4_000_000, 2_000_000, 1_000_000, 1_000_000, 2_000_000, 4_000_000
            ]
        );
    }

    #[test]
    fn the_compute_gap_separates_iterations_at_each_nic() {
        let b = ring_job(Op::AllGather, Algorithm::Ring, 4, 1, 0);
        let gaps = (0..b.len() as u32)
            .filter(|&t| {
                b.kind(Task(t))
                    == TaskKind::Compute {
                        time: Delta::from_us(10),
                    }
            })
            .count();
        assert_eq!(gaps, 4, "one gap per NIC between the two iterations");
    }
}
