//! A calendar queue (a timing wheel with sorted buckets) for the hot events.
//!
//! Packet events are scheduled a few nanoseconds to a few microseconds ahead. The
//! wheel has `N` slots of `2^SHIFT` ps each, `k` entries each (more on denser
//! fabrics, [`Calendar::grow`]); an event goes to the slot of its time if that
//! slot is within the wheel's horizon and not full, else to an overflow heap. When time reaches a slot, its entries and the
//! overflow's entries of that slot are sorted once by `(time, lead, event)`;
//! events scheduled into it (or earlier) are inserted in order. Push and pop are
//! O(1) on average instead of a heap's O(log n).

use super::{Entry, Rev};
use std::collections::BinaryHeap;

/// Slot width: 2^9 ps = 512 ps; the wheel spans 4096 slots (2.1 us), more than
/// a link delay plus a frame time on the fabrics we model. Measured on the
/// 320-host fat-tree (`rocesim bench --full`, best of 5, interleaved): 4.6 M
/// packet transmissions/s against 4.3 with 4.096 ns slots (smaller buckets,
/// cheaper sorts) and 4.2-4.3 with 256 ps slots over 8192 (more empty slots).
const SHIFT: u32 = 9;
const N: usize = 4096;
const MASK: u64 = N as u64 - 1;
const WORDS: usize = N / 64;
/// Entries a slot holds in the wheel at first (1 MB in all); more spill to
/// the overflow heap. On the 1 ms fat-tree in the ns3-hpcc profile, whose
/// times fall on whole nanoseconds, a slot reached holds 9.2 entries on
/// average and 6 % of pushes find their slot full; in the default profile,
/// 3.3 and none. 32 entries a slot were no faster there.
const K0: usize = 16;
/// The most a slot grows to (8 MB in all).
const K_MAX: usize = 128;
/// A wheel whose slots fill grows ([`Calendar::grow`]): events come as densely
/// as the fabric has links, and a slot's entries grow with it. On the
/// 6,144-host fat-tree 28 % of pushes found their slot full with 16 entries a
/// slot, 11 % with 32 and 0.35 % with 64. The wheel is checked every
/// `CHECK` pushes and doubled when more than one in `SPILL` of them spilled.
const CHECK: u64 = 1 << 16;
const SPILL: u64 = 64;

#[inline]
fn slot(time: u64) -> u64 {
    time >> SHIFT
}

pub(super) struct Calendar {
    /// Slot `b`'s entries, unordered, at `j * N + b` for `j < lens[b]`: one
    /// flat array, so that a push writes one line found by arithmetic (with a
    /// vector per slot, the vector's header was a second, dependent miss), and
    /// column by column, so that neighbouring slots share lines (a sparse
    /// wheel, as on an incast, touches a quarter of the lines).
    /// Allocated at the first push into it (a queue that only ever holds
    /// entries beyond the horizon, like the dispatcher's, never needs it).
    wheel: Vec<Entry>,
    lens: Box<[u8; N]>,
    occupied: [u64; WORDS],
    /// Entries of `cur_slot` and anything scheduled at or before it, earliest
    /// first; `cur_pos` is the next to pop.
    current: Vec<Entry>,
    cur_pos: usize,
    cur_slot: u64,
    /// Entries beyond the wheel's horizon, and those whose slot was full.
    overflow: BinaryHeap<Rev>,
    len: usize,
    /// Entries a slot holds in the wheel now (`K0` doubling up to `K_MAX`).
    k: usize,
    /// Pushes, and pushes that found their slot full, since the last check.
    pushes: u64,
    spilled: u64,
}

