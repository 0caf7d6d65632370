//! The worker threads of a parallel run: `threads - 1` of them, and the
//! dispatcher's own thread. A window costs a hand-over to a worker and back;
//! with windows of a microsecond of simulated time (a few hundred
//! microseconds of work) a sleeping thread's wake-up (tens of microseconds on
//! a VM) would be a large share, so a worker waits for its next window by
//! spinning on an atomic, and yields its core after a while (more threads
//! than cores still make progress, slowly).
//!
//! Hand-over is a binomial tree, so that its critical path grows with the
//! logarithm of the threads, not with their number: the thread that holds
//! threads `t..hi` wakes thread `t + (hi - t) / 2` (it rounds up) with the
//! upper half, then the upper half of what it kept, and so on until it keeps
//! only itself; it runs partitions, then takes back what each thread it woke
//! returns, nearest first, and returns all of it to whoever woke it. The
//! dispatcher is the tree's root with every thread.
//!
//! A window's partitions wait in a [`Pool`] and each thread takes one at a
//! time until none is left: first its own (partitions `t`, `t + threads`,
//! ...: with as many partitions as threads, each stays on its thread, its
//! state in that core's caches), then whichever is left that is expected to
//! be heaviest (the events it handled in the previous window). With more
//! partitions than threads, a thread whose partitions were light takes on
//! another's, so a window lasts about its events over the threads rather
//! than its busiest partition's (docs/parallel.md, "More partitions than
//! threads"). Partitions move as boxes ([`Parts`]): a pointer each, not their
//! 1.4 KB structs. Which thread runs a partition changes no output.
//!
//! The packets that cross partitions go through a [`Mailbox`]: each
//! partition posts its outboxes as it ends a window and takes what was
//! posted to it as it starts the next, on whichever thread runs it.
//!
//! A slot's mutex is never contended (its state says whose turn it is); the
//! atomics order the moves. The pool's mutex is held only to take a partition.

use crate::engine::Key;
use crate::node::Transit;
use crate::sim::Shared;
use crate::sim::part::{Part, Parts};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
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
    /// ([`crate::sim::part::Part::seal_outbox`], found on the thread that ran it).
    pub sent_min: Option<Key>,
    /// The thread that ran it.
    pub thread: u32,
}

/// Partitions waiting to be run, taken one at a time ([`Pool::take`]). Generic
/// so that [`claim_makespan`] replays the same choices with event counts.
pub(crate) struct Pool<T> {
    /// By partition index; `None` once taken.
    items: Vec<Option<T>>,
    /// Partition indices by expected work, heaviest first.
    order: Vec<u32>,
    /// Entries of `order` before this one are taken.
    cursor: usize,
    threads: usize,
}

impl<T> Pool<T> {
    pub fn new(threads: usize) -> Pool<T> {
        Pool {
            items: Vec::new(),
            order: Vec::new(),
            cursor: 0,
            threads: threads.max(1),
        }
    }

    /// Fills the pool with `items` (by partition index), to be taken by
    /// others in `order` (every index once).
    pub fn fill(&mut self, items: impl Iterator<Item = T>, order: &[u32]) {
        self.items.clear();
        self.items.extend(items.map(Some));
        debug_assert_eq!(order.len(), self.items.len(), "an order of every partition");
        self.order.clear();
        self.order.extend_from_slice(order);
        self.cursor = 0;
    }

    /// What thread `t` runs next: with a partition a thread, partition `t`;
    /// with more, the heaviest expected left. `None` when none is left.
    pub fn take(&mut self, t: usize) -> Option<(usize, T)> {
        if self.items.len() == self.threads {
            return self.items[t].take().map(|x| (t, x));
        }
        while let Some(&i) = self.order.get(self.cursor) {
            self.cursor += 1;
            if let Some(x) = self.items[i as usize].take() {
                return Some((i as usize, x));
            }
        }
        None
    }
}

/// Partition indices by expected work (`expected`, by index), heaviest
/// first, ties by index.
pub(crate) fn heaviest_first(expected: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..expected.len() as u32).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(expected[i as usize]), i));
    order
}

