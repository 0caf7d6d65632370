//! `none`: no congestion control. Every flow sends at line rate and only PFC
//! (or loss recovery, when PFC is off) limits it.

use super::registry::{Algorithm, ParamError};
use super::{CongestionControl, FlowCtx};
use crate::units::Rate;

/// `none` has no parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct NoCcConfig;

impl Algorithm for NoCcConfig {
    type Flow = NoCc;
    type Table = ();
    const NAMES: &'static [&'static str] = &["none"];
    fn resolve(_: &str, _: &()) -> Result<Self, ParamError> {
        Ok(NoCcConfig)
    }
    fn new_flow(&self, ctx: &FlowCtx) -> NoCc {
        NoCc::new(ctx)
    }
}

#[derive(Clone, Debug)]
pub struct NoCc {
    line_rate: Rate,
}

impl NoCc {
    pub(crate) fn new(ctx: &FlowCtx) -> Self {
        NoCc {
            line_rate: ctx.line_rate,
        }
    }
}

impl CongestionControl for NoCc {
    fn rate(&self) -> Rate {
        self.line_rate
    }
}
