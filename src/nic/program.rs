//! A NIC's part of the run's programs ([`crate::workload::program`]): its
//! tasks, what each still waits for, and the sends and compute steps that are
//! due. Everything here is the NIC's own: a task waits only for tasks of its
//! host, so the NIC runs its program from its own events (its flows'
//! completions, the data it receives, its start timer) and the run is the
//! same on any number of threads or ranks.
//!
//! - A send's flow starts when its last dependency is done (at the NIC's
//!   start timer, so it never starts inside another packet's handling); the
//!   send is done at the flow's last ACK ([`Nic::program_sent`]).
//! - A receive waits for its dependencies and for its flow's last byte
//!   ([`Nic::program_received`]): one more thing to wait for.
//! - A compute step is due its duration after its last dependency.

use super::{Nic, NicEnv};
use crate::ids::{FlowId, HostIdx};
use crate::node::{Ctx, Event};
use crate::units::SimTime;
use crate::workload::program::{NO_TASK, Programs, TaskKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A NIC's program state.
#[derive(Clone, Debug)]
pub struct HostProgram {
    /// The first of the host's tasks (they are contiguous in [`Programs`]).
    first: u32,
    /// Per task of the host: what it still waits for.
    left: Vec<u32>,
    /// Per task of the host: when it started (a send's flow, a compute step).
    start: Vec<SimTime>,
    /// Sends due to start and compute steps due to end: (time, task).
    due: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// The earliest start timer pending, `SimTime::MAX` if none.
    timer_at: SimTime,
    /// Compute steps under way from before the run (released roots), to
    /// count in the run's progress when it starts.
    computing: usize,
}

impl HostProgram {
    /// Host `h`'s program, if it has tasks: its tasks with nothing to wait
    /// for are due at their release (a send starts then, a compute step ends
    /// its duration later).
    pub fn new(p: &Programs, h: HostIdx) -> Option<HostProgram> {
        let tasks = p.host_tasks(h);
        if tasks.is_empty() {
            return None;
        }
        let mut hp = HostProgram {
            first: tasks.start,
            left: Vec::with_capacity(tasks.len()),
            start: vec![SimTime::MAX; tasks.len()],
            due: BinaryHeap::new(),
            timer_at: SimTime::MAX,
            computing: 0,
        };
        for t in tasks {
            let kind = p.kind(t);
            let waits = p.n_deps(t) + u32::from(matches!(kind, TaskKind::Recv { .. }));
            hp.left.push(waits);
            if waits == 0 {
                let at = p.release(t);
                match kind {
                    TaskKind::Send { .. } => hp.due.push(Reverse((at, t))),
                    TaskKind::Compute { time } => {
                        hp.start[(t - hp.first) as usize] = at;
                        hp.computing += 1;
                        hp.due.push(Reverse((at + time, t)));
                    }
                    TaskKind::Recv { .. } => unreachable!("a receive waits for its data"),
                }
            }
        }
        Some(hp)
    }

    /// When the next send starts or compute step ends.
    pub fn next_due(&self) -> Option<SimTime> {
        self.due.peek().map(|r| r.0.0)
    }

    /// The start timer fires now: it is no longer pending.
    pub fn timer_fired(&mut self, now: SimTime) {
        if self.timer_at <= now {
            self.timer_at = SimTime::MAX;
        }
    }

    /// Whether a start timer at `at` must be scheduled (none pending as early).
    pub fn wants_timer(&mut self, at: SimTime) -> bool {
        if at < self.timer_at {
            self.timer_at = at;
            return true;
        }
        false
    }

    fn local(&self, t: u32) -> usize {
        (t - self.first) as usize
    }
}

impl Nic {
    /// This NIC's program, if it runs one, with the flows it will start
    /// (`n_send` sending slots in all).
    pub fn set_program(&mut self, prog: HostProgram, n_send: usize) {
        self.send.resize_with(n_send, || None);
        self.prog = Some(Box::new(prog));
    }

    /// The program's sends and compute steps due by now (the start timer).
    pub(super) fn program_due(&mut self, ctx: &mut Ctx, env: NicEnv) {
        let Some(p) = env.programs else { return };
        let now = ctx.now;
        loop {
            let prog = self.prog.as_deref_mut().expect("a program");
            let Some(&Reverse((at, t))) = prog.due.peek() else {
                break;
            };
            if at > now {
                break;
            }
            prog.due.pop();
            match p.kind(t) {
                TaskKind::Send { flow } => {
                    let l = prog.local(t);
                    prog.start[l] = now;
                    let fid = FlowId(flow);
                    self.start_flow(ctx, env, fid);
                    if env.cfg.note_paths {
                        // Its path joins the victim lists, as a timed start's does.
                        ctx.rec.flow_path(fid);
                    }
                }
                TaskKind::Compute { .. } => {
                    ctx.progress.computing -= 1;
                    self.task_done(ctx, env, p, t);
                }
                TaskKind::Recv { .. } => unreachable!("receives are never due"),
            }
        }
    }

    /// Flow `fid`'s last byte was acknowledged here: its send is done.
    #[inline]
    pub(super) fn program_sent(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        if let Some(p) = env.programs
            && let t = p.send_task(fid)
            && t != NO_TASK
        {
            self.task_done(ctx, env, p, t);
        }
    }

    /// Flow `fid` sent its last byte (once): the next message on its
    /// connection may go.
    #[inline(never)]
    pub(super) fn program_all_sent(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        let Some(p) = env.programs else { return };
        let t = p.send_task(fid);
        if t == NO_TASK || p.conn_next(t) == NO_TASK {
            return;
        }
        let next = p.conn_next(t);
        if self.satisfy(next) {
            let prog = self
                .prog
                .as_deref_mut()
                .expect("a sending host has a program");
            prog.due.push(Reverse((ctx.now, next)));
            self.arm_start(ctx, env);
        }
    }

    /// Flow `fid`'s last byte arrived here: its receive has its data.
    #[inline]
    pub(super) fn program_received(&mut self, ctx: &mut Ctx, env: NicEnv, fid: FlowId) {
        if let Some(p) = env.programs
            && let t = p.recv_task(fid)
            && t != NO_TASK
            && self.satisfy(t)
        {
            self.task_done(ctx, env, p, t);
        }
    }

    /// One thing task `t` (of this host) waits for has happened: whether it
    /// waits for nothing more.
    fn satisfy(&mut self, t: u32) -> bool {
        let prog = self
            .prog
            .as_deref_mut()
            .expect("a host with tasks has a program");
        let l = prog.local(t);
        prog.left[l] -= 1;
        prog.left[l] == 0
    }

    /// Task `t` is done now: it is recorded, and what waited only for it
    /// starts (sends at the start timer, now), runs (compute) or is done
    /// (receives whose data is in, compute steps of no time).
    fn task_done(&mut self, ctx: &mut Ctx, env: NicEnv, p: &Programs, t: u32) {
        let now = ctx.now;
        let prog = self.prog.as_deref_mut().expect("a program");
        let mut done = vec![t];
        let mut send_due = false;
        while let Some(t) = done.pop() {
            let l = prog.local(t);
            let start = match p.kind(t) {
                TaskKind::Recv { .. } => now,
                _ => prog.start[l],
            };
            ctx.rec.task_done(t, start);
            for &d in p.dependents(t) {
                let l = prog.local(d);
                prog.left[l] -= 1;
                if prog.left[l] > 0 {
                    continue;
                }
                match p.kind(d) {
                    TaskKind::Send { .. } => {
                        prog.due.push(Reverse((now, d)));
                        send_due = true;
                    }
                    TaskKind::Compute { time } if time.is_zero() => {
                        prog.start[l] = now;
                        done.push(d);
                    }
                    TaskKind::Compute { time } => {
                        prog.start[l] = now;
                        ctx.progress.computing += 1;
                        prog.due.push(Reverse((now + time, d)));
                        send_due = true;
                    }
                    TaskKind::Recv { .. } => done.push(d),
                }
            }
        }
        if send_due {
            self.arm_start(ctx, env);
        }
    }

    /// Makes sure the start timer comes by the next static flow's start or
    /// the program's next due task (a NIC with a program).
    pub(super) fn arm_start(&mut self, ctx: &mut Ctx, env: NicEnv) {
        let next = self.next_start(env);
        let prog = self.prog.as_deref_mut().expect("a program");
        if let Some(at) = next
            && prog.wants_timer(at)
        {
            ctx.schedule_timer(at.max(ctx.now), Event::FlowStart { host: self.idx });
        }
    }

    /// When flow `fid` started: its program's send's start, or its timed start.
    pub(super) fn flow_started_at(&self, env: NicEnv, fid: FlowId) -> SimTime {
        if let (Some(p), Some(prog)) = (env.programs, self.prog.as_deref()) {
            let t = p.send_task(fid);
            if t != NO_TASK {
                return prog.start[prog.local(t)];
            }
        }
        env.specs[fid.idx()].start
    }

    /// Compute steps this NIC's program has under way before the run starts.
    pub fn computing(&self) -> usize {
        self.prog.as_deref().map_or(0, |p| p.computing)
    }
}
