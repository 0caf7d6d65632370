//! The papers' testbeds as generators.
//!
//! # DCQCN 3-tier testbed (DCQCN Fig. 2, §2, §6.2)
//!
//! Four ToRs T1-T4, four leaves L1-L4, two spines S1-S2, 40 Gbps everywhere. Two
//! pods: T1, T2 connect to L1 and L2; T3, T4 to L3 and L4; every leaf connects to
//! both spines (the wiring the text of §2 implies: T1's uplinks go to L1/L2, L3/L4
//! carry T3/T4's traffic, and L3/L4 pause S1/S2). §6.2 uses five hosts per ToR.
//!
//! ```text
//!                S1              S2
//!              /  | \__________/ |  \          every leaf to both spines
//!            L1   L2           L3    L4
//!            | \ / |           | \  / |
//!            | / \ |           | /  \ |
//!            T1   T2           T3    T4
//!           /||    ||\        /||    ||\
//!     H11..H1n  H21..H2n  H31..H3n  H41..H4n
//! ```
//!
//! Node ids: hosts first, ToR by ToR: host `H<t><i>` (ToR `t` in 1..4, `i` in
//! 1..n) has id `(t-1)*n + (i-1)`; then T1-T4, L1-L4, S1-S2 (ids `4n .. 4n+10`).
//! Names are the paper's (`H11`, `T1`, `L3`, `S2`; `H110` is host 10 of T1).
//!
//! Hosts for the paper's experiments (the text fixes only some positions):
//! - Fig. 3 (PFC unfairness, H1-H4 -> R): R and H4 share T4, so R = `H41`,
//!   H4 = `H42`; H1-H3 sit under other ToRs and reach T4 through L3/L4
//!   (ports P3/P4), e.g. `H11`, `H21`, `H31`.
//! - Fig. 4 (victim flow): senders H11-H14 = `H11`..`H14` -> R = `H41`; VS under T1
//!   (`H15`, needs n >= 5); VR under T2 (`H21`): the only ToR whose path from T1
//!   shares no link with the incast and none with H31/H32 -> R; H31, H32 = `H31`,
//!   `H32`.
//! - Fig. 20 (multi-bottleneck): f1 H1 -> R1, f2 H2 -> R2, f3 H3 -> R2 with H1, H2
//!   under T1 and H3, R2 under T4, R1 elsewhere: e.g. f1 `H11` -> `H21`,
//!   f2 `H12` -> `H41`, f3 `H42` -> `H41`; f1 and f2 share a T1 uplink only when
//!   ECMP maps them so. [`super::parking_lot`] builds the same three flows on a
//!   minimal topology where they always share it.
//!
//! # HPCC testbed (HPCC §5.1)
//!
//! One Agg and four ToRs joined by 100 Gbps links; 32 servers, each with two
//! 25 Gbps NICs: servers 0-15 have one NIC on ToR1 and one on ToR2, servers 16-31
//! on ToR3 and ToR4. Base RTT 5.4 us in a rack, 8.5 us across (1 us links give
//! about that).
//!
//! **Each NIC a host (the default):** each NIC is its own host node, as the
//! papers' experiments name them; nothing bonds a server's two NICs. 64 host
//! nodes, 16 per ToR. Server `s` (0-31) has NIC0 on ToR1 (s < 16) or ToR3, NIC1
//! on ToR2 or ToR4. [`hpcc_testbed_servers`] makes them 32 two-NIC servers.
//!
//! ```text
//!                        Agg
//!             /      /         \        \        4 x 100 Gbps
//!          ToR1    ToR2        ToR3     ToR4
//!          /||\    /||\        /||\     /||\     25 Gbps NIC links
//!   s0n0..s15n0  s0n1..s15n1  s16n0..  s16n1..s31n1
//! ```
//!
//! Node ids: ToR1 hosts 0-15 (`s<s>n0`, s = 0..15), ToR2 hosts 16-31 (`s<s>n1`),
//! ToR3 hosts 32-47 (`s<s>n0`, s = 16..31), ToR4 hosts 48-63 (`s<s>n1`); then
//! ToR1-ToR4 (64-67) and Agg (68).

