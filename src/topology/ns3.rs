//! Readers for the HPCC ns-3 simulator's text files (alibaba-edu/High-Precision-
//! Congestion-Control, `mix/`), so its users bring experiments over unchanged.
//!
//! Topology file: `N_nodes N_switches N_links`, then the switch ids, then one link
//! per line `src dst rate delay error_rate` (e.g. `0 320 100Gbps 1000ns 0`). Like
//! ns-3 (which reads with `>>`), tokens may be spread over lines, and only the
//! declared number of links is read; anything after them is ignored.
//!
//! Flow files are read by [`crate::workload::ns3`], with the same [`Tokens`].

use super::{LinkSpec, NodeId, NodeKind, TopologySpec};
use crate::error::InputError;
use crate::limits;
use crate::units::{Delta, parse_delta, parse_rate};
use std::path::Path;

/// Whitespace tokens with the line they came from.
pub(crate) struct Tokens<'a> {
    file: &'a Path,
    toks: Vec<(usize, &'a str)>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(file: &'a Path, text: &'a str) -> Self {
        let toks = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
            .collect();
        Tokens { file, toks, pos: 0 }
    }
    pub(crate) fn err(&self, line: usize, msg: impl Into<String>) -> InputError {
        InputError::in_file(self.file, format!("line {line}"), msg)
    }
    pub(crate) fn next(&mut self, what: &str) -> Result<(usize, &'a str), InputError> {
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
    pub(crate) fn uint(&mut self, what: &str, max: u64) -> Result<(usize, u64), InputError> {
        self.bounded(what, max, |t| {
            format!("{what} {t} is out of range (valid: 0..={max})")
        })
    }
    /// A declared count, checked against its limit before anything is
    /// allocated for it.
    pub(crate) fn count(&mut self, what: &str, limit: u64) -> Result<(usize, u64), InputError> {
        self.bounded(what, limit, |t| limits::exceeds(what, t, limit))
    }
    /// A non-negative integer no larger than `max`; `too_big` words the error
    /// for a larger one from its text.
    pub(crate) fn bounded(
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
    pub(crate) fn float(&mut self, what: &str) -> Result<(&'a str, f64), InputError> {
        let (line, t) = self.next(what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok((t, v)),
            _ => Err(self.err(line, format!("{what} \"{t}\" is not a number"))),
        }
    }
    /// Tokens not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.toks.len() - self.pos
    }
    /// Whether the next token opens a line that reads as a link
    /// (`src dst rate delay error_rate`).
    pub(crate) fn at_link_line(&self) -> bool {
        let starts_line = self.pos == 0
            || self.toks.get(self.pos - 1).map(|t| t.0) != self.toks.get(self.pos).map(|t| t.0);
        starts_line && self.peek_line_len() == 5 && parse_rate(self.toks[self.pos + 2].1).is_ok()
    }
    /// The line of the next token (or of the last one at the end).
    pub(crate) fn peek_line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.0)
    }
    pub(crate) fn peek_line_len(&self) -> usize {
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

pub(crate) fn read(path: &Path) -> Result<String, InputError> {
    limits::read_text(path).map_err(|e| InputError::in_file(path, "", format!("cannot read: {e}")))
}

/// Reads a topology file in the HPCC ns-3 format.
pub fn read_topology(path: &Path) -> Result<TopologySpec, InputError> {
    let text = read(path)?;
    parse_topology(path, &text)
}

/// Parses a topology file as the ns-3 simulator reads it: a host with several
/// links has one NIC per link ([`split_multi_homed`]).
pub fn parse_topology(path: &Path, text: &str) -> Result<TopologySpec, InputError> {
    let mut spec = parse_topology_unchecked(path, text)?;
    let host = |v: NodeId| spec.kinds.get(v.idx()) == Some(&NodeKind::Host);
    if spec
        .links
        .iter()
        .any(|l| l.a == l.b || (host(l.a) && host(l.b)))
    {
        // The file's own error, before its hosts are split into NICs.
        spec.validate()
            .map_err(|m| InputError::in_file(path, "", m))?;
    }
    split_multi_homed(&mut spec);
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
        if kinds[id as usize] == NodeKind::Switch {
            return Err(t.err(
                line,
                format!(
                    "switch id {id} is listed twice; the header declares {n_switches} switches, \
                     so list {n_switches} distinct ids"
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
        ..Default::default()
    })
}

/// Gives every link of a multi-homed host after its first a NIC of its own, as
/// the ns-3 simulator gives such a host one NIC (net device) per link, in link
/// order: the host's node keeps its first link and stands for the server; each
/// further link goes to a new `Host` node appended after the file's nodes and
/// listed in [`TopologySpec::extra_nics`]. Node ids of the file are unchanged,
/// so flow files apply as they are. Returns the number of NICs added.
pub fn split_multi_homed(spec: &mut TopologySpec) -> usize {
    let mut seen = vec![false; spec.kinds.len()];
    let before = spec.kinds.len();
    for i in 0..spec.links.len() {
        for end in 0..2 {
            let l = &spec.links[i];
            let v = if end == 0 { l.a } else { l.b };
            if spec.kinds.get(v.idx()) != Some(&NodeKind::Host)
                || !std::mem::replace(&mut seen[v.idx()], true)
            {
                continue;
            }
            let nic = NodeId(spec.kinds.len() as u32);
            spec.kinds.push(NodeKind::Host);
            if !spec.names.is_empty() {
                let k = spec.extra_nics.iter().filter(|e| e.1 == v).count() + 1;
                spec.names.push(format!("{}.nic{k}", spec.names[v.idx()]));
            }
            spec.extra_nics.push((nic, v));
            let l = &mut spec.links[i];
            *(if end == 0 { &mut l.a } else { &mut l.b }) = nic;
        }
    }
    spec.kinds.len() - before
}

/// Keeps only the first link of every host that has several (multi-homed hosts,
/// e.g. `mix/ali_32host_10rack.txt`, where each server has two 25 Gbps uplinks to
/// a ToR pair), instead of a NIC per link ([`split_multi_homed`]): node ids stay
/// the same and flow files apply unchanged, but each server has one NIC's
/// capacity. Returns the number of links dropped.
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
/// A server with several NICs is one node there with one link per NIC: its
/// further NICs, the last nodes, are folded into it.
pub fn format_topology(spec: &TopologySpec) -> String {
    let nodes = spec.kinds.len() - spec.extra_nics.len();
    let server: std::collections::HashMap<NodeId, NodeId> =
        spec.extra_nics.iter().copied().collect();
    let file_id = |v: NodeId| server.get(&v).copied().unwrap_or(v);
    let switches: Vec<String> = (spec.kinds.iter().enumerate())
        .filter(|(_, k)| **k == NodeKind::Switch)
        .map(|(i, _)| i.to_string())
        .collect();
    let mut s = format!(
        "{} {} {}\n{}\n",
        nodes,
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
            file_id(l.a),
            file_id(l.b),
            l.rate,
            l.loss
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
    }

    #[test]
    fn a_switch_id_listed_twice_is_refused() {
        // Issue 42 item 8.
        let e = parse_topology(
            Path::new("t.txt"),
            "5 2 4\n3 3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.txt: line 2: switch id 3 is listed twice; the header declares 2 switches, so list 2 distinct ids"
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
        let mut spec = read_topology_unchecked(&path).unwrap();
        let e = spec.validate().unwrap_err();
        assert!(e.contains("host 0 has 2 links"), "{e}");
        assert_eq!(keep_first_host_link(&mut spec), 320);
        assert_eq!(spec.links.len(), 480);
        let t = Topology::build(spec).unwrap();
        assert_eq!(t.hosts.len(), 320);
        assert_eq!(t.host_port(NodeId(0)).peer, NodeId(320));
    }

    #[test]
    fn a_dual_homed_host_is_a_server_with_a_nic_per_link() {
        let path = data("mix/ali_32host_10rack.txt");
        let t = Topology::build(read_topology(&path).unwrap()).unwrap();
        // 320 servers, each with a second NIC numbered after the file's 348 nodes.
        assert_eq!(
            (t.hosts.len(), t.servers().len(), t.switches.len()),
            (640, 320, 28)
        );
        assert_eq!(t.spec.links.len(), 800, "every link kept");
        for s in t.servers() {
            let nics = t.nics(s);
            assert_eq!(nics.len(), 2);
            assert_eq!(nics[0], s);
            assert!(nics[1].0 >= 348);
            assert_eq!(t.server(nics[1]), s);
            // Rack r = s / 32 hangs off ToRs 320 + 2r (first link) and 321 + 2r.
            let r = s.0 / 32;
            let tors: Vec<u32> = nics.iter().map(|&n| t.host_port(n).peer.0).collect();
            assert_eq!(tors, [320 + 2 * r, 321 + 2 * r]);
            assert!(
                nics.iter()
                    .all(|&n| t.host_port(n).rate == Rate::from_gbps(25))
            );
        }
        // Within a rack both NICs reach a peer's NIC under the same ToR in 2 hops.
        assert_eq!(t.nic_distance(NodeId(0), NodeId(1)), Some(2));
        assert_eq!(t.nic_distance(NodeId(0), t.nics(NodeId(1))[1]), Some(4));
        assert_eq!(t.nic_distance(NodeId(0), NodeId(40)), Some(4));
    }

    #[test]
    fn a_servers_further_nics_must_be_the_last_nodes() {
        // Hosts 0, 1 and 3 on switch 2.
        let text = "4 1 3\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n3 2 10Gbps 1us 0\n";
        let mut spec = parse_topology(Path::new("t.txt"), text).unwrap();
        spec.extra_nics.push((NodeId(1), NodeId(0)));
        let e = spec.validate().unwrap_err();
        assert!(e.contains("comes before node 3"), "{e}");
        spec.extra_nics = vec![(NodeId(3), NodeId(0))];
        spec.validate().unwrap();
    }

    #[test]
    fn a_host_self_loop_is_reported_as_in_the_file() {
        let text = "3 1 3\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n1 1 10Gbps 1us 0\n";
        let e = parse_topology(Path::new("t.txt"), text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("connects a node to itself"), "{e}");
    }

    #[test]
    fn a_server_s_nics_are_written_back_as_one_node_with_several_links() {
        let path = data("mix/ali_32host_10rack.txt");
        let spec = read_topology(&path).unwrap();
        let text = format_topology(&spec);
        let mut again = parse_topology_unchecked(&path, &text).unwrap();
        assert_eq!(again.kinds.len(), 348);
        let file = parse_topology_unchecked(&path, &std::fs::read_to_string(&path).unwrap());
        assert_eq!(
            again.links,
            file.unwrap().links,
            "the file's links, in order"
        );
        split_multi_homed(&mut again);
        assert_eq!(again, spec);
    }
}
