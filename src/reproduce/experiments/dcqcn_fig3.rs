//! dcqcn-fig3 and dcqcn-fig8: PFC's unfairness on the DCQCN testbed (DCQCN §2.2,
//! Fig. 3) and DCQCN removing it (§3, Fig. 8). Four senders, H1-H3 two tiers
//! away and H4 under R's own ToR, send to R; each seed is one ECMP mapping.
//!
//! The paper measures "1000 4MB data transfers" per sender. Two readings:
//! * stream (judged): each sender streams without a break, as back-to-back
//!   transfers on one connection do, and every 4 MB piece after a warm-up is a
//!   transfer; all four senders are active throughout;
//! * transfers started together: each sender sends one 20 MB message, all from
//!   0, throughput = size / FCT; flows that finish early leave the link to the
//!   rest, and under DCQCN every transfer carries the line-rate start.

use super::dcqcn_util::{flow_gbps, min_med_max, transfer_gbps};
use crate::error::Error;
use crate::plot::{AxisSpec, BarChart, Figure, write_figure};
use crate::reproduce::metrics::jain;
use crate::reproduce::quotes as q;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec};
use crate::units::{Delta, SimTime};
use std::path::Path;

pub struct DcqcnFig3;
pub struct DcqcnFig8;

/// H1, H2, H3, H4 (node ids; R = 15). The incast lists them in this order and
/// starts them together, so their flow ids are 0-3 in the same order.
const SENDERS: [u32; 4] = [0, 5, 10, 16];
const LABELS: [&str; 4] = ["H1", "H2", "H3", "H4"];
/// The paper's transfer size.
const TRANSFER: u64 = 4_000_000;
/// How often the stream runs sample each flow's delivered bytes.
const TRACE: Delta = Delta::from_us(20);
/// Transfers that begin before this are the start-up, not the steady stream the
/// paper's 1000 back-to-back transfers measure. DCQCN's four flows start at line
/// rate, are cut to under 1 Gbps and fill the link again after about 15 ms.
const WARMUP_MS: u64 = 20;

fn seeds(quick: bool) -> u64 {
    if quick { 8 } else { 50 }
}

/// How long each stream runs (ms).
fn stream_ms(quick: bool) -> u64 {
    if quick { 50 } else { 100 }
}

fn runs(quick: bool) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for s in 1..=seeds(quick) {
        v.push(RunSpec::new(format!("seed-{s}"), "unfairness.toml").set(format!("seed={s}")));
        v.push(
            RunSpec::new(format!("stream-{s}"), "unfairness.toml")
                .set(format!("seed={s}"))
                .set("workload.incast[0].size=\"10GB\"")
                .set(format!("stop=\"{}ms\"", stream_ms(quick)))
                .rates(TRACE),
        );
    }
    v
}

/// Per sender (H1..H4), its throughput (Gbps) in every 20 MB transfer.
fn per_sender_fct(runs: &[Finished]) -> Vec<Vec<f64>> {
    SENDERS
        .iter()
        .map(|&h| {
            runs.iter()
                .filter(|r| r.spec.name.starts_with("seed-"))
                .flat_map(|r| r.out.fct.iter().filter(move |f| f.src == h))
                .map(flow_gbps)
                .collect()
        })
        .collect()
}

/// Per sender (H1..H4), its throughput (Gbps) in every 4 MB transfer of its
/// stream after the warm-up, over all runs.
fn per_sender_stream(runs: &[Finished]) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); SENDERS.len()];
    for r in runs.iter().filter(|r| r.spec.name.starts_with("stream-")) {
        for (i, v) in out.iter_mut().enumerate() {
            let trace: Vec<(SimTime, u64)> = r
                .out
                .rates
                .iter()
                .filter(|s| s.flow == i as u32)
                .map(|s| (s.time, s.delivered))
                .collect();
            v.extend(transfer_gbps(
                &trace,
                TRANSFER,
                SimTime::ZERO + Delta::from_ms(WARMUP_MS),
            ));
        }
    }
    out
}

