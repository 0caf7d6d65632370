//! dcqcn-fig20: the multi-bottleneck (parking-lot) scenario (DCQCN §7, Fig. 20):
//! DCQCN with DCTCP-like cut-off marking vs RED-like marking; the flow with two
//! bottlenecks gets less than its max-min share.

use crate::error::Error;
use crate::plot::{AxisSpec, BarChart, Figure, write_figure};
use crate::reproduce::metrics::{mean_between, throughput};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, run};
use std::path::Path;

pub struct DcqcnFig20;

/// (run name, label, overrides).
const MARKING: [(&str, &str, &[&str]); 2] = [
    (
        "cut-off",
        "cut-off (K_min = K_max = 40 KB, P_max = 1)",
        &[
            "switch.ecn.kmin=\"40KB\"",
            "switch.ecn.kmax=\"40KB\"",
            "switch.ecn.pmax=1",
        ],
    ),
    ("red", "RED-like (Fig. 14)", &[]),
];

fn stop_ms(quick: bool) -> f64 {
    if quick { 60.0 } else { 200.0 }
}

/// Mean delivered throughput (Gbps) of f1, f2, f3 after the first `skip_ms`.
fn flow_means(rates: &[crate::output::RateSample], skip_ms: f64, stop_ms: f64) -> [f64; 3] {
    let tp = throughput(rates);
    let m = |f: u32| {
        tp.get(&f)
            .map(|s| mean_between(s, skip_ms, stop_ms))
            .unwrap_or(0.0)
    };
    [m(0), m(1), m(2)]
}

impl Experiment for DcqcnFig20 {
    fn id(&self) -> &'static str {
        "dcqcn-fig20"
    }
    fn title(&self) -> &'static str {
        "multi-bottleneck (parking lot): cut-off vs RED-like marking"
    }
    fn source(&self) -> &'static str {
        "DCQCN §7, Fig. 20"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        MARKING
            .iter()
            .map(|(name, _, sets)| {
                let mut r = RunSpec::new(*name, "parking-lot.toml")
                    .set(format!("stop=\"{}ms\"", stop_ms(quick)))
                    .rates(crate::units::Delta::from_us(100));
                for s in *sets {
                    r = r.set(*s);
                }
                r
            })
            .collect()
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let stop = stop_ms(quick);
        let skip = 10.0;
        let means: Vec<[f64; 3]> = MARKING
            .iter()
            .map(|(name, _, _)| flow_means(&run(runs, name).out.rates, skip, stop))
            .collect();
        let fig = Figure::Bar(BarChart {
            title: "Multi-bottleneck: throughput of the three flows".into(),
            x_label: "flow".into(),
            categories: vec!["f1".into(), "f2 (two bottlenecks)".into(), "f3".into()],
            y: AxisSpec::linear("throughput (Gbps)"),
            groups: MARKING
                .iter()
                .zip(&means)
                .map(|((_, label, _), m)| (label.to_string(), m.to_vec()))
                .collect(),
            ..BarChart::default()
        });
        write_figure(dir, "multi-bottleneck", &fig)?;
        a.figures.push("multi-bottleneck".into());
        let [c1, c2, c3] = means[0];
        let [r1, r2, r3] = means[1];
        a.rows.push(Row::judged(
            "f2 (two bottlenecks) with cut-off marking",
            "\"the flow with two bottleneck gets lower throughput\" (max-min fairness: 20 Gbps \
             each)",
            format!("f2 {c2:.1} Gbps; f1 {c1:.1}, f3 {c3:.1}"),
            c2 / c1.min(c3),
            &Rule::at_most(0.8, "x")
                .partly(0.95)
                .of("f2 / the smaller of f1 and f3"),
            "",
        ));
        a.rows.push(Row::judged(
            "f2 with RED-like marking vs cut-off",
            "\"The problem can be mitigated (but not completely solved) using a less abrupt, \
             RED-like marking scheme\": f2 gains",
            format!("f2 {r2:.1} Gbps with RED, {c2:.1} with cut-off"),
            r2 / c2,
            &Rule::at_least(1.1, "x")
                .partly(1.0)
                .of("f2 with RED / f2 with cut-off"),
            "",
        ));
        a.rows.push(Row::judged(
            "f2 with RED-like marking vs f1, f3",
            "\"mitigated (but not completely solved)\": f2 still below f1 and f3",
            format!("f2 {r2:.1} Gbps; f1 {r1:.1}, f3 {r3:.1}"),
            r2 / r1.min(r3),
            &Rule::at_most(0.95, "x")
                .partly(1.05)
                .of("f2 / the smaller of f1 and f3, with RED"),
            "",
        ));
        a.notes.push(format!(
            "The parking-lot topology reproduces Fig. 20(a)'s shape with 40 Gbps links (the S0-S1 link \
             is the T1 uplink ECMP gives f1 and f2). All three flows start at 0 and run until {stop} ms; \
             throughput is the mean delivered rate after the first {skip} ms. The paper does not give \
             the cut-off threshold; we use the strawman's 40 KB (DCQCN §5.2). Timer 55 µs, g = 1/256 \
             in both runs. --quick stops at 60 ms instead of 200 ms."
        ));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::RateSample;
    use crate::units::{Rate, SimTime};

    #[test]
    fn flow_means_skip_the_start() {
        let s = |t_us: u64, flow: u32, d: u64| RateSample {
            time: SimTime(t_us * 1_000_000),
            flow,
            rate: Rate(0),
            window: None,
            delivered: d,
            congestion: Default::default(),
        };
        // flow 1: 1.25 MB per ms = 10 Gbps after 1 ms, nothing before.
        let rates = vec![
            s(0, 1, 0),
            s(1000, 1, 0),
            s(2000, 1, 1_250_000),
            s(3000, 1, 2_500_000),
        ];
        let m = flow_means(&rates, 1.5, 3.0);
        assert_eq!(m[0], 0.0);
        assert!((m[1] - 10.0).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&DcqcnFig20);
    }
}
