//! Reader and writer for the HPCC ns-3 simulator's flow files (alibaba-edu/High-
//! Precision-Congestion-Control, `mix/flow.txt`): `N`, then
//! `src dst pg dport size start_seconds` per flow. A variant with a leading
//! flow-id column (7 columns) is accepted too. Tokens are read as the topology
//! file's are ([`crate::topology::ns3`]).

use super::FlowSpec;
use crate::error::InputError;
use crate::limits;
use crate::topology::NodeId;
use crate::topology::ns3::{Tokens, read};
use crate::units::SimTime;
use std::path::Path;

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
        let (_, size) = t.bounded("a flow's size", limits::MAX_BYTES, |t| {
            format!("a flow's size {t} is out of range (valid: 0 to 10^18 bytes)")
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn data(p: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/hpcc-ns3")
            .join(p)
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
    fn flows_round_trip_through_the_ns3_format() {
        let flows = read_flows(&data("generated/scenarios/incast16_flow_1MB.txt")).unwrap();
        let again = parse_flows(Path::new("x"), &format_flows(&flows)).unwrap();
        assert_eq!(flows, again);
    }

    #[test]
    fn a_flow_size_above_10_to_the_18_bytes_is_refused_not_saturated() {
        // Issue 42 item 6: 1e20 became u64::MAX, 2e18 passed the limit.
        for size in ["100000000000000000000", "2000000000000000000"] {
            let text = format!("1\n1 0 3 100 {size} 0\n");
            let e = parse_flows(Path::new("f.txt"), &text).unwrap_err();
            let s = e.to_string();
            assert!(s.starts_with("f.txt: line 2"), "{s}");
            assert!(s.contains(size) && s.contains("0 to 10^18 bytes"), "{s}");
        }
        let f = parse_flows(Path::new("f.txt"), "1\n1 0 3 100 1000000000000000000 0\n");
        assert_eq!(
            f.unwrap()[0].size,
            limits::MAX_BYTES,
            "the limit itself is valid"
        );
    }

    #[test]
    fn a_short_flow_file_and_a_count_beyond_the_limit_are_refused() {
        let e = parse_flows(Path::new("f.txt"), "2\n1 0 3 100 5000 0.5\n").unwrap_err();
        assert!(e.to_string().contains("file ends"), "{e}");
        let e = parse_flows(Path::new("f.txt"), "99999999999999999999999\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("flow count 99999999999999999999999 exceeds the limit 20000000"),
            "{e}"
        );
    }
}