/// How long a window lasts, in events, when `threads` threads take its
/// partitions (`events` each, by index) from a [`Pool`] in `order`, a
/// partition taking as long as its events: the window's critical path with
/// free synchronisation. The same on every machine, unlike the seconds the
/// threads really took (which decide, on a machine, which thread takes what).
pub(crate) fn claim_makespan(events: &[u64], order: &[u32], threads: usize) -> u64 {
    if threads >= events.len() {
        // A partition a thread: each its own.
        return events.iter().copied().max().unwrap_or(0);
    }
    let threads = threads.max(1);
    let mut pool = Pool::new(threads);
    pool.fill(events.iter().copied(), order);
    // (time a thread is free, thread): the earliest free takes next.
    let mut free: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        (0..threads).map(|t| std::cmp::Reverse((0, t))).collect();
    let mut end = 0;
    while let Some(std::cmp::Reverse((at, t))) = free.pop() {
        end = end.max(at);
        if let Some((_, ev)) = pool.take(t) {
            free.push(std::cmp::Reverse((at + ev, t)));
        }
    }
    end
}

/// A partition a thread ran: its index, itself, what it did.
type Done = (usize, Box<Part>, Ran);

/// A window as the threads see it.
#[derive(Clone, Copy, Default)]
struct Window {
    bound: Key,
    /// The window's number modulo 2 (which [`Mailbox`] half it posts to).
    parity: usize,
}

#[derive(Default)]
struct Work {
    /// The threads this one wakes (itself and those after it) and the window.
    threads: usize,
    window: Window,
    /// When the thread above posted the window.
    posted: Option<Instant>,
    /// When this thread saw it, and when it had run its part and taken back
    /// what the threads it woke ran.
    woke: Option<Instant>,
    finished: Option<Instant>,
    /// The partitions they ran.
    done: Vec<Done>,
}

/// The hand-overs' own cost, added up over a run ([`Crew::handovers`]): for
/// each hand-over, the time from the window's posting to the woken thread
/// seeing it, and from that thread's finishing (or the waker's starting to
/// wait, if later) to the waker seeing it done. What one level of the tree
/// adds to a window's critical path (docs/parallel.md, "A model of more
/// cores").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Handovers {
    pub count: u64,
    pub seconds: f64,
}

/// The packets partitions send each other, handed over on the partitions'
/// own threads: a partition posts each outbox it filled in a window as it
/// finishes the window, and takes what was posted to it in the previous
/// window when it starts the next, so that between windows the dispatcher
/// moves nothing. Two halves, by window parity: a partition that starts a
/// window late must not take what another posted earlier in the same window
/// (its packets arrive no earlier than the window's end, and the inboxes
/// are taken whole at the start of a window, as the sequential hand-over did).
struct Mailbox {
    n: usize,
    /// By parity, then (from, to) as `from * n + to`: the vector posted,
    /// or an empty one (capacity kept) once taken.
    cells: [Vec<Mutex<Vec<Transit>>>; 2],
    /// By parity, then destination: a bit for each partition that posted to
    /// it (`from / 64` words).
    posted: [Vec<AtomicU64>; 2],
}

impl Mailbox {
    fn new(n: usize) -> Mailbox {
        let words = n.div_ceil(64);
        let cells = || (0..n * n).map(|_| Mutex::new(Vec::new())).collect();
        let posted = || (0..n * words).map(|_| AtomicU64::new(0)).collect();
        Mailbox {
            n,
            cells: [cells(), cells()],
            posted: [posted(), posted()],
        }
    }

    /// Partition `from`'s window (of parity `parity`) is over: its non-empty
    /// outboxes (those `sent_to` lists, [`Part::seal_outbox`]) go into the
    /// cells, each swapped for the empty vector its receiver left.
    fn post(
        &self,
        parity: usize,
        from: usize,
        sent_to: &mut Vec<u16>,
        outbox: &mut [Vec<Transit>],
    ) {
        let words = self.n.div_ceil(64);
        for &to in sent_to.iter() {
            let to = to as usize;
            let mut cell = self.cells[parity][from * self.n + to]
                .lock()
                .expect("no thread panics holding it");
            debug_assert!(cell.is_empty(), "the receiver took the last window's mail");
            std::mem::swap(&mut *cell, &mut outbox[to]);
            self.posted[parity][to * words + from / 64]
                .fetch_or(1 << (from % 64), Ordering::Relaxed);
        }
        sent_to.clear();
    }

