//! The way in from outside `scenario`: a scenario (a file or text) plus `--set`
//! overrides becomes a [`RunConfig`], or the effective scenario text for tools
//! that write it. Nothing outside `scenario` reads or parses a scenario file
//! (tests/integration/module_layers.rs checks the paths used).

use super::load::{self, Loaded};
use crate::config::RunConfig;
use crate::error::InputError;
use std::path::{Path, PathBuf};

/// Where a scenario comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A scenario file: its path names it in messages, relative paths in it
    /// resolve against its directory, and its stem is the default experiment name.
    File(PathBuf),
    /// Scenario text: `name` names it in messages, relative paths in it resolve
    /// against `base_dir`, and `stem` is the default experiment name.
    Text {
        text: String,
        name: String,
        base_dir: PathBuf,
        stem: String,
    },
}

impl Source {
    /// Scenario text with the given name, base directory and stem.
    pub fn text(text: &str, name: &str, base_dir: &Path, stem: &str) -> Source {
        Source::Text {
            text: text.to_string(),
            name: name.to_string(),
            base_dir: base_dir.to_path_buf(),
            stem: stem.to_string(),
        }
    }

    /// The file at `path`, read now (to load it many times, as a sweep does),
    /// named and placed as [`Source::File`] would be.
    pub(crate) fn read(path: &Path) -> std::io::Result<Source> {
        let text = std::fs::read_to_string(path)?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Source::text(
            &text,
            &path.display().to_string(),
            base_dir,
            &stem,
        ))
    }
}

/// A scenario with its overrides applied, parsed but not yet resolved.
#[derive(Clone, Debug)]
pub struct Effective(Loaded);

impl Effective {
    /// The effective scenario as TOML (what a run saves as scenario.toml).
    pub(crate) fn text(&self) -> &str {
        &self.0.text
    }

    /// Validates the scenario into a run configuration.
    pub fn to_config(&self) -> Result<RunConfig, InputError> {
        super::resolve::resolve(&self.0)
    }
}

/// Reads and parses `src`, applying `overrides` (`key.path=value`, as
/// `rocesim run --set` gives them) in order.
pub fn effective(src: &Source, overrides: &[String]) -> Result<Effective, InputError> {
    let loaded = match src {
        Source::File(path) => load::load_path(path, overrides)?,
        Source::Text {
            text,
            name,
            base_dir,
            stem,
        } => load::load_str(text, name, base_dir, stem, overrides)?,
    };
    Ok(Effective(loaded))
}

/// The run configuration of `src` with `overrides` applied.
pub fn to_config(src: &Source, overrides: &[String]) -> Result<RunConfig, InputError> {
    effective(src, overrides)?.to_config()
}
