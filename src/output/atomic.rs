//! Output files written atomically: rows go to a hidden temporary file in the
//! target directory, which is renamed over the final name on `commit`. Dropping an
//! uncommitted file removes the temporary, so failures leave nothing half-written.

use crate::error::Error;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct AtomicFile {
    tmp: PathBuf,
    dst: PathBuf,
    w: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(dir: &Path, name: &str) -> Result<AtomicFile, Error> {
        let dst = dir.join(name);
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        Ok(AtomicFile {
            tmp,
            dst,
            w: Some(BufWriter::with_capacity(1 << 16, f)),
        })
    }

    /// An I/O error on this file, naming the final path.
    pub fn err(&self, e: io::Error) -> Error {
        Error::io(&self.dst, e)
    }

    /// Flushes and renames the file into place.
    pub fn commit(mut self) -> Result<(), Error> {
        let w = self.w.take().expect("not yet committed");
        let f = w
            .into_inner()
            .map_err(|e| Error::io(&self.dst, e.into_error()))?;
        f.sync_all().map_err(|e| Error::io(&self.dst, e))?;
        drop(f);
        std::fs::rename(&self.tmp, &self.dst).map_err(|e| Error::io(&self.dst, e))
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
        self.w.as_mut().expect("not yet committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.as_mut().expect("not yet committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.w.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
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
