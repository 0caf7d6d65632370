//! Workload generators: sizes follow the CDF, arrivals hit the target load, seeds
//! reproduce flows, and `rocesim gen-flows` writes what `rocesim run` simulates.

use rocesim::scenario::{self, Source};
use rocesim::units::{Delta, SimTime};
use rocesim::workload::builtin::{BUILTINS, builtin};
use rocesim::workload::cdf::ks_statistic;
use rocesim::workload::ns3;
use rocesim::workload::poisson::{Poisson, realized_load};
use rocesim::workload::{Classes, FlowSpec, HostPool, rng};
use std::path::Path;

fn resolve(text: &str, set: &[&str]) -> Result<rocesim::config::RunConfig, String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    scenario::to_config(&Source::text(text, "w.toml", &base, "w"), &set).map_err(|e| e.to_string())
}

const FAT: &str = "[cc]\nalgorithm = \"hpcc\"\n[topology]\nkind = \"hpcc-fat-tree\"\n";

#[test]
fn sampled_sizes_match_the_cdf_by_kolmogorov_smirnov() {
    // With n = 100,000 draws, the KS statistic of a correct sampler exceeds
    // 1.949 / sqrt(n) = 0.00616 with probability 0.001 (the asymptotic critical
    // value; conservative for the step-encoded files, whose distributions have
    // atoms). The draws are seeded, so the test is deterministic.
    let n = 100_000;
    let critical = 1.949 / (n as f64).sqrt();
    let mut worst: f64 = 0.0;
    for (k, name) in [
        "web-search",
        "fb-hadoop",
        "data-mining",
        "google-rpc",
        "fb-webserver",
        "homa-w1",
        "homa-w4",
        "ali-storage",
    ]
    .iter()
    .enumerate()
    {
        let cdf = builtin(name).unwrap().unwrap();
        let mut r = rng(42, k as u64);
        let mut v: Vec<u64> = (0..n).map(|_| cdf.sample(&mut r)).collect();
        let mean = v.iter().sum::<u64>() as f64 / n as f64;
        let d = ks_statistic(&cdf, &mut v);
        println!(
            "KS {name}: D = {d:.5} (critical {critical:.5}), sample mean {mean:.0} B vs {:.0} B",
            cdf.mean()
        );
        assert!(d < critical, "{name}: D = {d}");
        worst = worst.max(d);
        // The same statistic against another workload is far larger.
        if *name == "fb-hadoop" {
            let other = builtin("web-search").unwrap().unwrap();
            assert!(ks_statistic(&other, &mut v) > 10.0 * critical);
        }
    }
    assert!(worst > 0.0);
}

#[test]
fn every_builtin_distribution_loads() {
    for b in BUILTINS {
        let c = builtin(b.name).unwrap().unwrap();
        assert!(c.rows() >= 2 && c.mean() > 0.0, "{}", b.name);
    }
}

#[test]
fn realized_host_link_load_is_within_3_percent_of_the_target() {
    let topo = resolve(FAT, &[]).unwrap().topo;
    let pool = HostPool::new(&topo, None);
    for (name, load, us) in [
        ("fb-hadoop", 0.3, 20_000),
        ("web-search", 0.5, 100_000),
        ("homa-w1", 0.3, 100),
    ] {
        let cdf = builtin(name).unwrap().unwrap();
        let w = Poisson {
            cdf: &cdf,
            load,
            start: SimTime::ZERO,
            duration: Delta::from_us(us),
            exclude_same_rack: false,
            classes: Classes::One(3),
            dport: 100,
        };
        let flows = w.generate(&pool, 1).unwrap();
        let real = realized_load(&flows, &pool, SimTime::ZERO, Delta::from_us(us));
        // Receive side: bytes per destination.
        let mut rx = vec![0u64; 320];
        flows.iter().for_each(|f| rx[f.dst.idx()] += f.size);
        let rx_load = rx.iter().sum::<u64>() as f64 * 8.0 / (320.0 * 100e9 * us as f64 * 1e-6);
        println!(
            "{name} at {load}: {} flows over {us} us, realized load {real:.4} ({:+.2}%)",
            flows.len(),
            (real / load - 1.0) * 100.0
        );
        assert!((real / load - 1.0).abs() < 0.03, "{name}: {real}");
        assert!((rx_load / load - 1.0).abs() < 0.03, "{name}: rx {rx_load}");
    }
}

const POISSON: &str = r#"
[[workload.poisson]]
cdf = "fb-hadoop"
load = 0.3
duration = "200us"
classes = [2, 3]
exclude_same_rack = true

[[workload.incast_periodic]]
fan_in = 60
size = "500KB"
load = 0.02
duration = "400us"

[[workload.permutation]]
size = "100KB"
start = "50us"
"#;

