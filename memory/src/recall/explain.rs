//! Why a search finds what it finds, step by step, for analysts
//! (`:recall --explain`).

use std::fmt::Write;

use super::{Reader, Retrieval, SearchOptions, retrieve};
use crate::error::Result;
use crate::lang::Lang;

/// Why a search finds what it finds: the question as understood, each
/// channel's first candidates, the fusion with each candidate's channels
/// and ranks, and the gate's verdict. For analysts (`:recall --explain`).
pub(crate) fn explain(
    reader: Reader<'_>,
    tenant: &str,
    question: &str,
    lang: Lang,
    options: &SearchOptions,
) -> Result<String> {
    let mut retrieval = retrieve(reader, tenant, question, lang, options)?;
    let tuning = reader.tuning;
    let context = retrieval.context_at(options.budget)?;
    let Retrieval {
        understood,
        at,
        rankings,
        fused,
        reread,
        crossing,
        mixed,
        gathered,
        ..
    } = &retrieval;
    let mut out = String::new();
    understood_part(&mut out, question, lang, understood, *at);
    let held: Vec<&str> = reader
        .languages
        .held(tenant)?
        .iter()
        .map(Lang::code)
        .collect();
    if *mixed {
        let _ = writeln!(
            out,
            "  mixed languages: the memory is in {}; both spaces are searched, and the word gates defer",
            held.join(", ")
        );
    } else if *crossing {
        let _ = writeln!(
            out,
            "  across languages: the memory is in {}; meaning is searched in the multilingual space only, and the word gates defer",
            held.join(", ")
        );
    }
    for r in rankings {
        let _ = writeln!(
            out,
            "channel {} (weight {}): {} candidates",
            r.channel.name(),
            r.channel.weight(tuning),
            r.items.len()
        );
        for (rank, (id, score)) in r.items.iter().take(5).enumerate() {
            let _ = writeln!(out, "  {}. {id} ({score:.3})", rank + 1);
        }
    }
    let _ = writeln!(out, "fused (weight / ({} + rank), summed):", tuning.rrf_k);
    for (rank, (id, score)) in fused.iter().take(10).enumerate() {
        let from: Vec<String> = rankings
            .iter()
            .filter_map(|r| {
                r.items
                    .iter()
                    .position(|(i, _)| i == id)
                    .map(|p| format!("{} #{}", r.channel.name(), p + 1))
            })
            .collect();
        let _ = writeln!(out, "  {}. {id} {score:.3} [{}]", rank + 1, from.join(", "));
    }
    reranked_part(&mut out, reread.as_ref());
    if let Some((name, _)) = reread.as_ref().filter(|_| !gathered.judged.is_empty()) {
        let _ = writeln!(out, "facts asked, ordered by {name}:");
        for (rank, (slot, score)) in gathered.judged.iter().take(10).enumerate() {
            let _ = writeln!(out, "  {}. {slot} {score:.3}", rank + 1);
        }
    }
    let _ = match &context.reason {
        Some(reason) if context.abstain => writeln!(out, "verdict: abstain ({reason})"),
        _ => writeln!(
            out,
            "verdict: {} items, {} of {} tokens",
            context.items.len(),
            context.tokens,
            context.budget
        ),
    };
    let _ = write!(out, "tuning:\n{}", tuning.to_text());
    Ok(out)
}

/// The question as understood: its words, entities, predicates asked and
/// the instants it is read at.
fn understood_part(
    out: &mut String,
    question: &str,
    lang: Lang,
    understood: &super::understand::Question,
    at: super::Instants,
) {
    let _ = writeln!(out, "question: {question:?} ({})", lang.code());
    let _ = writeln!(out, "  words searched: {:?}", understood.text);
    let _ = writeln!(
        out,
        "  entities: {:?}; names unknown here: {:?}",
        understood.entities, understood.unknown_names
    );
    if !understood.predicates.is_empty() {
        let _ = writeln!(out, "  predicates asked: {:?}", understood.predicates);
    }
    let _ = writeln!(
        out,
        "  as of {}{}{}; asks when: {}",
        at.facts,
        if at.messages == at.facts {
            String::new()
        } else {
            format!(" (messages as of {})", at.messages)
        },
        understood
            .as_of_because
            .as_deref()
            .map_or(String::new(), |w| format!(" ({w})")),
        understood.asks_when
    );
}

/// What the reranker read and the order it gave, or why it did not run.
fn reranked_part(out: &mut String, reread: Option<&(String, Vec<super::rerank::Reread>)>) {
    match reread {
        Some((name, reread)) if !reread.is_empty() => {
            let _ = writeln!(
                out,
                "reranked by {name} (the first {} messages, read with the question):",
                reread.len()
            );
            for (rank, r) in reread.iter().take(10).enumerate() {
                let _ = writeln!(
                    out,
                    "  {}. {} {:.3} (fused message #{})",
                    rank + 1,
                    r.id,
                    r.score,
                    r.fused_place + 1
                );
            }
        }
        _ => {
            let _ = writeln!(
                out,
                "reranked: no (no reranker, rerank_depth below 2, or a question or memory in a language the reranker does not read)"
            );
        }
    }
}
