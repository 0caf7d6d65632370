//! Generated topologies: the HPCC fabric equals the shipped ns-3 file, large
//! fat-trees build fast and small, and every kind resolves from a scenario.

use rocesim::scenario::{self, Source};
use rocesim::topology::fat_tree::{FatTreeShape, Tier, fat_tree, hpcc_fat_tree_default, tiers};
use rocesim::topology::fat_tree_iso::fat_tree_isomorphism;
use rocesim::topology::{Topology, TopologySpec, ns3};
use rocesim::units::{Delta, Rate};
use std::path::Path;
use std::time::Instant;

fn data(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(p)
}

fn resolve(text: &str) -> Result<rocesim::config::RunConfig, String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = format!("[cc]\nalgorithm = \"hpcc\"\n{text}");
    scenario::to_config(&Source::text(&text, "t.toml", &base, "t"), &[]).map_err(|e| e.to_string())
}

/// (tier, degree, rates of its links) for every node, sorted: a fingerprint that
/// ignores ids.
fn tier_profile(s: &TopologySpec) -> Vec<(Tier, usize, Vec<Rate>)> {
    let t = tiers(s);
    let mut rates = vec![Vec::new(); s.kinds.len()];
    for l in &s.links {
        rates[l.a.idx()].push(l.rate);
        rates[l.b.idx()].push(l.rate);
    }
    let mut v: Vec<_> = rates
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            r.sort_unstable();
            (t[i], r.len(), r)
        })
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn the_generated_hpcc_fabric_is_the_shipped_fat_tree_file() {
    let file = ns3::read_topology(&data("hpcc-ns3/mix/fat.txt")).unwrap();
    let generated = hpcc_fat_tree_default();
    // Same node counts per tier.
    let count = |s: &TopologySpec, x: Tier| tiers(s).iter().filter(|t| **t == x).count();
    for x in [Tier::Host, Tier::Tor, Tier::Agg, Tier::Core] {
        assert_eq!(count(&file, x), count(&generated, x), "{x:?}");
    }
    assert_eq!(
        [Tier::Host, Tier::Tor, Tier::Agg, Tier::Core].map(|x| count(&file, x)),
        [320, 20, 20, 16]
    );
    // Same degree and link rates per tier: host 1 x 100G; ToR 16 x 100G + 4 x 400G;
    // Agg 8 x 400G; Core 5 x 400G.
    let pg = tier_profile(&generated);
    assert_eq!(tier_profile(&file), pg);
    let g100 = Rate::from_gbps(100);
    let g400 = Rate::from_gbps(400);
    let tor = pg.iter().find(|p| p.0 == Tier::Tor).unwrap();
    assert_eq!(tor.2.iter().filter(|r| **r == g100).count(), 16);
    assert_eq!(tor.2.iter().filter(|r| **r == g400).count(), 4);
    assert!(pg.iter().filter(|p| p.0 == Tier::Agg).all(|p| p.1 == 8));
    assert!(pg.iter().filter(|p| p.0 == Tier::Core).all(|p| p.1 == 5));
    // An explicit isomorphism, computed and checked link by link...
    let map = fat_tree_isomorphism(&file, &generated).unwrap();
    // ...which here is the identity: same ids, and even the same links in the
    // same order (so the ports, ECMP choices and flow files are the same too).
    assert!(map.iter().enumerate().all(|(i, m)| m.idx() == i));
    assert_eq!(file.kinds, generated.kinds);
    assert_eq!(file.links, generated.links);
    assert!(file.links.iter().all(|l| l.delay == Delta::from_us(1)));
}

#[test]
fn the_hpcc_fat_tree_kind_and_the_fat_tree_kind_with_its_shape_agree() {
    let a = resolve("[topology]\nkind = \"hpcc-fat-tree\"\n").unwrap();
    let b = resolve(
        r#"[topology]
kind = "fat-tree"
pods = 5
tors_per_pod = 4
aggs_per_pod = 4
host_rate = "100Gbps"
fabric_rate = "400Gbps"
delay = "1us"
"#,
    )
    .unwrap();
    assert_eq!(a.topo.spec, b.topo.spec);
    assert_eq!(a.topo.spec.names[375], "core15");
}

