//! RCC convergence and fairness (RCC §V-B1, Fig. 6), time-scaled: four flows join
//! a 100 Gbps bottleneck one by one and leave in reverse. After every change each
//! flow's goodput reaches 0.95 x C / N within 1 ms (the paper: "quickly converges
//! to ~100 x 0.95 / N Gbps"), and Jain's index over the steady parts is >= 0.99
//! (the paper reports 0.998-0.999).

use crate::common::{assert_all_delivered, run_with};
use crate::measure::{delivered_at, finish, goodput, jain, us};
use rocesim::sim::RunOptions;
use rocesim::units::{Delta, SimTime};

const SCENARIO: &str = include_str!("../../scenarios/rcc-convergence.toml");

/// Each change of the flow count: (time, flows active after it).
fn phases(out: &rocesim::output::RunOutputs) -> Vec<(SimTime, Vec<u32>)> {
    let mut events: Vec<SimTime> = out.fct.iter().map(|f| f.start).collect();
    events.extend(out.fct.iter().map(|f| f.start + f.fct));
    events.sort();
    events.dedup();
    events
        .iter()
        .map(|&t| {
            let active = out
                .fct
                .iter()
                .filter(|f| f.start <= t && f.start + f.fct > t)
                .map(|f| f.flow_id)
                .collect();
            (t, active)
        })
        .filter(|(_, a): &(SimTime, Vec<u32>)| !a.is_empty())
        .collect()
}

#[test]
fn rcc_gives_every_flow_its_fair_share_within_1ms_of_each_join_and_leave() {
    let opts = RunOptions {
        trace_rates: Some(Delta::from_us(10)),
        keep_samples: true,
        ..RunOptions::default()
    };
    let out = run_with(SCENARIO, &[], &opts);
    assert_all_delivered(&out);
    let ph = phases(&out);
    // Joins at 0, 2, 4, 6 ms and leaves in reverse: N = 1, 2, 3, 4, 3, 2, 1.
    let counts: Vec<usize> = ph.iter().map(|(_, a)| a.len()).collect();
    assert_eq!(
        counts,
        [1, 2, 3, 4, 3, 2, 1],
        "flows leave in reverse order"
    );
    assert_eq!(
        finish(&out, 3).map(|t| t < finish(&out, 2).unwrap()),
        Some(true)
    );

    let c = 100e9;
    for (k, (t0, active)) in ph.iter().enumerate() {
        let t_end = ph.get(k + 1).map_or(finish(&out, 0).unwrap(), |p| p.0);
        let n = active.len() as f64;
        let target = 0.95 * c / n;
        // Converged: from some point within 1 ms of the change, every flow's
        // goodput over each following 20 us stays within 10 % of the target.
        let window = Delta::from_us(20);
        let mut converged_at = None;
        let mut t = *t0;
        while t + window <= t_end.min(*t0 + Delta::from_ms(1) + window) {
            let ok = active.iter().all(|&f| {
                let g = goodput(&out, f, t, t + window);
                (g - target).abs() <= 0.1 * target
            });
            if ok && converged_at.is_none() {
                converged_at = Some(t);
            } else if !ok {
                converged_at = None;
            }
            t += Delta::from_us(10);
        }
        let at = converged_at.unwrap_or_else(|| panic!("N = {n} at {t0}: no convergence"));
        assert!(
            at.since(*t0) <= Delta::from_ms(1),
            "N = {n}: converged {} after the change",
            at.since(*t0)
        );
        // Steady part: from 1 ms after the change to the next one.
        let (s0, s1) = (*t0 + Delta::from_ms(1), t_end);
        let g: Vec<f64> = active.iter().map(|&f| goodput(&out, f, s0, s1)).collect();
        let j = jain(&g);
        eprintln!(
            "N = {n}: converged after {:.1} us, goodput {:?} Gbps, Jain {j:.5}",
            at.since(*t0).as_us_f64(),
            g.iter()
                .map(|x| (x / 1e8).round() / 10.0)
                .collect::<Vec<_>>()
        );
        assert!(j >= 0.99, "N = {n}: Jain {j}");
        for x in &g {
            assert!(
                (x - target).abs() <= 0.1 * target,
                "N = {n}: {x} vs {target}"
            );
        }
    }
    assert!(delivered_at(&out, 0, us(1000.0)) > 0);
}
