//! Deterministic discrete-event core.
//!
//! Events are ordered by `(time, lead, origin, seq)`: `lead` is how long before its
//! time the event was scheduled (a longer lead goes first: at equal times, events
//! scheduled earlier in simulated time run first, the FIFO rule of a sequential
//! simulator such as ns-3), `origin` is the node that scheduled the event and `seq`
//! its place in that node's own sequence (a [`Key`], handed out by the node's
//! [`Origin`]), as in nexosim. Events due at the same time and scheduled at the
//! same time therefore run by origin, and in the order each origin scheduled them.
//! The order depends only on the keys, not on the order in which different origins'
//! events reached the queue, so it does not change with how nodes are grouped onto
//! threads. Nothing here reads a wall clock; the same inputs give the same event
//! order, always. Scheduling into the past is a bug and panics.
//!
//! [`EventQueue::schedule`] and [`EventQueue::schedule_cold`] are the legacy global
//! order: they key the event as origin 0 with the queue's own counter as `seq`, so on
//! their own they give `(time, insertion order)`, FIFO across the whole queue.

mod calendar;

use crate::units::SimTime;
use calendar::Calendar;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Who scheduled an event, when, and its place in that node's own sequence.
///
/// At equal times keys order by `lead` (longer first), then by `origin`, then by
/// `seq` compared with wrapping arithmetic (`a.seq.wrapping_sub(b.seq) as i32 < 0`
/// means `a` first), which is exact while fewer than 2^31 events of one origin are
/// pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// Picoseconds between scheduling and the event's time, saturating at
    /// `u32::MAX` (4.3 ms): events scheduled that long ahead tie on lead.
    pub lead: u32,
    pub origin: u32,
    pub seq: u32,
}

/// The lead of an event scheduled at `now` for `at` ([`Key::lead`]).
#[inline]
pub fn lead(now: SimTime, at: SimTime) -> u32 {
    at.0.saturating_sub(now.0).min(u32::MAX as u64) as u32
}

/// A node's sequence counter: hands out that node's [`Key`]s in order (`seq` wraps).
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    id: u32,
    next: u32,
}

impl Origin {
    /// The counter of node `id`, starting at sequence 0.
    pub fn new(id: u32) -> Origin {
        Origin { id, next: 0 }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    /// The key of this node's next event, with no lead.
    #[inline]
    pub fn next_key(&mut self) -> Key {
        let key = Key {
            lead: 0,
            origin: self.id,
            seq: self.next,
        };
        self.next = self.next.wrapping_add(1);
        key
    }

    /// The key of this node's next event, scheduled at `now` for `at`.
    #[inline]
    pub fn key_for(&mut self, now: SimTime, at: SimTime) -> Key {
        Key {
            lead: lead(now, at),
            ..self.next_key()
        }
    }
}

/// A queued event: 8 bytes of time, 4 of inverted lead, 4 of origin, 4 of
/// sequence and the event: 24 bytes with the simulator's 4-byte packed event (a
/// test checks it).
#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    /// `u32::MAX - lead` in the high half (so that smaller is earlier
    /// throughout) and the origin in the low half: one compare for both.
    rank_origin: u64,
    seq: u32,
    event: E,
}

impl<E> Entry<E> {
    /// Strictly earlier in `(time, lead descending, origin, wrapping seq)` order.
    #[inline]
    fn earlier_than(&self, other: &Self) -> bool {
        if self.time != other.time {
            return self.time < other.time;
        }
        if self.rank_origin != other.rank_origin {
            return self.rank_origin < other.rank_origin;
        }
        (self.seq.wrapping_sub(other.seq) as i32) < 0
    }

    /// `(time, lead descending, origin, wrapping seq)` order, earliest `Less`
    /// (compares only as far as needed: this is the calendar's sort key).
    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        if self.time != other.time {
            return self.time.cmp(&other.time);
        }
        if self.rank_origin != other.rank_origin {
            return self.rank_origin.cmp(&other.rank_origin);
        }
        (self.seq.wrapping_sub(other.seq) as i32).cmp(&0)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.order(other) == Ordering::Equal
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest entry.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.order(self)
    }
}

