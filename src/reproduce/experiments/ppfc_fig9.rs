//! ppfc-fig9: P-PFC pauses senders in proportion to their blame: a 16:1 incast
//! whose senders run at 1, 10, 20 and 40 Gbps (P-PFC TPDS'20 §5.4, Fig. 9).

use super::ppfc_common::{PAUSE_TIME_CHOICE, PAUSE_TIMES, bars, pfc_rx};
use crate::error::Error;
use crate::plot::write_figure;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict, quotes, run};
use std::path::Path;

pub struct PpfcFig9;

/// The sender groups of Fig. 9a: (speed in Gbps, first host, last host).
const GROUPS: [(u32, u32, u32); 4] = [(1, 1, 3), (10, 4, 8), (20, 9, 12), (40, 13, 16)];

/// Incasts per reading: P-PFC draws its ports at random and, in our 16:1
/// incast, acts in one round of pauses, so one run gives each sender at most a
/// message or two; ten runs (scenario seeds 1-10) show the proportions.
const RUNS: u64 = 10;

fn name(pt: &str, seed: u64) -> String {
    format!("{pt}-seed{seed}")
}

/// Per group: PAUSE frames received and time paused (µs), summed over its
/// senders and the runs of reading `pt`.
fn per_group(runs: &[Finished], pt: &str) -> Result<Vec<(f64, f64)>, Error> {
    let mut g = vec![(0.0, 0.0); GROUPS.len()];
    for seed in 1..=RUNS {
        let rx = pfc_rx(&run(runs, &name(pt, seed)).out)?;
        for (k, &(_, lo, hi)) in GROUPS.iter().enumerate() {
            for h in lo..=hi {
                if let Some(&(n, us)) = rx.get(&h) {
                    g[k].0 += n as f64;
                    g[k].1 += us;
                }
            }
        }
    }
    Ok(g)
}

/// Senders in group `k`, over all runs.
fn senders(k: usize) -> f64 {
    let (_, lo, hi) = GROUPS[k];
    ((hi - lo + 1) as u64 * RUNS) as f64
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
        let mut v = Vec::new();
        for (pt, _) in PAUSE_TIMES {
            for seed in 1..=RUNS {
                v.push(
                    RunSpec::new(name(pt, seed), "incast.toml")
                        .set(format!("seed={seed}"))
                        .set(format!("switch.pfc.ppfc.pause_time=\"{pt}\"")),
                );
            }
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let ours = per_group(runs, PAUSE_TIMES[0].0)?;
        let other = per_group(runs, PAUSE_TIMES[1].0)?;
        let per_sender = |g: &[(f64, f64)]| -> Vec<f64> {
            g.iter()
                .enumerate()
                .map(|(k, x)| x.0 / senders(k))
                .collect()
        };
        // Mean pause length: time paused / pauses received (NaN if none).
        let length = |g: &[(f64, f64)]| -> Vec<f64> { g.iter().map(|x| x.1 / x.0).collect() };
        let frames = per_sender(&ours);
        let cats: Vec<String> = GROUPS.iter().map(|g| format!("{} Gbps", g.0)).collect();
        for (stem, title, y, v) in [
            (
                "pfc-messages",
                "(c) PFC messages per sender (mean of 10 incasts)",
                "PAUSE frames",
                frames.clone(),
            ),
            (
                "pause-length",
                "mean length of a pause",
                "µs",
                length(&ours).iter().map(|x| x.max(0.0)).collect(),
            ),
        ] {
            write_figure(
                dir,
                stem,
                &bars(
                    title,
                    "sender speed",
                    y,
                    cats.clone(),
                    vec![(PAUSE_TIMES[0].1.into(), v)],
                ),
            )?;
            a.figures.push(stem.into());
        }
        let show = |v: &[f64], unit: &str| {
            GROUPS
                .iter()
                .zip(v)
                .map(|(g, x)| format!("{} G: {x:.2}{unit}", g.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The 40 G senders against the 1 and 10 G ones (8 senders a run, enough
        // to be drawn at all).
        let msgs = |g: &[(f64, f64)]| {
            let fast = g[3].0 / senders(3);
            let slow = (g[0].0 + g[1].0) / (senders(0) + senders(1));
            fast / slow
        };
        let len_ratio = |g: &[(f64, f64)]| {
            let fast = g[3].1 / g[3].0;
            let slow = (g[0].1 + g[1].1) / (g[0].0 + g[1].0);
            fast / slow
        };
        a.rows.push(Row::judged(
            "PFC messages per sender by speed (Fig. 9c)",
            "\"if a host sends packets at lower rate, it will accumulate fewer packets in \
             egress port and P-PFC will send less PFC messages to it\"",
            format!(
                "{} ({:.1}x; {}: {:.1}x)",
                show(&frames, ""),
                msgs(&ours),
                PAUSE_TIMES[1].0,
                msgs(&other)
            ),
            msgs(&ours),
            &Rule::at_least(2.0, "x")
                .partly(1.2)
                .of("messages per 40 G sender / per 1-10 G sender"),
            "mean over 10 incasts (seeds 1-10): each run has about one round of predictive \
             pauses, so one run is a single draw",
        ));
        let lr = len_ratio(&ours);
        let mut row = Row::judged(
            "length of a pause by sender speed",
            "\"If a host has more packets in egress port ... P-PFC will naturally pause it \
             longer. This ensures even a host with low-speed is paused by P-PFC with a small \
             probability, it will not be paused for a long time.\"",
            format!(
                "{} ({lr:.2}x; {}: {}, {:.2}x)",
                show(&length(&ours), " µs"),
                PAUSE_TIMES[1].0,
                show(&length(&other), " µs"),
                len_ratio(&other)
            ),
            lr,
            &Rule::at_least(1.5, "x")
                .partly(1.1)
                .of("mean pause of a 40 G sender / of a 1-10 G sender"),
            "time paused / pauses received, over 10 incasts. With the pause read as the \
             port's share of the FIFO drain (our reading, for §2.3's example), every port \
             drawn is paused for about the queue's drain time, whatever its share; read as \
             its own bytes at the full rate, the pause grows with its share",
        );
        if row.verdict != Verdict::Matches {
            row = row.explained(quotes::PPFC_DRAIN_RATE);
        }
        a.rows.push(row);
        a.notes.push(
            "Sender speeds are their NIC link rates (an ns-3 format topology); Fig. 9a shows \
             these offered rates, so it is the setup rather than a result, and is not judged. \
             Fig. 9b (each sender's share of the egress queue) is not reproduced: we record no \
             per-ingress queue composition. Quick and full are the same (20 runs, < 1 s each)."
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
        super::super::ppfc_common::check_runs_load("ppfc-fig9", &PpfcFig9.runs(true));
    }
}
