//! Workloads for the retrieval operators (issue #4): vectors, a text
//! corpus of agent-memory sentences, episodes linked to entities, and a
//! large random graph. Deterministic for a seed.

use anyhow::Result;
use chronolog_engine::Session;
use chronolog_storage::{ColumnDef, ColumnType, Interval, Schema, Store, Timestamp, Value};
use rand::{Rng, SeedableRng};

use crate::BATCH;

/// Sentences of the kind an agent stores: people, actions, places, times.
pub fn corpus(n: usize, seed: u64) -> Vec<String> {
    const VERBS: [&str; 12] = [
        "works at",
        "moved to",
        "visited",
        "talked about",
        "likes",
        "left",
        "joined",
        "studied at",
        "bought",
        "painted",
        "wrote about",
        "called",
    ];
    const THINGS: [&str; 24] = [
        "tencent",
        "moonshot",
        "paris",
        "berlin",
        "the museum",
        "a startup",
        "the gym",
        "a bakery",
        "the university",
        "hiking trips",
        "jazz concerts",
        "the new job",
        "her sister",
        "his dog",
        "a sunset",
        "the lake",
        "a novel",
        "the garden",
        "a bicycle",
        "the conference",
        "a pottery class",
        "the hospital",
        "a camping trip",
        "the beach",
    ];
    const WHEN: [&str; 8] = [
        "yesterday",
        "last week",
        "in may",
        "this morning",
        "after lunch",
        "on friday",
        "last summer",
        "two years ago",
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            format!(
                "p{} {} {} {} and p{} {} {}",
                rng.gen_range(0..5000),
                VERBS[rng.gen_range(0..VERBS.len())],
                THINGS[rng.gen_range(0..THINGS.len())],
                WHEN[rng.gen_range(0..WHEN.len())],
                rng.gen_range(0..5000),
                VERBS[rng.gen_range(0..VERBS.len())],
                THINGS[rng.gen_range(0..THINGS.len())],
            )
        })
        .collect()
}

/// Uniform random vectors in [-1, 1).
pub fn random_vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| (0..dim).map(|_| rng.gen_range(-1.0f32..1.0)).collect())
        .collect()
}

/// `vec_doc(id: int key, v: vec<dim>)` with `n` random vectors; every
/// tenth row's valid time ended in 2020, so an as-of-now scan filters it.
pub fn vector_db(n: usize, dim: usize, seed: u64) -> Result<Session> {
    let store = Store::in_memory();
    let rel = store.create_relation(Schema::new(
        "vec_doc",
        vec![
            ColumnDef::new("id", ColumnType::Int).key(),
            ColumnDef::new("v", ColumnType::Vector(dim as u32)),
        ],
    ))?;
    let ended = Interval::new(Timestamp::MIN, Timestamp::parse("2020-01-01")?)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for start in (0..n).step_by(BATCH) {
        let mut txn = store.begin();
        for i in start..(start + BATCH).min(n) {
            let v: Vec<f32> = (0..dim).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
            let valid = if i % 10 == 9 { ended } else { Interval::ALWAYS };
            txn.assert(
                rel,
                vec![Value::Int(i as i64), Value::Vector(v.into())],
                valid,
                None,
            )?;
        }
        txn.commit()?;
    }
    Ok(Session::new(store))
}

/// `episode(id: sym key, text: str search embed)` with `n` corpus
/// sentences, and `mentions(episode, entity)` linking each to the two
/// people it names; indexes caught up. Embedded with the hashing embedder,
/// so the numbers measure the operators, whatever model is installed.
pub fn episode_db(n: usize, seed: u64) -> Result<Session> {
    let mut db = Session::with_embedder(
        Store::in_memory(),
        std::sync::Arc::new(chronolog_engine::HashingEmbedder::new(384)),
    );
    db.run(
        ":create episode(id: sym key, text: str search embed).
         :create mentions(episode: sym, entity: sym).",
    )?;
    let store = db.store().clone();
    let episode = store.relation_id("episode")?;
    let mentions = store.relation_id("mentions")?;
    let texts = corpus(n, seed);
    for (chunk_at, chunk) in texts.chunks(BATCH).enumerate() {
        let mut txn = store.begin();
        for (i, text) in chunk.iter().enumerate() {
            let id = txn.symbol(&format!("ep{}", chunk_at * BATCH + i))?;
            txn.assert(
                episode,
                vec![Value::Sym(id), Value::str(text)],
                Interval::ALWAYS,
                None,
            )?;
            for word in text.split(' ').filter(|w| w.starts_with('p')) {
                if word[1..].chars().all(|c| c.is_ascii_digit()) && word.len() > 1 {
                    let person = txn.symbol(word)?;
                    txn.assert(
                        mentions,
                        vec![Value::Sym(id), Value::Sym(person)],
                        Interval::ALWAYS,
                        None,
                    )?;
                }
            }
        }
        txn.commit()?;
    }
    // Measure the steady state the indexer reaches by itself once writes
    // pause (one text segment), not the moment right after the load.
    db.compact_indexes()?;
    Ok(db)
}

/// `link(a: sym, b: sym)`: `edges` random links over `nodes` nodes
/// (`n0`, `n1`, ...).
pub fn graph_db(nodes: usize, edges: usize, seed: u64) -> Result<Session> {
    let store = Store::in_memory();
    let rel = store.create_relation(Schema::new(
        "link",
        vec![
            ColumnDef::new("a", ColumnType::Sym),
            ColumnDef::new("b", ColumnType::Sym),
        ],
    ))?;
    let mut txn = store.begin();
    let ids: Vec<_> = (0..nodes)
        .map(|i| txn.symbol(&format!("n{i}")))
        .collect::<Result<_, _>>()?;
    txn.commit()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for start in (0..edges).step_by(BATCH * 5) {
        let mut txn = store.begin();
        for _ in start..(start + BATCH * 5).min(edges) {
            let (a, b) = (ids[rng.gen_range(0..nodes)], ids[rng.gen_range(0..nodes)]);
            txn.assert(
                rel,
                vec![Value::Sym(a), Value::Sym(b)],
                Interval::ALWAYS,
                None,
            )?;
        }
        txn.commit()?;
    }
    Ok(Session::new(store))
}

/// GB/s of a plain single-threaded streaming read (a sum) of `data`: this
/// machine's memory bandwidth for the vector scan's access pattern.
pub fn streaming_read_gbps(data: &[f32]) -> f64 {
    let started = std::time::Instant::now();
    let mut acc = [0.0f32; 16];
    for chunk in data.chunks_exact(16) {
        for (a, x) in acc.iter_mut().zip(chunk) {
            *a += x;
        }
    }
    let total: f32 = acc.iter().sum();
    std::hint::black_box(total);
    (data.len() * 4) as f64 / started.elapsed().as_secs_f64() / 1e9
}
