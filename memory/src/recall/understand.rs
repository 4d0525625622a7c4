//! What a question asks about: the entities it names (seeds for the graph
//! channel, through the tenant's aliases), the time it points at ("in
//! 2022", "last week", "before I moved to Berlin", "when I was at
//! Tencent"), resolved against the reference time, and whether it asks
//! *when* (then a fact's interval is the answer, not only its object).

use std::sync::LazyLock;

use chronolog_engine::{Engine, Timestamp};
use regex::Regex;

use crate::error::Result;
use crate::ids::{self, normalize};
use crate::view::{self, FactVersion};
use crate::when;

/// A question, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The words searched for (the question without the time expression
    /// that was read as an instant).
    pub text: String,
    /// Entity ids of this tenant the question names.
    pub entities: Vec<String>,
    /// Names the question seems to be about that this tenant has no
    /// entity for (capitalised words past the first).
    pub unknown_names: Vec<String>,
    /// The valid-time instant the question points at, if it points at one.
    pub as_of: Option<Timestamp>,
    /// Why `as_of` is what it is ("in 2022", "before Berlin").
    pub as_of_because: Option<String>,
    /// The period the question's own words name ("on 3 June, 2023", "in
    /// April 2022", "last week"): what was said then is searched on its
    /// own (`Channel::SaidThen`). `None` for a period taken from the
    /// timeline ("before Berlin") or none at all.
    pub period: Option<(Timestamp, Timestamp)>,
    /// It asks when, or for how long: intervals matter.
    pub asks_when: bool,
    /// It asks about the past without naming a time ("Where did I use to
    /// live?"): the values a fact held before are shown, marked past.
    pub asks_past: bool,
    /// It asks for several things ("What books has Tim read?", "Which
    /// cities has Jon visited?"): the evidence is many messages that each
    /// match a little, so a context's room goes to more matches rather
    /// than to the messages around the best few.
    pub asks_list: bool,
}

static BEFORE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?P<dir>before|after|when|while)\s+(?:I|we|he|she|they)?\s*(?:was|were|am|lived|moved|worked|started|joined|left|went|got)?\s*(?:to|at|in|for|with)?\s*(?P<x>[A-Za-z][\w'-]*(?: [A-Z][\w'-]*)?)",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

static PAST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:used to|use to|previous(?:ly)?|former(?:ly)?|before|ever|in the past|earlier|no longer|any ?more|originally|at first)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "What/Which (kind of) <plural> has/does...", "What are (the) X's
/// <plural>".
static LIST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:what|which)\s+(?:\S+\s+){0,2}?[a-z-]*[^s'\s]s\s+(?:has|have|does|do|did|is|are|was|were)\b|what\s+are\s+(?:some\s+)?(?:the\s+)?(?:\S+'s\s+)?[a-z-]*[^s'\s]s\b)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

static WHEN_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*when\b|\bhow long\b|\bwhat (?:year|month|date|day)\b|\bsince when\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

static NAMES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)?\b").unwrap_or_else(|e| unreachable!("{e}"))
});

/// Capitalised words that start questions or are no names.
const NOT_NAMES: &[&str] = &[
    "I",
    "What",
    "When",
    "Where",
    "Who",
    "Why",
    "How",
    "Which",
    "Did",
    "Do",
    "Does",
    "Is",
    "Are",
    "Was",
    "Were",
    "Has",
    "Have",
    "Can",
    "Could",
    "Would",
    "Will",
    "Should",
    "The",
    "A",
    "An",
    "My",
    "In",
    "On",
    "At",
    "Before",
    "After",
    "Since",
    "Tell",
    "Please",
    "Remind",
    "Me",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Last",
    "Next",
    "This",
];