use super::{NodeId, NodeKind, TopologySpec};
use crate::units::{Delta, Rate};

/// The DCQCN testbed with `hosts_per_tor` (>= 1) hosts under each ToR.
pub fn dcqcn_testbed(
    hosts_per_tor: u32,
    host_rate: Rate,
    fabric_rate: Rate,
    delay: Delta,
) -> TopologySpec {
    assert!(hosts_per_tor >= 1, "the DCQCN testbed needs hosts");
    let mut t = TopologySpec::default();
    let mut hosts = Vec::new();
    for tor in 1..=4 {
        for i in 1..=hosts_per_tor {
            hosts.push(t.add_named(NodeKind::Host, format!("H{tor}{i}")));
        }
    }
    let tors: Vec<_> = (1..=4)
        .map(|i| t.add_named(NodeKind::Switch, format!("T{i}")))
        .collect();
    let leaves: Vec<_> = (1..=4)
        .map(|i| t.add_named(NodeKind::Switch, format!("L{i}")))
        .collect();
    let spines: Vec<_> = (1..=2)
        .map(|i| t.add_named(NodeKind::Switch, format!("S{i}")))
        .collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.add_link(h, tors[i / hosts_per_tor as usize], host_rate, delay);
    }
    for (ti, &tor) in tors.iter().enumerate() {
        let pod = ti / 2;
        for &leaf in &leaves[2 * pod..2 * pod + 2] {
            t.add_link(tor, leaf, fabric_rate, delay);
        }
    }
    for &leaf in &leaves {
        for &spine in &spines {
            t.add_link(leaf, spine, fabric_rate, delay);
        }
    }
    t
}

/// Node id of DCQCN testbed host `H<tor><i>` (both 1-based).
pub fn dcqcn_host(hosts_per_tor: u32, tor: u32, i: u32) -> NodeId {
    NodeId((tor - 1) * hosts_per_tor + (i - 1))
}

/// The HPCC testbed, each dual-homed server split into two single-NIC hosts.
pub fn hpcc_testbed(host_rate: Rate, fabric_rate: Rate, delay: Delta) -> TopologySpec {
    let mut t = TopologySpec::default();
    for tor in 0..4u32 {
        let (first_server, nic) = (16 * (tor / 2), tor % 2);
        for s in first_server..first_server + 16 {
            t.add_named(NodeKind::Host, format!("s{s}n{nic}"));
        }
    }
    let tors: Vec<_> = (1..=4)
        .map(|i| t.add_named(NodeKind::Switch, format!("ToR{i}")))
        .collect();
    let agg = t.add_named(NodeKind::Switch, "Agg".into());
    for h in 0..64u32 {
        t.add_link(NodeId(h), tors[(h / 16) as usize], host_rate, delay);
    }
    for &tor in &tors {
        t.add_link(tor, agg, fabric_rate, delay);
    }
    t
}

/// The HPCC testbed as 32 servers with two NICs each: server `s` is node `s`
/// (its NIC0, under ToR1 for s < 16, else ToR3), ToR1-ToR4 are nodes 32-35,
/// the Agg 36, and NIC1 of server `s` is node 37 + s (under ToR2 or ToR4).
pub fn hpcc_testbed_servers(host_rate: Rate, fabric_rate: Rate, delay: Delta) -> TopologySpec {
    let mut t = TopologySpec::default();
    let servers: Vec<_> = (0..32u32)
        .map(|s| t.add_named(NodeKind::Host, format!("s{s}n0")))
        .collect();
    let tors: Vec<_> = (1..=4)
        .map(|i| t.add_named(NodeKind::Switch, format!("ToR{i}")))
        .collect();
    let agg = t.add_named(NodeKind::Switch, "Agg".into());
    for (s, &h) in servers.iter().enumerate() {
        t.add_link(h, tors[2 * (s / 16)], host_rate, delay);
    }
    for &tor in &tors {
        t.add_link(tor, agg, fabric_rate, delay);
    }
    for (s, &h) in servers.iter().enumerate() {
        let nic1 = t.add_named(NodeKind::Host, format!("s{s}n1"));
        t.extra_nics.push((nic1, h));
        t.add_link(nic1, tors[2 * (s / 16) + 1], host_rate, delay);
    }
    t
}

