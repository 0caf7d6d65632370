//! The ns-3 keys by the scenario section they become, one function per group,
//! called in the order of the scenario's sections (docs/ns3-compat.md has the
//! key-by-key mapping). Each appends its section's lines to the scenario text
//! and its warnings to the import's.

use super::CC_MODES;
use super::parser::{Entry, Parser};
use crate::error::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A KMIN/KMAX/PMAX map: its line and value by port rate (bit/s).
type RateMap = (usize, BTreeMap<u64, String>);

/// An import under way: the config's keys, the scenario so far and the warnings.
pub(super) struct Import<'a> {
    pub(super) p: Parser<'a>,
    pub(super) s: String,
    pub(super) warnings: Vec<String>,
}

impl Import<'_> {
    /// `stop`: SIMULATOR_STOP_TIME, after the first flow's start (`offset_s`,
    /// where our simulated time begins).
    pub(super) fn stop(&mut self, offset_s: u64) -> Result<(), InputError> {
        let p = &self.p;
        let offset_ns = offset_s * 1_000_000_000;
        let max_s = crate::limits::max_time_s();
        let Some(stop) = p.float("SIMULATOR_STOP_TIME", "a time in seconds, e.g. 4.00", |x| {
            (0.0..=max_s).contains(&x)
        })?
        else {
            return Ok(());
        };
        let ns = (stop * 1e9).round() as u64;
        if ns <= offset_ns {
            let e = p.get("SIMULATOR_STOP_TIME").expect("just read");
            return Err(p.err(
                e,
                "SIMULATOR_STOP_TIME",
                format!("{stop} s is not after the first flow's start ({offset_s} s)"),
            ));
        }
        writeln!(self.s, "stop = \"{}ns\"", ns - offset_ns).ok();
        Ok(())
    }

    /// `[switch]` and `[switch.ecn]`: the buffer, ECN on or off, the ECN maps.
    pub(super) fn switch(&mut self) -> Result<(), InputError> {
        let p = &self.p;
        writeln!(self.s, "\n[switch]").ok();
        let max_mib = 1e18 / (1024.0 * 1024.0);
        if let Some(mb) = p.float("BUFFER_SIZE", "a size in MiB > 0, e.g. 32", |x| {
            x > 0.0 && x <= max_mib
        })? {
            writeln!(self.s, "buffer = {}", (mb * 1024.0 * 1024.0).round() as u64).ok();
        }
        if p.flag("USE_DYNAMIC_PFC_THRESHOLD")? == Some(false) {
            let e = p.get("USE_DYNAMIC_PFC_THRESHOLD").expect("read");
            self.warnings.push(format!(
                "{}: line {}: USE_DYNAMIC_PFC_THRESHOLD 0 has no effect in ns-3 (its threshold is always dynamic), nor here",
                p.file, e.line
            ));
        }
        writeln!(self.s, "\n[switch.ecn]").ok();
        if let Some(on) = p.flag("ENABLE_QCN")? {
            writeln!(self.s, "enabled = {on}").ok();
        }
        self.ecn_maps()
    }

    /// `[[switch.ecn.per_rate]]` from KMIN_MAP, KMAX_MAP and PMAX_MAP.
    fn ecn_maps(&mut self) -> Result<(), InputError> {
        let p = &self.p;
        let (kmin, kmax, pmax) = (
            rate_map(p, "KMIN_MAP")?,
            rate_map(p, "KMAX_MAP")?,
            rate_map(p, "PMAX_MAP")?,
        );
        let (Some((_, kmin)), Some((_, kmax)), Some((_, pmax))) = (&kmin, &kmax, &pmax) else {
            let given = [
                ("KMIN_MAP", &kmin),
                ("KMAX_MAP", &kmax),
                ("PMAX_MAP", &pmax),
            ];
            return match given.into_iter().find(|(_, m)| m.is_some()) {
                None => Ok(()),
                Some((key, m)) => Err(InputError::new(
                    p.file,
                    format!("line {}: {key}", m.as_ref().expect("given").0),
                    "KMIN_MAP, KMAX_MAP and PMAX_MAP go together; give all three",
                )),
            };
        };
        for (&rate, lo) in kmin {
            let (Some(hi), Some(pm)) = (kmax.get(&rate), pmax.get(&rate)) else {
                let e = p.get("KMIN_MAP").expect("read");
                return Err(p.err(
                    e,
                    "KMIN_MAP",
                    format!("rate {rate} has no KMAX_MAP or PMAX_MAP entry; the three maps must list the same rates"),
                ));
            };
            // ns-3 multiplies kmin and kmax by 1000 (KB).
            let kb = |v: &str| (v.parse::<f64>().expect("checked") * 1000.0).round() as u64;
            writeln!(
                self.s,
                "[[switch.ecn.per_rate]]\nrate = \"{rate}bps\"\nkmin = {}\nkmax = {}\npmax = {pm}",
                kb(lo),
                kb(hi)
            )
            .ok();
        }
        if kmax.len() != kmin.len() || pmax.len() != kmin.len() {
            let e = p.get("KMAX_MAP").expect("read");
            return Err(p.err(
                e,
                "KMAX_MAP",
                "KMIN_MAP, KMAX_MAP and PMAX_MAP must list the same rates",
            ));
        }
        Ok(())
    }

    /// `[nic]`: the ns-3 ACK policy, the payload size, the L2_* keys, ACK_HIGH_PRIO.
    pub(super) fn nic(&mut self) -> Result<(), InputError> {
        let p = &self.p;
        writeln!(self.s, "\n[nic]\nack_policy = \"ns3\"").ok();
        let mtu_valid = "payload bytes per packet, 64..9000, e.g. 1000";
        if let Some(mtu) = p.num::<u32>("PACKET_PAYLOAD_SIZE", mtu_valid)? {
            if !(64..=9000).contains(&mtu) {
                let e = p.get("PACKET_PAYLOAD_SIZE").expect("read");
                return Err(p.err(
                    e,
                    "PACKET_PAYLOAD_SIZE",
                    format!("{mtu} is not valid; valid: {mtu_valid}"),
                ));
            }
            writeln!(self.s, "mtu = {mtu}").ok();
        }
        if let Some(v) = p.num::<u64>("L2_CHUNK_SIZE", "bytes (0 = none), e.g. 4000")? {
            writeln!(self.s, "ack_chunk = {v}").ok();
        }
        if let Some(v) = p.num::<u64>("L2_ACK_INTERVAL", "bytes >= 1, e.g. 1")? {
            if v == 0 {
                let e = p.get("L2_ACK_INTERVAL").expect("read");
                return Err(p.err(
                    e,
                    "L2_ACK_INTERVAL",
                    "0 makes ns-3 flows never finish; valid: bytes >= 1",
                ));
            }
            writeln!(self.s, "ack_interval_bytes = {v}").ok();
        }
        if let Some(v) = p.flag("L2_BACK_TO_ZERO")? {
            writeln!(self.s, "back_to_zero = {v}").ok();
        }
        if let Some(v) = p.flag("ACK_HIGH_PRIO")? {
            // hpcc-ns3-model.md §3-4: ACKs stay in the data class at switches either
            // way; the flag only chooses which PAUSE stops the hosts' ACK queue.
            let class = if v { "control" } else { "ack" };
            writeln!(self.s, "ack_pause_class = \"{class}\"").ok();
        }
        Ok(())
    }

    /// `[model]`: INT_MULTI.
    pub(super) fn model(&mut self) -> Result<(), InputError> {
        if let Some(m) = self.p.num::<u32>("INT_MULTI", "an integer >= 1, e.g. 1")? {
            writeln!(self.s, "\n[model]\nint_multi = {m}").ok();
        }
        Ok(())
    }

    /// `[cc]` and `[cc.ns3]`: CC_MODE and the algorithms' parameters.
    pub(super) fn cc(&mut self) -> Result<(), InputError> {
        let p = &self.p;
        let algo = cc_algorithm(p)?;
        writeln!(self.s, "\n[cc]\nalgorithm = \"{algo}\"\n\n[cc.ns3]").ok();
        for (key, field) in [
            ("RATE_AI", "rate_ai"),
            ("RATE_HAI", "rate_hai"),
            ("MIN_RATE", "min_rate"),
            ("DCTCP_RATE_AI", "dctcp_rate_ai"),
        ] {
            if let Some(bps) = p.rate(key)? {
                writeln!(self.s, "{field} = \"{bps}bps\"").ok();
            }
        }
        let unit = |x: f64| x > 0.0 && x <= 1.0;
        if let Some(g) = p.float("EWMA_GAIN", "a number in (0, 1], e.g. 0.00390625", unit)? {
            writeln!(self.s, "ewma_gain = {g:?}").ok();
        }
        for (key, field) in [
            ("ALPHA_RESUME_INTERVAL", "alpha_resume_interval"),
            ("RATE_DECREASE_INTERVAL", "rate_decrease_interval"),
            ("RP_TIMER", "rp_timer"),
        ] {
            if let Some(t) = p.micros(key)? {
                writeln!(self.s, "{field} = \"{t}\"").ok();
            }
        }
        if let Some(f) = p.num::<u32>("FAST_RECOVERY_TIMES", "an integer >= 0, e.g. 1")? {
            writeln!(self.s, "fast_recovery_times = {f}").ok();
        }
        if let Some(m) = p.num::<u32>("MI_THRESH", "an integer >= 0, e.g. 0")? {
            writeln!(self.s, "mi_thresh = {m}").ok();
        }
        if let Some(u) = p.float("U_TARGET", "a number in (0, 1], e.g. 0.95", unit)? {
            writeln!(self.s, "u_target = {u:?}").ok();
        }
        if algo == "hpcc-pint" {
            // Read only by HPCC-PINT, as third.cc reads them only with CC_MODE 10.
            if let Some(b) = p.float("PINT_LOG_BASE", "a number > 1, e.g. 1.01", |x| x > 1.0)? {
                writeln!(self.s, "pint_log_base = {b:?}").ok();
            }
            let in_unit = |x: f64| x > 0.0 && x <= 1.0;
            if let Some(x) = p.float("PINT_PROB", "a number in (0, 1], e.g. 1.0", in_unit)? {
                writeln!(self.s, "pint_prob = {x:?}").ok();
            }
        }
        for (key, field) in [
            ("CLAMP_TARGET_RATE", "clamp_target_rate"),
            ("HAS_WIN", "has_win"),
            ("GLOBAL_T", "global_t"),
            ("VAR_WIN", "var_win"),
            ("FAST_REACT", "fast_react"),
            ("MULTI_RATE", "multi_rate"),
            ("SAMPLE_FEEDBACK", "sample_feedback"),
            ("RATE_BOUND", "rate_bound"),
        ] {
            if let Some(v) = p.flag(key)? {
                writeln!(self.s, "{field} = {v}").ok();
            }
        }
        Ok(())
    }

    /// `[output]`: the ns-3 output files (named, not used as paths) and the
    /// qlen.txt window, shifted by `offset_ns` like the flows.
    pub(super) fn output(&mut self, offset_ns: u64) -> Result<(), InputError> {
        let p = &self.p;
        writeln!(self.s, "\n[output]").ok();
        let outputs = ["FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE", "QLEN_MON_FILE"];
        if outputs.iter().any(|k| p.get(k).is_some()) {
            writeln!(self.s, "fct_format = \"ns3\"").ok();
        }
        for key in outputs {
            if let Some(e) = p.get(key) {
                let name = match key {
                    "FCT_OUTPUT_FILE" => "fct.txt",
                    "PFC_OUTPUT_FILE" => "pfc.txt",
                    _ => "qlen.txt",
                };
                // A note in the scenario, not a warning: where the file goes
                // changes no result (issue 42 item 13).
                writeln!(
                    self.s,
                    "# {key} {} (line {}): not used as a path; rocesim writes {name} into the run directory (rocesim run --out DIR)",
                    e.values.join(" "),
                    e.line
                )
                .ok();
            }
        }
        let (start, end) = qlen_window(p)?;
        if p.get("QLEN_MON_FILE").is_some() {
            if let Some(t) = start {
                writeln!(
                    self.s,
                    "qlen_mon_start = \"{}ns\"",
                    t.saturating_sub(offset_ns)
                )
                .ok();
            }
            if let Some(t) = end {
                writeln!(
                    self.s,
                    "qlen_mon_end = \"{}ns\"",
                    t.saturating_sub(offset_ns)
                )
                .ok();
            }
        }
        Ok(())
    }

    /// Warnings for the keys without an equivalent, when they change a result
    /// or an output: a setting that is off (ENABLE_TRACE 0, LINK_DOWN 0 0 0,
    /// ERROR_RATE_PER_LINK 0) is the same here; TRACE_FILE and TRACE_OUTPUT_FILE
    /// matter only with ENABLE_TRACE 1; PINT_* only with CC_MODE 10, where they are read.
    pub(super) fn unmodelled(&mut self) {
        for (key, why) in [
            (
                "ENABLE_TRACE",
                "no packet-level trace (TRACE_OUTPUT_FILE) is written",
            ),
            (
                "LINK_DOWN",
                "links do not go down during a run: that link stays up, and what follows its \
                 failure in ns-3 differs here",
            ),
            (
                "ERROR_RATE_PER_LINK",
                "ignored as third.cc ignores it; each link's error rate comes from the topology file",
            ),
        ] {
            let is_zero = |v: &str| v.parse::<f64>().is_ok_and(|x| x == 0.0);
            if let Some(e) = self.p.get(key)
                && !e.values.is_empty()
                && !e.values.iter().all(|v| is_zero(v))
            {
                self.warnings.push(format!(
                    "{}: line {}: {key} {} is not modelled: {why}",
                    self.p.file,
                    e.line,
                    e.values.join(" ")
                ));
            }
        }
    }
}