#[test]
fn a_6144_host_fat_tree_builds_in_under_5_seconds_in_little_memory() {
    // 24 pods x 16 ToRs x 16 hosts; 4 Aggs per pod, 64 cores; 100G hosts, 400G
    // fabric: non-blocking like the HPCC fabric, 19x larger.
    let shape = FatTreeShape {
        pods: 24,
        tors_per_pod: 16,
        aggs_per_pod: 4,
        cores_per_agg: 16,
        hosts_per_tor: 16,
    };
    let t0 = Instant::now();
    let spec = fat_tree(
        shape,
        Rate::from_gbps(100),
        Rate::from_gbps(400),
        Delta::from_us(1),
    );
    let topo = Topology::build(spec).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(topo.hosts.len(), 6144);
    assert_eq!(topo.switches.len(), 384 + 96 + 64);
    let per_host = topo.memory_bytes() as f64 / 6144.0;
    println!(
        "6144-host fat-tree: built in {:.3} s; topology + routes {} bytes = {per_host:.0} bytes/host",
        secs,
        topo.memory_bytes()
    );
    assert!(secs < 5.0, "{secs} s");
    assert!(per_host < 4096.0, "{per_host} bytes per host");
    // Routes: a host in pod 0 reaches pod 23 over all 4 Aggs, then 16 cores.
    let tor0 = topo.kind_index[6144];
    assert_eq!(
        topo.routes
            .next_hops(tor0, rocesim::topology::NodeId(6143))
            .len(),
        4
    );
}

#[test]
fn k_ary_fat_trees_scale_hosts_with_oversubscription() {
    let cfg = |extra: &str| {
        resolve(&format!(
            "[topology]\nkind = \"fat-tree\"\nk = 4\nhost_rate = \"10Gbps\"\ndelay = \"1us\"\n{extra}"
        ))
    };
    let t = cfg("").unwrap().topo;
    assert_eq!((t.hosts.len(), t.switches.len()), (16, 20));
    let t = cfg("oversubscription = 2\n").unwrap().topo;
    assert_eq!(t.hosts.len(), 32);
    let t = cfg("fabric_rate = \"40Gbps\"\n").unwrap().topo;
    assert_eq!(t.hosts.len(), 64, "2 uplinks x 40G / 10G = 8 hosts per ToR");
    let e = cfg("oversubscription = 1.3\n").unwrap_err();
    assert!(
        e.starts_with("t.toml: topology.oversubscription: oversubscription 1.3 gives"),
        "{e}"
    );
    let e = resolve(
        "[topology]\nkind = \"fat-tree\"\nk = 5\nhost_rate = \"10Gbps\"\ndelay = \"1us\"\n",
    )
    .unwrap_err();
    assert_eq!(
        e,
        "t.toml: topology.k: 5 must be even and >= 2 (e.g. 4, 8, 16)"
    );
    let e = cfg("pods = 3\n").unwrap_err();
    assert!(e.starts_with("t.toml: topology.pods: give either k"), "{e}");
    let e = resolve(
        "[topology]\nkind = \"fat-tree\"\npods = 3\nhost_rate = \"10Gbps\"\ndelay = \"1us\"\n",
    )
    .unwrap_err();
    assert_eq!(
        e,
        "t.toml: topology.tors_per_pod: is required with kind = \"fat-tree\" unless k is given"
    );
}

