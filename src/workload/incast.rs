//! N-to-1 incast.
//!
//! - [`incast`]: one event; every sender starts one message of the same size to one
//!   receiver at the same time (HPCC §5.2 Fig. 9c, §5.4), or each at its own
//!   offset within a [`StartSpread`].
//! - [`IncastOverlay`]: repeated events on top of background traffic (HPCC §5.3:
//!   "randomly selecting 60 senders and one receiver, each sending 500KB. The
//!   incast traffic load is 2% of the network capacity"). Each event picks a
//!   receiver uniformly from the pool and `fan_in` distinct senders uniformly from
//!   the rest. Events come every `period` (or as a Poisson process with that mean
//!   gap), where `period = fan_in x size x 8 / (load x capacity)` and capacity is
//!   the sum of the pool's host link rates (payload bytes, like the Poisson
//!   workload). For HPCC §5.3 on the 320 x 100 Gbps fabric: 60 x 500 KB every
//!   375 us.

use super::{Classes, FlowSpec, HostPool, MAX_GENERATED_FLOWS, rng, to_ns_grid};
use crate::topology::NodeId;
use crate::units::{Delta, PS_PER_S, SimTime};
use rand::Rng;

/// One flow of `size` bytes from each sender to `receiver`, all at `start`.
pub fn incast(
    senders: &[NodeId],
    receiver: NodeId,
    size: u64,
    start: SimTime,
    class: u8,
) -> Vec<FlowSpec> {
    senders
        .iter()
        .map(|&src| FlowSpec {
            src,
            dst: receiver,
            size,
            start,
            class,
            dport: 100,
        })
        .collect()
}

/// Per-sender start offsets of a one-shot incast, uniform in `[0, spread)` and
/// drawn from `seed`, one per sender in order. A zero spread draws nothing and
/// gives 0, so an incast without one starts every sender together.
pub struct StartSpread {
    spread_ps: u64,
    rng: rand_chacha::ChaCha8Rng,
}

impl StartSpread {
    pub fn new(spread: Delta, seed: u64) -> StartSpread {
        StartSpread {
            spread_ps: spread.ps(),
            rng: rng(seed, 0),
        }
    }
    /// The next sender's offset.
    pub fn offset(&mut self) -> Delta {
        if self.spread_ps == 0 {
            Delta::ZERO
        } else {
            Delta::from_ps(self.rng.random_range(0..self.spread_ps))
        }
    }
}

/// Repeated incast events with random receivers and senders.
#[derive(Clone, Debug)]
pub struct IncastOverlay {
    pub fan_in: u32,
    /// Bytes per sender per event.
    pub size: u64,
    pub start: SimTime,
    pub duration: Delta,
    /// Gap between events (the mean gap with `poisson`).
    pub period: Delta,
    pub poisson: bool,
    pub classes: Classes,
    pub dport: u16,
}

impl IncastOverlay {
    /// The event period that makes the overlay carry `load` of the pool's capacity.
    pub fn period_for_load(pool: &HostPool, fan_in: u32, size: u64, load: f64) -> Delta {
        let bits = fan_in as f64 * size as f64 * 8.0;
        Delta::from_secs_f64(bits / (load * pool.capacity_bps()))
    }

