//! dcqcn-fig21: throughput of RDMA transfers vs the packet loss rate with
//! go-back-N loss recovery (DCQCN §7 "Packet loss", Fig. 21).
//!
//! Every host of a 40 Gbps star sends one message to another (a permutation, so
//! no link is shared and only random loss slows a transfer). Each run is one
//! (loss rate, message size, seed); a message's throughput is size / FCT.

use super::dcqcn_util::flow_gbps;
use crate::error::Error;
use crate::plot::{AxisSpec, Figure, LineChart, Series, write_figure};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict};
use std::path::Path;

pub struct DcqcnFig21;

/// End-to-end packet loss rates (0 is the lossless reference).
const LOSS: [f64; 7] = [0.0, 1e-5, 1e-4, 1e-3, 2e-3, 5e-3, 1e-2];
/// Message sizes (MB).
const SIZES_MB: [u64; 3] = [1, 4, 16];
/// The message size the paper names ("most message transfers are expected to be
/// less than 4MB").
const MAIN_MB: u64 = 4;

fn seeds(quick: bool) -> u64 {
    if quick { 1 } else { 4 }
}

fn hosts(quick: bool) -> u32 {
    if quick { 16 } else { 32 }
}

/// Per-link, per-direction loss probability giving end-to-end loss `p` over the
/// two links (host -> switch -> host) a data packet crosses.
fn link_loss(p: f64) -> f64 {
    1.0 - (1.0 - p).sqrt()
}

fn name(p: f64, mb: u64, seed: u64) -> String {
    format!("loss{p:e}-{mb}MB-s{seed}")
}

