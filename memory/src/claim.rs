//! What a message claims, in a shape no language owns: each language's
//! rules (and any model extractor) produce these, and consolidation
//! reads nothing else. Predicates are canonical identifiers (`works_at`,
//! `sister`, `went_to`), the same whatever language the message was in.

use chronolog_engine::Timestamp;

use crate::ids::normalize;
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
    /// "my sister", "meine Schwester", "我妹妹": the speaker's relative by
    /// the family predicate that names the relation (`sister`), the one
    /// the speaker named so, or a person known only so until a name comes.
    Relative(String),
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
    /// A plan is off: what was to hold from after the message will not
    /// ("we're not moving after all", "I turned down the offer"), and
    /// what it would have ended holds on.
    CalledOff,
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

/// Drops the names said by a pronoun ("Her name is Mochi") from a
/// message that speaks of a pet: whose name it is, the memory cannot
/// tell, and a relative renamed after a cat is worse than a name missed.
pub(crate) fn pet_names_kept_off_people(claims: &mut Vec<Claim>, pet_mentioned: bool) {
    if pet_mentioned {
        claims.retain(|c| !(c.predicate == "name" && matches!(c.subject, Subject::Pronoun(_))));
    }
}

/// The predicate of a claim whose slot is whatever fact holds a value
/// said by mistake: "I meant Emily, not Emma" names no relation, so
/// consolidation finds the fact that holds "Emma" ([`misspoken`]).
pub(crate) const MISSPOKEN: &str = "_misspoken";

/// The claims "X, not Y" makes where the sentence says nothing else of
/// X ("Correction: it's Spotify, not Shopify", "Ich meinte Emily, nicht
/// Emma", "我是说艾米丽，不是艾玛"): `wrong` was said by mistake for `right`
/// in whatever fact holds it, so that fact is withdrawn and `right` holds
/// in its place. Consolidation finds the fact; with none, both claims are
/// dropped.
fn misspoken(right: &str, wrong: &str, text: &str) -> [Claim; 2] {
    let claim = |object: &str, kind| Claim {
        subject: Subject::Speaker,
        predicate: MISSPOKEN.to_string(),
        object: object.trim().to_string(),
        object_kind: None,
        kind,
        valid: None,
        text: text.trim().to_string(),
        confidence: 0.7,
    };
    [
        claim(wrong, ClaimKind::Withdrawn),
        claim(right, ClaimKind::Holds),
    ]
}

/// The misspoken claims ([`misspoken`]) of a sentence that made no
/// other claim, read by a language: `forms` capture the right value `x`
/// and the wrong one `y` ("I meant X, not Y", "nicht Y, sondern X",
/// "不是Y，是X"), and only a message where `cue` finds a word owning a
/// mistake ("sorry", "I meant", "Korrektur", "说错了") is read so ("Let's
/// meet in Paris, not London" corrects nothing). `tidy` trims what a
/// language leaves around a value (a particle, a quote).
pub(crate) fn misspoken_in(
    message: &str,
    sentence: &str,
    cue: &regex::Regex,
    forms: &[regex::Regex],
    tidy: impl Fn(&str) -> &str,
) -> Vec<Claim> {
    if !cue.is_match(message) {
        return Vec::new();
    }
    for form in forms {
        for caps in form.captures_iter(sentence) {
            let (Some(x), Some(y)) = (caps.name("x"), caps.name("y")) else {
                continue;
            };
            let (right, wrong) = (tidy(x.as_str().trim()), tidy(y.as_str().trim()));
            // "Sorry, not Emma": the word owning the mistake is no value.
            let value = |v: &str| !v.is_empty() && !cue.is_match(v);
            if value(right) && value(wrong) && normalize(right) != normalize(wrong) {
                return misspoken(right, wrong, sentence).to_vec();
            }
        }
    }
    Vec::new()
}

/// The claims a correction of a relation adds: "Clara is my cousin, not
/// my sister" says the sister Clara never was. For each relation to a
/// person that holds in the sentence, each relation the sentence denies
/// (`denied`, canonical predicates read by the language: "not my
/// sister", "nicht meine Schwester", "不是我姐姐") is withdrawn for the
/// same person.
pub(crate) fn relation_corrections(claims: &[Claim], denied: &[&str]) -> Vec<Claim> {
    let mut out = Vec::new();
    for claim in claims {
        if claim.kind != ClaimKind::Holds || !FAMILY.contains(&claim.predicate.as_str()) {
            continue;
        }
        for relation in denied {
            if *relation != claim.predicate {
                out.push(Claim {
                    predicate: (*relation).to_string(),
                    kind: ClaimKind::Withdrawn,
                    valid: None,
                    ..claim.clone()
                });
            }
        }
    }
    out
}

/// The spans of a sentence its rules have read, so that a later, looser
/// rule does not read one again ("don't like X" is not also "like X").
/// A span runs to the end of the object as kept, so what follows a cut
/// object is left for another rule ("I live in Austin with my husband
/// Mark": "Austin", then "my husband Mark").
#[derive(Default)]
pub(crate) struct ReadSpans(Vec<(usize, usize)>);

impl ReadSpans {
    /// Whether `start..end` overlaps a span read.
    pub(crate) fn overlaps(&self, start: usize, end: usize) -> bool {
        self.0.iter().any(|&(s, e)| start < e && s < end)
    }

