//! Workloads: the flows a run simulates.
//!
//! Every generator produces a list of [`FlowSpec`]s; the simulator sorts them by
//! start time (stable, so equal start times keep their order) and gives them ids.
//!
//! Generators: [`incast`] (one-shot and the periodic overlay of HPCC §5.3),
//! [`poisson`] (CDF-sized flows at a target load, HPCC §5.1), [`patterns`]
//! (permutation, all-to-all, long-short and staggered joins, HPCC Fig. 9). Flow
//! sizes come from [`cdf`] files, built in by name ([`builtin`]). Randomness is an
//! explicit seed: the same seed gives the same flows.
//!
//! [`chakra`] reads MLCommons Chakra execution traces (astra-sim's input) into a
//! neutral, validated form; it does not produce flows.

pub mod builtin;
pub mod cdf;
pub mod chakra;
pub mod collective;
pub mod graph;
pub mod incast;
pub mod ns3;
pub mod patterns;
pub mod poisson;
pub mod program;

use crate::topology::{NodeId, Topology};
use crate::units::{Rate, SimTime};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One RDMA WRITE message from `src` to `dst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    pub src: NodeId,
    pub dst: NodeId,
    /// Message size in payload bytes.
    pub size: u64,
    pub start: SimTime,
    /// Priority class (0-7; 0 is reserved for control traffic). The ns-3 files call it `pg`.
    pub class: u8,
    /// Destination UDP port (part of the ECMP 5-tuple).
    pub dport: u16,
}

/// Generators refuse to produce more flows than this (about 32 bytes each);
/// [`crate::limits::MAX_FLOWS`].
pub const MAX_GENERATED_FLOWS: u64 = crate::limits::MAX_FLOWS;

/// The hosts a generator draws from, with what generators need to know of each.
#[derive(Clone, Debug)]
pub struct HostPool {
    pub hosts: Vec<NodeId>,
    /// The switch each host hangs off (its rack), by pool index.
    pub rack: Vec<NodeId>,
    /// Each host's link rate, by pool index.
    pub rate: Vec<Rate>,
}

impl HostPool {
    /// `subset` (host ids, already checked to be hosts), or every server. A
    /// server with several NICs is one host here, named by its first NIC, in
    /// the rack of its first NIC, with the sum of its NICs' rates.
    pub fn new(topo: &Topology, subset: Option<&[NodeId]>) -> HostPool {
        let hosts: Vec<NodeId> = match subset {
            Some(s) => s.iter().map(|&h| topo.server(h)).collect(),
            None if topo.multi_nic() => topo.servers(),
            None => topo.hosts.clone(),
        };
        let rack = hosts.iter().map(|&h| topo.host_port(h).peer).collect();
        let rate = (hosts.iter())
            .map(|&h| {
                let nics = topo.nics(h).iter();
                Rate::from_bps(nics.map(|&n| topo.host_port(n).rate.bps()).sum())
            })
            .collect();
        HostPool { hosts, rack, rate }
    }
    pub fn len(&self) -> usize {
        self.hosts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }
    /// Sum of the hosts' link rates, bits per second.
    pub fn capacity_bps(&self) -> f64 {
        self.rate.iter().map(|r| r.bps_f64()).sum()
    }
}

/// The priority class of each generated flow: one class, or uniformly one of several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Classes {
    One(u8),
    Uniform(Vec<u8>),
}

impl Classes {
    pub fn pick<R: Rng + ?Sized>(&self, rng: &mut R) -> u8 {
        match self {
            Classes::One(c) => *c,
            Classes::Uniform(v) => v[rng.random_range(0..v.len())],
        }
    }
}

/// A generator's random stream: ChaCha8 seeded with `seed`, on stream `stream`
/// (independent streams let each host draw its own sequence).
pub fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// The seed of generator table `index` of kind `tag` in a scenario with `seed`
/// (so two tables never share a stream).
pub fn derive_seed(seed: u64, tag: &str, index: usize) -> u64 {
    // FNV-1a of the tag, then splitmix64 finalisation of the mix.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in tag.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = seed ^ h ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Rounds a time in picoseconds to the nearest nanosecond (the ns-3 flow file's
/// precision), so written flow files reproduce the run exactly.
pub fn to_ns_grid(ps: u64) -> SimTime {
    SimTime(ps.saturating_add(500) / 1000 * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_seeds_differ_by_tag_index_and_seed() {
        let a = derive_seed(1, "poisson", 0);
        assert_ne!(a, derive_seed(1, "poisson", 1));
        assert_ne!(a, derive_seed(1, "permutation", 0));
        assert_ne!(a, derive_seed(2, "poisson", 0));
        assert_eq!(a, derive_seed(1, "poisson", 0));
    }

    #[test]
    fn streams_of_one_seed_are_independent_sequences() {
        let x: u64 = rng(5, 0).random();
        let y: u64 = rng(5, 1).random();
        assert_ne!(x, y);
        assert_eq!(x, rng(5, 0).random::<u64>());
    }
}