    /// Partition `to` takes into its inboxes what was posted to it in the
    /// window of parity `parity`.
    fn take(&self, parity: usize, to: usize, inbox: &mut [Vec<Transit>]) {
        let words = self.n.div_ceil(64);
        for w in 0..words {
            let mut bits = self.posted[parity][to * words + w].swap(0, Ordering::Relaxed);
            while bits != 0 {
                let from = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let mut cell = self.cells[parity][from * self.n + to]
                    .lock()
                    .expect("no thread panics holding it");
                debug_assert!(
                    inbox[from].is_empty(),
                    "an inbox is emptied in every window"
                );
                std::mem::swap(&mut *cell, &mut inbox[from]);
            }
        }
    }
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

/// The hand-overs of thread `t` holding threads `t..t + len`, in the order
/// it makes them: (the thread, how many threads from it on).
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

/// What the dispatcher does once a window (`Crew::window`'s `first`), and
/// whether after its own partition (with a partition a thread: off the
/// critical path unless its partition is the window's busiest) or before it
/// takes one (with more, so that the others take more of the pool).
struct First<'a> {
    run: &'a mut dyn FnMut(),
    after_own: bool,
}

/// The slots of threads 1..=n (slot `t - 1` is thread `t`'s), the window's
/// partitions and how long a waiting thread spins.
struct Tree {
    slots: Vec<Slot>,
    pool: Mutex<Pool<Box<Part>>>,
    mail: Mailbox,
    spins: u32,
    /// [`Handovers`], kept by whichever thread waits for a woken one (each
    /// thread's own under its parent's slot lock: see [`Tree::fan`]).
    handovers: Mutex<Handovers>,
}

impl Tree {
    /// Thread `t`'s window, holding threads `t..t + len`: wakes the upper
    /// halves, runs partitions from the pool until it is empty, takes back
    /// what the threads it woke ran. `Err` if a thread below panicked.
    fn fan(
        &self,
        t: usize,
        len: usize,
        done: &mut Vec<Done>,
        sh: &Shared,
        window: Window,
        first: Option<First<'_>>,
    ) -> Result<(), ()> {
        let Window { bound, parity } = window;
        let mut woke = [0usize; usize::BITS as usize];
        let mut n_woke = 0;
        for (child, n) in hand_overs(t, len) {
            let slot = &self.slots[child - 1];
            {
                let mut w = slot.work.lock().expect("a worker never panics holding it");
                w.threads = n;
                w.window = window;
                w.posted = Some(Instant::now());
            }
            slot.state.store(POSTED, Ordering::Release);
            woke[n_woke] = child;
            n_woke += 1;
        }
        done.clear();
        let (before, after) = match first {
            Some(f) if f.after_own => (None, Some(f.run)),
            f => (f.map(|f| f.run), None),
        };
        if let Some(f) = before {
            f();
        }
        loop {
            let next = self
                .pool
                .lock()
                .expect("no thread panics holding it")
                .take(t);
            let Some((i, mut part)) = next else { break };
            let start = Instant::now();
            self.mail.take(1 - parity, i, &mut part.inbox);
            let events = part.run_until(sh, bound);
            let sent_min = part.seal_outbox();
            let p = &mut *part;
            self.mail.post(parity, i, &mut p.sent_to, &mut p.outbox);
            let ran = Ran {
                events,
                seconds: start.elapsed().as_secs_f64(),
                sent_min,
                thread: t as u32,
            };
            done.push((i, part, ran));
        }
        if let Some(f) = after {
            f();
        }
        let mut failed = false;
        let mut cost = Handovers::default();
        for &child in woke[..n_woke].iter().rev() {
            let slot = &self.slots[child - 1];
            let waiting = Instant::now();
            if wait_for(&slot.state, &[DONE, FAILED], self.spins) == FAILED {
                failed = true;
                continue;
            }
            let seen = Instant::now();
            let mut w = slot.work.lock().expect("a worker never panics holding it");
            if let (Some(p), Some(s), Some(f)) = (w.posted, w.woke, w.finished) {
                cost.count += 1;
                cost.seconds += (s - p).as_secs_f64() + (seen - f.max(waiting)).as_secs_f64();
            }
            done.append(&mut w.done);
            drop(w);
            slot.state.store(IDLE, Ordering::Relaxed);
        }
        if cost.count > 0 {
            let mut h = self.handovers.lock().expect("no thread panics holding it");
            h.count += cost.count;
            h.seconds += cost.seconds;
        }
        if failed { Err(()) } else { Ok(()) }
    }
}

pub(crate) struct Crew {
    tree: Arc<Tree>,
    handles: Vec<JoinHandle<()>>,
    /// Windows run so far.
    windows: usize,
}

