//! Child process of the crash test: commits numbered batches to the database
//! at `argv[1]` forever, printing `ack N` after batch N's commit has returned.
//! Each batch N writes `batch(N, size)` and `size` rows of `item(N, i)`, and
//! replaces `batch(0, N)` (a functional slot) so every commit also closes a
//! row. The parent kills it with SIGKILL and checks what survived.
//!
//! Should a commit fail (the disk test limits the file size it may write),
//! it prints `failed N: <error>`, tries the same batch once more on the
//! same handle, prints `retry ok` or `retry refused: <error>`, and exits
//! with status 1.

use chronolog_storage::{Store, Value};
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
        if let Err(e) = chronolog_tests::write_batch(&store, batch, item, n) {
            writeln!(stdout, "failed {n}: {e}")?;
            match chronolog_tests::write_batch(&store, batch, item, n) {
                Ok(()) => writeln!(stdout, "retry ok")?,
                Err(e) => writeln!(stdout, "retry refused: {e}")?,
            }
            stdout.flush()?;
            std::process::exit(1);
        }
        writeln!(stdout, "ack {n}")?;
        stdout.flush()?;
    }
    Ok(())
}
