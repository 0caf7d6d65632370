//! hpcc-fig12: flow-control choices (PFC, lossy with go-back-N, lossy with IRN)
//! under DCQCN and HPCC, FB_Hadoop at 30 % load + 60-to-1 incasts on the
//! 320-host fat-tree (HPCC §5.3, Fig. 12).

use super::hpcc_fig11::{argmin, draw_fct, fat_tree_run, listing, load_runs, short_long_p95};
use crate::error::Error;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec};
use std::path::Path;

pub struct HpccFig12;

const CCS: [&str; 2] = ["dcqcn", "hpcc"];
/// (label, overrides). Lossy modes turn PFC off and, as the paper's footnote 6,
/// let one egress queue take up to half the buffer (egress alpha = 1).
const FLOW_CONTROL: [(&str, &[&str]); 3] = [
    ("PFC", &[]),
    (
        "GBN",
        &[
            "switch.pfc.enabled=false",
            "switch.egress_alpha=1.0",
            "nic.loss_recovery=\"go-back-n\"",
        ],
    ),
    (
        "IRN",
        &[
            "switch.pfc.enabled=false",
            "switch.egress_alpha=1.0",
            "nic.loss_recovery=\"irn\"",
        ],
    ),
];

fn name(cc: &str, fc: &str) -> String {
    format!("{cc}-{}", fc.to_lowercase())
}

/// Largest relative spread (max / min - 1) of positive values.
fn spread(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::MIN, f64::max);
    let min = v.iter().copied().fold(f64::MAX, f64::min);
    max / min - 1.0
}

impl Experiment for HpccFig12 {
    fn id(&self) -> &'static str {
        "hpcc-fig12"
    }
    fn title(&self) -> &'static str {
        "flow-control choices (PFC, go-back-N, IRN) under DCQCN and HPCC: p95 FCT slowdown"
    }
    fn source(&self) -> &'static str {
        "HPCC §5.3, Fig. 12"
    }

    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for cc in CCS {
            for (fc, sets) in FLOW_CONTROL {
                let mut r = fat_tree_run(name(cc, fc), "fattree-30-incast.toml", cc, quick);
                for s in sets {
                    r = r.set(*s);
                }
                v.push(r);
            }
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let labels: Vec<&str> = FLOW_CONTROL.iter().map(|(l, _)| *l).collect();
        let mut short_by_cc = Vec::new();
        for cc in CCS {
            let names: Vec<String> = labels.iter().map(|fc| name(cc, fc)).collect();
            let data = load_runs(dir, &names, &labels)?;
            let stem = format!("fct-p95-{cc}");
            draw_fct(
                dir,
                &stem,
                &format!("{cc}: p95 FCT slowdown by flow control"),
                &data,
            )?;
            a.figures.push(stem);
            let short: Vec<f64> = data.iter().map(|r| short_long_p95(r).0).collect();
            let drops: Vec<f64> = names
                .iter()
                .map(|n| {
                    let f = runs.iter().find(|f| f.spec.name == *n).expect("run exists");
                    f.out.summary.drops as f64
                })
                .collect();
            a.notes.push(format!(
                "{cc}: packets dropped: {}",
                listing(&labels, &drops, 0)
            ));
            short_by_cc.push(short);
        }
        let (dcqcn, hpcc) = (&short_by_cc[0], &short_by_cc[1]);
        let s = spread(hpcc);
        a.rows.push(Row::judged(
            "HPCC: p95 slowdown of flows < 120 KB by flow control",
            "with HPCC, different flow control schemes do not affect the performance",
            format!("{} (spread {:.0}%)", listing(&labels, hpcc, 2), s * 100.0),
            s * 100.0,
            &Rule::at_most(10.0, " %")
                .partly(30.0)
                .of("spread of the three (largest / smallest - 1)"),
            "",
        ));
        let best = argmin(dcqcn);
        // IRN's lead over the next-best flow control (< 1: another one is best).
        let next = (0..dcqcn.len())
            .filter(|&i| labels[i] != "IRN")
            .map(|i| dcqcn[i])
            .fold(f64::INFINITY, f64::min);
        let irn = labels.iter().position(|l| *l == "IRN").expect("an IRN run");
        a.rows.push(Row::judged(
            "DCQCN: p95 slowdown of flows < 120 KB by flow control",
            "a better flow control improves DCQCN; IRN (its fixed window limits \
             in-flight bytes) does best",
            listing(&labels, dcqcn, 2),
            next / dcqcn[irn],
            &Rule::at_least(1.1, "x")
                .partly(1.0)
                .of("the next-best flow control's p95 / IRN's"),
            &format!("best for DCQCN: {}", labels[best]),
        ));
        let hpcc_worst = hpcc.iter().copied().fold(f64::MIN, f64::max);
        a.rows.push(Row::judged(
            "DCQCN's best vs HPCC",
            "even with IRN, DCQCN still cannot match HPCC's performance",
            format!(
                "DCQCN best {:.2} vs HPCC worst {:.2}",
                dcqcn[best], hpcc_worst
            ),
            dcqcn[best] / hpcc_worst,
            &Rule::at_least(1.05, "x")
                .partly(1.0 / 1.05)
                .of("DCQCN's best p95 / HPCC's worst"),
            "",
        ));
        a.notes.push(format!(
            "Same fabric, workload and DCQCN parameters as hpcc-fig11; full runs have 5 ms of \
             arrivals{}. Lossy runs: PFC off, egress dynamic threshold alpha = 1 (HPCC §5.3 \
             footnote 6), go-back-N or IRN (selective retransmission with a BDP cap) at the \
             NICs.",
            if quick {
                "; this --quick run has 0.3 ms"
            } else {
                ""
            }
        ));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_max_over_min_minus_one() {
        assert!((spread(&[2.0, 2.5, 2.2]) - 0.25).abs() < 1e-12);
        assert_eq!(spread(&[3.0, 3.0]), 0.0);
    }

    #[test]
    fn quick_runs_load_and_validate() {
        crate::reproduce::check_runs_load("hpcc-fig12", &HpccFig12.runs(true));
    }
}
