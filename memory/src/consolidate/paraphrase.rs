//! Step 2 of the conflict ladder: a predicate an extractor names freely
//! ("is_employed_at", say an LLM's) maps to the one-valued slot it
//! paraphrases ("works_at") when a sentence model finds the two close, so
//! a later value replaces the earlier one as it does in the rule
//! extractor's own vocabulary. The rules name their predicates
//! canonically; theirs are never mapped.
//!
//! Predicate phrases are short and embeddings of short phrases are noisy:
//! with all-MiniLM-L6-v2, "is employed at" is 0.68 from "works at" and
//! 0.30 from the next slot, "resides in" 0.71 from "lives in", but "lives
//! with" is 0.65 from "lives in" too and "works with" 0.73 from "works
//! as". A mapping needs both a high similarity and a clear margin over the
//! second-best slot; a predicate that has neither keeps its own slot (a
//! missed conflict, never a wrong one). The thresholds are calibrated on
//! labelled phrases (`memory/tests/paraphrase.rs`) for that one model,
//! so the judge is all-MiniLM-L6-v2 whatever embeds the memory: bge-small-en
//! puts "lives with" 0.88 from "lives in" with a margin of 0.18, level with
//! "resides in", and potion-base-8M, which drops the small words, 0.99.
//! Without MiniLM installed nothing is mapped.

use std::collections::HashMap;
use std::sync::Arc;

use chronolog_engine::{Embedder, Engine};

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
/// The name the judge's vectors are filed under.
const JUDGE: &str = "all-MiniLM-L6-v2";

/// The judge and the slots' embeddings (made on first need) and every
/// predicate decided so far.
#[derive(Default)]
pub(crate) struct Paraphrases {
    /// `Some(None)`: the judge is not installed; nothing maps.
    judge: Option<Option<Judge>>,
    decided: HashMap<String, Option<&'static str>>,
}

/// The model that judges, and the slots' phrases embedded by it.
struct Judge {
    /// `None`: the engine's own embedder is the model.
    own: Option<Arc<dyn Embedder>>,
    slots: Vec<(&'static str, Vec<f32>)>,
}

impl Judge {
    /// The engine's embedder when it is the calibrated model, else that
    /// model loaded by name (once per process), else `None`.
    fn find(engine: &Engine) -> Result<Option<Judge>> {
        let own = if engine.embedder_name() == JUDGE {
            None
        } else {
            match chronolog_engine::embedder_named("minilm") {
                Ok(model) => Some(model),
                Err(_) => return Ok(None),
            }
        };
        let mut judge = Judge {
            own,
            slots: Vec::new(),
        };
        let phrases: Vec<&str> = SLOTS.iter().map(|(_, p)| *p).collect();
        let vectors = judge.embed(engine, &phrases)?;
        judge.slots = SLOTS.iter().map(|(s, _)| *s).zip(vectors).collect();
        Ok(Some(judge))
    }

    fn embed(&self, engine: &Engine, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(match &self.own {
            Some(model) => model.embed(texts)?,
            None => engine.embed(texts)?,
        })
    }
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
        if self.judge.is_none() {
            self.judge = Some(Judge::find(engine)?);
        }
        let Some(Some(judge)) = &self.judge else {
            return Ok(None);
        };
        let phrase = predicate.replace('_', " ");
        let Some(vector) = judge.embed(engine, &[phrase.as_str()])?.pop() else {
            return Ok(None);
        };
        let mut scored: Vec<(&'static str, f32)> = judge
            .slots
            .iter()
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
        // No judge was looked for.
        assert!(paraphrases.judge.is_none());
    }

    #[test]
    fn cosine_of_parallel_and_orthogonal_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
