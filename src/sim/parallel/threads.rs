//! A run's partitions on threads of this process ([`Partitions`] for the
//! loop in [`super::run`]): a window runs every partition at once on the
//! [`crew`] (each also finding the earliest arrival it sent and posting its
//! outboxes to the crew's mailbox, which the receivers take from as they
//! start the next window), while the dispatcher's thread applies the
//! previous window's notes before it takes a partition; a turn runs one
//! partition an event at a time, handing each packet that crosses to its
//! partition at once.

use super::crew::{Crew, claim_makespan, heaviest_first};
use super::run::{Partitions, Survey};
use crate::engine::Key;
use crate::error::Error;
use crate::node::{Event, Progress};
use crate::sim::notes::file_notes;
use crate::sim::{CHECK_EVERY, Ending, Sim};
use crate::units::SimTime;
use std::time::Instant;

pub(in crate::sim) struct Threads {
    crew: Crew,
    /// Each partition's events in the previous window: what it is expected
    /// to take in the next ([`super::crew::Pool`]).
    expected: Vec<u64>,
    /// The earliest arrival among the packets waiting in the inboxes.
    inbox_min: Option<Key>,
    /// The windows are over (the heads are read from the queues).
    settled: bool,
    /// The bound of the window whose notes wait in `sim.merging`, to be
    /// applied while the next window runs.
    waiting: Option<Key>,
    /// Events handled in turns, and when the next check is due.
    handled: u64,
    next_check: u64,
}

impl Threads {
    /// `sim.engine.threads - 1` worker threads (at most one a partition but
    /// the first); the dispatcher's own thread is the last.
    pub fn start(sim: &mut Sim) -> Result<Threads, Ending> {
        let n = sim.parts.len();
        let threads = sim.engine.threads.clamp(1, n);
        let crew = Crew::start(threads - 1, n, &sim.sh).map_err(|e| {
            Ending::Failed(Error::Sim(format!(
                "cannot start {} worker threads: {e}",
                threads - 1
            )))
        })?;
        for p in &mut sim.parts {
            p.head = p.q.head_key();
        }
        sim.engine.part_busy_seconds = vec![0.0; n];
        Ok(Threads {
            crew,
            expected: vec![0; n],
            inbox_min: None,
            waiting: None,
            settled: false,
            handled: 0,
            next_check: CHECK_EVERY,
        })
    }
}

impl Partitions for Threads {
    fn survey(&mut self, sim: &mut Sim, s: &mut Survey) -> Result<(), Ending> {
        s.progress = sim.progress();
        s.heads.clear();
        match self.settled {
            false => s.heads.extend(sim.parts.iter().map(|p| p.head)),
            true => s.heads.extend(sim.parts.iter_mut().map(|p| p.q.head_key())),
        }
        s.inbox = self.inbox_min;
        Ok(())
    }

    fn window(&mut self, sim: &mut Sim, bound: Key) -> Option<Ending> {
        let tw = Instant::now();
        let order = heaviest_first(&self.expected);
        // The previous window's notes, if they wait, are applied on this
        // thread while the workers start on this window's partitions.
        let mut notes = std::mem::take(&mut sim.merging);
        let mut filing = 0.0;
        let ran = {
            let (sh, rec, diag, roots) = (&sim.sh, &mut sim.rec, &mut sim.diag, &mut sim.roots);
            let mut file = || {
                if !notes.is_empty() {
                    let t = Instant::now();
                    file_notes(&mut notes, sh, rec, diag, roots);
                    filing = t.elapsed().as_secs_f64();
                }
            };
            self.crew
                .window(&mut sim.parts, sh, bound, &order, &mut file)
        };
        sim.merging = notes;
        let e = &mut sim.engine;
        e.window_seconds += tw.elapsed().as_secs_f64();
        e.filing_seconds += filing;
        let mut busy = vec![0.0f64; self.crew.threads()];
        for (i, r) in ran.iter().enumerate() {
            e.window_events += r.events;
            e.part_busy_seconds[i] += r.seconds;
            busy[r.thread as usize] += r.seconds;
            self.expected[i] = r.events;
        }
        let longest = busy.iter().copied().fold(0.0, f64::max);
        e.critical_seconds += longest;
        // With a partition a thread, the notes lengthen the window only if
        // the dispatcher's thread (thread 0 of the crew) with them took
        // longer than the longest without; with more, they come first and
        // are counted whole.
        e.filing_exposed_seconds += if self.crew.one_each(sim.parts.len()) {
            (busy[0] + filing - longest).max(0.0)
        } else {
            filing
        };
        e.critical_events += claim_makespan(&self.expected, &order, self.crew.threads());
        e.windows += 1;
        let h = self.crew.handovers();
        (e.handovers, e.handover_seconds) = (h.count, h.seconds);
        let ts = Instant::now();
        // The notes just filed may have taken the output over its limit: the
        // run ends where it would have, at their window's bound.
        if let Some(at) = self.waiting.take()
            && let Some(e) = sim.row_over_limit(SimTime(at.0))
        {
            return Some(e);
        }
        self.inbox_min = ran.iter().filter_map(|r| r.sent_min).min();
        let ending = match sim.gather_notes() {
            true if !sim.merging.is_empty() => {
                self.waiting = Some(bound);
                None
            }
            _ => {
                sim.apply_gathered();
                sim.row_over_limit(SimTime(bound.0))
            }
        };
        sim.engine.merge_seconds += ts.elapsed().as_secs_f64();
        ending
    }

