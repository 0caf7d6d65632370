//! Poisson flow arrivals at a target load (HPCC §5.1: "We adjust the flow
//! generation rates to set the average link loads to 30% and 50%"), the model of
//! HPCC's `traffic_gen.py`, which this replaces.
//!
//! Every host of the pool starts flows as a Poisson process of rate
//! `load x host_rate / (mean_size x 8)` flows per second, with sizes drawn from the
//! CDF and the destination uniform over the other hosts of the pool (optionally
//! excluding the source's rack). So each host link carries `load` of its capacity
//! in each direction on average.
//!
//! **Load counts payload bytes** (message sizes), as `traffic_gen.py` does. On the
//! wire each packet also carries headers, so link utilisation is about
//! `load x (mtu + header) / mtu` (e.g. 30% payload is about 31.5% on the wire with
//! 1000 B payloads and 48-62 B of headers).
//!
//! Each host draws from its own random stream (stream = host id), so a host's
//! flows do not change when the pool or the window of the other hosts changes.
//! Start times are kept exact in picoseconds and rounded to whole nanoseconds.

use super::cdf::FlowSizeCdf;
use super::{Classes, FlowSpec, HostPool, MAX_GENERATED_FLOWS, rng, to_ns_grid};
use crate::topology::NodeId;
use crate::units::{Delta, PS_PER_S, SimTime};
use rand::Rng;
use std::collections::BTreeMap;

/// A Poisson workload over a window.
#[derive(Clone, Debug)]
pub struct Poisson<'a> {
    pub cdf: &'a FlowSizeCdf,
    /// Fraction of each host's link rate, in (0, 1].
    pub load: f64,
    pub start: SimTime,
    pub duration: Delta,
    pub exclude_same_rack: bool,
    pub classes: Classes,
    pub dport: u16,
}

impl Poisson<'_> {
    /// Flow arrival rate of pool host `i`, flows per second.
    pub fn rate_per_s(&self, pool: &HostPool, i: usize) -> f64 {
        self.load * pool.rate[i].bps_f64() / (self.cdf.mean() * 8.0)
    }

    /// Expected number of flows over the window.
    pub fn expected_flows(&self, pool: &HostPool) -> f64 {
        (0..pool.len())
            .map(|i| self.rate_per_s(pool, i))
            .sum::<f64>()
            * self.duration.as_secs_f64()
    }

    /// The flows, host by host (the caller sorts by start time). Errors say what
    /// is wrong in words; the caller adds the field.
    pub fn generate(&self, pool: &HostPool, seed: u64) -> Result<Vec<FlowSpec>, String> {
        let n = pool.len();
        if n < 2 {
            return Err(format!("needs at least 2 hosts, the pool has {n}"));
        }
        let expected = self.expected_flows(pool);
        if expected > MAX_GENERATED_FLOWS as f64 {
            return Err(format!(
                "would generate about {expected:.0} flows (limit {MAX_GENERATED_FLOWS}); shorten duration or lower load"
            ));
        }
        // Destinations per rack when the source's rack is excluded.
        let mut others: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
        if self.exclude_same_rack {
            for &r in &pool.rack {
                others.entry(r).or_insert_with(|| {
                    (0..n)
                        .filter(|&j| pool.rack[j] != r)
                        .map(|j| pool.hosts[j])
                        .collect()
                });
            }
        }
        let end = self.start.ps() + self.duration.ps();
        let mut flows = Vec::with_capacity((expected * 1.05) as usize + 16);
        for (i, &src) in pool.hosts.iter().enumerate() {
            let candidates = others.get(&pool.rack[i]);
            if candidates.is_some_and(Vec::is_empty) {
                return Err(format!(
                    "host {src}: every host of the pool is in its rack, so exclude_same_rack leaves no destination"
                ));
            }
            let mut r = rng(seed, src.0 as u64);
            let mean_gap_ps = PS_PER_S as f64 / self.rate_per_s(pool, i);
            let mut t = self.start.ps() as f64;
            loop {
                // Exponential gap: -ln(1 - u) with u in [0, 1).
                t += -(1.0 - r.random::<f64>()).ln() * mean_gap_ps;
                let start = to_ns_grid(t.round() as u64);
                if t >= end as f64 || start.ps() >= end {
                    break;
                }
                let dst = match candidates {
                    Some(c) => c[r.random_range(0..c.len())],
                    None => {
                        let j = r.random_range(0..n - 1);
                        pool.hosts[if j >= i { j + 1 } else { j }]
                    }
                };
                flows.push(FlowSpec {
                    src,
                    dst,
                    size: self.cdf.sample(&mut r),
                    start,
                    class: self.classes.pick(&mut r),
                    dport: self.dport,
                });
            }
        }
        Ok(flows)
    }
}

