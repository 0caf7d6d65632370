//! Deterministic discrete-event core.
//!
//! Events are ordered by `(time, seq)`: `seq` increases with every schedule call,
//! so events at equal times run in the order they were scheduled (FIFO). Nothing
//! here reads a wall clock; the same inputs give the same event order, always.
//! Scheduling into the past is a bug and panics.

mod calendar;

use crate::units::{Delta, SimTime};
use calendar::Calendar;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A heap entry: 8 bytes of time, 4 of sequence and the event (24 bytes with a
/// 12-byte event). The sequence wraps; ties compare it with wrapping arithmetic,
/// which is exact while fewer than 2^31 events are pending.
#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u32,
    event: E,
}

impl<E> Entry<E> {
    /// Strictly earlier in `(time, seq)` order.
    #[inline]
    fn earlier_than(&self, other: &Self) -> bool {
        self.time < other.time
            || (self.time == other.time && (self.seq.wrapping_sub(other.seq) as i32) < 0)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
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
        match other.time.cmp(&self.time) {
            Ordering::Equal => (other.seq.wrapping_sub(self.seq) as i32).cmp(&0),
            o => o,
        }
    }
}

/// A min-priority queue of events keyed by `(time, insertion order)`.
///
/// Two structures share one sequence counter: a calendar queue for the packet
/// events that come and go every few nanoseconds, and a heap for timers
/// (retransmission timeouts, controller timers, samplers), of which thousands can
/// be pending at once and most are cancelled lazily. `pop` takes the earlier of the
/// two heads, so the order is exactly that of one priority queue.
pub struct EventQueue<E: Copy> {
    hot: Calendar<E>,
    cold: BinaryHeap<Entry<E>>,
    next_seq: u32,
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
            next_seq: 0,
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
    fn entry(&mut self, at: SimTime, event: E) -> Entry<E> {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < now {:?}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        Entry {
            time: at.0,
            seq,
            event,
        }
    }

    /// Schedules `event` at absolute time `at`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        let e = self.entry(at, event);
        self.hot.push(e);
        self.peak = self.peak.max(self.hot.len());
    }

    /// Schedules a timer-like `event` (see the type's doc) at `at`.
    #[inline]
    pub fn schedule_cold(&mut self, at: SimTime, event: E) {
        let e = self.entry(at, event);
        self.cold.push(e);
    }

    /// Schedules `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Delta, event: E) {
        let at = self.now + delay;
        self.schedule(at, event);
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
    fn events_pop_in_time_order_and_ties_are_fifo() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        q.schedule(SimTime(10), 'x');
        q.schedule(SimTime(10), 'y');
        let order: String = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "axybc");
        assert_eq!(q.now(), SimTime(30));
        assert_eq!(q.processed(), 5);
    }

    #[test]
    fn ties_stay_fifo_across_sequence_wraparound() {
        let mut q = EventQueue::new();
        q.next_seq = u32::MAX - 1;
        for i in 0..4 {
            q.schedule(SimTime(7), i);
        }
        let order: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn matches_a_sorted_reference_on_random_interleavings() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut seq = 0u64;
        let mut out = Vec::new();
        for _ in 0..200_000 {
            if rng.random_bool(0.55) || q.is_empty() {
                let at = match rng.random_range(0..4) {
                    0 => q.now().0,
                    1 => q.now().0 + rng.random_range(0..50_000u64),
                    2 => q.now().0 + rng.random_range(0..100_000_000u64),
                    _ => q.now().0 + rng.random_range(0..5u64) * 4096,
                };
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
        while let Some(e) = q.pop() {
            out.push(e);
        }
        reference.sort();
        let got: Vec<(u64, u64)> = out.iter().map(|(t, s)| (t.0, *s)).collect();
        assert_eq!(got, reference);
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_a_bug() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), ());
        q.pop();
        q.schedule(SimTime(5), ());
    }
}
