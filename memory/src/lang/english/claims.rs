//! English claims: regular expressions over each sentence of a message,
//! each rule one way people say a fact about themselves or others, tuned
//! on the dev conversations only (never per question); objects cleaned by
//! [`super::object`].

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::English;
use super::names::{BASE_VERBS, NOT_NAMES};
use super::object::{clean_object, looks_ahead, sentences};
use crate::claim::{self, Claim, ClaimKind, EpisodeView, Subject};
use crate::when;

/// How a rule's match becomes a claim.
struct Rule {
    re: Regex,
    predicate: Predicate,
    kind: ClaimKind,
    object_kind: Option<&'static str>,
    confidence: f64,
}

enum Predicate {
    Fixed(&'static str),
    /// The predicate is a named group's text, lower-cased (`my sister`).
    FromGroup(&'static str),
    /// `favorite_` and the group's text.
    Favorite,
    /// The verb group maps to the predicate (`went to` -> `went_to`).
    Verb,
    /// A withdrawn claim: the verb group says which slot.
    WithdrawnVerb,
}

const SUBJECT: &str = r"(?P<s>\bI\b|\b[Ww]e\b|\b[Hh]e\b|\b[Ss]he\b|\b[A-Z][a-z]+\b)";
const OBJECT: &str = r"(?P<o>[^,.;!?()]+)";
const NAME: &str = r"(?P<o>[A-Z][a-z]+(?: [A-Z][a-z]+)?)";
const PETS: &str =
    r"dog|cat|puppy|kitten|parrot|bird|hamster|rabbit|bunny|fish|turtle|snake|horse|guinea pig";

/// Canonical predicates as English says them ("best_friend" is "best
/// friend"), one alternative each, in the vocabulary's order.
fn said(predicates: &[&str]) -> String {
    predicates
        .iter()
        .map(|p| p.replace('_', " "))
        .collect::<Vec<_>>()
        .join("|")
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let (family, events) = (said(claim::FAMILY), said(claim::EVENTS));
    let rule = |re: &str, predicate, kind, object_kind, confidence| {
        let re = re
            .replace("{S}", SUBJECT)
            .replace("{O}", OBJECT)
            .replace("{NAME}", NAME)
            .replace("{FAMILY}", &family)
            .replace("{PETS}", PETS)
            .replace("{EVENTS}", &events);
        Rule {
            re: Regex::new(&re).unwrap_or_else(|e| unreachable!("bad rule {re}: {e}")),
            predicate,
            kind,
            object_kind,
            confidence,
        }
    };
    use ClaimKind::*;
    use Predicate::*;
    vec![
        // Withdrawals first: "I never worked at X" must not read as work.
        rule(
            r"{S} (?i:never|didn't|did not|don't|do not|doesn't|does not) (?i:actually |really )?(?P<v>(?i:join(?:ed)?|work(?:ed)?|live(?:d)?|move(?:d)?)) (?:(?i:at|for|in|to) )?{O}",
            WithdrawnVerb,
            Withdrawn,
            None,
            0.8,
        ),
        // Work.
        rule(
            r"{S} (?i:no longer|don't|do not|doesn't|does not) (?i:work) (?i:at|for) {O}",
            Fixed("works_at"),
            Ended,
            Some("organisation"),
            0.8,
        ),
        rule(
            r"{S} (?i:quit|left|resigned from) (?i:my job at |my job with |the job at |working at |working for |my position at )?{O}",
            Fixed("works_at"),
            Ended,
            Some("organisation"),
            0.6,
        ),
        rule(
            r"{S} (?i:now |currently |still )?(?i:work|works|am working|'m working|is working|started working|have been working|'ve been working|has been working|have worked|'ve worked|has worked) (?i:at|for) {O}",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.8,
        ),
        rule(
            r"{S} (?i:just |recently )?(?i:joined|started a new job at|started a job at|started at|got a job at|got a job with|got hired at|got hired by|was hired by|am employed at|am employed by|'m employed at|is employed at|accepted an offer from|took a job at)\s(?P<o>[A-Z][^,.;!?()]*)",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.75,
        ),
        // A past job: over the period the sentence names ("two years ago
        // I worked at IBM"), or, with no period, one that has ended.
        rule(
            r"{S} (?i:worked|was working|used to work|previously worked|had worked) (?i:at|for) {O}",
            Fixed("works_at"),
            Happened,
            Some("organisation"),
            0.7,
        ),
        rule(
            r"(?i:my (?:new )?(?:job|employer|company) is (?:at |with )?){O}",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.7,
        ),
        rule(
            r"{S} (?i:work|works|am working|'m working|is working) as (?i:an?|the) {O}",
            Fixed("job_title"),
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:became|got promoted to|was promoted to|am now|'m now) (?i:an?|the) (?P<o>(?:senior |junior |head |lead |chief )?[a-z]+(?:er|or|ist|ian|ant|ent|nurse|doctor|chef|manager|director|engineer))\b",
            Fixed("job_title"),
            Holds,
            None,
            0.6,
        ),
        // Home.
        rule(
            r"{S} (?i:no longer live|don't live|do not live|moved out of|moved away from)(?i: in)? {O}",
            Fixed("lives_in"),
            Ended,
            Some("place"),
            0.7,
        ),
        rule(
            r"{S} (?i:now |currently |still )?(?i:live|lives|am living|'m living|is living|have been living|'ve been living|have lived|'ve lived|has lived|reside|resides) in {O}",
            Fixed("lives_in"),
            Holds,
            Some("place"),
            0.8,
        ),
        rule(
            r"{S} (?i:lived|was living|used to live|previously lived|had lived) in {O}",
            Fixed("lives_in"),
            Happened,
            Some("place"),
            0.7,
        ),
        rule(
            r"{S} (?i:just |recently |finally )?(?i:moved|relocated|have moved|'ve moved|has moved) (?i:back )?to {O}",
            Fixed("lives_in"),
            Holds,
            Some("place"),
            0.8,
        ),
        rule(
            r"{S} (?i:am|'m|is|are|come|comes|was born|grew up) (?i:originally )?(?i:from|in) (?P<o>[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)?)",
            Fixed("from"),
            Holds,
            Some("place"),
            0.6,
        ),
        // Names, identity, family.
        rule(
            r"(?i:my name is|call me|my name's) {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.9,
        ),
        rule(
            r"{S} (?i:am|'m|is|just turned|turned) (?P<o>\d{1,3}) (?i:years old|now|this year)",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        rule(
            r"(?:I'm|I am|[Ww]e're|[Ww]e are) (?i:now )?(?P<o>single|married|divorced|engaged|separated|widowed)\b",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"(?i:my) (?P<rel>(?i:{FAMILY}))(?:'s name is|,| is named| named| is called| called|) {NAME}",
            FromGroup("rel"),
            Holds,
            Some("person"),
            0.8,
        ),
        // Pets and possessions.
        rule(
            r"(?i:my) (?P<rel>(?i:{PETS}))(?:'s name is|,| is named| named| is called| called|) {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S} (?i:have|has|got|adopted|'ve got|rescued) (?i:an?|two|three|another|a new) (?P<o>(?i:{PETS}))(?:s)?\b",
            Fixed("has_pet"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:just |recently )?(?i:bought|purchased|own|owns|got myself) (?i:an?|a new|my first|my own) {O}",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        // Tastes: dislikes before likes ("don't like" contains "like").
        rule(
            r"{S} (?i:really |absolutely |just |also )?(?i:hate|hates|dislike|dislikes|can't stand|cannot stand|don't like|do not like|doesn't like|don't enjoy|no longer like|no longer enjoy|am not a fan of|'m not a fan of|stopped liking|am not into|'m not into|'m no longer into|am no longer into) {O}",
            Fixed("dislikes"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:really |absolutely |also |just |still )?(?i:love|loves|like|likes|enjoy|enjoys|adore|adores|am into|'m into|am a big fan of|'m a big fan of|am a fan of|'m a fan of|am passionate about|'m passionate about|am obsessed with|'m obsessed with) {O}",
            Fixed("likes"),
            Holds,
            None,
            0.65,
        ),
        rule(
            r"(?i:my) (?i:favou?rite) (?P<cat>[a-z]+(?: [a-z]+)?) (?i:is|are|has to be) {O}",
            Favorite,
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:switched|changed) (?i:from (?P<from>[^,.;!?]+?) )?to {O}",
            Fixed("uses"),
            Holds,
            None,
            0.6,
        ),
        // Plans and events: the verb names the predicate.
        rule(
            r"{S} (?i:am|'m|is|are|'re) (?i:going|planning|hoping|about|excited) to (?P<o>[a-z][^,.;!?]+)",
            Fixed("plans"),
            Holds,
            None,
            0.55,
        ),
        rule(
            r"{S} (?i:just |recently |finally |also )?(?P<v>{EVENTS})\s{O}",
            Verb,
            Happened,
            None,
            0.5,
        ),
    ]
});

/// The claims `episode` makes.
pub(super) fn claims(episode: &EpisodeView<'_>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for sentence in sentences(episode.text) {
        let future = looks_ahead(sentence);
        let found = when::find(&English, sentence, episode.at, future);
        let first = claims.len();
        // Spans already read as one claim are not read again by a
        // later, looser rule ("don't like X" is not also "like X").
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for rule in RULES.iter() {
            for caps in rule.re.captures_iter(sentence) {
                let Some(whole) = caps.get(0) else { continue };
                // The subject may be shared ("My sister Mia loves
                // climbing": Mia is both an object and a subject).
                let start = caps.name("s").map_or(whole.start(), |m| m.end());
                if taken.iter().any(|&(s, e)| start < e && s < whole.end()) {
                    continue;
                }
                let mut found_claims = claims_of(rule, &caps, sentence, found);
                if !found_claims.is_empty() {
                    taken.push((whole.start(), whole.end()));
                    claims.append(&mut found_claims);
                }
            }
        }
        let denied: Vec<String> = DENIED
            .captures_iter(sentence)
            .filter_map(|c| c.name("x").map(|m| m.as_str().to_string()))
            .collect();
        let mut corrected = claim::corrections(&claims[first..], &denied);
        claims.append(&mut corrected);
    }
    claims
}

/// A value a sentence denies: "..., not Tencent", "not in Munich".
static DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:not|rather than|instead of) (?:at |in |for |with )?(?P<x>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// The claims one rule's match makes.
fn claims_of(
    rule: &Rule,
    caps: &Captures<'_>,
    sentence: &str,
    found: Option<when::Found>,
) -> Vec<Claim> {
    let subject = match caps.name("s").map(|m| m.as_str()) {
        None | Some("I") => Subject::Speaker,
        Some(s) if s.eq_ignore_ascii_case("we") => Subject::Speaker,
        Some(s) if ["he", "she"].contains(&s.to_ascii_lowercase().as_str()) => {
            Subject::Pronoun(s.to_ascii_lowercase())
        }
        Some(s) if NOT_NAMES.contains(&s) => return Vec::new(),
        Some(s) => {
            // "Alice loves", not "Looks like" or "Events like": a name takes
            // the third person.
            let verb = caps
                .get(0)
                .and_then(|m| m.as_str().get(s.len()..))
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or_default();
            if BASE_VERBS.contains(&verb.to_ascii_lowercase().as_str()) {
                return Vec::new();
            }
            Subject::Named(s.to_string())
        }
    };
    // The object stops where a time expression starts; an object that is
    // itself the time ("went to a few weeks ago") is none.
    let object = caps.name("o").and_then(|m| {
        let mut text = m.as_str();
        if let Some(f) = found {
            if f.start <= m.start() && m.start() < f.end {
                return None;
            }
            if m.start() < f.start && f.start < m.end() {
                text = &text[..f.start - m.start()];
            }
        }
        clean_object(text)
    });
    let Some(object) = object else {
        // "I quit my job": ends whatever job there was.
        if rule.kind == ClaimKind::Ended {
            return vec![claim(
                rule,
                "works_at",
                subject,
                String::new(),
                sentence,
                found,
            )];
        }
        return Vec::new();
    };
    let predicate = match &rule.predicate {
        Predicate::Fixed(p) => (*p).to_string(),
        Predicate::FromGroup(g) => caps.name(g).map_or(String::new(), |m| {
            m.as_str().to_ascii_lowercase().replace(' ', "_")
        }),
        Predicate::Favorite => format!(
            "favorite_{}",
            caps.name("cat").map_or("thing".into(), |m| m
                .as_str()
                .to_ascii_lowercase()
                .replace(' ', "_"))
        ),
        Predicate::Verb => caps.name("v").map_or(String::new(), |m| {
            m.as_str().to_ascii_lowercase().replace(' ', "_")
        }),
        Predicate::WithdrawnVerb => {
            let verb = caps
                .name("v")
                .map_or("", |m| m.as_str())
                .to_ascii_lowercase();
            if verb.starts_with("live") || verb.starts_with("move") {
                "lives_in".into()
            } else {
                "works_at".into()
            }
        }
    };
    if predicate.is_empty() {
        return Vec::new();
    }
    // A past job or home without a period ("I used to live in Oslo") says
    // only that it no longer holds.
    let past_without_period = rule.kind == ClaimKind::Happened
        && matches!(predicate.as_str(), "works_at" | "lives_in")
        && found.is_none_or(|f| f.when.to.is_none());
    if past_without_period {
        return vec![Claim {
            kind: ClaimKind::Ended,
            ..claim(rule, &predicate, subject, object, sentence, found)
        }];
    }
    let mut out = vec![claim(
        rule,
        &predicate,
        subject.clone(),
        object,
        sentence,
        found,
    )];
    // "switched from X to Y": X stopped when Y began.
    if let Some(from) = caps.name("from").and_then(|m| clean_object(m.as_str())) {
        out.push(Claim {
            kind: ClaimKind::Ended,
            ..claim(rule, &predicate, subject, from, sentence, found)
        });
    }
    out
}

/// One claim of a rule's match.
fn claim(
    rule: &Rule,
    predicate: &str,
    subject: Subject,
    object: String,
    sentence: &str,
    found: Option<when::Found>,
) -> Claim {
    let object_kind = match (rule.object_kind, predicate) {
        (Some(kind), _) => Some(kind),
        (None, "went_to" | "visited" | "traveled_to" | "travelled_to") => Some("place"),
        _ => None,
    };
    Claim {
        subject,
        predicate: predicate.to_string(),
        object,
        object_kind,
        kind: rule.kind,
        valid: found.map(|f| f.when),
        text: sentence.trim().to_string(),
        confidence: rule.confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use chronolog_engine::Timestamp;

    fn claims(text: &str) -> Vec<String> {
        let at = Timestamp::parse("2023-05-17").expect("time");
        let episode = EpisodeView {
            id: "e1",
            role: "user",
            text,
            at,
            lang: Lang::English,
        };
        super::claims(&episode)
            .into_iter()
            .map(|c| {
                let who = match c.subject {
                    Subject::Speaker => "I".to_string(),
                    Subject::Named(n) => n,
                    Subject::Pronoun(p) => p,
                };
                let when = c
                    .valid
                    .and_then(|w| when::date_of(w.from))
                    .map_or(String::new(), |d| format!(" @{d}"));
                format!("{:?} {who} {} {}{when}", c.kind, c.predicate, c.object)
            })
            .collect()
    }

    #[test]
    fn work_home_and_changes() {
        assert_eq!(
            claims("I work at Tencent in Shenzhen."),
            ["Holds I works_at Tencent"]
        );
        assert_eq!(
            claims("I just joined Moonshot AI last month!"),
            ["Holds I works_at Moonshot AI @2023-04-01"]
        );
        assert_eq!(
            claims("I quit my job at Google."),
            ["Ended I works_at Google"]
        );
        assert_eq!(
            claims("I moved to Berlin in 2021."),
            ["Holds I lives_in Berlin @2021-01-01"]
        );
        assert_eq!(
            claims("Alice works for Acme now"),
            ["Holds Alice works_at Acme"]
        );
        assert_eq!(
            claims("Actually I never joined OpenAI, that was a rumour."),
            ["Withdrawn I works_at OpenAI"]
        );
        // A correction withdraws the value it denies.
        assert_eq!(
            claims("Actually I work at Alibaba, not Tencent."),
            ["Holds I works_at Alibaba", "Withdrawn I works_at Tencent"]
        );
        // Durations and past states keep their times.
        assert_eq!(
            claims("I have lived in Tokyo for three years."),
            ["Holds I lives_in Tokyo @2020-05-17"]
        );
        assert_eq!(
            claims("Two years ago I worked at IBM."),
            ["Happened I works_at IBM @2021-01-01"]
        );
        assert_eq!(claims("I used to live in Oslo."), ["Ended I lives_in Oslo"]);
    }

    #[test]
    fn people_pets_and_tastes() {
        assert_eq!(claims("My sister Mia is visiting"), ["Holds I sister Mia"]);
        assert_eq!(
            claims("My sister Mia loves climbing"),
            ["Holds I sister Mia", "Holds Mia likes climbing"]
        );
        assert_eq!(claims("my dog's name is Max"), ["Holds I has_pet Max"]);
        assert_eq!(claims("I love sushi"), ["Holds I likes sushi"]);
        assert_eq!(
            claims("I don't like sushi anymore"),
            ["Holds I dislikes sushi"]
        );
        assert_eq!(
            claims("My favorite color is green"),
            ["Holds I favorite_color green"]
        );
        assert_eq!(
            claims("I switched from Android to an iPhone"),
            ["Holds I uses iPhone", "Ended I uses Android"]
        );
    }

    #[test]
    fn events_take_their_dates() {
        assert_eq!(
            claims("I went to a LGBTQ support group yesterday."),
            ["Happened I went_to LGBTQ support group @2023-05-16"]
        );
        assert_eq!(
            claims("I started transitioning three years ago"),
            ["Happened I started transitioning @2020-01-01"]
        );
        assert_eq!(
            claims("I just joined a new LGBTQ activist group last Tues"),
            ["Happened I joined new LGBTQ activist group @2023-05-16"]
        );
        assert!(claims("The weather is nice").is_empty());
        // Read from LoCoMo's dev turns: capitalised words that are no
        // names, objects that are only a time, clauses that are no objects.
        assert!(claims("Looks like you had a great day").is_empty());
        assert!(claims("Events like these are great for reminding us").is_empty());
        assert!(claims("this pride parade I went to a few weeks ago").is_empty());
        assert!(claims("doing something I love is awesome").is_empty());
        assert!(claims("It was great").is_empty());
        // Clauses and verbs left without their object say nothing.
        assert!(claims("I love how it shows the togetherness").is_empty());
        assert!(claims("we love what we do").is_empty());
        assert!(claims("Yeah, I love to!").is_empty());
        assert!(claims("I love going on road trips with friends").is_empty());
        assert!(claims("I love making this dairy-free chocolate cake").is_empty());
        assert!(claims("Love to hear more about it").is_empty());
        assert!(claims("I love holding them").is_empty());
        assert!(claims("I enjoy every day").is_empty());
        assert!(claims("It's why I enjoy playing and pushing myself").is_empty());
        assert_eq!(claims("I love hiking"), ["Holds I likes hiking"]);
        assert_eq!(claims("I love performing"), ["Holds I likes performing"]);
        assert_eq!(
            claims("I love playing the piano"),
            ["Holds I likes playing the piano"]
        );
    }
}
