//! The storage layer's one error type.
//!
//! Every variant carries enough context to be shown to a user as is: which
//! relation, which column, what was expected. A rejected write changes
//! nothing, so callers can report the error and carry on.

use crate::time::Timestamp;

/// Result alias used throughout the storage layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong below the language layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A relation was named that the database does not have.
    #[error("unknown relation `{name}`")]
    UnknownRelation {
        /// The name as given.
        name: String,
    },
    /// `create_relation` was called for a name that is taken.
    #[error("relation `{name}` already exists")]
    RelationExists {
        /// The name as given.
        name: String,
    },
    /// A schema that cannot be stored (no columns, duplicate names, ...).
    #[error("invalid schema for `{relation}`: {reason}")]
    InvalidSchema {
        /// The relation being declared.
        relation: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tuple with the wrong number of values.
    #[error("relation `{relation}` has {expected} columns, got {got} values")]
    ArityMismatch {
        /// The relation written to.
        relation: String,
        /// Its arity.
        expected: usize,
        /// The number of values supplied.
        got: usize,
    },
    /// A value that does not fit its column's declared type.
    #[error("column `{relation}.{column}` holds {expected}, got {got}")]
    TypeMismatch {
        /// The relation written to.
        relation: String,
        /// The column's name.
        column: String,
        /// The declared type, as text.
        expected: String,
        /// A description of the offending value.
        got: String,
    },
    /// A vector read of a column that holds no vectors.
    #[error("column {column} of `{relation}` is not a vector column")]
    NotVectorColumn {
        /// The relation read.
        relation: String,
        /// The column's position.
        column: usize,
    },
    /// A valid-time interval whose end is not after its start.
    #[error("empty interval: valid_to {to} is not after valid_from {from}")]
    EmptyInterval {
        /// The interval's start.
        from: Timestamp,
        /// The interval's end.
        to: Timestamp,
    },
    /// Text that is not an ISO-8601 date or datetime.
    #[error("`{text}` is not an ISO-8601 date or datetime")]
    BadTime {
        /// The text as given.
        text: String,
    },
    /// A hard limit was reached (rows per relation, symbols, ...).
    #[error("limit reached: {what}")]
    LimitReached {
        /// Which limit.
        what: String,
    },
    /// A symbol name that cannot be stored.
    #[error("invalid symbol: {reason}")]
    InvalidSymbol {
        /// What is wrong with it.
        reason: String,
    },
    /// The symbol id is not known to this database.
    #[error("unknown symbol id {id}")]
    UnknownSymbol {
        /// The id as given.
        id: u32,
    },
    /// A row id past the end of a relation.
    #[error("relation `{relation}` has {len} rows, asked for row {row}")]
    RowOutOfRange {
        /// The relation's name.
        relation: String,
        /// The row asked for.
        row: u32,
        /// Rows the relation has.
        len: u32,
    },
    /// Another process (or another open `Store` in this one) holds the
    /// database directory.
    #[error("database `{path}` is in use by another process")]
    Locked {
        /// The directory.
        path: String,
    },
    /// A file operation failed (I/O error, permissions, ...).
    #[error("storage I/O failed while {context}: {source}")]
    Io {
        /// What we were doing.
        context: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A write was refused before it started because the disk is (nearly)
    /// full: nothing was written, and the database stays usable once space
    /// is freed.
    #[error(
        "disk full: {free} bytes free on the disk holding `{path}`, a write needs {needed} (the reserve included)"
    )]
    DiskFull {
        /// The database directory.
        path: String,
        /// Bytes available to this process.
        free: u64,
        /// Bytes the write needs, with the reserve kept free.
        needed: u64,
    },
    /// Bytes on disk that do not decode or break an invariant.
    #[error("database is corrupt: {reason}")]
    Corrupt {
        /// What was found.
        reason: String,
    },
    /// The log reads back shorter than what was acknowledged: opening it
    /// would silently lose commits, so it was refused and nothing on disk
    /// was changed.
    #[error(
        "database is damaged: {reason}; the log reads back whole up to {readable}, but commits up to {acknowledged} were acknowledged. Nothing on disk was changed; open it read-only with recovery (`Options::recover`, the shell's `--recover`) to read what remains"
    )]
    Damaged {
        /// Where and how the log stopped reading back.
        reason: String,
        /// The last commit that reads back whole.
        readable: String,
        /// The last commit that was acknowledged.
        acknowledged: String,
    },
    /// A write to a database opened read-only (to read, or for recovery).
    #[error("the database was opened read-only; writes are refused")]
    ReadOnly,
}

impl Error {
    pub(crate) fn io<E: Into<std::io::Error>>(context: &'static str) -> impl FnOnce(E) -> Error {
        move |source| Error::Io {
            context,
            source: source.into(),
        }
    }

    pub(crate) fn corrupt(reason: impl Into<String>) -> Error {
        Error::Corrupt {
            reason: reason.into(),
        }
    }
}
