//! Readers for the HPCC ns-3 simulator's text files (alibaba-edu/High-Precision-
//! Congestion-Control, `mix/`), so its users bring experiments over unchanged.
//!
//! Topology file: `N_nodes N_switches N_links`, then the switch ids, then one link
//! per line `src dst rate delay error_rate` (e.g. `0 320 100Gbps 1000ns 0`). Like
//! ns-3 (which reads with `>>`), tokens may be spread over lines, and only the
//! declared number of links is read; anything after them is ignored.
//!
//! Flow file: `N`, then `src dst pg dport size start_seconds` per flow. A variant
//! with a leading flow-id column (7 columns) is accepted too.

use super::{LinkSpec, NodeId, NodeKind, TopologySpec};
use crate::error::InputError;
use crate::limits;
use crate::units::{Delta, SimTime, parse_delta, parse_rate};
use crate::workload::FlowSpec;
use std::path::Path;

/// Whitespace tokens with the line they came from.
struct Tokens<'a> {
    file: &'a Path,
    toks: Vec<(usize, &'a str)>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(file: &'a Path, text: &'a str) -> Self {
        let toks = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
            .collect();
        Tokens { file, toks, pos: 0 }
    }
    fn err(&self, line: usize, msg: impl Into<String>) -> InputError {
        InputError::in_file(self.file, format!("line {line}"), msg)
    }
    fn next(&mut self, what: &str) -> Result<(usize, &'a str), InputError> {
        match self.toks.get(self.pos) {
            Some(&t) => {
                self.pos += 1;
                Ok(t)
            }
            None => {
                let line = self.toks.last().map(|t| t.0).unwrap_or(1);
                Err(self.err(line, format!("file ends where {what} was expected")))
            }
        }
    }
    /// A non-negative integer no larger than `max`.
    fn uint(&mut self, what: &str, max: u64) -> Result<(usize, u64), InputError> {
        self.bounded(what, max, |t| {
            format!("{what} {t} is out of range (valid: 0..={max})")
        })
    }
    /// A declared count, checked against its limit before anything is
    /// allocated for it.
    fn count(&mut self, what: &str, limit: u64) -> Result<(usize, u64), InputError> {
        self.bounded(what, limit, |t| limits::exceeds(what, t, limit))
    }
    /// A non-negative integer no larger than `max`; `too_big` words the error
    /// for a larger one from its text.
    fn bounded(
        &mut self,
        what: &str,
        max: u64,
        too_big: impl FnOnce(&str) -> String,
    ) -> Result<(usize, u64), InputError> {
        let (line, t) = self.next(what)?;
        match parse_uint(t) {
            Some(v) if v <= max => Ok((line, v)),
            Some(_) => Err(self.err(line, too_big(t))),
            None => Err(self.err(
                line,
                format!("{what} \"{t}\" is not a valid non-negative integer"),
            )),
        }
    }
    /// A finite number, with its text as written.
    fn float(&mut self, what: &str) -> Result<(&'a str, f64), InputError> {
        let (line, t) = self.next(what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok((t, v)),
            _ => Err(self.err(line, format!("{what} \"{t}\" is not a number"))),
        }
    }
    /// Tokens not read yet.
    fn remaining(&self) -> usize {
        self.toks.len() - self.pos
    }
    /// Whether the next token opens a line that reads as a link
    /// (`src dst rate delay error_rate`).
    fn at_link_line(&self) -> bool {
        let starts_line = self.pos == 0
            || self.toks.get(self.pos - 1).map(|t| t.0) != self.toks.get(self.pos).map(|t| t.0);
        starts_line && self.peek_line_len() == 5 && parse_rate(self.toks[self.pos + 2].1).is_ok()
    }
    /// The line of the next token (or of the last one at the end).
    fn peek_line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.0)
    }
    fn peek_line_len(&self) -> usize {
        let Some(&(line, _)) = self.toks.get(self.pos) else {
            return 0;
        };
        self.toks[self.pos..]
            .iter()
            .take_while(|t| t.0 == line)
            .count()
    }
}

/// Digits only (an optional leading `+`): the value, saturated at `u64::MAX`.
fn parse_uint(t: &str) -> Option<u64> {
    let d = t.strip_prefix('+').unwrap_or(t);
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(d.parse::<u64>().unwrap_or(u64::MAX))
}

