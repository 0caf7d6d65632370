//! A calendar queue (a timing wheel with sorted buckets) for the hot events.
//!
//! Packet events are scheduled a few nanoseconds to a few microseconds ahead. The
//! wheel has `N` buckets of `2^SHIFT` ps each; an event goes to the bucket of its
//! time slot if that slot is within the wheel's horizon, else to an overflow heap
//! that is drained into the wheel as time advances. The bucket being drained is
//! sorted once by `(time, lead, event)`; events scheduled into it (or earlier) are
//! inserted in order. Push and pop are O(1) on average instead of a heap's O(log n).

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

#[inline]
fn slot(time: u64) -> u64 {
    time >> SHIFT
}

pub(super) struct Calendar {
    buckets: Vec<Vec<Entry>>,
    occupied: [u64; WORDS],
    /// Entries of `cur_slot` and anything scheduled at or before it, earliest
    /// first; `cur_pos` is the next to pop.
    current: Vec<Entry>,
    cur_pos: usize,
    cur_slot: u64,
    overflow: BinaryHeap<Rev>,
    len: usize,
}

impl Calendar {
    pub(super) fn new() -> Self {
        Calendar {
            buckets: (0..N).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            current: Vec::with_capacity(64),
            cur_pos: 0,
            cur_slot: 0,
            overflow: BinaryHeap::new(),
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry) {
        self.len += 1;
        let s = slot(e.time);
        if s <= self.cur_slot {
            // Into the bucket being drained: after every pending entry that comes
            // before it (usually all of them, so this is a push).
            let pending = &self.current[self.cur_pos..];
            if pending.last().is_none_or(|x| x.earlier_than(&e)) {
                self.current.push(e);
            } else {
                let at = pending.partition_point(|x| x.earlier_than(&e));
                self.current.insert(self.cur_pos + at, e);
            }
        } else if s < self.cur_slot + N as u64 {
            let b = (s & MASK) as usize;
            self.buckets[b].push(e);
            self.occupied[b / 64] |= 1 << (b % 64);
        } else {
            self.overflow.push(Rev(e));
        }
    }

    /// The earliest entry, if any (it stays queued).
    #[inline]
    pub(super) fn peek(&mut self) -> Option<&Entry> {
        if self.cur_pos == self.current.len() {
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
        self.current.get(self.cur_pos)
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

    /// The first occupied bucket after `cur_slot`, as an absolute slot.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        let start = ((self.cur_slot + 1) & MASK) as usize;
        let (w0, b0) = (start / 64, start % 64);
        // Usually in the same word: packet events are a few slots apart.
        let bits = self.occupied[w0] & (!0u64 << b0);
        if bits != 0 {
            return Some(self.cur_slot + 1 + (bits.trailing_zeros() as usize - b0) as u64);
        }
        for k in 1..=WORDS {
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

    /// Moves to the next slot holding entries and sorts its bucket.
    fn advance(&mut self) {
        self.current.clear();
        self.cur_pos = 0;
        let from_wheel = self.next_occupied();
        let from_overflow = self.overflow.peek().map(|e| slot(e.0.time));
        let next = match (from_wheel, from_overflow) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("advance on a non-empty calendar"),
        };
        self.cur_slot = next;
        // Overflow entries now within the horizon join the wheel.
        while let Some(top) = self.overflow.peek() {
            let s = slot(top.0.time);
            if s >= next + N as u64 {
                break;
            }
            let e = self.overflow.pop().expect("peeked").0;
            let b = (s & MASK) as usize;
            self.buckets[b].push(e);
            self.occupied[b / 64] |= 1 << (b % 64);
        }
        let b = (next & MASK) as usize;
        std::mem::swap(&mut self.current, &mut self.buckets[b]);
        self.occupied[b / 64] &= !(1 << (b % 64));
        if self.current.len() > 1 {
            self.current.sort_unstable();
        }
    }
}
