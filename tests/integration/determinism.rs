//! Same scenario and seed: byte-identical outputs. Another seed: other ECMP and
//! RED choices.

use crate::common::{output_files as files, scratch};
use std::path::Path;
use std::process::Command;

fn rocesim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// DCQCN with probabilistic RED marking on the HPCC fat-tree: ECMP and marking
/// both draw on the seed.
fn scenario(dir: &Path) -> std::path::PathBuf {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hpcc-ns3/mix/fat.txt");
    let text = format!(
        r#"
name = "det"
[topology]
kind = "ns3"
file = "{}"
[switch.ecn]
kmin = "5KB"
kmax = "100KB"
pmax = 0.2
[cc]
algorithm = "dcqcn"
[[workload.incast]]
senders = [16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192]
receiver = 0
size = "300KB"
[[workload.flows]]
src = 20
dst = 300
size = "500KB"
[output]
queue_interval = "5us"
"#,
        data.display()
    );
    let p = dir.join("det.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn the_same_seed_gives_byte_identical_files_and_another_seed_changes_them() {
    let dir = scratch("determinism");
    let sc = scenario(&dir);
    let run = |out: &str, seed: &str| {
        let o = rocesim(&[
            "run",
            sc.to_str().unwrap(),
            "--out",
            dir.join(out).to_str().unwrap(),
            "--seed",
            seed,
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        files(&dir.join(out))
    };
    let a = run("a", "1");
    let b = run("b", "1");
    let c = run("c", "2");
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "fct.csv",
            "latency_hist.csv",
            "pfc.csv",
            "pfc_diagnostics.json",
            "pfc_ports.csv",
            "queue.csv",
            "queue_hist.csv",
            "scenario.toml",
            "summary.json"
        ]
    );
    assert_eq!(a, b, "same seed, same bytes");
    let fct = |v: &[(String, Vec<u8>)]| v.iter().find(|(n, _)| n == "fct.csv").unwrap().1.clone();
    assert_ne!(
        fct(&a),
        fct(&c),
        "another seed changes ECMP paths and RED marks"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
