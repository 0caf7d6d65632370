//! The HPCC ns-3 topology and flow files in data/hpcc-ns3/ load and run through
//! the simulator, alone and on the generated fabric.

use rocesim::run_str;
use rocesim::sim::RunOptions;

fn check_conserved(text: &str, flows: usize, bytes_each: u64) {
    let out = run_str(text, &[], &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let s = &out.summary;
    assert_eq!(s.flows_total, flows);
    assert_eq!(s.flows_completed, flows, "every flow completes");
    assert_eq!(s.drops, 0);
    let delivered: u64 = out.fct.iter().map(|r| r.size).sum();
    assert_eq!(delivered, flows as u64 * bytes_each, "bytes conserved");
    let mut ids: Vec<u32> = out.fct.iter().map(|r| r.flow_id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), flows, "each flow completes once");
}

#[test]
fn the_incast16_topology_and_1mb_flow_files_run_to_completion() {
    let text = r#"
[topology]
kind = "ns3"
file = "../data/hpcc-ns3/generated/scenarios/incast16_topo.txt"
[cc]
algorithm = "hpcc"
[workload]
ns3_flow_files = ["../data/hpcc-ns3/generated/scenarios/incast16_flow_1MB.txt"]
ns3_time_offset = "2s"
"#;
    check_conserved(text, 16, 1_000_000);
}

#[test]
fn the_example_star_topology_and_flow_file_run_to_completion() {
    // mix/topology.txt + mix/flow.txt (2 x 200 MB at 2 s), cut to 2 MB each to stay quick.
    let text = r#"
[topology]
kind = "ns3"
file = "../data/hpcc-ns3/mix/topology.txt"
[cc]
algorithm = "dcqcn"
[workload]
ns3_flow_files = ["../data/hpcc-ns3/mix/flow.txt", "../data/hpcc-ns3/generated/scenarios/flow_empty.txt"]
ns3_time_offset = "2s"
"#;
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let l = rocesim::scenario::load::load_str(text, "t", &base, "t", &[]).unwrap();
    let mut cfg = rocesim::scenario::resolve(&l).unwrap();
    assert_eq!(cfg.flows.len(), 2);
    assert_eq!(cfg.flows[0].size, 200_000_000);
    cfg.flows.iter_mut().for_each(|f| f.size = 2_000_000);
    let out = rocesim::run(cfg, &RunOptions::default(), None, &mut |_, _, _| {}).unwrap();
    assert_eq!(out.summary.flows_completed, 2);
}

#[test]
fn the_hpcc_fat_tree_flow_file_runs_on_the_generated_fabric() {
    // traffic_gen.py's FbHdp flows for mix/fat.txt, on kind = "hpcc-fat-tree":
    // the same node ids, so the file applies unchanged. First 300 flows only.
    let text = r#"
[topology]
kind = "hpcc-fat-tree"
[cc]
algorithm = "hpcc"
[workload]
ns3_flow_files = ["../data/hpcc-ns3/generated/scenarios/fat_fbhdp_l30_100G_1ms_seed1.txt"]
ns3_time_offset = "2s"
[output]
queue_interval = "0s"
"#;
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let l = rocesim::scenario::load::load_str(text, "t", &base, "t", &[]).unwrap();
    let mut cfg = rocesim::scenario::resolve(&l).unwrap();
    assert_eq!(cfg.flows.len(), 9547);
    cfg.flows.truncate(300);
    let total: u64 = cfg.flows.iter().map(|f| f.size).sum();
    let out = rocesim::run(cfg, &RunOptions::default(), None, &mut |_, _, _| {}).unwrap();
    assert_eq!(out.summary.flows_completed, 300);
    assert_eq!(out.fct.iter().map(|r| r.size).sum::<u64>(), total);
}

#[test]
fn the_dual_homed_ali_topology_runs_with_first_link_hosts() {
    // mix/ali_32host_10rack.txt gives every server two 25G links to a ToR pair; a
    // host here has one NIC port, so it is rejected unless each keeps its first link.
    let text = r#"
[topology]
kind = "ns3"
file = "../data/hpcc-ns3/mix/ali_32host_10rack.txt"
[cc]
algorithm = "hpcc"
[[workload.permutation]]
size = "20KB"
hosts = ["0-95"]
[output]
queue_interval = "0s"
"#;
    let e = run_str(text, &[], &RunOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("multi_homed = \"first-link\""), "{e}");
    let out = run_str(
        text,
        &["topology.multi_homed=first-link".into()],
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(out.summary.flows_completed, 96);
    assert_eq!(out.summary.drops, 0);
}