fn read(path: &Path) -> Result<String, InputError> {
    limits::read_text(path).map_err(|e| InputError::in_file(path, "", format!("cannot read: {e}")))
}

/// Reads a topology file in the HPCC ns-3 format.
pub fn read_topology(path: &Path) -> Result<TopologySpec, InputError> {
    let text = read(path)?;
    parse_topology(path, &text)
}

pub fn parse_topology(path: &Path, text: &str) -> Result<TopologySpec, InputError> {
    let spec = parse_topology_unchecked(path, text)?;
    spec.validate()
        .map_err(|m| InputError::in_file(path, "", m))?;
    Ok(spec)
}

/// Reads a topology file without the physical checks of [`TopologySpec::validate`]
/// (for callers that adjust it first, e.g. [`keep_first_host_link`]).
pub fn read_topology_unchecked(path: &Path) -> Result<TopologySpec, InputError> {
    let text = read(path)?;
    parse_topology_unchecked(path, &text)
}

fn parse_topology_unchecked(path: &Path, text: &str) -> Result<TopologySpec, InputError> {
    let mut t = Tokens::new(path, text);
    let (_, n_nodes) = t.count("the node count", limits::MAX_NODES)?;
    let (_, n_switches) = t.count("the switch count", limits::MAX_NODES)?;
    let (_, n_links) = t.count("the link count", limits::MAX_LINKS)?;
    if n_switches > n_nodes {
        return Err(t.err(1, format!("{n_switches} switches but only {n_nodes} nodes")));
    }
    // Both counts are within the limits: this allocation is bounded.
    let mut kinds = vec![NodeKind::Host; n_nodes as usize];
    let mut list_line = None;
    for k in 0..n_switches {
        if t.at_link_line() {
            let line = list_line.unwrap_or_else(|| t.peek_line());
            return Err(t.err(
                line,
                format!(
                    "the switch list is short: the header declares {n_switches} switches but {k} id(s) come before the first link (line {})",
                    t.peek_line()
                ),
            ));
        }
        let (line, id) = t.uint("a switch id", u32::MAX as u64)?;
        list_line.get_or_insert(line);
        if id >= n_nodes {
            return Err(t.err(
                line,
                format!(
                    "switch id {id} is out of range (valid: 0..{})",
                    n_nodes.saturating_sub(1)
                ),
            ));
        }
        kinds[id as usize] = NodeKind::Switch;
    }
    // Never reserve more than the text can hold (5 tokens a link).
    let mut links = Vec::with_capacity((n_links as usize).min(t.remaining() / 5));
    for _ in 0..n_links {
        let (line, a) = t.uint("a link's first node", u32::MAX as u64)?;
        let (_, b) = t.uint("a link's second node", u32::MAX as u64)?;
        let (_, rate_s) = t.next("a link rate")?;
        let rate = parse_rate(rate_s).map_err(|e| t.err(line, format!("link rate {e}")))?;
        let (_, delay_s) = t.next("a link delay")?;
        let delay: Delta =
            parse_delta(delay_s).map_err(|e| t.err(line, format!("link delay {e}")))?;
        let (loss_text, loss) = t.float("a link error rate")?;
        for id in [a, b] {
            if id >= n_nodes {
                return Err(t.err(
                    line,
                    format!(
                        "node {id} is out of range (valid: 0..{})",
                        n_nodes.saturating_sub(1)
                    ),
                ));
            }
        }
        if rate.bps() == 0 {
            return Err(t.err(line, "link rate must be > 0, e.g. 100Gbps"));
        }
        if !(0.0..1.0).contains(&loss) {
            return Err(t.err(line, format!("error rate {loss_text} must be in [0, 1)")));
        }
        links.push(LinkSpec {
            a: NodeId(a as u32),
            b: NodeId(b as u32),
            rate,
            delay,
            loss,
        });
    }
    Ok(TopologySpec {
        kinds,
        links,
        names: Vec::new(),
    })
}

/// Reads a flow file in the HPCC ns-3 format (with or without a flow-id column).
pub fn read_flows(path: &Path) -> Result<Vec<FlowSpec>, InputError> {
    let text = read(path)?;
    parse_flows(path, &text)
}

