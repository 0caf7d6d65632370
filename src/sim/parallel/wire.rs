//! A crossing packet on the wire between MPI ranks: fixed-width plain data
//! ([`bytemuck::Pod`]), so a window's packets go out and come in as one copy
//! of bytes. Encoding them field by field with serde and postcard cost about
//! 330 ns a packet to decode (45 variable-length integers), as much as the
//! events the packet causes (measured on the 320-host fat-tree, 2 ranks).

use crate::ids::{EgressId, FlowId, NodeId};
use crate::node::Transit;
use crate::packet::{IntHop, MAX_INT_HOPS, Packet, PacketKind};
use crate::units::{Rate, SimTime};
use bytemuck::{Pod, Zeroable};

/// [`Transit`] as plain data: every field at its natural alignment, no
/// padding (the derive checks it).
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct WireTransit {
    at: u64,
    seq: u64,
    sent_at: u64,
    window: u64,
    /// Per INT record: time, the port's byte counter, queue, rate.
    int: [[u64; 4]; MAX_INT_HOPS],
    link: u32,
    lead: u32,
    next: u32,
    flow: u32,
    src: u32,
    dst: u32,
    wire: u32,
    aux: u32,
    payload: u16,
    sport: u16,
    dport: u16,
    ingress: u16,
    pause_quanta: u16,
    kind: u8,
    class: u8,
    n_hops: u8,
    flags: u8,
    pint: u16,
}

fn kind_code(k: PacketKind) -> u8 {
    match k {
        PacketKind::Data => 0,
        PacketKind::Ack => 1,
        PacketKind::Nack => 2,
        PacketKind::Cnp => 3,
        PacketKind::Pfc => 4,
        PacketKind::Credit => 5,
        PacketKind::CreditRequest => 6,
        PacketKind::CreditStop => 7,
    }
}

fn kind_of(code: u8) -> PacketKind {
    match code {
        0 => PacketKind::Data,
        1 => PacketKind::Ack,
        2 => PacketKind::Nack,
        3 => PacketKind::Cnp,
        4 => PacketKind::Pfc,
        5 => PacketKind::Credit,
        6 => PacketKind::CreditRequest,
        7 => PacketKind::CreditStop,
        c => unreachable!("packet kind {c} from a rank of the same binary"),
    }
}

impl From<&Transit> for WireTransit {
    fn from(t: &Transit) -> Self {
        let p = &t.pkt;
        WireTransit {
            at: t.at.0,
            seq: p.seq,
            sent_at: p.sent_at.0,
            window: p.window,
            int: t.int.map(|h| [h.ts.0, h.bytes, h.qlen, h.rate.0]),
            link: t.link.0,
            lead: t.lead,
            next: p.next,
            flow: p.flow.0,
            src: p.src.0,
            dst: p.dst.0,
            wire: p.wire,
            aux: p.aux,
            payload: p.payload,
            sport: p.sport,
            dport: p.dport,
            ingress: p.ingress,
            pause_quanta: p.pause_quanta,
            kind: kind_code(p.kind),
            class: p.class,
            n_hops: p.n_hops,
            flags: p.flags,
            pint: p.pint,
        }
    }
}

impl From<&WireTransit> for Transit {
    fn from(w: &WireTransit) -> Self {
        Transit {
            link: EgressId(w.link),
            at: SimTime(w.at),
            lead: w.lead,
            pkt: Packet {
                seq: w.seq,
                sent_at: SimTime(w.sent_at),
                next: w.next,
                flow: FlowId(w.flow),
                src: NodeId(w.src),
                dst: NodeId(w.dst),
                wire: w.wire,
                aux: w.aux,
                window: w.window,
                payload: w.payload,
                sport: w.sport,
                dport: w.dport,
                ingress: w.ingress,
                pause_quanta: w.pause_quanta,
                kind: kind_of(w.kind),
                class: w.class,
                n_hops: w.n_hops,
                flags: w.flags,
                pint: w.pint,
            },
            int: w.int.map(|[ts, bytes, qlen, rate]| IntHop {
                ts: SimTime(ts),
                bytes,
                qlen,
                rate: Rate(rate),
            }),
        }
    }
}

/// Appends `list` to `buf` as plain data.
pub(crate) fn put(list: &[Transit], buf: &mut Vec<u8>) {
    let wire: Vec<WireTransit> = list.iter().map(WireTransit::from).collect();
    buf.extend_from_slice(bytemuck::cast_slice(&wire));
}

/// The packets [`put`] wrote into `bytes` (at any alignment).
pub(crate) fn get(bytes: &[u8]) -> Vec<Transit> {
    bytes
        .chunks_exact(size_of::<WireTransit>())
        .map(|c| Transit::from(&bytemuck::pod_read_unaligned::<WireTransit>(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_with_int_records_survives_the_wire() {
        let mut pkt = Packet::new(PacketKind::Nack);
        pkt.seq = 123_456_789_012;
        pkt.flow = FlowId(77);
        pkt.n_hops = 2;
        pkt.window = 5;
        let mut int = [IntHop::default(); MAX_INT_HOPS];
        int[1] = IntHop {
            ts: SimTime(9),
            bytes: 10,
            qlen: 12,
            rate: Rate(100_000_000_000),
        };
        let t = Transit {
            link: EgressId(3),
            at: SimTime(42),
            lead: 7,
            pkt,
            int,
        };
        let mut buf = vec![0u8; 3];
        put(std::slice::from_ref(&t), &mut buf);
        let back = get(&buf[3..]);
        assert_eq!(back.len(), 1);
        let b = &back[0];
        assert_eq!((b.link, b.at, b.lead), (t.link, t.at, t.lead));
        assert_eq!(format!("{:?}", b.pkt), format!("{:?}", t.pkt));
        assert_eq!(b.int, t.int);
    }
}
