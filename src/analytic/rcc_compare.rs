//! The RCC fluid model (RCC §IV, [`super::rcc_fluid`]) against the packet
//! simulator running `rcc` on in-network congestion: two flows cross one 100 Gbps
//! switch-to-switch link toward two receivers whose last hops stay below `eta`, so
//! both run the PID controller (RCC §III-E), as the model assumes.
//!
//! Matching the two: the model's `d` is the simulated flows' base RTT, and its
//! target `R_ref = d (1 + delta_m/2)` is set to give the simulated target queueing
//! delay, `base_one_way x delta/2` (the receiver compares one-way delays with the
//! one-way base), so `delta_m = delta x one_way / d`. Gains are the same numbers
//! (per second of delay error, stepped once per RTT in the simulator). The model
//! starts both flows at line rate already in PID; the simulator first detects the
//! congestion (n = 3 RTT samples), so the comparison is about the settled state:
//! mean rates and queue over the second half of the run and how much they still
//! swing (standard deviation), which the model, having no feedback delay, drives
//! to zero.
//!
//! The phase margin the model promises assumes no delay in the loop. The
//! simulator's window travels back in ACKs and acts one RTT later, a delay
//! `e^{-s d}` that costs `w_c d` of phase at the crossover; [`delayed_margins`]
//! evaluates the margin with it.

use super::rcc_fluid::{self, Complex, Margins, RccFluidParams};
use crate::config::paths::ecmp;
use crate::error::{Error, InputError};
use crate::scenario::{self, Source};
use crate::sim::RunOptions;
use crate::switch::ecmp::FlowKey;
use crate::units::{Bytes, Delta};
use std::path::Path;

/// The packet-level scenario (also runnable with `rocesim run`).
pub const SCENARIO: &str = include_str!("../../scenarios/rcc-fluid-compare.toml");

/// Time series of one side, seconds / bits per second / bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub time: Vec<f64>,
    pub rate: [Vec<f64>; 2],
    pub queue: Vec<f64>,
}

/// What the comparison measured for one side over the second half of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settled {
    pub rate: [f64; 2],
    pub rate_std: [f64; 2],
    pub queue: f64,
    pub queue_std: f64,
}

impl Settled {
    /// One line: both flows' rates in Gbps and the queue in KB, with their spread.
    pub fn describe(&self, label: &str, rate_unit: &str) -> String {
        format!(
            "    {label} {:.2} / {:.2} {rate_unit} (std {:.2} / {:.2}), queue {:.2} KB (std {:.2})",
            self.rate[0] / 1e9,
            self.rate[1] / 1e9,
            self.rate_std[0] / 1e9,
            self.rate_std[1] / 1e9,
            self.queue / 1e3,
            self.queue_std / 1e3
        )
    }
}

#[derive(Clone, Debug)]
pub struct Comparison {
    pub model: Trace,
    pub sim: Trace,
    pub model_settled: Settled,
    pub sim_settled: Settled,
    /// The simulated flows' base RTT and one-way delay, seconds.
    pub base_rtt: f64,
    pub one_way: f64,
    /// The model parameters used.
    pub params: RccFluidParams,
    /// Margins of the model's loop without and with one base RTT of delay.
    pub margins: Option<Margins>,
    pub delayed: Option<Margins>,
}

/// Phase margin of the model's loop with a pure delay `tau` (seconds) added.
pub fn delayed_margins(kp: f64, kd: f64, r0: f64, tau: f64) -> Option<Margins> {
    rcc_fluid::margins(|w| {
        let g = rcc_fluid::g_closed(kp, kd, r0, w);
        g * Complex::new((w * tau).cos(), -(w * tau).sin())
    })
}

/// Runs the packet simulator; returns the trace and the flows' base RTT and
/// one-way delay (seconds).
pub fn run_sim(
    duration: Delta,
    p: &RccFluidParams,
    sets: &[String],
) -> Result<(Trace, f64, f64), Error> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut all = vec![
        format!("stop=\"{duration}\""),
        format!("cc.rcc.kp={:e}", p.kp),
        format!("cc.rcc.kd={:e}", p.kd),
    ];
    all.extend_from_slice(sets);
    let src = Source::text(
        SCENARIO,
        "scenarios/rcc-fluid-compare.toml",
        &base,
        "rcc-fluid-compare",
    );
    let cfg = scenario::to_config(&src, &all)?;
    let f = cfg.flows.first().expect("the scenario has two flows");
    let key = FlowKey {
        src: f.src.0,
        dst: f.dst.0,
        sport: 10_000,
        dport: f.dport,
    };
    let data = ecmp::trace(&cfg.topo, &cfg.model, cfg.seed, key);
    let ack = ecmp::trace(&cfg.topo, &cfg.model, cfg.seed, key.reversed());
    let mtu_wire = cfg.mtu_wire();
    let ack_wire = cfg.model.sizes.ack_wire(0);
    let one_way = ecmp::one_way(&cfg.model, &data, mtu_wire).as_secs_f64();
    let rtt = (ecmp::one_way(&cfg.model, &data, mtu_wire)
        + ecmp::one_way(&cfg.model, &ack, ack_wire))
    .as_secs_f64();
    let (node, port) = cfg
        .output
        .queue_ports
        .as_ref()
        .and_then(|v| v.first().copied())
        .expect("the scenario samples the bottleneck port");
    let step = Delta::from_us(10);
    let opts = RunOptions {
        keep_samples: true,
        trace_rates: Some(step),
        ..RunOptions::default()
    };
    let out = crate::run(cfg, &opts, None, &mut |_| {})?;
    // Goodput of each flow per trace interval; the queue averaged over it.
    let mut delivered: std::collections::BTreeMap<u64, [u64; 2]> = Default::default();
    for s in out.rates.iter().filter(|s| s.flow < 2) {
        delivered.entry(s.time.ps()).or_default()[s.flow as usize] = s.delivered;
    }
    let q: Vec<(u64, f64)> = out
        .samples
        .iter()
        .filter(|s| s.node == node.0 && s.port == port)
        .map(|s| (s.time.ps(), s.bytes as f64))
        .collect();
    let mut tr = Trace::default();
    let ticks: Vec<(u64, [u64; 2])> = delivered.into_iter().collect();
    for w in ticks.windows(2) {
        let ((t0, d0), (t1, d1)) = (w[0], w[1]);
        let dt = (t1 - t0) as f64 * 1e-12;
        tr.time.push(t1 as f64 * 1e-12);
        for i in 0..2 {
            tr.rate[i].push(d1[i].saturating_sub(d0[i]) as f64 * 8.0 / dt);
        }
        let inside: Vec<f64> = q
            .iter()
            .filter(|(t, _)| *t > t0 && *t <= t1)
            .map(|x| x.1)
            .collect();
        tr.queue
            .push(inside.iter().sum::<f64>() / inside.len().max(1) as f64);
    }
    Ok((tr, rtt, one_way))
}

