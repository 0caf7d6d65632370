//! ppfc-fig6: switch queue and tail latency of DCQCN and TIMELY with standard PFC
//! and with P-PFC in 6:1 and 16:1 incasts (P-PFC TPDS'20 §5.1-5.2, Fig. 6).

use super::ppfc_common::{
    PAUSE_TIME_CHOICE, PAUSE_TIMES, bars, hist_pct, latency_hist, line, peak, queue, scheme_label,
    settles_below, until,
};
use crate::error::Error;
use crate::plot::{Series, write_figure};
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, Verdict, run};
use std::path::Path;

pub struct PpfcFig6;

const FANS: [u32; 2] = [6, 16];
const CCS: [&str; 2] = ["dcqcn", "timely"];
const SCHEMES: [&str; 2] = ["standard", "ppfc"];
/// §5.1's peak queue of P-PFC in the 16:1 incast with DCQCN, KB.
const PAPER_PEAK_KB: f64 = 1002.0;
/// The shared pool (P-PFC §5: "the size of shared buffer to 4 MB"), in KB.
const SHARED_POOL_KB: f64 = 4000.0;
/// Alg. 1's threshold `T` (Table 2), in µs.
const T_US: f64 = 100.0;

/// Alg. 1's remaining time read off a queue series (ms, KB) sampled every
/// microsecond: (free pool) / (growth over the last sample), at its least.
/// Returns (remaining µs, time µs, queue KB) there, if the queue ever grew.
/// The one queue stands for the pool's use (the incast's bytes all wait in it).
fn least_remaining(q: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    q.windows(2)
        .filter_map(|w| {
            let dt_us = (w[1].0 - w[0].0) * 1e3;
            let grew = w[1].1 - w[0].1;
            (dt_us > 0.0 && grew > 0.0).then(|| {
                (
                    (SHARED_POOL_KB - w[1].1) * dt_us / grew,
                    w[1].0 * 1e3,
                    w[1].1,
                )
            })
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

fn name(n: u32, cc: &str, s: &str) -> String {
    format!("{n}to1-{cc}-{s}")
}

/// The run of P-PFC with the other reading of Alg. 3 (16:1 only).
fn other_reading(cc: &str) -> String {
    format!("16to1-{cc}-ppfc-{}", PAUSE_TIMES[1].0)
}

/// Per run: peak queue (KB), p99 packet delay in the first 1500 µs (µs), PFC
/// frames, when the queue is back below K_max for good (ms).
struct Stat {
    peak_kb: f64,
    p99_us: f64,
    frames: u64,
    drain_ms: Option<f64>,
    least_remaining: Option<(f64, f64, f64)>,
}

fn stat(r: &Finished, node: u32) -> Result<Stat, Error> {
    let q = queue(&r.out, node);
    Ok(Stat {
        peak_kb: peak(&q),
        p99_us: hist_pct(&latency_hist(&r.out)?, 99.0),
        frames: r.out.summary.pfc_pause_frames,
        drain_ms: settles_below(&q, 200.0, 1.0),
        least_remaining: least_remaining(&q),
    })
}

impl Experiment for PpfcFig6 {
    fn id(&self) -> &'static str {
        "ppfc-fig6"
    }
    fn title(&self) -> &'static str {
        "queue and tail latency with DCQCN and TIMELY, PFC vs P-PFC (6:1, 16:1 incast)"
    }
    fn source(&self) -> &'static str {
        "P-PFC §5.1-5.2, Fig. 6"
    }

    fn runs(&self, _quick: bool) -> Vec<RunSpec> {
        // Every run takes under a second: quick is the full size.
        let mut v = Vec::new();
        for n in FANS {
            for cc in CCS {
                for s in SCHEMES {
                    v.push(
                        RunSpec::new(name(n, cc, s), format!("incast-{n}to1.toml"))
                            .set(format!("cc.algorithm=\"{cc}\""))
                            .set(format!("switch.pfc.scheme=\"{s}\""))
                            .samples(),
                    );
                }
            }
        }
        for cc in CCS {
            v.push(
                RunSpec::new(other_reading(cc), "incast-16to1.toml")
                    .set(format!("cc.algorithm=\"{cc}\""))
                    .set("switch.pfc.scheme=\"ppfc\"")
                    .set(format!(
                        "switch.pfc.ppfc.pause_time=\"{}\"",
                        PAUSE_TIMES[1].0
                    ))
                    .samples(),
            );
        }
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let mut stats = std::collections::BTreeMap::new();
        for cc in CCS {
            let mut series = Vec::new();
            for n in FANS {
                for s in SCHEMES {
                    let r = run(runs, &name(n, cc, s));
                    stats.insert(name(n, cc, s), stat(r, n + 1)?);
                    series.push(Series::line(
                        format!("{n}:1 {}", scheme_label(s)),
                        until(&queue(&r.out, n + 1), 3.0),
                    ));
                }
            }
            let other = run(runs, &other_reading(cc));
            stats.insert(other_reading(cc), stat(other, 17)?);
            series.push(Series::line(
                format!("16:1 P-PFC ({})", PAUSE_TIMES[1].0),
                until(&queue(&other.out, 17), 3.0),
            ));
            let stem = format!("queue-{cc}");
            write_figure(
                dir,
                &stem,
                &line(
                    &format!("{}: switch queue (first 3 ms)", cc.to_uppercase()),
                    "time (ms)",
                    "queue (KB)",
                    series,
                ),
            )?;
            a.figures.push(stem);
        }
        let mut cats = Vec::new();
        let mut groups: Vec<(String, Vec<f64>)> = SCHEMES
            .iter()
            .map(|s| (scheme_label(s).to_string(), Vec::new()))
            .collect();
        for cc in CCS {
            for n in FANS {
                cats.push(format!("{n}:1 {}", cc.to_uppercase()));
                for (i, s) in SCHEMES.iter().enumerate() {
                    groups[i].1.push(stats[&name(n, cc, s)].p99_us);
                }
            }
        }
        write_figure(
            dir,
            "tail-latency",
            &bars(
                "99th-percentile packet delay, first 1500 µs",
                "incast",
                "p99 one-way delay (µs)",
                cats,
                groups,
            ),
        )?;
        a.figures.push("tail-latency".into());

        let pp = &stats[&name(16, "dcqcn", "ppfc")];
        let other = &stats[&other_reading("dcqcn")];
        a.rows.push(Row::judged(
            "16:1 DCQCN: peak queue of P-PFC",
            "\"the maximum switch queue length of P-PFC is 1002 KB\"",
            format!(
                "{:.0} KB ({}: {:.0} KB)",
                pp.peak_kb, PAUSE_TIMES[1].1, other.peak_kb
            ),
            pp.peak_kb,
            &Rule::within(PAPER_PEAK_KB, 0.25, " KB")
                .partly(0.5)
                .of("P-PFC's peak"),
            "Alg. 3's pause read as the port's share of the FIFO drain (docs/models.md)",
        ));
        for cc in CCS {
            let pfc = &stats[&name(16, cc, "standard")];
            let pp = &stats[&name(16, cc, "ppfc")];
            let other = &stats[&other_reading(cc)];
            let qr = pfc.peak_kb / pp.peak_kb.max(1.0);
            a.rows.push(Row::judged(
                format!("16:1 {}: peak queue, PFC vs P-PFC", cc.to_uppercase()),
                if cc == "dcqcn" {
                    "standard PFC \"uses up the whole switch buffer space\"; \"about 4x\" lower \
                     with P-PFC"
                } else {
                    "\"similar results\" to DCQCN (about 4x lower)"
                },
                format!(
                    "PFC {:.0} KB, P-PFC {:.0} KB ({qr:.2}x; {}: {:.2}x)",
                    pfc.peak_kb,
                    pp.peak_kb,
                    PAUSE_TIMES[1].0,
                    pfc.peak_kb / other.peak_kb.max(1.0)
                ),
                qr,
                &Rule::at_least(3.0, "x")
                    .partly(1.2)
                    .of("PFC's peak / P-PFC's"),
                "",
            ));
            let lr = pfc.p99_us / pp.p99_us.max(1e-9);
            a.rows.push(Row::judged(
                format!("16:1 {}: p99 packet delay, PFC vs P-PFC", cc.to_uppercase()),
                "tail latency \"reduce[d] by over 2x\"",
                format!(
                    "PFC {:.0} µs, P-PFC {:.0} µs ({lr:.2}x; {}: {:.2}x)",
                    pfc.p99_us,
                    pp.p99_us,
                    PAUSE_TIMES[1].0,
                    pfc.p99_us / other.p99_us.max(1e-9)
                ),
                lr,
                &Rule::at_least(2.0, "x")
                    .partly(1.2)
                    .of("PFC's p99 / P-PFC's"),
                "every data packet delivered in the first 1500 µs (§5.7: \"we only use the \
                 data in the first 1500 microseconds in Fig. 6a\"); percentiles interpolated \
                 within the histogram's bins",
            ));
        }
        let pfc = &stats[&name(16, "dcqcn", "standard")];
        let pp = &stats[&name(16, "dcqcn", "ppfc")];
        if let (Some(d0), Some(d1)) = (pfc.drain_ms, pp.drain_ms) {
            a.rows.push(Row::judged(
                "16:1 DCQCN: time until the queue is back below K_max (200 KB)",
                "DCQCN convergence time \"reduced by 50 percent\" with P-PFC",
                format!(
                    "P-PFC {d1:.2} ms, PFC {d0:.2} ms ({:.0} % shorter)",
                    100.0 * (1.0 - d1 / d0)
                ),
                d1 / d0,
                &Rule::at_most(0.6, "")
                    .partly(0.9)
                    .of("P-PFC's time / PFC's"),
                "convergence read as the queue's return below K_max to stay there for 1 ms \
                 (P-PFC's first pauses can dip it below K_max for a few µs)",
            ));
        }
        for cc in CCS {
            let pfc = &stats[&name(6, cc, "standard")];
            let pp = &stats[&name(6, cc, "ppfc")];
            let gap = (pp.peak_kb / pfc.peak_kb.max(1.0) - 1.0).abs();
            let frames = pfc.frames + pp.frames;
            let verdict = match (gap <= 0.05, frames <= 10) {
                (true, true) => Verdict::Matches,
                (_, true) => Verdict::Partly,
                _ => Verdict::Differs,
            };
            a.rows.push(
                Row::new(
                    format!("6:1 {}: P-PFC does not act", cc.to_uppercase()),
                    "\"the maximum queue length for both case is 1,702 KB and two curves \
                     coincide, which means almost no PFC pause messages\"",
                    format!(
                        "PFC {:.0} KB / {} frames; P-PFC {:.0} KB / {} frames (peaks {:.1} % apart)",
                        pfc.peak_kb,
                        pfc.frames,
                        pp.peak_kb,
                        pp.frames,
                        100.0 * gap
                    ),
                    verdict,
                    format!(
                        "|P-PFC's peak / PFC's - 1| and the PAUSE frames of both runs: matches at \
                         ≤ 5 % and ≤ 10 frames, partly at ≤ 10 frames. The peak's height is the \
                         CC's (no pause acts on it), not P-PFC's{}",
                        pfc.least_remaining.map_or(String::new(), |(rem, t, q)| format!(
                            ". With PFC alone Alg. 1's remaining time (the free 4 MB pool / the \
                             queue's growth over 1 µs) is least at {t:.0} µs: {rem:.0} µs, with \
                             {q:.0} KB queued, against T = {T_US:.0} µs (P-PFC pauses below it)"
                        ))
                    ),
                )
                .value(100.0 * gap),
            );
        }
        a.notes.push(
            "Setup as P-PFC §5: star, 40 Gbps 1 µs links, 1 KB packets, 9 MB buffer with a 4 MB \
             shared pool, 8 MB per sender, DCQCN with Table 2's parameters, TIMELY with its \
             defaults (TIMELY paper). Latency: the packets delivered in the first 1500 µs. Quick \
             and full are the same (each run takes < 1 s)."
                .into(),
        );
        a.notes.push(format!(
            "{PAUSE_TIME_CHOICE} (runs *-ppfc-{}).",
            PAUSE_TIMES[1].0
        ));
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remaining_time_is_the_free_pool_over_the_growth_at_its_least() {
        // 25 KB/µs from 0 to 2000 KB, then 5 KB/µs: least at 2000 KB, 80 µs.
        let mut q: Vec<(f64, f64)> = (0..=80)
            .map(|t| (t as f64 / 1e3, 25.0 * t as f64))
            .collect();
        q.extend((81..=100).map(|t| (t as f64 / 1e3, 2000.0 + 5.0 * (t - 80) as f64)));
        let (rem, t, kb) = least_remaining(&q).unwrap();
        assert!((rem - 80.0).abs() < 1e-9 && (t - 80.0).abs() < 1e-9 && kb == 2000.0);
        assert!(least_remaining(&[(0.0, 5.0), (0.001, 4.0)]).is_none());
    }

    #[test]
    fn quick_runs_all_load_and_validate() {
        super::super::ppfc_common::check_runs_load("ppfc-fig6", &PpfcFig6.runs(true));
    }
}
