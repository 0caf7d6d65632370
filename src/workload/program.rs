//! Host programs: sends, receives and compute steps that wait for each other
//! (collectives, [`super::collective`]; dependency-graph files, [`super::dag`];
//! docs/ai-workloads.md).
//!
//! A program is a graph of tasks, each on one host (a NIC):
//! - a **send** is a flow from its host; it starts when the tasks it depends
//!   on are done and is done when its last byte is acknowledged (the flow's
//!   completion in fct.csv, the sender's completion in RDMA);
//! - a **receive** is the same flow seen at its destination; it is done when
//!   the tasks it depends on are done and the flow's last byte has arrived
//!   (the receiving NIC's completion: what a rank waiting for the data sees);
//! - a **compute** step takes its duration once the tasks it depends on are
//!   done (a reduction, a GPU's compute between iterations).
//!
//! A connection (`Builder::connection`: a queue pair) sends its messages in
//! the order they were added: a send on it also waits until the one before it
//! on the connection has sent its last byte once, as a queue pair serves its
//! work requests in order.
//!
//! A task waits only for tasks of its own host, as a rank of MPI or NCCL
//! waits for its own sends, receives and kernels: everything a NIC needs to
//! run its program is its own state, so a run with programs is the same on
//! any number of threads or MPI ranks. A task with nothing to wait for is
//! released at its job's start.
//!
//! [`Builder`] collects the tasks and their flows in the workload's terms
//! (node ids, flows by the order they were added); [`Builder::finish`] turns
//! them into [`Programs`], the run's immutable table: tasks grouped by host,
//! the run's flow ids, who waits for whom.

use crate::ids::{FlowId, HostIdx};
use crate::topology::{NodeId, Topology};
use crate::units::{Delta, SimTime};
use crate::workload::FlowSpec;

/// No task (a flow that no program sends: the workload's other flows).
pub const NO_TASK: u32 = u32::MAX;

/// What a task does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    /// Starts flow `flow` (a run flow id once finished, a builder index before).
    Send { flow: u32 },
    /// Waits for flow `flow`'s last byte at its destination.
    Recv { flow: u32 },
    /// Takes `time` of the host's compute.
    Compute { time: Delta },
}

/// What the outputs group a task under: an instance of a collective (one
/// row of collectives.csv) and its step (steps.csv).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskTag {
    pub instance: u32,
    pub step: u32,
}

impl TaskTag {
    /// A task of no collective (a job's compute between iterations).
    pub const NONE: TaskTag = TaskTag {
        instance: u32::MAX,
        step: 0,
    };
}

/// A job: a named group of collectives (one `[[workload.collective]]` table
/// or one dependency-graph file).
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub name: String,
    pub start: SimTime,
    pub iterations: u32,
}

/// One collective as the outputs describe it (nccl-tests' terms,
/// docs/ai-workloads.md): `size` is nccl-tests' size of the operation and
/// `busbw_factor` what turns its algorithm bandwidth into bus bandwidth.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub job: u32,
    pub iteration: u32,
    /// Its place among its job's collectives of one iteration.
    pub index: u32,
    pub op: String,
    pub algorithm: String,
    pub ranks: u32,
    pub size: u64,
    pub busbw_factor: f64,
}

/// A task under construction.
#[derive(Clone, Debug)]
struct Draft {
    host: NodeId,
    kind: TaskKind,
    deps: Vec<u32>,
    tag: TaskTag,
    release: SimTime,
}

/// A task as the builder names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Task(pub u32);

