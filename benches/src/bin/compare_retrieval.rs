//! The retrieval operators' numbers (issue #4), each against its target.
//!
//! ```sh
//! cargo run --release -p chronolog-benches --bin compare_retrieval
//! ```
//!
//! `--small` runs every workload at a tenth of its size (a quick check).

use std::collections::HashMap;
use std::time::Instant;

use anyhow::{Result, ensure};
use chronolog_benches::percentile;
use chronolog_benches::retrieval::*;
use chronolog_engine::{Limits, Metric, NearOptions, Output, Precision, Session};
use chronolog_storage::Value;
use rand::{Rng, SeedableRng};

fn micros<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, u64)> {
    let started = Instant::now();
    let out = f()?;
    Ok((out, started.elapsed().as_micros() as u64))
}

fn row_count(out: Vec<Output>) -> usize {
    match out.into_iter().last() {
        Some(Output::Rows(r)) => r.len(),
        _ => 0,
    }
}

fn main() -> Result<()> {
    let small = std::env::args().any(|a| a == "--small");
    // `--only text` skips the vector and graph sections.
    let only_text = std::env::args().any(|a| a == "text");
    let scale = |n: usize| if small { n / 10 } else { n };
    let mut table: Vec<[String; 3]> = Vec::new();

    // 1. Vector scan: 1,000,000 x 384 f32, as-of filtered, top-10, one thread.
    let (n, dim) = (if only_text { 1000 } else { scale(1_000_000) }, 384);
    let started = Instant::now();
    let db = vector_db(n, dim, 1)?;
    eprintln!(
        "loaded {n} vectors in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let bytes = (n * dim * 4) as f64;
    let reference: Vec<f32> = random_vectors(n / 1000, dim, 9)
        .into_iter()
        .flatten()
        .cycle()
        .take(n * dim)
        .collect();
    let bandwidth = (0..3)
        .map(|_| streaming_read_gbps(&reference))
        .fold(0.0f64, f64::max);
    drop(reference);
    let queries = random_vectors(5, dim, 2);
    let (mut exact_us, mut int8_us) = (Vec::new(), Vec::new());
    for q in &queries {
        let (exact, t) =
            micros(|| Ok(db.near_vector("vec_doc", q, 10, NearOptions::default(), None)?))?;
        exact_us.push(t);
        let options = NearOptions {
            precision: Precision::Int8,
            ..NearOptions::default()
        };
        let (int8, t) = micros(|| Ok(db.near_vector("vec_doc", q, 10, options, None)?))?;
        int8_us.push(t);
        ensure!(
            exact.iter().map(|x| &x.0).eq(int8.iter().map(|x| &x.0)),
            "int8 top-10 differs from exact"
        );
    }
    let exact_p50 = percentile(&mut exact_us, 50.0) as f64;
    let int8_p50 = percentile(&mut int8_us, 50.0) as f64;
    let scan_gbps = bytes / (exact_p50 / 1e6) / 1e9;
    table.push([
        format!("vector scan {n} x {dim} f32, as-of filtered, top-10, 1 thread (p50 of 5)"),
        format!(
            "{:.1} ms, {scan_gbps:.2} GB/s = {:.0}% of the {bandwidth:.2} GB/s streaming read",
            exact_p50 / 1e3,
            100.0 * scan_gbps / bandwidth
        ),
        ">= 60% of bandwidth".into(),
    ]);
    table.push([
        "int8 first pass + exact re-score, same final top-10".into(),
        format!(
            "{:.1} ms, {:.1}x faster than f32",
            int8_p50 / 1e3,
            exact_p50 / int8_p50
        ),
        ">= 3x faster".into(),
    ]);
    let batch: Vec<Vec<f32>> = random_vectors(32, dim, 3);
    let (_, t) = micros(|| Ok(db.near_batch("vec_doc", &batch, 10, Metric::Cosine, None)?))?;
    table.push([
        "32 queries as one faer batch (rows read once)".into(),
        format!(
            "{:.1} ms, {:.2} ms per query",
            t as f64 / 1e3,
            t as f64 / 32e3
        ),
        "-".into(),
    ]);
    drop(db);

    // 2. BM25 over 100,000 documents, two-word queries, from text.
    let docs = scale(100_000);
    let mut db = episode_db(docs, 4)?;
    let words = [
        "sunset", "tencent", "berlin", "jazz", "bakery", "museum", "lake", "novel", "beach",
        "garden",
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut samples = Vec::new();
    for _ in 0..500 {
        let q = format!(
            "?- bm25(episode, \"{} {}\", 10).",
            words[rng.gen_range(0..words.len())],
            words[rng.gen_range(0..words.len())]
        );
        let (rows, t) = micros(|| Ok(row_count(db.run(&q)?)))?;
        ensure!(rows > 0, "no hits for {q}");
        samples.push(t);
    }
    table.push([
        format!("bm25 top-10 over {docs} documents, two words, from text (p50 of 500)"),
        format!("{} us", percentile(&mut samples, 50.0)),
        "< 200 us".into(),
    ]);

    // 3. A fused rrf(near, bm25, hops) over 100,000 episodes, from text.
    let mut samples = Vec::new();
    for i in 0..200 {
        let person = rng.gen_range(0..5000);
        let q = format!(
            "?- rrf(near(episode, \"where did p{person} work\", 20),
                    bm25(episode, \"p{person} {}\", 20),
                    hops(p{person}, 2)) limit 10.",
            words[i % words.len()]
        );
        let (rows, t) = micros(|| Ok(row_count(db.run(&q)?)))?;
        ensure!(rows == 10, "fused query returned {rows} rows");
        samples.push(t);
    }
    // Its parts alone, to see where the time goes.
    for (what, q) in [
        ("near", "?- near(episode, \"where did p17 work\", 20)."),
        ("bm25", "?- bm25(episode, \"p17 jazz\", 20)."),
        ("hops", "?- hops(p17, 2)."),
    ] {
        let mut parts = Vec::new();
        for _ in 0..50 {
            parts.push(micros(|| Ok(row_count(db.run(q)?)))?.1);
        }
        table.push([
            format!("  of which {what} alone (p50 of 50)"),
            format!("{:.2} ms", percentile(&mut parts, 50.0) as f64 / 1e3),
            "-".into(),
        ]);
    }
    table.push([
        format!("rrf(near, bm25, hops(p, 2)) over {docs} episodes, text to top-10 (of 200)"),
        format!(
            "p50 {:.2} ms, p95 {:.2} ms",
            percentile(&mut samples, 50.0) as f64 / 1e3,
            percentile(&mut samples, 95.0) as f64 / 1e3
        ),
        "p95 < 5 ms".into(),
    ]);
    drop(db);

    // 4. hops(x, 2) on a graph of 1,000,000 links.
    let (nodes, edges) = (scale(200_000), scale(1_000_000));
    let mut db: Session = graph_db(nodes, edges, 6)?;
    let prepared = db.prepare("?- hops($x, 2).")?;
    let mut samples = Vec::new();
    let mut reached = 0;
    for i in 0..1000 {
        let x = format!("n{}", rng.gen_range(0..nodes));
        let params = HashMap::from([(
            "x".to_string(),
            Value::Sym(db.store().symbol(&x).expect("node")),
        )]);
        let (rows, t) = micros(|| Ok(db.execute(&prepared, &params, &Limits::default())?.len()))?;
        if i > 0 {
            // The first query builds the adjacency list.
            samples.push(t);
        }
        reached += rows;
    }
    table.push([
        format!(
            "hops(x, 2) on {edges} links over {nodes} nodes, prepared (p50 of 999; {} reached on average)",
            reached / 1000
        ),
        format!("{} us", percentile(&mut samples, 50.0)),
        "< 100 us".into(),
    ]);

    println!("| measure | chronolog | target (issue #4) |");
    println!("|---|---|---|");
    for [a, b, c] in table {
        println!("| {a} | {b} | {c} |");
    }
    Ok(())
}
