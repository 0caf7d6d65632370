//! Receiver-side congestion control: one small trait, called by the NIC for every
//! data packet it receives, returning the window to put in the ACK (0 = none).
//! Static dispatch through [`ReceiverKind`] (shared by all flows of a run) and
//! [`RxCtl`] (per-flow state, kept in the receiver's queue pair). RCC
//! (src/cc/rcc.rs, RCC §III and Algorithm 1) sets windows through it;
//! ExpressPass (src/cc/xpass/) counts the credits data packets echo through it
//! (its credit pacing is driven by the NIC, `nic/credit.rs`).
//!
//! The NIC keeps the per-receiver state the algorithms share (active-message
//! count, bytes received over the last base RTT) in
//! [`crate::cc::rx_nic::RxNicState`]; the per-flow state lives beside `RecvQp`.
//! The NIC counts every frame that reaches it into that state before it hands a
//! data packet to [`ReceiverControl::on_data`], which only reads the count.

use super::rcc::{Congestion, RccConfig, RccCore, RccVariant};
use crate::cc::rx_nic::RxNicState;
use crate::units::{Delta, Rate, SimTime};
use rand::Rng;

/// One data packet as the receiver sees it, plus the flow's static facts.
#[derive(Clone, Copy, Debug)]
pub struct RxEvent {
    pub now: SimTime,
    pub flow: u32,
    pub seq: u64,
    pub payload: u64,
    /// Wire bytes of the packet.
    pub wire: u64,
    /// When the sender NIC put it on the wire (the header timestamp).
    pub sent_at: SimTime,
    /// RDMA WRITE First / Last.
    pub first: bool,
    pub last: bool,
    /// The message is complete at the receiver after this packet.
    pub complete: bool,
    /// The receiver NIC's line rate (the last hop's capacity C).
    pub line_rate: Rate,
    /// The control interval T (HPCC §5.1), shared with the sender.
    pub t: Delta,
    /// The flow's base one-way delay and base RTT.
    pub one_way: Delta,
    pub base_rtt: Delta,
    /// ExpressPass: the credit this data packet spent, and when the receiver
    /// sent it (echoed by the sender).
    pub credit_seq: u32,
    pub credit_sent: SimTime,
}

/// What the receiver tells the sender in the ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxFeedback {
    /// Window in bytes; 0 = none.
    pub window: u64,
    /// The receiver's last hop is busy (rcc-sender).
    pub busy: bool,
}

/// The receiver-side hook.
pub trait ReceiverControl {
    fn on_data(&self, flow: &mut RxCtl, nic: &mut RxNicState, ev: &RxEvent) -> RxFeedback;
}

/// The configured receiver-side algorithm, shared by all flows of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum ReceiverKind {
    Rcc(RccConfig, RccVariant),
    Xpass(super::xpass::XpassConfig),
}

/// Per-flow receiver-side state.
#[derive(Clone, Debug, Default)]
pub enum RxCtl {
    #[default]
    None,
    Rcc(Box<RccRx>),
    /// ExpressPass credit pacing and feedback, from the flow's CREDIT_REQUEST.
    Xpass(Box<super::xpass::feedback::XpassRx>),
}

impl RxCtl {
    /// The flow's last congestion classification, if the receiver classifies.
    pub fn congestion(&self) -> Congestion {
        match self {
            RxCtl::None => Congestion::Unknown,
            RxCtl::Rcc(r) => r.core.class(),
            RxCtl::Xpass(_) => Congestion::Unknown,
        }
    }
}

/// RCC's per-flow receiver state.
#[derive(Clone, Debug)]
pub struct RccRx {
    core: RccCore,
    /// Counted in the NIC's active messages, and no longer (last packet seen).
    counted: bool,
    finished: bool,
}