pub fn parse_flows(path: &Path, text: &str) -> Result<Vec<FlowSpec>, InputError> {
    let mut t = Tokens::new(path, text);
    let (_, n) = t.count("the flow count", limits::MAX_FLOWS)?;
    // Never reserve more than the text can hold (6 tokens a flow).
    let mut flows = Vec::with_capacity((n as usize).min(t.remaining() / 6));
    let max_s = limits::max_time_s();
    for k in 0..n {
        // One flow per line: a short line is reported as itself, not as the next.
        match t.peek_line_len() {
            0 => {
                return Err(t.err(
                    t.peek_line(),
                    format!("file ends after {k} flows; line 1 declares {n}"),
                ));
            }
            6 => {}
            7 => {
                t.uint("a flow id", u64::MAX)?;
            }
            cols => {
                return Err(t.err(
                    t.peek_line(),
                    format!(
                        "{cols} columns; a flow line is \"src dst pg dport size start_s\" (6 columns, or 7 with a leading flow id)"
                    ),
                ));
            }
        }
        let (line, src) = t.uint("a flow's source", u32::MAX as u64)?;
        let (_, dst) = t.uint("a flow's destination", u32::MAX as u64)?;
        let (_, pg) = t.uint("a flow's priority group", 7)?;
        let (_, dport) = t.uint("a flow's destination port", u16::MAX as u64)?;
        let (_, size) = t.uint("a flow's size", u64::MAX)?;
        let (text, start) = t.float("a flow's start time")?;
        if start < 0.0 {
            return Err(t.err(line, format!("start time {text} s is negative")));
        }
        if start > max_s {
            return Err(t.err(
                line,
                format!(
                    "start time {text} s is out of range (valid: 0 to {max_s:.0} s; docs/scenario.md, Limits)"
                ),
            ));
        }
        flows.push(FlowSpec {
            src: NodeId(src as u32),
            dst: NodeId(dst as u32),
            size,
            start: SimTime(ns3_seconds_to_ps(start).min(limits::MAX_TIME_PS)),
            class: pg as u8,
            dport: dport as u16,
        });
    }
    Ok(flows)
}

/// A flow file's start time as the ns-3 simulator reads it: `Seconds(double)`
/// takes the double's exact value into 64.64 fixed point, multiplies it by 1e9
/// and keeps the integer part, so the start is truncated to a whole ns
/// (anchor-reference README: `2.000003424`, stored as 2.00000342399999990..., starts
/// at 2000003423 ns). Returned in ps.
pub fn ns3_seconds_to_ps(s: f64) -> u64 {
    const PS_PER_NS: u64 = 1_000;
    if s.is_nan() || s <= 0.0 {
        return 0;
    }
    let bits = s.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    // s = m x 2^e exactly.
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let scaled = m as u128 * 1_000_000_000u128;
    let ns = if e < 0 {
        if -e >= 128 { 0 } else { scaled >> (-e) }
    } else {
        scaled.checked_shl(e as u32).unwrap_or(u128::MAX)
    };
    u64::try_from(ns)
        .ok()
        .and_then(|ns| ns.checked_mul(PS_PER_NS))
        .unwrap_or(u64::MAX)
}

/// Writes flows in the ns-3 flow-file format (`src dst pg dport size start_s`).
/// A start is written at the middle of its ns (`2.0000034245`), so that ns-3's
/// truncation (and [`ns3_seconds_to_ps`]) reads back that whole ns whatever the
/// binary rounding of the decimal; a sub-ns part of the start is dropped.
pub fn format_flows(flows: &[FlowSpec]) -> String {
    const NS_PER_S: u64 = 1_000_000_000;
    let mut s = format!("{}\n", flows.len());
    for f in flows {
        let ns = f.start.ps() / 1_000;
        s.push_str(&format!(
            "{} {} {} {} {} {}.{:09}5\n",
            f.src,
            f.dst,
            f.class,
            f.dport,
            f.size,
            ns / NS_PER_S,
            ns % NS_PER_S
        ));
    }
    s
}

