//! SIGKILL while the indexer embeds: a child process adds documents, one
//! commit each, while the background indexer embeds and indexes them; we
//! kill it at random moments, reopen, and check that every acknowledged
//! document is there once and is found first by its unique word (`bm25`)
//! and by its exact text (`near`), i.e. that no kill loses, duplicates or
//! misranks an indexed row, whatever the cached embeddings on disk held.

use std::sync::Arc;
use std::time::Duration;

use chronolog_engine::{HashingEmbedder, Output, Session};
use rand::{Rng, SeedableRng};

const ROUNDS: usize = 12;

fn ranked_first(db: &mut Session, query: &str) -> Option<String> {
    match db
        .run(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .pop()
    {
        Some(Output::Rows(rows)) => rows.row(0).map(|r| db.render(&r[0])),
        _ => None,
    }
}

#[test]
fn indexed_documents_survive_sigkill_during_indexing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x1DE5);
    let mut acked_max = 0i64;
    for round in 0..ROUNDS {
        let run_for = Duration::from_millis(rng.gen_range(20..250));
        let acks =
            chronolog_tests::run_and_kill(env!("CARGO_BIN_EXE_index-writer"), &path, run_for)
                .expect("run and kill index-writer");
        acked_max = acked_max.max(*acks.iter().max().expect("one ack"));

        let store = chronolog_storage::Store::open(&path).expect("reopen after kill");
        let mut db = Session::with_embedder(store, Arc::new(HashingEmbedder::new(64)));
        let count = match db.run("?- doc(N, _).").expect("count").pop() {
            Some(Output::Rows(rows)) => rows.len() as i64,
            _ => 0,
        };
        assert!(
            count == acked_max || count == acked_max + 1,
            "round {round}: {count} documents, {acked_max} acknowledged"
        );
        // The newest documents (the ones the kill caught mid-indexing) and a
        // sample of older ones.
        let mut probe: Vec<i64> = (acked_max.saturating_sub(5).max(1)..=acked_max).collect();
        probe.extend((0..5).map(|_| rng.gen_range(1..=acked_max)));
        for n in probe {
            let by_word = ranked_first(&mut db, &format!("?- bm25(doc, \"uniq{n}x\", 3)."));
            assert_eq!(
                by_word.as_deref(),
                Some(n.to_string().as_str()),
                "round {round}: bm25 for {n}"
            );
            let text = chronolog_tests::doc_text(n);
            let by_meaning = ranked_first(&mut db, &format!("?- near(doc, \"{text}\", 1)."));
            assert_eq!(
                by_meaning.as_deref(),
                Some(n.to_string().as_str()),
                "round {round}: near for {n}"
            );
        }
        drop(db);
    }
    assert!(acked_max as usize >= ROUNDS, "the writer made progress");
}
