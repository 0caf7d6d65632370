//! `[cc]`: the congestion-control algorithm and its parameter tables. Their
//! types and checks live with the algorithms (`crate::cc::CcSection`, one
//! config per algorithm file); this names the field a bad value came from.
//! What an algorithm changes in the model unless the scenario says otherwise is
//! applied with the model (`model::resolve`), the ECN thresholds it is evaluated
//! with with the switch (`switch::resolve_ecn`).

use super::ctx::Ctx;
use crate::cc::{CcKind, CcSection};
use crate::error::InputError;

pub(super) fn resolve(c: &CcSection, cx: &Ctx) -> Result<CcKind, InputError> {
    c.resolve().map_err(|(field, msg)| cx.err(field, msg))
}