impl Calendar {
    pub(super) fn new() -> Self {
        Calendar {
            wheel: Vec::new(),
            lens: Box::new([0; N]),
            occupied: [0; WORDS],
            current: Vec::with_capacity(64),
            cur_pos: 0,
            cur_slot: 0,
            overflow: BinaryHeap::new(),
            len: 0,
            k: K0,
            pushes: 0,
            spilled: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Queues `e`. The common case, an entry for a later slot within the
    /// horizon whose slot has room, is inlined into the caller; the rest
    /// ([`Self::push_rare`]) is not, so that the callers' code stays small.
    #[inline(always)]
    pub(super) fn push(&mut self, e: Entry) {
        self.len += 1;
        self.pushes += 1;
        let s = slot(e.time);
        let b = (s & MASK) as usize;
        let n = self.lens[b] as usize;
        if s > self.cur_slot && s < self.cur_slot + N as u64 && n < self.k && !self.wheel.is_empty()
        {
            self.wheel[n * N + b] = e;
            self.lens[b] = n as u8 + 1;
            self.occupied[b / 64] |= 1 << (b % 64);
        } else {
            self.push_rare(e, s);
        }
    }

    /// [`Self::push`] into the slot being drained, into a full slot or beyond
    /// the horizon, or the first push into the wheel.
    #[inline(never)]
    fn push_rare(&mut self, e: Entry, s: u64) {
        if self.pushes >= CHECK {
            self.grow();
        }
        if s <= self.cur_slot {
            // Into the slot being drained: after every pending entry that comes
            // before it (usually all of them, so this is a push).
            let pending = &self.current[self.cur_pos..];
            if pending.last().is_none_or(|x| x.earlier_than(&e)) {
                self.current.push(e);
            } else {
                let at = pending.partition_point(|x| x.earlier_than(&e));
                self.current.insert(self.cur_pos + at, e);
            }
            return;
        }
        let b = (s & MASK) as usize;
        let n = self.lens[b] as usize;
        let within = s < self.cur_slot + N as u64;
        if within && n < self.k {
            if self.wheel.is_empty() {
                self.wheel = vec![Entry { time: 0, tie: 0 }; N * self.k];
            }
            self.wheel[n * N + b] = e;
            self.lens[b] = n as u8 + 1;
            self.occupied[b / 64] |= 1 << (b % 64);
        } else {
            self.spilled += u64::from(within);
            self.overflow.push(Rev(e));
        }
    }

    /// Doubles the entries a slot holds if more than one push in `SPILL`
    /// since the last check found its slot full (up to `K_MAX`), and starts
    /// counting again. Slot `b`'s `j`-th entry is at `j * N + b`, so the
    /// entries in place keep their places: the wheel only gets longer. The
    /// order of the events does not depend on it.
    #[cold]
    fn grow(&mut self) {
        if self.spilled > self.pushes / SPILL && self.k < K_MAX && !self.wheel.is_empty() {
            self.k *= 2;
            self.wheel.resize(N * self.k, Entry { time: 0, tie: 0 });
        }
        (self.pushes, self.spilled) = (0, 0);
    }

    /// The earliest entry, if any (it stays queued). Returned by value: at a
    /// slot change it comes in registers from the slot change, where reading
    /// it back from `current` just written put a store-to-load round trip at
    /// the head of the event's chain of dependent loads (docs/performance-log.md,
    /// 2dae261, "the slot change's entry in registers").
    #[inline]
    pub(super) fn peek(&mut self) -> Option<Entry> {
        if self.cur_pos == self.current.len() {
            if self.len == 0 {
                return None;
            }
            return Some(match self.advance_single() {
                Some(e) => e,
                None => self.advance(),
            });
        }
        self.current.get(self.cur_pos).copied()
    }

    /// [`Self::advance`]'s common case on a sparse wheel, inlined into the
    /// event loop: the next occupied slot is near ([`Self::near_occupied`]),
    /// holds one entry, and no overflow entry falls in it or before it. None,
    /// changing nothing, otherwise. On `incast-16to1-hpcc` nearly every event
    /// is a slot change, and 96 % of them are this case.
    #[inline(always)]
    fn advance_single(&mut self) -> Option<Entry> {
        let (s, b) = self.near_occupied()?;
        if self.lens[b] != 1 || self.overflow.peek().is_some_and(|t| slot(t.0.time) <= s) {
            return None;
        }
        self.lens[b] = 0;
        self.occupied[b / 64] &= !(1u64 << (b % 64));
        self.cur_slot = s;
        let e = self.wheel[b];
        self.current.clear();
        self.current.push(e);
        self.cur_pos = 0;
        Some(e)
    }

    /// The `k`-th entry after the next one in the bucket being drained, if any.
    #[inline]
    pub(super) fn upcoming(&self, k: usize) -> Option<&Entry> {
        self.current.get(self.cur_pos + k)
    }

    /// Removes the entry [`Self::peek`] just returned (there must be one).
    #[inline]
    pub(super) fn pop_peeked(&mut self) -> Entry {
        let e = self.current[self.cur_pos];
        self.cur_pos += 1;
        self.len -= 1;
        e
    }

    /// The first occupied bucket after `cur_slot` within the rest of its
    /// bitmap word or the next word (usually: packet events are a few slots
    /// apart), as an absolute slot and its wheel index. Small enough to be
    /// inlined into the event loop ([`Self::advance_single`]).
    #[inline(always)]
    fn near_occupied(&self) -> Option<(u64, usize)> {
        let start = self.cur_slot + 1;
        let b0 = (start & MASK) as usize;
        let mut w = b0 / 64;
        let mut bits = self.occupied[w] & (!0u64 << (b0 % 64));
        if bits == 0 {
            w = (w + 1) % WORDS;
            bits = self.occupied[w];
            if bits == 0 {
                return None;
            }
        }
        let b = w * 64 + bits.trailing_zeros() as usize;
        Some((start + (b.wrapping_sub(b0) & MASK as usize) as u64, b))
    }

    /// The first occupied bucket after `cur_slot`, as an absolute slot.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        if let Some((s, _)) = self.near_occupied() {
            return Some(s);
        }
        let start = ((self.cur_slot + 1) & MASK) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // Words w0 and w0 + 1 are empty past `start` (`near_occupied`); the
        // last round is w0 again, below `start`.
        for k in 2..=WORDS {
            let w = (w0 + k) % WORDS;
            let mut bits = self.occupied[w];
            if k == WORDS {
                bits &= (1u64 << b0).wrapping_sub(1);
            }
            if bits != 0 {
                let idx = (w * 64 + bits.trailing_zeros() as usize) as u64;
                let dist = (idx.wrapping_sub(self.cur_slot)) & MASK;
                return Some(self.cur_slot + dist);
            }
        }
        None
    }

