//! One run across MPI ranks (`rocesim run --mpi`, docs/parallel.md): rank `r`
//! runs partition `r` in the same event loop as threads ([`super::run`],
//! through [`OnRanks`]), and every rank keeps the whole dispatcher — the recorder,
//! the PFC diagnostics, the samplers' and deadlock searches' queue — applying
//! every rank's journal in the same key order. Only rank 0's recorder writes
//! files. What the dispatcher reads from nodes it gathers: each rank gives
//! the values of its own nodes (port queues for the samplers, pause state for
//! the deadlock search, the partitions' ends), summed or concatenated over
//! the ranks. A rank builds only its own partition's nodes (src/sim/build.rs):
//! the other partitions are empty on it, so nothing here may read them. The
//! outputs are byte-identical to a run on one thread.

use super::ranks::{Ranks, encode_into, take};
use super::run::{Partitions, Survey};
use crate::engine::Key;
use crate::error::{Error, InputError};
use crate::node::Progress;
use crate::output::journal::Note;
use crate::sim::part::next_grid;
use crate::sim::{Ending, Sim};
use crate::units::SimTime;
use std::time::Instant;

/// Fields of each rank's report at the top of a step.
const HEAD: usize = 0;
const INBOX: usize = 2;
const STARTED: usize = 4;
const DONE: usize = 5;
const SENT_ALL: usize = 6;
const LAST: usize = 7;
/// Rank 0: its output bytes when they exceed the limit, else 0.
const OVER: usize = 8;
/// The time + 1 at which the rank saw the run stall, else 0.
const STALLED: usize = 9;
/// Programs' compute steps under way on the rank.
const COMPUTING: usize = 10;
const FIELDS: usize = 11;

const NONE: u64 = u64::MAX;

fn put_key(v: &mut [u64], at: usize, k: Option<Key>) {
    let (a, b) = k.unwrap_or((NONE, NONE));
    v[at] = a;
    v[at + 1] = b;
}

fn get_key(v: &[u64], at: usize) -> Option<Key> {
    (v[at] != NONE || v[at + 1] != NONE).then_some((v[at], v[at + 1]))
}

/// The MPI world of a run that asks for it (`RunOptions::mpi`), checked
/// against what a run on ranks cannot do yet.
pub(in crate::sim) fn join(opts: &crate::sim::RunOptions) -> Result<Option<Ranks>, Error> {
    if !opts.mpi {
        return Ok(None);
    }
    if opts.threads.unwrap_or(1) > 1 {
        return Err(InputError::new(
            "--threads",
            "",
            "give --threads or --mpi, not both: with --mpi each rank runs one partition",
        )
        .into());
    }
    if opts.trace_rates.is_some() {
        return Err(Error::Sim(
            "in-memory rate traces (RunOptions::trace_rates) are not kept on MPI ranks; use threads".into(),
        ));
    }
    Ok(Some(Ranks::world()))
}

/// A run's partitions on MPI ranks ([`Partitions`] for the loop in
/// [`super::run`]): this rank runs partition `rank`; what the loop needs of
/// the others comes in their reports, gathered at the top of a step or
/// carried by the last window's exchange.
pub(in crate::sim) struct OnRanks<'r> {
    r: &'r Ranks,
    /// Every rank's report, as the last window's exchange brought them:
    /// still true until the next window (the dispatcher's events between
    /// windows change no partition).
    reports: Option<Vec<u64>>,
    /// The time at which this rank saw the run stall.
    stalled: Option<SimTime>,
    /// Rank 0: its output bytes when over the limit, else 0.
    over: u64,
    /// The deadlock search runs on the window grid: a turn must not run
    /// past the next grid point.
    search_bound: bool,
}

