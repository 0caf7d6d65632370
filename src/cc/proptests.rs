//! One property-test harness for every congestion control: random sequences of
//! ACK / CNP / timer / timeout / send / time-advance operations, with the
//! invariants checked after each: the rate stays within `[min_rate, line rate]`,
//! the window (if any) is positive and finite, nothing is NaN, and the timer is
//! never in the past.
//! Receiver-assigned windows come from the real receiver (`ReceiverKind::on_data`)
//! for the RCC variants, so the whole receiver-to-sender path is exercised.

use super::receiver::{ReceiverControl, RxCtl, RxEvent};
use super::test_util::flow_ctx;
use super::*;
use crate::cc::rx_nic::RxNicState;
use crate::packet::{IntCounter, IntHop};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    /// An ACK for `packets` packets whose data left `rtt_ns` ago; `qlen` is what INT
    /// reports; `ecn` the echo; `nack` a NACK.
    Ack {
        packets: u8,
        rtt_ns: u32,
        qlen: u32,
        ecn: bool,
        nack: bool,
    },
    Cnp,
    Timer,
    /// The retransmission timeout fired.
    Timeout,
    Send(u16),
    Advance(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u8..40, 1u32..2_000_000, 0u32..4_000_000, any::<bool>(), prop::bool::weighted(0.05))
            .prop_map(|(packets, rtt_ns, qlen, ecn, nack)| Op::Ack { packets, rtt_ns, qlen, ecn, nack }),
        1 => Just(Op::Cnp),
        1 => Just(Op::Timer),
        1 => Just(Op::Timeout),
        2 => (64u16..9100).prop_map(Op::Send),
        2 => (0u32..200_000_000).prop_map(Op::Advance),
    ]
}

/// Every algorithm with its default parameters, and its rate floor.
fn kinds() -> Vec<(CcKind, Rate)> {
    ALGORITHMS
        .iter()
        .map(|name| {
            let s = CcSection {
                algorithm: name.to_string(),
                ..CcSection::default()
            };
            let k = s.resolve().expect("defaults are valid");
            let floor = k.min_rate().unwrap_or(Rate::from_gbps(100));
            (k, floor)
        })
        .collect()
}

struct Harness {
    kind: CcKind,
    cc: Cc,
    ctx: FlowCtx,
    now: SimTime,
    seq: u64,
    snd_nxt: u64,
    tx_bytes: u64,
    rx_bytes: u64,
    rx: RxCtl,
    nic: RxNicState,
}

impl Harness {
    fn new(kind: CcKind) -> Self {
        let ctx = FlowCtx {
            // 100 Gbps x 13 us and x 12 us.
            max_bdp: 162_500,
            pair_bdp: 150_000,
            ..flow_ctx(100, 13, 12)
        };
        Harness {
            cc: kind.new_flow(&ctx),
            kind,
            ctx,
            now: SimTime::ZERO,
            seq: 0,
            snd_nxt: 0,
            tx_bytes: 0,
            rx_bytes: 0,
            rx: RxCtl::None,
            nic: RxNicState::new(crate::lazy_rng::LazyRng::new(3)),
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Ack {
                packets,
                rtt_ns,
                qlen,
                ecn,
                nack,
            } => {
                self.now += Delta::from_ns(1);
                let bytes = packets as u64 * 1000;
                let sent_at = SimTime(self.now.ps().saturating_sub(rtt_ns as u64 * 1000));
                self.snd_nxt = self.snd_nxt.max(self.seq + bytes) + 1000;
                let newly = if nack { 0 } else { bytes };
                self.seq += newly;
                self.tx_bytes += bytes;
                self.rx_bytes += bytes + qlen as u64 / 16;
                // The counter a switch would stamp for this controller.
                let hop = IntHop {
                    ts: self.now,
                    bytes: match self.kind.int_counter() {
                        IntCounter::Tx => self.tx_bytes,
                        IntCounter::Rx => self.rx_bytes,
                    },
                    qlen: qlen as u64,
                    rate: self.ctx.line_rate,
                };
                // The PINT code a switch would stamp for that queue on a busy link.
                let u = 1.0 + qlen as f64 / self.ctx.max_bdp as f64;
                let pint = self.kind.pint().map_or(0, |c| c.encode(u, rtt_ns as u16));
                let mut fb = None;
                if let Some(r) = self.kind.receiver() {
                    let ev = RxEvent {
                        now: self.now,
                        flow: 0,
                        seq: self.seq,
                        payload: 1000,
                        wire: 1062 * packets as u64,
                        sent_at: SimTime(self.now.ps().saturating_sub(rtt_ns as u64 * 500)),
                        first: self.seq == bytes,
                        last: false,
                        complete: false,
                        line_rate: self.ctx.line_rate,
                        t: self.ctx.base_rtt,
                        one_way: Delta::from_us(6), // half the pair RTT
                        base_rtt: self.ctx.pair_rtt,
                        credit_seq: 0,
                        credit_sent: SimTime::ZERO,
                    };
                    // The NIC counts every arriving frame before the receiver runs.
                    self.nic.on_frame(ev.now, ev.wire);
                    fb = Some(r.on_data(&mut self.rx, &mut self.nic, &ev));
                }
                self.cc.on_ack(&AckInfo {
                    now: self.now,
                    seq: self.seq,
                    snd_nxt: self.snd_nxt,
                    newly_acked: newly,
                    is_nack: nack,
                    ecn_echo: ecn,
                    int: &[hop],
                    pint,
                    data_sent_at: sent_at,
                    rx_window: fb.map(|f| f.window).filter(|&w| w > 0),
                    rx_busy: fb.is_some_and(|f| f.busy),
                    grant: None,
                });
            }
            Op::Cnp => self.cc.on_cnp(self.now),
            Op::Timer => {
                if let Some(t) = self.cc.next_timer() {
                    self.now = self.now.max(t);
                    self.cc.on_timer(self.now);
                }
            }
            Op::Timeout => self.cc.on_timeout(self.now),
            Op::Send(wire) => self.cc.on_send(self.now, wire as u64),
            Op::Advance(ns) => self.now += Delta::from_ns(ns as u64),
        }
    }

    fn check(&self, floor: Rate) -> Result<(), TestCaseError> {
        let name = self.kind.name();
        let r = self.cc.rate();
        prop_assert!(
            r >= floor && r <= self.ctx.line_rate,
            "{name}: rate {r:?} outside [{floor:?}, line]"
        );
        if let Cc::ExpressPass(_) = &self.cc {
            // A credit gate, not a byte window: closed (0) or open (unbounded);
            // no ACK opens it, only a credit.
            prop_assert_eq!(self.cc.window(), Some(0), "{}: open without credits", name);
        } else if let Some(w) = self.cc.window() {
            prop_assert!(w > 0, "{name}: zero window");
            prop_assert!(w < 1 << 50, "{name}: window {w} not finite");
        }
        if let Some(t) = self.cc.next_timer() {
            // A timer may be due now but never lie in the past unserved after `Timer`.
            prop_assert!(t.ps() < u64::MAX / 2, "{name}: timer {t:?}");
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_controller_keeps_its_rate_and_window_in_bounds(ops in prop::collection::vec(op(), 1..300)) {
        for (kind, floor) in kinds() {
            let mut h = Harness::new(kind);
            h.check(floor)?;
            for op in &ops {
                h.apply(op);
                h.check(floor)?;
            }
        }
    }
}

#[test]
fn the_harness_covers_every_algorithm() {
    let names: Vec<_> = kinds().iter().map(|(k, _)| k.name()).collect();
    assert_eq!(names, ALGORITHMS);
}
