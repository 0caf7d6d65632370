//! Deterministic discrete-event core.
//!
//! Events are ordered by `(time, lead, event)`:
//! - `lead` is how long before its time the event was scheduled; a longer lead
//!   goes first. At equal times, what was scheduled earlier in simulated time runs
//!   first: the FIFO rule of a sequential simulator such as ns-3 (the exact ns-3
//!   calibration vectors depend on it).
//! - Events due at the same time with the same lead run in the order of the event
//!   values themselves. An event names what it acts on (an egress port, a link, a
//!   flow, a switch), so two entries with equal keys are the same event and their
//!   order cannot matter.
//!
//! Every part of the key is a property of the event, not of when it reached the
//! queue, so the order does not depend on how nodes are grouped onto threads or
//! ranks (the property nexosim gets from `(time, origin, per-origin sequence)`;
//! this key gives it in 16 bytes instead of 24, which measured 12 % faster on the
//! 320-host fat-tree, docs/architecture.md). Nothing here reads a wall clock.
//! Scheduling into the past is a bug and panics.

mod calendar;
mod prefetch;

pub use prefetch::prefetch;

use crate::units::SimTime;
use calendar::Calendar;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The lead of an event scheduled at `now` for `at`: picoseconds between the
/// two, saturating at `u32::MAX` (4.3 ms; events scheduled that long ahead tie
/// on lead).
#[inline]
pub fn lead(now: SimTime, at: SimTime) -> u32 {
    at.0.saturating_sub(now.0).min(u32::MAX as u64) as u32
}

/// The position of an event in the run's order: `(time in ps, tie)`, where the
/// tie is `(u32::MAX - lead) << 32 | event bits`. Smaller is earlier. The same
/// event has the same key however the nodes are split over threads or ranks, so
/// keys order what the nodes record ([`crate::output::journal`]) and bound the
/// windows of a parallel run.
pub type Key = (u64, u64);

/// An event the queue can hold: 32 bits that order it among events of equal time
/// and lead, and that give it back.
pub trait Bits: Copy {
    fn to_bits(self) -> u32;
    fn from_bits(bits: u32) -> Self;
}

impl Bits for u32 {
    #[inline]
    fn to_bits(self) -> u32 {
        self
    }
    #[inline]
    fn from_bits(bits: u32) -> Self {
        bits
    }
}

/// A queued event: 8 bytes of time and 8 of tie-break (inverted lead in the
/// high half, the event's bits in the low half), so that the order is one
/// comparison of `(time, tie)`: 16 bytes (a test checks it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    time: u64,
    /// `(u32::MAX - lead) << 32 | event bits`: smaller is earlier throughout.
    tie: u64,
}

impl Entry {
    #[inline]
    fn new<E: Bits>(time: u64, lead: u32, event: E) -> Entry {
        Entry {
            time,
            tie: ((u32::MAX - lead) as u64) << 32 | event.to_bits() as u64,
        }
    }

    #[inline]
    fn key(&self) -> Key {
        (self.time, self.tie)
    }

    #[inline]
    fn event<E: Bits>(&self) -> E {
        E::from_bits(self.tie as u32)
    }

    /// Strictly earlier in `(time, lead descending, event)` order.
    #[inline]
    fn earlier_than(&self, other: &Self) -> bool {
        self.wide() < other.wide()
    }

    /// `(time, tie)` as one number, in the same order: compared in two
    /// instructions (subtract with borrow) where the tuple takes branches.
    #[inline(always)]
    fn wide(&self) -> u128 {
        wide(self.key())
    }
}

impl Ord for Entry {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.wide().cmp(&other.wide())
    }
}

impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The key of `event` at `at` scheduled `lead` ps ahead: where it stands in
/// the run's order, whenever it is put in the queue (a node that holds an
/// event back and queues it later, [`crate::nic::Nic`]'s deferred ns-3
/// completion look, compares it with the key of the event being handled).
pub fn key_of<E: Bits>(at: SimTime, lead: u32, event: E) -> Key {
    Entry::new(at.0, lead, event).key()
}