    /// `caps`, whose claims kept `object`, read from `start` (its whole
    /// match's start, or its subject's end where a later rule may share
    /// the subject: "My sister Mia loves climbing").
    pub(crate) fn read(&mut self, caps: &regex::Captures<'_>, start: usize, object: &str) {
        let Some(whole) = caps.get(0) else { return };
        let end = caps
            .name("o")
            .filter(|_| !object.is_empty())
            .and_then(|o| {
                o.as_str()
                    .find(object)
                    .map(|at| o.start() + at + object.len())
            })
            .unwrap_or(whole.end());
        self.0.push((start, end.max(start)));
    }
}

/// The relations `denial` finds denied in `text` (its `r` group, a word
/// of the language's `family` table), as predicates.
pub(crate) fn relations_denied(
    denial: &regex::Regex,
    text: &str,
    family: &[(&str, &'static str)],
) -> Vec<&'static str> {
    denial
        .captures_iter(text)
        .filter_map(|c| c.name("r"))
        .filter_map(|m| {
            family
                .iter()
                .find(|(word, _)| *word == m.as_str())
                .map(|(_, predicate)| *predicate)
        })
        .collect()
}

/// A language's claims as consolidation takes them, whatever the
/// language: a breakup made one claim per partner slot; a one-valued
/// state over a period that ended ("until 2020") or a stretch ("from 2010
/// to 2015") made a past event; a past
/// job or home without a period ("I used to live in Oslo") made an ending
/// (it says only that it no longer holds); and the ending each bounded
/// past period adds ([`ended_by_periods`]).
pub(crate) fn settled(claims: Vec<Claim>) -> Vec<Claim> {
    let mut claims = partners_ended(claims);
    for claim in &mut claims {
        // "until 2020" and "from 2010 to 2015" bound what held on both
        // sides: a past period, not a start.
        let bounded = claim
            .valid
            .is_some_and(|w| w.from == Timestamp::MIN || w.stretch);
        if claim.kind == ClaimKind::Holds && bounded {
            claim.kind = ClaimKind::Happened;
        }
        let past_without_period = claim.kind == ClaimKind::Happened
            && matches!(claim.predicate.as_str(), "works_at" | "lives_in")
            && claim.valid.is_none_or(|w| w.to.is_none());
        if past_without_period {
            claim.kind = ClaimKind::Ended;
        }
    }
    let ended = ended_by_periods(&claims);
    claims.extend(ended);
    claims
}

/// The claims a period with an end adds: "I worked at IBM until 2020"
/// says IBM held up to 2020 (from a start not said) and so ended then; a
/// one-valued slot that still holds IBM is ended there. Each language's
/// time reader says "until" ([`crate::when::TimeExpr::UntilYear`]); this is
/// the same for all of them.
fn ended_by_periods(claims: &[Claim]) -> Vec<Claim> {
    claims
        .iter()
        .filter(|c| {
            matches!(c.kind, ClaimKind::Holds | ClaimKind::Happened) && is_functional(&c.predicate)
        })
        .filter_map(|c| {
            let valid = c.valid?;
            let end = valid.to.filter(|_| valid.from == Timestamp::MIN)?;
            Some(Claim {
                kind: ClaimKind::Ended,
                valid: Some(When {
                    from: end,
                    to: None,
                    stretch: false,
                }),
                ..c.clone()
            })
        })
        .collect()
}

/// The relations whose "my ..." is as often another person each time
/// ("my friend", "my cousin", "my colleague"): a sentence about one of
/// them is not pinned to whichever was named first. Every other family
/// predicate usually means one person ("my mom", "my husband", "my
/// sister"), so a claim about "my mom" is about the one the speaker named
/// so ([`known_by_relation`]).
const SEVERAL: &[&str] = &[
    "friend",
    "cousin",
    "aunt",
    "uncle",
    "colleague",
    "niece",
    "nephew",
];

/// Whether "my <relation>" names one person.
pub(crate) fn known_by_relation(relation: &str) -> bool {
    FAMILY.contains(&relation) && !SEVERAL.contains(&relation)
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

/// The predicate a language's rules give a breakup ("we broke up", "wir
/// haben uns getrennt", "我们分手了"): whichever partner slot holds (or
/// the one holding the partner named) ends. [`partners_ended`] makes it
/// one claim per slot of [`PARTNERS`].
pub(crate) const ANY_PARTNER: &str = "any_partner";

/// Predicates whose object is a clause, what one means to do ("try out
/// Smokey's this weekend"), not a thing: its words are its sentence's, so
/// a word shared with a question says no more than the message's own
/// match does.
pub(crate) const CLAUSE_OBJECTS: &[&str] = &["plans"];

/// Each [`ANY_PARTNER`] claim as one claim per partner slot.
fn partners_ended(claims: Vec<Claim>) -> Vec<Claim> {
    let mut out = Vec::with_capacity(claims.len());
    for claim in claims {
        if claim.predicate == ANY_PARTNER {
            out.extend(PARTNERS.iter().map(|p| Claim {
                predicate: (*p).to_string(),
                ..claim.clone()
            }));
        } else {
            out.push(claim);
        }
    }
    out
}

/// The partner slots a breakup ends, whichever holds.
pub(crate) const PARTNERS: &[&str] = &[
    "partner",
    "wife",
    "husband",
    "boyfriend",
    "girlfriend",
    "fiance",
    "fiancee",
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
