//! `dctcp-ns3`: the HPCC ns-3 simulator's rate-based DCTCP (CC_MODE 8;
//! hpcc-ns3-model.md §8, rdma-hw.cc `HandleAckDctcp`).
//!
//! Every ACK adds its CNP (ECN-echo) flag to a count. An ACK with
//! `seq > lastUpdateSeq` starts a new batch: the first time it only sets
//! `lastUpdateSeq = snd_nxt` and the batch size `snd_nxt / MTU + 1`; later
//! `alpha = (1 - g) alpha + g min(1, count / batch)` (alpha starts at 1), the count
//! resets, the batch becomes `(snd_nxt - seq) / MTU + 1` and `lastUpdateSeq =
//! snd_nxt`. CWR ends when `seq > highSeq`. A flagged ACK outside CWR cuts
//! `R = max(MIN_RATE, R (1 - alpha/2))`, enters CWR and sets `highSeq = snd_nxt`.
//! Outside CWR each new batch adds DCTCP_RATE_AI (capped at line rate). The rate
//! is assigned directly (no re-spacing).

use super::{Ns3CcConfig, Ns3Qp, rate_and_window_of_qp, rate_mul};
use crate::cc::{AckInfo, CongestionControl, FlowCtx};
use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct DctcpNs3 {
    qp: Ns3Qp,
    g: f64,
    rai: u64,
    min_rate: u64,
    mtu: u64,
    alpha: f64,
    ecn_cnt: u64,
    batch: u64,
    last_update_seq: u64,
    cwr: bool,
    high_seq: u64,
    /// The ACK being processed carries the CNP flag (`on_cnp` comes first).
    cnp: bool,
}

impl DctcpNs3 {
    pub(crate) fn new(cfg: &Ns3CcConfig, ctx: &FlowCtx) -> Self {
        DctcpNs3 {
            qp: Ns3Qp::new(cfg, ctx),
            g: cfg.ewma_gain,
            rai: cfg.dctcp_rate_ai.bps(),
            min_rate: cfg.min_rate.bps(),
            mtu: ctx.mtu as u64,
            alpha: 1.0,
            ecn_cnt: 0,
            batch: 0,
            last_update_seq: 0,
            cwr: false,
            high_seq: 0,
            cnp: false,
        }
    }

    #[cfg(test)]
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for DctcpNs3 {
    fn on_cnp(&mut self, _now: SimTime) {
        self.cnp = true;
    }

    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let cnp = std::mem::take(&mut self.cnp);
        let snd_nxt = ack.snd_nxt;
        self.ecn_cnt += cnp as u64;
        let mut new_batch = false;
        if ack.seq > self.last_update_seq {
            new_batch = true;
            if self.last_update_seq == 0 {
                self.last_update_seq = snd_nxt;
                self.batch = snd_nxt / self.mtu + 1;
            } else {
                let frac = (self.ecn_cnt as f64 / self.batch as f64).min(1.0);
                self.alpha = (1.0 - self.g) * self.alpha + self.g * frac;
                self.last_update_seq = snd_nxt;
                self.ecn_cnt = 0;
                self.batch = snd_nxt.saturating_sub(ack.seq) / self.mtu + 1;
            }
        }
        if self.cwr && ack.seq > self.high_seq {
            self.cwr = false;
        }
        if cnp && !self.cwr {
            self.qp.rate = self
                .min_rate
                .max(rate_mul(self.qp.rate, 1.0 - self.alpha / 2.0));
            self.cwr = true;
            self.high_seq = snd_nxt;
        }
        if !self.cwr && new_batch {
            self.qp.rate = self.qp.max_rate.min(self.qp.rate + self.rai);
        }
    }

    rate_and_window_of_qp!();
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{ack, ctx};
    use super::*;
    use crate::units::Rate;

    #[test]
    fn a_marked_ack_halves_the_rate_once_per_window_with_alpha_one() {
        let mut d = DctcpNs3::new(&Ns3CcConfig::default(), &ctx());
        d.on_ack(&ack(5000, 1000, 50_000, &[]));
        assert_eq!(d.rate(), Rate::from_gbps(100), "capped at line rate");
        d.on_cnp(SimTime::ZERO);
        d.on_ack(&ack(5100, 2000, 51_000, &[]));
        assert_eq!(d.rate(), Rate::from_gbps(50));
        // Still in CWR (seq <= highSeq = 51000): a second mark does not cut again.
        d.on_cnp(SimTime::ZERO);
        d.on_ack(&ack(5200, 3000, 52_000, &[]));
        assert_eq!(d.rate(), Rate::from_gbps(50));
    }

    #[test]
    fn each_new_batch_outside_cwr_updates_alpha_and_adds_the_increase() {
        let mut d = DctcpNs3::new(&Ns3CcConfig::default(), &ctx());
        d.on_ack(&ack(5000, 1000, 50_000, &[])); // batch = 51
        d.on_cnp(SimTime::ZERO);
        d.on_ack(&ack(5100, 2000, 51_000, &[])); // cut to 50G, CWR until 51000
        // New batch (seq > lastUpdateSeq = 50000) and CWR ends (seq > 51000):
        // alpha = (1 - g) + g x 1/51, then + 1 Gbps.
        d.on_ack(&ack(9000, 51_001, 100_000, &[]));
        let g = 0.00390625;
        assert_eq!(d.alpha(), (1.0 - g) * 1.0 + g * (1.0f64 / 51.0).min(1.0));
        assert_eq!(d.rate(), Rate::from_gbps(51));
    }
}
