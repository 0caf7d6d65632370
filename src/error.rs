//! Error types. Bad user input is an [`InputError`]: one line naming the file, the
//! field or line, and what would be valid. The CLI maps it to exit code 2.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with something the user gave us: a scenario, topology or flow file,
/// or a command-line flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file (or `--flag`) the problem is in; empty when there is none.
    pub file: String,
    /// Where in it: a field path (`topology.rate`) or `line 12`; may be empty.
    pub location: String,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl InputError {
    pub fn new(
        file: impl Into<String>,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.into(),
            location: location.into(),
            message: message.into(),
        }
    }
    pub fn in_file(file: &Path, location: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(file.display().to_string(), location, message)
    }
    /// `--out DIR` must be a directory or not exist yet.
    pub fn check_out_dir(out: &Path) -> Result<(), InputError> {
        if out.exists() && !out.is_dir() {
            let msg = format!("{} exists and is not a directory", out.display());
            return Err(InputError::new("--out", "", msg));
        }
        if let Some(file) = out.ancestors().skip(1).find(|a| a.is_file()) {
            let msg = format!(
                "cannot create {}: {} is a file, not a directory",
                out.display(),
                file.display()
            );
            return Err(InputError::new("--out", "", msg));
        }
        Ok(())
    }
    /// The same error with `file` set when it had none.
    pub fn with_file(mut self, file: &str) -> Self {
        if self.file.is_empty() {
            self.file = file.to_string();
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for part in [&self.file, &self.location] {
            if !part.is_empty() {
                if !first {
                    f.write_str(": ")?;
                }
                // A key or path the user wrote may hold a newline: shown as \n.
                f.write_str(&one_line(part, true))?;
                first = false;
            }
        }
        if !first {
            f.write_str(": ")?;
        }
        // Keep it on one line whatever the message holds.
        f.write_str(&one_line(&self.message, false))
    }
}

/// `s` on one line: a newline becomes `\n` (`escape_newlines`) or a space, and
/// any other control character its escape (`\r`, `\u{1b}`).
fn one_line(s: &str, escape_newlines: bool) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    s.chars()
        .map(|c| match c {
            '\n' if !escape_newlines => " ".to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

impl std::error::Error for InputError {}

/// Every failure the library reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: exit code 2.
    #[error("{0}")]
    Input(#[from] InputError),
    /// An I/O failure on a path we were asked to read or write.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The simulation stopped on a condition it detected (e.g. a PFC deadlock).
    #[error("{0}")]
    Sim(String),
    /// A check found results that differ from the recorded ones
    /// (`reproduce --check`): exit code 1.
    #[error("{0}")]
    Check(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
    /// Process exit code for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => 2,
            _ => 1,
        }
    }
}

/// What went wrong with an OS call on a path the user named, in words (no
/// "(os error N)").
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::PermissionDenied => "permission denied".into(),
        K::NotFound => "no such file or directory".into(),
        K::AlreadyExists => "it already exists".into(),
        K::NotADirectory => "a part of the path is a file, not a directory".into(),
        K::IsADirectory => "it is a directory".into(),
        K::ReadOnlyFilesystem => "read-only file system".into(),
        K::StorageFull => "no space left on device".into(),
        K::QuotaExceeded => "disk quota exceeded".into(),
        _ => {
            let t = e.to_string();
            match t.find(" (os error") {
                Some(i) => t[..i].to_lowercase(),
                None => t,
            }
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_one_line_whatever_its_parts_hold() {
        // Issue 42, found by the sweep fuzz target: a quoted key with "\n".
        let e = InputError::new("s.toml", "axes.\"a\nb\"", "x\ny\tz");
        assert_eq!(e.to_string(), "s.toml: axes.\"a\\nb\": x y\\tz");
    }

    #[test]
    fn input_errors_print_on_one_line_with_file_and_field() {
        let e = InputError::new("x.toml", "topology.rate", "must be > 0,\ne.g. \"100Gbps\"");
        assert_eq!(
            e.to_string(),
            "x.toml: topology.rate: must be > 0, e.g. \"100Gbps\""
        );
        let e = InputError::new("", "", "bad");
        assert_eq!(e.to_string(), "bad");
    }
}
