//! The data receiver's side of ExpressPass: credit pacing and the credit
//! feedback control (ExpressPass (SIGCOMM'17) §3.2 / Algorithm 1, as the ns-2
//! code runs it: `xpass/xpass.cc:479-502` pacing, `:248-265` loss counting,
//! `:566-619` the feedback; comparators.md §3 (b) 2-7).
//!
//! Rates are in credits per second (ns-2 keeps bytes per second of credit in
//! an `int`; with one credit size the two differ by that size). The feedback
//! runs when a credit is about to be sent, at most once per RTT (`rtt` is an
//! EWMA of credit-to-data round trips) and only once some credit came back:
//!
//! - `loss = dropped / total` over the credits sent since the last update
//!   (gaps in the credit sequence numbers that data packets echo);
//!   `target = (1 - cur/max) x target_loss_scaling`;
//! - loss above target: `cur` = the rate of credits that came back,
//!   `(total - dropped) / elapsed x (1 + target)` (one credit per RTT when all
//!   were lost), never above the old rate; `w = max(w/2, min_w)`, and `w` may
//!   not grow at the next update;
//! - otherwise `w = min(w + 0.05, 0.5)` (after one update without loss) and
//!   `cur = w x max + (1 - w) x cur`;
//! - `cur` is clamped to `[1 credit / RTT, max]`.

use super::XpassConfig;
use crate::units::{Delta, SimTime};
use rand::Rng;

/// `w`'s ceiling and step (hard-coded in `xpass.cc:600`).
pub const W_MAX: f64 = 0.5;
pub const W_STEP: f64 = 0.05;

/// The credit feedback control of one flow (ns-2's `credit_send_state_` side).
#[derive(Clone, Debug, PartialEq)]
pub struct Feedback {
    /// Credits per second now, and at most.
    pub cur: f64,
    pub max: f64,
    pub w: f64,
    min_w: f64,
    target_loss_scaling: f64,
    can_increase_w: bool,
    /// Credits sent and lost since the last update, counted when data echoes them.
    pub total: u64,
    pub dropped: u64,
    /// The next credit sequence number expected back.
    recv_next: u32,
    /// Smoothed credit round trip, seconds; 0 before the first sample.
    pub rtt: f64,
    last_update: SimTime,
}

impl Feedback {
    /// A flow whose receiver starts crediting at `now`, `max` credits/s at most
    /// (ns-2 `init()`: `w = w_init`, `cur = alpha x max`).
    pub fn new(cfg: &XpassConfig, max: f64, now: SimTime) -> Feedback {
        Feedback {
            cur: cfg.alpha * max,
            max,
            w: cfg.w_init,
            min_w: cfg.min_w,
            target_loss_scaling: cfg.target_loss_scaling,
            can_increase_w: false,
            total: 0,
            dropped: 0,
            recv_next: 0,
            rtt: 0.0,
            last_update: now,
        }
    }

    /// A data packet came back echoing credit `seq`, sent at `credit_sent`.
    /// Credits are never reordered on a path, so a gap is a loss.
    pub fn on_data(&mut self, now: SimTime, seq: u32, credit_sent: SimTime) {
        let gap = seq.wrapping_sub(self.recv_next);
        if gap < u32::MAX / 2 {
            self.total += gap as u64 + 1;
            self.dropped += gap as u64;
            self.recv_next = seq.wrapping_add(1);
        }
        // A retransmission's credit can echo an older number only if credits
        // were reordered, which one path does not do: it is not counted.
        let sample = now.since(credit_sent).as_secs_f64();
        self.rtt = if self.rtt > 0.0 {
            0.8 * self.rtt + 0.2 * sample
        } else {
            sample
        };
    }

    /// The feedback step, run before each credit is sent: at most once per RTT.
    pub fn update(&mut self, now: SimTime) {
        if self.rtt <= 0.0 || now.since(self.last_update).as_secs_f64() < self.rtt {
            return;
        }
        if self.total == 0 {
            return;
        }
        let old = self.cur;
        let loss = self.dropped as f64 / self.total as f64;
        let target = (1.0 - self.cur / self.max) * self.target_loss_scaling;
        let min_rate = 1.0 / self.rtt;
        if loss > target {
            self.cur = if loss >= 1.0 {
                min_rate
            } else {
                let elapsed = now.since(self.last_update).as_secs_f64();
                (self.total - self.dropped) as f64 / elapsed * (1.0 + target)
            };
            self.cur = self.cur.min(old);
            self.w = (self.w / 2.0).max(self.min_w);
            self.can_increase_w = false;
        } else {
            if self.can_increase_w {
                self.w = (self.w + W_STEP).min(W_MAX);
            } else {
                self.can_increase_w = true;
            }
            if self.cur < self.max {
                self.cur = self.w * self.max + (1.0 - self.w) * self.cur;
            }
        }
        self.cur = self.cur.min(self.max).max(min_rate);
        self.total = 0;
        self.dropped = 0;
        self.last_update = now;
    }
}

/// A flow's credit pacing at its receiver.
#[derive(Clone, Debug)]
pub struct XpassRx {
    pub fb: Feedback,
    /// The next credit's sequence number.
    pub next_seq: u32,
    /// When the next credit is due; `None` while stopped.
    pub next_at: Option<SimTime>,
}

