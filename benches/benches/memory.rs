#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! `Memory::add` (one durable commit per message) on a memory that
//! already holds 100,000 episodes; `benches/src/bin/memory.rs` reports its
//! p99.

use std::sync::Arc;

use chronolog_benches::memory::turn;
use chronolog_engine::{Engine, HashingEmbedder, Store};
use chronolog_memory::{Memory, Options};
use criterion::{Criterion, criterion_group, criterion_main};

fn add(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let engine = Engine::with_embedder(
        Store::open(dir.path().join("db")).expect("store"),
        Arc::new(HashingEmbedder::new(384)),
    );
    let memory = Memory::with_engine(engine, Options::manual()).expect("memory");
    let episodes = 100_000u64;
    for batch in 0..episodes / 1_000 {
        let messages: Vec<_> = (batch * 1_000..(batch + 1) * 1_000).map(turn).collect();
        memory
            .add_batch(&format!("t{}", batch % 100), &messages)
            .expect("load");
    }
    memory.engine().sync_indexes().expect("indexes");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let mut i = episodes;
    c.bench_function("memory/add (100k episodes, synced)", |b| {
        b.iter(|| {
            i += 1;
            memory.add("t0", turn(i)).expect("add")
        })
    });
}

criterion_group!(benches, add);
criterion_main!(benches);
