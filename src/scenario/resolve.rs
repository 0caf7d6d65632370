//! Validation of a parsed scenario into a [`RunConfig`] (src/config/mod.rs): each
//! section's resolver (its own file) in the order their values depend on each
//! other, and the file's own keys (`name`, `stop`, `[run]`). Every impossible
//! value is rejected with the field's path.

use super::ctx::Ctx;
use super::load::Loaded;
use super::{RunSection, cc, diagnostics, model, nic, output, switch, topology, workload};
use crate::config::RunConfig;
use crate::error::InputError;
use crate::profile::EcmpHash;
use crate::units::{Delta, SimTime};

/// Validates `loaded` into a [`RunConfig`].
pub(super) fn resolve(loaded: &Loaded) -> Result<RunConfig, InputError> {
    let f = &loaded.file;
    let cx = Ctx {
        source: &loaded.source,
    };
    if let Some(name) = &f.name {
        check_name(name).map_err(|msg| cx.err("name", msg))?;
    }
    let mut topo = topology::build_topology(&f.topology, &loaded.base_dir, &cx)?;
    let mut cc = cc::resolve(&f.cc, &cx)?;
    if let crate::cc::CcKind::Homa(plan) = &mut cc {
        // Homa's overcommitment, unless given, follows the workload.
        plan.fit_workload(&f.workload.cdf_names());
    }
    let mut model = model::resolve(&f.packet, &f.model, f.profile, &cc, &cx)?;
    model.cnp = nic::cnp_mode(&f.nic, model.cnp);
    if model.ecmp_hash == EcmpHash::Ns3Murmur {
        // ns-3 lists equal-cost next hops in its BFS discovery order.
        topo.use_ns3_route_order();
    }
    // After the next-hop order: recomputing the routes would drop static ones.
    f.switch.apply_routes(&mut topo, &cx)?;
    let int_on = f.switch.int_on(&cc);
    let scheduling = f.switch.scheduling(&cc);
    let timeout_off = !cc.default_rto();
    let nic = nic::resolve(&f.nic, f.profile, f.switch.lossless(), timeout_off, &cx)?;
    cc::check_expresspass(&cc, &topo, &model, &nic, f.seed, &cx)?;
    let mtu_wire = model.sizes.data_wire(nic.mtu, int_on) as u64;
    let (mmu, flowctl) = switch::resolve_pfc(&f.switch, &topo, mtu_wire, model.mmu, &cx)?;
    let load_balancing = f.switch.load_balancing(&cc, &nic.loss_recovery, &cx)?;
    let diag = diagnostics::resolve(&f.diagnostics, load_balancing, &cx)?;
    let ecn = switch::resolve_ecn(&f.switch, &cc, &cx)?;
    let payload_fraction = nic.mtu as f64 / mtu_wire as f64;
    let (mut flows, programs) = workload::resolve(
        &f.workload,
        &topo,
        &loaded.base_dir,
        f.seed,
        payload_fraction,
        &cx,
    )?;
    let nic_rules = nic::rules(&f.nic, f.profile);
    crate::config::nics::place(
        &mut flows,
        &topo,
        nic_rules,
        model.ecmp_hash,
        f.seed,
        programs.as_ref(),
    );
    let offset = f.workload.ns3_time_offset();
    let output = output::resolve(&f.output, offset, &topo, flows.len(), &cx)?;
    let stop = check_stop(f.stop, &cx)?;
    let threads = threads(&f.run, &cx)?;
    let partitions = partitions(&f.run, &cx)?;
    Ok(RunConfig {
        name: f.name.clone().unwrap_or_else(|| loaded.stem.clone()),
        threads,
        partitions,
        balance: f.run.balance,
        source: loaded.source.clone(),
        seed: f.seed,
        stop,
        topo,
        model,
        mmu,
        flowctl,
        diag,
        ecn,
        scheduling,
        int_on,
        load_balancing,
        nic,
        nic_rules,
        cc,
        flows,
        programs: programs.map(std::sync::Arc::new),
        output,
        scenario_text: loaded.text.clone(),
    })
}

/// A scenario `name` names the run directory (`runs/<name>`): one non-empty
/// path component, so that a run never writes outside `runs/` or into it.
fn check_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.chars().any(char::is_control)
        || name.trim() != name;
    if bad {
        return Err(format!(
            "{name:?} is not a valid run name (valid: a non-empty file name without '/', '\\', \
             control characters such as a newline, or surrounding spaces, not \".\" or \"..\", \
             e.g. \"incast-hpcc\")"
        ));
    }
    Ok(())
}

/// The simulated-time limit: omitted, or > 0.
fn check_stop(stop: Option<Delta>, cx: &Ctx) -> Result<Option<SimTime>, InputError> {
    match stop {
        Some(stop) if stop.is_zero() => Err(cx.err(
            "stop",
            "must be > 0, e.g. \"10ms\" (or omit it to run until all flows finish)",
        )),
        stop => Ok(stop.map(|d| SimTime(d.ps()))),
    }
}

/// `[run]`'s thread count: 1 unless given, at most [`crate::limits::MAX_THREADS`].
fn threads(run: &RunSection, cx: &Ctx) -> Result<usize, InputError> {
    let threads = run.threads.unwrap_or(1);
    count_in_range(threads, "run.threads", "thread", "", cx)
}

/// `[run]`'s partition count, if given: 1 to [`crate::limits::MAX_THREADS`].
fn partitions(run: &RunSection, cx: &Ctx) -> Result<Option<usize>, InputError> {
    let hint = " (at least run.threads; or omit it for one a thread)";
    run.partitions
        .map(|p| count_in_range(p, "run.partitions", "partition", hint, cx))
        .transpose()
}

/// `n` if it is 1 to [`crate::limits::MAX_THREADS`], else an error naming
/// `field`, a count of `what`s.
fn count_in_range(
    n: usize,
    field: &str,
    what: &str,
    hint: &str,
    cx: &Ctx,
) -> Result<usize, InputError> {
    let max = crate::limits::MAX_THREADS;
    if (1..=max).contains(&n) {
        return Ok(n);
    }
    Err(cx.err(
        field,
        format!("{n} is not a {what} count; give 1 to {max}{hint}"),
    ))
}
