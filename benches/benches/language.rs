#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! Criterion benches of the language (`cargo bench -p chronolog-benches --bench
//! language`), each beside cozo 0.7.6 on the same data in the same run. The
//! `compare_language` binary turns the same workloads into a table of ratios.

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;

use chronolog_benches::*;
use chronolog_engine::{Limits, Session};
use chronolog_storage::{Store, Timestamp, Value};
use cozo::ScriptMutability;
use criterion::{Criterion, criterion_group, criterion_main};

fn language(c: &mut Criterion) {
    let w = Workload::STANDARD;
    let (loaded, _) = load_chronolog(Store::in_memory(), w).expect("load chronolog");
    let (cozo, _) = load_cozo(w).expect("load cozo");
    let mut db = Session::new(loaded.store.clone());
    let prepared = db
        .prepare("?- works_at($p, Y) as_of $t1.")
        .expect("prepare");
    let t1 = w.mid_time();
    let mut group = c.benchmark_group("point_query");
    let mut i = 0usize;
    group.bench_function("chronolog_prepared", |b| {
        b.iter(|| {
            i = (i + 7919) % w.entities;
            let params = HashMap::from([
                ("p".to_string(), Value::Sym(loaded.people[i])),
                ("t1".to_string(), Value::Time(Timestamp(t1))),
            ]);
            black_box(
                db.execute(&prepared, &params, &Limits::default())
                    .expect("run"),
            )
        })
    });
    group.bench_function("chronolog_text", |b| {
        b.iter(|| {
            i = (i + 7919) % w.entities;
            black_box(
                db.run(&format!("?- works_at(p{i}, Y) as_of {}.", Timestamp(t1)))
                    .expect("run"),
            )
        })
    });
    group.bench_function("cozo_text", |b| {
        b.iter(|| {
            i = (i + 7919) % w.entities;
            black_box(cozo_query(&cozo, COZO_POINT, Some(i), t1).expect("cozo"))
        })
    });
    group.finish();

    let pairs = graph_edges(20_000, 100_000, 11);
    let mut db = load_graph_chronolog(&pairs).expect("graph");
    let cozo = load_graph_cozo(&pairs).expect("graph");
    db.run("reach(Y) :- e(0, Y). reach(Y) :- reach(X), e(X, Y).")
        .expect("rules");
    let mut group = c.benchmark_group("reachability_20k_nodes");
    group.sample_size(10);
    group.bench_function("chronolog", |b| {
        b.iter(|| black_box(db.run("?- reach(Y).").expect("run")))
    });
    group.bench_function("cozo", |b| {
        b.iter(|| {
            black_box(
                cozo.run_script(
                    "reach[y] := *e[0, y]\nreach[y] := reach[x], *e[x, y]\n?[y] := reach[y]",
                    BTreeMap::new(),
                    ScriptMutability::Immutable,
                )
                .expect("cozo"),
            )
        })
    });
    group.finish();
    drop(db);
    drop(cozo);

    let (mut db, cozo) = load_colleagues(100_000, 10_000).expect("colleagues");
    let mut group = c.benchmark_group("colleague_100k_people");
    group.sample_size(10);
    group.bench_function("chronolog", |b| {
        b.iter(|| black_box(db.run("?- colleague(X, Y).").expect("run")))
    });
    group.bench_function("cozo", |b| {
        b.iter(|| {
            black_box(
                cozo.run_script(COLLEAGUE_COZO, BTreeMap::new(), ScriptMutability::Immutable)
                    .expect("cozo"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, language);
criterion_main!(benches);
