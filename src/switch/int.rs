//! In-band network telemetry: the record a switch egress port stamps on each data
//! packet it sends (HPCC §3.1, Fig. 4: the fields; §3.2: how the sender turns them
//! into inflight bytes, Eq. (2); §3.4: the rxRate variant's counter; §4.1: INT
//! padding, at most 5 hops).
//!
//! At dequeue, a port appends one record to the packet's INT stack: the time the
//! packet leaves (`ts`), the bytes the port had transmitted before it (`txBytes`)
//! or, for HPCC's rxRate variant, the bytes it has received into its queues
//! (`rxBytes`; the run's [`IntCounter`]: a record carries the one counter its
//! reader uses), the queue left behind (`qLen`) and the port's line rate (`B`).
//! The sender turns two successive records of a hop into that hop's
//! utilization (`cc::hpcc`). At most [`MAX_INT_HOPS`] records fit.
//!
//! Fields are encoded in [`IntUnits`]: exact, or the ns-3 simulator's truncated
//! units (hpcc-ns3-model.md §3). In the per-hop size model each record adds
//! `int_per_hop` bytes to the wire ([`WireSizes::int_per_hop`]); with a fixed INT
//! area the sender pays for it all. (`IntUnits`, `IntBytes` and `WireSizes` are
//! modelling choices and stay in `profile`, which `switch` depends on.)

use crate::packet::{IntCounter, IntHop, MAX_INT_HOPS, Packet};
use crate::profile::{IntUnits, WireSizes};
use crate::switch::SwitchPort;
use crate::units::{PS_PER_NS, SimTime};

/// Encodes one INT record as the switch would, returning what the receiver
/// decodes: (time, tx bytes, queue length).
#[inline]
pub fn encode(units: IntUnits, ts: SimTime, tx_bytes: u64, qlen: u64) -> (SimTime, u64, u64) {
    match units {
        IntUnits::Exact => (ts, tx_bytes, qlen),
        IntUnits::Ns3 { multi } => {
            let m = multi as u64;
            let ts = SimTime(ts.ps() / PS_PER_NS * PS_PER_NS);
            let bytes = tx_bytes / (128 * m) * (128 * m);
            let q = (qlen / (80 * m)) & ((1 << 17) - 1);
            (ts, bytes, q * 80 * m)
        }
    }
}

