//! What a message claims, in a shape no language owns: each language's
//! rules (and any model extractor) produce these, and consolidation
//! reads nothing else. Predicates are canonical identifiers (`works_at`,
//! `sister`, `went_to`), the same whatever language the message was in.

use chronolog_engine::Timestamp;

use crate::lang::Lang;
use crate::when::When;

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
    /// The language it is written in (detected, or the tenant's).
    pub lang: Lang,
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

/// The claims a correction adds: "I work at Alibaba, not Tencent" says
/// Tencent never held. For each one-valued claim that holds in the
/// sentence, each value the sentence denies (`denied`, read by the
/// language: "not X", "nicht bei X", "不是X") is withdrawn.
pub(crate) fn corrections(claims: &[Claim], denied: &[String]) -> Vec<Claim> {
    let mut out = Vec::new();
    for claim in claims {
        if claim.kind != ClaimKind::Holds || !is_functional(&claim.predicate) {
            continue;
        }
        for object in denied {
            if !object.eq_ignore_ascii_case(&claim.object) {
                out.push(Claim {
                    object: object.clone(),
                    kind: ClaimKind::Withdrawn,
                    valid: None,
                    object_kind: None,
                    ..claim.clone()
                });
            }
        }
    }
    out
}

/// Family words as predicates: "my sister Mia" is `(speaker, sister,
/// Mia)` in every language. Order matters to languages that match them in
/// turn: a longer word before a shorter one it starts with.
pub(crate) const FAMILY: &[&str] = &[
    "sister",
    "brother",
    "mom",
    "mother",
    "dad",
    "father",
    "wife",
    "husband",
    "partner",
    "boyfriend",
    "girlfriend",
    "son",
    "daughter",
    "best_friend",
    "friend",
    "cousin",
    "aunt",
    "uncle",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "boss",
    "colleague",
    "roommate",
    "fiancee",
    "fiance",
    "niece",
    "nephew",
];

/// Events a message tells, each its own predicate ("I went to" is
/// `went_to`, "I adopted" `adopted`).
pub(crate) const EVENTS: &[&str] = &[
    "went_to",
    "attended",
    "visited",
    "traveled_to",
    "travelled_to",
    "signed_up_for",
    "volunteered_at",
    "took_part_in",
    "participated_in",
    "gave_a_talk_at",
    "ran",
    "started",
    "finished",
    "painted",
    "adopted",
    "graduated_from",
    "got_married",
    "got_engaged",
    "took",
    "joined",
];
