//! Output files written atomically: rows go to a hidden temporary file in the
//! target directory, which is renamed over the final name on `commit`. Dropping an
//! uncommitted file removes the temporary, so failures leave nothing half-written.
//!
//! Every temporary is also listed in a process-wide registry, so that a signal
//! (Ctrl-C, SIGTERM: `crate::cli`'s handler) can remove the ones still open
//! before the process exits ([`remove_all_temporaries`]).

use crate::error::Error;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporaries of every open [`AtomicFile`] of the process.
static OPEN: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn registry() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    // A panic elsewhere while holding the lock leaves a usable set.
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run directories this process created, removed on a signal if still empty.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Notes that this process created `dir` for its outputs.
pub fn register_created_dir(dir: &Path) {
    CREATED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.to_path_buf());
}

/// Scratch directories of this process, removed whole on a signal.
static SCRATCH: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Notes that `dir` is this process's scratch directory (`bench --recorders`
/// writes its runs there): a signal removes it with everything in it.
pub fn register_scratch_dir(dir: &Path) {
    SCRATCH
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.to_path_buf());
}

/// Removes the temporary file of every uncommitted [`AtomicFile`], the empty
/// directories the process created for them, and its scratch directories
/// ([`register_scratch_dir`]) (for a signal handler about to exit
/// the process); returns how many files it removed. Holds the registry until the
/// process exits, so no file is created or committed after.
pub fn remove_all_temporaries() -> usize {
    let mut open = registry();
    let n = open
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count();
    open.clear();
    // Innermost first.
    for d in CREATED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .rev()
    {
        let _ = std::fs::remove_dir(d);
    }
    for d in SCRATCH.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        let _ = std::fs::remove_dir_all(d);
    }
    std::mem::forget(open);
    n
}

/// Lists `path` as a file to remove on a signal ([`remove_all_temporaries`]),
/// before it is created (a directory claim, [`super::claim`]).
pub fn note_temporary(path: &Path) {
    registry().insert(path.to_path_buf());
}

/// Takes `path` off that list (it was removed, or never created).
pub fn forget_temporary(path: &Path) {
    registry().remove(path);
}

/// The bytes the temporary files of this process in `dir` hold on disk.
pub fn temp_bytes(dir: &Path) -> u64 {
    let open: Vec<PathBuf> = registry()
        .iter()
        .filter(|p| p.parent() == Some(dir))
        .cloned()
        .collect();
    open.iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

pub struct AtomicFile {
    tmp: PathBuf,
    dst: PathBuf,
    w: Option<BufWriter<File>>,
    /// Bytes written so far (buffered ones included): what the output limit
    /// counts, row by row, without asking the file system.
    written: u64,
}

impl AtomicFile {
    pub fn create(dir: &Path, name: &str) -> Result<AtomicFile, Error> {
        let dst = dir.join(name);
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        // Registered before it exists, so a signal cannot leave it behind.
        registry().insert(tmp.clone());
        let f = match File::create(&tmp) {
            Ok(f) => f,
            Err(e) => {
                registry().remove(&tmp);
                return Err(Error::io(&dst, e));
            }
        };
        Ok(AtomicFile {
            tmp,
            dst,
            w: Some(BufWriter::with_capacity(1 << 16, f)),
            written: 0,
        })
    }

    /// The bytes written to this file so far, those still buffered included.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.dst
    }

    /// An I/O error on this file, naming the final path.
    pub fn err(&self, e: io::Error) -> Error {
        Error::io(&self.dst, e)
    }

    /// Flushes and renames the file into place. On failure the temporary is
    /// removed.
    pub fn commit(mut self) -> Result<(), Error> {
        let w = self.w.take().expect("not yet committed");
        let res = w
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .and_then(|_| std::fs::rename(&self.tmp, &self.dst))
            .map_err(|e| Error::io(&self.dst, e));
        let mut open = registry();
        if res.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        open.remove(&self.tmp);
        res
    }

    /// Writes the whole file in one go.
    pub fn write_all_to(dir: &Path, name: &str, data: &[u8]) -> Result<(), Error> {
        let mut f = AtomicFile::create(dir, name)?;
        f.write_all(data).map_err(|e| f.err(e))?;
        f.commit()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.as_mut().expect("not yet committed").write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.as_mut().expect("not yet committed").write_all(buf)?;
        self.written += buf.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.as_mut().expect("not yet committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.w.take().is_some() {
            let mut open = registry();
            let _ = std::fs::remove_file(&self.tmp);
            open.remove(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_until_commit_and_drop_cleans_up() {
        let dir = std::env::temp_dir().join(format!("rocesim-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut f = AtomicFile::create(&dir, "a.csv").unwrap();
        writeln!(f, "x").unwrap();
        assert!(!dir.join("a.csv").exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a.csv")).unwrap(), "x\n");
        let mut g = AtomicFile::create(&dir, "b.csv").unwrap();
        writeln!(g, "y").unwrap();
        drop(g);
        assert!(!dir.join("b.csv").exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary removed"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
