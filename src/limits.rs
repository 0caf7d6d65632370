//! Input limits: the largest counts and times rocesim accepts from any scenario,
//! topology or flow file, as data in one place. Readers check a declared count
//! against these before allocating anything for it, and generators check the
//! number of flows they would produce before producing them, so no input can
//! exhaust memory or overflow simulated time. docs/scenario.md "Limits" lists them.

/// Nodes (hosts and switches) in a topology file.
pub const MAX_NODES: u64 = 1_000_000;

/// Links in a topology file.
pub const MAX_LINKS: u64 = 4_000_000;

/// Ports of one node (a port id is 16 bits).
pub const MAX_PORTS_PER_NODE: u64 = u16::MAX as u64;
/// NICs a server may have in a generated fabric (AI servers have 8).
pub const MAX_NICS_PER_HOST: u32 = 16;

/// Flows in a flow file, in one generator table, or in a whole workload (each
/// flow costs about 32 bytes before the run and a few hundred during it).
pub const MAX_FLOWS: u64 = 20_000_000;

/// Route-table entries of a topology: one per (switch, switch with hosts),
/// 8 bytes each plus a 2-byte distance (50 M entries is about 0.5 GB).
pub const MAX_ROUTE_ENTRIES: u64 = 50_000_000;

/// Steps of the route computation: switches with hosts x switch-to-switch
/// ports (one breadth-first search from each switch with hosts over the
/// switches' links to each other, and for each, every switch's links scanned
/// for its next hops): 3 to 4 ns a step on the development VM (`rocesim
/// validate` of k-ary fat-trees with their default hosts per ToR: k = 48, 127
/// M steps, 0.4-0.8 s; k = 64, 537 M, 1.7-2.6 s; k = 72, 967 M, 3.1-3.9 s;
/// k = 74, 1.11 G, is refused).
pub const MAX_ROUTE_STEPS: u64 = 1_000_000_000;

/// Refuses a route table for `switches` switches, `with_hosts` of them with
/// hosts, beyond [`MAX_ROUTE_ENTRIES`]; `hint` says what to make smaller. The
/// generators check their shape with it before building, and every topology
/// is checked with it again before its routes are computed.
pub fn check_route_entries(switches: u64, with_hosts: u64, hint: &str) -> Result<(), String> {
    let entries = switches.saturating_mul(with_hosts);
    if entries > MAX_ROUTE_ENTRIES {
        return Err(format!(
            "{switches} switches, {with_hosts} of them with hosts: the route table would need \
             {entries} entries (limit {MAX_ROUTE_ENTRIES}; docs/scenario.md, Limits); {hint}"
        ));
    }
    Ok(())
}

/// Bytes of one flow, or any byte count (docs/scenario.md, Limits: 0 to 10^18).
pub const MAX_BYTES: u64 = 1_000_000_000_000_000_000;

/// Parts of a `--set` key path (and of a sweep's keys, a Python override's):
/// the deepest scenario key has 4 (`switch.pfc.ppfc.kmax`). A key thousands of
/// parts deep would nest tables that deep, and writing or dropping them recurses.
pub const MAX_KEY_PARTS: usize = 16;

/// Bytes of a `--set` key path.
pub const MAX_KEY_LEN: usize = 256;

/// Threads, and partitions, of one run (`run.threads`, `run.partitions`,
/// `--threads`).
pub const MAX_THREADS: usize = 256;

/// The latest instant a flow may start or a time field may name, and the same in
/// seconds: defined beside simulated time in [`crate::units`], listed here with
/// the other limits.
pub use crate::units::{MAX_TIME_PS, max_time_s};

/// Reads an input file as text. Only regular files: a device or a pipe
/// (`/dev/zero`) could be read without end.
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

/// `"{what} {n} exceeds the limit {limit}"`, or Ok.
pub fn check_count(what: &str, n: u64, limit: u64) -> Result<(), String> {
    if n > limit {
        return Err(exceeds(what, n, limit));
    }
    Ok(())
}

/// The message for a count `n` (as written) above `limit`.
pub fn exceeds(what: &str, n: impl std::fmt::Display, limit: u64) -> String {
    format!("{what} {n} exceeds the limit {limit} (docs/scenario.md, Limits)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_above_a_limit_name_the_number_and_the_limit() {
        assert!(check_count("the link count", 10, 10).is_ok());
        let e = check_count("the link count", 4_000_000_001, MAX_LINKS).unwrap_err();
        assert!(e.contains("4000000001 exceeds the limit 4000000"), "{e}");
    }

    #[test]
    fn only_regular_files_are_read() {
        let e = read_text(std::path::Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e, "is not a regular file");
        assert!(read_text(std::path::Path::new("/nonexistent/x")).is_err());
    }

    #[test]
    fn the_time_limit_is_about_106_days() {
        assert!((max_time_s() / 86_400.0 - 106.75).abs() < 0.1);
    }
}