/// Realized load of `flows` over `[start, start + window)`: payload bytes started
/// in the window over the pool's capacity in that time (sender side).
pub fn realized_load(flows: &[FlowSpec], pool: &HostPool, start: SimTime, window: Delta) -> f64 {
    let end = start.ps() + window.ps();
    let bytes: u64 = flows
        .iter()
        .filter(|f| f.start >= start && f.start.ps() < end)
        .map(|f| f.size)
        .sum();
    bytes as f64 * 8.0 / (pool.capacity_bps() * window.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, fat_tree::hpcc_fat_tree_default};
    use crate::workload::builtin::builtin;

    fn pool() -> (Topology, HostPool) {
        let t = Topology::build(hpcc_fat_tree_default()).unwrap();
        let p = HostPool::new(&t, None);
        (t, p)
    }

    fn generate_fb(load: f64, ms: u64, exclude: bool, seed: u64) -> (Vec<FlowSpec>, HostPool) {
        let (_, p) = pool();
        let cdf = builtin("fb-hadoop").unwrap().unwrap();
        let w = Poisson {
            cdf: &cdf,
            load,
            start: SimTime::ZERO,
            duration: Delta::from_ms(ms),
            exclude_same_rack: exclude,
            classes: Classes::One(3),
            dport: 100,
        };
        (w.generate(&p, seed).unwrap(), p)
    }

    #[test]
    fn the_flow_count_matches_the_hpcc_calibration() {
        // traffic_gen.py: 320 hosts, FbHdp, 30% of 100G for 1 ms gave 9547 flows.
        let (f, _) = generate_fb(0.3, 1, false, 1);
        let expected = 320.0 * 0.3 * 100e9 / (120_421.0 * 8.0) * 1e-3;
        assert!(
            (f.len() as f64 - expected).abs() < 4.0 * expected.sqrt(),
            "{} vs {expected}",
            f.len()
        );
    }

    #[test]
    fn same_seed_same_flows_other_seed_other_flows() {
        let (a, _) = generate_fb(0.3, 1, false, 1);
        let (b, _) = generate_fb(0.3, 1, false, 1);
        let (c, _) = generate_fb(0.3, 1, false, 2);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn starts_are_in_the_window_on_whole_nanoseconds_and_never_self() {
        let (f, p) = generate_fb(0.5, 1, true, 3);
        let rack = |h: NodeId| p.rack[p.hosts.iter().position(|&x| x == h).unwrap()];
        for fl in &f {
            assert!(fl.start.ps() < Delta::from_ms(1).ps());
            assert_eq!(fl.start.ps() % 1000, 0);
            assert_ne!(rack(fl.src), rack(fl.dst));
        }
    }

    #[test]
    fn extending_the_window_only_appends_flows() {
        let (short, _) = generate_fb(0.3, 1, false, 9);
        let (long, _) = generate_fb(0.3, 2, false, 9);
        let cut: Vec<_> = long
            .iter()
            .filter(|f| f.start.ps() < Delta::from_ms(1).ps())
            .cloned()
            .collect();
        assert_eq!(short, cut);
    }
}