fn bars(dir: &Path, stem: &str, title: &str, tp: &[Vec<f64>]) -> Result<(), Error> {
    let stats: Vec<(f64, f64, f64)> = tp.iter().map(|v| min_med_max(v)).collect();
    let fig = Figure::Bar(BarChart {
        title: title.into(),
        x_label: "sender".into(),
        categories: LABELS.iter().map(|s| s.to_string()).collect(),
        y: AxisSpec::linear("throughput (Gbps)"),
        groups: vec![
            ("min".into(), stats.iter().map(|s| s.0).collect()),
            ("median".into(), stats.iter().map(|s| s.1).collect()),
            ("max".into(), stats.iter().map(|s| s.2).collect()),
        ],
        ..BarChart::default()
    });
    write_figure(dir, stem, &fig)?;
    Ok(())
}

fn setup_notes(a: &mut Analysis, quick: bool) {
    a.notes.push(format!(
        "{} runs with seeds 1..{} (the seed changes the ECMP mapping of H1-H3 onto T4's P3/P4). \
         The paper measures 1000 transfers of 4 MB per sender. Judged reading (stream): each \
         sender sends without a break for {} ms, as back-to-back transfers on one connection \
         do; every 4 MB piece of its delivered bytes that begins after {WARMUP_MS} ms is a \
         transfer (delivered bytes sampled every 20 µs), so all four senders are active in every \
         transfer. Other reading (transfers started together): each sender sends one 20 MB \
         message from 0, throughput = size / FCT. The figure is the stream reading; --quick runs \
         8 seeds instead of 50 and {} ms streams instead of 100.",
        seeds(quick),
        seeds(quick),
        stream_ms(quick),
        stream_ms(true),
    ));
    a.notes.push(
        "Switches: 12 MB buffer, shared pool 12 MB - 8 x 32 x 22.4 KB headroom, beta = 8 (DCQCN §4)."
            .into(),
    );
}

/// "min a, median b, max c" of a sample.
fn mmm(v: &[f64]) -> String {
    let (lo, med, hi) = min_med_max(v);
    format!("min {lo:.2}, median {med:.2}, max {hi:.2}")
}

impl Experiment for DcqcnFig3 {
    fn id(&self) -> &'static str {
        "dcqcn-fig3"
    }
    fn title(&self) -> &'static str {
        "PFC unfairness: H4 (same ToR as R) vs H1-H3 (ECMP across P3/P4), PFC only"
    }
    fn source(&self) -> &'static str {
        "DCQCN §2.2, Fig. 3"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        runs(quick)
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let tp = per_sender_stream(runs);
        let fct = per_sender_fct(runs);
        bars(
            dir,
            "unfairness-pfc",
            "PFC only: per-sender throughput per 4 MB transfer",
            &tp,
        )?;
        a.figures.push("unfairness-pfc".into());
        let (h4_min, h4_med, h4_max) = min_med_max(&tp[3]);
        let others: Vec<f64> = tp[..3].iter().flatten().copied().collect();
        let (_, o_med, o_max) = min_med_max(&others);
        let f_others: Vec<f64> = fct[..3].iter().flatten().copied().collect();
        let (f_h4_min, _, f_h4_max) = min_med_max(&fct[3]);
        let (_, _, f_o_max) = min_med_max(&f_others);
        a.rows.push(
            Row::judged(
            "H4's minimum vs H1-H3's maximum throughput",
            "\"H4's minimum throughput is higher than the maximum throughput of H1-H3\"",
            format!(
                "H4 min {h4_min:.2} Gbps; H1-H3 max {o_max:.2} Gbps. Transfers started together: \
                 {f_h4_min:.2} vs {f_o_max:.2}"
            ),
            h4_min / o_max,
            &Rule::at_least(1.05, "x")
                .partly(0.95)
                .of("H4's minimum / H1-H3's maximum"),
            "T4 shares R's link among its paused ingress ports alike, so when ECMP puts one of \
             H1-H3 alone on P3 or P4 that sender gets what H4 gets: a tie, which transfer to \
             transfer jitter tips either way",
            )
            .explained(q::DCQCN_PORT_SHARES),
        );
        a.rows.push(Row::judged(
            "H4's maximum throughput",
            "\"H4 gets as much as 20Gbps\" (when ECMP puts H1-H3 on one port)",
            format!(
                "{h4_max:.1} Gbps (median {h4_med:.1}). Transfers started together: \
                 {f_h4_max:.1}"
            ),
            h4_max,
            &Rule::within(20.0, 0.1, " Gbps").partly(0.25),
            "PFC pauses T4's ports P2-P4 alike, so H4 alone on P2 gets half the link when \
             H1-H3 share one port",
        ));
        a.rows.push(Row::judged(
            "H1-H3 throughput",
            "below H4's (Fig. 3(b))",
            format!(
                "H1-H3 {}; H4 {} Gbps. Transfers started together: H1-H3 {}; H4 {}",
                mmm(&others),
                mmm(&tp[3]),
                mmm(&f_others),
                mmm(&fct[3])
            ),
            o_med / h4_med,
            &Rule::at_most(0.9, "x")
                .partly(1.0)
                .of("H1-H3's median / H4's"),
            "",
        ));
        setup_notes(&mut a, quick);
        Ok(a)
    }
}

