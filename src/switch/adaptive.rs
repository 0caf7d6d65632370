//! Adaptive routing: every packet a switch forwards goes out of the least
//! loaded of its equal-cost next hops, judged by what the switch sees locally,
//! as InfiniBand adaptive routing and Ethernet fabrics such as Spectrum-X do
//! (per packet, so a flow's packets reorder, and the receiver must cope:
//! docs/models.md, "Load balancing").
//!
//! The load of a next hop is its egress port's queued bytes at the moment the
//! packet is forwarded: everything waiting in the port's eight class queues
//! (data and control, paused classes included; [`super::SwitchPort::bytes`]),
//! not the packet being serialized, which left its queue when its
//! transmission began. The least-queued port wins; among ports tied at the
//! least, the flow's ECMP hash ([`super::ecmp::tuple_hash`]) picks, in the
//! routing table's order, so that on an idle fabric (every port tied at 0) a
//! flow goes where ECMP would send it. No random draw: the choice depends on
//! the switch's own state in the order it handles its events, so it is the
//! same on any number of threads.

use super::ecmp::index;

/// The next hop, among `hops`, whose port has the fewest `queued(port)`
/// bytes, ties broken by `hash()` among the tied ports in `hops` order;
/// `None` if there is no route. A single next hop reads no queue and takes no
/// hash, and a unique least-queued port takes no hash either.
#[inline]
pub fn next_hop(
    hops: &[u16],
    queued: impl Fn(u16) -> u64,
    hash: impl FnOnce() -> u64,
) -> Option<u16> {
    if hops.len() < 2 {
        return hops.first().copied();
    }
    let (mut least, mut tied) = (u64::MAX, 0usize);
    for &h in hops {
        let q = queued(h);
        if q < least {
            (least, tied) = (q, 1);
        } else if q == least {
            tied += 1;
        }
    }
    let mut k = if tied == 1 { 0 } else { index(hash(), tied) };
    for &h in hops {
        if queued(h) == least {
            if k == 0 {
                return Some(h);
            }
            k -= 1;
        }
    }
    unreachable!("a least-queued next hop exists")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::EcmpHash;
    use crate::switch::ecmp::{self, FlowKey};
    use crate::topology::NodeId;

    const HOPS: [u16; 4] = [2, 3, 4, 5];

    /// Port `p`'s queued bytes from a table over ports 0..8.
    fn queues(q: [u64; 8]) -> impl Fn(u16) -> u64 {
        move |p| q[p as usize]
    }

    #[test]
    fn a_packet_goes_to_the_least_queued_next_hop() {
        let q = queues([0, 0, 9_000, 3_000, 1_048, 5_000, 0, 0]);
        let got = next_hop(&HOPS, &q, || panic!("no tie, no hash"));
        assert_eq!(got, Some(4));
        // Ports 0, 1, 6, 7 are empty but are not next hops.
        let q = queues([0, 0, 2, 1, 1, 3, 0, 0]);
        assert_eq!(next_hop(&HOPS, &q, || 1), Some(4), "3 and 4 tie at 1 B");
    }

    #[test]
    fn ties_follow_the_hash_among_the_tied_ports_in_route_order() {
        // Ports 3 and 5 tie at 100 B.
        let q = queues([0, 0, 900, 100, 700, 100, 0, 0]);
        assert_eq!(next_hop(&HOPS, &q, || 0), Some(3));
        assert_eq!(next_hop(&HOPS, &q, || 1), Some(5));
        assert_eq!(next_hop(&HOPS, &q, || 6), Some(3));
        assert_eq!(next_hop(&HOPS, &q, || 7), Some(5));
    }

    #[test]
    fn on_an_idle_switch_every_flow_takes_its_ecmp_next_hop() {
        let idle = |_| 0;
        for hash in [EcmpHash::Seeded, EcmpHash::Ns3Murmur, EcmpHash::Symmetric] {
            for hops in [&HOPS[..], &HOPS[..3]] {
                for sport in 10_000..10_200u16 {
                    let key = FlowKey {
                        src: 1,
                        dst: 7,
                        sport,
                        dport: 100,
                    };
                    let (seed, node) = (0x5eed, NodeId(12));
                    let h = || ecmp::tuple_hash(hash, seed, node, key);
                    let ecmp = ecmp::next_hop(hops, hash, seed, node, key);
                    assert_eq!(next_hop(hops, idle, h), ecmp, "{hash:?} {sport}");
                }
            }
        }
    }

    #[test]
    fn no_route_is_none_and_a_single_next_hop_reads_no_queue_and_takes_no_hash() {
        let no_queue = |_| -> u64 { panic!("no queue is read") };
        let no_hash = || -> u64 { panic!("no hash is taken") };
        assert_eq!(next_hop(&[], no_queue, no_hash), None);
        assert_eq!(next_hop(&[6], no_queue, no_hash), Some(6));
    }
}
