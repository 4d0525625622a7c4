//! What every model the engine loads from installed files shares: the
//! check that its files are there, naming the install script when not,
//! and the error that names the file a failure came from.

use std::path::Path;

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
