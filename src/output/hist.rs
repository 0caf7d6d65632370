//! Fixed log-spaced histograms: queue length per port (time-weighted, exact) and
//! one-way packet delay (counted).
//!
//! Bins: values 0..16 each have their own bin; above, every power of two is cut
//! into 8 equal bins (HDR-histogram style, relative width ≤ 1/8), up to 2^42
//! (4.4 TB of queue, 4.4 s of delay in ps); larger values fall in the last bin.
//! The layout is fixed, so updates are a shift and an add, never an allocation
//! (a port's bins are allocated the first time its queue is non-empty).
//!
//! Queue histograms are exact and time-weighted: at every change of a port's
//! queue (enqueue, dequeue, PFC frame queued) the time since the previous change
//! is added to the bin of the length that held during it. Time at length 0 is not
//! accumulated: it is the window minus everything else, so idle ports cost nothing.

use crate::ids::EgressId;
use crate::port::QueueClock;
use crate::units::SimTime;

/// Number of bins.
pub const BINS: usize = 16 + 38 * 8;

/// The bin holding `v`.
#[inline]
pub fn bin_of(v: u64) -> usize {
    if v < 16 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as usize; // >= 4
    let m = ((v >> (e - 3)) & 7) as usize;
    (16 + (e - 4) * 8 + m).min(BINS - 1)
}

/// The smallest value in bin `b` (`b` may be `BINS`: the end of the last bin).
pub fn bin_lo(b: usize) -> u64 {
    if b < 16 {
        return b as u64;
    }
    let k = b - 16;
    let (e, m) = (k / 8 + 4, (k % 8) as u64);
    (8 + m) << (e - 3)
}

/// One bin as `[lo, hi)`.
pub fn bin_range(b: usize) -> (u64, u64) {
    (bin_lo(b), bin_lo(b + 1))
}

/// Time spent at one length, not yet added to its port's bins.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Pending {
    gid: u32,
    bin: u32,
    ps: u64,
}

/// How many changes [`QueueHists::change`] keeps before adding them to the bins.
const PENDING: usize = 1024;

/// Time-weighted queue-length histograms, indexed by egress id.
///
/// A port's bins take 2.5 KB; a thousand ports' worth is more than the L2
/// cache. So that an enqueue or a dequeue touches no line the packet does not
/// need anyway, the time of a port's last change, and the time it has spent
/// at lengths of one bin in a row, are kept on its transmitter ([`QueueClock`]);
/// when the length moves to another bin, that time is appended to a short
/// list, added to the bins a thousand at a time. These are sums of integers:
/// the bins are the same as if every change were added at once.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct QueueHists {
    /// Per egress: 1 + its number in `bins`, 0 while it has none (4 bytes an
    /// egress, and one when serialized: a shard of a fabric whose ports
    /// mostly stay empty is small).
    slot: Vec<u32>,
    /// Picoseconds spent at each length bin (bin 0 unused) of each port
    /// that has had a queue, in the order they first did.
    bins: Vec<Box<[u64]>>,
    /// Start of the window (the first flow's start).
    start: SimTime,
    /// Changes not yet added to `bins`, oldest first.
    pending: Vec<Pending>,
}

impl QueueHists {
    pub fn new(n_egress: usize, start: SimTime) -> QueueHists {
        QueueHists {
            slot: vec![0; n_egress],
            bins: Vec::new(),
            start,
            pending: Vec::with_capacity(PENDING),
        }
    }

    /// Egress `gid`'s bins, if it has any.
    fn of(&self, gid: EgressId) -> Option<&[u64]> {
        match self.slot[gid.idx()] {
            0 => None,
            k => Some(&self.bins[k as usize - 1]),
        }
    }

    /// Takes egress `gid`'s histogram from `other` (the shard of the partition
    /// that owns the port, docs/parallel.md).
    pub fn adopt(&mut self, gid: EgressId, other: &mut QueueHists) {
        self.flush();
        other.flush();
        let theirs = match std::mem::take(&mut other.slot[gid.idx()]) {
            0 => return,
            k => std::mem::take(&mut other.bins[k as usize - 1]),
        };
        match self.slot[gid.idx()] {
            0 => {
                self.bins.push(theirs);
                self.slot[gid.idx()] = self.bins.len() as u32;
            }
            k => self.bins[k as usize - 1] = theirs,
        }
    }

