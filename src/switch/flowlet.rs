//! Flowlet switching as LetFlow does it (Vanini et al., "Let It Flow:
//! Resilient Asymmetric Load Balancing with Flowlet Switching", NSDI'17; not
//! in ../shared/papers): a flowlet is a burst of a flow's packets separated
//! from the previous burst by more than a timeout (`switch.flowlet_gap`); each
//! new flowlet takes a next hop drawn uniformly from the equal-cost ones, and
//! the packets within a flowlet follow it.
//!
//! As a switch keeps it: a table of [`ENTRIES`] entries, indexed by the low
//! bits of the ECMP hash of the packet's 5-tuple
//! ([`super::ecmp::tuple_hash`]), each holding the time of the last packet that
//! used it and the next hop it took. A packet whose entry is empty, idle for
//! more than the gap, or names a port that is not among this packet's next
//! hops (a flow toward another destination hashed to the same entry) starts a
//! new flowlet: one draw from the switch's [`SprayRng`]. Either way the entry
//! then holds this packet's time and next hop. Flows that hash to one entry
//! share it, as in hardware: while either keeps it busy, both follow its next
//! hop, and a new flowlet of one moves both.
//!
//! The table is allocated at the switch's first packet with several next hops
//! (a switch that never forwards multipath traffic, such as a core switch of
//! a fat-tree whose routes all go down, costs nothing): 2^16 entries of 8
//! bytes, 512 KiB. An entry packs the time, in picoseconds modulo 2^48
//! (281 s), above the next hop plus one (0: empty); the idle time is the
//! difference modulo 2^48, exact for any gap below 281 s (`flowlet_gap` is at
//! most 1 s). An entry left idle for a multiple of 281 s, give or take the
//! gap, would look busy: its next hop is still one of the packet's, and no run
//! simulates that long.

use super::spray::SprayRng;
use crate::units::{Delta, SimTime};

/// Entries in a switch's flowlet table: 64K, the size of hardware flowlet
/// tables (CONGA's, Alizadeh et al. SIGCOMM'14, which LetFlow builds on).
pub const ENTRIES: usize = 1 << 16;

/// The gap when `switch.flowlet_gap` is not given: 25 us, about twice the
/// base RTT of the shipped 100 Gbps fabrics (12-13 us on the HPCC 320-host
/// fat-tree and the k = 4 fat-trees with 1 us links), which is also above the
/// 16 us a port queued at DCQCN's default `kmax` (200 KB) takes to drain at
/// 100 Gbps: a new flowlet then seldom overtakes the one before it
/// (docs/models.md, "Load balancing", measures the choice).
pub const DEFAULT_GAP: Delta = Delta::from_us(25);

/// Bits of an entry that hold the time of its last packet.
const TIME_BITS: u32 = 48;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;

/// A switch's flowlet table; empty until its first use.
#[derive(Clone, Debug, Default)]
pub struct FlowletTable {
    entries: Vec<u64>,
}

impl FlowletTable {
    /// The next hop, among `hops`, of a packet at `now` whose 5-tuple hashes
    /// to `hash()`, new flowlets starting after more than `gap` idle; `None`
    /// if there is no route. A single next hop touches neither the table nor
    /// the stream, and takes no hash.
    #[inline]
    pub fn next_hop(
        &mut self,
        hops: &[u16],
        now: SimTime,
        gap: Delta,
        hash: impl FnOnce() -> u64,
        rng: &mut SprayRng,
    ) -> Option<u16> {
        if hops.len() < 2 {
            return hops.first().copied();
        }
        if self.entries.is_empty() {
            self.entries = vec![0; ENTRIES];
        }
        let slot = &mut self.entries[hash() as usize & (ENTRIES - 1)];
        let now48 = now.0 & TIME_MASK;
        let (last, stored) = (*slot >> 16, (*slot & 0xffff) as u16);
        let idle = now48.wrapping_sub(last) & TIME_MASK;
        let hop = match stored.checked_sub(1) {
            Some(hop) if idle <= gap.ps() && hops.contains(&hop) => hop,
            _ => rng.next_hop(hops).expect("several next hops"),
        };
        assert!(hop < u16::MAX, "flowlet table: port {hop} does not fit");
        *slot = now48 << 16 | (hop as u64 + 1);
        Some(hop)
    }

    /// Whether the table has been allocated (the switch forwarded a packet
    /// with several next hops under flowlet switching).
    pub fn is_allocated(&self) -> bool {
        !self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::NodeId;

    const HOPS: [u16; 4] = [2, 3, 4, 5];
    const GAP: Delta = Delta::from_us(10);

    fn at_ns(ns: u64) -> SimTime {
        SimTime(ns * 1_000)
    }

    #[test]
    fn packets_within_the_gap_keep_their_next_hop_and_take_no_draw() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(1, NodeId(9));
        let first = t.next_hop(&HOPS, at_ns(0), GAP, || 7, &mut rng).unwrap();
        let after_first = rng.clone();
        // A packet every 9 us for 10 ms: never 10 us apart.
        for k in 1..1_000 {
            let hop = t.next_hop(&HOPS, at_ns(9_000 * k), GAP, || 7, &mut rng);
            assert_eq!(hop, Some(first), "packet {k}");
        }
        assert_eq!(rng, after_first, "one flowlet, one draw");
        // Exactly the gap apart is still the same flowlet.
        let last = at_ns(9_000 * 999);
        let same = t.next_hop(&HOPS, SimTime(last.0 + GAP.ps()), GAP, || 7, &mut rng);
        assert_eq!(same, Some(first));
    }

