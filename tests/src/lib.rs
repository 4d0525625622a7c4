//! Shared helpers for Chronolog's integration tests (the tests themselves are
//! in `tests/tests/`; the crash test's child process is `src/bin/crash_writer.rs`).

use chronolog_storage::{ColumnDef, ColumnType, RelationId, Result, Schema, Store};

/// Creates the relations the crash test writes: `batch(n: int key, size: int)`
/// records each committed batch, `item(batch: int, i: int)` its rows.
pub fn crash_schema(store: &Store) -> Result<(RelationId, RelationId)> {
    let batch = match store.relation_id("batch") {
        Ok(id) => id,
        Err(_) => store.create_relation(Schema::new(
            "batch",
            vec![
                ColumnDef::new("n", ColumnType::Int).key(),
                ColumnDef::new("size", ColumnType::Int),
            ],
        ))?,
    };
    let item = match store.relation_id("item") {
        Ok(id) => id,
        Err(_) => store.create_relation(Schema::new(
            "item",
            vec![
                ColumnDef::new("batch", ColumnType::Int),
                ColumnDef::new("i", ColumnType::Int),
            ],
        ))?,
    };
    Ok((batch, item))
}

/// A date as a timestamp (test input is known to be valid).
pub fn day(s: &str) -> chronolog_storage::Timestamp {
    chronolog_storage::Timestamp::parse(s).expect("a valid date")
}

/// Creates `knows(a: sym, b: sym)`, a relation without keys.
pub fn create_knows(store: &Store) -> RelationId {
    store
        .create_relation(Schema::new(
            "knows",
            vec![
                ColumnDef::new("a", ColumnType::Sym),
                ColumnDef::new("b", ColumnType::Sym),
            ],
        ))
        .expect("create knows")
}
