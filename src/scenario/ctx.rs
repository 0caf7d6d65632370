//! The validation context the scenario resolvers share: the scenario's source
//! name for error messages, and small checks more than one resolver needs. Its
//! own file so that the sections' resolvers (`topology`, `switch`, `workload`,
//! `output`, ...) all use it without using each other.

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

/// A path from the scenario, relative to the scenario file's directory;
/// `dir/x/../y` shortened to `dir/y` (what messages show) where both name the
/// same place (a symbolic link before `..` would make them differ).
pub(super) fn resolve_path(base: &Path, file: &str) -> PathBuf {
    let p = Path::new(file);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let clean = lexically_clean(&joined);
    // The file may be missing (its error names it): compare the directories.
    let place = |q: &Path| {
        q.canonicalize()
            .or_else(|_| q.parent().map_or(Ok(PathBuf::new()), Path::canonicalize))
            .ok()
    };
    match clean != joined && place(&clean).is_some() && place(&clean) == place(&joined) {
        true => clean,
        false => joined,
    }
}

/// `path` without `.` parts and with each `..` removing the part before it
/// (kept where there is none: a leading `..` or one after the root).
fn lexically_clean(path: &Path) -> PathBuf {
    use std::path::Component as C;
    let mut out: Vec<C> = Vec::new();
    for c in path.components() {
        match c {
            C::CurDir => {}
            C::ParentDir if matches!(out.last(), Some(C::Normal(_))) => {
                out.pop();
            }
            C::ParentDir if matches!(out.last(), Some(C::RootDir | C::Prefix(_))) => {}
            c => out.push(c),
        }
    }
    out.iter().collect()
}

/// Checks that node `id`, which the user wrote as `field`, is a host.
pub(super) fn check_host(
    id: crate::topology::NodeId,
    topo: &Topology,
    field: &str,
    cx: &Ctx,
) -> Result<(), InputError> {
    let n = topo.spec.kinds.len() as u32;
    let what = match id.0 >= n {
        true => "does not exist",
        false if topo.kind(id) != NodeKind::Host => "is a switch",
        false => return Ok(()),
    };
    Err(cx.err(
        field,
        format!("node {id} {what} (hosts: {})", describe_hosts(topo)),
    ))
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
    if topo.server(f.src) == topo.server(f.dst) {
        let what = match f.src == f.dst {
            true => format!("flow from host {} to itself", f.src),
            false => format!("flow between {} and {}, NICs of one server", f.src, f.dst),
        };
        return Err(cx.err(field, what));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_through_parent_directories_is_shown_short() {
        // Issue 42 item 18: `o/x/../../n3/t/topo.txt`.
        let d = std::env::temp_dir().join(format!("rocesim-ctx-{}", std::process::id()));
        std::fs::create_dir_all(d.join("o/x")).unwrap();
        std::fs::create_dir_all(d.join("n3/t")).unwrap();
        std::fs::create_dir_all(d.join("a")).unwrap();
        let p = resolve_path(&d.join("o/x"), "../../n3/t/topo.txt");
        assert_eq!(
            p,
            d.join("n3/t/topo.txt"),
            "a missing file, its directory there"
        );
        assert_eq!(resolve_path(&d, "./a/../b.txt"), d.join("b.txt"));
        assert_eq!(
            lexically_clean(Path::new("../a/./b/../c")),
            Path::new("../a/c")
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
