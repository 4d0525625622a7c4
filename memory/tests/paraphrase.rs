//! The paraphrase step's judgement on labelled predicate phrases, with the
//! real judge (all-MiniLM-L6-v2; CI installs it and sets
//! `CHRONOLOG_REQUIRE_MODEL=1`, so there these cannot pass by skipping).
//! The phrases are held out from the judge's exemplars, and the
//! thresholds in `Tuning` were read off them: no wrong pair may map, and
//! the plain paraphrases should.

mod common;

use std::sync::Arc;

use chronolog_engine::{Embedder, Engine, Store};
use chronolog_memory::{Claim, ClaimKind, EpisodeView, Extractor, Memory, Options, Subject};

/// Reads a message "predicate: object" as one claim about the speaker,
/// as an extractor that names predicates its own way (an LLM's) would.
struct Labelled;

impl Extractor for Labelled {
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        let Some((predicate, object)) = episode.text.split_once(": ") else {
            return Vec::new();
        };
        vec![Claim {
            subject: Subject::Speaker,
            predicate: predicate.to_string(),
            object: object.to_string(),
            object_kind: None,
            kind: ClaimKind::Holds,
            valid: None,
            text: episode.text.to_string(),
            confidence: 0.9,
        }]
    }
}

/// Free predicates and the slot each paraphrases. None is one of the
/// judge's exemplars (`consolidate/paraphrase.rs`): these are held out.
const PARAPHRASES: [(&str, &str); 19] = [
    ("employed_at", "works_at"),
    ("is_working_at", "works_at"),
    ("job_at", "works_at"),
    ("resides_at", "lives_in"),
    ("is_residing_in", "lives_in"),
    ("dwells_in", "lives_in"),
    ("home_city", "lives_in"),
    ("current_city", "lives_in"),
    ("named", "name"),
    ("goes_by", "name"),
    ("line_manager", "boss"),
    ("years_old", "age"),
    ("age_in_years", "age"),
    ("married_to", "partner"),
    ("fiance", "partner"),
    ("occupation_is", "job_title"),
    ("job", "job_title"),
    ("originally_from", "from"),
    ("hails_from", "from"),
];

/// Free predicates that paraphrase no one-valued slot, held out from the
/// exemplars too: mapping one would let a second value end the first (a
/// flatmate ending a home, a past job ending the present one). Short
/// phrases' embeddings hear the verb, not the preposition or the tense:
/// against the slots' phrases alone, "resides near" is as close to
/// "lives in" as "resides at" is; the exemplars of relations that are no
/// slot ("lives near", "used to work at") are what keep these apart.
const NOT_PARAPHRASES: [&str; 17] = [
    "resides_near",
    "lives_close_to",
    "lives_beside",
    "used_to_reside_in",
    "formerly_lived_in",
    "previously_lived_in",
    "previously_worked_at",
    "formerly_worked_at",
    "hopes_to_work_at",
    "dreams_of_working_at",
    "collaborates_with",
    "shares_flat_with",
    "roommate",
    "ex_wife",
    "former_manager",
    "stays_with",
    "wants_to_visit",
];

/// Consolidates one message per predicate, each in its own tenant, in a
/// memory embedded by `embedder`; the predicate each fact was filed under.
fn filed_under(embedder: Arc<dyn Embedder>, predicates: &[&str]) -> Vec<String> {
    let options = Options {
        background: false,
        extractor: Box::new(Labelled),
        reranker: None,
        ..Options::default()
    };
    let memory = Memory::with_engine(Engine::with_embedder(Store::in_memory(), embedder), options)
        .expect("memory");
    for (i, predicate) in predicates.iter().enumerate() {
        common::say(
            &memory,
            &format!("t{i}"),
            "2024-01-01",
            &format!("{predicate}: Value{i}"),
        );
    }
    memory.consolidate_now().expect("consolidate");
    (0..predicates.len())
        .map(|i| {
            let facts = memory.facts(&format!("t{i}"), None, None).expect("facts");
            assert_eq!(facts.len(), 1, "{:?}: {facts:?}", predicates[i]);
            facts[0].predicate.clone()
        })
        .collect()
}

#[test]
fn the_judge_maps_plain_paraphrases_and_never_a_wrong_pair() {
    let Some(model) = common::model() else {
        return;
    };
    let predicates: Vec<&str> = NOT_PARAPHRASES.to_vec();
    for (predicate, filed) in predicates
        .iter()
        .zip(filed_under(model.clone(), &predicates))
    {
        assert_eq!(&filed, predicate, "{predicate} was mapped");
    }
    let predicates: Vec<&str> = PARAPHRASES.iter().map(|(p, _)| *p).collect();
    let filed = filed_under(model, &predicates);
    let mut mapped = 0;
    for ((predicate, slot), filed) in PARAPHRASES.iter().zip(&filed) {
        // Kept as said (a missed conflict) or its slot; never another.
        assert!(
            filed == predicate || filed == slot,
            "{predicate} -> {filed}"
        );
        mapped += usize::from(filed == slot);
    }
    // 10 of the 19 at the fitted thresholds ("is working at" leads
    // "worked at" by 0.05, "line manager" is 0.63 from "manager"); one to
    // spare.
    assert!(mapped >= 9, "{mapped} mapped: {filed:?}");
}

/// The judge is the calibrated model whatever embeds the memory: under
/// bge-small-en's own similarities "lives with" sits as close to "lives
/// in" as "resides in" does, and it would be mapped.
#[test]
fn a_memory_embedded_by_another_model_is_judged_by_the_calibrated_one() {
    let dir = chronolog_engine::BgeSmall::default_dir();
    let bge = match chronolog_engine::BgeSmall::load(&dir) {
        Ok(model) => Arc::new(model),
        Err(e) => {
            assert!(
                std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
                "bge-small-en is required here: {e}"
            );
            return;
        }
    };
    if common::model().is_none() {
        return;
    }
    let filed = filed_under(bge, &["lives_with", "resides_at", "employed_at"]);
    assert_eq!(filed, ["lives_with", "lives_in", "works_at"]);
}
