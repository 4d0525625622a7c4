//! What a message claims, as (subject, predicate, object) with a valid
//! time: the [`Extractor`] trait, and the rule extractor, which hands each
//! message to its language's rules (`crate::lang`). The rules read what
//! people tell assistants about themselves and others: work, home, names
//! and family, pets and possessions, likes and dislikes, plans and events
//! with dates, and changes ("I moved to", "I quit", "I no longer", "I
//! switched to", "I never joined").

pub use crate::claim::{Claim, ClaimKind, EpisodeView, Subject, is_functional};
use crate::claim::{EVENTS, FAMILY};

/// Turns a message into claims. The rule extractor is the default; an LLM
/// extractor can replace it or run beside it ([`Chain`]). An extractor is
/// told the message's language ([`EpisodeView::lang`]).
pub trait Extractor: Send + Sync {
    /// The claims `episode` makes (none is a fine answer).
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim>;
}

/// The default extractor: each language's own rules, run on each message
/// in the language it is written in.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleExtractor;

impl Extractor for RuleExtractor {
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        crate::claim::settled(episode.lang.reader().claims(episode))
    }
}

/// Several extractors' claims, in order (rules first, a model second).
pub struct Chain(pub Vec<Box<dyn Extractor>>);

impl Extractor for Chain {
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        self.0.iter().flat_map(|e| e.extract(episode)).collect()
    }
}

/// Whether the rule extractor names predicates this way (its fixed ones,
/// the family words, the event verbs, `favorite_*`): those are canonical
/// already and never mapped as paraphrases.
pub(crate) fn is_rule_predicate(predicate: &str) -> bool {
    const FIXED: &[&str] = &[
        "age",
        "dislikes",
        "from",
        "has_pet",
        "job_title",
        "likes",
        "lives_in",
        "name",
        "owns",
        "plans",
        "relationship_status",
        "uses",
        "works_at",
    ];
    FIXED.contains(&predicate)
        || is_functional(predicate)
        || predicate.starts_with("favorite_")
        || FAMILY.contains(&predicate)
        || EVENTS.contains(&predicate)
}

/// The slot group a predicate writes to: likes and dislikes of one object
/// share a slot, so a changed taste replaces the old one.
pub fn slot_predicate(predicate: &str) -> &str {
    match predicate {
        "likes" | "dislikes" => "feels_about",
        other => other,
    }
}
