//! `[[switch.routes]]`: static routes that replace the computed (ECMP) next hops,
//! e.g. to build a cyclic buffer dependency (scenarios/pfc-deadlock-ring.toml).

use crate::error::InputError;
use crate::scenario::ctx::Ctx;
use crate::topology::{NodeId, NodeKind, Topology};
use serde::Deserialize;

/// One static route: at switch node `switch`, packets for host `dst` leave
/// through `port`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RouteEntry {
    switch: u32,
    dst: u32,
    port: u16,
}

/// Installs `[[switch.routes]]`, rejecting routes that name no switch or host, a
/// port that does not exist or leads to another host, and loops.
pub(super) fn apply_routes(
    topo: &mut Topology,
    routes: &[RouteEntry],
    cx: &Ctx,
) -> Result<(), InputError> {
    let n = topo.spec.kinds.len() as u32;
    for (i, r) in routes.iter().enumerate() {
        let field = format!("switch.routes[{i}]");
        if r.switch >= n || topo.kind(NodeId(r.switch)) != NodeKind::Switch {
            return Err(cx.err(
                format!("{field}.switch"),
                format!("node {} is not a switch", r.switch),
            ));
        }
        if r.dst >= n || topo.kind(NodeId(r.dst)) != NodeKind::Host {
            return Err(cx.err(
                format!("{field}.dst"),
                format!("node {} is not a host", r.dst),
            ));
        }
        let ports = &topo.ports[r.switch as usize];
        let Some(pi) = ports.get(r.port as usize) else {
            return Err(cx.err(
                format!("{field}.port"),
                format!("switch {} has ports 0..{}", r.switch, ports.len() - 1),
            ));
        };
        if topo.is_host(pi.peer) && pi.peer.0 != r.dst {
            return Err(cx.err(
                format!("{field}.port"),
                format!(
                    "port {} of switch {} leads to host {}, not to host {}",
                    r.port, r.switch, pi.peer, r.dst
                ),
            ));
        }
        let si = topo.kind_index[r.switch as usize];
        topo.routes.set_route(si, NodeId(r.dst), r.port);
    }
    // Loops: follow every next hop toward each destination with a static route.
    let mut dsts: Vec<u32> = routes.iter().map(|r| r.dst).collect();
    dsts.sort_unstable();
    dsts.dedup();
    for dst in dsts {
        if let Some(cycle) = route_loop(topo, NodeId(dst)) {
            let names: Vec<String> = cycle.iter().map(|&s| topo.name(s)).collect();
            return Err(cx.err(
                "switch.routes",
                format!("routes toward host {dst} loop: {}", names.join(" -> ")),
            ));
        }
    }
    Ok(())
}

/// A cycle of switches in the next-hop graph toward `dst`, if any.
fn route_loop(topo: &Topology, dst: NodeId) -> Option<Vec<NodeId>> {
    // 0 = unseen, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; topo.spec.kinds.len()];
    let mut path = Vec::new();
    fn visit(
        topo: &Topology,
        dst: NodeId,
        u: NodeId,
        state: &mut [u8],
        path: &mut Vec<NodeId>,
    ) -> Option<Vec<NodeId>> {
        state[u.idx()] = 1;
        path.push(u);
        let si = topo.kind_index[u.idx()];
        for &p in topo.routes.next_hops(si, dst) {
            let v = topo.ports[u.idx()][p as usize].peer;
            if topo.is_host(v) {
                continue;
            }
            match state[v.idx()] {
                1 => {
                    let at = path.iter().position(|&x| x == v).expect("on the stack");
                    let mut c = path[at..].to_vec();
                    c.push(v);
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(topo, dst, v, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state[u.idx()] = 2;
        None
    }
    for &s in &topo.switches {
        if state[s.idx()] == 0
            && let Some(c) = visit(topo, dst, s, &mut state, &mut path)
        {
            return Some(c);
        }
    }
    None
}
