//! Chronolog's storage layer: bi-temporal relations in memory, indexed by
//! roaring bitmaps, made durable by a checksummed commit log (sled keeps
//! the cache of data derived from rows).
//!
//! Every row carries a valid-time interval (when the fact is true in the
//! world) and a transaction-time interval (when the database believed it).
//! Rows are never overwritten or deleted: a replacement or a correction
//! closes the old row's transaction interval and appends new rows, so any
//! question can be asked as of any point on either axis.
//!
//! ```
//! use chronolog_storage::{ColumnDef, ColumnType, Interval, Schema, Store, Timestamp, Value};
//!
//! let store = Store::in_memory();
//! let works_at = store.create_relation(Schema::new("works_at", vec![
//!     ColumnDef::new("person", ColumnType::Sym).key(),
//!     ColumnDef::new("company", ColumnType::Sym),
//! ]))?;
//! let mut txn = store.begin();
//! let (alice, tencent) = (txn.symbol("alice")?, txn.symbol("tencent")?);
//! let from = Timestamp::parse("2021-03-01")?;
//! txn.assert(works_at, vec![Value::Sym(alice), Value::Sym(tencent)], Interval::starting(from), None)?;
//! txn.commit()?;
//!
//! let snap = store.snapshot();
//! let rows = snap.scan(works_at).eq(0, Value::Sym(alice)).collect()?;
//! assert_eq!(rows[0].values[1], Value::Sym(tencent));
//! # Ok::<(), chronolog_storage::Error>(())
//! ```
//!
//! The map of this crate is in `docs/ARCHITECTURE.md`; the on-disk format and
//! its crash argument in `docs/storage-format.md`.

mod chunked;
mod column;
mod error;
mod log;
mod relation;
mod schema;
mod snapshot;
mod store;
mod symbol_ranks;
mod symbols;
mod time;
mod time_index;
mod txn;
mod validity;
mod value;
mod value_index;
mod vectors;

pub use column::Gathered;
pub use error::{Error, Result};
pub use log::Durability;
pub use relation::RowId;
pub use schema::{Annotations, ColumnDef, MAX_COLUMNS, Schema};
pub use snapshot::{AsOf, RowVersion, RowView, Scan, Selector, Snapshot};
pub use store::{DEFAULT_MIN_FREE_BYTES, Options, PurgeRecord, RelationId, Store};
pub use symbol_ranks::SymbolRanks;
pub use symbols::MAX_SYMBOL_LEN;
pub use time::{Interval, Timestamp};
pub use txn::{CommitInfo, Replaced, WriteTxn};
pub use value::{ColumnType, Symbol, Value, ValueRef};
pub use vectors::{VectorArena, VectorBlock, quantize, sign_code, sign_words};