impl<'r> OnRanks<'r> {
    pub fn new(sim: &mut Sim, r: &'r Ranks) -> OnRanks<'r> {
        sim.engine.part_busy_seconds = vec![0.0; r.size()];
        let p = &mut sim.parts[r.rank()];
        p.head = p.q.head_key();
        OnRanks {
            r,
            reports: None,
            stalled: None,
            over: 0,
            search_bound: sim.sh.cfg.diag.deadlock && sim.sh.cfg.flowctl.enabled,
        }
    }
}

impl Partitions for OnRanks<'_> {
    fn survey(&mut self, sim: &mut Sim, s: &mut Survey) -> Result<(), Ending> {
        let r = self.r;
        let all = match &self.reports {
            Some(all) => all.clone(),
            None => r.all_gather(&sim.report(r.rank(), None, self.stalled, self.over)),
        };
        let rank = |i: usize| &all[i * FIELDS..(i + 1) * FIELDS];
        let mut pr = Progress::default();
        for i in 0..r.size() {
            let v = rank(i);
            pr.started += v[STARTED] as usize;
            pr.done += v[DONE] as usize;
            pr.sent_all += v[SENT_ALL] as usize;
            pr.computing += v[COMPUTING] as usize;
            pr.last = pr.last.max(SimTime(v[LAST]));
        }
        s.progress = pr;
        s.heads.clear();
        s.heads
            .extend((0..r.size()).map(|i| get_key(rank(i), HEAD)));
        s.inbox = (0..r.size()).filter_map(|i| get_key(rank(i), INBOX)).min();
        if let Some(t) = (0..r.size()).map(|i| rank(i)[STALLED]).find(|&t| t != 0) {
            return Err(Ending::Stalled(SimTime(t - 1)));
        }
        if rank(0)[OVER] != 0 {
            let at = s
                .heads
                .iter()
                .flatten()
                .min()
                .map_or(pr.last, |k| SimTime(k.0));
            return Err(Ending::OutputOver(at, rank(0)[OVER]));
        }
        Ok(())
    }

    fn window(&mut self, sim: &mut Sim, bound: Key) -> Option<Ending> {
        let me = self.r.rank();
        let t = Instant::now();
        let n = sim.parts[me].run_until(&sim.sh, bound);
        sim.engine.part_busy_seconds[me] += t.elapsed().as_secs_f64();
        sim.engine.window_events += n;
        sim.engine.windows += 1;
        let t = Instant::now();
        self.reports = Some(sim.exchange_window(self.r, self.over));
        sim.engine.merge_seconds += t.elapsed().as_secs_f64();
        // Ranks check the output limit together, at their reports.
        None
    }

    /// Rank 0 looks at its files' size as often as threads do (every
    /// `CHECK_EVERY` events); the next report carries it. The wall clock is
    /// not checked: the ranks' clocks would disagree on the moment.
    fn check(&mut self, sim: &mut Sim, _at: SimTime) -> Option<Ending> {
        self.over = sim.output_over(self.r.rank());
        None
    }

    /// The packets still in the inbox go into the links now, and every rank
    /// reports again.
    fn settle(&mut self, sim: &mut Sim) {
        let me = self.r.rank();
        self.reports = None;
        self.over = sim.output_over(me);
        let p = &mut sim.parts[me];
        p.take_inbox();
        p.head = p.q.head_key();
    }

    /// Rank `i` runs; every rank then exchanges (the packets just received
    /// change the heads).
    fn turn(
        &mut self,
        sim: &mut Sim,
        i: usize,
        head: Key,
        mut bound: Key,
        pr: Progress,
        _progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        let me = self.r.rank();
        if self.search_bound {
            // A pause this step makes is searched for at the next grid
            // point: the step must not run past it.
            bound = bound.min((next_grid(head.0, sim.grid), 0));
        }
        if i == me {
            self.stalled = sim.step_rank(me, bound, pr, sim.sh.flows.len());
        }
        sim.exchange_window(self.r, self.over);
        let p = &mut sim.parts[me];
        p.take_inbox();
        p.head = p.q.head_key();
        None
    }
}

impl Sim {
    /// Rank 0's output bytes if they are over the limit, else 0 (and 0 on
    /// the other ranks, which write nothing).
    fn output_over(&self, me: usize) -> u64 {
        match me {
            0 => self.output_over_limit().unwrap_or(0),
            _ => 0,
        }
    }