impl ReceiverControl for ReceiverKind {
    fn on_data(&self, flow: &mut RxCtl, nic: &mut RxNicState, ev: &RxEvent) -> RxFeedback {
        let (cfg, variant) = match self {
            ReceiverKind::Rcc(cfg, variant) => (cfg, variant),
            ReceiverKind::Xpass(_) => {
                // Data comes only on credits, after the CREDIT_REQUEST that
                // made the receiver's state.
                if let RxCtl::Xpass(x) = flow {
                    x.fb.on_data(ev.now, ev.credit_seq, ev.credit_sent);
                    if ev.complete {
                        // The message is whole: no more credits (our receiver
                        // knows the message's end; ns-2 waits for CREDIT_STOP).
                        x.next_at = None;
                    }
                }
                return RxFeedback::default();
            }
        };
        let line_bps = ev.line_rate.bps_f64();
        let line_w = ev.line_rate.bytes_in(ev.t) as f64;
        if matches!(flow, RxCtl::None) {
            let w_min = super::rcc::min_window(cfg, ev.t).min(line_w);
            let interval = cfg.update_interval.unwrap_or(ev.base_rtt);
            *flow = RxCtl::Rcc(Box::new(RccRx {
                core: RccCore::new(cfg, ev.one_way, interval, line_w, w_min),
                counted: false,
                finished: false,
            }));
            nic.register_flow(ev.now, ev.base_rtt);
        }
        let RxCtl::Rcc(rx) = flow else {
            unreachable!("just created")
        };
        // N from the first/last packets of each message (§III-D).
        if !rx.counted && !rx.finished {
            rx.counted = true;
            nic.active_msgs += 1;
        }
        if ev.complete && rx.counted {
            rx.counted = false;
            rx.finished = true;
            nic.active_msgs -= 1;
        }
        let n = nic.active_msgs.max(1);
        let busy = nic.last_hop_busy(line_bps, cfg.eta);
        let fair = match variant {
            RccVariant::Pid => line_w,
            _ => line_w / n as f64,
        };
        if *variant == RccVariant::Sender {
            // Detection and PID run at the sender (§III-G).
            return RxFeedback {
                window: fair.round().max(1.0) as u64,
                busy,
            };
        }
        let mut delay = ev.now.since(ev.sent_at).as_secs_f64();
        let j = cfg.clock_jitter.as_secs_f64();
        if j > 0.0 {
            delay += nic.rng.random_range(-j..=j);
        }
        let w = rx.core.on_sample(ev.now, delay, fair, busy, *variant);
        RxFeedback {
            window: w.round().max(1.0) as u64,
            busy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(now_ns: u64, flow: u32, first: bool, complete: bool) -> RxEvent {
        RxEvent {
            now: SimTime(now_ns * 1000),
            flow,
            seq: 0,
            payload: 1000,
            wire: 1062,
            // One way (2.2 us) earlier, but not before the run began.
            sent_at: SimTime((now_ns * 1000).saturating_sub(2_200_000)),
            first,
            last: complete,
            complete,
            line_rate: Rate::from_gbps(100),
            t: Delta::from_us(10),
            one_way: Delta::from_ns(2200),
            base_rtt: Delta::from_ns(4400),
            credit_seq: 0,
            credit_sent: SimTime::ZERO,
        }
    }

    #[test]
    fn the_fair_share_divides_the_line_window_by_the_active_messages() {
        let kind = ReceiverKind::Rcc(RccConfig::default(), RccVariant::Full);
        let mut nic = RxNicState::new(crate::lazy_rng::LazyRng::new(1));
        let (mut a, mut b) = (RxCtl::None, RxCtl::None);
        // 100 Gbps x 10 us = 125 KB for one message, half each for two.
        assert_eq!(
            kind.on_data(&mut a, &mut nic, &ev(0, 0, true, false))
                .window,
            125_000
        );
        assert_eq!(
            kind.on_data(&mut b, &mut nic, &ev(100, 1, true, false))
                .window,
            62_500
        );
        assert_eq!(nic.active_msgs, 2);
        // Duplicates and later packets do not count twice; the last one leaves.
        assert_eq!(
            kind.on_data(&mut a, &mut nic, &ev(200, 0, false, false))
                .window,
            62_500
        );
        kind.on_data(&mut a, &mut nic, &ev(300, 0, false, true));
        assert_eq!(nic.active_msgs, 1);
        assert_eq!(
            kind.on_data(&mut b, &mut nic, &ev(400, 1, false, false))
                .window,
            125_000
        );
        kind.on_data(&mut a, &mut nic, &ev(500, 0, false, true));
        assert_eq!(
            nic.active_msgs, 1,
            "a finished message is not counted again"
        );
    }

    #[test]
    fn rcc_sender_feeds_back_the_fair_share_and_the_busy_bit_only() {
        let kind = ReceiverKind::Rcc(RccConfig::default(), RccVariant::Sender);
        let mut nic = RxNicState::new(crate::lazy_rng::LazyRng::new(1));
        let mut a = RxCtl::None;
        let mut t = 0;
        let mut fb = RxFeedback::default();
        // 100 Gbps of arrivals for more than one base RTT (4.4 us).
        while t < 10_000 {
            let e = ev(t, 0, t == 0, false);
            nic.on_frame(e.now, e.wire);
            fb = kind.on_data(&mut a, &mut nic, &e);
            t += 85;
        }
        assert!(fb.busy);
        assert_eq!(fb.window, 125_000);
        assert_eq!(a.congestion(), Congestion::Unknown);
    }

    #[test]
    fn a_downlink_full_of_data_and_acks_reads_busy_though_data_alone_is_below_eta() {
        // Per 85 ns (100 Gbps = 1062 B): 94 % data frames, 6 % ACK frames.
        let kind = ReceiverKind::Rcc(RccConfig::default(), RccVariant::Sender);
        let run = |count_acks: bool| {
            let mut nic = RxNicState::new(crate::lazy_rng::LazyRng::new(1));
            let mut a = RxCtl::None;
            let mut fb = RxFeedback::default();
            for k in 0..120u64 {
                let e = ev(k * 85, 0, k == 0, false);
                nic.on_frame(e.now, 998); // 94 % of the 1062 B slot
                fb = kind.on_data(&mut a, &mut nic, &e);
                if count_acks {
                    nic.on_frame(e.now, 64); // the returning ACK: 6 %
                }
            }
            fb.busy
        };
        assert!(run(true), "data + ACKs fill the link: busy");
        assert!(!run(false), "data alone is 94 % < eta = 95 %");
    }
}
