//! The run directory of `rocesim run --out DIR`: fresh, or reused with `--force`.
//!
//! Rules (README "Run directories"):
//! * DIR must be a directory we can create and write in; otherwise a one-line
//!   error naming `--out` and the path (exit code 2), before anything runs.
//! * A directory that holds files is refused unless `--force` is given. With
//!   `--force`, the previous run's files that rocesim writes
//!   ([`crate::output::run_files`], and hidden temporaries of an interrupted run)
//!   are removed just before the new ones are moved in, so a run that fails
//!   leaves the previous run intact. Files rocesim does not know are never
//!   deleted: the run is refused, naming them.
//! * A directory the run created is removed again if the run fails.
//! * The directory is claimed ([`crate::output::claim`]) before it is looked
//!   at, and held until the run's files are in place: of two runs started into
//!   one directory at the same time, one is refused, naming the other.

use super::io_reason;
use crate::error::InputError;
use crate::output::claim::{CLAIM_FILE, Claim, claim};
use crate::output::{is_temp_name, run_files};
use std::path::{Path, PathBuf};

/// A checked run directory.
#[derive(Debug)]
pub struct OutDir {
    /// The directories the run made, outermost first (removed if it fails).
    pub created: Vec<PathBuf>,
    /// The previous run's files to remove before the new ones are moved in.
    pub stale: Vec<PathBuf>,
    /// This process's claim on the directory, released when dropped.
    pub claim: Claim,
}

impl OutDir {
    /// Releases the claim and removes the directories this run created, if
    /// they are still empty.
    pub fn abandon(self) {
        drop(self.claim);
        for d in self.created.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// At most this many names in a message.
const SHOW: usize = 5;

fn names(v: &[String]) -> String {
    let mut s = v.iter().take(SHOW).cloned().collect::<Vec<_>>().join(", ");
    if v.len() > SHOW {
        s += &format!(" and {} more", v.len() - SHOW);
    }
    s
}

/// Checks (and creates) and claims `dir` for a run, as `flag` names it:
/// `--out`, `out` (Python), or `""` for the default `runs/<name>`.
pub fn prepare(flag: &str, dir: &Path, force: bool) -> Result<OutDir, InputError> {
    let bad = |msg: String| InputError::new(flag, "", msg);
    let shown = dir.display();
    let mut created = Vec::new();
    if dir.exists() {
        if !dir.is_dir() {
            return Err(bad(format!(
                "{shown} exists and is not a directory (valid: a new or a run directory)"
            )));
        }
    } else {
        // Name the part of the path that stops us, e.g. a file where a directory
        // should be.
        if let Some(file) = dir.ancestors().skip(1).find(|a| a.is_file()) {
            return Err(bad(format!(
                "cannot create {shown}: {} is a file, not a directory",
                file.display()
            )));
        }
        created = dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        created.reverse();
        std::fs::create_dir_all(dir)
            .map_err(|e| bad(format!("cannot create {shown}: {}", io_reason(&e))))?;
        for d in &created {
            crate::output::register_created_dir(d);
        }
    }
    // Ours alone from here; and a read-only directory fails here, not mid-run.
    let held = match claim(dir) {
        Ok(c) => c,
        Err(e) => {
            for d in created.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
            return Err(bad(e.message(dir)));
        }
    };
    match previous_run(dir, force, flag) {
        Ok(known) => Ok(OutDir {
            created,
            stale: known.iter().map(|n| dir.join(n)).collect(),
            claim: held,
        }),
        Err(msg) => {
            drop(held);
            for d in created.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
            Err(bad(msg))
        }
    }
}

/// The names of a previous run's files in `dir` (to replace with `force`), or
/// why the directory cannot take a run.
fn previous_run(dir: &Path, force: bool, flag: &str) -> Result<Vec<String>, String> {
    let shown = dir.display();
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {shown}: {}", io_reason(&e)))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == CLAIM_FILE {
            continue;
        }
        if run_files().any(|f| f == name) || is_temp_name(&name) {
            known.push(name);
        } else {
            unknown.push(name);
        }
    }
    known.sort();
    unknown.sort();
    if !unknown.is_empty() {
        return Err(format!(
            "{shown} holds files rocesim did not write ({}); give a new directory \
             (--force replaces only a previous run's files)",
            names(&unknown)
        ));
    }
    if !known.is_empty() && !force {
        let how = match flag {
            "" => "re-run with --force to replace it, or give another directory with --out DIR",
            "out" => "give a new directory as out= (rocesim.run cannot replace a run)",
            _ => "give a new directory, or --force to replace it",
        };
        let what = match flag {
            "" => " (the default directory, runs/<scenario name>)",
            _ => "",
        };
        return Err(format!(
            "{shown}{what} already holds a run ({}); {how}",
            names(&known)
        ));
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rocesim-outdir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_new_directory_is_created_and_removed_when_abandoned() {
        let d = scratch("new");
        let o = prepare("--out", &d.join("a/b"), false).unwrap();
        assert_eq!(o.created, [d.clone(), d.join("a"), d.join("a/b")]);
        assert!(d.join("a/b").is_dir() && o.stale.is_empty());
        o.abandon();
        assert!(!d.exists(), "every directory it made is removed");
    }

    #[test]
    fn a_previous_run_needs_force_and_unknown_files_are_refused_even_with_it() {
        let d = scratch("reuse");
        std::fs::create_dir_all(d.join("figures")).unwrap();
        std::fs::write(d.join("fct.csv"), "x").unwrap();
        std::fs::write(d.join(".queue.csv.7.tmp"), "x").unwrap();
        let e = prepare("--out", &d, false).unwrap_err().to_string();
        assert!(e.contains("--force") && e.contains("fct.csv"), "{e}");
        let o = prepare("--out", &d, true).unwrap();
        assert_eq!(o.stale.len(), 3);
        assert!(o.created.is_empty());
        // Held, it refuses any other run.
        let e = prepare("--out", &d, true).unwrap_err().to_string();
        assert!(
            e.contains("being written by another rocesim process"),
            "{e}"
        );
        drop(o);
        std::fs::write(d.join("notes.txt"), "mine").unwrap();
        let e = prepare("--out", &d, true).unwrap_err().to_string();
        assert!(
            e.contains("notes.txt") && e.contains("did not write"),
            "{e}"
        );
        assert!(d.join("notes.txt").exists() && d.join("fct.csv").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_file_in_the_path_is_named() {
        let d = scratch("file");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("afile"), "x").unwrap();
        let e = prepare("--out", &d.join("afile/sub"), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--out: cannot create") && e.contains("is a file"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
