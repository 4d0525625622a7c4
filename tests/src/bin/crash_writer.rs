//! Child process of the crash test: commits numbered batches to the database
//! at argv[1] forever, printing `ack N` after batch N's commit has returned.
//! Each batch N writes `batch(N, size)` and `size` rows of `item(N, i)`, and
//! replaces `batch(0, N)` (a functional slot) so every commit also closes a
//! row. The parent kills it with SIGKILL and checks what survived.

use chronolog_storage::{Interval, Store, Timestamp, Value};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: crash-writer DB_DIR")?;
    let store = Store::open(&path)?;
    let (batch, item) = chronolog_tests::crash_schema(&store)?;
    let done = store.snapshot().scan(batch).collect()?;
    let start = done
        .iter()
        .filter_map(|row| match row.values[0] {
            Value::Int(n) => Some(n),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        + 1;
    let mut stdout = std::io::stdout().lock();
    for n in start.. {
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
        writeln!(stdout, "ack {n}")?;
        stdout.flush()?;
    }
    Ok(())
}
