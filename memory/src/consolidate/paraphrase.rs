//! Step 2 of the conflict ladder: a predicate an extractor names freely
//! ("is_employed_at", say an LLM's) maps to the one-valued slot it
//! paraphrases ("works_at") when the memory's embedder finds the two close,
//! so a later value replaces the earlier one as it does in the rule
//! extractor's own vocabulary. The rules name their predicates
//! canonically; theirs are never mapped.
//!
//! Predicate phrases are short and embeddings of short phrases are noisy:
//! with all-MiniLM-L6-v2, "is employed at" is 0.68 from "works at" and
//! 0.49 from the next slot, "resides in" 0.71 from "lives in", but "lives
//! with" is 0.65 from "lives in" too. A mapping needs both a high
//! similarity and a clear margin over the second-best slot; a predicate
//! that has neither keeps its own slot (a missed conflict, never a wrong
//! one).

use std::collections::HashMap;

use chronolog_engine::Engine;

use super::extract::is_rule_predicate;
use crate::error::Result;
use crate::tuning::Tuning;

/// The one-valued slots a paraphrase can map to, each with the phrase it
/// is compared by.
const SLOTS: [(&str, &str); 9] = [
    ("works_at", "works at"),
    ("lives_in", "lives in"),
    ("job_title", "works as"),
    ("age", "is years old"),
    ("name", "is named"),
    ("from", "comes from"),
    ("relationship_status", "relationship status"),
    ("partner", "partner"),
    ("boss", "boss"),
];
/// The slots' embeddings (made on first need, by the memory's embedder)
/// and every predicate decided so far.
#[derive(Default)]
pub(crate) struct Paraphrases {
    slots: Option<Vec<(&'static str, Vec<f32>)>>,
    decided: HashMap<String, Option<&'static str>>,
}

impl Paraphrases {
    /// The slot `predicate` paraphrases, if it is not a rule's own and one
    /// slot is clearly closest.
    pub(crate) fn slot_of(
        &mut self,
        engine: &Engine,
        predicate: &str,
        tuning: &Tuning,
    ) -> Result<Option<&'static str>> {
        if is_rule_predicate(predicate) {
            return Ok(None);
        }
        if let Some(known) = self.decided.get(predicate) {
            return Ok(*known);
        }
        if self.slots.is_none() {
            let phrases: Vec<&str> = SLOTS.iter().map(|(_, p)| *p).collect();
            let vectors = engine.embed(&phrases)?;
            self.slots = Some(SLOTS.iter().map(|(s, _)| *s).zip(vectors).collect());
        }
        let phrase = predicate.replace('_', " ");
        let Some(vector) = engine.embed(&[phrase.as_str()])?.pop() else {
            return Ok(None);
        };
        let mut scored: Vec<(&'static str, f32)> = self
            .slots
            .iter()
            .flatten()
            .map(|(slot, v)| (*slot, cosine(&vector, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        let slot = match scored.as_slice() {
            [(slot, best), (_, second), ..]
                if f64::from(*best) >= tuning.paraphrase_similarity
                    && f64::from(best - second) >= tuning.paraphrase_margin =>
            {
                Some(*slot)
            }
            _ => None,
        };
        self.decided.insert(predicate.to_string(), slot);
        Ok(slot)
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let n = norm(a) * norm(b);
    if n == 0.0 { 0.0 } else { dot / n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_own_predicates_are_never_mapped() {
        let engine = Engine::new(chronolog_engine::Store::in_memory());
        let mut paraphrases = Paraphrases::default();
        for predicate in [
            "works_at",
            "sister",
            "best_friend",
            "likes",
            "favorite_food",
            "has_pet",
            "went_to",
            "gave_a_talk_at",
            "joined",
        ] {
            assert_eq!(
                paraphrases
                    .slot_of(&engine, predicate, &Tuning::default())
                    .expect("slot"),
                None,
                "{predicate}"
            );
        }
        // Nothing was embedded for them.
        assert!(paraphrases.slots.is_none());
    }

    #[test]
    fn cosine_of_parallel_and_orthogonal_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
