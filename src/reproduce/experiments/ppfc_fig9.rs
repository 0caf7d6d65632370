//! ppfc-fig9: P-PFC pauses senders in proportion to their blame: a 16:1 incast
//! whose senders run at 1, 10, 20 and 40 Gbps (P-PFC TPDS'20 §5.4, Fig. 9).

use super::ppfc_common::{bars, pfc_rx};
use crate::error::Error;
use crate::plot::write_figure;
use crate::reproduce::{Analysis, Experiment, Finished, Row, RunSpec, Verdict, run};
use std::path::Path;

pub struct PpfcFig9;

/// The sender groups of Fig. 9a: (speed in Gbps, first host, last host).
const GROUPS: [(u32, u32, u32); 4] = [(1, 1, 3), (10, 4, 8), (20, 9, 12), (40, 13, 16)];

/// Mean of `f(host)` over each group.
fn per_group(f: impl Fn(u32) -> f64) -> Vec<f64> {
    GROUPS
        .iter()
        .map(|&(_, lo, hi)| (lo..=hi).map(&f).sum::<f64>() / (hi - lo + 1) as f64)
        .collect()
}

/// Whether values never decrease and the last exceeds the first.
pub fn rises(v: &[f64]) -> bool {
    v.windows(2).all(|w| w[0] <= w[1]) && v.last() > v.first()
}

impl Experiment for PpfcFig9 {
    fn id(&self) -> &'static str {
        "ppfc-fig9"
    }
    fn title(&self) -> &'static str {
        "P-PFC pauses in proportion to blame (16:1 incast, senders at 1-40 Gbps)"
    }
    fn source(&self) -> &'static str {
        "P-PFC §5.4, Fig. 9"
    }

    fn runs(&self, _quick: bool) -> Vec<RunSpec> {
        vec![RunSpec::new("incast", "incast.toml")]
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let o = &run(runs, "incast").out;
        let rx = pfc_rx(o)?;
        let tput = per_group(|h| {
            o.fct
                .iter()
                .find(|f| f.src == h)
                .map_or(0.0, |f| f.size as f64 * 8.0 / f.fct.as_secs_f64() / 1e9)
        });
        let frames = per_group(|h| rx.get(&h).map_or(0.0, |r| r.0 as f64));
        let paused = per_group(|h| rx.get(&h).map_or(0.0, |r| r.1));
        let cats: Vec<String> = GROUPS.iter().map(|g| format!("{} Gbps", g.0)).collect();
        for (stem, title, y, v) in [
            ("throughput", "(a) throughput of each sender", "Gbps", &tput),
            (
                "pfc-messages",
                "(c) PFC messages per sender",
                "PAUSE frames",
                &frames,
            ),
            ("pause-time", "time each sender was paused", "µs", &paused),
        ] {
            write_figure(
                dir,
                stem,
                &bars(
                    title,
                    "sender speed",
                    y,
                    cats.clone(),
                    vec![("mean per sender".into(), v.clone())],
                ),
            )?;
            a.figures.push(stem.into());
        }
        let show = |v: &[f64], unit: &str| {
            GROUPS
                .iter()
                .zip(v)
                .map(|(g, x)| format!("{} G: {x:.1}{unit}", g.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        a.rows.push(Row {
            metric: "PFC messages per sender by speed".into(),
            paper: "\"if a host sends packets at lower rate, it will accumulate fewer packets in \
                    egress port and P-PFC will send less PFC messages to it\""
                .into(),
            ours: show(&frames, ""),
            verdict: if rises(&frames) {
                Verdict::Matches
            } else {
                Verdict::Differs
            },
            why: "matches when the mean count never falls with speed and the 40 G senders get \
                  more than the 1 G ones. Our P-PFC pauses a port once per pause (repeat bit), \
                  so the counts are small"
                .into(),
            value: None,
            explanation: None,
            seeds: Vec::new(),
        });
        a.rows.push(Row {
            metric: "pause time per sender by speed".into(),
            paper: "a host with more packets in the egress queue is \"paused longer\" (Alg. 3)"
                .into(),
            ours: show(&paused, " µs"),
            verdict: if rises(&paused) {
                Verdict::Matches
            } else {
                Verdict::Differs
            },
            why: "matches when the mean pause time never falls with speed".into(),
            value: None,
            explanation: None,
            seeds: Vec::new(),
        });
        a.rows.push(Row {
            metric: "average throughput per sender by speed (Fig. 9a)".into(),
            paper: "1, 10, 20 and 40 Gbps senders".into(),
            ours: show(&tput, " Gbps"),
            verdict: Verdict::Partly,
            why: "the paper plots the senders' offered speeds; ours is 8 MB / FCT, which \
                  DCQCN's sharing of the 40 G receiver lowers. Fig. 9b (each sender's share \
                  of the egress queue) is not reproduced: we record no per-ingress queue \
                  composition"
                .into(),
            value: None,
            explanation: None,
            seeds: Vec::new(),
        });
        a.notes.push(
            "Sender speeds are their NIC link rates (an ns-3 format topology). Quick and full are \
             the same (one run, < 1 s)."
                .into(),
        );
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rising_needs_no_fall_and_a_net_rise() {
        assert!(rises(&[0.0, 1.0, 1.0, 2.0]));
        assert!(!rises(&[1.0, 1.0]));
        assert!(!rises(&[0.0, 2.0, 1.0]));
    }

    #[test]
    fn quick_runs_all_load_and_validate() {
        super::super::ppfc_common::check_runs_load("ppfc-fig9", &PpfcFig9.runs(true));
    }
}
