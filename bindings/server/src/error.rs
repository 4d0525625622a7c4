//! What goes wrong in the server's own parts (keys, startup); a request's
//! failure is an [`crate::http::ApiError`] with an HTTP status.

use std::path::{Path, PathBuf};

/// A failure of the server's own parts.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or socket operation failed.
    #[error("{path}: {source}")]
    Io {
        /// What it was done to.
        path: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// `keys.json` does not read back.
    #[error("the keys file {path} does not read: {reason}")]
    BadKeysFile {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
    /// An argument the caller gave is not acceptable.
    #[error("{0}")]
    BadRequest(String),
    /// The server will not start as configured.
    #[error("{0}")]
    Refused(String),
    /// The server answered a client's call with an error (status 0: it
    /// could not be reached).
    #[error("{message}")]
    Remote {
        /// The HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The memory underneath failed.
    #[error(transparent)]
    Memory(#[from] chronolog_memory::Error),
    /// Something that should not happen did.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// A mapper from an I/O error on `path` (`.map_err(Error::io(path))`).
    pub fn io(path: impl AsRef<Path>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.as_ref().display().to_string();
        move |source| Error::Io { path, source }
    }
}

/// The server's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