    #[test]
    fn a_packet_after_more_than_the_gap_starts_a_flowlet_with_a_new_draw() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(1, NodeId(9));
        let mut twin = rng.clone();
        let mut now = at_ns(0);
        let mut hops = Vec::new();
        for _ in 0..4_000 {
            hops.push(t.next_hop(&HOPS, now, GAP, || 7, &mut rng).unwrap());
            now = SimTime(now.0 + GAP.ps() + 1);
        }
        // Every packet drew: the table followed the stream draw for draw.
        let drawn: Vec<u16> = (0..4_000).map(|_| twin.next_hop(&HOPS).unwrap()).collect();
        assert_eq!(hops, drawn);
        // And the draws cover the next hops about evenly (binomial(4000, 1/4):
        // sd 27).
        for h in HOPS {
            let n = hops.iter().filter(|&&x| x == h).count();
            assert!(n.abs_diff(1_000) < 5 * 27, "hop {h}: {n}");
        }
    }

    #[test]
    fn flows_that_hash_to_one_entry_share_its_flowlet() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(3, NodeId(4));
        // Flows A and B differ in their hash but agree in its low 16 bits.
        let (a, b) = (0x1_0000_0042u64, 0x7_0000_0042u64);
        let hop_a = t.next_hop(&HOPS, at_ns(0), GAP, || a, &mut rng).unwrap();
        let before = rng.clone();
        // B arrives 5 us later: A's flowlet is live, B takes its next hop.
        let hop_b = t.next_hop(&HOPS, at_ns(5_000), GAP, || b, &mut rng);
        assert_eq!(hop_b, Some(hop_a));
        assert_eq!(rng, before, "no draw for a live entry");
        // B's packet refreshed the entry: A, 14 us after its own last packet
        // but 9 us after B's, is still in the flowlet.
        let again = t.next_hop(&HOPS, at_ns(14_000), GAP, || a, &mut rng);
        assert_eq!(again, Some(hop_a));
        // Another entry is its own flowlet: a first packet there draws.
        t.next_hop(&HOPS, at_ns(15_000), GAP, || 0x43, &mut rng);
        assert_ne!(rng, before);
    }

    #[test]
    fn an_entry_naming_a_port_outside_the_packets_next_hops_starts_a_flowlet() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(5, NodeId(2));
        let first = t.next_hop(&HOPS, at_ns(0), GAP, || 1, &mut rng).unwrap();
        // A flow toward another destination, with other next hops, in the
        // same entry 1 ns later.
        let other = [6u16, 7];
        let hop = t.next_hop(&other, at_ns(1), GAP, || 1, &mut rng).unwrap();
        assert!(other.contains(&hop), "{hop} after {first}");
    }

    #[test]
    fn no_route_is_none_and_a_single_next_hop_leaves_table_and_stream_alone() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(1, NodeId(5));
        let before = rng.clone();
        let no_hash = || -> u64 { panic!("no hash is taken") };
        assert_eq!(t.next_hop(&[], at_ns(0), GAP, no_hash, &mut rng), None);
        assert_eq!(t.next_hop(&[3], at_ns(0), GAP, no_hash, &mut rng), Some(3));
        assert_eq!(rng, before);
        assert!(!t.is_allocated(), "allocated at the first multipath packet");
        t.next_hop(&HOPS, at_ns(0), GAP, || 0, &mut rng);
        assert!(t.is_allocated());
    }

    #[test]
    fn the_idle_time_is_exact_across_the_48_bit_wrap_of_the_clock() {
        let mut t = FlowletTable::default();
        let mut rng = SprayRng::new(1, NodeId(5));
        let wrap = 1u64 << TIME_BITS;
        let before_wrap = SimTime(wrap - 1_000);
        let first = t.next_hop(&HOPS, before_wrap, GAP, || 9, &mut rng).unwrap();
        let mark = rng.clone();
        // 2 ns later, past the wrap: the same flowlet.
        let hop = t.next_hop(&HOPS, SimTime(wrap + 1_000), GAP, || 9, &mut rng);
        assert_eq!(hop, Some(first));
        assert_eq!(rng, mark);
        // More than the gap later: a new flowlet.
        let later = SimTime(wrap + 1_000 + GAP.ps() + 1);
        t.next_hop(&HOPS, later, GAP, || 9, &mut rng);
        assert_ne!(rng, mark);
    }
}
