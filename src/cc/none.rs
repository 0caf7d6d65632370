//! `none`: no congestion control. Every flow sends at line rate and only PFC
//! (or loss recovery, when PFC is off) limits it.

use super::{CongestionControl, FlowCtx};
use crate::units::Rate;

#[derive(Clone, Debug)]
pub struct NoCc {
    line_rate: Rate,
}

impl NoCc {
    pub fn new(ctx: &FlowCtx) -> Self {
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
