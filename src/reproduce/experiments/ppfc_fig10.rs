//! ppfc-fig10: P-PFC with its dynamic pause time (Alg. 3) vs fixed pause times
//! in the 16:1 incast (P-PFC TPDS'20 §5.4, Fig. 10).

use super::ppfc_common::{
    PAUSE_TIME_CHOICE, PAUSE_TIMES, bars, line, link_util, mean_between, peak, queue,
    settles_below, until,
};
use crate::error::Error;
use crate::plot::{Series, write_figure};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict, quotes, run};
use std::path::Path;

pub struct PpfcFig10;

/// Fixed pause times compared with the dynamic one, in µs (the paper does not
/// list its values: a short, two middle and a long one).
const FIXED_US: [u32; 4] = [5, 20, 50, 200];

/// (run, label): the dynamic pause under both readings of Alg. 3, then the
/// fixed ones.
fn names() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = PAUSE_TIMES
        .iter()
        .map(|(pt, _)| (format!("dynamic-{pt}"), format!("dynamic ({pt})")))
        .collect();
    for t in FIXED_US {
        v.push((format!("fixed-{t}us"), format!("fixed {t} µs")));
    }
    v
}

/// The receiver port (node 17, port 0) and its utilization interval.
const RX: (u32, u16) = (17, 0);

impl Experiment for PpfcFig10 {
    fn id(&self) -> &'static str {
        "ppfc-fig10"
    }
    fn title(&self) -> &'static str {
        "P-PFC: dynamic vs fixed pause time (16:1 incast)"
    }
    fn source(&self) -> &'static str {
        "P-PFC §5.4, Fig. 10"
    }

    fn runs(&self, _quick: bool) -> Vec<RunSpec> {
        let base = |name: String| {
            RunSpec::new(name, "incast-16to1.toml")
                .set("switch.pfc.scheme=\"ppfc\"")
                .set("output.link_utilization=\"10us\"")
                .samples()
        };
        let mut v: Vec<RunSpec> = PAUSE_TIMES
            .iter()
            .map(|(pt, _)| {
                base(format!("dynamic-{pt}")).set(format!("switch.pfc.ppfc.pause_time=\"{pt}\""))
            })
            .collect();
        for t in FIXED_US {
            v.push(base(format!("fixed-{t}us")).set(format!("switch.pfc.ppfc.pause=\"{t}us\"")));
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let mut series = Vec::new();
        let mut peaks = Vec::new();
        let mut queues = Vec::new();
        for (n, label) in names() {
            let q = queue(&run(runs, &n).out, RX.0);
            peaks.push(peak(&q));
            series.push(Series::line(label, until(&q, 3.0)));
            queues.push(q);
        }
        write_figure(
            dir,
            "queue",
            &line(
                "Switch queue with different pause times (first 3 ms)",
                "time (ms)",
                "queue (KB)",
                series,
            ),
        )?;
        let cats: Vec<String> = names().into_iter().map(|n| n.1).collect();
        write_figure(
            dir,
            "max-queue",
            &bars(
                "Max queue length with different pause times",
                "pause time",
                "max queue (KB)",
                cats,
                vec![("16:1 incast".into(), peaks.clone())],
            ),
        )?;
        a.figures.push("queue".into());
        a.figures.push("max-queue".into());
        let nr = PAUSE_TIMES.len();
        let (dyn_peak, other_peak) = (peaks[0], peaks[1]);
        let fixed = &peaks[nr..];
        // "small fixed pause time": the two below the queue's drain time.
        let small = fixed[0].min(fixed[1]);
        let ratio = small / dyn_peak.max(1.0);
        let peak_row = Row::judged(
            format!(
                "peak queue, dynamic vs small fixed pauses ({} and {} µs)",
                FIXED_US[0], FIXED_US[1]
            ),
            "\"max queue length can be reduced about half when using dynamical pause \
             time\"; with a small fixed pause \"the queue ... will still build up\"",
            format!(
                "dynamic {dyn_peak:.0} KB ({}: {other_peak:.0} KB); fixed {} ({ratio:.2}x)",
                PAUSE_TIMES[1].0,
                FIXED_US
                    .iter()
                    .zip(fixed)
                    .map(|(t, p)| format!("{t} µs {p:.0} KB"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            ratio,
            &Rule::within(2.0, 0.25, "x")
                .partly(0.5)
                .of("the smaller small-fixed peak / the dynamic peak"),
            "the paper does not list its fixed values; we use 5, 20, 50 and 200 µs",
        );
        a.rows.push(if peak_row.verdict == Verdict::Matches {
            peak_row
        } else {
            peak_row.explained(quotes::PPFC_FIXED_PAUSES)
        });
        // Throughput while P-PFC acts: the receiver link's utilization from the
        // start until the dynamic run's queue is back below K_max.
        let end = settles_below(&queues[0], 200.0, 1.0).unwrap_or(f64::NAN);
        let util = |n: &str| -> Result<f64, Error> {
            Ok(mean_between(
                &link_util(&run(runs, n).out, RX.0, RX.1)?,
                0.0,
                end,
            ))
        };
        let (ud, ul) = (
            util(&names()[0].0)?,
            util(&format!("fixed-{}us", FIXED_US[FIXED_US.len() - 1]))?,
        );
        a.rows.push(Row::judged(
            format!(
                "receiver utilization while P-PFC acts, fixed {} µs vs dynamic",
                FIXED_US[FIXED_US.len() - 1]
            ),
            "with a large fixed pause \"hosts are also paused too long and throughput are \
             hurt seriously\"",
            format!(
                "dynamic {:.1} %, fixed {} µs {:.1} % (first {:.0} µs)",
                100.0 * ud,
                FIXED_US[FIXED_US.len() - 1],
                100.0 * ul,
                end * 1e3
            ),
            ul / ud,
            &Rule::at_most(0.9, "x")
                .partly(0.97)
                .of("the long fixed pause's utilization / the dynamic one's"),
            "busy fraction of the receiver's link from the start until the dynamic run's \
             queue is back below K_max (200 KB) for good, the congestion the pauses act on; \
             later the rates are DCQCN's alone",
        ));
        a.notes.push(
            "`switch.pfc.ppfc.pause` gives every P-PFC pause a fixed length instead of Alg. \
             3's. Quick and full are the same."
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
        super::super::ppfc_common::check_runs_load("ppfc-fig10", &PpfcFig10.runs(true));
    }
}
