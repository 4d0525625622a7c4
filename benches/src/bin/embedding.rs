//! Sentence-embedding throughput of a model on this machine (all-MiniLM-L6-v2
//! unless named: `minilm`, `potion`, `usem`): sentences per second over
//! real conversation turns (LoCoMo's dev file when given, else generated
//! sentences of mixed length), in the order they arrive (batches of 32 as
//! they come) and as the engine hands them over (all at once: MiniLM sorts
//! them by length so a batch pads less).
//!
//! ```text
//! cargo run --release -p chronolog-benches --bin embedding -- [LOCOMO.json] [N] [MODEL]
//! ```
//! The model is found as the engine finds it (`CHRONOLOG_MODEL_DIR`,
//! `CHRONOLOG_USEM_DIR`, ..., the per-user install).

use std::time::Instant;

use chronolog_engine::embedder_named;

fn turns(path: Option<&str>, n: usize) -> Vec<String> {
    let from_file = path
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .map(|data| {
            let mut out = Vec::new();
            for conv in data.as_array().into_iter().flatten() {
                for (key, turns) in conv["conversation"].as_object().into_iter().flatten() {
                    if key.starts_with("session_") && !key.ends_with("date_time") {
                        for turn in turns.as_array().into_iter().flatten() {
                            if let Some(text) = turn["text"].as_str() {
                                out.push(text.to_string());
                            }
                        }
                    }
                }
            }
            out
        })
        .unwrap_or_default();
    if !from_file.is_empty() {
        return from_file.into_iter().take(n).collect();
    }
    (0..n)
        .map(|i| {
            format!(
                "message {i}: {}",
                "we talked about the trip and the new job ".repeat(1 + (i * 7) % 9)
            )
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let texts = turns(args.get(1).map(String::as_str), n);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let name = args.get(3).map_or("minilm", String::as_str);
    let model = embedder_named(name)?;
    println!("{}", model.name());
    model.embed(&refs[..refs.len().min(32)])?; // warm up
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{} texts (mean {:.0} bytes), {threads} threads",
        refs.len(),
        refs.iter().map(|t| t.len()).sum::<usize>() as f64 / refs.len() as f64
    );
    let start = Instant::now();
    for batch in refs.chunks(32) {
        model.embed(batch)?;
    }
    let arrival = start.elapsed().as_secs_f64();
    let start = Instant::now();
    model.embed(&refs)?;
    let sorted = start.elapsed().as_secs_f64();
    println!(
        "in arrival order:  {:>7.1} sentences/s ({:.1} ms each)",
        refs.len() as f64 / arrival,
        arrival * 1e3 / refs.len() as f64
    );
    println!(
        "all at once:       {:>7.1} sentences/s ({:.1} ms each), {:.2}x",
        refs.len() as f64 / sorted,
        sorted * 1e3 / refs.len() as f64,
        arrival / sorted
    );
    Ok(())
}