#[test]
fn the_same_seed_gives_the_same_flows_and_another_seed_others() {
    let text = format!("{FAT}{POISSON}");
    let a = resolve(&text, &[]).unwrap().flows;
    let b = resolve(&text, &[]).unwrap().flows;
    let c = resolve(&text, &["seed=2"]).unwrap().flows;
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Sorted by start; incast events at 0 and 375 us; 320 permutation flows.
    assert!(a.windows(2).all(|w| w[0].start <= w[1].start));
    assert_eq!(a.iter().filter(|f| f.size == 500_000).count() % 60, 0);
    assert!(a.iter().filter(|f| f.size == 100_000).count() >= 320);
    let classes: std::collections::BTreeSet<u8> = a.iter().map(|f| f.class).collect();
    assert_eq!(classes.into_iter().collect::<Vec<_>>(), [2, 3]);
    // A table's own seed pins it regardless of the scenario seed.
    let pinned = text.replace("duration = \"200us\"", "duration = \"200us\"\nseed = 9");
    let p1 = resolve(&pinned, &[]).unwrap().flows;
    let p2 = resolve(&pinned, &["seed=5"]).unwrap().flows;
    let poisson = |v: &[FlowSpec]| {
        v.iter()
            .filter(|f| f.size != 500_000 && f.size != 100_000)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(poisson(&p1), poisson(&p2));
}

#[test]
fn workload_field_errors_name_the_field_and_what_is_valid() {
    for (table, want) in [
        (
            "[[workload.poisson]]\ncdf = \"websearch\"\nload = 0.3\nduration = \"1ms\"",
            "w.toml: workload.poisson[0].cdf: \"websearch\" is not a built-in distribution",
        ),
        (
            "[[workload.poisson]]\ncdf = \"web-search\"\nload = 1.5\nduration = \"1ms\"",
            "w.toml: workload.poisson[0].load: 1.5 must be in (0, 1], e.g. 0.3 for 30%",
        ),
        (
            "[[workload.poisson]]\ncdf = \"web-search\"\nload = 0.3\nduration = \"1ms\"\nhosts = [0, \"400-410\"]",
            "w.toml: workload.poisson[0].hosts[1]: node 400 does not exist (hosts: 0-319)",
        ),
        (
            "[[workload.poisson]]\ncdf = \"web-search\"\nload = 0.3\nduration = \"1ms\"\nhosts = [\"0-3\", 2]",
            "w.toml: workload.poisson[0].hosts[1]: host 2 is listed twice",
        ),
        (
            "[[workload.poisson]]\ncdf = \"web-search\"\nload = 0.3\nduration = \"1ms\"\nclasses = [0]",
            "w.toml: workload.poisson[0].classes[0]: 0 is not a data class",
        ),
        (
            "[[workload.poisson]]\ncdf = \"web-search\"\nload = 0.3\nduration = \"1ms\"\nrate = 3",
            "w.toml: line ",
        ),
        (
            "[[workload.incast_periodic]]\nfan_in = 400\nsize = \"500KB\"\nload = 0.02\nduration = \"1ms\"",
            "w.toml: workload.incast_periodic[0].fan_in: fan_in = 400 needs 401 hosts; the pool has 320",
        ),
        (
            "[[workload.incast_periodic]]\nfan_in = 4\nsize = \"500KB\"\nduration = \"1ms\"",
            "w.toml: workload.incast_periodic[0]: give load",
        ),
        (
            "[[workload.poisson]]\ncdf = \"fb-hadoop\"\nload = 1\nduration = \"10s\"",
            "w.toml: workload.poisson[0]: would generate about ",
        ),
        (
            "[[workload.long_short]]\nlong_src = 1\nshort_src = 330\ndst = 0\nlong_size = \"10MB\"\nshort_start = \"1ms\"",
            "w.toml: workload.long_short[0].short_src: node 330 is a switch",
        ),
        (
            "[[workload.staggered]]\nreceiver = 0\ninterval = \"1ms\"",
            "w.toml: workload.staggered[0]: give either senders = [...] or fan_in = N",
        ),
    ] {
        let e = resolve(&format!("{FAT}{table}\n"), &[]).unwrap_err();
        assert!(e.starts_with(want), "{e}\n  wanted: {want}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn a_cdf_file_path_is_read_relative_to_the_scenario() {
    let dir = std::env::temp_dir().join(format!("rocesim-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("my.txt"),
        "# two sizes\n1000 0\n1000 0.5\n3000 0.5\n3000 1\n",
    )
    .unwrap();
    std::fs::write(dir.join("bad.txt"), "0 0\n1000 0.6\n900 1\n").unwrap();
    let text =
        format!("{FAT}[[workload.poisson]]\ncdf = \"my.txt\"\nload = 0.1\nduration = \"20us\"\n");
    let l = scenario::effective(&Source::text(&text, "w.toml", &dir, "w"), &[]).unwrap();
    let flows = l.to_config().unwrap().flows;
    assert!(!flows.is_empty() && flows.iter().all(|f| f.size == 1000 || f.size == 3000));
    let bad = text.replace("my.txt", "bad.txt");
    let l = scenario::effective(&Source::text(&bad, "w.toml", &dir, "w"), &[]).unwrap();
    let e = l.to_config().unwrap_err().to_string();
    assert!(e.ends_with("bad.txt: line 3: size 900 is smaller than the previous row's 1000; sizes must not decrease"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gen_flows_writes_the_flows_run_would_simulate_in_csv_and_ns3_format() {
    let dir = std::env::temp_dir().join(format!("rocesim-genflows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scen = dir.join("s.toml");
    std::fs::write(&scen, format!("seed = 3\n{FAT}{POISSON}")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["gen-flows", scen.to_str().unwrap(), "--out"])
        .arg(dir.join("flows.txt"))
        .args(["--seed", "4"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cfg = scenario::to_config(&Source::File(scen.clone()), &["seed=4".into()]).unwrap();
    // The ns-3 file reads back as exactly the resolved flows.
    let back = ns3::read_flows(&dir.join("flows.txt")).unwrap();
    assert_eq!(back, cfg.flows);
    // The CSV has one row per flow with the simulator's ids.
    let csv = std::fs::read_to_string(dir.join("flows.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("flow_id,src,dst,class,dport,size_bytes,start_ns")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), cfg.flows.len());
    let f = &cfg.flows[7];
    assert_eq!(
        rows[7],
        format!(
            "7,{},{},{},{},{},{}",
            f.src,
            f.dst,
            f.class,
            f.dport,
            f.size,
            f.start.ps() / 1000
        )
    );
    // Bad input: exit code 2 and one line.
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(["gen-flows", scen.to_str().unwrap(), "--set", "topology.k=4"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
