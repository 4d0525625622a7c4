#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! Criterion benches for the retrieval operators (issue #4), at sizes that
//! run in a minute; `compare_retrieval` runs the issue's full sizes.
//!
//! ```sh
//! cargo bench -p chronolog-benches --bench retrieval
//! ```

use std::hint::black_box;

use chronolog_benches::retrieval::{episode_db, graph_db, random_vectors, vector_db};
use chronolog_engine::{NearOptions, Precision};
use criterion::{Criterion, criterion_group, criterion_main};

fn retrieval(c: &mut Criterion) {
    let db = vector_db(100_000, 384, 1).expect("vectors");
    let q = random_vectors(1, 384, 2).remove(0);
    let mut group = c.benchmark_group("near_100k_x_384_top10");
    group.sample_size(20);
    for (name, precision) in [
        ("f32", Precision::Exact),
        ("int8", Precision::Int8),
        ("sign", Precision::Sign),
    ] {
        let options = NearOptions {
            precision,
            ..NearOptions::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    db.near_vector("vec_doc", &q, 10, options, None)
                        .expect("near"),
                )
            })
        });
    }
    group.finish();
    drop(db);

    let mut db = episode_db(20_000, 4).expect("episodes");
    c.bench_function("bm25_20k_docs_two_words", |b| {
        b.iter(|| {
            black_box(
                db.run("?- bm25(episode, \"sunset jazz\", 10).")
                    .expect("bm25"),
            )
        })
    });
    c.bench_function("rrf_near_bm25_hops_20k_episodes", |b| {
        b.iter(|| {
            black_box(
                db.run(
                    "?- rrf(near(episode, \"where did p17 work\", 20), \
                     bm25(episode, \"p17 jazz\", 20), hops(p17, 2)) limit 10.",
                )
                .expect("rrf"),
            )
        })
    });
    drop(db);

    let mut db = graph_db(20_000, 100_000, 6).expect("graph");
    c.bench_function("hops_2_on_100k_links", |b| {
        b.iter(|| black_box(db.run("?- hops(n17, 2).").expect("hops")))
    });
}

criterion_group!(benches, retrieval);
criterion_main!(benches);
