//! Scratch profile of the load path: where does the time go?
use chronolog_benches::Workload;
use chronolog_storage::{Interval, Store, Timestamp, Value};
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let w = Workload::STANDARD;
    let store = Store::in_memory();
    let rel = store.create_relation(chronolog_benches::works_at_schema())?;
    let (mut build, mut commit) = (Duration::ZERO, Duration::ZERO);
    let mut people = Vec::new();
    let names: Vec<String> = (0..w.entities).map(Workload::person).collect();
    let companies: Vec<Vec<String>> = (0..w.versions)
        .map(|k| (0..w.entities).map(|i| Workload::company(i, k)).collect())
        .collect();
    let total = Instant::now();
    for k in 0..w.versions {
        for chunk in (0..w.entities).collect::<Vec<_>>().chunks(10_000) {
            let t = Instant::now();
            let mut txn = store.begin();
            for &i in chunk {
                let p = if k == 0 {
                    let s = txn.symbol(&names[i])?;
                    people.push(s);
                    s
                } else {
                    people[i]
                };
                let c = txn.symbol(&companies[k][i])?;
                txn.assert(
                    rel,
                    vec![Value::Sym(p), Value::Sym(c)],
                    Interval::starting(Timestamp(w.valid_from(i, k))),
                    None,
                )?;
            }
            build += t.elapsed();
            let t = Instant::now();
            txn.commit()?;
            commit += t.elapsed();
        }
    }
    println!(
        "total {:?} build {:?} commit {:?} rate {:.0}/s",
        total.elapsed(),
        build,
        commit,
        w.rows() as f64 / total.elapsed().as_secs_f64()
    );
    println!(
        "rss {} heap {}",
        chronolog_benches::rss_bytes(),
        store.heap_bytes()
    );
    Ok(())
}