    /// Moves to the next slot holding entries: its wheel entries and the
    /// overflow's entries of that slot, sorted. Returns the earliest (see
    /// [`Self::peek`]).
    fn advance(&mut self) -> Entry {
        self.current.clear();
        self.cur_pos = 0;
        let from_wheel = self.next_occupied();
        let from_overflow = self.overflow.peek().map(|e| slot(e.0.time));
        let next = match (from_wheel, from_overflow) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("advance on a non-empty calendar"),
        };
        self.cur_slot = next;
        let b = (next & MASK) as usize;
        let n = std::mem::take(&mut self.lens[b]) as usize;
        let mut first = Entry { time: 0, tie: 0 };
        if n > 0 {
            first = self.wheel[b];
            self.current.extend((0..n).map(|j| self.wheel[j * N + b]));
            self.occupied[b / 64] &= !(1 << (b % 64));
        }
        while self
            .overflow
            .peek()
            .is_some_and(|top| slot(top.0.time) == next)
        {
            let e = self.overflow.pop().expect("peeked").0;
            first = e;
            self.current.push(e);
        }
        if self.current.len() > 1 {
            self.current.sort_unstable();
            return self.current[0];
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, lead};
    use super::*;
    use crate::units::SimTime;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A wheel kept about 40 entries a slot deep (3,000 pending over 75
    /// slots, each pop scheduling one 1 to 150 slots ahead) spills past 16
    /// entries a slot, grows, and pops every entry in order throughout.
    #[test]
    fn a_crowded_wheel_grows_and_keeps_the_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut c = Calendar::new();
        let mut reference = Vec::new();
        let mut popped = Vec::new();
        let mut next = 0u32;
        let mut push = |c: &mut Calendar, rng: &mut ChaCha8Rng, now: u64| {
            next += 1;
            let at = now + rng.random_range(1..150u64) * 512 + rng.random_range(0..512u64);
            let e = Entry::new(at, lead(SimTime(now), SimTime(at)), next);
            reference.push(e);
            c.push(e);
        };
        for _ in 0..3_000 {
            push(&mut c, &mut rng, 0);
        }
        while popped.len() < 200_000 {
            let e = c.peek().expect("3,000 pending");
            popped.push(c.pop_peeked());
            assert_eq!(popped.last(), Some(&e));
            push(&mut c, &mut rng, e.time);
        }
        while c.peek().is_some() {
            popped.push(c.pop_peeked());
        }
        assert!(c.k > K0, "the wheel grew: {} entries a slot", c.k);
        reference.sort_unstable();
        assert_eq!(popped, reference);
    }
}
