//! What a message claims, as (subject, predicate, object) with a valid
//! time: the [`Extractor`] trait, and the rules that stand alone without a
//! model. The rules read what people tell assistants about themselves and
//! others: work, home, names and family, pets and possessions, likes and
//! dislikes, plans and events with dates, and changes ("I moved to", "I
//! quit", "I no longer", "I switched to", "I never joined").

mod names;
mod object;
mod rules;

use std::sync::LazyLock;

use chronolog_engine::Timestamp;
use regex::Regex;

use crate::when::When;
pub use rules::RuleExtractor;
use rules::{EVENTS, FAMILY};

/// A message as an extractor sees it.
#[derive(Clone, Copy, Debug)]
pub struct EpisodeView<'a> {
    /// The episode's id.
    pub id: &'a str,
    /// Who said it ("user", "assistant", a name).
    pub role: &'a str,
    /// What was said.
    pub text: &'a str,
    /// When it was said: the anchor of every relative time in it.
    pub at: Timestamp,
}

/// Who a claim is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// "I", "me", "my": whoever said the message.
    Speaker,
    /// A name as written ("Alice", "Mia").
    Named(String),
    /// "he", "she", "they": resolved to a recent entity of the session
    /// where that is clear, dropped otherwise.
    Pronoun(String),
}

/// What a claim says about its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// It holds from its valid time on (a job, a home, a taste).
    Holds,
    /// It happened during its valid time (an event, a trip).
    Happened,
    /// It stopped holding at its valid time ("I quit", "I no longer").
    Ended,
    /// It never held: an earlier claim was a mistake ("I never joined X").
    Withdrawn,
}

/// One atomic claim found in a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// Who it is about.
    pub subject: Subject,
    /// The canonical predicate (`works_at`, `lives_in`, `likes`, ...).
    pub predicate: String,
    /// The object as said, articles dropped (`Tencent`, `sushi`).
    pub object: String,
    /// What kind of entity the object is, when it is one.
    pub object_kind: Option<&'static str>,
    /// Holds, happened, ended or withdrawn.
    pub kind: ClaimKind,
    /// When, from a time expression in the sentence; `None`: from the
    /// message's own time.
    pub valid: Option<When>,
    /// The sentence it came from.
    pub text: String,
    /// How sure the rule is, 0 to 1.
    pub confidence: f64,
}

/// Turns a message into claims. The rule extractor is the default; an LLM
/// extractor can replace it or run beside it ([`Chain`]).
pub trait Extractor: Send + Sync {
    /// The claims `episode` makes (none is a fine answer).
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim>;
}

/// Several extractors' claims, in order (rules first, a model second).
pub struct Chain(pub Vec<Box<dyn Extractor>>);

impl Extractor for Chain {
    fn extract(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        self.0.iter().flat_map(|e| e.extract(episode)).collect()
    }
}

/// Whether a predicate holds one value at a time for its subject (a new
/// value invalidates the old) or many (each object its own slot).
pub fn is_functional(predicate: &str) -> bool {
    matches!(
        predicate,
        "works_at"
            | "lives_in"
            | "job_title"
            | "age"
            | "name"
            | "from"
            | "relationship_status"
            | "partner"
            | "wife"
            | "husband"
            | "boyfriend"
            | "girlfriend"
            | "fiance"
            | "boss"
    ) || predicate.starts_with("favorite_")
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
        || FAMILY.split('|').chain(EVENTS.split('|')).any(|w| {
            [w.replace("e?", ""), w.replace("e?", "e")].contains(&predicate.replace('_', " "))
        })
}

/// The slot group a predicate writes to: likes and dislikes of one object
/// share a slot, so a changed taste replaces the old one.
pub fn slot_predicate(predicate: &str) -> &str {
    match predicate {
        "likes" | "dislikes" => "feels_about",
        other => other,
    }
}

/// Whether a message asks to be remembered ("remember that", "don't
/// forget"): such memories start more salient.
pub fn emphasised(text: &str) -> bool {
    static EMPHASIS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:remember that|please remember|don't forget|do not forget|important|never forget|keep in mind|note that)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    EMPHASIS.is_match(text)
}