/// Stamps data packet `pkt` (INT records `int`) as it leaves `port` at `now`: one
/// record of the port's counters (its `counter` of bytes), if the packet has
/// room for another, and the per-hop INT bytes onto its wire size.
/// `port.bytes` is the queue after the packet left; `port.eg.tx_bytes` does not
/// count it yet. The received bytes are not in [`IntUnits`]' encoding (the
/// ns-3 simulator has no rxRate variant).
#[inline]
pub fn stamp(
    pkt: &mut Packet,
    int: &mut [IntHop; MAX_INT_HOPS],
    port: &SwitchPort,
    now: SimTime,
    units: IntUnits,
    counter: IntCounter,
    sizes: &WireSizes,
) {
    let n = pkt.n_hops as usize;
    if n >= MAX_INT_HOPS {
        return;
    }
    let (ts, tx_bytes, qlen) = encode(units, now, port.eg.tx_bytes, port.bytes);
    int[n] = IntHop {
        ts,
        bytes: match counter {
            IntCounter::Tx => tx_bytes,
            IntCounter::Rx => port.rx_bytes,
        },
        qlen,
        rate: port.eg.rate,
    };
    pkt.n_hops += 1;
    pkt.wire += sizes.int_per_hop();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use crate::profile::IntBytes;
    use crate::units::Rate;

    fn port() -> SwitchPort {
        let mut p = super::super::tests::port();
        p.eg.tx_bytes = 5_000;
        p.rx_bytes = 9_000;
        p.bytes = 3_000;
        p
    }

    const PER_HOP: WireSizes = WireSizes {
        int: IntBytes::PerHop {
            base: 2,
            per_hop: 8,
        },
        ..WireSizes::ROCEV2
    };

    fn data(wire: u32) -> Packet {
        let mut p = Packet::new(PacketKind::Data);
        p.wire = wire;
        p
    }

    /// Stamps `pkt` as `p` sends it at `t`, with exact units and the sent bytes.
    fn stamp_tx(
        pkt: &mut Packet,
        int: &mut [IntHop; MAX_INT_HOPS],
        p: &SwitchPort,
        t: SimTime,
        sizes: &WireSizes,
    ) {
        stamp(pkt, int, p, t, IntUnits::Exact, IntCounter::Tx, sizes);
    }

    /// A fresh 1,000-byte data packet stamped once by `port()` at `now`.
    fn stamped(
        now: SimTime,
        units: IntUnits,
        counter: IntCounter,
    ) -> (Packet, [IntHop; MAX_INT_HOPS]) {
        let (mut pkt, mut int) = (data(1_000), [IntHop::default(); MAX_INT_HOPS]);
        stamp(&mut pkt, &mut int, &port(), now, units, counter, &PER_HOP);
        (pkt, int)
    }

    #[test]
    fn a_stamp_records_the_ports_tx_bytes_queue_rate_and_time() {
        let now = SimTime(7_000_000);
        let (pkt, int) = stamped(now, IntUnits::Exact, IntCounter::Tx);
        assert_eq!(pkt.n_hops, 1);
        assert_eq!(
            int[0],
            IntHop {
                ts: now,
                bytes: 5_000,
                qlen: 3_000,
                rate: Rate::from_gbps(100),
            }
        );
    }

    #[test]
    fn each_stamp_adds_the_per_hop_bytes_and_a_fixed_area_adds_none() {
        let (mut pkt, mut int) = (data(1_000), [IntHop::default(); MAX_INT_HOPS]);
        let p = port();
        stamp_tx(&mut pkt, &mut int, &p, SimTime(0), &PER_HOP);
        stamp_tx(&mut pkt, &mut int, &p, SimTime(1), &PER_HOP);
        assert_eq!((pkt.n_hops, pkt.wire), (2, 1_016));
        let mut fixed = data(1_000);
        stamp_tx(&mut fixed, &mut int, &p, SimTime(0), &WireSizes::NS3);
        assert_eq!((fixed.n_hops, fixed.wire), (1, 1_000));
    }

    #[test]
    fn with_the_rx_counter_a_stamp_carries_the_received_bytes_unencoded() {
        // HPCC §3.4's rxRate variant: the record's counter is the bytes the
        // port received into its queues (9,000), not those it sent (5,000),
        // and the ns-3 units, which have no such counter, do not truncate it.
        let now = SimTime(7_000_000);
        for units in [IntUnits::Exact, IntUnits::Ns3 { multi: 1 }] {
            let (_, int) = stamped(now, units, IntCounter::Rx);
            assert_eq!(int[0].bytes, 9_000);
        }
    }

    #[test]
    fn stamping_stops_at_the_most_hops_a_packet_carries() {
        let (mut pkt, mut int) = (data(1_000), [IntHop::default(); MAX_INT_HOPS]);
        let p = port();
        for t in 0..MAX_INT_HOPS as u64 + 2 {
            stamp_tx(&mut pkt, &mut int, &p, SimTime(t), &PER_HOP);
        }
        assert_eq!(pkt.n_hops as usize, MAX_INT_HOPS);
        assert_eq!(pkt.wire, 1_000 + 8 * MAX_INT_HOPS as u32);
        assert_eq!(int[MAX_INT_HOPS - 1].ts, SimTime(MAX_INT_HOPS as u64 - 1));
    }

    #[test]
    fn ns3_units_truncate_the_stamped_fields() {
        let units = IntUnits::Ns3 { multi: 1 };
        let (_, int) = stamped(SimTime(1_234_567), units, IntCounter::Tx);
        // 5000 B -> 39 x 128; 3000 B -> 37 x 80; whole ns.
        assert_eq!(
            (int[0].ts, int[0].bytes, int[0].qlen),
            (SimTime(1_234_000), 4_992, 2_960)
        );
    }

    #[test]
    fn ns3_int_fields_truncate_to_their_units_and_the_queue_length_wraps_at_17_bits() {
        let u = IntUnits::Ns3 { multi: 1 };
        let (ts, b, q) = encode(u, SimTime(1_234_567), 1090, 1599);
        assert_eq!((ts, b, q), (SimTime(1_234_000), 1024, 1520));
        let (_, b, q) = encode(IntUnits::Ns3 { multi: 4 }, SimTime(0), 1090, 1599);
        assert_eq!((b, q), (1024, 1280));
        // 2^17 units of 80 B wrap to 0.
        assert_eq!(encode(u, SimTime(0), 0, 80 << 17).2, 0);
        assert_eq!(
            encode(IntUnits::Exact, SimTime(7), 9, 5),
            (SimTime(7), 9, 5)
        );
    }
}