/// Solves the model in the simulated setting.
pub fn run_model(
    p: &RccFluidParams,
    duration: Delta,
    rtt: f64,
    one_way: f64,
) -> (Trace, RccFluidParams) {
    let m = RccFluidParams {
        flows: 2,
        base_rtt: Delta::from_secs_f64(rtt),
        delta: p.delta * one_way / rtt,
        initial_windows: vec![Bytes((p.capacity.bps_f64() / 8.0 * rtt) as u64)],
        duration,
        sample: Delta::from_us(10),
        ..p.clone()
    };
    let s = rcc_fluid::solve(&m);
    let tr = Trace {
        time: s.time,
        rate: [s.rate[0].clone(), s.rate[1].clone()],
        queue: s.queue,
    };
    (tr, m)
}

fn settled(tr: &Trace) -> Settled {
    let end = tr.time.last().copied().unwrap_or(0.0);
    let from = tr.time.partition_point(|&t| t < end / 2.0);
    let stats = |v: &[f64]| {
        let v = &v[from..];
        let n = v.len().max(1) as f64;
        let m = v.iter().sum::<f64>() / n;
        (
            m,
            (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt(),
        )
    };
    let (r0, s0) = stats(&tr.rate[0]);
    let (r1, s1) = stats(&tr.rate[1]);
    let (q, qs) = stats(&tr.queue);
    Settled {
        rate: [r0, r1],
        rate_std: [s0, s1],
        queue: q,
        queue_std: qs,
    }
}

/// Runs both sides. `p` supplies capacity, delta and the gains; `sets` are
/// extra scenario overrides for the simulator.
pub fn compare(p: &RccFluidParams, duration: Delta, sets: &[String]) -> Result<Comparison, Error> {
    if duration < Delta::from_us(100) {
        return Err(InputError::new("--sim-duration", "", "must be at least 100us").into());
    }
    let (sim, rtt, one_way) = run_sim(duration, p, sets)?;
    let (model, params) = run_model(p, duration, rtt, one_way);
    let r0 = params.r_ref();
    Ok(Comparison {
        model_settled: settled(&model),
        sim_settled: settled(&sim),
        margins: rcc_fluid::margins_at(&params, params.kp, params.kd),
        delayed: delayed_margins(params.kp, params.kd, r0, rtt),
        model,
        sim,
        base_rtt: rtt,
        one_way,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_and_simulator_agree_on_the_shares_and_the_simulator_keeps_swinging() {
        let c = compare(&RccFluidParams::default(), Delta::from_ms(2), &[]).unwrap();
        let (m, s) = (&c.model_settled, &c.sim_settled);
        // Both share the link: each flow near half of it (the simulator's
        // goodput counts payload only, 1000 of 1062 wire bytes).
        for i in 0..2 {
            assert!((m.rate[i] - 50e9).abs() < 0.05 * 50e9, "{m:?}");
            assert!((s.rate[i] - 47e9).abs() < 0.25 * 47e9, "{s:?}");
        }
        // The model settles (no feedback delay); the simulator, with one RTT of
        // delay in the loop, keeps oscillating around the same point.
        assert!(m.rate_std[0] < 0.01 * 50e9, "{m:?}");
        assert!(s.rate_std[0] > 10.0 * m.rate_std[0], "{s:?} vs {m:?}");
        let (free, delayed) = (c.margins.unwrap(), c.delayed.unwrap());
        assert!(free.phase_margin_deg > 30.0);
        assert!(
            delayed.phase_margin_deg < free.phase_margin_deg - 20.0,
            "{free:?} {delayed:?}"
        );
    }

    #[test]
    fn the_gains_the_paper_recommends_for_use_settle_in_the_simulator_too() {
        // RCC §IV-D: K_p in [1, 16], K_d in [1e3, 7e3] "in actual use".
        let p = RccFluidParams {
            kp: 16.0,
            kd: 7e3,
            ..RccFluidParams::default()
        };
        let c = compare(&p, Delta::from_ms(2), &[]).unwrap();
        let s = &c.sim_settled;
        for i in 0..2 {
            assert!(s.rate_std[i] < 0.05 * s.rate[i], "{s:?}");
        }
        assert!(c.delayed.unwrap().phase_margin_deg > 60.0);
    }
}