impl Crew {
    /// Starts `n` worker threads for `parts` partitions.
    pub fn start(n: usize, parts: usize, sh: &Arc<Shared>) -> Result<Crew, std::io::Error> {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let spins = if n < cores { SPINS } else { 0 };
        let tree = Arc::new(Tree {
            slots: (0..n).map(|_| Slot::default()).collect(),
            pool: Mutex::new(Pool::new(n + 1)),
            mail: Mailbox::new(parts),
            spins,
            handovers: Mutex::new(Handovers::default()),
        });
        let mut crew = Crew {
            tree,
            handles: Vec::new(),
            windows: 0,
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

    /// The threads: the workers and the dispatcher's.
    pub fn threads(&self) -> usize {
        self.tree.slots.len() + 1
    }

    /// The hand-overs' cost so far ([`Handovers`]).
    pub fn handovers(&self) -> Handovers {
        *self
            .tree
            .handovers
            .lock()
            .expect("no thread panics holding it")
    }

    /// Whether `parts` partitions run one on each thread ([`Pool::take`]).
    pub fn one_each(&self, parts: usize) -> bool {
        parts == self.threads()
    }

    /// Runs one window of every partition on this thread and the workers,
    /// the others' partitions taken in `order` ([`Pool::take`]); this
    /// thread does `first` once it has woken the workers: after its own
    /// partition with a partition a thread, before it takes one with more.
    /// Returns what each partition did, in partition order.
    pub fn window(
        &mut self,
        parts: &mut Parts,
        sh: &Shared,
        bound: Key,
        order: &[u32],
        first: &mut dyn FnMut(),
    ) -> Vec<Ran> {
        let n = parts.len();
        let window = Window {
            bound,
            parity: self.windows % 2,
        };
        self.tree
            .pool
            .lock()
            .expect("no thread panics holding it")
            .fill(parts.drain(..), order);
        let mut done = Vec::with_capacity(n);
        let first = First {
            run: first,
            after_own: self.one_each(n),
        };
        if self
            .tree
            .fan(0, self.threads(), &mut done, sh, window, Some(first))
            .is_err()
        {
            panic!("a partition's worker thread panicked");
        }
        assert_eq!(done.len(), n, "every partition ran once");
        self.windows += 1;
        done.sort_unstable_by_key(|d| d.0);
        let mut ran = Vec::with_capacity(n);
        for (_, part, r) in done {
            parts.push(part);
            ran.push(r);
        }
        ran
    }

    /// The windows are over: each partition takes what the last one posted
    /// to it.
    pub fn take_mail(&self, parts: &mut Parts) {
        let parity = (self.windows + 1) % 2;
        for (i, p) in parts.iter_mut().enumerate() {
            self.tree.mail.take(parity, i, &mut p.inbox);
        }
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

/// Thread `t`: runs each window posted to its slot until told to quit.
fn work(tree: &Tree, t: usize, sh: &Shared) {
    let slot = &tree.slots[t - 1];
    loop {
        if wait_for(&slot.state, &[POSTED, QUIT], tree.spins) == QUIT {
            return;
        }
        let woke = Instant::now();
        let mut w = slot
            .work
            .lock()
            .expect("the thread above never panics holding it");
        w.woke = Some(woke);
        let Work {
            threads,
            window,
            done,
            ..
        } = &mut *w;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tree.fan(t, *threads, done, sh, *window, None)
        }));
        w.finished = Some(Instant::now());
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
    use super::{Mailbox, Pool, claim_makespan, hand_overs, heaviest_first};

    /// What partition `from` posts in a window reaches partition `to` when
    /// `to` starts the next window, not before (not even if `to` starts the
    /// window late), each packet once and in the order sent; across more
    /// than 64 partitions (the posted bits' second word).
    #[test]
    fn mail_posted_in_a_window_is_taken_in_the_next() {
        use crate::node::Transit;
        use crate::packet::{MAX_INT_HOPS, Packet, PacketKind};
        let transit = |seq: u64| {
            let mut pkt = Packet::new(PacketKind::Data);
            pkt.seq = seq;
            Transit {
                link: crate::ids::EgressId(0),
                at: crate::units::SimTime(seq),
                lead: 0,
                pkt,
                int: [Default::default(); MAX_INT_HOPS],
            }
        };
        let n = 70;
        let mail = Mailbox::new(n);
        let mut outbox: Vec<Vec<Vec<Transit>>> = vec![vec![Vec::new(); n]; n];
        let mut inbox: Vec<Vec<Vec<Transit>>> = vec![vec![Vec::new(); n]; n];
        for window in 0..4u64 {
            let parity = (window % 2) as usize;
            // Partition 69 takes first, then sends to 3 and 66; 3 sends to
            // 69; 66 takes last, after the others posted in this window.
            for (from, to) in [(69usize, 3usize), (69, 66), (3, 69)] {
                if from == 69 || from == 3 {
                    mail.take(1 - parity, from, &mut inbox[from]);
                }
                for k in 0..2 {
                    outbox[from][to].push(transit(window * 100 + k));
                }
            }
            for from in [69, 3] {
                let mut sent_to: Vec<u16> = (0..n as u16)
                    .filter(|&t| !outbox[from][t as usize].is_empty())
                    .collect();
                mail.post(parity, from, &mut sent_to, &mut outbox[from]);
                assert!(sent_to.is_empty() && outbox[from].iter().all(|o| o.is_empty()));
            }
            mail.take(1 - parity, 66, &mut inbox[66]);
            for (to, from) in [(3usize, 69usize), (66, 69), (69, 3)] {
                let got: Vec<u64> = inbox[to][from].drain(..).map(|t| t.pkt.seq).collect();
                let want: Vec<u64> = match window {
                    0 => vec![],
                    w => vec![(w - 1) * 100, (w - 1) * 100 + 1],
                };
                assert_eq!(got, want, "window {window}: {from} -> {to}");
            }
            assert!(
                inbox.iter().flatten().all(|i| i.is_empty()),
                "nothing else arrived"
            );
        }
    }

    /// Every thread is woken exactly once, and the longest
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
            assert!(runs.iter().all(|&c| c == 1), "{n} threads: {runs:?}");
            let log = (usize::BITS - (n - 1).leading_zeros()) as usize;
            assert_eq!(latest, log, "{n} threads");
        }
    }

