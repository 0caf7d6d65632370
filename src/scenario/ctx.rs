//! The validation context the scenario resolvers share: the scenario's source
//! name for error messages, and small checks more than one resolver needs. Its
//! own file so that `resolve`, `flowctl`, `generators` and `topology` all use it
//! without using each other.

use crate::error::InputError;
use crate::topology::{NodeKind, Topology};
use crate::workload::FlowSpec;
use std::path::{Path, PathBuf};

pub(super) struct Ctx<'a> {
    pub(super) source: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(&self, field: impl Into<String>, msg: impl Into<String>) -> InputError {
        InputError::new(self.source, field, msg)
    }
}

/// A path from the scenario, relative to the scenario file's directory.
pub(super) fn resolve_path(base: &Path, file: &str) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Checks one flow against the topology: both ends exist and are hosts, and
/// the size and class are valid.
pub(super) fn check_flow(
    f: &FlowSpec,
    topo: &Topology,
    field: &str,
    cx: &Ctx,
) -> Result<(), InputError> {
    let n = topo.spec.kinds.len() as u32;
    for (what, id) in [("src", f.src), ("dst", f.dst)] {
        if id.0 >= n {
            return Err(cx.err(
                format!("{field}.{what}"),
                format!("node {id} does not exist (hosts: {})", describe_hosts(topo)),
            ));
        }
        if topo.kind(id) != NodeKind::Host {
            return Err(cx.err(
                format!("{field}.{what}"),
                format!(
                    "node {id} is a switch; flows run between hosts ({})",
                    describe_hosts(topo)
                ),
            ));
        }
    }
    if f.src == f.dst {
        return Err(cx.err(field, format!("flow from host {} to itself", f.src)));
    }
    if f.size == 0 {
        return Err(cx.err(format!("{field}.size"), "must be > 0 bytes"));
    }
    if !(1..=7).contains(&f.class) {
        return Err(cx.err(
            format!("{field}.class"),
            format!(
                "{} is not a data class (valid: 1..7; 0 is reserved for control traffic)",
                f.class
            ),
        ));
    }
    Ok(())
}

/// The hosts, for messages: `"0-15"` when their ids are contiguous.
pub(super) fn describe_hosts(topo: &Topology) -> String {
    let ids: Vec<u32> = topo.hosts.iter().map(|h| h.0).collect();
    let contiguous = ids.windows(2).all(|w| w[1] == w[0] + 1);
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if contiguous => format!("{a}-{b}"),
        _ => format!("{} hosts", ids.len()),
    }
}
