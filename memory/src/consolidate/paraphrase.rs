//! Step 2 of the conflict ladder: a predicate an extractor names freely
//! ("is_employed_at", say an LLM's) maps to the one-valued slot it
//! paraphrases ("works_at") when a sentence model finds it closest to that
//! slot's phrasings, so a later value replaces the earlier one as it does
//! in the rule extractor's own vocabulary. The rules name their predicates
//! canonically; theirs are never mapped.
//!
//! Short phrases' embeddings hear the verb, not the preposition or the
//! tense: with all-MiniLM-L6-v2, "lives near" is 0.77 from "lives in" and
//! "used to work at" close to "works at". Compared with the slots' phrases
//! alone, no threshold tells them from "resides in" (0.71). So the judge
//! compares a predicate with exemplars of every slot *and* of relations
//! that are not one-valued slots ("lives near", "lived in", "works
//! with", "wants to work at", "former boss"): the nearest exemplar names
//! the class, and a slot is taken only when it is also near enough and
//! leads the nearest exemplar of any other class (a missed conflict,
//! never a wrong one). The exemplars were written first; the thresholds
//! were then read off phrases none of them holds
//! (`memory/tests/paraphrase.rs`), for that one model, so the judge is
//! all-MiniLM-L6-v2 whatever embeds the memory: bge-small-en puts "lives
//! with" 0.88 from "lives in", and potion-base-8M, which drops the small
//! words, 0.99. Without MiniLM installed nothing is mapped.

use std::collections::HashMap;
use std::sync::Arc;

use chronolog_engine::{Embedder, Engine};

use super::extract::is_rule_predicate;
use crate::error::Result;
use crate::tuning::Tuning;

/// Phrasings of each one-valued slot a paraphrase can map to, and (under
/// `None`) of relations that are not one: nearby places, past and wished
/// jobs, people one lives or works with, past partners and bosses. A
/// predicate nearest one of those keeps its own slot.
const EXEMPLARS: [(Option<&str>, &[&str]); 10] = [
    (
        Some("works_at"),
        &[
            "works at",
            "is employed at",
            "works for",
            "is employed by",
            "has a job at",
            "employer",
        ],
    ),
    (
        Some("lives_in"),
        &[
            "lives in",
            "resides in",
            "is living in",
            "lives at",
            "home is in",
            "address",
        ],
    ),
    (
        Some("job_title"),
        &[
            "works as",
            "is employed as",
            "job title",
            "profession",
            "occupation",
        ],
    ),
    (Some("age"), &["is years old", "age", "years of age"]),
    (Some("name"), &["is named", "is called", "name"]),
    (
        Some("from"),
        &["comes from", "is from", "hometown", "native country"],
    ),
    (
        Some("relationship_status"),
        &["relationship status", "marital status"],
    ),
    (
        Some("partner"),
        &[
            "partner",
            "spouse",
            "husband",
            "wife",
            "girlfriend",
            "boyfriend",
        ],
    ),
    (
        Some("boss"),
        &["boss", "manager", "supervisor", "reports to"],
    ),
    (
        None,
        &[
            "lives near",
            "lives next to",
            "lives with",
            "lived in",
            "used to live in",
            "moved from",
            "moved to",
            "wants to live in",
            "worked at",
            "used to work at",
            "wants to work at",
            "works with",
            "teaches at",
            "studies at",
            "visited",
            "friend of",
            "knows",
            "met at",
            "born on",
            "plays",
            "enjoys",
            "likes",
            "colleague",
            "coworker",
            "neighbour",
            "sibling",
            "parent",
            "child",
            "former employer",
            "ex partner",
            "former boss",
            "applied to",
            "interviewed at",
        ],
    ),
];
/// The name the judge's vectors are filed under.
const JUDGE: &str = "all-MiniLM-L6-v2";

/// The judge and the exemplars' embeddings (made on first need) and every
/// predicate decided so far.
#[derive(Default)]
pub(crate) struct Paraphrases {
    /// `Some(None)`: the judge is not installed; nothing maps.
    judge: Option<Option<Judge>>,
    decided: HashMap<String, Option<&'static str>>,
}

/// The model that judges, and the exemplars embedded by it.
struct Judge {
    /// `None`: the engine's own embedder is the model.
    own: Option<Arc<dyn Embedder>>,
    /// Each exemplar's class (a slot, or `None`) and vector.
    exemplars: Vec<(Option<&'static str>, Vec<f32>)>,
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
            exemplars: Vec::new(),
        };
        let (classes, phrases): (Vec<Option<&'static str>>, Vec<&str>) = EXEMPLARS
            .iter()
            .flat_map(|(class, phrases)| phrases.iter().map(move |p| (*class, *p)))
            .unzip();
        let vectors = judge.embed(engine, &phrases)?;
        judge.exemplars = classes.into_iter().zip(vectors).collect();
        Ok(Some(judge))
    }

    fn embed(&self, engine: &Engine, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(match &self.own {
            Some(model) => model.embed(texts)?,
            None => engine.embed(texts)?,
        })
    }
}

impl Judge {
    /// The slot of the exemplar nearest `vector`, when it is a slot's, at
    /// least `paraphrase_similarity` close, and ahead of the nearest
    /// exemplar of any other class by `paraphrase_margin`.
    fn nearest_slot(&self, vector: &[f32], tuning: &Tuning) -> Option<&'static str> {
        let scored: Vec<(Option<&'static str>, f32)> = self
            .exemplars
            .iter()
            .map(|(class, v)| (*class, cosine(vector, v)))
            .collect();
        let (class, best) = scored.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
        let other = scored
            .iter()
            .filter(|(c, _)| *c != class)
            .map(|(_, s)| *s)
            .fold(f32::NEG_INFINITY, f32::max);
        class.filter(|_| {
            f64::from(best) >= tuning.paraphrase_similarity
                && f64::from(best - other) >= tuning.paraphrase_margin
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
        let slot = judge.nearest_slot(&vector, tuning);
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
