use super::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random instance: 1-5 resources, 1-7 paths, each path a non-empty subset.
fn instance() -> impl Strategy<Value = (Network, Vec<f64>)> {
    (1usize..=5, 1usize..=7).prop_flat_map(|(i, j)| {
        (
            prop::collection::vec(1.0f64..100.0, i),
            prop::collection::vec(prop::collection::btree_set(0..i, 1..=i), j),
            prop::collection::vec(0.01f64..200.0, j),
        )
            .prop_map(|(capacities, sets, r0)| {
                let paths = sets.into_iter().map(|s| s.into_iter().collect()).collect();
                (Network { capacities, paths }, r0)
            })
    })
}

fn random_instance(rng: &mut ChaCha8Rng) -> (Network, Vec<f64>) {
    let (i, j) = (rng.random_range(1..=5), rng.random_range(1..=7));
    let capacities = (0..i).map(|_| rng.random_range(1.0..100.0)).collect();
    let paths = (0..j)
        .map(|_| {
            let mut p: Vec<usize> = (0..i).filter(|_| rng.random_bool(0.5)).collect();
            if p.is_empty() {
                p.push(rng.random_range(0..i));
            }
            p
        })
        .collect();
    let r0 = (0..j).map(|_| rng.random_range(0.01..200.0)).collect();
    (Network { capacities, paths }, r0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rates_are_feasible_after_one_step_and_never_fall_afterwards((net, r0) in instance()) {
        // Lemma (i) and (ii).
        let rep = check_lemma(&net, &r0, 3 * net.resources() + 5);
        prop_assert!(rep.feasible_after_one_step, "{rep:?}");
        prop_assert!(rep.non_decreasing, "{rep:?}");
    }

    #[test]
    fn the_recursion_tends_to_a_pareto_optimal_allocation((net, r0) in instance()) {
        // The limit the proof of (iii) describes; it may be approached, not reached.
        let rs = net.recursion(&r0, 20_000);
        prop_assert!(net.is_pareto_optimal(rs.last().unwrap(), 1e-6));
    }

    #[test]
    fn a_resource_that_starts_most_loaded_is_saturated_after_one_step((net, r0) in instance()) {
        // The proof's first step: k = argmax Y_i(0)/C_i has Y_k(1) = C_k, and the
        // paths through it never change again.
        let y0 = net.loads(&r0);
        let k = (0..net.resources())
            .max_by(|&a, &b| (y0[a] / net.capacities[a]).total_cmp(&(y0[b] / net.capacities[b])))
            .unwrap();
        let rs = net.recursion(&r0, 6);
        prop_assert!((net.loads(&rs[1])[k] - net.capacities[k]).abs() <= 1e-9 * net.capacities[k]);
        for (j, p) in net.paths.iter().enumerate() {
            if p.contains(&k) {
                for n in 2..rs.len() {
                    prop_assert!((rs[n][j] - rs[1][j]).abs() <= 1e-9 * rs[1][j]);
                }
            }
        }
    }
}

#[test]
fn lemma_iii_fails_when_a_frozen_path_shares_a_resource() {
    // Resource 0 carries paths a and c, resource 1 carries a and b; C = 1 each.
    // Step 1 saturates resource 0 and freezes a at 1/2; from then on
    // b(n+1) = b(n)/(1/2 + b(n)), which tends to 1/2 but never gets there.
    let net = Network {
        capacities: vec![1.0, 1.0],
        paths: vec![vec![0, 1], vec![1], vec![0]],
    };
    let r0 = [1.0, 0.1, 1.0];
    let rep = check_lemma(&net, &r0, 30);
    assert!(rep.feasible_after_one_step && rep.non_decreasing);
    assert!(!rep.constant_and_pareto_from_i, "{rep:?}");
    let rs = net.recursion(&r0, 30);
    assert!(!net.is_pareto_optimal(&rs[net.resources()], 1e-3));
    // Geometric approach with ratio 1/2 near the limit.
    let gap = |n: usize| 0.5 - rs[n][1];
    assert!((gap(21) / gap(20) - 0.5).abs() < 1e-3);
    assert!(net.is_pareto_optimal(&net.recursion(&r0, 60)[60], 1e-12));
}

#[test]
fn lemma_iii_holds_on_some_random_instances_and_not_on_others() {
    // A seeded survey of the claim "constant and Pareto optimal after I steps".
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut held, total) = (0, 1000);
    for _ in 0..total {
        let (net, r0) = random_instance(&mut rng);
        let rep = check_lemma(&net, &r0, 200);
        assert!(rep.feasible_after_one_step && rep.non_decreasing);
        held += rep.constant_and_pareto_from_i as usize;
    }
    assert!(
        held > total / 10 && held < total,
        "(iii) held on {held} of {total}"
    );
}

