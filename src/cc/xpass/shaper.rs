//! The credit queue of an egress port (ExpressPass (SIGCOMM'17) §3.1; ns-2
//! `queue/xpass-drop-tail.cc:50-111`, comparators.md §3 (b) 10): credits wait
//! in their own FIFO, tail-dropped at `limit` bytes, and leave through a token
//! bucket filled at `credit_share` of the port's rate, at most `depth` bytes
//! deep. A port with a credit ready sends it before any data (the ns-2 code's
//! order); the data classes and PFC never hold a credit back.
//!
//! The bucket is kept as a virtual time, so that it needs no timer and no
//! fractional tokens: `empty_at` is when the bucket would have been empty had
//! nothing refilled it since, so it holds `min(depth, (now - empty_at) x rate)`
//! bytes. A credit of `c` bytes may go at `empty_at + c/rate` (rounded up to
//! the picosecond, so the credit rate never exceeds the configured one).

use crate::packet::{PacketId, PacketPool, PktQueue};
use crate::units::{Delta, Rate, SimTime};

/// How every credit queue of a run is sized (`[cc.expresspass]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreditPlan {
    /// Fraction of a port's rate credits may use.
    pub share: f64,
    /// Credit queue capacity, bytes (tail drop beyond).
    pub queue_bytes: u32,
    /// Token bucket depth, bytes.
    pub bucket_bytes: u32,
    /// Wire bytes of one credit.
    pub credit_wire: u32,
}

#[derive(Clone, Debug)]
pub struct CreditShaper {
    queue: PktQueue,
    /// Bytes (credits) waiting.
    queued: u32,
    limit: u32,
    credit_wire: u32,
    /// Time one credit's tokens take to accumulate.
    gap: Delta,
    /// Time a full bucket takes to fill.
    depth: Delta,
    empty_at: SimTime,
    /// Credits sent and dropped here.
    pub sent: u64,
    pub dropped: u64,
}

impl CreditShaper {
    /// The credit queue of a port of `rate`. The bucket fills from time zero.
    pub fn new(plan: &CreditPlan, rate: Rate) -> CreditShaper {
        let token_rate = Rate::from_bps_f64((rate.bps_f64() * plan.share).floor().max(1.0));
        let depth = token_rate.tx_time(plan.bucket_bytes as u64);
        CreditShaper {
            queue: PktQueue::default(),
            queued: 0,
            limit: plan.queue_bytes,
            credit_wire: plan.credit_wire,
            gap: token_rate.tx_time(plan.credit_wire as u64),
            depth,
            empty_at: SimTime::ZERO,
            sent: 0,
            dropped: 0,
        }
    }

    /// Whether no credit waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Queues credit `id`; `false` (the caller frees it) when the queue is full.
    pub fn push(&mut self, pool: &mut PacketPool, id: PacketId) -> bool {
        if self.queued + self.credit_wire > self.limit {
            self.dropped += 1;
            return false;
        }
        self.queued += self.credit_wire;
        self.queue.push(pool, id);
        true
    }

    /// The bucket's virtual empty time at `now`: never more than a full
    /// bucket's worth in the past.
    #[inline]
    fn empty_at(&self, now: SimTime) -> SimTime {
        let full_since = SimTime(now.ps().saturating_sub(self.depth.ps()));
        self.empty_at.max(full_since)
    }

    /// When the head credit may leave (`None`: no credit waits).
    #[inline]
    pub fn ready_at(&self, now: SimTime) -> Option<SimTime> {
        (!self.is_empty()).then(|| (self.empty_at(now) + self.gap).max(now))
    }

    /// The head credit, if its tokens are there at `now`; they are spent.
    pub fn pop_ready(&mut self, pool: &mut PacketPool, now: SimTime) -> Option<PacketId> {
        if self.ready_at(now)? > now {
            return None;
        }
        self.empty_at = self.empty_at(now) + self.gap;
        self.queued -= self.credit_wire;
        self.sent += 1;
        self.queue.pop(pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketKind};

    fn plan() -> CreditPlan {
        CreditPlan {
            share: 64.0 / (64.0 + 1062.0),
            queue_bytes: 8 * 64,
            bucket_bytes: 2 * 64,
            credit_wire: 64,
        }
    }

    #[test]
    fn a_full_queue_drops_the_credit_that_does_not_fit() {
        let mut pool = PacketPool::new();
        let mut s = CreditShaper::new(&plan(), Rate::from_gbps(100));
        let ok = (0..10)
            .filter(|_| {
                let id = pool.alloc(Packet::new(PacketKind::Credit));
                s.push(&mut pool, id)
            })
            .count();
        assert_eq!((ok, s.dropped), (8, 2));
    }

    /// Credits offered far faster than the share leave no faster than it: in
    /// every interval, at most the interval's tokens plus one bucket.
    #[test]
    fn the_credit_rate_never_exceeds_the_share_of_the_link() {
        let mut pool = PacketPool::new();
        let rate = Rate::from_gbps(100);
        let mut s = CreditShaper::new(&plan(), rate);
        let mut departures = Vec::new();
        // Offer a credit every 3 ns (well above the share) for 200 us; poll
        // every 1 ns.
        for t_ns in 0..200_000u64 {
            let now = SimTime(t_ns * 1000);
            if t_ns % 3 == 0 {
                let id = pool.alloc(Packet::new(PacketKind::Credit));
                if !s.push(&mut pool, id) {
                    pool.free(id);
                }
            }
            while let Some(id) = s.pop_ready(&mut pool, now) {
                departures.push(now);
                pool.free(id);
            }
        }
        let credit_bps = rate.bps_f64() * plan().share;
        for window_us in [1u64, 10, 100] {
            let w = SimTime(window_us * 1_000_000);
            let allowed = credit_bps * (window_us as f64 * 1e-6) / (64.0 * 8.0) + 2.0;
            for (i, &t0) in departures.iter().enumerate() {
                let n = departures[i..]
                    .iter()
                    .take_while(|&&t| t < SimTime(t0.ps() + w.ps()))
                    .count();
                assert!(n as f64 <= allowed, "{n} credits in {window_us} us");
            }
        }
        // And it is used: the long-run rate is the share.
        let got = departures.len() as f64 * 64.0 * 8.0 / 200e-6;
        assert!(
            (got / credit_bps - 1.0).abs() < 0.01,
            "{got} vs {credit_bps}"
        );
    }
}