/// Reads `question` in `tenant`'s memory; relative times resolve against
/// `now`.
pub fn understand(
    engine: &Engine,
    tenant: &str,
    question: &str,
    now: Timestamp,
) -> Result<Question> {
    let store = engine.store();
    let mut entities = Vec::new();
    let mut unknown_names = Vec::new();
    // "I", "me", "my": the user, where the tenant has one.
    let first_person = Regex::new(r"\b(?:I|me|my|My|mine)\b")
        .map(|re| re.is_match(question))
        .unwrap_or(false);
    if first_person && let Some(user) = view::entity_of(store, tenant, "user")? {
        entities.push(store_name(engine, user));
    }
    for m in NAMES.find_iter(question) {
        let words: Vec<&str> = m.as_str().split(' ').collect();
        // A two-word match may be a name after a question word ("Did Alice").
        let candidates: Vec<String> = if words.len() == 2 {
            vec![
                m.as_str().to_string(),
                words[0].to_string(),
                words[1].to_string(),
            ]
        } else {
            vec![m.as_str().to_string()]
        };
        let mut found = false;
        for name in &candidates {
            if NOT_NAMES.contains(&name.as_str()) {
                continue;
            }
            let name = name.trim_end_matches("'s");
            if let Some(entity) = view::entity_of(store, tenant, name)? {
                let id = store_name(engine, entity);
                if !entities.contains(&id) {
                    entities.push(id);
                }
                found = true;
                break;
            }
        }
        if !found {
            let name = candidates
                .iter()
                .map(|c| c.trim_end_matches("'s"))
                .find(|c| !NOT_NAMES.contains(c));
            if let Some(name) = name {
                unknown_names.push(name.to_string());
            }
        }
    }
    // Lower-case names the tenant knows ("where does mia live").
    for word in question.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-') {
        if word.len() < 3 || word.chars().next().is_some_and(char::is_uppercase) {
            continue;
        }
        if store.symbol(&ids::entity(tenant, word)).is_some()
            && let Some(entity) = view::entity_of(store, tenant, word)?
        {
            let id = store_name(engine, entity);
            if !entities.contains(&id) {
                entities.push(id);
            }
        }
    }

    let asks_when = WHEN_WORDS.is_match(question);
    let mut text = question.to_string();
    let mut as_of = None;
    let mut as_of_because = None;
    let mut period = None;
    // "before I moved to Berlin", "when I was at Tencent": the instant
    // comes from the tenant's own timeline.
    if let Some(caps) = BEFORE_AFTER.captures(question)
        && let (Some(dir), Some(x)) = (caps.name("dir"), caps.name("x"))
        && !(dir.as_str().eq_ignore_ascii_case("when")
            && caps.get(0).is_some_and(|m| m.start() == 0))
    {
        let timeline = view::timeline(engine, tenant)?;
        if let Some(fact) = anchor_fact(&timeline, x.as_str()) {
            let instant = match dir.as_str().to_ascii_lowercase().as_str() {
                "before" => Timestamp(fact.valid.from.micros().saturating_sub(1)),
                _ => fact.valid.from,
            };
            as_of = Some(instant);
            as_of_because = Some(format!("{} {}", dir.as_str().to_lowercase(), fact.object));
        }
    }
    if as_of.is_none()
        && let Some(found) = when::find(question, now, false)
    {
        let last = found
            .when
            .to
            .map_or(now, |to| Timestamp(to.micros().saturating_sub(1)));
        as_of = Some(if last > now { now } else { last });
        period = Some((found.when.from, if last > now { now } else { last }));
        as_of_because = Some(question[found.start..found.end].to_string());
        text = format!("{} {}", &question[..found.start], &question[found.end..]);
    }
    // A named time ("before Berlin", "in 2022") answers at that instant
    // instead.
    let asks_past = as_of.is_none() && PAST_WORDS.is_match(question);
    Ok(Question {
        text: text.trim().to_string(),
        entities,
        unknown_names,
        as_of,
        as_of_because,
        period,
        asks_when,
        asks_past,
        asks_list: LIST_WORDS.is_match(question),
    })
}

/// The parts of a multi-part question: "Where do I work and where do I
/// live?" is two, cut at a question mark or at "and" before a question
/// word; "Do I like tea and coffee?" stays one.
pub fn parts(question: &str) -> Vec<String> {
    static AND_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i),?\s+and\s+(?:also\s+)?(what|where|when|who|whom|which|why|how|did|do|does|is|are|was|were|has|have)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let mut out = Vec::new();
    for piece in question.split('?') {
        let mut rest = piece;
        while let Some(m) = AND_QUESTION.find(rest) {
            let (head, tail) = rest.split_at(m.start());
            out.push(head.trim().to_string());
            // Keep the question word: skip ", and" only.
            let tail = tail.trim_start_matches(',').trim_start();
            let tail = tail
                .get(3..)
                .map_or("", str::trim_start)
                .trim_start_matches("also ")
                .trim_start();
            rest = tail;
        }
        out.push(rest.trim().to_string());
    }
    out.retain(|p| p.split_whitespace().count() >= 2);
    if out.is_empty() {
        out.push(question.to_string());
    }
    out
}

/// The fact of the timeline whose object is `name` (the earliest).
fn anchor_fact<'t>(timeline: &'t [FactVersion], name: &str) -> Option<&'t FactVersion> {
    let wanted = normalize(name);
    timeline
        .iter()
        .filter(|f| normalize(&f.object) == wanted)
        .min_by_key(|f| f.valid.from)
}

fn store_name(engine: &Engine, sym: chronolog_engine::Symbol) -> String {
    engine
        .store()
        .symbol_name(sym)
        .map(|n| n.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_part_questions_are_cut_before_their_question_words() {
        assert_eq!(
            parts("Where do I work and where do I live?"),
            ["Where do I work", "where do I live"]
        );
        assert_eq!(
            parts("Where do I work? When did I move?"),
            ["Where do I work", "When did I move"]
        );
        assert_eq!(
            parts("Do I like tea and coffee?"),
            ["Do I like tea and coffee"]
        );
        assert_eq!(
            parts("Who is Mia, and also what does she do?"),
            ["Who is Mia", "what does she do"]
        );
    }

    #[test]
    fn a_question_for_several_things_is_told_from_one_for_one() {
        for list in [
            "What books has Tim read?",
            "Which cities has Jon visited?",
            "What kind of interests do Joanna and Nate share?",
            "What LGBTQ+ events has Caroline participated in?",
            "What are Joanna's hobbies?",
            "What are some changes Caroline has faced?",
        ] {
            assert!(LIST_WORDS.is_match(list), "{list}");
        }
        for one in [
            "What is Caroline's identity?",
            "Where does Alice work?",
            "What pet does Caroline have?",
            "What does Melanie's necklace symbolize?",
            "When did Nate get his glasses?",
            "What class is Melanie taking?",
            "What was grandma's gift to Melanie?",
        ] {
            assert!(!LIST_WORDS.is_match(one), "{one}");
        }
    }
}
