//! ExpressPass (Cho et al., SIGCOMM'17): credit-based, receiver-driven
//! transport. The data receiver paces credits toward the sender; every switch
//! port (and the receiver's own NIC) rate-limits credits to `credit_share` of
//! its link with a small tail-drop credit queue ([`shaper`], §3.1); the
//! sender sends one data packet per credit it receives, echoing the credit's
//! number; the receiver adjusts its credit rate from the credits that were
//! lost ([`feedback`], §3.2 / Algorithm 1). Credits are sized so that one full
//! data packet per credit fills the rest of the reverse link, so the data a
//! link carries never exceeds its rate and its queue stays near empty.
//!
//! Facts and parameters follow the public ns-2 code (kaist-ina/ns2-xpass,
//! comparators.md §3), cited by file and line; docs/models.md ("ExpressPass")
//! audits each against this code.
//!
//! Wire sizes: ns-2 counts preamble and inter-frame gap in every size (a credit
//! is 84 B = 64 B minimum frame + 20 B); our wire sizes do not, so a credit is
//! the 64 B minimum Ethernet frame ([`CREDIT_WIRE`]; CREDIT_REQUEST and
//! CREDIT_STOP too) and the default share is `64 / (64 + full data packet)`,
//! which is ns-2's `84 / (84 + 1538)` in its accounting.
//!
//! This file holds the parameters, the registration and the sender's state:
//! the credits it holds, each allowing one data packet. The NIC side (timers,
//! packets) is `nic/credit.rs`, the switch side `switch/credit.rs`.

pub mod feedback;
pub mod shaper;

use super::registry::{Algorithm, ParamError, checked};
use super::{CongestionControl, FlowCtx};
use crate::units::{Rate, SimTime};
use serde::{Deserialize, Serialize};
use shaper::CreditPlan;
use std::collections::VecDeque;

/// Wire bytes of a credit, CREDIT_REQUEST and CREDIT_STOP: a minimum Ethernet
/// frame (ns-2 `min_ethernet_size_` 84 B less preamble and gap,
/// `xpass.cc:356,384,418`).
pub const CREDIT_WIRE: u32 = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct XpassConfig {
    /// Initial credit rate as a fraction of the maximum (`alpha_`,
    /// ns-default.tcl:1610): 0.5.
    pub alpha: f64,
    /// Initial aggressiveness `w` (`w_init_`, ns-default.tcl:1612): 0.5.
    pub w_init: f64,
    /// Floor of `w` (`min_w_`, ns-default.tcl:1613): 0.01.
    pub min_w: f64,
    /// Target loss at zero rate (`target_loss_scaling_`, ns-default.tcl:1611): 0.125.
    pub target_loss_scaling: f64,
    /// Credit gap jitter, a fraction of the gap drawn uniformly in
    /// `[-jitter, jitter]` (ns-default.tcl:1616-1617): 0.1.
    pub jitter: f64,
    /// Credit queue per port, in credits (large-scale-fattree.tcl:35): 8.
    pub credit_queue: u32,
    /// Token bucket depth per port, in credits (large-scale-fattree.tcl:36): 2.
    pub credit_bucket: u32,
    /// Fraction of each link credits may use; by default
    /// `credit / (credit + full data packet)` (ns-2 84/1622 = 5.18 %).
    pub credit_share: Option<f64>,
}

impl Default for XpassConfig {
    fn default() -> Self {
        XpassConfig {
            alpha: 0.5,
            w_init: 0.5,
            min_w: 0.01,
            target_loss_scaling: 0.125,
            jitter: 0.1,
            credit_queue: 8,
            credit_bucket: 2,
            credit_share: None,
        }
    }
}

impl XpassConfig {
    pub(crate) fn validate(&self) -> Result<(), ParamError> {
        let unit = |name: &str, v: f64, eg: &str| {
            if v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err((name.to_string(), format!("must be in (0, 1], e.g. {eg}")))
            }
        };
        unit("alpha", self.alpha, "0.5")?;
        unit("w_init", self.w_init, "0.5")?;
        unit("min_w", self.min_w, "0.01")?;
        unit("target_loss_scaling", self.target_loss_scaling, "0.125")?;
        if let Some(s) = self.credit_share
            && !(s > 0.0 && s < 1.0)
        {
            return Err(("credit_share".into(), "must be in (0, 1), e.g. 0.05".into()));
        }
        if !(0.0..1.0).contains(&self.jitter) {
            return Err(("jitter".into(), "must be in [0, 1), e.g. 0.1".into()));
        }
        if self.min_w > self.w_init {
            return Err((
                "min_w".into(),
                format!("must not exceed w_init ({})", self.w_init),
            ));
        }
        if self.credit_queue == 0 {
            return Err((
                "credit_queue".into(),
                "must be at least 1 credit, e.g. 8".into(),
            ));
        }
        if self.credit_bucket == 0 {
            return Err((
                "credit_bucket".into(),
                "must be at least 1 credit, e.g. 2".into(),
            ));
        }
        Ok(())
    }

    /// The credit queues of a run where one credit stands for `slot_wire` bytes:
    /// the full data packet it admits and the ACK bytes that packet returns
    /// (`NicPlan::credit_slot_wire`). The share makes credits and the traffic
    /// they cause fill a link exactly, as ns-2's 84/(84+1538) does without ACKs.
    pub fn plan(&self, slot_wire: f64) -> CreditPlan {
        let c = CREDIT_WIRE as f64;
        CreditPlan {
            share: self.credit_share.unwrap_or(c / (c + slot_wire)),
            queue_bytes: self.credit_queue * CREDIT_WIRE,
            bucket_bytes: self.credit_bucket * CREDIT_WIRE,
            credit_wire: CREDIT_WIRE,
        }
    }

    /// The most credits per second a receiver behind a `rate` link sends one
    /// flow (`max_credit_rate_`, large-scale-fattree.tcl:46).
    pub fn max_credit_rate(&self, rate: Rate, slot_wire: f64) -> f64 {
        rate.bps_f64() * self.plan(slot_wire).share / (8.0 * CREDIT_WIRE as f64)
    }
}