/// A key as one number, in key order.
#[inline(always)]
fn wide(k: Key) -> u128 {
    (k.0 as u128) << 64 | k.1 as u128
}

/// Reversed so that `BinaryHeap` (a max-heap) pops the earliest entry.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Rev(Entry);

impl PartialOrd for Rev {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Rev {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.cmp(&self.0)
    }
}

/// A min-priority queue of events keyed by `(time, lead, event)`.
///
/// Two structures share one order: a calendar queue for the packet events that
/// come and go every few nanoseconds, and a heap for timers (retransmission
/// timeouts, controller timers, samplers), of which thousands can be pending at
/// once and most are cancelled lazily. `pop` takes the earlier of the two heads, so
/// the order is exactly that of one priority queue.
pub struct EventQueue<E: Bits> {
    hot: Calendar,
    cold: BinaryHeap<Rev>,
    _event: std::marker::PhantomData<E>,
    now: SimTime,
    popped: u64,
    peak: usize,
}

impl<E: Bits> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Bits> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            hot: Calendar::new(),
            cold: BinaryHeap::new(),
            _event: std::marker::PhantomData,
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
    #[inline(always)]
    fn entry(&self, at: SimTime, lead: u32, event: E) -> Entry {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < now {:?}",
            self.now
        );
        Entry::new(at.0, lead, event)
    }

    /// Schedules a packet-like `event` at `at` (not in the past), scheduled now.
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        self.schedule_lead(at, lead(self.now, at), event);
    }

    /// Schedules a packet-like `event` at `at` that was decided `lead` ps ahead
    /// of it (a packet's arrival, scheduled when the one before it has landed,
    /// keeps the lead it was sent with).
    #[inline(always)]
    pub fn schedule_lead(&mut self, at: SimTime, lead: u32, event: E) {
        let e = self.entry(at, lead, event);
        self.hot.push(e);
        self.peak = self.peak.max(self.hot.len());
    }

    /// Schedules a timer-like `event` (see the type's doc) at `at`, scheduled now.
    #[inline]
    pub fn schedule_cold(&mut self, at: SimTime, event: E) {
        let e = self.entry(at, lead(self.now, at), event);
        self.cold.push(Rev(e));
    }

    /// Schedules a timer-like `event` at `at` with an explicit `lead` (the
    /// dispatcher's own actions, whose place among the nodes' events at the same
    /// time must not depend on when they were decided).
    #[inline]
    pub fn schedule_cold_lead(&mut self, at: SimTime, lead: u32, event: E) {
        let e = self.entry(at, lead, event);
        self.cold.push(Rev(e));
    }

    /// Removes the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_before((u64::MAX, u64::MAX))
    }

    /// Removes the earliest event if its key is below `bound`, and advances
    /// `now` to its time.
    #[inline]
    pub fn pop_before(&mut self, bound: Key) -> Option<(SimTime, E)> {
        self.pop_keyed(bound).map(|(k, e)| (SimTime(k.0), e))
    }

    /// [`Self::pop_before`], returning the event's key (from registers: reading
    /// it back from `now` and the tie just stored would stall on store
    /// forwarding, measured at 5 % of a run). Always inlined: returned through
    /// memory, the key stalls the same way.
    #[inline(always)]
    pub fn pop_keyed(&mut self, bound: Key) -> Option<(Key, E)> {
        let hot = self.hot.peek();
        let cold = self.cold.peek().map(|r| r.0);
        let (e, from_cold) = match (hot, cold) {
            (None, None) => return None,
            (Some(h), Some(c)) if c.earlier_than(&h) => (c, true),
            (Some(h), _) => (h, false),
            (None, Some(c)) => (c, true),
        };
        if e.wide() >= wide(bound) {
            return None;
        }
        if from_cold {
            self.cold.pop();
        } else {
            self.hot.pop_peeked();
        }
        self.now = SimTime(e.time);
        self.popped += 1;
        Some((e.key(), e.event()))
    }

    /// The `k`-th hot event after the next one (`k = 0`: the next), if the
    /// calendar already holds it in order; a hint for prefetching, which may
    /// miss events that are still in later buckets or among the timers.
    #[inline]
    pub fn upcoming(&self, k: usize) -> Option<E> {
        self.hot.upcoming(k).map(|e| e.event())
    }

    /// The key of the earliest pending event.
    pub fn head_key(&mut self) -> Option<Key> {
        let h = self.hot.peek().map(|e| e.key());
        let c = self.cold.peek().map(|e| e.0.key());
        h.into_iter().chain(c).min()
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        let h = self.hot.peek().map(|e| e.time);
        let c = self.cold.peek().map(|e| e.0.time);
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
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    impl Bits for char {
        fn to_bits(self) -> u32 {
            self as u32
        }
        fn from_bits(bits: u32) -> Self {
            char::from_u32(bits).expect("a char")
        }
    }

    fn drain<E: Bits>(q: &mut EventQueue<E>) -> Vec<(SimTime, E)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn an_entry_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
    }

    #[test]
    fn events_pop_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        let order: String = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, "abc");
        assert_eq!(q.now(), SimTime(30));
        assert_eq!(q.processed(), 3);
    }

    #[test]
    fn at_equal_times_events_scheduled_earlier_go_first_then_by_event() {
        let mut q = EventQueue::new();
        let t = SimTime(1_000);
        q.schedule(t, 'z'); // lead 1000
        q.schedule_cold(t, 'q'); // lead 1000, cold
        q.schedule_lead(t, 10, 'a'); // scheduled at 990
        q.schedule_lead(t, 500, 'm'); // scheduled at 500
        let order: String = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(order, "qzma");
    }

    #[test]
    fn leads_beyond_four_milliseconds_tie() {
        let t = SimTime(10_000_000_000);
        assert_eq!(lead(SimTime(0), t), u32::MAX);
        assert_eq!(lead(SimTime(5_000_000_000), t), u32::MAX);
        assert_eq!(lead(SimTime(t.0 - 7), t), 7);
    }

    #[test]
    fn the_order_does_not_depend_on_the_order_of_insertion() {
        // The same events (with their leads), inserted in two orders and split
        // differently between hot and cold, pop identically.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let events: Vec<(u64, u32, u32)> = (0..20_000)
            .map(|i| {
                let at = rng.random_range(0..4u64) * 4096 + rng.random_range(0..3u64);
                (at, rng.random_range(0..4u32), i)
            })
            .collect();
        let run = |order: &[(u64, u32, u32)], cold_every: u32| {
            let mut q = EventQueue::new();
            for &(at, lead, ev) in order {
                if ev % cold_every == 0 {
                    let e = q.entry(SimTime(at), lead, ev);
                    q.cold.push(Rev(e));
                } else {
                    q.schedule_lead(SimTime(at), lead, ev);
                }
            }
            drain(&mut q)
        };
        let mut shuffled = events.clone();
        shuffled.reverse();
        assert_eq!(run(&events, 3), run(&shuffled, 5));
    }

    #[test]
    fn matches_a_sorted_reference_on_random_interleavings() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u32, u32)> = Vec::new();
        let mut out = Vec::new();
        let mut next = 0u32;
        for _ in 0..200_000 {
            if rng.random_bool(0.55) || q.is_empty() {
                let now = q.now().0;
                let at = match rng.random_range(0..4) {
                    0 => now,
                    1 => now + rng.random_range(0..50_000u64),
                    2 => now + rng.random_range(0..100_000_000u64),
                    _ => now + rng.random_range(0..5u64) * 4096,
                };
                let l = lead(SimTime(now), SimTime(at));
                if rng.random_bool(0.3) {
                    q.schedule_cold(SimTime(at), next);
                } else {
                    q.schedule(SimTime(at), next);
                }
                reference.push((at, u32::MAX - l, next));
                next += 1;
            } else {
                out.push(q.pop().unwrap());
            }
        }
        out.extend(drain(&mut q));
        // Popped events are scheduled at or after the time of the pop before,
        // so the pop order is the sorted order of the keys.
        reference.sort();
        let got: Vec<u32> = out.iter().map(|&(_, e)| e).collect();
        let want: Vec<u32> = reference.iter().map(|&(_, _, e)| e).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn upcoming_names_the_hot_events_that_pop_next() {
        let mut q = EventQueue::new();
        // Within one calendar slot (512 ps), scheduled out of order.
        for (t, e) in [(300, 'c'), (100, 'a'), (400, 'd'), (200, 'b')] {
            q.schedule(SimTime(t), e);
        }
        assert_eq!(q.pop(), Some((SimTime(100), 'a')));
        assert_eq!(q.upcoming(0), Some('b'));
        assert_eq!(q.upcoming(1), Some('c'));
        assert_eq!(q.upcoming(2), Some('d'));
        assert_eq!(q.upcoming(3), None);
        let rest: String = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        assert_eq!(rest, "bcd");
    }

    /// Slots crowded past what the wheel holds per slot (the rest wait in the
    /// overflow heap) and entries beyond its horizon still pop in order, the
    /// wheel's and the heap's entries of one slot merged.
    #[test]
    fn crowded_slots_and_far_entries_pop_in_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        for i in 0..5_000u32 {
            // 40 slots of 512 ps, about 100 entries each; every tenth entry
            // 3 to 6 us ahead, past the wheel's 2.1 us.
            let at = if i % 10 == 0 {
                rng.random_range(3_000_000..6_000_000u64)
            } else {
                rng.random_range(0..40u64) * 512 + rng.random_range(0..4u64)
            };
            let lead = rng.random_range(0..3u32);
            q.schedule_lead(SimTime(at), lead, i);
            reference.push((at, u32::MAX - lead, i));
        }
        reference.sort_unstable();
        let got: Vec<u32> = drain(&mut q).into_iter().map(|(_, e)| e).collect();
        let want: Vec<u32> = reference.iter().map(|&(_, _, e)| e).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn lone_entries_pop_in_order_across_the_wheel_end_and_the_overflow() {
        // An incast's wheel: eight entries pending, each pop scheduling one
        // 1 to 300 slots ahead, so entries lie about twenty slots apart and
        // nearly every pop is a slot change to a lone entry (the slot
        // change's inlined case). Every twentieth goes 2.2 to 3 us ahead,
        // past the wheel's horizon into the overflow heap, whose entries must
        // come out before a lone wheel entry of a later slot. Over 2,000 pops
        // the times go round the wheel's 4,096 slots several times.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        let mut popped = Vec::new();
        let mut next = 0u32;
        let mut schedule = |q: &mut EventQueue<u32>, rng: &mut ChaCha8Rng, now: SimTime| {
            next += 1;
            let ahead = if next.is_multiple_of(20) {
                rng.random_range(2_200_000..3_000_000u64)
            } else {
                rng.random_range(1..300u64) * 512 + rng.random_range(0..512u64)
            };
            let at = SimTime(now.0 + ahead);
            reference.push((at.0, u32::MAX - lead(now, at), next));
            q.schedule(at, next);
        };
        for _ in 0..8 {
            schedule(&mut q, &mut rng, SimTime::ZERO);
        }
        while popped.len() < 2_000 {
            let (now, e) = q.pop().expect("eight pending");
            popped.push(e);
            schedule(&mut q, &mut rng, now);
        }
        popped.extend(drain(&mut q).into_iter().map(|(_, e)| e));
        assert!(q.now().0 > 3 * 4096 * 512, "went round the wheel");
        reference.sort_unstable();
        let want: Vec<u32> = reference.iter().map(|&(_, _, e)| e).collect();
        assert_eq!(popped, want);
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_a_bug() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), 1u32);
        q.pop();
        q.schedule(SimTime(5), 2u32);
    }
}
