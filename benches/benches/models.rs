#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! The cross-encoder's pass as a search runs it, when the reranker is
//! installed: 20 candidate messages of LoCoMo's usual length with the
//! message before (about 200 characters) and of the longest it reads
//! (500, `rerank_chars`). With the reranker on, this is nearly all of a
//! search's time (docs/evaluation.md, "Where a search's time goes with
//! the reranker"), and it grows with the characters read.

use chronolog_benches::memory::{QUESTIONS, turn};
use criterion::{Criterion, criterion_group, criterion_main};

fn rerank(c: &mut Criterion) {
    let Some(reranker) = chronolog_engine::default_reranker() else {
        eprintln!("the reranker is not installed (scripts/install-model.sh): nothing to measure");
        return;
    };
    for chars in [200, 500] {
        let passages: Vec<String> = (0..20).map(|i| candidate(i, chars)).collect();
        let texts: Vec<&str> = passages.iter().map(String::as_str).collect();
        let name = format!(
            "models/rerank 20 messages of {chars} characters ({})",
            reranker.name()
        );
        c.bench_function(&name, |b| {
            b.iter(|| reranker.score(QUESTIONS[0], &texts).expect("rerank"))
        });
    }
}

/// A candidate message of about `chars` characters: generated turns said
/// one after another, cut at a word.
fn candidate(i: u64, chars: usize) -> String {
    let mut text = String::from("user:");
    let mut n = i * 7;
    while text.chars().count() < chars {
        text.push(' ');
        text.push_str(&turn(n).text);
        n += 1;
    }
    let cut = text
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(at, _)| at);
    match text[..cut].rfind(' ') {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

criterion_group! {
    name = benches;
    // A pass takes a good part of a second: ten samples are enough.
    config = Criterion::default().sample_size(10);
    targets = rerank
}
criterion_main!(benches);