#[test]
fn a_single_bottleneck_converges_in_one_step() {
    // Incast: every path shares resource 0 (the receiver's link), which is also
    // the most loaded; one step reaches the target and nothing changes after.
    let net = Network {
        capacities: vec![100.0, 100.0, 100.0, 100.0],
        paths: vec![vec![1, 0], vec![2, 0], vec![3, 0]],
    };
    let rs = net.recursion(&[100.0, 100.0, 100.0], 4);
    assert_eq!(net.loads(&rs[1])[0], 100.0);
    assert!(rs[1].iter().all(|r| (r - 100.0 / 3.0).abs() < 1e-12));
    assert_eq!(rs[1], rs[4]);
}

#[test]
fn the_default_parking_lot_follows_the_lemma() {
    let p = HpccDiscreteParams::default();
    p.validate().unwrap();
    let rep = check_lemma(&p.network(), &p.initial_rates, p.steps);
    assert!(
        rep.feasible_after_one_step && rep.non_decreasing && rep.pareto_at_end,
        "{rep:?}"
    );
}

#[test]
fn the_incidence_matrix_has_one_column_per_path() {
    let net = HpccDiscreteParams::default().network();
    assert_eq!(
        net.incidence(),
        vec![
            vec![1, 1, 0, 0, 1],
            vec![1, 0, 1, 0, 1],
            vec![1, 0, 0, 1, 0]
        ]
    );
}

#[test]
fn additive_increase_settles_where_a3_says_on_one_link() {
    // N flows on one link: the sum settles at U_target C + N a, each flow at
    // U_target C/N + a, which is a/(1 - U_target/U) with U = U_target + N a/C.
    let net = Network {
        capacities: vec![100.0],
        paths: vec![vec![0]; 4],
    };
    let (ut, a) = (0.95, 0.05);
    let r = net.additive_increase(&[100.0, 50.0, 10.0, 1.0], ut, a, 100_000);
    let u = net.loads(&r)[0] / 100.0;
    assert!((u - (ut + 4.0 * a / 100.0)).abs() < 1e-9);
    for rj in &r {
        assert!((rj - a3_equilibrium_rate(a, ut, u)).abs() < 1e-6, "{r:?}");
        assert!((rj - (ut * 100.0 / 4.0 + a)).abs() < 1e-6);
    }
}

#[test]
fn additive_increase_equilibrium_matches_a3_on_random_networks() {
    // Each path's equilibrium rate is a/(1 - U_target/U) of its most congested
    // resource, and paths through more congested bottlenecks get less.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut checked = 0;
    for _ in 0..50 {
        let (net, r0) = random_instance(&mut rng);
        let (ut, a) = (0.95, 0.05);
        let r = net.additive_increase(&r0, ut, a, 50_000);
        let next = net.additive_increase(&r, ut, a, 1);
        if r.iter().zip(&next).any(|(x, y)| (x - y).abs() > 1e-9 * x) {
            continue; // not settled in 50k RTTs; counted below
        }
        checked += 1;
        let u = net.path_utilization(&net.loads(&r));
        for (rj, uj) in r.iter().zip(&u) {
            let eq = a3_equilibrium_rate(a, ut, *uj);
            assert!((rj - eq).abs() < 1e-6 * eq, "{rj} vs {eq}");
        }
        for x in 0..r.len() {
            for y in 0..r.len() {
                if u[x] > u[y] * (1.0 + 1e-9) {
                    assert!(r[x] < r[y], "more congested path gets less");
                }
            }
        }
    }
    assert!(checked >= 45, "only {checked} of 50 settled");
}
