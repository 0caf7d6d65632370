//! The worker threads of a parallel run: one per partition but the first,
//! which the dispatcher's own thread runs. A window costs two hand-overs per
//! worker; with windows of a microsecond of simulated time (a few hundred
//! microseconds of work) a sleeping thread's wake-up (tens of microseconds on
//! a VM) would be a large share, so a worker waits for its next window by
//! spinning on an atomic, and yields its core after a while (more threads than
//! cores still make progress, slowly).
//!
//! Hand-over: the dispatcher moves a partition into a worker's slot with the
//! window's bound and raises the slot's state; the worker runs it and lowers
//! the state; the dispatcher takes it back. The slot's mutex is never
//! contended (the state says whose turn it is); the atomics order the moves.

use crate::engine::Key;
use crate::sim::Shared;
use crate::sim::part::Part;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

const IDLE: u32 = 0;
const POSTED: u32 = 1;
const DONE: u32 = 2;
const QUIT: u32 = 3;
/// The worker panicked (a bug); the dispatcher panics too.
const FAILED: u32 = 4;

/// Spins before a waiting thread starts yielding its core (when there is a
/// core for every thread; with fewer cores, a spinning thread would take the
/// core another needs, so it yields at once).
const SPINS: u32 = 20_000;

#[derive(Default)]
struct Slot {
    state: AtomicU32,
    /// The partition, its window's bound, and what the window did (events,
    /// seconds busy).
    work: Mutex<Option<(Part, Key, u64, f64)>>,
}

/// Waits until `state` is one of `want`, spinning `spins` times, then yielding.
fn wait_for(state: &AtomicU32, want: &[u32], max_spins: u32) -> u32 {
    let mut spins = 0u32;
    loop {
        let s = state.load(Ordering::Acquire);
        if want.contains(&s) {
            return s;
        }
        if spins < max_spins {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

pub(crate) struct Crew {
    slots: Vec<Arc<Slot>>,
    handles: Vec<JoinHandle<()>>,
    spins: u32,
}

impl Crew {
    /// Starts `n` worker threads.
    pub fn start(n: usize, sh: &Arc<Shared>) -> Result<Crew, std::io::Error> {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let spins = if n < cores { SPINS } else { 0 };
        let mut slots = Vec::new();
        let mut handles = Vec::new();
        for i in 0..n {
            let slot = Arc::new(Slot::default());
            let (s, sh) = (slot.clone(), sh.clone());
            let h = std::thread::Builder::new()
                .name(format!("rocesim-part-{}", i + 1))
                .spawn(move || work(&s, &sh, spins))?;
            slots.push(slot);
            handles.push(h);
        }
        Ok(Crew {
            slots,
            handles,
            spins,
        })
    }

    /// Runs one window: `parts[0]` on this thread, the others on the workers.
    /// Returns each partition's (events, seconds busy).
    pub fn window(&self, parts: &mut Vec<Part>, sh: &Shared, bound: Key) -> Vec<(u64, f64)> {
        let mut rest = parts.split_off(1);
        for (slot, part) in self.slots.iter().zip(rest.drain(..)) {
            *slot.work.lock().expect("a worker never panics") = Some((part, bound, 0, 0.0));
            slot.state.store(POSTED, Ordering::Release);
        }
        let t = Instant::now();
        let n = parts[0].run_until(sh, bound);
        let mut out = vec![(n, t.elapsed().as_secs_f64())];
        for slot in &self.slots {
            if wait_for(&slot.state, &[DONE, FAILED], self.spins) == FAILED {
                panic!("a partition's worker thread panicked");
            }
            let (part, _, n, secs) = slot
                .work
                .lock()
                .expect("a worker never panics")
                .take()
                .expect("a done slot holds its partition");
            slot.state.store(IDLE, Ordering::Relaxed);
            parts.push(part);
            out.push((n, secs));
        }
        out
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for slot in &self.slots {
            slot.state.store(QUIT, Ordering::Release);
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// A worker: runs each partition posted to its slot until told to quit.
fn work(slot: &Slot, sh: &Shared, spins: u32) {
    loop {
        if wait_for(&slot.state, &[POSTED, QUIT], spins) == QUIT {
            return;
        }
        let mut w = slot
            .work
            .lock()
            .expect("the dispatcher never panics holding it");
        let (part, bound, n, secs) = w.as_mut().expect("a posted slot holds a partition");
        let t = Instant::now();
        let run =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| part.run_until(sh, *bound)));
        let Ok(events) = run else {
            drop(w);
            slot.state.store(FAILED, Ordering::Release);
            return;
        };
        *n = events;
        *secs = t.elapsed().as_secs_f64();
        drop(w);
        slot.state.store(DONE, Ordering::Release);
    }
}
