//! The worker threads of a parallel run: one per partition but the first,
//! which the dispatcher's own thread runs. A window costs a hand-over to a
//! worker and back; with windows of a microsecond of simulated time (a few
//! hundred microseconds of work) a sleeping thread's wake-up (tens of
//! microseconds on a VM) would be a large share, so a worker waits for its
//! next window by spinning on an atomic, and yields its core after a while
//! (more threads than cores still make progress, slowly).
//!
//! Hand-over is a binomial tree, so that its critical path grows with the
//! logarithm of the workers, not with their number: the thread that holds
//! partitions `t..hi` hands the upper half to thread `t + (hi - t) / 2` (it
//! rounds up), then the upper half of what it kept, and so on until it keeps
//! only its own; it runs that, then takes back what each thread it handed to
//! returns, nearest first, and returns the whole range to whoever handed it.
//! The dispatcher is the tree's root with every partition. Partitions move
//! as boxes ([`Parts`]): a pointer each, not their 1.4 KB structs.
//!
//! A slot's mutex is never contended (its state says whose turn it is); the
//! atomics order the moves.

use crate::engine::Key;
use crate::sim::Shared;
use crate::sim::part::Parts;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

const IDLE: u32 = 0;
const POSTED: u32 = 1;
const DONE: u32 = 2;
const QUIT: u32 = 3;
/// A worker panicked (a bug); the threads above it and the dispatcher panic too.
const FAILED: u32 = 4;

/// Spins before a waiting thread starts yielding its core (when there is a
/// core for every thread; with fewer cores, a spinning thread would take the
/// core another needs, so it yields at once).
const SPINS: u32 = 20_000;

/// What one partition's window did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ran {
    pub events: u64,
    /// Seconds busy handling them and sealing the outboxes.
    pub seconds: f64,
    /// The earliest key among the packets it sent other partitions
    /// ([`crate::sim::part::Part::seal_outbox`], found on the partition's own thread).
    pub sent_min: Option<Key>,
}

#[derive(Default)]
struct Work {
    /// The partitions this thread is handed, in order (its own first), and
    /// the window's bound.
    parts: Parts,
    bound: Key,
    /// What each of them did, in the same order.
    ran: Vec<Ran>,
}

#[derive(Default)]
struct Slot {
    state: AtomicU32,
    work: Mutex<Work>,
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

/// The hand-overs of thread `t` holding partitions `t..t + len`, in the
/// order it makes them: (the thread, how many partitions from its own on).
/// It hands on the upper half (rounded down) of what it keeps each time.
fn hand_overs(t: usize, len: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut kept = len;
    std::iter::from_fn(move || {
        (kept > 1).then(|| {
            let child = t + kept.div_ceil(2);
            let n = t + kept - child;
            kept = child - t;
            (child, n)
        })
    })
}

/// The slots of threads 1..=n (slot `t - 1` is thread `t`'s) and how long a
/// waiting thread spins.
struct Tree {
    slots: Vec<Slot>,
    spins: u32,
}

impl Tree {
    /// Thread `t`'s window over `parts` (partitions `t..t + parts.len()`):
    /// hands the upper halves on, runs its own, takes them back. Fills `ran`
    /// in partition order; `Err` if a thread below panicked.
    fn fan(
        &self,
        t: usize,
        parts: &mut Parts,
        ran: &mut Vec<Ran>,
        sh: &Shared,
        bound: Key,
    ) -> Result<(), ()> {
        let mut handed = [0usize; usize::BITS as usize];
        let mut n_handed = 0;
        for (child, len) in hand_overs(t, parts.len()) {
            let slot = &self.slots[child - 1];
            {
                let mut w = slot.work.lock().expect("a worker never panics holding it");
                w.parts.extend(parts.drain(child - t..child - t + len));
                w.bound = bound;
            }
            slot.state.store(POSTED, Ordering::Release);
            handed[n_handed] = child;
            n_handed += 1;
        }
        let own = &mut parts[0];
        let start = Instant::now();
        let events = own.run_until(sh, bound);
        let sent_min = own.seal_outbox();
        ran.clear();
        ran.push(Ran {
            events,
            seconds: start.elapsed().as_secs_f64(),
            sent_min,
        });
        let mut failed = false;
        for &child in handed[..n_handed].iter().rev() {
            let slot = &self.slots[child - 1];
            if wait_for(&slot.state, &[DONE, FAILED], self.spins) == FAILED {
                failed = true;
                continue;
            }
            let mut w = slot.work.lock().expect("a worker never panics holding it");
            parts.append(&mut w.parts);
            ran.append(&mut w.ran);
            drop(w);
            slot.state.store(IDLE, Ordering::Relaxed);
        }
        if failed { Err(()) } else { Ok(()) }
    }
}

pub(crate) struct Crew {
    tree: Arc<Tree>,
    handles: Vec<JoinHandle<()>>,
}

impl Crew {
    /// Starts `n` worker threads.
    pub fn start(n: usize, sh: &Arc<Shared>) -> Result<Crew, std::io::Error> {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let spins = if n < cores { SPINS } else { 0 };
        let tree = Arc::new(Tree {
            slots: (0..n).map(|_| Slot::default()).collect(),
            spins,
        });
        let mut crew = Crew {
            tree,
            handles: Vec::new(),
        };
        for t in 1..=n {
            let (tree, sh) = (crew.tree.clone(), sh.clone());
            let h = std::thread::Builder::new()
                .name(format!("rocesim-part-{t}"))
                .spawn(move || work(&tree, t, &sh))?;
            crew.handles.push(h);
        }
        Ok(crew)
    }