    /// The events' flows, event by event.
    pub fn generate(&self, pool: &HostPool, seed: u64) -> Result<Vec<FlowSpec>, String> {
        let n = pool.len();
        if self.fan_in == 0 || self.fan_in as usize >= n {
            return Err(format!(
                "fan_in = {} needs {} hosts; the pool has {n} (valid fan_in: 1..{})",
                self.fan_in,
                self.fan_in as u64 + 1,
                n.saturating_sub(1)
            ));
        }
        if self.period.is_zero() {
            return Err("the event period is 0; give a longer interval or a lower load".into());
        }
        let events = self.duration.ps() as f64 / self.period.ps() as f64;
        if events * self.fan_in as f64 > MAX_GENERATED_FLOWS as f64 {
            return Err(format!(
                "would generate about {:.0} flows (limit {MAX_GENERATED_FLOWS}); shorten duration or lower load",
                events * self.fan_in as f64
            ));
        }
        let mut r = rng(seed, 0);
        let end = self.start.ps() + self.duration.ps();
        let mut flows = Vec::new();
        let mut t = self.start.ps() as f64;
        if self.poisson {
            t += exp_gap(&mut r, self.period);
        }
        loop {
            let at = to_ns_grid(t.round() as u64);
            if t >= end as f64 || at.ps() >= end {
                break;
            }
            let recv = r.random_range(0..n);
            let mut senders: Vec<usize> =
                rand::seq::index::sample(&mut r, n - 1, self.fan_in as usize)
                    .into_iter()
                    .map(|j| if j >= recv { j + 1 } else { j })
                    .collect();
            senders.sort_unstable();
            for s in senders {
                flows.push(FlowSpec {
                    src: pool.hosts[s],
                    dst: pool.hosts[recv],
                    size: self.size,
                    start: at,
                    class: self.classes.pick(&mut r),
                    dport: self.dport,
                });
            }
            t += if self.poisson {
                exp_gap(&mut r, self.period)
            } else {
                self.period.ps() as f64
            };
        }
        Ok(flows)
    }
}

fn exp_gap<R: Rng>(r: &mut R, mean: Delta) -> f64 {
    -(1.0 - r.random::<f64>()).ln() * mean.ps() as f64
}

/// Events per second of an overlay with period `p`.
pub fn events_per_s(p: Delta) -> f64 {
    PS_PER_S as f64 / p.ps() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, fat_tree::hpcc_fat_tree_default};

    fn hpcc(poisson: bool, seed: u64) -> (Vec<FlowSpec>, HostPool, Delta) {
        let t = Topology::build(hpcc_fat_tree_default()).unwrap();
        let pool = HostPool::new(&t, None);
        let period = IncastOverlay::period_for_load(&pool, 60, 500_000, 0.02);
        let o = IncastOverlay {
            fan_in: 60,
            size: 500_000,
            start: SimTime::ZERO,
            duration: Delta::from_ms(100),
            period,
            poisson,
            classes: Classes::One(3),
            dport: 100,
        };
        (o.generate(&pool, seed).unwrap(), pool, period)
    }

    #[test]
    fn a_start_spread_staggers_senders_within_it_and_none_starts_them_together() {
        let spread = Delta::from_us(10);
        let mut s = StartSpread::new(spread, 7);
        let offsets: Vec<Delta> = (0..20).map(|_| s.offset()).collect();
        assert!(offsets.iter().all(|d| *d < spread));
        let mut distinct = offsets.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 20, "20 senders, 20 start times");
        let mut again = StartSpread::new(spread, 7);
        assert!(
            offsets.iter().all(|d| *d == again.offset()),
            "same seed, same starts"
        );
        let mut none = StartSpread::new(Delta::ZERO, 7);
        assert!((0..20).all(|_| none.offset() == Delta::ZERO));
    }

    #[test]
    fn hpcc_section_5_3_incast_is_60_senders_every_375us() {
        let (flows, pool, period) = hpcc(false, 1);
        assert_eq!(period, Delta::from_us(375));
        assert!((events_per_s(period) - 2666.67).abs() < 0.01);
        // 100 ms / 375 us = 266.67 -> events at 0, 375us, ... : 267 events.
        assert_eq!(flows.len(), 267 * 60);
        let load =
            flows.iter().map(|f| f.size).sum::<u64>() as f64 * 8.0 / (pool.capacity_bps() * 0.1);
        assert!((load - 0.02).abs() < 0.02 * 0.01, "{load}");
        for ev in flows.chunks(60) {
            let dst = ev[0].dst;
            assert!(
                ev.iter()
                    .all(|f| f.dst == dst && f.src != dst && f.start == ev[0].start)
            );
            let mut s: Vec<_> = ev.iter().map(|f| f.src).collect();
            s.dedup();
            assert_eq!(s.len(), 60, "senders are distinct");
        }
    }

    #[test]
    fn poisson_events_are_seeded_and_near_the_target_count() {
        let (a, _, _) = hpcc(true, 4);
        let (b, _, _) = hpcc(true, 4);
        assert_eq!(a, b);
        let events = a.len() / 60;
        assert!((events as i64 - 267).abs() < 60, "{events}");
    }
}
