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

/// What ExpressPass needs of the rest of the run, refused in one line each
/// (docs/models.md, "ExpressPass"): data must follow its credits' path back,
/// which needs symmetric ECMP (not implemented), so the fabric must have one
/// path per host pair; credits are paced by the eager NIC scheduler; loss
/// recovery is go-back-N or go-back-0 (IRN's selective retransmission would
/// send without credits).
pub(super) fn check_expresspass(
    cc: &CcKind,
    topo: &crate::topology::Topology,
    model: &crate::profile::ModelConfig,
    nic: &crate::nic::NicPlan,
    cx: &Ctx,
) -> Result<(), InputError> {
    if !matches!(cc, CcKind::ExpressPass(_)) {
        return Ok(());
    }
    if topo.routes.multipath() {
        return Err(cx.err(
            "cc.algorithm",
            "expresspass needs data to follow its credits' path in reverse (symmetric ECMP), which is not implemented: use a topology with one path per host pair (star, dumbbell, parking-lot, or static routes)",
        ));
    }
    if model.nic_scheduler == crate::profile::NicScheduler::Ns3 {
        return Err(cx.err(
            "model.nic_scheduler",
            "expresspass paces credits with the eager NIC scheduler: set model.nic_scheduler = \"eager\"",
        ));
    }
    if matches!(nic.loss_recovery, crate::nic::irn::LossRecovery::Irn(_)) {
        return Err(cx.err(
            "nic.loss_recovery",
            "expresspass sends data only on credits; IRN's retransmissions would not wait for them: use \"go-back-n\"",
        ));
    }
    Ok(())
}
