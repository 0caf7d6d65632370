//! How a switch spreads packets over equal-cost next hops ([`LoadBalancing`]):
//! per flow ([`ecmp`], the default), per packet ("packet spraying", here), per
//! flowlet ([`flowlet`], LetFlow) or per packet to the least-queued port
//! ([`adaptive`]).
//!
//! Spraying: every packet a switch forwards (data, ACK, NACK, CNP; PFC frames
//! are link-local and never forwarded) picks uniformly among the routing
//! table's equal-cost next hops, as packet-spraying fabrics do (random packet
//! spraying: Dixit et al., "On the impact of packet spraying in data center
//! networks", INFOCOM'13; not in ../shared/papers). The draw comes from the switch's own
//! stream ([`SprayRng`]), seeded from the run seed and the switch's node id,
//! so a run is the same on any number of threads or MPI ranks: a switch draws
//! only from its own stream, in the order it handles its events. The stream is
//! separate from the switch's RNG for ECN marking, link loss and HPCC-PINT, so
//! spraying shifts none of their draws; and with one next hop there is no draw.
//! Flowlet switching draws a new flowlet's next hop from the same stream (a run
//! uses one mode, so the two never share it).
//!
//! Packets of one flow then take paths of equal hop count whose queues differ,
//! and arrive out of order: IRN's receiver keeps them (selective repeat);
//! go-back-N receivers NACK the gap and the sender goes back, as RoCE NICs do
//! (docs/models.md, "Packet spraying").
//!
//! [`ecmp`]: super::ecmp
//! [`flowlet`]: super::flowlet
//! [`adaptive`]: super::adaptive

use super::ecmp::{index, mix64};
use crate::topology::NodeId;
use crate::units::Delta;

/// How switches choose among equal-cost next hops (`switch.load_balancing`).
/// Every packet a switch forwards is balanced so (data, ACK, NACK, CNP); a
/// switch with one next hop toward the destination forwards as ECMP does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadBalancing {
    /// Per flow: a hash of the 5-tuple ([`super::ecmp::next_hop`]).
    #[default]
    Ecmp,
    /// Per packet: a uniform draw from the switch's [`SprayRng`].
    Spray,
    /// Per flowlet (LetFlow): a packet that finds its flowlet-table entry
    /// idle for more than `gap` draws a next hop from the [`SprayRng`], the
    /// others follow the entry ([`super::flowlet`]).
    Flowlet { gap: Delta },
    /// Per packet: the next hop whose port has the fewest bytes queued, ties
    /// broken by the ECMP hash ([`super::adaptive`]).
    Adaptive,
}

impl LoadBalancing {
    /// The name `switch.load_balancing` gives it.
    pub fn name(self) -> &'static str {
        match self {
            LoadBalancing::Ecmp => "ecmp",
            LoadBalancing::Spray => "spray",
            LoadBalancing::Flowlet { .. } => "flowlet",
            LoadBalancing::Adaptive => "adaptive",
        }
    }

    /// Every packet of a flow takes the flow's one ECMP path, which
    /// [`super::ecmp::trace`] can walk without simulating (only under ECMP).
    pub fn one_path_per_flow(self) -> bool {
        self == LoadBalancing::Ecmp
    }
}

/// A switch's spraying stream: SplitMix64 (Steele et al., OOPSLA'14), one
/// 64-bit word of state, a counter step and the [`mix64`] finalizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SprayRng(u64);

impl SprayRng {
    /// The stream of the switch at `node` in a run with seed `run_seed`.
    pub fn new(run_seed: u64, node: NodeId) -> SprayRng {
        SprayRng(mix64(run_seed ^ mix64(0x5b7a_0000_0000 ^ node.0 as u64)))
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// One of `hops`, uniformly (up to a bias below 2^-57 for a count that is
    /// not a power of two); `None` if there is no route. A single next hop
    /// takes no draw.
    #[inline]
    pub fn next_hop(&mut self, hops: &[u16]) -> Option<u16> {
        match hops.len() {
            0 => None,
            1 => Some(hops[0]),
            n => Some(hops[index(self.next_u64(), n)]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_route_is_none_and_a_single_route_takes_no_draw() {
        let mut a = SprayRng::new(1, NodeId(5));
        let b = a.clone();
        assert_eq!(a.next_hop(&[]), None);
        assert_eq!(a.next_hop(&[3]), Some(3));
        assert_eq!(a.0, b.0, "no draw was taken");
    }

    #[test]
    fn a_switch_sprays_uniformly_over_its_next_hops() {
        // 4 and 3 next hops (mask and modulo), 120,000 draws: each count is
        // binomial with sd sqrt(n p (1 - p)), about 150 for n p = 30,000;
        // 6 sd is about 900 (3 %), which a fair stream passes with
        // probability 1 - 2e-9 per count.
        for hops in [&[4u16, 5, 6, 7][..], &[4, 5, 6]] {
            let n = 120_000;
            let mut rng = SprayRng::new(7, NodeId(9));
            let mut count = [0u32; 8];
            for _ in 0..n {
                count[rng.next_hop(hops).unwrap() as usize] += 1;
            }
            let want = n as f64 / hops.len() as f64;
            let p = 1.0 / hops.len() as f64;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            for &h in hops {
                let got = count[h as usize] as f64;
                assert!((got - want).abs() < 6.0 * sd, "hop {h}: {got} of {n}");
            }
        }
    }

    #[test]
    fn the_stream_depends_on_the_seed_and_the_switch_only() {
        let draws = |seed, node| {
            let mut r = SprayRng::new(seed, NodeId(node));
            (0..32)
                .map(|_| r.next_hop(&[0, 1, 2, 3]).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(1, 5), draws(1, 5));
        assert_ne!(draws(1, 5), draws(2, 5));
        assert_ne!(draws(1, 5), draws(1, 6));
    }
}
