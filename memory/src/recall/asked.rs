//! The facts a question asks about by their predicate ("What instruments
//! does Tim play?" asks Tim's `likes`): which of them lead a context, and
//! in what order. A person may hold many values of one predicate (eight
//! tastes, a dozen pastimes); the ones that answer lead first: by the
//! reranker's judgement of each fact's sentence against the question
//! ("Tim likes piano" before "Tim likes German"), or, where no reranker
//! reads the question's language, the value whose words the question
//! names ("Do I still play the cello?"); ties in fused order.

use std::collections::{HashMap, HashSet};

use chronolog_engine::{Reranker, Store};

use super::gather::{names_asked, shown_name};
use super::understand::Question;
use crate::error::Result;
use crate::tuning::Tuning;
use crate::view::FactVersion;

/// The asked facts that lead, in the order they lead.
pub(super) struct AskedOrder {
    /// Slot ids of the facts that lead, each with its place (0 first).
    places: HashMap<String, usize>,
    /// What the reranker read: each asked fact's slot and score, best
    /// first (empty when no reranker read them), for `explain`.
    pub(super) judged: Vec<(String, f32)>,
}

impl AskedOrder {
    /// Whether `fact` leads as asked.
    pub(super) fn leads(&self, fact: &FactVersion) -> bool {
        self.places.contains_key(&fact.slot)
    }

    /// Where `fact` leads among the asked (`usize::MAX`: it does not).
    pub(super) fn place(&self, fact: &FactVersion) -> usize {
        self.places.get(&fact.slot).copied().unwrap_or(usize::MAX)
    }
}

/// Orders the facts of `facts` (in fused order) whose slots `asked` holds:
/// by `reranker`'s score of each fact's sentence (when one reads the
/// question's language and there are two or more to choose from), else
/// those whose object the question's `topic` words name first; ties in
/// fused order. Of one entity's predicate at most
/// `tuning.values_asked_lead` values lead.
pub(super) fn order(
    store: &Store,
    question: &Question,
    facts: &[(FactVersion, f64)],
    asked: &[String],
    topic: &HashSet<String>,
    reranker: Option<&dyn Reranker>,
    tuning: &Tuning,
) -> Result<AskedOrder> {
    let reader = question.lang.reader();
    let candidates: Vec<&FactVersion> = facts
        .iter()
        .map(|(fact, _)| fact)
        .filter(|fact| asked.contains(&fact.slot))
        .collect();
    let scores = match reranker {
        Some(reranker) if candidates.len() > 1 => {
            let lines: Vec<String> = candidates
                .iter()
                .map(|f| {
                    reader.fact_phrase(&shown_name(store, &f.subject), &f.predicate, &f.object)
                })
                .collect();
            let texts: Vec<&str> = lines.iter().map(String::as_str).collect();
            reranker.score(&question.text, &texts)?
        }
        _ => Vec::new(),
    };
    let mut ranked: Vec<usize> = (0..candidates.len()).collect();
    // Ties keep fused order (a stable sort). The reranker reads the
    // question and the fact together, so it needs no word to match: the
    // words alone put "I love playing board games" first for "What
    // instruments do I play?".
    if scores.is_empty() {
        let named = |f: &FactVersion| names_asked(reader, topic, &f.object);
        ranked.sort_by_key(|&i| std::cmp::Reverse(named(candidates[i])));
    } else {
        ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    }
    let mut per_predicate: HashMap<(&str, &str), usize> = HashMap::new();
    let mut places = HashMap::new();
    for &i in &ranked {
        let fact = candidates[i];
        let count = per_predicate
            .entry((fact.subject.as_str(), fact.predicate.as_str()))
            .or_default();
        if *count < tuning.values_asked_lead {
            *count += 1;
            let place = places.len();
            places.entry(fact.slot.clone()).or_insert(place);
        }
    }
    // `ranked` is in score order wherever the reranker read the facts.
    let judged = if scores.is_empty() {
        Vec::new()
    } else {
        ranked
            .iter()
            .map(|&i| (candidates[i].slot.clone(), scores[i]))
            .collect()
    };
    Ok(AskedOrder { places, judged })
}
