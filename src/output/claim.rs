//! Claiming an output directory, so that two processes writing into the same
//! directory at the same time cannot both succeed (one run's files would
//! silently replace the other's).
//!
//! A claim is a marker file, [`CLAIM_FILE`], created with `O_EXCL`
//! (`create_new`): the file system lets exactly one process create it. It holds
//! the claimant's process id and host name; a claim whose process is gone
//! (same host, no such process) is stale and taken over. The marker is removed
//! when the [`Claim`] is dropped, and by the signal handler
//! ([`super::remove_all_temporaries`]) on Ctrl-C or SIGTERM.

use super::atomic;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The marker file a run creates in its directory while it writes there.
pub const CLAIM_FILE: &str = ".rocesim-claim";

/// A held claim on a directory; released when dropped.
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        atomic::forget_temporary(&self.path);
    }
}

/// Why a directory could not be claimed.
#[derive(Debug)]
pub enum ClaimError {
    /// Another live process holds it: its process id and host.
    Busy { pid: String, host: String },
    /// The marker could not be created (permissions, a full disk, ...).
    Io(std::io::Error),
}

/// The host name (for telling whose process a claim names).
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_default()
}

/// Whether process `pid` of this host is gone (Linux: no /proc/PID). Elsewhere
/// nothing is known, and a claim is taken as live.
fn gone(pid: &str) -> bool {
    let proc_fs = Path::new("/proc/self").exists();
    proc_fs && pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists()
}

/// Claims `dir` (which exists) for this process.
pub fn claim(dir: &Path) -> Result<Claim, ClaimError> {
    let path = dir.join(CLAIM_FILE);
    let me = host();
    // Twice at most: once more after removing a stale claim.
    for _ in 0..2 {
        // Registered first, so that a signal between here and the drop
        // removes the marker.
        atomic::note_temporary(&path);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                let _ = writeln!(f, "{} {me}", std::process::id());
                return Ok(Claim { path });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                atomic::forget_temporary(&path);
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let mut words = text.split_whitespace();
                let pid = words.next().unwrap_or("").to_string();
                let host = words.next().unwrap_or("").to_string();
                // An empty marker is one being written this instant: live.
                if !pid.is_empty() && host == me && gone(&pid) {
                    if take_over(&path, &text) {
                        continue;
                    }
                    let pid = String::new();
                    return Err(ClaimError::Busy { pid, host });
                }
                return Err(ClaimError::Busy { pid, host });
            }
            Err(e) => {
                atomic::forget_temporary(&path);
                return Err(ClaimError::Io(e));
            }
        }
    }
    Err(ClaimError::Busy {
        pid: String::new(),
        host: me,
    })
}

/// Removes the stale claim `path` that read `stale`, unless another process
/// took it over first: the marker is moved aside (atomically, so only one
/// process moves it) and checked; a live claim moved by mistake is put back.
/// Whether the caller may try to claim again.
fn take_over(path: &Path, stale: &str) -> bool {
    let aside = path.with_extension(format!("stale.{}", std::process::id()));
    if std::fs::rename(path, &aside).is_err() {
        // Gone already: another process removed it; try again.
        return true;
    }
    let moved = std::fs::read_to_string(&aside).unwrap_or_default();
    if moved != stale {
        // Another process's fresh claim: back where it was (unless a third
        // process claimed the place meanwhile).
        let _ = std::fs::hard_link(&aside, path);
    }
    let _ = std::fs::remove_file(&aside);
    moved == stale
}

impl ClaimError {
    /// The message for a claim on `dir` that failed.
    pub fn message(&self, dir: &Path) -> String {
        match self {
            ClaimError::Busy { pid, host } => format!(
                "{} is being written by another rocesim process ({}); wait for it to finish or \
                 give another directory (if no such process runs, remove {})",
                dir.display(),
                match (pid.is_empty(), host.is_empty()) {
                    (true, _) => "starting".to_string(),
                    (false, true) => format!("pid {pid}"),
                    (false, false) => format!("pid {pid} on {host}"),
                },
                dir.join(CLAIM_FILE).display()
            ),
            ClaimError::Io(e) => format!(
                "cannot write in {}: {}",
                dir.display(),
                crate::error::io_reason(e)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rocesim-claim-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_directory_is_claimed_once_until_the_claim_is_dropped() {
        let d = scratch("once");
        let c = claim(&d).unwrap();
        assert!(d.join(CLAIM_FILE).exists());
        let e = claim(&d).unwrap_err();
        let msg = e.message(&d);
        assert!(
            msg.contains(&format!("pid {}", std::process::id())) && msg.contains("another"),
            "{msg}"
        );
        drop(c);
        assert!(!d.join(CLAIM_FILE).exists(), "released");
        let again = claim(&d);
        assert!(again.is_ok(), "claimable again");
        drop(again);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_stale_claim_replaced_by_a_live_one_meanwhile_is_left_to_it() {
        // Two processes saw the same stale claim; the first took it over.
        let d = scratch("race");
        let path = d.join(CLAIM_FILE);
        std::fs::write(&path, "123 live-one\n").unwrap();
        assert!(!take_over(&path, "4294967 gone\n"), "not ours to take");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "123 live-one\n");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "nothing left aside"
        );
        assert!(take_over(&path, "123 live-one\n"), "the stale one it read");
        assert!(!path.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_claim_of_a_process_that_is_gone_is_taken_over() {
        let d = scratch("stale");
        // Pid numbers stop at 2^22 on Linux: this one cannot run.
        std::fs::write(d.join(CLAIM_FILE), format!("4294967 {}\n", host())).unwrap();
        let c = claim(&d).expect("a stale claim is taken over");
        let text = std::fs::read_to_string(d.join(CLAIM_FILE)).unwrap();
        assert!(text.starts_with(&std::process::id().to_string()), "{text}");
        drop(c);
        std::fs::write(d.join(CLAIM_FILE), "4294967 some-other-host\n").unwrap();
        assert!(
            matches!(claim(&d), Err(ClaimError::Busy { .. })),
            "another host's claim cannot be checked: it stands"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
