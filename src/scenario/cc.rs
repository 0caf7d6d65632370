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
/// so on a multipath fabric ECMP must be symmetric and must give mirror paths
/// ([`mirror_paths`]); credits are paced by the eager NIC scheduler; loss
/// recovery is go-back-N or go-back-0 (IRN's selective retransmission would
/// send without credits).
pub(super) fn check_expresspass(
    cc: &CcKind,
    topo: &crate::topology::Topology,
    model: &crate::profile::ModelConfig,
    nic: &crate::nic::NicPlan,
    seed: u64,
    cx: &Ctx,
) -> Result<(), InputError> {
    if !matches!(cc, CcKind::ExpressPass(_)) {
        return Ok(());
    }
    if topo.routes.multipath() {
        if model.ecmp_hash != crate::profile::EcmpHash::Symmetric {
            return Err(cx.err(
                "model.ecmp_hash",
                "expresspass needs data to follow its credits' path in reverse on a multipath fabric: leave model.ecmp_hash unset or set it to \"symmetric\"",
            ));
        }
        if let Some((a, b)) = mirror_paths(topo, seed) {
            return Err(cx.err(
                "cc.algorithm",
                format!(
                    "expresspass needs data to follow its credits' path in reverse, but on this topology the symmetric ECMP hash sends {} -> {} and its reply on different switches (the equal-cost next hops are not listed in the same order at every switch of a tier): use a fat-tree, a leaf-spine or a single-path topology",
                    topo.name(a),
                    topo.name(b)
                ),
            ));
        }
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

/// The first host pair (of a sample: every host to up to 64 others spread over
/// the fabric) whose path under the symmetric hash is not the reverse of its
/// reply's, if any.
fn mirror_paths(
    topo: &crate::topology::Topology,
    seed: u64,
) -> Option<(crate::topology::NodeId, crate::topology::NodeId)> {
    use crate::switch::ecmp::{FlowKey, trace};
    let hash = crate::profile::EcmpHash::Symmetric;
    let n = topo.hosts.len();
    let stride = n.div_ceil(64).max(1);
    for (i, &a) in topo.hosts.iter().enumerate() {
        for j in (i % stride..n).step_by(stride) {
            let b = topo.hosts[j];
            if a == b {
                continue;
            }
            let key = FlowKey {
                src: a.0,
                dst: b.0,
                sport: 10_000 + (i % 7) as u16,
                dport: 100,
            };
            let there: Vec<_> = trace(topo, hash, seed, key)
                .iter()
                .map(|h| h.node)
                .collect();
            let mut back: Vec<_> = trace(topo, hash, seed, key.reversed())
                .iter()
                .map(|h| h.node)
                .collect();
            back.reverse();
            if there != back {
                return Some((a, b));
            }
        }
    }
    None
}
