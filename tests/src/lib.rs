//! Shared helpers for Chronolog's integration tests (the tests themselves are
//! in `tests/tests/`; the crash test's child process is `src/bin/crash_writer.rs`).

use chronolog_storage::{
    ColumnDef, ColumnType, Interval, RelationId, Result, Schema, Store, Timestamp, Value,
};

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

/// Commits batch `n` of the crash test's workload in one transaction:
/// `batch(n, size)`, `size` rows of `item(n, i)`, and `batch(0, n)`, which
/// replaces the previous batch's in its functional slot (so every commit
/// also closes a row).
pub fn write_batch(store: &Store, batch: RelationId, item: RelationId, n: i64) -> Result<()> {
    let size = 1 + (n * 7919) % 50;
    let mut txn = store.begin();
    txn.assert(
        batch,
        vec![Value::Int(n), Value::Int(size)],
        Interval::ALWAYS,
        None,
    )?;
    txn.assert(
        batch,
        vec![Value::Int(0), Value::Int(n)],
        Interval::starting(Timestamp(n)),
        None,
    )?;
    for i in 0..size {
        txn.assert(
            item,
            vec![Value::Int(n), Value::Int(i)],
            Interval::ALWAYS,
            None,
        )?;
    }
    txn.commit()?;
    Ok(())
}

/// Checks what the crash test's workload left in `store`: batches form a
/// gap-free prefix `1..=max`, each whole, and the functional slot holds the
/// last one. Returns `max` (0 when empty), or what is wrong.
pub fn check_batches(store: &Store) -> std::result::Result<i64, String> {
    let int = |v: &Value| match v {
        Value::Int(n) => Ok(*n),
        other => Err(format!("expected an int, got {other:?}")),
    };
    // Looked up, not created: a store opened for recovery refuses writes.
    let (Ok(batch), Ok(item)) = (store.relation_id("batch"), store.relation_id("item")) else {
        return Ok(0);
    };
    let snap = store.snapshot();
    let rows = snap.scan(batch).collect().map_err(|e| e.to_string())?;
    let mut present = Vec::new();
    for row in &rows {
        let n = int(&row.values[0])?;
        if n > 0 {
            present.push(n);
        }
    }
    present.sort_unstable();
    let max = present.last().copied().unwrap_or(0);
    if present != (1..=max).collect::<Vec<_>>() {
        return Err(format!("batches are not a gap-free prefix: {present:?}"));
    }
    for row in &rows {
        let (n, size) = (int(&row.values[0])?, int(&row.values[1])?);
        if n == 0 {
            if size != max {
                return Err(format!(
                    "the functional slot holds {size}, not the last batch {max}"
                ));
            }
            continue;
        }
        let items = snap
            .scan(item)
            .eq(0, Value::Int(n))
            .count()
            .map_err(|e| e.to_string())?;
        if items as i64 != size {
            return Err(format!("batch {n} has {items} of its {size} items"));
        }
    }
    Ok(max)
}

/// The text of document `n` in the indexing crash test: a word no other
/// document has, among words every document shares.
pub fn doc_text(n: i64) -> String {
    format!("memo {n} about the quarterly plan, marker uniq{n}x")
}

/// Runs `bin DB_DIR` (a child that prints `ack N` after each commit
/// returns), waits for its first acknowledgement (it has opened and
/// recovered), lets it run `run_for`, then kills it with SIGKILL (no flush,
/// no destructor) and returns every acknowledgement it printed.
pub fn run_and_kill(
    bin: &str,
    dir: &std::path::Path,
    run_for: std::time::Duration,
) -> std::io::Result<Vec<i64>> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(bin)
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line
                .strip_prefix("ack ")
                .and_then(|n| n.parse::<i64>().ok())
            {
                let _ = tx.send(n);
            }
        }
    });
    let first = rx.recv_timeout(std::time::Duration::from_secs(60));
    if first.is_ok() {
        std::thread::sleep(run_for);
    }
    child.kill()?;
    child.wait()?;
    let _ = reader.join();
    let first = first.map_err(|_| std::io::Error::other("the child made no progress"))?;
    Ok(std::iter::once(first).chain(rx.try_iter()).collect())
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
