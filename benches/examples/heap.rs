fn main() {
    let (db, s) = chronolog_benches::load_chronolog(chronolog_storage::Store::in_memory(), chronolog_benches::Workload::STANDARD).unwrap();
    println!("load {s:.2}s rss {}", chronolog_benches::rss_bytes());
    println!("total {}", db.store.heap_bytes());
}