impl XpassRx {
    pub fn new(cfg: &XpassConfig, max: f64, now: SimTime) -> XpassRx {
        XpassRx {
            fb: Feedback::new(cfg, max, now),
            next_seq: 0,
            next_at: Some(now),
        }
    }

    /// A credit goes now: runs the feedback, numbers the credit and sets the
    /// next one `1/cur x (1 + j)` later, `j` uniform in `[-jitter, jitter]`.
    /// Returns the credit's sequence number.
    pub fn credit_due(&mut self, cfg: &XpassConfig, now: SimTime, rng: &mut impl Rng) -> u32 {
        self.fb.update(now);
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        let j = if cfg.jitter > 0.0 {
            rng.random_range(-cfg.jitter..=cfg.jitter)
        } else {
            0.0
        };
        let gap = Delta::from_secs_f64((1.0 + j) / self.fb.cur).max(Delta(1));
        self.next_at = Some(now + gap);
        seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    fn fb(cur_frac: f64) -> Feedback {
        let cfg = XpassConfig::default();
        let mut f = Feedback::new(&cfg, 1e7, SimTime::ZERO);
        f.cur = cur_frac * f.max;
        f.rtt = 10e-6;
        f
    }

    #[test]
    fn no_update_before_an_rtt_has_passed_or_before_any_credit_came_back() {
        let mut f = fb(0.5);
        f.total = 10;
        f.update(SimTime(5 * US));
        assert_eq!(f.cur, 0.5e7);
        f.total = 0;
        f.update(SimTime(20 * US));
        assert_eq!(f.cur, 0.5e7);
    }

    #[test]
    fn without_loss_the_rate_moves_w_of_the_way_to_max_and_w_grows_after_one_period() {
        let mut f = fb(0.5);
        f.total = 100;
        f.update(SimTime(10 * US));
        // w = 0.5 (not raised the first time): cur = 0.5 max + 0.5 x 0.5 max.
        assert!((f.cur - 0.75e7).abs() < 1e-6, "{}", f.cur);
        assert_eq!(f.w, 0.5);
        f.w = 0.1;
        f.total = 100;
        f.update(SimTime(20 * US));
        assert!((f.w - 0.15).abs() < 1e-12);
        assert!((f.cur - (0.15e7 + 0.85 * 0.75e7)).abs() < 1e-3);
        assert_eq!((f.total, f.dropped), (0, 0), "counters reset");
    }

    #[test]
    fn loss_above_target_sets_the_rate_from_the_credits_that_came_back_and_halves_w() {
        let mut f = fb(0.8);
        // target = (1 - 0.8) x 0.125 = 0.025; loss = 0.5.
        f.total = 100;
        f.dropped = 50;
        f.update(SimTime(10 * US));
        let expect = 50.0 / 10e-6 * (1.0 + 0.025);
        assert!((f.cur - expect).abs() < 1e-3, "{} vs {expect}", f.cur);
        assert_eq!(f.w, 0.25);
        // Next period without loss: w is not raised yet.
        f.total = 10;
        f.update(SimTime(20 * US));
        assert_eq!(f.w, 0.25);
    }

    #[test]
    fn loss_below_target_is_no_congestion_and_the_rate_never_rises_on_loss() {
        // At cur = 0.2 max the target is 0.1: 5 % loss is tolerated.
        let mut f = fb(0.2);
        f.total = 100;
        f.dropped = 5;
        f.update(SimTime(10 * US));
        assert!(f.cur > 0.2e7);
        // Heavy loss but many credits back: the rate is capped at the old one.
        let mut f = fb(0.1);
        f.total = 1000;
        f.dropped = 500;
        f.update(SimTime(10 * US));
        assert_eq!(f.cur, 0.1e7);
    }

    #[test]
    fn total_loss_drops_to_one_credit_per_rtt_and_w_stops_at_min_w() {
        let mut f = fb(0.9);
        f.w = 0.015;
        f.total = 10;
        f.dropped = 10;
        f.update(SimTime(10 * US));
        assert!((f.cur - 1e5).abs() < 1e-6, "{}", f.cur);
        assert_eq!(f.w, 0.01);
    }

    #[test]
    fn gaps_in_echoed_credit_numbers_count_as_dropped_credits() {
        let mut f = fb(0.5);
        f.rtt = 0.0;
        f.on_data(SimTime(3 * US), 0, SimTime(US));
        f.on_data(SimTime(4 * US), 3, SimTime(2 * US));
        assert_eq!((f.total, f.dropped), (4, 2));
        assert!((f.rtt - 2e-6).abs() < 1e-12);
    }

    #[test]
    fn credits_are_paced_at_the_current_rate_with_bounded_jitter() {
        use rand::SeedableRng;
        let cfg = XpassConfig::default();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut rx = XpassRx::new(&cfg, 1e7, SimTime::ZERO);
        let mut now = SimTime::ZERO;
        for k in 0..1000u32 {
            assert_eq!(rx.credit_due(&cfg, now, &mut rng), k);
            let next = rx.next_at.unwrap();
            let gap = next.since(now).as_secs_f64();
            // alpha x max = 5e6 credits/s: 200 ns apart, +-10 %.
            assert!((180e-9 - 1e-12..=220e-9 + 1e-12).contains(&gap), "{gap}");
            now = next;
        }
    }
}