/// Collects programs: their flows and tasks.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    flows: Vec<FlowSpec>,
    /// Per flow: its connection (flows of one connection share its source
    /// port, hence its ECMP path, as the messages of one queue pair do), or
    /// [`NO_TASK`] for a connection of its own.
    conn: Vec<u32>,
    pub(crate) conns: u32,
    tasks: Vec<Draft>,
    pub jobs: Vec<Job>,
    pub instances: Vec<Instance>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The flows so far (in the order added).
    pub fn flows(&self) -> &[FlowSpec] {
        &self.flows
    }

    /// The tasks so far.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// A new job; its collectives are added with [`Self::instance`].
    pub fn job(&mut self, job: Job) -> u32 {
        self.jobs.push(job);
        self.jobs.len() as u32 - 1
    }

    /// A new collective instance.
    pub fn instance(&mut self, inst: Instance) -> u32 {
        self.instances.push(inst);
        self.instances.len() as u32 - 1
    }

    /// A new connection id, for [`Self::transfer`].
    pub fn connection(&mut self) -> u32 {
        self.conns += 1;
        self.conns - 1
    }

    /// A transfer of `spec` (its `start` is the time before which it cannot
    /// start, its job's start): a send at `spec.src` after `send_deps`, a
    /// receive at `spec.dst` after `recv_deps`, on connection `conn` if given.
    pub fn transfer(
        &mut self,
        spec: FlowSpec,
        conn: Option<u32>,
        send_deps: &[Task],
        recv_deps: &[Task],
        tag: TaskTag,
    ) -> (Task, Task) {
        let flow = self.flows.len() as u32;
        let (src, dst, release) = (spec.src, spec.dst, spec.start);
        self.flows.push(spec);
        self.conn.push(conn.unwrap_or(NO_TASK));
        let send = self.push(src, TaskKind::Send { flow }, send_deps, tag, release);
        let recv = self.push(dst, TaskKind::Recv { flow }, recv_deps, tag, release);
        (send, recv)
    }

    /// A compute step of `time` at `host` after `deps`.
    pub fn compute(
        &mut self,
        host: NodeId,
        time: Delta,
        deps: &[Task],
        tag: TaskTag,
        release: SimTime,
    ) -> Task {
        self.push(host, TaskKind::Compute { time }, deps, tag, release)
    }

    fn push(
        &mut self,
        host: NodeId,
        kind: TaskKind,
        deps: &[Task],
        tag: TaskTag,
        release: SimTime,
    ) -> Task {
        for d in deps {
            let h = self.tasks[d.0 as usize].host;
            assert_eq!(
                h, host,
                "a task at host {host} depends on a task at host {h}"
            );
        }
        self.tasks.push(Draft {
            host,
            kind,
            deps: deps.iter().map(|t| t.0).collect(),
            tag,
            release,
        });
        Task(self.tasks.len() as u32 - 1)
    }

    /// Task `t` also waits for `deps` (tasks of its host).
    pub fn depend(&mut self, t: Task, deps: &[Task]) {
        let host = self.tasks[t.0 as usize].host;
        for d in deps {
            let h = self.tasks[d.0 as usize].host;
            assert_eq!(
                h, host,
                "a task at host {host} depends on a task at host {h}"
            );
        }
        (self.tasks[t.0 as usize].deps).extend(deps.iter().map(|d| d.0));
    }

    /// What task `t` does.
    pub fn kind(&self, t: Task) -> TaskKind {
        self.tasks[t.0 as usize].kind
    }

    /// The host of task `t`.
    pub fn host(&self, t: Task) -> NodeId {
        self.tasks[t.0 as usize].host
    }

    /// The run's programs, given where each of the builder's flows ended up
    /// among the run's flows (`flow_id[i]`, the run sorts its flows by start
    /// time) and the run's flow count.
    pub fn finish(self, topo: &Topology, flow_id: &[FlowId], n_flows: usize) -> Programs {
        let n = self.tasks.len();
        // Tasks grouped by host (stable: a host's tasks keep their order).
        let hidx = |t: &Draft| topo.host_idx(t.host).idx();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&t| hidx(&self.tasks[t as usize]));
        let mut new_id = vec![0u32; n];
        for (pos, &t) in order.iter().enumerate() {
            new_id[t as usize] = pos as u32;
        }
        let n_hosts = topo.hosts.len();
        let mut host_first = vec![0u32; n_hosts + 1];
        for t in &self.tasks {
            host_first[hidx(t) + 1] += 1;
        }
        for h in 0..n_hosts {
            host_first[h + 1] += host_first[h];
        }
        let mut send_task = vec![NO_TASK; n_flows];
        let mut recv_task = vec![NO_TASK; n_flows];
        let mut conn = vec![NO_TASK; n_flows];
        for (i, &fid) in flow_id.iter().enumerate() {
            conn[fid.idx()] = self.conn[i];
        }
        // Each send's successor on its connection, which waits for it.
        let mut conn_next = vec![NO_TASK; n];
        let mut conn_waits = vec![0u32; n];
        let mut last_on: std::collections::HashMap<u32, u32> = Default::default();
        for (t, d) in self.tasks.iter().enumerate() {
            if let TaskKind::Send { flow } = d.kind {
                let c = self.conn[flow as usize];
                if c == NO_TASK {
                    continue;
                }
                let me = new_id[t];
                if let Some(prev) = last_on.insert(c, me) {
                    conn_next[prev as usize] = me;
                    conn_waits[me as usize] = 1;
                }
            }
        }
        let mut kinds = Vec::with_capacity(n);
        let mut tag = Vec::with_capacity(n);
        let mut release = Vec::with_capacity(n);
        let mut n_deps = Vec::with_capacity(n);
        let mut counts = vec![0u32; n + 1];
        for &t in &order {
            let d = &self.tasks[t as usize];
            let kind = match d.kind {
                TaskKind::Send { flow } => {
                    let f = flow_id[flow as usize];
                    send_task[f.idx()] = new_id[t as usize];
                    TaskKind::Send { flow: f.0 }
                }
                TaskKind::Recv { flow } => {
                    let f = flow_id[flow as usize];
                    recv_task[f.idx()] = new_id[t as usize];
                    TaskKind::Recv { flow: f.0 }
                }
                k => k,
            };
            kinds.push(kind);
            tag.push(d.tag);
            release.push(d.release);
            n_deps.push(d.deps.len() as u32 + conn_waits[new_id[t as usize] as usize]);
            for &p in &d.deps {
                counts[new_id[p as usize] as usize + 1] += 1;
            }
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut dependents = vec![0u32; counts[n] as usize];
        for &t in &order {
            for &p in &self.tasks[t as usize].deps {
                let slot = &mut fill[new_id[p as usize] as usize];
                dependents[*slot as usize] = new_id[t as usize];
                *slot += 1;
            }
        }
        Programs {
            conn_next,
            kinds,
            tag,
            release,
            n_deps,
            dep_first: counts,
            dependents,
            host_first,
            send_task,
            recv_task,
            conn,
            jobs: self.jobs,
            instances: self.instances,
        }
    }

    /// The first task that lies on a cycle of dependencies, if any (a graph
    /// whose tasks could never all run).
    pub fn cycle(&self) -> Option<Task> {
        // Kahn's algorithm over the builder's tasks.
        let n = self.tasks.len();
        let mut left: Vec<u32> = self.tasks.iter().map(|t| t.deps.len() as u32).collect();
        let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, t) in self.tasks.iter().enumerate() {
            for &d in &t.deps {
                waiting[d as usize].push(i as u32);
            }
        }
        let mut ready: Vec<u32> = (0..n as u32).filter(|&t| left[t as usize] == 0).collect();
        let mut seen = 0;
        while let Some(t) = ready.pop() {
            seen += 1;
            for &w in &waiting[t as usize] {
                left[w as usize] -= 1;
                if left[w as usize] == 0 {
                    ready.push(w);
                }
            }
        }
        (seen < n).then(|| Task(left.iter().position(|&l| l > 0).expect("a task left") as u32))
    }
}