/// Mean per-message throughput (Gbps) over the runs of one (loss, size).
fn mean_gbps(runs: &[Finished], p: f64, mb: u64) -> f64 {
    let prefix = format!("loss{p:e}-{mb}MB-s");
    let tp: Vec<f64> = runs
        .iter()
        .filter(|r| r.spec.name.starts_with(&prefix))
        .flat_map(|r| r.out.fct.iter().map(flow_gbps))
        .collect();
    mean(&tp)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Whether the values only rise or only fall.
fn monotonic(v: &[f64]) -> bool {
    v.windows(2).all(|w| w[1] >= w[0]) || v.windows(2).all(|w| w[1] <= w[0])
}

/// The largest loss rate at which throughput still holds `share` of the lossless
/// throughput `curve[0]`, scanning upward and stopping at the first that does not.
/// `curve` is (loss, Gbps), starting with loss 0.
fn knee(curve: &[(f64, f64)], share: f64) -> Option<f64> {
    let base = curve.first()?.1;
    let mut last = None;
    for &(p, g) in curve.iter().skip(1) {
        if g < share * base {
            break;
        }
        last = Some(p);
    }
    last
}

impl Experiment for DcqcnFig21 {
    fn id(&self) -> &'static str {
        "dcqcn-fig21"
    }
    fn title(&self) -> &'static str {
        "throughput vs packet loss rate with go-back-N"
    }
    fn source(&self) -> &'static str {
        "DCQCN §7, Fig. 21"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let mut v = Vec::new();
        for p in LOSS {
            for mb in SIZES_MB {
                for s in 1..=seeds(quick) {
                    v.push(
                        RunSpec::new(name(p, mb, s), "lossy.toml")
                            .set(format!("seed={s}"))
                            .set(format!("topology.hosts={}", hosts(quick)))
                            .set(format!("topology.loss={}", link_loss(p)))
                            .set(format!("workload.permutation[0].size=\"{mb}MB\"")),
                    );
                }
            }
        }
        v
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let curves: Vec<(u64, Vec<(f64, f64)>)> = SIZES_MB
            .iter()
            .map(|&mb| {
                (
                    mb,
                    LOSS.iter().map(|&p| (p, mean_gbps(runs, p, mb))).collect(),
                )
            })
            .collect();
        let fig = Figure::Line(LineChart {
            title: "Throughput vs packet loss rate (go-back-N)".into(),
            x: AxisSpec::log("packet loss rate"),
            y: AxisSpec::linear("throughput (Gbps)").with_range(0.0, 40.0),
            series: curves
                .iter()
                .map(|(mb, c)| {
                    Series::line(
                        format!("{mb} MB messages"),
                        c.iter().skip(1).copied().collect(),
                    )
                })
                .collect(),
            ..LineChart::default()
        });
        write_figure(dir, "throughput-vs-loss", &fig)?;
        a.figures.push("throughput-vs-loss".into());

        let main = &curves
            .iter()
            .find(|(mb, _)| *mb == MAIN_MB)
            .expect("4 MB is one of the sizes")
            .1;
        let at = |c: &[(f64, f64)], p: f64| c.iter().find(|x| x.0 == p).map_or(0.0, |x| x.1);
        let (g0, g1e3, g1e2) = (main[0].1, at(main, 1e-3), at(main, 1e-2));
        let g5e3 = at(main, 5e-3);
        let k = knee(main, 0.9);
        let share = |g: f64| if g0 > 0.0 { g / g0 } else { 0.0 };
        a.rows.push(Row::judged(
            "4 MB throughput at 0.1% loss",
            "go-back-N \"is sufficient for environments where packet loss rate low\"",
            format!(
                "{g1e3:.1} Gbps at 0.1% ({:.0}% of lossless {g0:.1} Gbps)",
                100.0 * share(g1e3)
            ),
            share(g1e3),
            &Rule::at_least(0.9, "")
                .partly(0.75)
                .of("throughput at 0.1% / lossless"),
            "",
        ));
        let knee_text = k.map_or("none of the lossy rates".into(), |p| {
            format!("{:.2}%", p * 100.0)
        });
        a.rows.push(Row::judged(
            "4 MB throughput past 0.1% loss (at 0.5%)",
            "\"Throughput degrades rapidly once the packet loss rate exceeds 0.1%\"",
            format!(
                "{g5e3:.1} Gbps at 0.5% ({:.0}%); ≥ 90% of lossless up to {knee_text}",
                100.0 * share(g5e3)
            ),
            share(g5e3),
            &Rule::at_most(0.9, "")
                .partly(0.95)
                .of("throughput at 0.5% / lossless"),
            "The first rate of our grid (0.1, 0.2, 0.5, 1 %) well past 0.1 %",
        ));
        a.rows.push(Row::judged(
            "4 MB throughput at 1% loss",
            "\"Throughput degrades rapidly once the packet loss rate exceeds 0.1%\"",
            format!("{g1e2:.1} Gbps ({:.0}% of lossless)", 100.0 * share(g1e2)),
            share(g1e2),
            &Rule::at_most(0.5, "")
                .partly(0.75)
                .of("throughput at 1% / lossless"),
            "Rapidly: halved by ten times the loss rate. Our per-loss cost is one NACK round \
             trip plus resending what was in flight (a few tens of KB at 40 Gbps and ~5 µs \
             RTT); a lost NACK or tail packet waits for the next NACK (500 µs) or the 10 ms \
             timeout. The NIC's real timers are not in the paper",
        ));
        let by_size: Vec<String> = curves
            .iter()
            .map(|(mb, c)| format!("{mb} MB {:.1}", at(c, 1e-2)))
            .collect();
        let at1: Vec<f64> = curves.iter().map(|(_, c)| at(c, 1e-2)).collect();
        let (lo, hi) = at1
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let mono = monotonic(&at1);
        let mut size_row = Row::judged(
            "effect of message size at 1% loss",
            "\"With go-back-n loss recovery model, the size of the message matters as well\"",
            format!(
                "{} Gbps ({}monotonic in size)",
                by_size.join(", "),
                if mono { "" } else { "not " }
            ),
            if lo > 0.0 { hi / lo } else { 0.0 },
            &Rule::at_least(1.15, "x")
                .partly(1.0)
                .of("largest / smallest throughput over 1, 4, 16 MB"),
            "At most partly when not monotonic in size (a non-monotonic spread can be sampling \
             noise); the paper does not say in which direction or by how much",
        );
        if !mono {
            size_row.verdict = size_row.verdict.max(Verdict::Partly);
        }
        a.rows.push(size_row);
        a.notes.push(format!(
            "{} hosts on one 40 Gbps switch (1 µs links, 12 MB buffer, PFC on), DCQCN with Fig. \
             14's parameters, go-back-N (nic.rto 10 ms, nack_interval 500 µs). Each run: a random \
             permutation, every host sends one message; throughput is the mean of size / FCT over \
             the messages. Loss is set per link to 1 - sqrt(1 - p), so a data packet sees loss p \
             end to end; ACK/NACKs are lost alike, PFC frames never. The lossless throughput is \
             below 40 Gbps because of headers (62 B per 1000 B payload). Full: 32 hosts × 4 seeds \
             per point; --quick: 16 hosts × 1 seed (this run: {} hosts).",
            hosts(quick),
            hosts(quick)
        ));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_loss_composes_to_the_end_to_end_rate() {
        for p in LOSS {
            let l = link_loss(p);
            assert!((1.0 - (1.0 - l) * (1.0 - l) - p).abs() < 1e-12, "{p}");
        }
    }

    #[test]
    fn knee_is_the_last_rate_before_the_first_drop() {
        let c = [
            (0.0, 36.0),
            (1e-4, 35.9),
            (1e-3, 34.0),
            (1e-2, 12.0),
            (2e-2, 33.0),
        ];
        assert_eq!(knee(&c, 0.9), Some(1e-3));
        assert_eq!(knee(&[(0.0, 36.0), (1e-4, 10.0)], 0.9), None);
    }

    #[test]
    fn monotonic_accepts_either_direction_only() {
        assert!(monotonic(&[1.0, 2.0, 3.0]));
        assert!(monotonic(&[3.0, 2.0, 2.0]));
        assert!(!monotonic(&[23.0, 17.7, 19.4]));
    }

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&DcqcnFig21);
    }
}