/// A min-priority queue of events keyed by `(time, lead, origin, per-origin sequence)`.
///
/// Two structures share one order: a calendar queue for the packet events that
/// come and go every few nanoseconds, and a heap for timers (retransmission
/// timeouts, controller timers, samplers), of which thousands can be pending at
/// once and most are cancelled lazily. `pop` takes the earlier of the two heads, so
/// the order is exactly that of one priority queue.
pub struct EventQueue<E: Copy> {
    hot: Calendar<E>,
    cold: BinaryHeap<Entry<E>>,
    /// Keys of the legacy `schedule`/`schedule_cold`: origin 0, global counter.
    legacy: Origin,
    now: SimTime,
    popped: u64,
    peak: usize,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            hot: Calendar::new(),
            cold: BinaryHeap::new(),
            legacy: Origin::new(0),
            now: SimTime::ZERO,
            popped: 0,
            peak: 0,
        }
    }

    /// The time of the event being processed (or last processed).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// A new entry for `event` at `at`, which must not be in the past.
    #[inline]
    fn entry(&self, at: SimTime, key: Key, event: E) -> Entry<E> {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < now {:?}",
            self.now
        );
        Entry {
            time: at.0,
            rank_origin: ((u32::MAX - key.lead) as u64) << 32 | key.origin as u64,
            seq: key.seq,
            event,
        }
    }

    /// Schedules a packet-like `event` at absolute time `at`, which must not be in
    /// the past, ordered among events at `at` by `key`.
    #[inline]
    pub fn schedule_keyed(&mut self, at: SimTime, key: Key, event: E) {
        let e = self.entry(at, key, event);
        self.hot.push(e);
        self.peak = self.peak.max(self.hot.len());
    }

    /// Schedules a timer-like `event` (see the type's doc) at `at`, which must not
    /// be in the past, ordered among events at `at` by `key`.
    #[inline]
    pub fn schedule_cold_keyed(&mut self, at: SimTime, key: Key, event: E) {
        let e = self.entry(at, key, event);
        self.cold.push(e);
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past, in
    /// the legacy global order: keyed as origin 0 with the queue's own counter, so
    /// ties among legacy events are FIFO across the whole queue. Mixed with keyed
    /// schedules, legacy events order as origin 0 (before every other origin at
    /// equal time; keyed events of origin 0 then interleave by `seq` with them).
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        let key = self.legacy.next_key();
        self.schedule_keyed(at, key, event);
    }

    /// Schedules a timer-like `event` at `at` in the legacy global order (see
    /// [`EventQueue::schedule`]).
    #[inline]
    pub fn schedule_cold(&mut self, at: SimTime, event: E) {
        let key = self.legacy.next_key();
        self.schedule_cold_keyed(at, key, event);
    }

    /// Removes the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let take_cold = match (self.hot.peek(), self.cold.peek()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(h), Some(c)) => c.earlier_than(h),
        };
        let e = if take_cold {
            self.cold.pop()
        } else {
            self.hot.pop()
        }?;
        self.now = SimTime(e.time);
        self.popped += 1;
        Some((self.now, e.event))
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        let h = self.hot.peek().map(|e| e.time);
        let c = self.cold.peek().map(|e| e.time);
        h.into_iter().chain(c).min().map(SimTime)
    }

    pub fn len(&self) -> usize {
        self.hot.len() + self.cold.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }
    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_equal_times_events_scheduled_earlier_go_first_then_by_origin() {
        let mut q = EventQueue::new();
        let (mut a, mut b) = (Origin::new(1), Origin::new(2));
        let t = SimTime(1_000);
        // Origin 2 scheduled its event at time 0, origin 1 at time 500.
        q.schedule_keyed(t, b.key_for(SimTime(0), t), 'b');
        q.schedule_keyed(t, a.key_for(SimTime(500), t), 'a');
        // Both at 500: origin order.
        q.schedule_keyed(t, b.key_for(SimTime(500), t), 'c');
        let order: String = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "bac");
    }

    #[test]
    fn leads_beyond_four_milliseconds_tie() {
        let t = SimTime(10_000_000_000);
        assert_eq!(lead(SimTime(0), t), u32::MAX);
        assert_eq!(lead(SimTime(5_000_000_000), t), u32::MAX);
        assert_eq!(lead(SimTime(t.0 - 7), t), 7);
    }
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeSet;

    fn drain<E: Copy>(q: &mut EventQueue<E>) -> Vec<(SimTime, E)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn an_entry_with_a_four_byte_event_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Entry<u32>>(), 24);
    }

    #[test]
    fn events_pop_in_time_order_and_ties_are_fifo() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        q.schedule(SimTime(10), 'x');
        q.schedule(SimTime(10), 'y');
        let order: String = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, "axybc");
        assert_eq!(q.now(), SimTime(30));
        assert_eq!(q.processed(), 5);
    }

    #[test]
    fn legacy_schedule_keeps_fifo_order_across_hot_and_cold() {
        let mut q = EventQueue::new();
        for i in 0..100u32 {
            let at = SimTime(u64::from(i % 3) * 4096);
            if i % 2 == 0 {
                q.schedule(at, i);
            } else {
                q.schedule_cold(at, i);
            }
        }
        let got: Vec<u32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        let mut want: Vec<u32> = (0..100).collect();
        want.sort_by_key(|&i| i % 3);
        assert_eq!(got, want);
    }

    #[test]
    fn ties_stay_fifo_across_sequence_wraparound() {
        let mut q = EventQueue::new();
        q.legacy.next = u32::MAX - 1;
        for i in 0..4 {
            q.schedule(SimTime(7), i);
        }
        let order: Vec<i32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn ties_are_ordered_by_origin_then_per_origin_sequence() {
        let mut q = EventQueue::new();
        let k = |origin, seq| Key {
            lead: 0,
            origin,
            seq,
        };
        q.schedule_keyed(SimTime(10), k(2, 0), "2.0");
        q.schedule_cold_keyed(SimTime(10), k(1, 5), "1.5");
        q.schedule_keyed(SimTime(10), k(1, 3), "1.3");
        q.schedule_keyed(SimTime(9), k(7, 9), "early");
        q.schedule_cold_keyed(SimTime(10), k(0, 9), "0.9");
        q.schedule_keyed(SimTime(10), k(1, 4), "1.4");
        let order: Vec<&str> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, ["early", "0.9", "1.3", "1.4", "1.5", "2.0"]);
    }

    #[test]
    fn per_origin_fifo_survives_sequence_wraparound() {
        let mut q = EventQueue::new();
        let mut a = Origin {
            id: 3,
            next: u32::MAX - 2,
        };
        let mut b = Origin::new(4);
        for i in 0..6u32 {
            q.schedule_keyed(SimTime(5), b.next_key(), 100 + i);
            if i % 2 == 0 {
                q.schedule_keyed(SimTime(5), a.next_key(), i);
            } else {
                q.schedule_cold_keyed(SimTime(5), a.next_key(), i);
            }
        }
        assert_eq!(a.id(), 3);
        let order: Vec<u32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, [0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105]);
    }

    /// A time at or after `now`, spread like the simulator's events.
    fn random_time(rng: &mut ChaCha8Rng, now: u64) -> u64 {
        match rng.random_range(0..4) {
            0 => now,
            1 => now + rng.random_range(0..50_000u64),
            2 => now + rng.random_range(0..100_000_000u64),
            _ => now + rng.random_range(0..5u64) * 4096,
        }
    }

    #[test]
    fn legacy_schedules_match_a_sorted_reference_on_random_interleavings() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0u64;
        let mut out = Vec::new();
        for _ in 0..200_000 {
            if rng.random_bool(0.55) || q.is_empty() {
                let at = random_time(&mut rng, q.now().0);
                if rng.random_bool(0.3) {
                    q.schedule_cold(SimTime(at), seq);
                } else {
                    q.schedule(SimTime(at), seq);
                }
                reference.push((at, seq));
                seq += 1;
            } else {
                out.push(q.pop().unwrap());
            }
        }
        out.extend(drain(&mut q));
        reference.sort();
        let got: Vec<(u64, u64)> = out.iter().map(|(t, s)| (t.0, *s)).collect();
        assert_eq!(got, reference);
    }

    /// An event of the keyed reference test: its time, origin, and its place in
    /// the origin's sequence without wraparound (the queue sees it wrapped; the
    /// legacy schedules are origin 0).
    type Scheduled = (u64, u32, u64);

    #[test]
    fn keyed_events_match_a_reference_queue_with_random_origins() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut q = EventQueue::new();
        // Origins 1..=8, half starting near the wrap; origin 0 is the legacy counter.
        let mut origins: Vec<(Origin, u64)> = (1..=8)
            .map(|id| {
                let next = if id % 2 == 0 { u32::MAX - 500 } else { 0 };
                (Origin { id, next }, 0)
            })
            .collect();
        let mut legacy_seq = 0u64;
        // The reference queue: a sorted set, whose first entry pops next. (A sort of
        // everything scheduled would not do: an event scheduled at `now` by a small
        // origin comes after the events at `now` that have already run.)
        let mut reference: BTreeSet<Scheduled> = BTreeSet::new();
        let mut past_panics = 0;
        for _ in 0..200_000 {
            if rng.random_bool(0.55) || q.is_empty() {
                let at = random_time(&mut rng, q.now().0);
                let cold = rng.random_bool(0.3);
                let ev = if rng.random_bool(0.1) {
                    let ev = (at, 0, legacy_seq);
                    legacy_seq += 1;
                    if cold {
                        q.schedule_cold(SimTime(at), ev);
                    } else {
                        q.schedule(SimTime(at), ev);
                    }
                    ev
                } else {
                    let (o, n) = &mut origins[rng.random_range(0..8)];
                    let ev = (at, o.id(), *n);
                    *n += 1;
                    let key = o.next_key();
                    if cold {
                        q.schedule_cold_keyed(SimTime(at), key, ev);
                    } else {
                        q.schedule_keyed(SimTime(at), key, ev);
                    }
                    ev
                };
                reference.insert(ev);
            } else {
                assert_eq!(q.pop().map(|(_, e)| e), reference.pop_first());
            }
            if q.now().0 > 0 && rng.random_bool(0.001) {
                let at = SimTime(q.now().0 - rng.random_range(1..=q.now().0.min(1_000_000)));
                let key = origins[0].0.next_key();
                let cold = rng.random_bool(0.5);
                let len = q.len();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if cold {
                        q.schedule_cold_keyed(at, key, (0, 0, 0));
                    } else {
                        q.schedule_keyed(at, key, (0, 0, 0));
                    }
                }));
                assert!(r.is_err(), "scheduling at {at:?} < now did not panic");
                assert_eq!(q.len(), len);
                // The refused key is spent: keep the reference's sequence in step.
                origins[0].1 += 1;
                past_panics += 1;
            }
        }
        let rest: Vec<Scheduled> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
        assert!(past_panics > 50);
    }

    #[test]
    fn keyed_order_does_not_depend_on_how_origins_interleave() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        // Each origin's events, in the order that origin schedules them.
        let per_origin: Vec<Vec<(SimTime, Key)>> = (0..6)
            .map(|id| {
                let mut o = Origin::new([5, 0, 3, 9, 1, 4][id]);
                (0..2_000)
                    .map(|_| {
                        let at = SimTime(rng.random_range(0..20u64) * 2048);
                        (at, o.next_key())
                    })
                    .collect()
            })
            .collect();
        let run = |seed: u64| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut next = vec![0usize; per_origin.len()];
            let mut q = EventQueue::new();
            loop {
                let live: Vec<usize> = (0..per_origin.len())
                    .filter(|&i| next[i] < per_origin[i].len())
                    .collect();
                let Some(&i) = live.get(rng.random_range(0..live.len().max(1))) else {
                    break;
                };
                let (at, key) = per_origin[i][next[i]];
                next[i] += 1;
                if rng.random_bool(0.4) {
                    q.schedule_cold_keyed(at, key, key);
                } else {
                    q.schedule_keyed(at, key, key);
                }
            }
            drain(&mut q)
        };
        let a = run(1);
        let b = run(2);
        assert_eq!(a.len(), 12_000);
        assert_eq!(a, b);
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_a_bug() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), ());
        q.pop();
        q.schedule(SimTime(5), ());
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn keyed_scheduling_in_the_past_is_a_bug_too() {
        let mut q = EventQueue::new();
        let mut o = Origin::new(1);
        q.schedule_cold_keyed(SimTime(10), o.next_key(), ());
        q.pop();
        q.schedule_keyed(SimTime(9), o.next_key(), ());
    }
}