/// The run's programs: every task, grouped by host, with the run's flow ids.
#[derive(Clone, Debug, Default)]
pub struct Programs {
    kinds: Vec<TaskKind>,
    tag: Vec<TaskTag>,
    /// When a task with nothing to wait for is released (its job's start).
    release: Vec<SimTime>,
    /// How many tasks each waits for (a send on a connection also waits for
    /// the connection's previous message to be sent).
    n_deps: Vec<u32>,
    /// Who waits for each task: `dependents[dep_first[t]..dep_first[t + 1]]`.
    dep_first: Vec<u32>,
    dependents: Vec<u32>,
    /// The tasks of host `h` are `host_first[h]..host_first[h + 1]`.
    host_first: Vec<u32>,
    /// Per run flow: the task that sends it and the one that receives it.
    send_task: Vec<u32>,
    recv_task: Vec<u32>,
    /// Per run flow: its connection, or [`NO_TASK`].
    conn: Vec<u32>,
    /// Per task: the next send on its connection, which waits until this
    /// one has sent its last byte ([`NO_TASK`] if none).
    conn_next: Vec<u32>,
    pub jobs: Vec<Job>,
    pub instances: Vec<Instance>,
}

impl Programs {
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    #[inline]
    pub fn kind(&self, t: u32) -> TaskKind {
        self.kinds[t as usize]
    }

