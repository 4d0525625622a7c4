//! BM25 evidence recall@5 on LoCoMo, by analyzer: the measurement behind
//! `search`'s English default (docs/language.md). Each conversation's turns
//! go into one relation; each question (categories 1-4) is searched with
//! `bm25(turn, question, 5)`, and a question scores the share of its
//! evidence turns found.
//!
//! ```text
//! cargo run --release -p chronolog-engine --example bm25_locomo -- ../shared/data/locomo10-dev.json
//! ```

use std::collections::HashMap;

use chronolog_engine::{Output, Session, Val};
use serde_json::Value as Json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: bm25_locomo LOCOMO.json")?;
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let conversations = data.as_array().ok_or("expected a list of conversations")?;
    for analyzer in ["search(simple)", "search"] {
        let (mut sum, mut questions) = (0.0, 0usize);
        for conv in conversations {
            let mut db = Session::in_memory();
            db.run(&format!(":create turn(id: str key, text: str {analyzer})."))?;
            let mut params = Vec::new();
            if let Some(sessions) = conv["conversation"].as_object() {
                for (key, turns) in sessions {
                    if !key.starts_with("session_") || key.ends_with("date_time") {
                        continue;
                    }
                    for turn in turns.as_array().into_iter().flatten() {
                        let id = turn["dia_id"].as_str().unwrap_or_default().to_string();
                        let mut text = turn["text"].as_str().unwrap_or_default().to_string();
                        if let Some(caption) = turn["blip_caption"].as_str() {
                            text = format!("{text} [image: {caption}]");
                        }
                        params.push((id, text));
                    }
                }
            }
            for (id, text) in &params {
                let p = HashMap::from([
                    ("id".to_string(), chronolog_storage::Value::str(id.as_str())),
                    (
                        "t".to_string(),
                        chronolog_storage::Value::str(text.as_str()),
                    ),
                ]);
                db.run_with(
                    "turn($id, $t) valid always.",
                    &p,
                    &chronolog_engine::Limits::default(),
                )?;
            }
            db.sync_indexes()?;
            for qa in conv["qa"].as_array().into_iter().flatten() {
                if qa["category"].as_i64() == Some(5) {
                    continue;
                }
                let evidence: Vec<String> = qa["evidence"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str())
                    .flat_map(|e| e.split(';').map(|s| s.trim().to_string()))
                    .filter(|e| !e.is_empty())
                    .collect();
                if evidence.is_empty() {
                    continue;
                }
                let question = qa["question"].as_str().unwrap_or_default();
                let p = HashMap::from([("q".to_string(), chronolog_storage::Value::str(question))]);
                let out = db.run_with(
                    "?- bm25(turn, $q, 5).",
                    &p,
                    &chronolog_engine::Limits::default(),
                )?;
                let Some(Output::Rows(rows)) = out.last() else {
                    continue;
                };
                let found: Vec<String> = rows
                    .iter()
                    .filter_map(|r| match &r[0] {
                        Val::Str(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect();
                let hit = evidence.iter().filter(|e| found.contains(e)).count();
                sum += hit as f64 / evidence.len() as f64;
                questions += 1;
            }
        }
        println!(
            "{analyzer:>15}: evidence recall@5 {:.3} over {questions} questions",
            sum / questions as f64
        );
    }
    Ok(())
}