    /// With a partition a thread each thread takes its own; with more, the
    /// heaviest expected left, whichever thread asks; every partition is
    /// taken once.
    #[test]
    fn a_thread_takes_its_own_partition_or_the_heaviest_left() {
        let expected = [5, 9, 1, 7, 3, 8];
        let order = heaviest_first(&expected);
        assert_eq!(order, vec![1, 5, 3, 0, 4, 2]);
        let mut pool = Pool::new(2);
        pool.fill(0..6usize, &order);
        let took: Vec<usize> = [1, 0, 0, 1, 1, 0].map(|t| pool.take(t).unwrap().0).into();
        assert_eq!(took, order.iter().map(|&i| i as usize).collect::<Vec<_>>());
        assert!(pool.take(0).is_none() && pool.take(1).is_none());
        let mut pool = Pool::new(3);
        pool.fill(0..3usize, &heaviest_first(&[1, 9, 5]));
        assert_eq!(pool.take(2).map(|x| x.0), Some(2), "its own");
        assert!(pool.take(2).is_none(), "not another's");
        assert_eq!(
            (pool.take(0).map(|x| x.0), pool.take(1).map(|x| x.0)),
            (Some(0), Some(1))
        );
    }

    /// With as many partitions as threads a window lasts as long as its
    /// busiest partition; with more, between the list-scheduling bounds:
    /// at least the events over the threads and the largest partition, at
    /// most their sum.
    #[test]
    fn a_window_lasts_about_its_events_over_the_threads() {
        let ev = [8, 1, 1, 1, 1, 1, 1, 1];
        assert_eq!(claim_makespan(&ev, &heaviest_first(&ev), 8), 8);
        // Expected right: thread 0 takes the heavy one, thread 1 the rest.
        assert_eq!(claim_makespan(&ev, &heaviest_first(&ev), 2), 8);
        // Expected wrong (all alike, index order): the heavy one is still
        // taken first.
        assert_eq!(claim_makespan(&ev, &heaviest_first(&[0; 8]), 2), 8);
        // Expected wrong the other way: the heavy one comes last.
        let late = [1, 1, 1, 1, 1, 1, 1, 8];
        // Thread 1 takes it at 3, after three light ones.
        assert_eq!(claim_makespan(&late, &heaviest_first(&[0; 8]), 2), 3 + 8);
        let mut x = 12345u64;
        for case in 0..200 {
            let parts = 1 + case % 40;
            let threads = 1 + case % 9;
            let ev: Vec<u64> = (0..parts)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 40) % 1000
                })
                .collect();
            let t = threads.min(parts) as u64;
            let total: u64 = ev.iter().sum();
            let max = *ev.iter().max().unwrap();
            let m = claim_makespan(&ev, &heaviest_first(&ev), threads);
            assert!(m >= max && m >= total.div_ceil(t), "case {case}: {m}");
            assert!(
                m <= total / t + max,
                "case {case}: {m} > {total}/{t} + {max}"
            );
        }
    }
}
