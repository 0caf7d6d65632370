//! Parameter sweeps of the DCQCN fluid model, as in DCQCN §5.2: Fig. 11 (the
//! throughput difference of two flows, one starting at 40 Gbps and one at 0,
//! against the byte counter, the timer, K_max and P_max) and Fig. 12 (the queue
//! against g for 2:1 and 16:1 incasts), plus the convergence measures used to
//! compare the model with the packet simulator.
//!
//! The paper shows each Fig. 11 panel as a surface over time (10-200 ms) and one
//! parameter, with the other parameters left implicit. Our panels start from the
//! strawman of §5.2 (B = 150 KB, T = 1.5 ms, K_min = K_max = 40 KB, P_max = 1,
//! g = 1/16) and vary one thing each: (a) B up to 10 MB; (b) T down to 55 us;
//! (c) K_max from 40 to 200 KB with RED below it (K_min = 5 KB, P_max = 1 %);
//! (d) P_max from 100 % to 1 % with K_min = 5 KB, K_max = 200 KB. Fig. 12 uses the
//! deployment parameters (Fig. 14) with g from 1/16 to 1/1024.

use super::dcqcn_fluid::{DcqcnFluidParams, FluidTrace, solve};
use crate::units::{Bytes, Delta};

/// One model run of a sweep.
#[derive(Clone, Debug)]
pub struct SweepCase {
    /// How the value prints (`150KB`, `1/256`).
    pub label: String,
    /// The value on the sweep's axis.
    pub x: f64,
    pub params: DcqcnFluidParams,
}

/// A set of runs varying one parameter.
#[derive(Clone, Debug)]
pub struct Panel {
    /// File-name friendly id, e.g. `fig11a-byte-counter`.
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub log_x: bool,
    pub cases: Vec<SweepCase>,
}

fn case(label: String, x: f64, params: DcqcnFluidParams) -> SweepCase {
    SweepCase { label, x, params }
}

/// The four panels of Fig. 11 (see the module doc for what each varies).
pub fn fig11_panels() -> Vec<Panel> {
    let straw = DcqcnFluidParams::strawman;
    let kb = |k: u64| Bytes(k * 1000);
    let byte_counter = [150, 300, 600, 1_200, 2_500, 5_000, 10_000]
        .map(|k| {
            let p = DcqcnFluidParams {
                byte_counter: kb(k),
                ..straw()
            };
            case(kb(k).to_string(), k as f64, p)
        })
        .to_vec();
    let timer = [1500, 1000, 500, 250, 125, 55]
        .map(|us| {
            let p = DcqcnFluidParams {
                timer: Delta::from_us(us),
                ..straw()
            };
            case(format!("{us}us"), us as f64, p)
        })
        .to_vec();
    let red = || DcqcnFluidParams {
        kmin: kb(5),
        pmax: 0.01,
        ..straw()
    };
    let kmax = [40, 80, 120, 160, 200]
        .map(|k| {
            let p = DcqcnFluidParams {
                kmax: kb(k),
                ..red()
            };
            case(kb(k).to_string(), k as f64, p)
        })
        .to_vec();
    let pmax = [1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01]
        .map(|pm| {
            let p = DcqcnFluidParams {
                kmax: kb(200),
                pmax: pm,
                ..red()
            };
            case(format!("{}%", pm * 100.0), pm * 100.0, p)
        })
        .to_vec();
    let panel = |id: &str, title: &str, x: &str, log_x: bool, cases| Panel {
        id: id.into(),
        title: title.into(),
        x_label: x.into(),
        log_x,
        cases,
    };
    vec![
        panel(
            "fig11a-byte-counter",
            "Fig. 11(a): byte counter B",
            "byte counter (KB)",
            true,
            byte_counter,
        ),
        panel(
            "fig11b-timer",
            "Fig. 11(b): rate-increase timer T",
            "timer (us)",
            true,
            timer,
        ),
        panel(
            "fig11c-kmax",
            "Fig. 11(c): K_max (K_min 5 KB, P_max 1%)",
            "K_max (KB)",
            false,
            kmax,
        ),
        panel(
            "fig11d-pmax",
            "Fig. 11(d): P_max (K_min 5 KB, K_max 200 KB)",
            "P_max (%)",
            true,
            pmax,
        ),
    ]
}

/// Fig. 12: g for a 2:1 and a 16:1 incast (flows start together at line rate).
pub fn fig12_panels() -> Vec<Panel> {
    [2u32, 16]
        .iter()
        .map(|&n| Panel {
            id: format!("fig12-g-{n}to1"),
            title: format!("Fig. 12: queue against g, {n}:1 incast"),
            x_label: "1/g".into(),
            log_x: true,
            cases: [16.0, 64.0, 256.0, 1024.0]
                .iter()
                .map(|&inv| {
                    let p = DcqcnFluidParams {
                        flows: n,
                        g: 1.0 / inv,
                        duration: Delta::from_ms(200),
                        ..DcqcnFluidParams::default()
                    };
                    case(format!("1/{inv}"), inv, p)
                })
                .collect(),
        })
        .collect()
}

