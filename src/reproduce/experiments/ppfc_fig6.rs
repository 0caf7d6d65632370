//! ppfc-fig6: switch queue and tail latency of DCQCN and TIMELY with standard PFC
//! and with P-PFC in 6:1 and 16:1 incasts (P-PFC TPDS'20 §5.1-5.2, Fig. 6).

use super::ppfc_common::{
    bars, first_drain_below, hist_pct, latency_hist, line, peak, queue, scheme_label, until,
};
use crate::error::Error;
use crate::plot::{Series, write_figure};
use crate::reproduce::{Analysis, Experiment, Finished, Row, RunSpec, Verdict, run};
use std::path::Path;

pub struct PpfcFig6;

const FANS: [u32; 2] = [6, 16];
const CCS: [&str; 2] = ["dcqcn", "timely"];
const SCHEMES: [&str; 2] = ["standard", "ppfc"];

fn name(n: u32, cc: &str, s: &str) -> String {
    format!("{n}to1-{cc}-{s}")
}

/// Per run: peak queue (KB), p99 packet delay (µs), PFC frames, first drain below K_max (ms).
struct Stat {
    peak_kb: f64,
    p99_us: f64,
    frames: u64,
    drain_ms: Option<f64>,
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
        v
    }

    fn analyze(&self, runs: &[Finished], dir: &Path, _quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let mut stats = std::collections::BTreeMap::new();
        for cc in CCS {
            let mut series = Vec::new();
            for n in FANS {
                for s in SCHEMES {
                    let r = &run(runs, &name(n, cc, s)).out;
                    let q = queue(r, n + 1);
                    stats.insert(
                        name(n, cc, s),
                        Stat {
                            peak_kb: peak(&q),
                            p99_us: hist_pct(&latency_hist(r)?, 99.0),
                            frames: r.summary.pfc_pause_frames,
                            drain_ms: first_drain_below(&q, 200.0),
                        },
                    );
                    series.push(Series::line(
                        format!("{n}:1 {}", scheme_label(s)),
                        until(&q, 3.0),
                    ));
                }
            }
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
                "99th-percentile packet delay",
                "incast",
                "p99 one-way delay (µs)",
                cats,
                groups,
            ),
        )?;
        a.figures.push("tail-latency".into());

        for cc in CCS {
            let pfc = &stats[&name(16, cc, "standard")];
            let pp = &stats[&name(16, cc, "ppfc")];
            let qr = pfc.peak_kb / pp.peak_kb.max(1.0);
            let lr = pfc.p99_us / pp.p99_us.max(1e-9);
            a.rows.push(Row {
                metric: format!("16:1 {}: peak queue, PFC vs P-PFC", cc.to_uppercase()),
                paper: if cc == "dcqcn" {
                    "P-PFC 1002 KB; standard PFC uses up the whole buffer (4 MB shared); \"about 4x\""
                        .into()
                } else {
                    "\"similar results\" to DCQCN (about 4x lower)".into()
                },
                ours: format!(
                    "P-PFC {:.0} KB, PFC {:.0} KB ({qr:.2}x)",
                    pp.peak_kb, pfc.peak_kb
                ),
                verdict: if qr >= 3.0 {
                    Verdict::Matches
                } else if qr >= 1.2 {
                    Verdict::Partly
                } else {
                    Verdict::Differs
                },
                why: "matches at ≥ 3x, partly at ≥ 1.2x. Our P-PFC acts only above K_max and \
                      pauses a drawn 80 % share for (its queued bytes + increment)/rate; the \
                      paper's exact pause bookkeeping is open (docs/models.md), which sets how \
                      far the queue climbs before DCQCN's cuts arrive"
                    .into(),
                value: None,
                explanation: None,
                seeds: Vec::new(),
            });
            a.rows.push(Row {
                metric: format!("16:1 {}: p99 packet delay, PFC vs P-PFC", cc.to_uppercase()),
                paper: "tail latency \"reduce[d] by over 2x\"".into(),
                ours: format!(
                    "P-PFC {:.0} µs, PFC {:.0} µs ({lr:.2}x)",
                    pp.p99_us, pfc.p99_us
                ),
                verdict: if lr >= 2.0 {
                    Verdict::Matches
                } else if lr >= 1.2 {
                    Verdict::Partly
                } else {
                    Verdict::Differs
                },
                why: "p99 of every data packet's one-way delay over the whole run (the paper does \
                      not say its window); follows the peak queue"
                    .into(),
                value: None,
                explanation: None,
                seeds: Vec::new(),
            });
        }
        let pfc = &stats[&name(16, "dcqcn", "standard")];
        let pp = &stats[&name(16, "dcqcn", "ppfc")];
        if let (Some(d0), Some(d1)) = (pfc.drain_ms, pp.drain_ms) {
            a.rows.push(Row {
                metric: "16:1 DCQCN: time until the queue is back below K_max (200 KB)".into(),
                paper: "DCQCN convergence time \"reduced by 50 percent\" with P-PFC".into(),
                ours: format!(
                    "P-PFC {:.2} ms, PFC {:.2} ms ({:.0}% shorter)",
                    d1,
                    d0,
                    100.0 * (1.0 - d1 / d0)
                ),
                verdict: if d1 <= 0.6 * d0 {
                    Verdict::Matches
                } else if d1 < 0.9 * d0 {
                    Verdict::Partly
                } else {
                    Verdict::Differs
                },
                why: "convergence read as the first return of the queue below K_max; matches \
                      at ≥ 40 % shorter"
                    .into(),
                value: None,
                explanation: None,
                seeds: Vec::new(),
            });
        }
        for cc in CCS {
            let pfc = &stats[&name(6, cc, "standard")];
            let pp = &stats[&name(6, cc, "ppfc")];
            let same = (pfc.peak_kb - pp.peak_kb).abs() <= 0.05 * pfc.peak_kb.max(1.0);
            let few = pfc.frames + pp.frames <= 10;
            a.rows.push(Row {
                metric: format!("6:1 {}: peak queue and PFC frames", cc.to_uppercase()),
                paper: "peak 1,702 KB for both, \"two curves coincide\", \"almost no PFC pause \
                        messages\""
                    .into(),
                ours: format!(
                    "PFC {:.0} KB / {} frames; P-PFC {:.0} KB / {} frames",
                    pfc.peak_kb, pfc.frames, pp.peak_kb, pp.frames
                ),
                verdict: if same && few {
                    Verdict::Matches
                } else if few {
                    Verdict::Partly
                } else {
                    Verdict::Differs
                },
                why: "matches when the peaks are within 5 % and both send ≤ 10 frames in all; \
                      the peak height itself depends on the CC's first reaction"
                    .into(),
                value: None,
                explanation: None,
                seeds: Vec::new(),
            });
        }
        a.notes.push(
            "Setup as P-PFC §5: star, 40 Gbps 1 µs links, 1 KB packets, 9 MB buffer with a 4 MB \
             shared pool, 8 MB per sender, DCQCN with Table 2's parameters, TIMELY with its \
             defaults (TIMELY paper). Quick and full are the same (each run takes < 1 s)."
                .into(),
        );
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_runs_all_load_and_validate() {
        super::super::ppfc_common::check_runs_load("ppfc-fig6", &PpfcFig6.runs(true));
    }
}
