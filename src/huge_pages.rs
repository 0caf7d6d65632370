//! Transparent huge pages for the heap.
//!
//! A run's state (packets, ports, queue pairs, histograms) is tens of
//! megabytes touched at random; with 4 KiB pages most of those touches also
//! miss the TLB. glibc's malloc backs its heap with transparent huge pages
//! (2 MiB) when the tunable `glibc.malloc.hugetlb=1` is set, and Linux
//! kernels whose transparent huge pages are set to `madvise` (as on the
//! project's VM) or `always` then grant them. Measured on the 320-host
//! fat-tree, 10 ms of arrivals (docs/performance.md): 35.6–36.1 s and 38 MB
//! without, 31.3–31.7 s and 43 MB with; outputs byte-identical.
//!
//! The tunable is read when the process starts, so `rocesim` sets it and
//! executes itself again, once, before doing anything else. `ROCESIM_THP=0`
//! turns this off (e.g. to compare, or under a tool that does not follow
//! `exec`; valgrind does with `--trace-children=yes`). Elsewhere than glibc on
//! Linux, or if the tunable is already set, nothing happens.

/// The glibc tunable.
const TUNABLE: &str = "glibc.malloc.hugetlb";

/// Whether this process runs with the tunable on (timing.json's
/// `heap_huge_pages`; whether the kernel grants the pages is its own affair).
pub fn active() -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu"))
        && std::env::var("GLIBC_TUNABLES").is_ok_and(|v| setting(&v) == Some("1"))
}

/// Re-executes this program with huge pages on, if they are not already; on
/// success it does not return. Any failure leaves the process running as it is.
pub fn enable() {
    if cfg!(not(all(target_os = "linux", target_env = "gnu")))
        || std::env::var_os("ROCESIM_THP").is_some_and(|v| v == "0")
    {
        return;
    }
    // Unset is empty; a value that is not text is the user's, left alone.
    let current = match std::env::var("GLIBC_TUNABLES") {
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => String::new(),
        Err(std::env::VarError::NotUnicode(_)) => return,
    };
    let Some(value) = with_tunable(&current) else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // `exec` returns only if it failed; then go on without huge pages.
        let _ = std::process::Command::new(&exe)
            .arg0(arg0)
            .args(args)
            .env("GLIBC_TUNABLES", value)
            .exec();
    }
    #[cfg(not(unix))]
    let _ = (exe, arg0, args, value);
}

/// `GLIBC_TUNABLES` with huge pages on, or `None` if it already says anything
/// about them (set by an earlier `enable`, or by the user).
fn with_tunable(current: &str) -> Option<String> {
    if setting(current).is_some() {
        return None;
    }
    Some(match current {
        "" => format!("{TUNABLE}=1"),
        c => format!("{c}:{TUNABLE}=1"),
    })
}

/// The value `GLIBC_TUNABLES` (`name=value` pairs separated by colons) gives
/// the huge-pages tunable, if any.
fn setting(tunables: &str) -> Option<&str> {
    tunables
        .split(':')
        .find_map(|t| t.strip_prefix(TUNABLE)?.strip_prefix('='))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunable_is_added_once_and_a_users_setting_is_kept() {
        assert_eq!(with_tunable("").as_deref(), Some("glibc.malloc.hugetlb=1"));
        assert_eq!(
            with_tunable("glibc.malloc.arena_max=2").as_deref(),
            Some("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
        );
        assert_eq!(with_tunable("glibc.malloc.hugetlb=1"), None);
        assert_eq!(
            with_tunable("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0"),
            None
        );
    }

    #[test]
    fn the_setting_is_read_from_its_own_pair_only() {
        assert_eq!(setting("glibc.malloc.hugetlb=1"), Some("1"));
        assert_eq!(setting("a=1:glibc.malloc.hugetlb=0:b=2"), Some("0"));
        assert_eq!(setting("glibc.malloc.hugetlbx=1"), None);
        assert_eq!(setting("glibc.malloc.arena_max=2"), None);
        assert_eq!(setting(""), None);
    }
}
