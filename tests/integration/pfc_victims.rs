//! PFC's collateral damage on the DCQCN testbed and how DCQCN removes it: the
//! victim flow of DCQCN Fig. 4 vs Fig. 9 and the unfairness of Fig. 3 vs Fig. 8.
//! The shipped scenarios, scaled down in time (a smaller shared buffer so the
//! pauses spread sooner, shorter flows).

use crate::common::{assert_all_delivered, run};
use std::path::Path;

fn scenario(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// Victim throughput (Gbps) with H11-H14 plus `t3` (H31, H32 ids) sending to R.
fn victim_gbps(cc: &str, t3: &str) -> (f64, usize) {
    let text = scenario(&format!("dcqcn-victim-flow-{cc}.toml"))
        .replace("[0, 1, 2, 3, 10, 11]", &format!("[0, 1, 2, 3{t3}]"))
        .replace("6.2656MB", "1.5MB")
        .replace("\"60MB\"", "\"12MB\"")
        .replace("\"20MB\"", "\"4MB\"")
        .replace("\"5ms\"", "\"1.2ms\"");
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    let v = out.fct.iter().find(|f| f.src == 4 && f.dst == 5).unwrap();
    (
        v.size as f64 * 8.0 / v.fct.as_ns_f64(),
        out.summary.pfc_victim_flows,
    )
}

#[test]
fn with_pfc_alone_the_victim_flow_slows_as_senders_join_under_t3() {
    let (alone, victims) = victim_gbps("pfc", "");
    let (with_t3, _) = victim_gbps("pfc", ", 10, 11");
    assert!(victims >= 1, "the victim is reported");
    // DCQCN Fig. 4(b): 10 Gbps, then 4.5 Gbps with H31 and H32.
    assert!(alone < 20.0, "paused below its fair 20 Gbps: {alone:.2}");
    assert!(with_t3 < 0.7 * alone, "{alone:.2} -> {with_t3:.2} Gbps");
}

#[test]
fn with_dcqcn_the_victim_flow_keeps_its_throughput() {
    let (alone, _) = victim_gbps("dcqcn", "");
    let (with_t3, _) = victim_gbps("dcqcn", ", 10, 11");
    let (pfc_alone, _) = victim_gbps("pfc", "");
    // DCQCN Fig. 9: the victim's throughput does not change.
    assert!(
        (with_t3 / alone - 1.0).abs() < 0.1,
        "{alone:.2} vs {with_t3:.2} Gbps"
    );
    assert!(
        alone > 1.5 * pfc_alone,
        "{alone:.2} vs PFC {pfc_alone:.2} Gbps"
    );
}

/// Per-sender throughput (Gbps, by source id) of the Fig. 3 incast.
fn shares(cc: &str) -> Vec<(u32, f64)> {
    let text = scenario(&format!("dcqcn-unfairness-{cc}.toml")).replace("\"20MB\"", "\"10MB\"");
    let out = run(&text, &[]);
    assert_all_delivered(&out);
    let mut v: Vec<(u32, f64)> = out
        .fct
        .iter()
        .map(|f| (f.src, f.size as f64 * 8.0 / f.fct.as_ns_f64()))
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

#[test]
fn with_pfc_alone_h4_beside_the_receiver_gets_more_than_each_remote_sender() {
    let s = shares("pfc");
    let h4 = s.iter().find(|x| x.0 == 16).unwrap().1;
    for &(src, g) in s.iter().filter(|x| x.0 != 16) {
        assert!(h4 > 1.3 * g, "H4 {h4:.2} vs host {src} {g:.2} Gbps");
    }
}

#[test]
fn with_dcqcn_the_four_senders_share_equally() {
    let s = shares("dcqcn");
    let (min, max) = s
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), x| (a.min(x.1), b.max(x.1)));
    assert!(max / min < 1.1, "{s:?}");
}
