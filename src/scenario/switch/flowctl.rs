//! `[switch.pfc]`'s flow-control scheme and pause style: standard PFC, P-PFC
//! (`[switch.pfc.ppfc]`, P-PFC §4, defaults from its Table 2) or CaPFC
//! (`[switch.pfc.capfc]`), X-OFF/X-ON or timed pauses.

use super::PfcSection;
use crate::error::InputError;
use crate::scenario::ctx::Ctx;
use crate::switch::flowctl::capfc::InputCounter;
use crate::switch::flowctl::ppfc::PauseTime;
use crate::switch::flowctl::{CapfcConfig, FlowControlConfig, PfcConfig, PpfcConfig, Scheme};
use crate::units::{Bytes, Delta};
use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum SchemeKind {
    Standard,
    Ppfc,
    Capfc,
}

/// `[switch.pfc.ppfc]` (P-PFC §4; defaults from its Table 2).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PpfcSection {
    interval: Option<Delta>,
    t: Option<Delta>,
    r: Option<f64>,
    kmax: Option<Bytes>,
    pause: Option<Delta>,
    pause_time: Option<PauseTimeKind>,
}

/// `switch.pfc.ppfc.pause_time`: the reading of Alg. 3's `Transmission_speed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum PauseTimeKind {
    OwnBytes,
    FifoShare,
}

/// `[switch.pfc.capfc]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapfcSection {
    warn: Option<Bytes>,
    input_threshold: Option<Bytes>,
    counter: Option<CounterKind>,
}

/// `switch.pfc.capfc.counter`: what CaPFC's per-input counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum CounterKind {
    Reserve,
    Total,
}

/// The flow-control scheme and pause style of every switch.
pub(super) fn resolve(
    p: &PfcSection,
    lossless: bool,
    resume_offset: u64,
    cx: &Ctx,
) -> Result<FlowControlConfig, InputError> {
    let pause_quanta = match p.pause_quanta {
        None => None,
        Some(q) if (1..=65535).contains(&q) => Some(q as u16),
        Some(q) => {
            return Err(cx.err(
                "switch.pfc.pause_quanta",
                format!("{q} quanta; valid: 1..65535 (a quantum is 512 bit times)"),
            ));
        }
    };
    let send_resume = p.resume.unwrap_or(true);
    if !send_resume && pause_quanta.is_none() {
        return Err(cx.err(
            "switch.pfc.resume",
            "false needs timed pauses (switch.pfc.pause_quanta), or paused classes would never resume",
        ));
    }
    let kind = p.scheme.unwrap_or(SchemeKind::Standard);
    if !lossless && kind != SchemeKind::Standard {
        return Err(cx.err(
            "switch.pfc.scheme",
            "P-PFC and CaPFC need PFC (switch.pfc.enabled = true)",
        ));
    }
    let scheme = match kind {
        SchemeKind::Standard => Scheme::Standard,
        SchemeKind::Ppfc => Scheme::Ppfc(ppfc(&p.ppfc, cx)?),
        SchemeKind::Capfc => Scheme::Capfc(capfc(&p.capfc, cx)?),
    };
    Ok(FlowControlConfig {
        enabled: lossless,
        pfc: PfcConfig {
            resume_offset,
            pause_quanta,
            send_resume,
        },
        scheme,
    })
}

fn ppfc(q: &PpfcSection, cx: &Ctx) -> Result<PpfcConfig, InputError> {
    let d = PpfcConfig::default();
    let c = PpfcConfig {
        interval: q.interval.unwrap_or(d.interval),
        t: q.t.unwrap_or(d.t),
        r: q.r.unwrap_or(d.r),
        kmax: q.kmax.map(|b| b.0),
        fixed_pause: q.pause,
        pause_time: match q.pause_time {
            None => d.pause_time,
            Some(PauseTimeKind::OwnBytes) => PauseTime::OwnBytes,
            Some(PauseTimeKind::FifoShare) => PauseTime::FifoShare,
        },
    };
    if q.pause.is_some() && q.pause_time.is_some() {
        return Err(cx.err(
            "switch.pfc.ppfc.pause_time",
            "give pause (a fixed pause time) or pause_time (how Alg. 3 computes it), \
             not both",
        ));
    }
    if c.fixed_pause.is_some_and(|d| d.is_zero()) {
        return Err(cx.err(
            "switch.pfc.ppfc.pause",
            "must be > 0, e.g. \"20us\" (omit it for the dynamic pause time)",
        ));
    }
    if c.interval.is_zero() {
        return Err(cx.err("switch.pfc.ppfc.interval", "must be > 0, e.g. \"1us\""));
    }
    if c.t.is_zero() {
        return Err(cx.err("switch.pfc.ppfc.t", "must be > 0, e.g. \"100us\""));
    }
    if !(c.r > 0.0 && c.r <= 1.0) {
        return Err(cx.err(
            "switch.pfc.ppfc.r",
            format!("{} must be in (0, 1], e.g. 0.8", c.r),
        ));
    }
    Ok(c)
}

fn capfc(q: &CapfcSection, cx: &Ctx) -> Result<CapfcConfig, InputError> {
    let d = CapfcConfig::default();
    let c = CapfcConfig {
        warn: q.warn.map_or(d.warn, |b| b.0),
        input_threshold: q.input_threshold.map_or(d.input_threshold, |b| b.0),
        counter: match q.counter {
            None => d.counter,
            Some(CounterKind::Reserve) => InputCounter::Reserve,
            Some(CounterKind::Total) => InputCounter::Total,
        },
    };
    for (f, v) in [("warn", c.warn), ("input_threshold", c.input_threshold)] {
        if v == 0 {
            return Err(cx.err(format!("switch.pfc.capfc.{f}"), "must be > 0 bytes"));
        }
    }
    Ok(c)
}
