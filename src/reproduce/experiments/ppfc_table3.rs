//! ppfc-table3: how many PFC messages P-PFC sends for each remaining-time
//! threshold `T` in 4:1, 6:1 and 16:1 incasts (P-PFC TPDS'20 §5.3, Table 3).

use super::ppfc_common::bars;
use crate::error::Error;
use crate::plot::write_figure;
use crate::reproduce::{Analysis, Experiment, Finished, Row, RunSpec, Verdict, run};
use std::path::Path;

pub struct PpfcTable3;

const FANS: [u32; 3] = [4, 6, 16];
const TS: [u32; 3] = [50, 100, 150];
/// Table 3, rows by incast, columns by T.
const PAPER: [[u64; 3]; 3] = [[0, 0, 0], [0, 5, 43], [277, 316, 406]];

fn name(n: u32, t: u32) -> String {
    format!("{n}to1-t{t}us")
}

/// How a row of counts compares with the paper's: `Matches` when every cell is
/// zero exactly where the paper's is, the counts grow with `T` as the paper's
/// do, and every non-zero count is within 3x of the paper's; `Differs` when
/// neither the zeros nor the growth agree; `Partly` otherwise.
pub fn judge(paper: &[u64], ours: &[u64]) -> Verdict {
    let zeros = paper.iter().zip(ours).all(|(p, o)| (*p == 0) == (*o == 0));
    let grows = ours.windows(2).all(|w| w[0] <= w[1]);
    let scale = paper
        .iter()
        .zip(ours)
        .all(|(p, o)| *p == 0 || (*o * 3 >= *p && *o <= *p * 3));
    match (zeros, grows) {
        (true, true) if scale => Verdict::Matches,
        (false, false) => Verdict::Differs,
        _ => Verdict::Partly,
    }
}

impl Experiment for PpfcTable3 {
    fn id(&self) -> &'static str {
        "ppfc-table3"
    }
    fn title(&self) -> &'static str {
        "PFC messages of P-PFC vs its remaining-time threshold T"
    }
    fn source(&self) -> &'static str {
        "P-PFC §5.3, Table 3"
    }

    fn runs(&self, _quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for n in FANS {
            for t in TS {
                v.push(
                    RunSpec::new(name(n, t), format!("incast-{n}to1.toml"))
                        .set("switch.pfc.scheme=\"ppfc\"")
                        .set(format!("switch.pfc.ppfc.t=\"{t}us\"")),
                );
            }
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let mut groups: Vec<(String, Vec<f64>)> = TS
            .iter()
            .map(|t| (format!("T = {t} µs"), Vec::new()))
            .collect();
        for (i, n) in FANS.iter().enumerate() {
            let ours: Vec<u64> = TS
                .iter()
                .map(|t| run(runs, &name(*n, *t)).out.summary.pfc_pause_frames)
                .collect();
            for (g, o) in groups.iter_mut().zip(&ours) {
                g.1.push(*o as f64);
            }
            let fmt = |v: &[u64]| {
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            a.rows.push(Row {
                metric: format!("{n}:1 incast: PFC messages at T = 50 / 100 / 150 µs"),
                paper: fmt(&PAPER[i]),
                ours: fmt(&ours),
                verdict: judge(&PAPER[i], &ours),
                why: "matches when zero exactly where the paper has zero, non-decreasing in T and \
                      within 3x of the paper's non-zero counts. \
                      Counts are every PAUSE the switch sent (P-PFC's and standard PFC's \
                      backstop); their size depends on how P-PFC's pauses are timed and \
                      repeated, which the paper leaves open"
                    .into(),
                value: None,
                explanation: None,
                seeds: Vec::new(),
            });
        }
        write_figure(
            dir,
            "pfc-messages",
            &bars(
                "PFC messages of P-PFC vs T",
                "incast",
                "PFC messages",
                FANS.iter().map(|n| format!("{n}:1")).collect(),
                groups,
            ),
        )?;
        a.figures.push("pfc-messages".into());
        a.notes.push(
            "The incasts of ppfc-fig6 (DCQCN, P-PFC Table 2) with only T changed; quick and full \
             are the same (each run takes < 1 s)."
                .into(),
        );
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_matches_when_its_zeros_and_growth_follow_the_paper() {
        assert_eq!(judge(&[0, 5, 43], &[0, 2, 20]), Verdict::Matches);
        assert_eq!(judge(&[0, 5, 43], &[0, 2, 9]), Verdict::Partly);
        assert_eq!(judge(&[0, 5, 43], &[0, 0, 9]), Verdict::Partly);
        assert_eq!(judge(&[0, 5, 43], &[3, 2, 0]), Verdict::Differs);
    }

    #[test]
    fn quick_runs_all_load_and_validate() {
        super::super::ppfc_common::check_runs_load("ppfc-table3", &PpfcTable3.runs(true));
    }
}