    /// The queue of egress `gid` (histogram clock `clock`) is about to change
    /// from `old` bytes at `now`.
    #[inline]
    pub fn change(&mut self, gid: EgressId, clock: &mut QueueClock, now: SimTime, old: u64) {
        let since = std::mem::replace(&mut clock.since, now);
        if old == 0 {
            return;
        }
        let (bin, ps) = (bin_of(old) as u32, now.ps().saturating_sub(since.ps()));
        if bin == clock.bin {
            clock.ps += ps;
        } else {
            self.settle(gid, clock);
            (clock.bin, clock.ps) = (bin, ps);
        }
    }

    /// Takes the time `clock` holds (a change to another bin, the end of the run).
    #[inline]
    pub fn settle(&mut self, gid: EgressId, clock: &mut QueueClock) {
        if clock.ps > 0 {
            self.push(gid, clock.bin, clock.ps);
            clock.ps = 0;
        }
    }

    /// Adds the time from `since` to `now` at `old` bytes to egress `gid`
    /// directly (the close of the run).
    pub fn add(&mut self, gid: EgressId, since: SimTime, now: SimTime, old: u64) {
        if old > 0 {
            self.push(gid, bin_of(old) as u32, now.ps().saturating_sub(since.ps()));
        }
    }

    #[inline]
    fn push(&mut self, gid: EgressId, bin: u32, ps: u64) {
        self.pending.push(Pending {
            gid: gid.0,
            bin,
            ps,
        });
        if self.pending.len() >= PENDING {
            self.flush();
        }
    }

    /// Adds the pending changes to their ports' bins.
    pub fn flush(&mut self) {
        for c in self.pending.drain(..) {
            let k = &mut self.slot[c.gid as usize];
            if *k == 0 {
                self.bins.push(alloc_bins());
                *k = self.bins.len() as u32;
            }
            self.bins[*k as usize - 1][c.bin as usize] += c.ps;
        }
    }

    /// Non-empty bins of egress `gid` over `[start, end]` as `(lo, hi, ps)`, the
    /// empty-queue bin first. The caller must have reported the state at `end`
    /// (a `change` at `end`).
    pub fn rows(&self, gid: EgressId, end: SimTime) -> Vec<(u64, u64, u64)> {
        let window = end.ps().saturating_sub(self.start.ps());
        let mut ps = vec![0u64; BINS];
        for (a, b) in ps.iter_mut().zip(self.of(gid).unwrap_or_default()) {
            *a += b;
        }
        for c in self.pending.iter().filter(|c| c.gid == gid.0) {
            ps[c.bin as usize] += c.ps;
        }
        let busy: u64 = ps.iter().sum();
        let mut rows = Vec::new();
        if window > busy {
            rows.push((0, 1, window - busy));
        }
        for (b, &t) in ps.iter().enumerate() {
            if t > 0 {
                let (lo, hi) = bin_range(b);
                rows.push((lo, hi, t));
            }
        }
        rows
    }
}

#[cold]
fn alloc_bins() -> Box<[u64]> {
    vec![0; BINS].into_boxed_slice()
}

/// Counts of values (one-way delays in ps) in the fixed bins.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CountHist {
    counts: Box<[u64]>,
}

impl Default for CountHist {
    fn default() -> Self {
        CountHist {
            counts: alloc_bins(),
        }
    }
}

