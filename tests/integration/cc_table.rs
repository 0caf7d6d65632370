//! The per-scenario table of the congestion-control micro-benchmarks: aggregate
//! goodput, p50/p99 queue and Jain's index over each scenario's steady window, per
//! algorithm. docs/models.md ("Micro-benchmarks") shows each table: the test
//! fails when the page no longer shows what the runs give (issue 42 item 21), and
//! prints the tables to paste:
//! `cargo test --release --test integration cc_table -- --nocapture`.

use crate::common::run_with;
use crate::measure::{goodput, jain, pct, queue, us};
use rocesim::sim::RunOptions;
use rocesim::units::Delta;

struct Case {
    scenario: &'static str,
    text: &'static str,
    algorithms: &'static [&'static str],
    /// Steady window, us.
    window: (f64, f64),
    ports: &'static [(u32, u16)],
}

const TWO_TO_ONE: &[&str] = &[
    "dctcp",
    "timely",
    "timely+win",
    "dcqcn",
    "dcqcn+win",
    "hpcc",
    "rcc",
    "swift",
];

#[test]
fn the_micro_benchmark_tables_in_models_md_are_what_the_runs_give() {
    let cases = [
        Case {
            scenario: "rcc-convergence (N = 4 phase, 7-8 ms)",
            text: include_str!("../../scenarios/rcc-convergence.toml"),
            algorithms: &["rcc", "rcc-sender", "hpcc", "dcqcn", "swift"],
            window: (7000.0, 7900.0),
            ports: &[(5, 4)],
        },
        Case {
            scenario: "multi-bottleneck (1.5-2.5 ms; ports S0->S1, S1->R2)",
            text: include_str!("../../scenarios/multi-bottleneck-rcc.toml"),
            algorithms: &[
                "rcc",
                "rcc-sender",
                "rcc-ewa",
                "rcc-pid",
                "hpcc",
                "dcqcn",
                "timely",
                "swift",
            ],
            window: (1500.0, 2500.0),
            ports: &[(5, 2), (6, 2)],
        },
        Case {
            scenario: "hpcc-reaction 16-to-1 (0-500 us)",
            text: include_str!("../../scenarios/hpcc-reaction-combined.toml"),
            algorithms: &["hpcc", "hpcc reaction=per-ack", "hpcc reaction=per-rtt"],
            window: (0.0, 500.0),
            ports: &[(17, 0)],
        },
        Case {
            scenario: "hpcc-txrate-vs-rxrate 2-to-1 (100-600 us)",
            text: include_str!("../../scenarios/hpcc-txrate-vs-rxrate.toml"),
            algorithms: &["hpcc rate_signal=tx", "hpcc rate_signal=rx"],
            window: (100.0, 600.0),
            ports: &[(3, 0)],
        },
        Case {
            scenario: "incast 16-to-1 (incast-16to1-swift, 200 us to 5 ms)",
            text: include_str!("../../scenarios/incast-16to1-swift.toml"),
            algorithms: &["swift", "hpcc", "dcqcn"],
            window: (200.0, 5000.0),
            ports: &[(17, 0)],
        },
        Case {
            scenario: "swift-convergence (N = 4 phase, 4-6 ms)",
            text: include_str!("../../scenarios/swift-convergence.toml"),
            algorithms: &["swift", "hpcc", "dcqcn"],
            window: (4000.0, 5990.0),
            ports: &[(5, 0)],
        },
        Case {
            scenario: "2-to-1 (dctcp-2to1 / timely-2to1, 3-8 ms)",
            text: include_str!("../../scenarios/dctcp-2to1.toml"),
            algorithms: TWO_TO_ONE,
            window: (3000.0, 8000.0),
            ports: &[(3, 0)],
        },
    ];
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(Delta::from_us(10)),
        ..RunOptions::default()
    };
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/models.md"),
    )
    .unwrap();
    let mut stale = Vec::new();
    for c in cases {
        let mut table =
            String::from("| algorithm | goodput (Gbps) | queue p50 / p99 (KB) | Jain |\n");
        table += "|---|---|---|---|\n";
        for alg in c.algorithms {
            let mut sets = Vec::new();
            let mut words = alg.split(' ');
            sets.push(format!("cc.algorithm={}", words.next().unwrap()));
            for w in words {
                sets.push(format!("cc.hpcc.{w}"));
            }
            let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
            let out = run_with(c.text, &sets, &opts);
            let (a, b) = (us(c.window.0), us(c.window.1));
            // Flows active over the whole window.
            let flows: Vec<u32> = (0..out.summary.flows_total as u32)
                .filter(|&f| {
                    let started = out.rates.iter().any(|r| r.flow == f && r.time <= a);
                    let done = crate::measure::finish(&out, f).is_some_and(|t| t < b);
                    started && !done
                })
                .collect();
            let g: Vec<f64> = flows.iter().map(|&f| goodput(&out, f, a, b)).collect();
            let qs: Vec<String> = c
                .ports
                .iter()
                .map(|&(n, p)| {
                    let q = queue(&out, n, p, a, b);
                    format!("{:.1} / {:.1}", pct(&q, 50.0) / 1e3, pct(&q, 99.0) / 1e3)
                })
                .collect();
            table += &format!(
                "| {alg} | {:.1} | {} | {:.3} |\n",
                g.iter().sum::<f64>() / 1e9,
                qs.join("; "),
                jain(&g)
            );
        }
        println!("\n{}\n\n{table}", c.scenario);
        if !page.contains(&table) {
            stale.push(c.scenario);
        }
    }
    assert!(
        stale.is_empty(),
        "docs/models.md does not show these tables as the runs give them (paste from \
         --nocapture): {stale:?}"
    );
}
