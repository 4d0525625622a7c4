//! The engine's error: everything a script can fail with, each able to show
//! itself against the source text with line:column and a caret.

use chronolog_ql::{CompileError, ParseError, Span};

/// Result alias for the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong running a script or a query.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The program parses but cannot run (unknown relation, unsafe variable,
    /// negation through recursion, ...).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// A statement was refused by the storage layer (wrong type, ...).
    #[error("{source}")]
    Storage {
        /// The storage error.
        #[source]
        source: chronolog_storage::Error,
        /// The statement it is about, when known.
        span: Option<Span>,
    },
    /// A `$parameter` the caller did not supply.
    #[error("missing parameter `${0}`")]
    MissingParam(String),
    /// Evaluation failed (division by zero, a type that cannot be compared).
    #[error("{0}")]
    Runtime(RuntimeError),
    /// A retrieval operator could not run (a query of the wrong type or
    /// dimension, an embedding model that failed).
    #[error("{0}")]
    Retrieval(RetrievalError),
    /// The query ran into its row or time limit.
    #[error("query stopped: it exceeded {0}")]
    LimitExceeded(String),
    /// The query was cancelled.
    #[error("query cancelled")]
    Cancelled,
    /// An invariant of the engine broke: a bug in Chronolog, not in the
    /// caller's input, reported instead of a panic (the C ABI's
    /// `INTERNAL_ERROR`).
    #[error("internal error (a bug in Chronolog, please report it): {0}")]
    Internal(String),
    /// An evaluation error (`Runtime`, `Retrieval`, `MissingParam`) with
    /// the statement it happened in, so it shows with line:column and a
    /// caret like every other error. Its message is the inner error's.
    #[error("{error}")]
    Located {
        /// What went wrong.
        error: Box<Error>,
        /// The statement it happened in.
        span: Span,
    },
}

/// Why evaluating a query failed on its values (not on its text).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// `/` by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// Integer arithmetic (`+ - * /`, negation, `sum`) past `i64`.
    #[error("integer overflow: {0} does not fit in an int")]
    Overflow(String),
    /// Arithmetic on values it does not apply to (`"a" + 1`).
    #[error("cannot compute {0}")]
    CannotCompute(String),
    /// `-` of something that is not a number.
    #[error("cannot negate {0}")]
    CannotNegate(String),
    /// `sum` over something that is not a number.
    #[error("cannot sum {0}")]
    CannotSum(String),
    /// A time compared with a number (`T > 2021-3-1`, the int 2017).
    #[error("cannot compare a time with a number ({0} and {1}); write times as dates (2021-03-01)")]
    TimeVersusNumber(String, String),
    /// `as_of` / `known_at` given something that is not a time.
    #[error("{what} needs a time, got {got}")]
    NeedsTime {
        /// `as_of` or `known_at`.
        what: &'static str,
        /// What it was given.
        got: String,
    },
    /// `known_at` after both the last commit and the clock.
    #[error(
        "known_at {known} is in the future (the last commit is {last}): what will be known then is not known yet"
    )]
    KnownAtInFuture {
        /// The instant asked for.
        known: chronolog_storage::Timestamp,
        /// The last commit's transaction time.
        last: chronolog_storage::Timestamp,
    },
    /// `limit $n` given something that is not a row count.
    #[error("`limit ${name}` needs a row count (an integer >= 0), got {got}")]
    BadLimit {
        /// The parameter.
        name: String,
        /// What it was given.
        got: String,
    },
    /// Input from outside the language that cannot be stored (an imported
    /// file's line), with where it came from.
    #[error("{0}")]
    Input(String),
}