/// A KMIN/KMAX/PMAX map (`N` then `N` pairs of port rate and value), if given.
fn rate_map(p: &Parser, key: &str) -> Result<Option<RateMap>, InputError> {
    let Some(e) = p.get(key) else { return Ok(None) };
    let valid = "N then N pairs of (port rate in bit/s, value), e.g. 3 25000000000 400 50000000000 800 100000000000 1600";
    let n: usize = e
        .values
        .first()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| p.err(e, key, format!("no count; valid: {valid}")))?;
    if n > (e.values.len() - 1) / 2 {
        return Err(p.err(
            e,
            key,
            format!(
                "{n} pairs announced, {} values given; valid: {valid}",
                e.values.len() - 1
            ),
        ));
    }
    let mut m = BTreeMap::new();
    for k in 0..n {
        let (r, v) = (&e.values[1 + 2 * k], &e.values[2 + 2 * k]);
        let rate: u64 = r.parse().map_err(|_| {
            p.err(
                e,
                key,
                format!("rate \"{r}\" is not an integer bit/s; valid: {valid}"),
            )
        })?;
        if v.parse::<f64>().map_or(true, |x| !x.is_finite() || x < 0.0) {
            return Err(p.err(
                e,
                key,
                format!("value \"{v}\" is not a number >= 0; valid: {valid}"),
            ));
        }
        m.insert(rate, v.clone());
    }
    Ok(Some((e.line, m)))
}

