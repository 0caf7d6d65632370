//! The HPCC ns-3 simulator's output files, written beside ours with
//! `output.fct_format = "ns3"` (docs/ns3-compat.md), so its analysis scripts
//! (fct_analysis.py and the like) read our runs unchanged.
//!
//! * `fct.txt`, one line per completed flow (third.cc `qp_finish`):
//!   `sip dip sport dport size start_ns fct_ns standalone_ns`, IPs as `%08x` of
//!   `11.(id/256).(id%256).1`, times in whole ns (hpcc-ns3-model.md §9-§10).
//! * `pfc.txt`, one line per PAUSE or RESUME received (third.cc `get_pfc`):
//!   `time_ns node node_type if_index type`, node type 1 for switches, 0 for
//!   hosts, interface index = our port + 1 (ns-3's device 0 is the loopback),
//!   type 1 = pause, 0 = resume (§4).
//! * `qlen.txt` (third.cc `monitor_buffer`), a sampled recorder:
//!   [`super::observers::ns3_qlen`].
//!
//! Times are absolute ns-3 times: our simulated time plus
//! `workload.ns3_time_offset`.

use super::{AtomicFile, FctRecord, PfcKind};
use crate::error::Error;
use crate::topology::NodeId;
use crate::units::SimTime;
use std::io::Write;
use std::path::Path;

/// The IPv4 address ns-3 gives node `id`: 11.(id/256).(id%256).1.
pub fn node_ip(id: u32) -> u32 {
    0x0b00_0001 | ((id / 256) & 0xff) << 16 | (id % 256) << 8
}

/// The node id of an address made by [`node_ip`].
pub fn ip_node(ip: u32) -> u32 {
    ((ip >> 16) & 0xff) * 256 + ((ip >> 8) & 0xff)
}

/// One line of fct.txt.
pub fn fct_line(r: &FctRecord, offset_ps: u64) -> String {
    format!(
        "{:08x} {:08x} {} {} {} {} {} {}",
        node_ip(r.src),
        node_ip(r.dst),
        r.sport,
        r.dport,
        r.size,
        (r.start.ps() + offset_ps) / 1000,
        r.fct.ps() / 1000,
        r.ideal.ps() / 1000
    )
}

/// A parsed fct.txt line: (src, dst, sport, dport, size, start_ns, fct_ns, standalone_ns).
pub type Ns3FctLine = (u32, u32, u16, u16, u64, u64, u64, u64);

/// Parses one fct.txt line (the inverse of [`fct_line`]).
pub fn parse_fct_line(line: &str) -> Option<Ns3FctLine> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() != 8 {
        return None;
    }
    let ip = |s: &str| u32::from_str_radix(s, 16).ok().map(ip_node);
    Some((
        ip(f[0])?,
        ip(f[1])?,
        f[2].parse().ok()?,
        f[3].parse().ok()?,
        f[4].parse().ok()?,
        f[5].parse().ok()?,
        f[6].parse().ok()?,
        f[7].parse().ok()?,
    ))
}

/// The ns-3 files of one run.
pub struct Ns3Files {
    fct: AtomicFile,
    pfc: AtomicFile,
    is_switch: Vec<bool>,
    offset_ps: u64,
}

impl Ns3Files {
    /// Creates fct.txt and pfc.txt in `dir`.
    pub fn create(dir: &Path, is_switch: Vec<bool>, offset_ps: u64) -> Result<Ns3Files, Error> {
        Ok(Ns3Files {
            fct: AtomicFile::create(dir, "fct.txt")?,
            pfc: AtomicFile::create(dir, "pfc.txt")?,
            is_switch,
            offset_ps,
        })
    }

    pub fn flow_done(&mut self, r: &FctRecord) -> Result<(), Error> {
        let line = fct_line(r, self.offset_ps);
        writeln!(self.fct, "{line}").map_err(|e| self.fct.err(e))
    }

    pub fn pfc_event(
        &mut self,
        now: SimTime,
        node: NodeId,
        port: u16,
        kind: PfcKind,
    ) -> Result<(), Error> {
        let ty = match kind {
            PfcKind::Pause => 1,
            // ns-3 pauses never lapse; a lapse reads as the resume it amounts to.
            PfcKind::Resume | PfcKind::Expire => 0,
        };
        let node_type = u8::from(self.is_switch.get(node.idx()) == Some(&true));
        writeln!(
            self.pfc,
            "{} {node} {node_type} {} {ty}",
            (now.ps() + self.offset_ps) / 1000,
            port + 1
        )
        .map_err(|e| self.pfc.err(e))
    }

    /// The bytes written to these files so far.
    pub fn written(&self) -> u64 {
        self.fct.written() + self.pfc.written()
    }

    /// The files to commit with the others.
    pub fn into_files(self) -> Vec<AtomicFile> {
        vec![self.fct, self.pfc]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Delta;

    #[test]
    fn node_ips_follow_ns3_and_read_back() {
        assert_eq!(node_ip(0), 0x0b00_0001);
        assert_eq!(node_ip(1), 0x0b00_0101);
        assert_eq!(node_ip(320), 0x0b01_4001);
        for id in [0, 1, 255, 256, 320, 65_535] {
            assert_eq!(ip_node(node_ip(id)), id);
        }
    }

    #[test]
    fn an_fct_line_reads_like_ns3_and_parses_back() {
        let r = FctRecord {
            flow_id: 0,
            src: 2,
            dst: 1,
            sport: 10_000,
            dport: 100,
            size: 1_000_000,
            start: SimTime(1_500),
            fct: Delta::from_ps(95_685_700),
            ideal: Delta::from_ns(88_000),
            retx_bytes: 0,
            delivered: 1_000_000,
            cnps: 0,
            timeouts: 0,
        };
        let line = fct_line(&r, 2_000_000_000_000);
        assert_eq!(
            line,
            "0b000201 0b000101 10000 100 1000000 2000000001 95685 88000"
        );
        assert_eq!(
            parse_fct_line(&line),
            Some((2, 1, 10_000, 100, 1_000_000, 2_000_000_001, 95_685, 88_000))
        );
    }
}