    /// Runs one window: `parts[0]` on this thread, the others on the
    /// workers. Returns what each partition did, in order.
    pub fn window(&self, parts: &mut Parts, sh: &Shared, bound: Key) -> Vec<Ran> {
        let mut ran = Vec::with_capacity(parts.len());
        if self.tree.fan(0, parts, &mut ran, sh, bound).is_err() {
            panic!("a partition's worker thread panicked");
        }
        ran
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for slot in &self.tree.slots {
            slot.state.store(QUIT, Ordering::Release);
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// Thread `t`: runs each range of partitions posted to its slot until told
/// to quit.
fn work(tree: &Tree, t: usize, sh: &Shared) {
    let slot = &tree.slots[t - 1];
    loop {
        if wait_for(&slot.state, &[POSTED, QUIT], tree.spins) == QUIT {
            return;
        }
        let mut w = slot
            .work
            .lock()
            .expect("the thread above never panics holding it");
        let Work { parts, bound, ran } = &mut *w;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tree.fan(t, parts, ran, sh, *bound)
        }));
        drop(w);
        if !matches!(run, Ok(Ok(()))) {
            slot.state.store(FAILED, Ordering::Release);
            return;
        }
        slot.state.store(DONE, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::hand_overs;

    /// Every partition is run by exactly its own thread, and the longest
    /// chain of hand-overs before a thread starts (each hand-over a thread
    /// makes waits for the ones it made before) is the logarithm of the
    /// partitions, rounded up.
    #[test]
    fn hand_overs_run_each_partition_once_in_logarithmic_depth() {
        fn fan(t: usize, len: usize, started: usize, runs: &mut [usize], latest: &mut usize) {
            *latest = (*latest).max(started);
            let mut at = started;
            for (child, n) in hand_overs(t, len) {
                at += 1;
                assert!(child > t && child + n <= t + len);
                fan(child, n, at, runs, latest);
            }
            runs[t] += 1;
        }
        for n in 1..=130usize {
            let mut runs = vec![0; n];
            let mut latest = 0;
            fan(0, n, 0, &mut runs, &mut latest);
            assert!(runs.iter().all(|&c| c == 1), "{n} partitions: {runs:?}");
            let log = (usize::BITS - (n - 1).leading_zeros()) as usize;
            assert_eq!(latest, log, "{n} partitions");
        }
    }
}
