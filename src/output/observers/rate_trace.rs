//! The in-memory rate trace ([`crate::sim::RunOptions::trace_rates`]): every
//! active flow's rate, window, delivered bytes and congestion class at each
//! interval from the first flow's start, for tests and model comparisons
//! ([`crate::output::RunOutputs::rates`]). Not on MPI ranks.

use super::{FabricView, Finished, Ledger, Observer, Setup};
use crate::error::Error;
use crate::units::{Delta, SimTime};

/// One sample of a flow's sender state (in-memory rate trace).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    pub time: SimTime,
    pub flow: u32,
    /// The controller's pacing rate.
    pub rate: crate::units::Rate,
    /// The controller's window, if it has one.
    pub window: Option<u64>,
    /// Payload bytes the receiver has in order.
    pub delivered: u64,
    /// How receiver-driven control (RCC) classifies the flow's congestion.
    pub congestion: crate::cc::Congestion,
}

/// The rate tracer.
pub struct RateTrace {
    interval: Delta,
    start: SimTime,
    samples: Vec<RateSample>,
}

impl Observer for RateTrace {
    fn files() -> &'static [&'static str] {
        &[]
    }

    fn build(s: &Setup<'_>) -> Result<Option<Self>, Error> {
        Ok(s.run.trace_rates.map(|interval| RateTrace {
            interval,
            start: s.start(),
            samples: Vec::new(),
        }))
    }

    fn first(&self) -> Option<SimTime> {
        Some(self.start)
    }

    fn sample(&mut self, now: SimTime, view: &dyn FabricView, _: &mut Ledger) -> Option<SimTime> {
        let flows = view.flow_states().into_iter();
        self.samples.extend(flows.map(|(fid, s)| RateSample {
            time: now,
            flow: fid.0,
            rate: s.rate,
            window: s.window,
            delivered: s.delivered,
            congestion: s.congestion,
        }));
        Some(now + self.interval)
    }

    fn finish(self: Box<Self>, out: &mut Finished) -> Result<(), Error> {
        out.rates = self.samples;
        Ok(())
    }
}
