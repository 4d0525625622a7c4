#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! Criterion benches of the storage hot paths, each beside cozo 0.7.6 on the
//! same data in the same run (`cargo bench -p chronolog-benches --bench storage`).
//! The `compare` binary turns the same workloads into a table of ratios.

use std::hint::black_box;

use chronolog_benches::*;
use chronolog_storage::{Interval, Store, Timestamp, Value};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

fn storage(c: &mut Criterion) {
    let w = Workload::STANDARD;
    let (db, _) = load_chronolog(Store::in_memory(), w).expect("load chronolog");
    let (cozo, _) = load_cozo(w).expect("load cozo");
    let snap = db.store.snapshot();
    let t = w.mid_time();

    let mut group = c.benchmark_group("point_as_of");
    let mut i = 0usize;
    group.bench_function("chronolog", |b| {
        b.iter(|| {
            i = (i + 7919) % w.entities;
            black_box(chronolog_point(&db, &snap, i, t))
        })
    });
    group.bench_function("cozo", |b| {
        b.iter(|| {
            i = (i + 7919) % w.entities;
            black_box(cozo_query(&cozo, COZO_POINT, Some(i), t).expect("cozo"))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("scan_now_100k");
    group.sample_size(10);
    group.bench_function("chronolog", |b| {
        b.iter(|| black_box(chronolog_scan_now(&db, &snap).expect("scan")))
    });
    let now = Timestamp::now().0;
    group.bench_function("cozo", |b| {
        b.iter(|| black_box(cozo_query(&cozo, COZO_SCAN, None, now).expect("cozo")))
    });
    group.finish();

    let mut group = c.benchmark_group("insert_batch_10k");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Elements(BATCH as u64));
    group.bench_function("chronolog_in_memory", |b| {
        b.iter_batched(
            || {
                let store = Store::in_memory();
                let rel = store.create_relation(works_at_schema()).expect("create");
                (store, rel)
            },
            |(store, rel)| {
                let mut txn = store.begin();
                for i in 0..BATCH {
                    let p = txn.symbol(&Workload::person(i)).expect("sym");
                    let c = txn.symbol(&Workload::company(i, 0)).expect("sym");
                    txn.assert(
                        rel,
                        vec![Value::Sym(p), Value::Sym(c)],
                        Interval::starting(Timestamp(w.valid_from(i, 0))),
                        None,
                    )
                    .expect("assert");
                }
                txn.commit().expect("commit")
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("cozo_in_memory", |b| {
        b.iter_batched(
            || (),
            |()| {
                load_cozo(Workload {
                    entities: BATCH,
                    versions: 1,
                })
                .expect("cozo")
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, storage);
criterion_main!(benches);
