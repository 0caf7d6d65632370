//! "+win" variants (HPCC §5.1, "Alternative approaches"): a rate-based controller
//! plus HPCC's sending window `W = R x T`, which limits the bytes in flight so
//! that delayed feedback cannot let a flow keep sending ("DCQCN+win",
//! "TIMELY+win"). `R` is the wrapped controller's current rate and `T` the control
//! interval (HPCC §5.1: slightly above the largest base RTT), so the window never
//! slows a flow whose feedback is on time: `W/T = R`. The window is recomputed after
//! every hook that can change the rate.

use super::dcqcn::DcqcnConfig;
use super::registry::{Algorithm, ParamError};
use super::timely::TimelyConfig;
use super::{AckInfo, CongestionControl, EcnDefaults, FlowCtx, ReceiverKind};
use crate::packet::IntCounter;
use crate::units::{Delta, Rate, SimTime};

/// A rate-based algorithm that also runs with the window, and that variant's name.
pub(crate) trait Windowable: Algorithm {
    const WIN_NAME: &'static str;
}

impl Windowable for DcqcnConfig {
    const WIN_NAME: &'static str = "dcqcn+win";
}

impl Windowable for TimelyConfig {
    const WIN_NAME: &'static str = "timely+win";
}

/// A "+win" variant: the rate-based algorithm `K`'s parameters, run with the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Win<K>(K);

/// Everything but the name and the window is `K`'s.
impl<K: Windowable> Algorithm for Win<K> {
    type Flow = Windowed<K::Flow>;
    type Table = K::Table;
    const NAMES: &'static [&'static str] = &[K::WIN_NAME];
    fn resolve(_: &str, table: &K::Table) -> Result<Self, ParamError> {
        K::resolve(K::NAMES[0], table).map(Win)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> Self::Flow {
        Windowed::new(self.0.new_flow(ctx), ctx)
    }
    fn needs_int(&self) -> bool {
        self.0.needs_int()
    }
    fn needs_one_path(&self) -> Option<&'static str> {
        self.0.needs_one_path()
    }
    fn int_counter(&self) -> IntCounter {
        self.0.int_counter()
    }
    fn uses_ecn(&self) -> bool {
        self.0.uses_ecn()
    }
    fn ecn_defaults(&self) -> EcnDefaults {
        self.0.ecn_defaults()
    }
    fn repace_on_rate_change(&self) -> Option<bool> {
        self.0.repace_on_rate_change()
    }
    fn int_bytes(&self) -> Option<u32> {
        self.0.int_bytes()
    }
    fn receiver(&self) -> Option<ReceiverKind> {
        self.0.receiver()
    }
    #[cfg(test)]
    fn min_rate(&self) -> Option<Rate> {
        self.0.min_rate()
    }
}

#[derive(Clone, Debug)]
pub struct Windowed<C> {
    inner: C,
    t: Delta,
    window: u64,
}

// The bound is on the functions: `CongestionControl` is the crate's, `Windowed` public.
impl<C> Windowed<C> {
    pub(crate) fn new(inner: C, ctx: &FlowCtx) -> Self
    where
        C: CongestionControl,
    {
        let mut w = Windowed {
            inner,
            t: ctx.base_rtt,
            window: 0,
        };
        w.refresh();
        w
    }

    #[inline]
    fn refresh(&mut self)
    where
        C: CongestionControl,
    {
        self.window = self.inner.rate().bytes_in(self.t).max(1);
    }
}

impl<C: CongestionControl> CongestionControl for Windowed<C> {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        self.inner.on_ack(ack);
        self.refresh();
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) {
        self.inner.on_cnp(now);
        self.refresh();
    }
    #[inline]
    fn on_send(&mut self, now: SimTime, wire_bytes: u64) {
        self.inner.on_send(now, wire_bytes);
        self.refresh();
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime) {
        self.inner.on_timer(now);
        self.refresh();
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        self.inner.on_timeout(now);
        self.refresh();
    }
    #[inline]
    fn next_timer(&self) -> Option<SimTime> {
        self.inner.next_timer()
    }
    #[inline]
    fn rate(&self) -> Rate {
        self.inner.rate()
    }
    #[inline]
    fn window(&self) -> Option<u64> {
        Some(self.window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::dcqcn::{Dcqcn, DcqcnConfig};
    use crate::cc::test_util::flow_ctx;

    #[test]
    fn the_window_is_the_rate_times_t_and_follows_rate_cuts() {
        let ctx = flow_ctx(40, 10, 8);
        let mut w = Windowed::new(Dcqcn::new(DcqcnConfig::default(), &ctx), &ctx);
        // 40 Gbps x 10 us = 50 KB.
        assert_eq!(w.window(), Some(50_000));
        w.on_cnp(SimTime(1));
        // The first CNP halves the rate (alpha = 1): 20 Gbps x 10 us.
        assert_eq!(w.rate(), Rate::from_gbps(20));
        assert_eq!(w.window(), Some(25_000));
    }
}