#[test]
fn every_topology_kind_resolves_with_its_paper_defaults() {
    let cases = [
        ("kind = \"hpcc-fat-tree\"", 320, 56),
        ("kind = \"dcqcn-testbed\"", 20, 10),
        ("kind = \"dcqcn-testbed\"\nhosts_per_tor = 8", 32, 10),
        ("kind = \"hpcc-testbed\"", 64, 5),
        (
            "kind = \"leaf-spine\"\nleaves = 6\nspines = 4\nhosts_per_leaf = 64\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            384,
            10,
        ),
        (
            "kind = \"leaf-spine\"\nleaves = 6\nspines = 4\noversubscription = 8\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            192,
            10,
        ),
        (
            "kind = \"parking-lot\"\nhost_rate = \"40Gbps\"\ndelay = \"1us\"",
            5,
            2,
        ),
        (
            "kind = \"parking-lot\"\nbottlenecks = 3\nhost_rate = \"40Gbps\"\ndelay = \"1us\"",
            9,
            4,
        ),
        (
            "kind = \"dumbbell\"\nleft = 32\nright = 32\nhost_rate = \"10Gbps\"\noversubscription = 8\ndelay = \"1us\"",
            64,
            2,
        ),
    ];
    for (body, hosts, switches) in cases {
        let cfg =
            resolve(&format!("[topology]\n{body}\n")).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(cfg.topo.hosts.len(), hosts, "{body}");
        assert_eq!(cfg.topo.switches.len(), switches, "{body}");
    }
    // P-PFC Fig. 13: 32 hosts a side at 10G, 8:1 -> a 40G middle link.
    let d = resolve("[topology]\nkind = \"dumbbell\"\nleft = 32\nright = 32\nhost_rate = \"10Gbps\"\noversubscription = 8\ndelay = \"1us\"\n").unwrap();
    assert_eq!(d.topo.spec.links.last().unwrap().rate, Rate::from_gbps(40));
    let t = resolve("[topology]\nkind = \"dcqcn-testbed\"\n")
        .unwrap()
        .topo;
    assert!(t.spec.links.iter().all(|l| l.rate == Rate::from_gbps(40)));
    let t = resolve("[topology]\nkind = \"hpcc-testbed\"\nloss = 0.001\n")
        .unwrap()
        .topo;
    assert!(t.spec.links.iter().all(|l| l.loss == 0.001));
}

#[test]
fn topology_field_errors_are_one_line_and_name_the_field() {
    for (body, want) in [
        (
            "kind = \"hpcc-testbed\"\nleaves = 3",
            "t.toml: line 5: topology.leaves: is not used with kind = \"hpcc-testbed\" (its fields: delay, fabric_rate, host_rate, loss, nics_per_host)",
        ),
        (
            "kind = \"hpcc-testbed\"\nnics_per_host = 3",
            "t.toml: topology.nics_per_host: 3 is not the testbed's: 1 (each NIC a host of its own) or 2 (one server with two NICs)",
        ),
        (
            "kind = \"rail-optimized\"\ngroups = 2\nservers_per_group = 4\nrails = 17\nspines = 2\nhost_rate = \"100Gbps\"",
            "t.toml: topology.rails: 17 NICs a server is more than 16 (valid: 1..16)",
        ),
        (
            "kind = \"rail-optimized\"\nservers_per_group = 4\nrails = 4\nspines = 2\nhost_rate = \"100Gbps\"",
            "t.toml: topology.groups: is required with kind = \"rail-optimized\"",
        ),
        (
            "kind = \"leaf-spine\"\nleaves = 2\nspines = 2\nhost_rate = \"10Gbps\"\ndelay = \"1us\"\nnics_per_host = 0",
            "t.toml: topology.nics_per_host: 0 is too few; at least 1",
        ),
        (
            "kind = \"leaf-spine\"\nleaves = 6\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            "t.toml: topology.spines: is required with kind = \"leaf-spine\"",
        ),
        (
            "kind = \"dumbbell\"\nleft = 2\nright = 2\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            "t.toml: topology.bottleneck_rate: give either bottleneck_rate (e.g. \"40Gbps\") or oversubscription (e.g. 8, for max(left, right) x host_rate / 8)",
        ),
        (
            "kind = \"leaf-spine\"\nleaves = 6\nspines = 4\nhosts_per_leaf = 3\noversubscription = 2\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            "t.toml: topology.oversubscription: give hosts_per_leaf or oversubscription, not both",
        ),
        (
            "kind = \"parking-lot\"\nbottlenecks = 0\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            "t.toml: topology.bottlenecks: 0 is too few; at least 1",
        ),
        (
            "kind = \"fat-tree\"\nk = 256\nhost_rate = \"10Gbps\"\ndelay = \"1us\"",
            "t.toml: topology: the node count 4276224 exceeds the limit 1000000 (docs/scenario.md, Limits)",
        ),
    ] {
        let e = resolve(&format!("[topology]\n{body}\n")).unwrap_err();
        assert_eq!(e, want);
    }
    let e = resolve("[topology]\nkind = \"clos\"\n").unwrap_err();
    assert!(e.contains("fat-tree") && e.contains("parking-lot"), "{e}");
}
