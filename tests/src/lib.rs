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
