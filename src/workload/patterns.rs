//! Synthetic traffic patterns.
//!
//! - [`permutation`]: every host sends one flow and receives one (a random
//!   derangement; optionally no two in the same rack).
//! - [`all_to_all`]: every host sends one flow to every other host.
//! - [`long_short`]: HPCC §5.2 Fig. 9a/9b: a long flow at line rate, and a 1 MB
//!   short flow that joins on the same links later and leaves.
//! - [`staggered`]: HPCC §5.2 Fig. 9g/9h: N flows join one bottleneck one by one,
//!   one every `interval`, and leave one by one afterwards.

use super::{FlowSpec, HostPool, rng};
use crate::topology::NodeId;
use crate::units::{Delta, Rate, SimTime};
use rand::Rng;
use rand::seq::SliceRandom;

/// A random permutation flow pattern: pool host `i` sends `size` bytes to
/// `dst[i]`, every host receives exactly once, nobody sends to itself and, with
/// `exclude_same_rack`, nobody to its own rack.
///
/// A uniformly random permutation is drawn and then repaired by random swaps
/// until no host is matched with itself (or its rack); the result is a random
/// derangement (not exactly uniform over all of them).
pub fn permutation(
    pool: &HostPool,
    exclude_same_rack: bool,
    size: u64,
    start: SimTime,
    class: u8,
    dport: u16,
    seed: u64,
) -> Result<Vec<FlowSpec>, String> {
    let n = pool.len();
    if n < 2 {
        return Err(format!("needs at least 2 hosts, the pool has {n}"));
    }
    if exclude_same_rack {
        // Hall's condition: a rack's hosts must fit in the other racks.
        let mut racks = pool.rack.clone();
        racks.sort_unstable();
        let mut i = 0;
        while i < n {
            let j = racks[i..].partition_point(|&r| r == racks[i]) + i;
            if 2 * (j - i) > n {
                return Err(format!(
                    "{} of the {n} hosts hang off switch {}; with exclude_same_rack no rack may hold more than half the pool",
                    j - i,
                    racks[i]
                ));
            }
            i = j;
        }
    }
    let bad = |i: usize, j: usize| i == j || (exclude_same_rack && pool.rack[i] == pool.rack[j]);
    let mut r = rng(seed, 0);
    let mut dst: Vec<usize> = (0..n).collect();
    dst.shuffle(&mut r);
    let mut rounds = 0;
    loop {
        let conflicts: Vec<usize> = (0..n).filter(|&i| bad(i, dst[i])).collect();
        if conflicts.is_empty() {
            break;
        }
        rounds += 1;
        if rounds > 10_000 {
            return Err("could not find a permutation that avoids every host's own rack".into());
        }
        for i in conflicts {
            if !bad(i, dst[i]) {
                continue;
            }
            let j = r.random_range(0..n);
            if !bad(i, dst[j]) && !bad(j, dst[i]) {
                dst.swap(i, j);
            }
        }
    }
    Ok((0..n)
        .map(|i| FlowSpec {
            src: pool.hosts[i],
            dst: pool.hosts[dst[i]],
            size,
            start,
            class,
            dport,
        })
        .collect())
}

/// Every pool host sends `size` bytes to every other pool host at `start`, in
/// source order then destination order.
pub fn all_to_all(
    pool: &HostPool,
    size: u64,
    start: SimTime,
    class: u8,
    dport: u16,
) -> Vec<FlowSpec> {
    let mut v = Vec::with_capacity(pool.len() * pool.len().saturating_sub(1));
    for &src in &pool.hosts {
        for &dst in &pool.hosts {
            if src != dst {
                v.push(FlowSpec {
                    src,
                    dst,
                    size,
                    start,
                    class,
                    dport,
                });
            }
        }
    }
    v
}

/// HPCC Fig. 9a: a long flow `long_src -> dst` of `long_size` from `start`, and a
/// short flow `short_src -> dst` of `short_size` from `short_start`. With both
/// senders under one switch the short flow shares every link of the long one.
#[derive(Clone, Debug)]
pub struct LongShort {
    pub long_src: NodeId,
    pub short_src: NodeId,
    pub dst: NodeId,
    pub long_size: u64,
    pub short_size: u64,
    pub start: SimTime,
    pub short_start: SimTime,
    pub class: u8,
    pub dport: u16,
}

pub fn long_short(w: &LongShort) -> Vec<FlowSpec> {
    let flow = |src, size, start| FlowSpec {
        src,
        dst: w.dst,
        size,
        start,
        class: w.class,
        dport: w.dport,
    };
    vec![
        flow(w.long_src, w.long_size, w.start),
        flow(w.short_src, w.short_size, w.short_start),
    ]
}