    fn check(&mut self, sim: &mut Sim, at: SimTime) -> Option<Ending> {
        if let Some(bytes) = sim.output_over_limit() {
            return Some(Ending::OutputOver(at, bytes));
        }
        sim.wall_over().then_some(Ending::WallOver(at))
    }

    fn flush(&mut self, sim: &mut Sim) -> Option<Ending> {
        let at = self.waiting.take()?;
        let ts = Instant::now();
        sim.apply_gathered();
        sim.engine.merge_seconds += ts.elapsed().as_secs_f64();
        sim.row_over_limit(SimTime(at.0))
    }

    fn settle(&mut self, sim: &mut Sim) {
        self.crew.take_mail(&mut sim.parts);
        for p in &mut sim.parts {
            p.take_inbox();
        }
        self.inbox_min = None;
        self.settled = true;
    }

    /// Partition `i`'s events one at a time, each packet that crosses handed
    /// to its partition at once (which may bring the bound nearer), each
    /// note applied at once (which may schedule the dispatcher's event).
    fn turn(
        &mut self,
        sim: &mut Sim,
        i: usize,
        _head: Key,
        mut bound: Key,
        _pr: Progress,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        let total = sim.sh.flows.len();
        while let Some(ev) = sim.parts[i].step(&sim.sh, bound) {
            self.handled += 1;
            bound = bound.min(sim.hand_over(i));
            if !sim.parts[i].journal.is_empty() {
                let notes: Vec<_> = sim.parts[i].journal.drain().collect();
                for (k, n) in notes {
                    sim.apply(k, n);
                }
                if let Some(e) = sim.row_over_limit(sim.parts[i].q.now()) {
                    return Some(e);
                }
                if let Some(g) = sim.gq.head_key() {
                    bound = bound.min(g);
                }
            }
            let pr = sim.progress();
            if pr.finished(total) {
                return Some(Ending::Done);
            }
            let now = sim.parts[i].q.now();
            if matches!(ev, Event::QpTimer { .. })
                && pr.done < pr.started
                && now.since(pr.last) > sim.stall
            {
                return Some(Ending::Stalled(now));
            }
            if self.handled >= self.next_check {
                self.next_check = self.handled + CHECK_EVERY;
                if let Some(e) = sim.checkpoint(now, pr, progress) {
                    return Some(e);
                }
            }
        }
        None
    }

    /// The dispatcher's events alone (samplers) reach the checks too.
    fn idle(
        &mut self,
        sim: &mut Sim,
        progress: &mut dyn FnMut(crate::sim::RunProgress),
    ) -> Option<Ending> {
        if self.handled + sim.global_handled < self.next_check {
            return None;
        }
        self.next_check = self.handled + sim.global_handled + CHECK_EVERY;
        let now = sim.gq.now();
        sim.checkpoint(now, sim.progress(), progress)
    }
}

impl Sim {
    /// Delivers partition `i`'s outboxes at once (a turn); returns the
    /// earliest key they may have scheduled.
    fn hand_over(&mut self, i: usize) -> Key {
        let mut bound = (u64::MAX, u64::MAX);
        for to in 0..self.parts.len() {
            if to == i || self.parts[i].outbox[to].is_empty() {
                continue;
            }
            let mut out = std::mem::take(&mut self.parts[i].outbox[to]);
            self.parts[i].crossed += out.len() as u64;
            let p = &mut self.parts[to];
            for t in out.drain(..) {
                p.links.accept(&t, &mut p.pool, &mut p.q);
            }
            if let Some(k) = p.q.head_key() {
                bound = bound.min(k);
            }
            self.parts[i].outbox[to] = out;
        }
        bound
    }
}
