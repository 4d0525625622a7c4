//! The text tables a run prints.

use serde_json::Value as Json;

pub(super) fn print_table(result: &Json) {
    println!(
        "{} ({} conversations, {} turns, {} questions), embedder {}; ingest {:.2} s, consolidation {:.1} s ({:.0} turns/s); full context {} tokens per conversation; a question's embedding p50 / p95 {:.1} / {:.1} ms ({} questions)\n",
        result["dataset"].as_str().unwrap_or(""),
        result["conversations"],
        result["turns"],
        result["questions"],
        result["embedder"],
        result["ingest_seconds"].as_f64().unwrap_or(0.0),
        result["consolidate_seconds"].as_f64().unwrap_or(0.0),
        result["turns_per_second"].as_f64().unwrap_or(0.0),
        result["full_context_tokens_per_conversation"],
        result["question_embedding_ms"]["p50"]
            .as_f64()
            .unwrap_or(0.0),
        result["question_embedding_ms"]["p95"]
            .as_f64()
            .unwrap_or(0.0),
        result["question_embedding_ms"]["questions"],
    );
    println!(
        "| config | R@1 | R@5 | R@10 | R@20 | session R@5 | session any@5 | NDCG@10 | cov@500 | cov@1000 | cov@2000 | cov@4000 | answer in context @2000 | stated answer in context @2000 | ctx/full | abstained, answerable | abstained, unanswerable | p50 / p95 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for config in result["configs"].as_array().into_iter().flatten() {
        let m = &config["metrics"];
        let a = &m["answerable"];
        let f = |v: &Json| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} / {:.1} |",
            config["name"].as_str().unwrap_or(""),
            f(&a["recall"]["@1"]),
            f(&a["recall"]["@5"]),
            f(&a["recall"]["@10"]),
            f(&a["recall"]["@20"]),
            f(&a["session_recall"]["@5"]),
            f(&a["session_recall_any"]["@5"]),
            f(&a["ndcg@10"]),
            f(&a["coverage"]["500"]),
            f(&a["coverage"]["1000"]),
            f(&a["coverage"]["2000"]),
            f(&a["coverage"]["4000"]),
            f(&a["containment"]["2000"]),
            f(&a["containment_stated"]["2000"]),
            f(&a["context_to_full"]),
            f(&a["abstained"]),
            f(&m["unanswerable_abstained"]),
            m["search_p50_us"].as_f64().unwrap_or(0.0) / 1000.0,
            m["search_p95_us"].as_f64().unwrap_or(0.0) / 1000.0,
        );
    }
}

/// The hybrid's numbers per question type: LongMemEval's types differ in
/// what they ask of retrieval (one session, several, an update, time).
pub(super) fn print_types(result: &Json) {
    let Some(hybrid) = result["configs"].as_array().and_then(|c| c.first()) else {
        return;
    };
    let Some(types) = hybrid["metrics"]["by_category"].as_object() else {
        return;
    };
    let f = |v: &Json| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
    println!(
        "\n{} per question type:\n\n| type | questions | session any@5 | session any@10 | R@5 | all evidence @5 | all evidence @10 | cov@2000 | answer spans | answer in context @2000 | stated answers | stated answer in context @2000 | abstained |",
        hybrid["name"].as_str().unwrap_or("")
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, m) in types {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m["questions"],
            f(&m["session_recall_any"]["@5"]),
            f(&m["session_recall_any"]["@10"]),
            f(&m["recall"]["@5"]),
            f(&m["recall_all"]["@5"]),
            f(&m["recall_all"]["@10"]),
            f(&m["coverage"]["2000"]),
            m["extractive_questions"],
            f(&m["containment"]["2000"]),
            m["stated_questions"],
            f(&m["containment_stated"]["2000"]),
            f(&m["abstained"]),
        );
    }
}

/// Where budgets did not nest: an item a context held that the context at
/// the next larger budget dropped (a short message that filled a small
/// budget's last room, crowded out at the larger one).
pub(super) fn print_nesting(result: &Json) {
    for config in result["configs"].as_array().into_iter().flatten() {
        let m = &config["metrics"];
        if m["unnested_questions"].as_u64().unwrap_or(0) > 0 {
            println!(
                "\n{}: budgets did not nest on {} questions ({} items held at a budget and dropped at the next)",
                config["name"].as_str().unwrap_or(""),
                m["unnested_questions"],
                m["unnested_items"],
            );
        }
    }
}
