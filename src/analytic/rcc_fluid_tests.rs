use super::*;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn the_recommended_region_has_a_phase_margin_above_30_degrees() {
    // §IV-D: K_p in [1, 16], K_d in [1e3, 7e3]; Fig. 4 asks for > 30 deg.
    let p = RccFluidParams::default();
    for kp in [1.0, 2.0, 4.0, 8.0, 16.0] {
        for kd in log_space(3.0, 7e3f64.log10(), 6) {
            let m = margins_at(&p, kp, kd).expect("crosses 0 dB");
            assert!(m.phase_margin_deg > 30.0, "K_p {kp}, K_d {kd}: {m:?}");
        }
    }
    // The evaluation's choice (§V-A) is inside the > 30 deg region too.
    let m = margins_at(&p, 1e4, 1e5).unwrap();
    assert!(m.phase_margin_deg > 30.0, "{m:?}");
}

#[test]
fn the_closed_form_loop_agrees_with_a_numerically_linearized_model() {
    for (flows, kp, kd) in [(2, 1e4, 1e5), (8, 1.0, 1e3), (32, 16.0, 7e3)] {
        let p = RccFluidParams {
            flows,
            kp,
            kd,
            ..Default::default()
        };
        let lin = LinearizedLoop::new(&p);
        for w in log_space(1.0, 7.0, 25) {
            let (a, b) = (lin.at(w), g_closed(kp, kd, p.r_ref(), w));
            assert!(
                (a - b).abs() / b.abs() < 1e-6,
                "N {flows} w {w}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn equation_18_as_printed_differs_from_the_linearization_and_is_never_stable() {
    // (1 + z/s) instead of (1 + s/z): a third integrator, so the phase stays
    // below -180 deg and no (K_p, K_d) has a positive margin.
    let p = RccFluidParams::default();
    let lin = LinearizedLoop::new(&p);
    let w = 1e4;
    let printed = g_printed(p.kp, p.kd, p.r_ref(), w);
    assert!((printed - lin.at(w)).abs() / lin.at(w).abs() > 0.5);
    for gp in pm_grid(&p, &log_space(0.0, 4.0, 5), &log_space(2.0, 6.0, 5)) {
        let m = margins(|w| g_printed(gp.kp, gp.kd, p.r_ref(), w)).unwrap();
        assert!(m.phase_margin_deg < 0.0, "{gp:?}: {m:?}");
    }
}

#[test]
fn phase_margin_peaks_in_k_d_and_k_d_below_k_p_over_2_is_unstable() {
    // Fig. 5: for a given K_p the margin has a maximum as K_d grows. From G(s):
    // the lead zero z must sit below the pole 1/R_0, i.e. K_d > K_p/2.
    let p = RccFluidParams::default();
    for kp in [1.0f64, 16.0, 1e4] {
        let pm: Vec<f64> = log_space(kp.log10() - 1.0, kp.log10() + 5.0, 61)
            .into_iter()
            .map(|kd| margins_at(&p, kp, kd).unwrap().phase_margin_deg)
            .collect();
        let best = pm.iter().cloned().fold(f64::MIN, f64::max);
        assert!(best > pm[0] && best > pm[pm.len() - 1], "K_p {kp}: {pm:?}");
        assert!(margins_at(&p, kp, kp / 4.0).unwrap().phase_margin_deg < 0.0);
    }
}

#[test]
fn loop_bandwidth_of_the_reference_pair_is_about_1000_rad_per_second() {
    // §IV-D takes (1, 1000) as the reference with a 1 ms ideal convergence time.
    let m = margins_at(&RccFluidParams::default(), 1.0, 1e3).unwrap();
    assert!(rel(m.crossover, 1000.0) < 0.01, "{m:?}");
    // And the bandwidth grows with the ratio K_d/K_p (Fig. 5(b)).
    let rows = fig5_rows(&RccFluidParams::default());
    assert_eq!(rows.len(), 6 * 31);
    for kp_rows in rows.chunks(31) {
        let lb: Vec<f64> = kp_rows
            .iter()
            .map(|r| r.margins.unwrap().crossover)
            .collect();
        assert!(lb.windows(2).all(|w| w[1] > w[0]));
    }
}

#[test]
fn flows_that_start_together_settle_at_the_rtt_target_and_fair_share() {
    let p = RccFluidParams::default();
    let tr = solve(&p);
    let end = tr.time.len() - 1;
    let c = p.capacity.bps_f64();
    // Eq. (10)-(11): R = R_ref, so Q = C (R_ref - d); W/R = C/N.
    assert!(rel(tr.rtt[end], p.r_ref()) < 1e-6);
    assert!(rel(tr.queue[end], c / 8.0 * (p.r_ref() - 12e-6)) < 1e-4);
    for f in 0..2 {
        assert!(rel(tr.rate[f][end], c / 2.0) < 1e-5);
        assert!(tr.u[f][end].abs() < 1e-5);
    }
}

#[test]
fn the_fluid_model_keeps_window_ratios_so_unequal_starts_stay_unequal() {
    // Every U_i follows the same Eq. (9), so W_1/W_2 never changes.
    let p = RccFluidParams {
        initial_windows: vec![Bytes(150_000), Bytes(15_000)],
        ..Default::default()
    };
    let tr = solve(&p);
    for i in (0..tr.time.len()).step_by(97) {
        assert!(rel(tr.window[0][i] / tr.window[1][i], 10.0) < 1e-9);
    }
    // The aggregate still settles at C.
    let end = tr.time.len() - 1;
    let total = tr.rate[0][end] + tr.rate[1][end];
    assert!(rel(total, p.capacity.bps_f64()) < 1e-4);
}

#[test]
fn a_negative_phase_margin_shows_as_sustained_oscillation_in_the_nonlinear_model() {
    // K_d < K_p/2 (negative margin) against the paper's pair (about 40 deg):
    // the swing of a flow's rate between 1.5 and 3 ms.
    let swing = |kp: f64, kd: f64| {
        let tr = solve(&RccFluidParams {
            kp,
            kd,
            duration: Delta::from_ms(3),
            ..Default::default()
        });
        let from = tr.time.partition_point(|&t| t < 1.5e-3);
        let r = &tr.rate[0][from..];
        r.iter().cloned().fold(f64::MIN, f64::max) - r.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert!(swing(1e4, 1e5) < 1e6, "settled: swing < 1 Mbps");
    assert!(
        swing(1e4, 2e3) > 10e9,
        "unstable: still swinging by > 10 Gbps"
    );
}

#[test]
fn halving_the_step_changes_little() {
    let p = RccFluidParams::default();
    let a = solve(&p);
    let b = solve(&RccFluidParams {
        step: Delta::from_ns(5),
        ..p.clone()
    });
    let fair = p.capacity.bps_f64() / 8.0 * p.r_ref() / 2.0;
    let mut worst = 0.0f64;
    for (i, &t) in a.time.iter().enumerate() {
        let j = b.time.partition_point(|&s| s < t - 1e-12);
        worst = worst.max((a.window[0][i] - b.window[0][j]).abs() / fair);
    }
    // First order in h: the queue's clip at zero is a kink.
    assert!(worst < 3e-4, "windows differ by {worst} of the fair window");
}
