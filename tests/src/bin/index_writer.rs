//! Child process of the indexing crash test: adds numbered documents to the
//! database at `argv[1]` forever, each in its own commit, printing `ack N`
//! after document N's commit has returned, while the background indexer
//! embeds and indexes them (the hashing embedder, so the test needs no
//! model files). The parent kills it with SIGKILL mid-indexing and checks
//! that every acknowledged document is found, once, by words and by
//! meaning.

use std::io::Write;
use std::sync::Arc;

use chronolog_engine::{HashingEmbedder, Output, Session};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: index-writer DB_DIR")?;
    let store = chronolog_storage::Store::open(&path)?;
    let mut db = Session::with_embedder(store, Arc::new(HashingEmbedder::new(64)));
    if db.store().relation_id("doc").is_err() {
        db.run(":create doc(n: int key, text: str search embed).")?;
    }
    let start = match db.run("?- doc(N, _).")?.pop() {
        Some(Output::Rows(rows)) => rows.len() as i64 + 1,
        _ => 1,
    };
    let mut stdout = std::io::stdout().lock();
    for n in start.. {
        db.run(&format!("doc({n}, \"{}\").", chronolog_tests::doc_text(n)))?;
        writeln!(stdout, "ack {n}")?;
        stdout.flush()?;
    }
    Ok(())
}
