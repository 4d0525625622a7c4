//! Scratch: perf target for point lookups.
use chronolog_benches::*;
use chronolog_storage::Store;
fn main() -> anyhow::Result<()> {
    let w = Workload::STANDARD;
    let (db, _) = load_chronolog(Store::in_memory(), w)?;
    let snap = db.store.snapshot();
    let t = w.mid_time();
    let started = std::time::Instant::now();
    let mut found = 0;
    let n = 3_000_000;
    for k in 0..n {
        let i = (k * 7919) % w.entities;
        found += chronolog_point(&db, &snap, i, t).is_some() as usize;
    }
    println!(
        "{} ns/lookup ({found})",
        started.elapsed().as_nanos() / n as u128
    );
    Ok(())
}
