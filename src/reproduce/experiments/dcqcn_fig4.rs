//! dcqcn-fig4 and dcqcn-fig9: the victim flow (DCQCN §2.2, Fig. 4) and DCQCN
//! protecting it (§3, Fig. 9). An incast to R under T4 pauses its way up the
//! fabric; VS -> VR shares no congested link with it, yet PFC slows it down.

use super::dcqcn_util::{flow_gbps, min_med_max};
use crate::error::Error;
use crate::plot::{AxisSpec, BarChart, Figure, write_figure};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec};
use std::path::Path;

pub struct DcqcnFig4;
pub struct DcqcnFig9;

/// VS = H15 (node 4) -> VR = H21 (node 5).
const VS: u32 = 4;
const VR: u32 = 5;
/// The two bars: incast senders without and with H31, H32.
const CASES: [(&str, &str, &str); 2] = [
    ("no-t3", "[0, 1, 2, 3]", "no senders under T3"),
    ("t3", "[0, 1, 2, 3, 10, 11]", "H31, H32 sending"),
];

/// ECMP mappings per bar. The victim's throughput is bimodal across mappings
/// (about 4.5 Gbps when its uplink carries two incast flows, 9 when fewer, line
/// rate when none), so the median needs many: the paper's is over 250
/// transfers.
fn seeds(quick: bool) -> u64 {
    if quick { 1 } else { 25 }
}

fn runs(quick: bool) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for (name, senders, _) in CASES {
        for s in 1..=seeds(quick) {
            v.push(
                RunSpec::new(format!("{name}-seed-{s}"), "victim.toml")
                    .set(format!("workload.incast[0].senders={senders}"))
                    .set(format!("seed={s}")),
            );
        }
    }
    v
}

/// Median victim throughput (Gbps) over the runs of each case.
fn victim_medians(runs: &[Finished]) -> Vec<f64> {
    CASES
        .iter()
        .map(|(name, _, _)| {
            let tp: Vec<f64> = runs
                .iter()
                .filter(|r| r.spec.name.starts_with(&format!("{name}-seed-")))
                .flat_map(|r| r.out.fct.iter())
                .filter(|f| f.src == VS && f.dst == VR)
                .map(flow_gbps)
                .collect();
            min_med_max(&tp).1
        })
        .collect()
}

fn bars(dir: &Path, stem: &str, title: &str, med: &[f64]) -> Result<(), Error> {
    let fig = Figure::Bar(BarChart {
        title: title.into(),
        x_label: "incast senders".into(),
        categories: CASES.iter().map(|c| c.2.to_string()).collect(),
        y: AxisSpec::linear("victim flow median throughput (Gbps)"),
        groups: vec![("VS -> VR".into(), med.to_vec())],
        ..BarChart::default()
    });
    write_figure(dir, stem, &fig)?;
    Ok(())
}

fn notes(a: &mut Analysis, quick: bool) {
    a.notes.push(format!(
        "Incast: H11-H14 (and H31, H32 in the second bar) send 60 MB each to R = H41 from 0; the victim \
         VS = H15 -> VR = H21 sends 20 MB from 5 ms, when the pauses have spread. Median over {} seed(s) \
         (ECMP mappings); the paper takes the median of 250 transfers of 250 MB. --quick runs 1 seed \
         per bar instead of 25; sizes are the same.",
        seeds(quick)
    ));
}

impl Experiment for DcqcnFig4 {
    fn id(&self) -> &'static str {
        "dcqcn-fig4"
    }
    fn title(&self) -> &'static str {
        "victim flow: PFC pauses from an incast slow a flow that shares no congested link, PFC only"
    }
    fn source(&self) -> &'static str {
        "DCQCN §2.2, Fig. 4"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        runs(quick)
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let med = victim_medians(runs);
        bars(dir, "victim-pfc", "PFC only: victim flow throughput", &med)?;
        a.figures.push("victim-pfc".into());
        a.rows.push(Row::judged(
            "victim throughput, no senders under T3",
            "\"it only gets 10Gbps\" (not the expected 20 Gbps)",
            format!("{:.1} Gbps", med[0]),
            med[0],
            &Rule::within(10.0, 0.25, " Gbps").partly(0.6),
            "Cascading pauses from T4 reach T1's uplinks and slow every flow on them",
        ));
        a.rows.push(Row::judged(
            "victim throughput, H31 and H32 also sending",
            "\"falls from 10Gbps to 4.5Gbps\"",
            format!("{:.1} Gbps", med[1]),
            med[1],
            &Rule::within(4.5, 0.25, " Gbps").partly(0.6),
            "",
        ));
        notes(&mut a, quick);
        Ok(a)
    }
}

impl Experiment for DcqcnFig9 {
    fn id(&self) -> &'static str {
        "dcqcn-fig9"
    }
    fn title(&self) -> &'static str {
        "DCQCN protects the victim flow of Fig. 4"
    }
    fn source(&self) -> &'static str {
        "DCQCN §3, Fig. 9"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        runs(quick)
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let med = victim_medians(runs);
        bars(dir, "victim-dcqcn", "DCQCN: victim flow throughput", &med)?;
        a.figures.push("victim-dcqcn".into());
        let change = med[1] / med[0] - 1.0;
        a.rows.push(Row::judged(
            "victim throughput as H31, H32 join",
            "\"the throughput of VS-VR flow does not change as we add senders under T3\"",
            format!(
                "{:.1} -> {:.1} Gbps ({:+.0}%)",
                med[0],
                med[1],
                100.0 * change
            ),
            change.abs(),
            &Rule::at_most(0.1, "")
                .partly(0.25)
                .of("the relative change"),
            "",
        ));
        a.rows.push(Row::judged(
            "victim throughput vs PFC only",
            "DCQCN \"solves the victim flow problem depicted in Figure 4\": VS gets the 20 Gbps \
             §2.2 expects, not 10 or 4.5",
            format!("{:.1} and {:.1} Gbps", med[0], med[1]),
            med[0].min(med[1]) / 20.0,
            &Rule::at_least(0.8, "")
                .partly(0.5)
                .of("the smaller victim median / 20 Gbps"),
            "The incast senders are slowed at the source, so few pauses reach T1",
        ));
        notes(&mut a, quick);
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&DcqcnFig4);
        crate::reproduce::check_all_runs_load(&DcqcnFig9);
    }
}