    pub fn tag(&self, t: u32) -> TaskTag {
        self.tag[t as usize]
    }

    pub fn release(&self, t: u32) -> SimTime {
        self.release[t as usize]
    }

    pub fn n_deps(&self, t: u32) -> u32 {
        self.n_deps[t as usize]
    }

    /// The tasks that wait for task `t`.
    #[inline]
    pub fn dependents(&self, t: u32) -> &[u32] {
        let (a, b) = (self.dep_first[t as usize], self.dep_first[t as usize + 1]);
        &self.dependents[a as usize..b as usize]
    }

    /// The tasks of host `h`.
    pub fn host_tasks(&self, h: HostIdx) -> std::ops::Range<u32> {
        self.host_first[h.idx()]..self.host_first[h.idx() + 1]
    }

    /// The next send on the connection of send task `t`, or [`NO_TASK`].
    #[inline]
    pub fn conn_next(&self, t: u32) -> u32 {
        self.conn_next[t as usize]
    }

    /// The task that sends flow `f`, or [`NO_TASK`].
    #[inline]
    pub fn send_task(&self, f: FlowId) -> u32 {
        self.send_task[f.idx()]
    }

    /// The task that receives flow `f`, or [`NO_TASK`].
    #[inline]
    pub fn recv_task(&self, f: FlowId) -> u32 {
        self.recv_task[f.idx()]
    }

    /// Whether a program starts flow `f` (not its start time).
    #[inline]
    pub fn starts(&self, f: FlowId) -> bool {
        self.send_task.get(f.idx()).is_some_and(|&t| t != NO_TASK)
    }

    /// Flow `f`'s connection, if it shares one.
    pub fn conn(&self, f: FlowId) -> Option<u32> {
        self.conn.get(f.idx()).copied().filter(|&c| c != NO_TASK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::builders::star;
    use crate::units::Rate;

    fn flow(src: u32, dst: u32) -> FlowSpec {
        FlowSpec {
            src: NodeId(src),
            dst: NodeId(dst),
            size: 1000,
            start: SimTime::ZERO,
            class: 3,
            dport: 100,
        }
    }

    #[test]
    fn finished_programs_group_tasks_by_host_and_know_who_waits_for_whom() {
        let topo = Topology::build(star(3, Rate::from_gbps(100), Delta::from_us(1))).unwrap();
        let mut b = Builder::new();
        let tag = TaskTag::NONE;
        let (s0, r1) = b.transfer(flow(0, 1), None, &[], &[], tag);
        let c1 = b.compute(NodeId(1), Delta::from_us(1), &[r1], tag, SimTime::ZERO);
        let (s1, _r2) = b.transfer(flow(1, 2), None, &[c1], &[], tag);
        assert!(b.cycle().is_none());
        let p = b.finish(&topo, &[FlowId(1), FlowId(0)], 2);
        assert_eq!(p.len(), 5);
        // Host 0 holds the first send; host 1 its receive, the compute and the second send.
        assert_eq!(p.host_tasks(HostIdx(0)), 0..1);
        assert_eq!(p.host_tasks(HostIdx(1)), 1..4);
        assert_eq!(p.kind(0), TaskKind::Send { flow: 1 });
        assert_eq!(p.send_task(FlowId(1)), 0);
        assert_eq!(p.recv_task(FlowId(1)), 1);
        assert_eq!(p.dependents(1), &[2]);
        assert_eq!(p.dependents(2), &[3]);
        assert_eq!(p.n_deps(3), 1);
        assert!(p.starts(FlowId(0)) && p.starts(FlowId(1)));
        let _ = (s0, s1);
    }

    #[test]
    fn a_cycle_of_dependencies_is_found() {
        let mut b = Builder::new();
        let tag = TaskTag::NONE;
        let a = b.compute(NodeId(0), Delta::ZERO, &[], tag, SimTime::ZERO);
        let c = b.compute(NodeId(0), Delta::ZERO, &[a], tag, SimTime::ZERO);
        assert!(b.cycle().is_none());
        b.tasks[a.0 as usize].deps.push(c.0);
        assert!(b.cycle().is_some());
    }
}
