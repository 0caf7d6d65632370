//! ppfc-fig16: tail (and average, median) packet latency of standard PFC, P-PFC
//! and CaPFC under DCQCN in the 16:1 incast (P-PFC TPDS'20 §5.6, Fig. 16; the
//! average and median of §6, Fig. 19 from the same runs).

use super::ppfc_common::{
    CAPFC_COUNTERS, PAUSE_TIME_CHOICE, PAUSE_TIMES, bars, hist_mean, hist_pct, latency_hist,
};
use crate::error::Error;
use crate::plot::write_figure;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict, quotes, run};
use std::path::Path;

pub struct PpfcFig16;

/// (run, label, scheme, `key=value` of the reading): PFC, then P-PFC and
/// CaPFC under each reading, ours first.
fn variants() -> Vec<(String, String, &'static str, Option<String>)> {
    let mut v = vec![("standard".into(), "PFC".into(), "standard", None)];
    for (i, (pt, _)) in PAUSE_TIMES.iter().enumerate() {
        let (n, l) = if i == 0 {
            ("ppfc".to_string(), "P-PFC".to_string())
        } else {
            (format!("ppfc-{pt}"), format!("P-PFC ({pt})"))
        };
        v.push((
            n,
            l,
            "ppfc",
            Some(format!("switch.pfc.ppfc.pause_time=\"{pt}\"")),
        ));
    }
    for (i, (c, _)) in CAPFC_COUNTERS.iter().enumerate() {
        let (n, l) = if i == 0 {
            ("capfc".to_string(), "CaPFC".to_string())
        } else {
            (format!("capfc-{c}"), format!("CaPFC ({c})"))
        };
        v.push((
            n,
            l,
            "capfc",
            Some(format!("switch.pfc.capfc.counter=\"{c}\"")),
        ));
    }
    v
}

/// Per run: (p99, median, mean) packet delay in the first 1500 µs, µs.
struct Lat {
    p99: f64,
    p50: f64,
    mean: f64,
}

impl Experiment for PpfcFig16 {
    fn id(&self) -> &'static str {
        "ppfc-fig16"
    }
    fn title(&self) -> &'static str {
        "tail latency of PFC, P-PFC and CaPFC with DCQCN (16:1 incast)"
    }
    fn source(&self) -> &'static str {
        "P-PFC §5.6, Fig. 16 (and Fig. 19)"
    }

    fn runs(&self, _quick: bool) -> Vec<RunSpec> {
        variants()
            .into_iter()
            .map(|(n, _, scheme, reading)| {
                let r = RunSpec::new(n, "incast-16to1.toml")
                    .set(format!("switch.pfc.scheme=\"{scheme}\""));
                match reading {
                    Some(kv) => r.set(kv),
                    None => r,
                }
            })
            .collect()
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let vs = variants();
        let mut lat = std::collections::BTreeMap::new();
        for (n, ..) in &vs {
            let h = latency_hist(&run(runs, n).out)?;
            lat.insert(
                n.clone(),
                Lat {
                    p99: hist_pct(&h, 99.0),
                    p50: hist_pct(&h, 50.0),
                    mean: hist_mean(&h),
                },
            );
        }
        let cats: Vec<String> = vs.iter().map(|v| v.1.clone()).collect();
        let col =
            |f: &dyn Fn(&Lat) -> f64| -> Vec<f64> { vs.iter().map(|v| f(&lat[&v.0])).collect() };
        write_figure(
            dir,
            "tail-latency",
            &bars(
                "Tail latency (99th percentile), first 1500 µs",
                "scheme",
                "p99 one-way delay (µs)",
                cats.clone(),
                vec![("16:1 incast".into(), col(&|l| l.p99))],
            ),
        )?;
        write_figure(
            dir,
            "latency",
            &bars(
                "Average and median latency, first 1500 µs",
                "scheme",
                "one-way delay (µs)",
                cats,
                vec![
                    ("average".into(), col(&|l| l.mean)),
                    ("50th percentile".into(), col(&|l| l.p50)),
                ],
            ),
        )?;
        a.figures.push("tail-latency".into());
        a.figures.push("latency".into());
        let (pp, ca) = (&lat["ppfc"], &lat["capfc"]);
        let others = |f: &dyn Fn(&Lat) -> f64, unit: &str| -> String {
            vs.iter()
                .filter(|v| !["ppfc", "capfc"].contains(&v.0.as_str()))
                .map(|v| format!("{} {:.0}{unit}", v.1, f(&lat[&v.0])))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let explain = |r: Row| {
            if r.verdict == Verdict::Matches {
                r
            } else {
                r.explained(quotes::PPFC_CAPFC_THRESHOLD)
            }
        };
        a.rows.push(explain(Row::judged(
            "p99 packet delay, CaPFC vs P-PFC",
            "P-PFC \"can reduce tail latency almost by 2x compare with CaPFC\"",
            format!(
                "P-PFC {:.0} µs, CaPFC {:.0} µs ({:.2}x); {}",
                pp.p99,
                ca.p99,
                ca.p99 / pp.p99.max(1e-9),
                others(&|l| l.p99, " µs")
            ),
            ca.p99 / pp.p99.max(1e-9),
            &Rule::at_least(1.6, "x")
                .partly(1.1)
                .of("CaPFC's p99 / P-PFC's"),
            "every data packet delivered in the first 1500 µs, the window §5.7 uses for this \
             incast. CaPFC pauses the inputs of a queue above WARN = \
             200 KB at a per-input counter of 17 KB; the paper gives neither value, and either \
             reading of the counter holds the queue below P-PFC's",
        )));
        let red = |x: f64, y: f64| 100.0 * (1.0 - x / y.max(1e-9));
        let (ra, rm) = (red(pp.mean, ca.mean), red(pp.p50, ca.p50));
        a.rows.push(explain(Row::judged(
            "average and median delay, P-PFC vs CaPFC (Fig. 19)",
            "P-PFC can reduce the average latency \"up to 83.8 percent\" and the 50%ile \
             latency \"up to 90 percent compared to CaPFC\"",
            format!(
                "average {:.0} vs {:.0} µs ({ra:.0} %), median {:.0} vs {:.0} µs ({rm:.0} %); \
                 averages: {}",
                pp.mean,
                ca.mean,
                pp.p50,
                ca.p50,
                others(&|l| l.mean, " µs")
            ),
            ra.min(rm),
            &Rule::at_least(50.0, " %")
                .partly(10.0)
                .of("the smaller of P-PFC's reductions of the average and the median vs CaPFC"),
            "the first 1500 µs (§5.7: \"we only use the data in the first 1500 microseconds\"); \
             \"up to\" is a best case",
        )));
        a.notes.push(
            "The 16:1 incast of ppfc-fig6 (DCQCN, Table 2). CaPFC: WARN = 200 KB (= K_max) and a \
             17 KB per-input threshold, the reserved-buffer threshold P-PFC §2.1 quotes; its \
             counter counts what an input holds beyond its allowance when the queue entered \
             WARN (the `total` reading: everything it holds). The CaPFC paper is not in our \
             sources. A third reading, 17 KB past the shared allowance of standard PFC, never \
             pauses before standard PFC does: it is the PFC row. Quick and full are the same."
                .into(),
        );
        a.notes.push(format!("{PAUSE_TIME_CHOICE}."));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_runs_all_load_and_validate() {
        super::super::ppfc_common::check_runs_load("ppfc-fig16", &PpfcFig16.runs(true));
    }
}
