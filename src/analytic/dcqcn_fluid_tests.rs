use super::*;

/// Largest difference between two traces on their common sample times: (rate as
/// a fraction of C, queue in bytes).
fn max_difference(a: &FluidTrace, b: &FluidTrace, capacity: f64) -> (f64, f64) {
    let (mut dr, mut dq) = (0.0f64, 0.0f64);
    for (i, &t) in a.time.iter().enumerate() {
        let j = b.index_at(t);
        assert!((b.time[j] - t).abs() < 1e-9, "sample times differ");
        for f in 0..a.rc.len() {
            dr = dr.max((a.rc[f][i] - b.rc[f][j]).abs() / capacity);
        }
        dq = dq.max((a.queue[i] - b.queue[j]).abs());
    }
    (dr, dq)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn two_flows_settle_at_the_fair_share_and_the_solved_marking_probability() {
    let p = DcqcnFluidParams::default();
    let fp = fixed_point(&p);
    assert_eq!(fp.rate, 20e9, "Eq. (10): R_C = C/N");
    let tr = solve(&p);
    let end = tr.time.len() - 1;
    let tail = 0.08; // the last 20 ms of 100 ms
    assert!(
        rel(tr.rc[0][end], fp.rate) < 1e-4,
        "R_C = {}",
        tr.rc[0][end]
    );
    assert!(rel(tr.mean_from(&tr.p, tail), fp.p) < 0.01, "p {}", fp.p);
    assert!(
        rel(tr.queue[end], fp.queue) < 0.01,
        "q {} vs {}",
        tr.queue[end],
        fp.queue
    );
    assert!(rel(tr.alpha[0][end], fp.alpha) < 0.01);
    assert!(rel(tr.rt[0][end], fp.target) < 1e-3);
    // §5.1: p is small, and the queue settles well above K_min (5 KB).
    assert!(fp.p < 0.01 && fp.queue > 15_000.0);
}

#[test]
fn the_fixed_point_zeroes_every_derivative() {
    for flows in [2, 4, 16] {
        let p = DcqcnFluidParams {
            flows,
            ..Default::default()
        };
        let fp = fixed_point(&p);
        let u = Units::new(&p);
        let bits = u.bits_per_packet;
        let (r, rt) = (fp.rate / bits, fp.target / bits);
        let d = u.flow_rhs(fp.alpha, rt, r, fp.p, r);
        // Each derivative relative to its own scale (per CNP interval).
        assert!(d[0].abs() * u.tau < 1e-9, "dalpha {}", d[0]);
        assert!(d[1].abs() * u.tau / r < 1e-9, "dR_T {}", d[1]);
        assert!(d[2].abs() * u.tau / r < 1e-9, "dR_C {}", d[2]);
    }
}

#[test]
fn sixteen_flows_have_their_fixed_point_above_pmax_and_keep_oscillating() {
    // With Table 2 values and 1000 B packets the solved p for N = 16 exceeds
    // P_max = 1 %, so the equilibrium queue would sit on the jump of Eq. (5) at
    // K_max; the delayed loop then cycles between an empty queue and > K_max.
    let p = DcqcnFluidParams {
        flows: 16,
        duration: Delta::from_ms(150),
        ..Default::default()
    };
    let fp = fixed_point(&p);
    assert!(fp.p > p.pmax && fp.queue == 200_000.0, "{fp:?}");
    let tr = solve(&p);
    let from = tr.index_at(0.1);
    let q = &tr.queue[from..];
    assert!(q.contains(&0.0), "queue empties in each cycle");
    assert!(q.iter().any(|&x| x > 200_000.0), "and overshoots K_max");
    // Halving R_AI (§5.2) moves p* below P_max, and the queue then settles there.
    let half = DcqcnFluidParams {
        rate_ai: Rate::from_mbps(20),
        ..p.clone()
    };
    let fp = fixed_point(&half);
    assert!(fp.p < half.pmax);
    let tr = solve(&half);
    let end = tr.time.len() - 1;
    assert!(rel(tr.queue[end], fp.queue) < 0.01 && rel(tr.rc[0][end], fp.rate) < 1e-3);
}

#[test]
fn halving_the_step_changes_little() {
    // The documented step (0.5 us) against 0.25 us over the whole 100 ms run, for
    // the identical-flow model (startup with a 40 Gbps-per-flow burst) and the
    // two-flow model of Fig. 11.
    for (base, rate_tol, queue_tol) in [
        (DcqcnFluidParams::default(), 2e-4, 400.0),
        (
            DcqcnFluidParams {
                duration: Delta::from_ms(100),
                ..DcqcnFluidParams::fig11_base()
            },
            1e-5,
            10.0,
        ),
    ] {
        let a = solve(&base);
        let b = solve(&DcqcnFluidParams {
            step: Delta::from_ns(250),
            ..base.clone()
        });
        let (dr, dq) = max_difference(&a, &b, base.capacity.bps_f64());
        assert!(dr < rate_tol, "rates differ by {dr} C");
        assert!(dq < queue_tol, "queues differ by {dq} B");
    }
}

#[test]
fn identical_flows_give_the_same_trajectory_in_both_forms() {
    // Eq. (5)-(9) with N copies against Eq. (7)-(9) per flow plus Eq. (11).
    let p = DcqcnFluidParams {
        flows: 3,
        duration: Delta::from_ms(20),
        ..Default::default()
    };
    let (a, b) = (solve_identical(&p), solve_per_flow(&p));
    assert_eq!(a.copies, 3);
    for f in 0..3 {
        assert_eq!(a.rc[0], b.rc[f]);
    }
    assert_eq!(a.queue, b.queue);
}

#[test]
fn deployment_parameters_bring_two_flows_to_fairness() {
    // Fig. 11 setting: one flow at 40 Gbps, the other at 0, Fig. 14 parameters.
    let tr = solve(&DcqcnFluidParams::fig11_base());
    let diff: Vec<f64> = (0..tr.time.len())
        .map(|i| (tr.rc[0][i] - tr.rc[1][i]).abs())
        .collect();
    assert!(diff[tr.index_at(0.01)] > 10e9, "far apart at 10 ms");
    assert!(
        tr.mean_from(&diff, 0.15) < 0.1e9,
        "within 0.1 Gbps after 150 ms"
    );
}

#[test]
fn strawman_parameters_leave_two_flows_unfair() {
    // §5.2 / Fig. 11(a) innermost edge: QCN/DCTCP values do not converge.
    let tr = solve(&DcqcnFluidParams::strawman());
    let diff: Vec<f64> = (0..tr.time.len())
        .map(|i| (tr.rc[0][i] - tr.rc[1][i]).abs())
        .collect();
    assert!(
        tr.mean_from(&diff, 0.01) > 20e9,
        "mean difference after 10 ms"
    );
    assert!(tr.mean_from(&diff, 0.15) > 20e9, "and still at the end");
}

#[test]
fn feedback_terms_reach_their_limits_without_dividing_zero_by_zero() {
    let u = Units::new(&DcqcnFluidParams::default());
    let r = 1e6; // packets/s
    let fb = u.feedback(0.0, r);
    // p -> 0: one byte-counter expiry per B packets, one timer expiry per T.
    assert!(rel(fb.byte_events, r / u.b) < 1e-12);
    assert!(rel(fb.timer_events, 1.0 / u.t) < 1e-12);
    assert_eq!((fb.cut, fb.byte_ai, fb.timer_ai), (0.0, 1.0, 1.0));
    // Small p against the closed forms of Eq. (8)-(9).
    let p: f64 = 1e-5;
    let fb = u.feedback(p, r);
    let direct_b = r * p / ((1.0 - p).powf(-u.b) - 1.0);
    let direct_t = r * p / ((1.0 - p).powf(-u.t * r) - 1.0);
    assert!(rel(fb.byte_events, direct_b) < 1e-9);
    assert!(rel(fb.timer_events, direct_t) < 1e-9);
    assert!(rel(fb.cut, 1.0 - (1.0 - p).powf(u.tau * r)) < 1e-9);
    // A flow at rate 0 still sees its timer: R_C p/((1-p)^(-T R_C) - 1) -> p/(-T ln(1-p)).
    let fb = u.feedback(0.01, 0.0);
    assert!(rel(fb.timer_events, 0.01 / (-u.t * (0.99f64).ln())) < 1e-12);
    // Every packet marked: a CNP in every interval, no increase events.
    let fb = u.feedback(1.0, r);
    assert_eq!((fb.cut, fb.byte_events, fb.timer_events), (1.0, 0.0, 0.0));
}

#[test]
fn the_state_stays_in_its_domain() {
    let tr = solve(&DcqcnFluidParams {
        flows: 16,
        duration: Delta::from_ms(30),
        ..Default::default()
    });
    assert!(tr.queue.iter().all(|&q| q >= 0.0));
    assert!(tr.rc[0].iter().all(|&r| (0.0..=40e9).contains(&r)));
    assert!(tr.alpha[0].iter().all(|&a| (0.0..=1.0).contains(&a)));
}

#[test]
fn bad_parameters_name_the_field() {
    let e = DcqcnFluidParams {
        step: Delta::from_us(60),
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(e.location, "step");
    let e = DcqcnFluidParams {
        starts: vec![Delta::ZERO],
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(e.location, "starts");
    assert!(DcqcnFluidParams::strawman().validate().is_ok());
}
