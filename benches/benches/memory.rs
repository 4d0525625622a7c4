#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! The agent memory at 100,000 episodes: `Memory::add` (one durable commit
//! per message), `Memory::search` with a 2,000-token budget over the
//! episodes and their facts (hashing embedder, so the search's own time),
//! and the question's embedding with all-MiniLM-L6-v2 when it is installed
//! (the one model call on the read path). `benches/src/bin/memory.rs`
//! reports the same operations' p50 / p95 / p99.

use std::sync::Arc;

use chronolog_benches::memory::{QUESTIONS, turn};
use chronolog_engine::{Engine, HashingEmbedder, Store};
use chronolog_memory::{Memory, Options, SearchOptions};
use criterion::{Criterion, criterion_group, criterion_main};

const EPISODES: u64 = 100_000;
const TENANTS: u64 = 100;

/// A memory holding `EPISODES` generated turns in `TENANTS` tenants, its
/// indexes caught up; consolidated when `consolidate`.
fn loaded(dir: &std::path::Path, consolidate: bool) -> Memory {
    let engine = Engine::with_embedder(
        Store::open(dir.join("db")).expect("store"),
        Arc::new(HashingEmbedder::new(384)),
    );
    let memory = Memory::with_engine(engine, Options::manual()).expect("memory");
    for batch in 0..EPISODES / 1_000 {
        let messages: Vec<_> = (batch * 1_000..(batch + 1) * 1_000).map(turn).collect();
        memory
            .add_batch(&format!("t{}", batch % TENANTS), &messages)
            .expect("load");
    }
    if consolidate {
        memory.consolidate_now().expect("consolidate");
    }
    memory.engine().sync_indexes().expect("indexes");
    std::thread::sleep(std::time::Duration::from_millis(500));
    memory
}

fn add(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let memory = loaded(dir.path(), false);
    let mut i = EPISODES;
    c.bench_function("memory/add (100k episodes, synced)", |b| {
        b.iter(|| {
            i += 1;
            memory.add("t0", turn(i)).expect("add")
        })
    });
}

fn search(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let memory = loaded(dir.path(), true);
    let options = SearchOptions::default();
    let mut i = 0u64;
    c.bench_function("memory/search (100k episodes, 2,000 tokens)", |b| {
        b.iter(|| {
            i += 1;
            let question = QUESTIONS[(i % QUESTIONS.len() as u64) as usize];
            memory
                .search(&format!("t{}", i % TENANTS), question, &options)
                .expect("search")
        })
    });
    // The question's embedding with the real model, when installed.
    let (model, notice) = chronolog_engine::default_embedder_with_notice();
    if notice.is_none() {
        let mut i = 0usize;
        c.bench_function("memory/question embedding (all-MiniLM-L6-v2)", |b| {
            b.iter(|| {
                i += 1;
                model
                    .embed(&[QUESTIONS[i % QUESTIONS.len()]])
                    .expect("embed")
            })
        });
    }
}

criterion_group!(benches, add, search);
criterion_main!(benches);
