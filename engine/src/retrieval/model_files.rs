//! What every model the engine loads from installed files shares: the
//! check that its files are there, naming the install script when not,
//! and the error that names the file a failure came from.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, RetrievalError};

/// An error in loading or running a model, naming `what` (a file, a step).
pub(crate) fn model_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::from(RetrievalError::Model(format!("{what}: {e}")))
}

/// `Ok` when every one of `files` is in `dir`; else the first missing one,
/// and how to install it.
pub(crate) fn require(dir: &Path, files: &[&str]) -> Result<()> {
    match files.iter().find(|f| !dir.join(f).is_file()) {
        None => Ok(()),
        Some(f) => Err(RetrievalError::Model(format!(
            "{} is missing (run scripts/install-model.sh)",
            dir.join(f).display()
        ))
        .into()),
    }
}

/// A model's directory: the environment variable `var` when set, else
/// `subdir` in the per-user models directory (where
/// `scripts/install-model.sh` puts it), else below `models/` in the
/// working directory.
pub(crate) fn model_dir(var: &str, subdir: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(var) {
        return PathBuf::from(dir);
    }
    super::default_embedder::models_home()
        .map(|home| home.join(subdir))
        .unwrap_or_else(|| Path::new("models").join(subdir))
}
