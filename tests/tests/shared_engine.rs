//! One engine per store, many sessions: sessions share the indexer, the
//! indexes and the caches, and keep their own rules and `let`s; a writer
//! and several readers run at once on one engine from their own threads.

use std::sync::Arc;
use std::thread;

use chronolog_engine::{Engine, HashingEmbedder, Output, Session};
use chronolog_storage::Store;

fn count(session: &mut Session, query: &str) -> usize {
    let out = session
        .run(query)
        .unwrap_or_else(|e| panic!("{query}: {}", e.render(query)));
    match out.last() {
        Some(Output::Rows(rows)) => rows.len(),
        other => panic!("{query}: expected rows, got {other:?}"),
    }
}

/// Indexer threads of this process (Linux names them in /proc).
fn indexer_threads() -> Option<usize> {
    // A thread spawned without a name inherits its parent's, so a helper
    // that tantivy starts from the indexer for a moment reads as another
    // indexer: the least of a few looks is the indexers at rest.
    (0..10)
        .map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let tasks = std::fs::read_dir("/proc/self/task").ok()?;
            Some(
                tasks
                    .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                    // The kernel keeps 15 bytes of a thread's name.
                    .filter(|name| "chronolog-indexer".starts_with(name.trim()))
                    .count(),
            )
        })
        .min()
        .flatten()
}

/// One test, so no other test's engine starts an indexer while this one
/// counts them.
#[test]
fn one_engine_many_sessions() {
    sessions_share_the_engine_but_not_their_rules();
    a_writer_and_readers_run_at_once_on_one_engine();
}

fn sessions_share_the_engine_but_not_their_rules() {
    let engine = Engine::with_embedder(Store::in_memory(), Arc::new(HashingEmbedder::new(64)));
    let mut writer = engine.session();
    writer
        .run(
            ":create note(id: sym key, text: str search embed).
             note(n1, \"alice joined acme\") valid 2020-01-01.
             note(n2, \"bob likes tea\") valid 2020-01-01.
             short(I) :- note(I, _).",
        )
        .expect("write");
    let mut reader = engine.session();
    assert!(reader.engine().same_as(&engine));
    // The reader's first search waits for the rows already stored.
    assert_eq!(count(&mut reader, "?- bm25(note, \"acme\", 5)."), 1);
    assert_eq!(count(&mut reader, "?- near(note, \"alice acme\", 5)."), 2);
    // Rules are the writer's own.
    assert!(reader.run("?- short(I).").is_err());
    assert_eq!(count(&mut writer, "?- short(I)."), 2);
    // Another session's later commit is searchable once the engine's
    // indexes have caught up.
    writer
        .run("note(n3, \"carol joined acme too\") valid 2021-01-01.")
        .expect("more");
    engine.sync_indexes().expect("sync");
    assert_eq!(count(&mut reader, "?- bm25(note, \"acme\", 5)."), 2);
    // Ten more sessions start no indexer of their own.
    let before = indexer_threads();
    let more: Vec<Session> = (0..10).map(|_| engine.session()).collect();
    assert_eq!(indexer_threads(), before);
    if let Some(n) = before {
        assert_eq!(n, 1, "one indexer for the engine");
    }
    drop(more);
}

fn a_writer_and_readers_run_at_once_on_one_engine() {
    let engine = Engine::with_embedder(Store::in_memory(), Arc::new(HashingEmbedder::new(64)));
    engine
        .session()
        .run(":create msg(id: int key, text: str search).")
        .expect("create");
    const BATCHES: usize = 20;
    const PER_BATCH: usize = 10;
    let writer = {
        let engine = engine.clone();
        thread::spawn(move || {
            let mut session = engine.session();
            for b in 0..BATCHES {
                let mut script = String::new();
                for i in 0..PER_BATCH {
                    let id = b * PER_BATCH + i;
                    script += &format!(
                        "msg({id}, \"message number {id} about tea\") valid 2020-01-01.\n"
                    );
                }
                session.run(&script).expect("batch");
            }
        })
    };
    let readers: Vec<_> = (0..3)
        .map(|r| {
            let engine = engine.clone();
            thread::spawn(move || {
                let mut session = engine.session();
                let mut last = 0;
                // Each reader sees a growing prefix: never fewer rows than
                // before, always whole batches (a commit is atomic).
                loop {
                    let n = count(&mut session, "?- msg(I, _).");
                    assert!(n >= last, "reader {r}: {n} after {last}");
                    assert_eq!(n % PER_BATCH, 0, "reader {r} saw half a batch");
                    count(&mut session, "?- bm25(msg, \"tea\", 3).");
                    last = n;
                    if n == BATCHES * PER_BATCH {
                        break;
                    }
                }
            })
        })
        .collect();
    writer.join().expect("writer");
    for r in readers {
        r.join().expect("reader");
    }
    engine.sync_indexes().expect("sync");
    let mut session = engine.session();
    assert_eq!(
        count(&mut session, "?- bm25(msg, \"tea\", 1000)."),
        BATCHES * PER_BATCH
    );
}
