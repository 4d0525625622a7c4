//! The agent memory's write side at scale: `add` latency (p50, p95, p99,
//! max) on a durable on-disk memory already holding 100,000 episodes, the
//! resident memory and disk footprint of those episodes with their facts,
//! and consolidation throughput (rule extraction, entity resolution,
//! conflicts; embeddings by the hashing embedder, so this is the
//! consolidator's own cost: `consolidate_locomo` measures it with the model),
//! then `search` latency with a 2,000-token budget (hashing embedder; the
//! real model's time for the question's embedding is reported apart).
//!
//! ```text
//! cargo run --release -p chronolog-benches --bin memory -- [EPISODES] [ADDS] [--no-consolidation] [--language en|zh|de]
//! ```
//! With `--language`, the generated turns say the same things in Chinese
//! or German (both spaces are embedded by hashing, so the language's own
//! cost is what changes: segmentation, detection, its rules).

use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use chronolog_benches::memory::turn_in;
use chronolog_benches::{percentile, rss_bytes};
use chronolog_engine::{Engine, HashingEmbedder, Store};
use chronolog_memory::{Memory, Options};

fn main() -> Result<()> {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let language = all
        .iter()
        .position(|a| a == "--language")
        .and_then(|i| all.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "en".into());
    let no_consolidation = all.iter().any(|a| a == "--no-consolidation");
    let mut args = all
        .iter()
        .filter(|a| a.parse::<u64>().is_ok())
        .map(String::as_str);
    let episodes: u64 = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let adds: u64 = args.next().map_or(Ok(2_000), |a| a.parse())?;
    let turn = |i| turn_in(&language, i);
    let tenants = 100;
    let dir = tempfile::tempdir()?;
    let rss_before = rss_bytes();
    let engine = Engine::with_embedders(
        Store::open(dir.path().join("db"))?,
        Arc::new(HashingEmbedder::new(384)),
        Arc::new(HashingEmbedder::new(512)),
    );
    println!("turns in `{language}`, e.g. {:?}", turn(0).text);
    let memory = Memory::with_engine(engine, Options::manual())?;

    // Load: whole conversations in one commit each, as an importer would.
    let started = Instant::now();
    let per_batch = 1_000;
    for batch in 0..episodes.div_ceil(per_batch) {
        let first = batch * per_batch;
        let messages: Vec<_> = (first..(first + per_batch).min(episodes))
            .map(turn)
            .collect();
        memory.add_batch(&format!("t{}", batch % tenants), &messages)?;
    }
    let loaded = started.elapsed().as_secs_f64();
    // Steady state: the indexer has caught up with the load (and, idle,
    // written its cache) before single adds are timed.
    memory.engine().sync_indexes()?;
    std::thread::sleep(std::time::Duration::from_millis(500));
    println!(
        "loaded {episodes} episodes in {loaded:.2} s ({:.0} episodes/s, batches of {per_batch})",
        episodes as f64 / loaded
    );

    // One message at a time, each its own durable commit.
    let mut micros = Vec::with_capacity(adds as usize);
    for i in 0..adds {
        let message = turn(episodes + i);
        let t = Instant::now();
        memory.add(&format!("t{}", i % tenants), message)?;
        micros.push(t.elapsed().as_micros() as u64);
    }
    let worst = micros.iter().copied().max().unwrap_or(0);
    println!(
        "add at {episodes} episodes ({adds} adds, synced commits): p50 {} us, p95 {} us, p99 {} us, max {worst} us",
        percentile(&mut micros, 50.0),
        percentile(&mut micros, 95.0),
        percentile(&mut micros, 99.0),
    );

    if no_consolidation {
        return Ok(());
    }
    let started = Instant::now();
    let report = memory.consolidate_now()?;
    let took = started.elapsed().as_secs_f64();
    println!(
        "consolidated {} episodes in {took:.1} s ({:.0} messages/s): {} claims, {} new facts, {} restated, {} ended",
        report.episodes,
        report.episodes as f64 / took,
        report.claims,
        report.facts,
        report.restated,
        report.ended
    );
    // Searches: a 2,000-token context per question, every channel.
    let questions = chronolog_benches::memory::questions_in(&language);
    let options = chronolog_memory::SearchOptions::default();
    let mut micros = Vec::new();
    let mut abstained = 0;
    for i in 0..400u64 {
        let question = questions[(i % questions.len() as u64) as usize];
        let t = Instant::now();
        let context = memory.search(&format!("t{}", i % tenants), question, &options)?;
        micros.push(t.elapsed().as_micros() as u64);
        abstained += usize::from(context.abstain);
    }
    println!(
        "search, 2,000-token budget, all channels, {} episodes in {tenants} tenants (400 questions, {abstained} abstained): p50 {} us, p95 {} us, p99 {} us",
        episodes + adds,
        percentile(&mut micros, 50.0),
        percentile(&mut micros, 95.0),
        percentile(&mut micros, 99.0),
    );
    // The question's embedding is the one model call on the read path.
    let (model, notice) = chronolog_engine::default_embedder_with_notice();
    if notice.is_none() {
        let mut micros = Vec::new();
        for i in 0..50 {
            let t = Instant::now();
            model.embed(&[questions[i % questions.len()]])?;
            micros.push(t.elapsed().as_micros() as u64);
        }
        println!(
            "the question's embedding with {}: p50 {} us, p95 {} us",
            model.name(),
            percentile(&mut micros, 50.0),
            percentile(&mut micros, 95.0)
        );
    }
    let rss = rss_bytes().saturating_sub(rss_before);
    let disk = dir_size(dir.path())?;
    println!(
        "footprint of {} episodes with their facts: {:.0} MiB resident, {:.0} MiB on disk",
        episodes + adds,
        rss as f64 / (1 << 20) as f64,
        disk as f64 / (1 << 20) as f64
    );
    Ok(())
}

fn dir_size(path: &std::path::Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            dir_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}
