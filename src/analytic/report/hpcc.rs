//! Report of HPCC's discrete-time models (HPCC Appendix A.2, A.3).

use super::{line, write_csv};
use crate::analytic::hpcc_discrete::{self, HpccDiscreteParams};
use crate::error::Error;
use crate::plot::{AxisSpec, Series, write_figure};
use std::fmt::Write as _;
use std::path::Path;

/// Runs the A.2 recursion, checks the Lemma and iterates A.3; writes
/// recursion.csv, a3-equilibrium.csv and the figures; returns the summary lines.
pub fn run(p: &HpccDiscreteParams, out: &Path) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    let net = p.network();
    let rs = net.recursion(&p.initial_rates, p.steps);
    let (j, i) = (net.paths.len(), net.resources());
    let mut csv = String::from("step");
    for f in 0..j {
        write!(csv, ",rate{f}").unwrap();
    }
    for r in 0..i {
        write!(csv, ",util{r}").unwrap();
    }
    csv.push('\n');
    let (mut rate_s, mut util_s) = (vec![Vec::new(); j], vec![Vec::new(); i]);
    for (n, r) in rs.iter().enumerate() {
        write!(csv, "{n}").unwrap();
        for (f, v) in r.iter().enumerate() {
            write!(csv, ",{v:.9}").unwrap();
            rate_s[f].push((n as f64, *v));
        }
        for (k, y) in net.loads(r).iter().enumerate() {
            let u = y / net.capacities[k];
            write!(csv, ",{u:.9}").unwrap();
            util_s[k].push((n as f64, u));
        }
        csv.push('\n');
    }
    write_csv(out, "recursion.csv", &csv)?;
    let steps = AxisSpec::linear("step n (RTTs)");
    let rates = rate_s
        .into_iter()
        .enumerate()
        .map(|(f, s)| Series::line(format!("path {f}"), s))
        .collect();
    write_figure(
        out,
        "recursion-rates",
        &line(
            "HPCC A.2 recursion: rates",
            steps.clone(),
            AxisSpec::linear("rate (Gbps)"),
            rates,
        ),
    )?;
    let utils = util_s
        .into_iter()
        .enumerate()
        .map(|(k, s)| Series::line(format!("resource {k}"), s))
        .collect();
    write_figure(
        out,
        "recursion-utilization",
        &line(
            "HPCC A.2 recursion: Y_i/C_i",
            steps,
            AxisSpec::linear("utilization"),
            utils,
        ),
    )?;
    let rep = hpcc_discrete::check_lemma(&net, &p.initial_rates, p.steps.max(200));
    let r3 = net.additive_increase(&p.initial_rates, p.u_target, p.additive, p.a3_steps);
    let u3 = net.path_utilization(&net.loads(&r3));
    let mut a3 = String::from("path,rate,path_utilization,a_over_1_minus_ut_over_u\n");
    for f in 0..j {
        let eq = hpcc_discrete::a3_equilibrium_rate(p.additive, p.u_target, u3[f]);
        writeln!(a3, "{f},{:.9},{:.9},{:.9}", r3[f], u3[f], eq).unwrap();
    }
    write_csv(out, "a3-equilibrium.csv", &a3)?;
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    lines.push(format!(
        "hpcc-discrete: results in {} ({i} resources, {j} paths)",
        out.display()
    ));
    lines.push(format!(
        "  R(1) = [{}], feasible after one step: {}",
        fmt(&rs[1.min(rs.len() - 1)]),
        rep.feasible_after_one_step
    ));
    lines.push(format!(
        "  non-decreasing from step 1: {}",
        rep.non_decreasing
    ));
    lines.push(format!(
        "  constant from step {} (I = {i}); constant and Pareto optimal by step I: {}; Pareto optimal at step {}: {}",
        rep.constant_from.map_or("-".into(), |n| n.to_string()),
        rep.constant_and_pareto_from_i,
        rep.steps,
        rep.pareto_at_end
    ));
    lines.push(format!(
        "  A.3 after {} RTTs (U_target {}, a {}): R = [{}]",
        p.a3_steps,
        p.u_target,
        p.additive,
        fmt(&r3)
    ));
    let formula: Vec<f64> = u3
        .iter()
        .map(|&u| hpcc_discrete::a3_equilibrium_rate(p.additive, p.u_target, u))
        .collect();
    lines.push(format!("    a/(1 - U_target/U) = [{}]", fmt(&formula)));
    Ok(lines)
}