impl Experiment for DcqcnFig8 {
    fn id(&self) -> &'static str {
        "dcqcn-fig8"
    }
    fn title(&self) -> &'static str {
        "DCQCN removes PFC's unfairness: per-sender throughput of Fig. 3's incast"
    }
    fn source(&self) -> &'static str {
        "DCQCN §3, Fig. 8"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        runs(quick)
    }
    fn analyze(&self, runs: &[Finished], dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let tp = per_sender_stream(runs);
        let fct = per_sender_fct(runs);
        bars(
            dir,
            "unfairness-dcqcn",
            "DCQCN: per-sender throughput per 4 MB transfer",
            &tp,
        )?;
        a.figures.push("unfairness-dcqcn".into());
        let medians =
            |tp: &[Vec<f64>]| -> Vec<f64> { tp.iter().map(|v| min_med_max(v).1).collect() };
        let (m, fm) = (medians(&tp), medians(&fct));
        let all: Vec<f64> = tp.iter().flatten().copied().collect();
        let f_all: Vec<f64> = fct.iter().flatten().copied().collect();
        let (lo, med, hi) = min_med_max(&all);
        let near = all.iter().filter(|x| (*x / med - 1.0).abs() <= 0.2).count() as f64
            / all.len().max(1) as f64;
        let (flo, fmed, fhi) = min_med_max(&f_all);
        let slash = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>()
                .join("/")
        };
        a.rows.push(Row::judged(
            "share of the bottleneck among H1-H4",
            "\"All four flows get equal share of the bottleneck bandwidth\"",
            format!(
                "medians H1-H4 {} Gbps; Jain index {:.3}. Transfers started together: {} \
                 ({:.3})",
                slash(&m),
                jain(&m),
                slash(&fm),
                jain(&fm)
            ),
            jain(&m),
            &Rule::at_least(0.99, "")
                .partly(0.9)
                .of("Jain index of the four senders' median throughputs"),
            "",
        ));
        a.rows.push(
            Row::judged(
                "variance across transfers",
                "\"there is little variance\"",
                format!(
                    "every transfer of every sender between {lo:.1} and {hi:.1} Gbps (median \
                     {med:.1}; {:.0}% of them within ±20%). Transfers started together: {flo:.1} \
                     to {fhi:.1} (median {fmed:.1})",
                    100.0 * near
                ),
                (hi - lo) / med,
                &Rule::at_most(0.2, "")
                    .partly(1.0)
                    .of("(max - min) / median over every sender's transfers"),
                "About 1150 transfers per sender, as the paper's 1000. In the steady stream each \
                 flow's rate wanders with the random RED marks, so the extremes of a thousand \
                 4 MB transfers lie 30-45% from the median",
            )
            .explained(q::DCQCN_RED_UNSTABLE),
        );
        a.rows.push(Row::judged(
            "per-sender throughput",
            "a fair share of the 40 Gbps link, 10 Gbps each (Fig. 8)",
            format!(
                "median {med:.2} Gbps, medians sum to {:.1} Gbps (goodput; headers take 6 % of \
                 the wire). Transfers started together: median {fmed:.2}, sum {:.1}",
                m.iter().sum::<f64>(),
                fm.iter().sum::<f64>()
            ),
            med,
            &Rule::within(10.0, 0.1, " Gbps").partly(0.4),
            "",
        ));
        setup_notes(&mut a, quick);
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&DcqcnFig3);
        crate::reproduce::check_all_runs_load(&DcqcnFig8);
    }
}