/// Keeps only the first link of every host that has several (multi-homed hosts,
/// e.g. `mix/ali_32host_10rack.txt`, where each server has two 25 Gbps uplinks to
/// a ToR pair). A host here has one NIC port, so this is the simplification that
/// lets such files run: node ids stay the same and flow files apply unchanged,
/// but each host has one NIC's capacity. Returns the number of links dropped.
pub fn keep_first_host_link(spec: &mut TopologySpec) -> usize {
    let mut seen = vec![false; spec.kinds.len()];
    let before = spec.links.len();
    let kinds = &spec.kinds;
    spec.links.retain(|l| {
        let mut keep = true;
        for end in [l.a, l.b] {
            if kinds.get(end.idx()) == Some(&NodeKind::Host)
                && std::mem::replace(&mut seen[end.idx()], true)
            {
                keep = false;
            }
        }
        keep
    });
    before - spec.links.len()
}

/// Writes a topology in the HPCC ns-3 format: the header, the switch ids, then
/// `a b rate delay error_rate` per link, like `mix/fat.txt` (delay in ns, or ps
/// when not whole; error rate with 6 decimals), so generated fabrics run in ns-3.
pub fn format_topology(spec: &TopologySpec) -> String {
    let switches: Vec<String> = spec
        .kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| **k == NodeKind::Switch)
        .map(|(i, _)| i.to_string())
        .collect();
    let mut s = format!(
        "{} {} {}\n{}\n",
        spec.kinds.len(),
        switches.len(),
        spec.links.len(),
        switches.join(" ")
    );
    for l in &spec.links {
        let ps = l.delay.ps();
        let delay = if ps.is_multiple_of(1000) {
            format!("{}ns", ps / 1000)
        } else {
            format!("{ps}ps")
        };
        s.push_str(&format!(
            "{} {} {} {delay} {:.6}\n",
            l.a, l.b, l.rate, l.loss
        ));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::units::Rate;

    fn data(p: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/hpcc-ns3")
            .join(p)
    }

    #[test]
    fn the_shipped_fat_tree_loads_as_is() {
        let spec = read_topology(&data("mix/fat.txt")).unwrap();
        assert_eq!(spec.kinds.len(), 376);
        assert_eq!(spec.num_hosts(), 320);
        assert_eq!(spec.links.len(), 480);
        let t = Topology::build(spec).unwrap();
        assert_eq!(t.switches.len(), 56);
    }

    #[test]
    fn the_example_star_reads_only_the_declared_links() {
        let spec = read_topology(&data("mix/topology.txt")).unwrap();
        assert_eq!(spec.links.len(), 65);
        assert_eq!(spec.links[0].delay, Delta::from_us(1));
        assert_eq!(spec.links[0].rate, Rate::from_gbps(100));
    }

    #[test]
    fn flow_files_load_and_respect_the_declared_count() {
        let flows = read_flows(&data("mix/flow.txt")).unwrap();
        assert_eq!(flows.len(), 2);
        assert_eq!(flows[0].size, 200_000_000);
        assert_eq!(flows[0].start, SimTime(2 * crate::units::PS_PER_S));
        let flows = read_flows(&data(
            "generated/scenarios/fat_fbhdp_l30_100G_1ms_seed1.txt",
        ))
        .unwrap();
        assert_eq!(flows.len(), 9547);
        assert_eq!(flows[0].start, SimTime(2_000_000_067_000));
    }

    #[test]
    fn flow_starts_are_truncated_to_whole_ns_as_ns3_reads_them() {
        // 2.000003424 is stored just below its decimal value: ns-3 starts it at
        // 2000003423 ns; 2.000003425 is stored just above and starts at ...425.
        assert_eq!(ns3_seconds_to_ps(2.000003424), 2_000_003_423_000);
        assert_eq!(ns3_seconds_to_ps(2.000003425), 2_000_003_425_000);
        assert_eq!(ns3_seconds_to_ps(2.0), 2_000_000_000_000);
        assert_eq!(ns3_seconds_to_ps(0.0), 0);
        assert_eq!(ns3_seconds_to_ps(1e300), u64::MAX);
    }

    #[test]
    fn the_flow_id_column_variant_is_accepted() {
        let f = parse_flows(
            Path::new("f.txt"),
            "2\n7 1 0 3 100 5000 0.5\n8 2 0 3 100 6000 0.6\n",
        )
        .unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[1].size, 6000);
        assert_eq!(f[1].src, NodeId(2));
    }

    #[test]
    fn bad_lines_are_reported_with_their_line_number() {
        let e = parse_topology(
            Path::new("t.txt"),
            "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 fast 1us 0\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string().split(':').take(2).collect::<Vec<_>>(),
            ["t.txt", " line 4"]
        );
        let e = parse_flows(Path::new("f.txt"), "2\n1 0 3 100 5000 0.5\n").unwrap_err();
        assert!(e.to_string().contains("file ends"), "{e}");
    }

    #[test]
    fn declared_counts_beyond_the_limits_are_refused_before_allocating() {
        let t = Path::new("t.txt");
        let e = parse_topology(t, "4294967295 1 3\n3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.txt: line 1: the node count 4294967295 exceeds the limit 1000000 (docs/scenario.md, Limits)"
        );
        let e = parse_topology(t, "4 1 4000000000\n3\n0 3 100Gbps 1us 0\n").unwrap_err();
        assert!(
            e.to_string().contains("link count 4000000000 exceeds"),
            "{e}"
        );
        let e = parse_flows(Path::new("f.txt"), "99999999999999999999999\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("flow count 99999999999999999999999 exceeds the limit 20000000"),
            "{e}"
        );
    }

    #[test]
    fn a_short_switch_list_is_reported_at_its_line() {
        let e = parse_topology(
            Path::new("t.txt"),
            "5 2 4\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.txt: line 2: the switch list is short"),
            "{e}"
        );
        // Ids spread over lines are still fine.
        let spec = parse_topology(
            Path::new("t.txt"),
            "5 2 4\n3\n4\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
        )
        .unwrap();
        assert_eq!(spec.num_switches(), 2);
    }

    #[test]
    fn a_flow_line_with_a_missing_column_or_a_late_start_names_itself() {
        let f = Path::new("f.txt");
        let e = parse_flows(f, "2\n1 0 3 100 5000\n2 0 3 100 6000 0.6\n").unwrap_err();
        assert!(e.to_string().starts_with("f.txt: line 2: 5 columns"), "{e}");
        let e = parse_flows(f, "1\n1 0 3 100 5000 1e300\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.txt: line 2: start time 1e300 s is out of range"),
            "{e}"
        );
        let e = parse_flows(f, "1\n1 0 9 100 5000 0\n").unwrap_err();
        assert!(
            e.to_string().contains("priority group 9 is out of range"),
            "{e}"
        );
    }

    #[test]
    fn the_generated_hpcc_fabric_writes_out_as_the_shipped_file_byte_for_byte() {
        let text = format_topology(&crate::topology::fat_tree::hpcc_fat_tree_default());
        let file = std::fs::read_to_string(data("mix/fat.txt")).unwrap();
        assert_eq!(text, file);
        let mut spec = parse_topology(Path::new("x"), &text).unwrap();
        spec.links[3].loss = 0.25;
        spec.links[4].delay = Delta(1500);
        let again = parse_topology(Path::new("x"), &format_topology(&spec)).unwrap();
        assert_eq!(again, spec);
    }

    #[test]
    fn dual_homed_hosts_keep_their_first_link_when_asked() {
        let path = data("mix/ali_32host_10rack.txt");
        let e = read_topology(&path).unwrap_err().to_string();
        assert!(e.contains("host 0 has 2 links"), "{e}");
        let mut spec = read_topology_unchecked(&path).unwrap();
        assert_eq!(keep_first_host_link(&mut spec), 320);
        assert_eq!(spec.links.len(), 480);
        let t = Topology::build(spec).unwrap();
        assert_eq!(t.hosts.len(), 320);
        assert_eq!(t.host_port(NodeId(0)).peer, NodeId(320));
    }

    #[test]
    fn flows_round_trip_through_the_ns3_format() {
        let flows = read_flows(&data("generated/scenarios/incast16_flow_1MB.txt")).unwrap();
        let again = parse_flows(Path::new("x"), &format_flows(&flows)).unwrap();
        assert_eq!(flows, again);
    }
}