/// Our algorithm for CC_MODE (default 3, HPCC).
fn cc_algorithm(p: &Parser) -> Result<&'static str, InputError> {
    let Some((e, v)) = p.one("CC_MODE")? else {
        return Ok("hpcc-ns3");
    };
    let valid = CC_MODES
        .iter()
        .map(|(n, a)| format!("{n} ({a})"))
        .collect::<Vec<_>>()
        .join(", ");
    let n: Option<u32> = v.parse().ok();
    match CC_MODES.iter().find(|(m, _)| Some(*m) == n) {
        Some((_, a)) => Ok(a),
        None => Err(p.err(
            e,
            "CC_MODE",
            format!("\"{v}\" is not valid; valid: {valid}"),
        )),
    }
}

/// QLEN_MON_START and QLEN_MON_END (absolute ns), each within the time limit,
/// the end not before the start.
fn qlen_window(p: &Parser) -> Result<(Option<u64>, Option<u64>), InputError> {
    let mon = |key: &str| -> Result<Option<u64>, InputError> {
        let valid = "an absolute time in ns, e.g. 2000000000";
        match p.num::<u64>(key, valid)? {
            Some(t) if t > crate::limits::MAX_TIME_PS / 1000 => {
                let e = p.get(key).expect("read");
                Err(p.err(
                    e,
                    key,
                    format!(
                        "{t} ns is after the time limit of {:.0} s; valid: {valid}",
                        crate::limits::max_time_s()
                    ),
                ))
            }
            t => Ok(t),
        }
    };
    let (start, end) = (mon("QLEN_MON_START")?, mon("QLEN_MON_END")?);
    if let (Some(s), Some(t)) = (start, end)
        && t < s
    {
        let (es, ee): (&Entry, &Entry) = (
            p.get("QLEN_MON_START").expect("read"),
            p.get("QLEN_MON_END").expect("read"),
        );
        return Err(p.err(
            ee,
            "QLEN_MON_END",
            format!(
                "{} is before QLEN_MON_START {} (line {}); valid: an absolute time in ns not before it",
                ee.values.join(" "),
                es.values.join(" "),
                es.line
            ),
        ));
    }
    Ok((start, end))
}