/// Order in which staggered flows leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leave {
    /// First in, first out: every flow stays `N x interval`.
    Fifo,
    /// Last in, first out: the last flow leaves first.
    Lifo,
}

/// Sizes that make `n` flows, joining one per `interval` at a bottleneck of
/// `goodput`, leave one per `interval` after the last joins, if the bottleneck is
/// shared fairly and fully (flow `i` gets `goodput / active` while active).
pub fn staggered_sizes(n: u32, interval: Delta, goodput: Rate, leave: Leave) -> Vec<u64> {
    let n = n as usize;
    // Active flows in interval k = 0 .. 2n-1: 1, 2, .., n, n-1, .., 1.
    let active = |k: usize| if k < n { k + 1 } else { 2 * n - 1 - k };
    let per_interval = goodput.bps_f64() * interval.as_secs_f64() / 8.0;
    (0..n)
        .map(|i| {
            let last = match leave {
                Leave::Fifo => i + n - 1,
                Leave::Lifo => 2 * n - 2 - i,
            };
            let bytes: f64 = (i..=last).map(|k| per_interval / active(k) as f64).sum();
            (bytes.round() as u64).max(1)
        })
        .collect()
}

/// HPCC Fig. 9g: `senders[i]` starts a flow of `sizes[i]` to `receiver` at
/// `start + i x interval`.
pub fn staggered(
    senders: &[NodeId],
    receiver: NodeId,
    sizes: &[u64],
    start: SimTime,
    interval: Delta,
    class: u8,
    dport: u16,
) -> Vec<FlowSpec> {
    senders
        .iter()
        .zip(sizes)
        .enumerate()
        .map(|(i, (&src, &size))| FlowSpec {
            src,
            dst: receiver,
            size,
            start: start + interval.times(i as u64),
            class,
            dport,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, fat_tree::hpcc_fat_tree_default};

    fn pool() -> HostPool {
        HostPool::new(&Topology::build(hpcc_fat_tree_default()).unwrap(), None)
    }

    #[test]
    fn a_permutation_sends_and_receives_once_per_host_outside_its_rack() {
        let p = pool();
        for exclude in [false, true] {
            let f = permutation(&p, exclude, 1000, SimTime::ZERO, 3, 100, 7).unwrap();
            assert_eq!(f.len(), 320);
            let mut dsts: Vec<u32> = f.iter().map(|x| x.dst.0).collect();
            dsts.sort_unstable();
            assert_eq!(dsts, (0..320).collect::<Vec<_>>());
            assert!(f.iter().all(|x| x.src != x.dst));
            if exclude {
                assert!(f.iter().all(|x| x.src.0 / 16 != x.dst.0 / 16));
            }
        }
        let a = permutation(&p, true, 1000, SimTime::ZERO, 3, 100, 7).unwrap();
        let b = permutation(&p, true, 1000, SimTime::ZERO, 3, 100, 8).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn an_impossible_rack_exclusion_is_an_error() {
        let mut p = pool();
        p.hosts.truncate(20);
        p.rack.truncate(20);
        p.rate.truncate(20);
        let e = permutation(&p, true, 1000, SimTime::ZERO, 3, 100, 1).unwrap_err();
        assert!(e.contains("more than half"), "{e}");
    }

    #[test]
    fn all_to_all_has_n_times_n_minus_one_flows() {
        let mut p = pool();
        p.hosts.truncate(5);
        assert_eq!(all_to_all(&p, 10, SimTime::ZERO, 3, 100).len(), 20);
    }

    #[test]
    fn staggered_sizes_give_equal_stays_under_fair_sharing() {
        let g = Rate::from_gbps(8);
        let t = Delta::from_ms(1); // 1 MB per interval at 8 Gbps
        let s = staggered_sizes(4, t, g, Leave::Fifo);
        // Flow 0: 1 + 1/2 + 1/3 + 1/4 MB; flow 3: 1/4 + 1/3 + 1/2 + 1 MB.
        assert_eq!(s[0], 2_083_333);
        assert_eq!(s[3], 2_083_333);
        assert_eq!(
            s[1],
            (1e6_f64 * (0.5 + 1.0 / 3.0 + 0.25 + 1.0 / 3.0)).round() as u64
        );
        let l = staggered_sizes(4, t, g, Leave::Lifo);
        assert_eq!(l[3], 250_000); // joins at 3, leaves at 4
        assert_eq!(
            l[0],
            (1e6_f64 * (1.0 + 0.5 + 1.0 / 3.0 + 0.25 + 1.0 / 3.0 + 0.5 + 1.0)).round() as u64
        );
        // Total bytes = goodput x busy time (7 intervals).
        assert!(l.iter().sum::<u64>().abs_diff(7_000_000) <= 2);
    }
}
