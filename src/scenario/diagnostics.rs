//! `[diagnostics]`: PFC storms, deadlocks and victim flows (docs/models.md §PFC
//! diagnostics); results in pfc_ports.csv, pfc_diagnostics.json and summary.json.

use super::ctx::Ctx;
use crate::config::DiagConfig;
use crate::error::InputError;
use crate::switch::spray::LoadBalancing;
use crate::units::{Bytes, Delta};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DiagnosticsSection {
    storm_window: Option<Delta>,
    storm_fraction: Option<f64>,
    deadlock: Option<bool>,
    deadlock_confirm: Option<Delta>,
    congested_queue: Option<Bytes>,
    victims: Option<bool>,
}

/// The diagnostics' settings. Unless switches balance `lb` by ECMP, a flow
/// has no one path for victim tracking to follow (off by default, refused if
/// asked).
pub(super) fn resolve(
    d: &DiagnosticsSection,
    lb: LoadBalancing,
    cx: &Ctx,
) -> Result<DiagConfig, InputError> {
    let spray = !lb.one_path_per_flow();
    if spray && d.victims == Some(true) {
        return Err(cx.err(
            "diagnostics.victims",
            format!(
                "victim tracking follows each flow's one ECMP path, and with switch.load_balancing = \"{}\" a flow has none; omit it or set false",
                lb.name()
            ),
        ));
    }
    let def = DiagConfig::default();
    let c = DiagConfig {
        storm_window: d.storm_window.unwrap_or(def.storm_window),
        storm_fraction: d.storm_fraction.unwrap_or(def.storm_fraction),
        deadlock: d.deadlock.unwrap_or(def.deadlock),
        deadlock_confirm: d.deadlock_confirm.unwrap_or(def.deadlock_confirm),
        congested_queue: d.congested_queue.map_or(def.congested_queue, |b| b.0),
        victims: d.victims.unwrap_or(def.victims && !spray),
    };
    if c.storm_window.is_zero() {
        return Err(cx.err("diagnostics.storm_window", "must be > 0, e.g. \"1ms\""));
    }
    if !(c.storm_fraction > 0.0 && c.storm_fraction < 1.0) {
        return Err(cx.err(
            "diagnostics.storm_fraction",
            format!("{} must be in (0, 1), e.g. 0.5", c.storm_fraction),
        ));
    }
    if c.deadlock_confirm.is_zero() {
        return Err(cx.err("diagnostics.deadlock_confirm", "must be > 0, e.g. \"1ms\""));
    }
    Ok(c)
}