/// Why a retrieval operator (or the indexes behind it) could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RetrievalError {
    /// `near` given a vector of the wrong dimension.
    #[error("near({rel}, ...) needs a vector of {dim} floats, got {got}")]
    NearDimension {
        /// The relation.
        rel: String,
        /// Its vectors' dimension.
        dim: usize,
        /// The query's.
        got: usize,
    },
    /// `near` given text over a relation with no `embed` column.
    #[error("near({0}, \"text\", ...) needs an `embed` column in `{0}`; give it a vector instead")]
    NoEmbedColumn(String),
    /// `near` given a vector over a relation with no vector column.
    #[error("`{0}` has no vector column; give near text to embed")]
    NoVectorColumnForNear(String),
    /// `near` given neither a vector nor text.
    #[error("near needs a vector or text, got {0}")]
    NearInput(String),
    /// `bm25` given something that is not text.
    #[error("bm25 needs text to search for, got {0}")]
    Bm25Input(String),
    /// `decayed` given a half-life that is not a number.
    #[error("decayed needs a half-life in days, got {0}")]
    HalfLifeInput(String),
    /// `hops` started from something that is not a symbol.
    #[error("hops starts from a symbol, got {0}")]
    HopsInput(String),
    /// `hops` over a relation whose first two columns are not symbols.
    #[error("hops walks relations whose first two columns are symbols; `{0}` is not one")]
    NotLinks(String),
    /// A `k` parameter that is not an integer.
    #[error("k (`${name}`) must be an integer, got {got}")]
    KNotInteger {
        /// The parameter.
        name: String,
        /// What it was given.
        got: String,
    },
    /// A `k` out of bounds.
    #[error("k must be between 1 and {max}, got {got}")]
    KOutOfRange {
        /// The largest `k`.
        max: u64,
        /// What was given.
        got: i64,
    },
    /// A vector search (`Session::near_vector`) over a relation without
    /// a vector column.
    #[error("`{0}` has no vector column")]
    NoVectorColumn(String),
    /// A vector search with a query of the wrong dimension.
    #[error("`{rel}` holds vectors of {dim} floats, the query has {got}")]
    QueryDimension {
        /// The relation.
        rel: String,
        /// Its vectors' dimension.
        dim: usize,
        /// The query's.
        got: usize,
    },
    /// A batch of query vectors of different dimensions.
    #[error("a batch of queries needs one dimension")]
    MixedDimensions,
    /// A batch of query vectors whose dimension is not the stored one.
    #[error("queries have {queries} floats, the vectors {vectors}")]
    BatchDimension {
        /// The queries' dimension.
        queries: usize,
        /// The stored vectors'.
        vectors: usize,
    },
    /// `Session::rank` given an input that is not a constant.
    #[error("Session::rank takes constant inputs, got {0}")]
    NotConstant(String),
    /// The background indexer failed.
    #[error("indexing failed: {0}")]
    Indexing(String),
    /// The embedding model is missing or failed.
    #[error("embedding model: {0}")]
    Model(String),
    /// tantivy failed.
    #[error("text index: {0}")]
    TextIndex(String),
}

impl From<RetrievalError> for Error {
    fn from(e: RetrievalError) -> Error {
        Error::Retrieval(e)
    }
}

impl From<RuntimeError> for Error {
    fn from(e: RuntimeError) -> Error {
        Error::Runtime(e)
    }
}

impl From<chronolog_storage::Error> for Error {
    fn from(source: chronolog_storage::Error) -> Error {
        Error::Storage { source, span: None }
    }
}

impl Error {
    /// The error as the REPL shows it: with line:column and a caret when it
    /// is about a place in `source`.
    pub fn render(&self, source: &str) -> String {
        match self {
            Error::Parse(e) => e.render(source),
            Error::Compile(e) => e.render(source),
            Error::Storage {
                source: e,
                span: Some(span),
            } => chronolog_ql::render(source, *span, &e.to_string()),
            Error::Located { error, span } => {
                chronolog_ql::render(source, *span, &error.to_string())
            }
            other => format!("error: {other}"),
        }
    }

    /// The same error with its place moved `offset` bytes on: for a
    /// statement run on its own but shown inside the larger text it came
    /// from (a REPL entry, a script file), so line:column count from there.
    pub fn shifted(self, offset: usize) -> Error {
        let shift = |s: Span| Span::new(s.start + offset, s.end + offset);
        match self {
            Error::Parse(mut e) => {
                e.span = shift(e.span);
                Error::Parse(e)
            }
            Error::Compile(mut e) => {
                e.span = shift(e.span);
                Error::Compile(e)
            }
            Error::Storage {
                source,
                span: Some(span),
            } => Error::Storage {
                source,
                span: Some(shift(span)),
            },
            Error::Located { error, span } => Error::Located {
                error,
                span: shift(span),
            },
            other => other,
        }
    }

    /// The same error placed at `span` if it has no place yet.
    pub(crate) fn at(self, span: Span) -> Error {
        match self {
            Error::Storage { source, span: None } => Error::Storage {
                source,
                span: Some(span),
            },
            e @ (Error::Runtime(_)
            | Error::Retrieval(_)
            | Error::MissingParam(_)
            | Error::Internal(_)) => Error::Located {
                error: Box::new(e),
                span,
            },
            other => other,
        }
    }

    /// The error without its place: what went wrong.
    pub fn kind(&self) -> &Error {
        match self {
            Error::Located { error, .. } => error,
            other => other,
        }
    }
}