/// Node id of NIC `nic` (0 or 1) of HPCC testbed server `server` (0-31).
pub fn hpcc_testbed_nic(server: u32, nic: u32) -> NodeId {
    let tor = 2 * (server / 16) + nic;
    NodeId(16 * tor + server % 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn the_dcqcn_testbed_has_two_pods_under_two_spines() {
        let r = Rate::from_gbps(40);
        let t = dcqcn_testbed(5, r, r, Delta::from_us(1));
        assert_eq!(t.num_hosts(), 20);
        assert_eq!(t.num_switches(), 10);
        assert_eq!(t.names[dcqcn_host(5, 1, 5).idx()], "H15");
        assert_eq!(t.names[dcqcn_host(5, 4, 1).idx()], "H41");
        assert_eq!(
            &t.names[20..30],
            ["T1", "T2", "T3", "T4", "L1", "L2", "L3", "L4", "S1", "S2"]
        );
        let topo = Topology::build(t).unwrap();
        let idx =
            |name: &str| topo.kind_index[topo.spec.names.iter().position(|n| n == name).unwrap()];
        // T1 -> R (under T4): two uplinks (P3/P4 in Fig. 3 are at T4's side).
        let r_host = dcqcn_host(5, 4, 1);
        assert_eq!(topo.routes.next_hops(idx("T1"), r_host).len(), 2);
        assert_eq!(topo.routes.hops_to_attachment(idx("T1"), r_host), Some(4));
        // T1 -> T2 stays in the pod (2 hops via L1 or L2).
        assert_eq!(
            topo.routes
                .hops_to_attachment(idx("T1"), dcqcn_host(5, 2, 1)),
            Some(2)
        );
        // T3 -> T4 via L3/L4, not the spines.
        assert_eq!(topo.routes.hops_to_attachment(idx("T3"), r_host), Some(2));
    }

    #[test]
    fn the_two_nic_testbed_writes_out_and_reads_back_as_the_same_fabric() {
        let (h, f) = (Rate::from_gbps(25), Rate::from_gbps(100));
        let spec = hpcc_testbed_servers(h, f, Delta::from_us(1));
        let t = Topology::build(spec.clone()).unwrap();
        assert_eq!((t.servers().len(), t.hosts.len()), (32, 64));
        assert_eq!(t.spec.names[36], "Agg");
        for s in 0..32u32 {
            let nics = t.nics(NodeId(s));
            assert_eq!(nics, [NodeId(s), NodeId(37 + s)]);
            let tors: Vec<u32> = nics.iter().map(|&n| t.host_port(n).peer.0).collect();
            assert_eq!(tors, [32 + 2 * (s / 16), 33 + 2 * (s / 16)]);
        }
        // In ns-3's format a server is one node with two links; read back, the
        // same nodes, links and NICs (node ids of flow files stay valid).
        let text = crate::topology::ns3::format_topology(&spec);
        assert!(text.starts_with("37 5 68\n"), "{}", &text[..20]);
        let back = crate::topology::ns3::parse_topology(std::path::Path::new("t"), &text).unwrap();
        assert_eq!(
            (&back.kinds, &back.links, &back.extra_nics),
            (&spec.kinds, &spec.links, &spec.extra_nics)
        );
    }

    #[test]
    fn the_hpcc_testbed_splits_each_server_into_two_nic_hosts() {
        let t = hpcc_testbed(Rate::from_gbps(25), Rate::from_gbps(100), Delta::from_us(1));
        assert_eq!(t.num_hosts(), 64);
        assert_eq!(t.num_switches(), 5);
        assert_eq!(t.names[hpcc_testbed_nic(3, 0).idx()], "s3n0");
        assert_eq!(t.names[hpcc_testbed_nic(3, 1).idx()], "s3n1");
        assert_eq!(t.names[hpcc_testbed_nic(20, 1).idx()], "s20n1");
        assert_eq!(hpcc_testbed_nic(20, 1), NodeId(52));
        assert_eq!(t.names[68], "Agg");
        let topo = Topology::build(t).unwrap();
        assert_eq!(topo.ports[68].len(), 4);
    }
}