impl CountHist {
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.counts[bin_of(v)] += 1;
    }

    /// Adds `other`'s counts (another partition's shard).
    pub fn merge(&mut self, other: &CountHist) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Non-empty bins as `(lo, hi, count)`.
    pub fn rows(&self) -> Vec<(u64, u64, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(b, &c)| {
                let (lo, hi) = bin_range(b);
                (lo, hi, c)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_tile_the_integers_without_gaps_and_hold_their_values() {
        for b in 0..BINS - 1 {
            let (lo, hi) = bin_range(b);
            assert!(lo < hi, "bin {b}");
            assert_eq!(bin_of(lo), b);
            assert_eq!(bin_of(hi - 1), b);
            assert_eq!(bin_lo(b + 1), hi);
        }
        assert_eq!(bin_of(u64::MAX), BINS - 1);
        assert_eq!(bin_range(16), (16, 18));
        // Relative width at most 1/8 above 16.
        for b in 16..BINS {
            let (lo, hi) = bin_range(b);
            assert!((hi - lo) * 8 <= lo, "bin {b}: [{lo}, {hi})");
        }
    }

    #[test]
    fn queue_histogram_mass_is_the_window_and_lengths_land_in_their_bins() {
        let ps = |us: u64| SimTime(us * 1_000_000);
        let mut h = QueueHists::new(2, ps(10));
        let mut clock = QueueClock::default();
        h.change(EgressId(1), &mut clock, ps(12), 0); // empty 10..12
        h.change(EgressId(1), &mut clock, ps(15), 1000); // 1000 B for 3 us
        h.change(EgressId(1), &mut clock, ps(16), 3000); // 3000 B for 1 us
        h.change(EgressId(1), &mut clock, ps(20), 0); // empty 16..20
        h.settle(EgressId(1), &mut clock);
        let rows = h.rows(EgressId(1), ps(20));
        assert_eq!(rows.iter().map(|r| r.2).sum::<u64>(), ps(10).ps());
        assert_eq!(rows[0], (0, 1, ps(6).ps()));
        let at = |v: u64| rows.iter().find(|r| r.0 <= v && v < r.1).unwrap().2;
        assert_eq!(at(1000), ps(3).ps());
        assert_eq!(at(3000), ps(1).ps());
        // A port that never queued: all of the window at zero.
        assert_eq!(h.rows(EgressId(0), ps(20)), vec![(0, 1, ps(10).ps())]);
    }

    #[test]
    fn pending_changes_reach_the_bins_whenever_they_are_added() {
        // Three ports, many more changes than the pending list holds: the rows
        // are the direct sums, before and after a flush and across `adopt`.
        let (n, start) = (3usize, SimTime(0));
        let mut h = QueueHists::new(n, start);
        let mut want = vec![vec![0u64; BINS]; n];
        let mut clocks = vec![QueueClock::default(); n];
        let mut since = vec![start; n];
        let mut now = start;
        for i in 0..20 * PENDING as u64 + 17 {
            let g = (i * 7 % n as u64) as usize;
            now = SimTime(now.ps() + 1 + i % 13);
            // Runs of lengths in one bin, jumps between bins, empty queues.
            let old = match i % 10 {
                0 => 0,
                1..=5 => 50_000 + i % 1000,
                _ => (i * 977) % 200_000,
            };
            h.change(EgressId(g as u32), &mut clocks[g], now, old);
            if old > 0 {
                want[g][bin_of(old)] += now.ps() - since[g].ps();
            }
            since[g] = now;
        }
        for (g, clock) in clocks.iter_mut().enumerate() {
            h.settle(EgressId(g as u32), clock);
        }
        let rows_of = |w: &[u64]| -> Vec<(u64, u64, u64)> {
            let busy: u64 = w.iter().sum();
            let mut rows = Vec::new();
            if now.ps() > busy {
                rows.push((0, 1, now.ps() - busy));
            }
            for (b, &t) in w.iter().enumerate().filter(|(_, t)| **t > 0) {
                let (lo, hi) = bin_range(b);
                rows.push((lo, hi, t));
            }
            rows
        };
        assert!(!h.pending.is_empty(), "some changes still pending");
        for (g, w) in want.iter().enumerate() {
            assert_eq!(h.rows(EgressId(g as u32), now), rows_of(w));
        }
        let mut whole = QueueHists::new(n, start);
        whole.adopt(EgressId(1), &mut h);
        assert!(h.pending.is_empty());
        assert_eq!(whole.rows(EgressId(1), now), rows_of(&want[1]));
        assert_eq!(h.rows(EgressId(2), now), rows_of(&want[2]));
    }
}