    /// This rank's report: its partition's earliest key, the earliest key in
    /// its inbox, its flows' progress, rank 0's output bytes over the limit
    /// (`over`), and a stall it saw.
    fn report(
        &self,
        me: usize,
        inbox_min: Option<Key>,
        stalled: Option<SimTime>,
        over: u64,
    ) -> [u64; FIELDS] {
        let mut mine = [0u64; FIELDS];
        let p = &self.parts[me];
        put_key(&mut mine, HEAD, p.head);
        put_key(&mut mine, INBOX, inbox_min);
        mine[STARTED] = p.progress.started as u64;
        mine[DONE] = p.progress.done as u64;
        mine[SENT_ALL] = p.progress.sent_all as u64;
        mine[COMPUTING] = p.progress.computing as u64;
        mine[LAST] = p.progress.last.0;
        mine[OVER] = over;
        mine[STALLED] = stalled.map_or(0, |t| t.0 + 1);
        mine
    }

    /// The end of a window in one all-to-all: each rank gets the packets this
    /// rank has for it, this rank's journal and its report (whose inbox key
    /// is the earliest of the packets it sends: the earliest over all ranks is
    /// the earliest in any inbox). Applies every rank's journal in key order;
    /// returns every rank's report.
    fn exchange_window(&mut self, r: &Ranks, over: u64) -> Vec<u64> {
        let me = r.rank();
        let sent_min = self.parts[me].seal_outbox();
        let report = self.report(me, sent_min, None, over);
        let p = &mut self.parts[me];
        let notes: Vec<(Key, Note)> = p.journal.drain().collect();
        let mut journal = Vec::new();
        encode_into(&notes, &mut journal);
        let got = r.all_to_all_bytes(|to, buf| {
            buf.extend(report.iter().flat_map(|v| v.to_le_bytes()));
            buf.extend_from_slice(&journal);
            let o = &mut p.outbox[to];
            if !o.is_empty() {
                super::wire::put(o, buf);
                o.clear();
            }
        });
        let mut reports = Vec::with_capacity(r.size() * FIELDS);
        for from in 0..r.size() {
            let bytes = got.from(from);
            let (head, rest) = bytes.split_at(FIELDS * 8);
            reports.extend(
                head.chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            );
            let (notes, rest): (Vec<(Key, Note)>, &[u8]) = take(rest);
            self.merging.extend(notes);
            if !rest.is_empty() {
                let list = super::wire::get(rest);
                let inbox = &mut p.inbox[from];
                if inbox.is_empty() {
                    *inbox = list;
                } else {
                    inbox.extend(list);
                }
            }
        }
        // Each rank's notes in key order, ranks one after another: sorted
        // stably, as the threads' are.
        self.sort_gathered();
        self.apply_gathered();
        reports
    }

    /// Rank `me`'s turn: its events below `bound` (and below the arrival of
    /// any packet it sends another rank), until the run completes or stalls
    /// (returned). `pr` is the run's progress before the turn.
    fn step_rank(
        &mut self,
        me: usize,
        mut bound: Key,
        pr: Progress,
        total: usize,
    ) -> Option<SimTime> {
        let sh = &self.sh;
        let p = &mut self.parts[me];
        let others = (pr.started - p.progress.started, pr.done - p.progress.done);
        let computing = pr.computing - p.progress.computing;
        while let Some(ev) = p.step(sh, bound) {
            for t in p.outbox.iter().flatten() {
                bound = bound.min(t.key());
            }
            let (started, done) = (others.0 + p.progress.started, others.1 + p.progress.done);
            if done == total && started == total && computing + p.progress.computing == 0 {
                return None;
            }
            let now = p.q.now();
            let last = p.progress.last.max(pr.last);
            if matches!(ev, crate::node::Event::QpTimer { .. })
                && done < started
                && now.since(last) > self.stall
            {
                return Some(now);
            }
        }
        None
    }
}
