//! Chronolog's engine: runs Datalog over bi-temporal storage. The only crate
//! that sees both `chronolog-ql` (text to plans) and `chronolog-storage`.
//!
//! ```
//! use chronolog_engine::{Session, Output};
//!
//! let mut db = Session::in_memory();
//! let out = db.run("
//!     :create works_at(person: sym key, company: sym).
//!     works_at(alice, tencent) valid 2021-03-01.
//!     works_at(alice, moonshot) valid 2024-06-01.
//!     let t1 = 2022-01-01.
//!     ?- works_at(alice, Y) as_of t1.
//! ")?;
//! let Some(Output::Rows(rows)) = out.last() else { panic!() };
//! assert_eq!(rows.len(), 1);
//! assert_eq!(rows.row(0).map(|r| db.render(&r[0])), Some("tencent".into()));
//! # Ok::<(), chronolog_engine::Error>(())
//! ```

mod batch;
mod distinct;
mod engine;
mod error;
mod exec;
mod frozen;
mod graph;
pub mod json;
mod marks;
mod ops;
mod order;
mod radix;
mod relation;
pub mod retrieval;
mod rows;
mod search;
mod session;
mod stored_cache;
mod symbols;
mod val;

/// The largest `k` a ranked operator (`near`, `bm25`, `top`, `decayed`,
/// `hops`, `rrf`) takes.
pub use chronolog_ql::MAX_RANKED_K;
pub use chronolog_ql::plan::{
    Bm25Plan, Count, DecayedPlan, HopsPlan, Metric, NearPlan, RankedPlan, RrfPlan, Term, TopPlan,
};
/// The language's errors, inside [`Error::Parse`] and [`Error::Compile`].
pub use chronolog_ql::{CompileError, CompileErrorKind, ParseError, ParseErrorKind};
/// What storage refused with, inside [`Error::Storage`]: a caller tells a
/// disk failure from a limit or a bad write by it.
pub use chronolog_storage::Error as StorageError;
/// The storage types the engine's API takes and returns, so a program (the
/// shell, the C ABI, the memory layer) depends on the engine alone.
pub use chronolog_storage::{
    ColumnDef, ColumnType, CommitInfo, Durability, Interval, MAX_SYMBOL_LEN, Options, RelationId,
    Replaced, RowId, RowVersion, Scan, Schema, Store, Symbol, Timestamp, Value, WriteTxn,
};
pub use engine::Engine;
pub use error::{Error, Result, RetrievalError, RuntimeError};
pub use exec::{Limits, Strategy, default_query_memory};
pub use marks::{ColumnMarks, Embedding, TextSearch, declaration};
#[cfg(feature = "bge")]
pub use retrieval::bge::BgeSmall;
pub use retrieval::default_embedder::{
    default_embedder, default_embedder_with_notice, embedder_named, stand_in_reason,
};
pub use retrieval::embed::{Embedder, HashingEmbedder};
pub use retrieval::language::{TextLanguage, detect_language, detect_question_language};
#[cfg(feature = "minilm")]
pub use retrieval::minilm::MiniLm;
#[cfg(feature = "potion")]
pub use retrieval::potion::Potion;
#[cfg(feature = "reranker")]
pub use retrieval::rerank::CrossEncoder;
pub use retrieval::rerank::{Reranker, default_reranker};
#[cfg(feature = "usem")]
pub use retrieval::usem::UseMultilingual;
pub use retrieval::words::{is_han, words};
pub use retrieval::{Ranking, decay, rrf};
pub use rows::{RowIter, Rows};
pub use search::{NearOptions, Precision};
pub use session::{Output, Prepared, ScriptRun, Session};
pub use symbols::SymbolResolver;
pub use val::{Tuple, Val};
