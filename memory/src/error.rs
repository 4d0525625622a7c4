//! What the memory API fails with.

/// Result alias for the memory layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A memory call that could not be done; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine refused a read or write (its message says why).
    #[error(transparent)]
    Engine(#[from] chronolog_engine::Error),
    /// A tenant name that cannot be used: empty, too long, or with a
    /// character outside letters, digits and `_ - . @`.
    #[error(
        "bad tenant name {0:?}: use 1 to 128 bytes of letters (any script), digits, `_`, `-`, `.` or `@`"
    )]
    BadTenant(String),
    /// A message that cannot be remembered: no role, no text (empty or
    /// only spaces: an episode of it would match every search alike), a
    /// role over 4,096 bytes, text over [`crate::MAX_MESSAGE_BYTES`], a
    /// session name empty or over 256 bytes, or a time no one said
    /// anything at. Nothing of the call was written.
    #[error("bad message `{field}`: {reason}")]
    BadMessage {
        /// The message's field at fault: `role`, `text`, `session`, `at`.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A line of a JSON-lines file that is not a message.
    #[error("line {line}: {message}")]
    BadLine {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A stored row that does not have its relation's shape (a store
    /// written by something other than this memory).
    #[error(
        "a row of `{relation}` has no valid column {column}: the store was not written by this memory"
    )]
    BadRow {
        /// The relation.
        relation: &'static str,
        /// The column that did not hold its type.
        column: usize,
    },
    /// Search options from outside Rust (JSON, MCP arguments) that cannot
    /// be used: an unknown option, a wrong type, a bad time or language.
    #[error("bad search options: {0}")]
    BadRequest(String),
    /// A name given to forget that is part of several people's names
    /// ("Quentin" with two Quentins): nothing was erased.
    #[error("{subject:?} could be any of {candidates:?}: say which, by the full name")]
    AmbiguousSubject {
        /// The name as given.
        subject: String,
        /// The names it is part of.
        candidates: Vec<String>,
    },
    /// The consolidation worker stopped (it panicked, a bug).
    #[error("the consolidation worker stopped: {0}")]
    Worker(String),
}