impl Algorithm for XpassConfig {
    type Flow = XpassSender;
    type Table = XpassConfig;
    const NAMES: &'static [&'static str] = &["expresspass"];
    fn resolve(_: &str, table: &XpassConfig) -> Result<Self, ParamError> {
        checked(table, XpassConfig::validate)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> XpassSender {
        XpassSender::new(ctx.line_rate)
    }
    fn receiver(&self) -> Option<super::ReceiverKind> {
        Some(super::ReceiverKind::Xpass(self.clone()))
    }
    /// Data must come back along its credits' path (§3.1: symmetric routing).
    fn needs_one_path(&self) -> Option<&'static str> {
        Some("sends each data packet back along the path its credit took")
    }
}

/// The data sender's credits: one data packet per credit, in arrival order.
/// The NIC does not pace it (line rate); its "window" is open exactly while
/// it holds a credit, which is how the NIC's transmit loop sees credits.
#[derive(Clone, Debug)]
pub struct XpassSender {
    line_rate: Rate,
    /// Credits held: (sequence number, when the receiver sent it).
    credits: VecDeque<(u32, SimTime)>,
    /// The sender told the receiver to stop (CREDIT_STOP), and has not asked
    /// again since.
    pub stopped: bool,
    /// Credits that came when there was nothing to send (ns-2 `credit_wasted_`).
    pub wasted: u64,
}

impl XpassSender {
    pub fn new(line_rate: Rate) -> XpassSender {
        XpassSender {
            line_rate,
            credits: VecDeque::new(),
            stopped: false,
            wasted: 0,
        }
    }

    /// A credit arrived and there is data to send.
    pub fn on_credit(&mut self, seq: u32, sent_at: SimTime) {
        self.credits.push_back((seq, sent_at));
    }

    /// The credit a data packet about to go spends (its number and time are
    /// echoed in the packet).
    pub fn take_credit(&mut self) -> (u32, SimTime) {
        self.credits
            .pop_front()
            .expect("the window is open only while a credit is held")
    }

    /// Drops the credits held: nothing is left to send.
    pub fn waste_held(&mut self) {
        self.wasted += self.credits.len() as u64;
        self.credits.clear();
    }
}

impl CongestionControl for XpassSender {
    fn rate(&self) -> Rate {
        self.line_rate
    }
    fn window(&self) -> Option<u64> {
        Some(if self.credits.is_empty() { 0 } else { u64::MAX })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_share_leaves_the_link_to_one_full_packet_per_credit() {
        let cfg = XpassConfig::default();
        let plan = cfg.plan(1518.0);
        // ns-2's 84/(84+1538) in its preamble-and-gap accounting.
        assert!((plan.share - 64.0 / 1582.0).abs() < 1e-12);
        // 100 Gbps, 1062 B packets and a 64 B ACK each: one credit per
        // (64 + 1062 + 64) B slot.
        let r = cfg.max_credit_rate(Rate::from_gbps(100), 1126.0);
        assert!((r - 100e9 / 8.0 / 1190.0).abs() < 1e-3);
    }

    #[test]
    fn bad_values_name_their_field() {
        let bad = |f: fn(&mut XpassConfig)| {
            let mut c = XpassConfig::default();
            f(&mut c);
            c.validate().unwrap_err().0
        };
        assert_eq!(bad(|c| c.alpha = 0.0), "alpha");
        assert_eq!(bad(|c| c.credit_share = Some(1.0)), "credit_share");
        assert_eq!(bad(|c| c.jitter = -0.1), "jitter");
        assert_eq!(bad(|c| c.min_w = 0.9), "min_w");
        assert_eq!(bad(|c| c.credit_queue = 0), "credit_queue");
    }

    #[test]
    fn the_sender_window_is_open_while_it_holds_a_credit() {
        let mut s = XpassSender::new(Rate::from_gbps(100));
        assert_eq!(s.window(), Some(0));
        s.on_credit(4, SimTime(10));
        s.on_credit(5, SimTime(20));
        assert_eq!(s.window(), Some(u64::MAX));
        assert_eq!(s.take_credit(), (4, SimTime(10)));
        s.waste_held();
        assert_eq!((s.window(), s.wasted), (Some(0), 1));
    }
}