/// What one case gave.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub label: String,
    pub x: f64,
    /// Mean |R_C1 - R_C2| after 10 ms (the part Fig. 11 shows), bits/s; 0 with
    /// one trajectory.
    pub mean_diff: f64,
    /// Mean |R_C1 - R_C2| over the last 10 % of the run.
    pub final_diff: f64,
    /// Queue over the second half of the run: mean, standard deviation, min, max
    /// (bytes).
    pub queue_mean: f64,
    pub queue_std: f64,
    pub queue_min: f64,
    pub queue_max: f64,
    pub trace: FluidTrace,
}

/// |R_C1 - R_C2| per sample (zeros for a single trajectory).
pub fn rate_difference(tr: &FluidTrace) -> Vec<f64> {
    if tr.rc.len() < 2 {
        return vec![0.0; tr.time.len()];
    }
    tr.rc[0]
        .iter()
        .zip(&tr.rc[1])
        .map(|(a, b)| (a - b).abs())
        .collect()
}

/// Solves one case and summarizes it.
pub fn run_case(c: &SweepCase) -> CaseResult {
    let tr = solve(&c.params);
    let diff = rate_difference(&tr);
    let end = *tr.time.last().expect("samples");
    let half = &tr.queue[tr.index_at(end / 2.0)..];
    let mean = half.iter().sum::<f64>() / half.len() as f64;
    let var = half.iter().map(|q| (q - mean).powi(2)).sum::<f64>() / half.len() as f64;
    CaseResult {
        label: c.label.clone(),
        x: c.x,
        mean_diff: tr.mean_from(&diff, 0.01),
        final_diff: tr.mean_from(&diff, 0.9 * end),
        queue_mean: mean,
        queue_std: var.sqrt(),
        queue_min: half.iter().cloned().fold(f64::INFINITY, f64::min),
        queue_max: half.iter().cloned().fold(0.0, f64::max),
        trace: tr,
    }
}

/// Centred moving average over `window` seconds of samples at `time`.
pub fn moving_average(time: &[f64], v: &[f64], window: f64) -> Vec<f64> {
    let mut prefix = vec![0.0; v.len() + 1];
    for (i, x) in v.iter().enumerate() {
        prefix[i + 1] = prefix[i] + x;
    }
    (0..v.len())
        .map(|i| {
            let lo = time.partition_point(|&t| t < time[i] - window / 2.0);
            let hi = time.partition_point(|&t| t <= time[i] + window / 2.0);
            (prefix[hi] - prefix[lo]) / (hi - lo) as f64
        })
        .collect()
}

/// The first time at or after `from` from which `|a - b| <= tol` holds at every
/// later sample; `None` if the last sample is still apart.
pub fn convergence_time(time: &[f64], a: &[f64], b: &[f64], from: f64, tol: f64) -> Option<f64> {
    let start = time.partition_point(|&t| t < from);
    let mut first_ok = None;
    for i in (start..time.len()).rev() {
        if (a[i] - b[i]).abs() <= tol {
            first_ok = Some(time[i]);
        } else {
            break;
        }
    }
    first_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convergence_time_is_when_the_gap_closes_for_good() {
        let t: Vec<f64> = (0..10).map(f64::from).collect();
        let a = [9.0, 8.0, 1.0, 7.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let b = [1.0; 10];
        assert_eq!(convergence_time(&t, &a, &b, 0.0, 0.5), Some(4.0));
        assert_eq!(convergence_time(&t, &a, &b, 6.0, 0.5), Some(6.0));
        let c = [5.0; 10];
        assert_eq!(convergence_time(&t, &c, &b, 0.0, 0.5), None);
    }

    #[test]
    fn moving_average_smooths_a_square_wave_to_its_mean() {
        let t: Vec<f64> = (0..100).map(|i| i as f64 * 0.1).collect();
        let v: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 0.0 } else { 2.0 })
            .collect();
        let m = moving_average(&t, &v, 2.0);
        assert!(m[20..80].iter().all(|x| (x - 1.0).abs() < 0.1));
    }

    #[test]
    fn fig11_panels_start_from_the_strawman_and_end_at_deployment_like_values() {
        let p = fig11_panels();
        assert_eq!(p.len(), 4);
        let straw = DcqcnFluidParams::strawman();
        assert_eq!(p[0].cases[0].params, straw);
        assert_eq!(p[1].cases[0].params, straw);
        assert_eq!(
            p[0].cases.last().unwrap().params.byte_counter,
            Bytes(10_000_000)
        );
        assert_eq!(p[1].cases.last().unwrap().params.timer, Delta::from_us(55));
        for panel in &p {
            for c in &panel.cases {
                c.params.validate().unwrap();
            }
        }
    }

    #[test]
    fn a_faster_timer_brings_the_strawman_flows_together() {
        // §5.2: speeding up the timer (Fig. 11(b)) fixes the strawman's unfairness.
        let panel = &fig11_panels()[1];
        let slow = run_case(&panel.cases[0]);
        let fast = run_case(panel.cases.last().unwrap());
        assert!(slow.final_diff > 20e9, "T = 1.5 ms: {}", slow.final_diff);
        assert!(
            fast.final_diff < 0.1 * slow.final_diff,
            "T = 55 us: {}",
            fast.final_diff
        );
    }
}
