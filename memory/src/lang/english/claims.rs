//! English claims: the rules of [`super::rules`] over each sentence of a
//! message, each match made a claim (its subject, object and predicate
//! read off the match; objects cleaned by [`super::object`]), and the
//! corrections a sentence makes ("..., not Tencent").

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::English;
use super::lexicon::{NOT_JOBS, PETS};
use super::names::{BASE_VERBS, NOT_NAMES};
use super::object::{cardinal, clean_object, keep_abbreviations, looks_ahead, sentences};
use super::pastimes::PASTIMES;
use super::plans::CALLED_OFF;
use super::rules::{Predicate, RULES, Rule};
use crate::claim::{self, Claim, ClaimKind, EpisodeView, Subject};
use crate::when;

/// The claims `episode` makes.
pub(super) fn claims(episode: &EpisodeView<'_>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for said in sentences(episode.text) {
        // Rules read the sentence with its carried subjects; claims quote
        // it as said.
        let carried = subject_carried(&appositions(&uncontracted(&speaker_implied(
            &keep_abbreviations(said),
        ))));
        let sentence = carried.as_str();
        let future = looks_ahead(sentence);
        let found = when::find(&English, sentence, episode.at, future);
        let first = claims.len();
        // Spans already read as one claim are not read again by a
        // later, looser rule ("don't like X" is not also "like X").
        let mut read = claim::ReadSpans::default();
        for rule in CALLED_OFF.iter().chain(PASTIMES.iter()).chain(RULES.iter()) {
            for caps in rule.re.captures_iter(sentence) {
                let Some(whole) = caps.get(0) else { continue };
                // The subject may be shared ("My sister Mia loves
                // climbing": Mia is both an object and a subject).
                let start = caps.name("s").map_or(whole.start(), |m| m.end());
                if read.overlaps(start, whole.end()) {
                    continue;
                }
                let mut found_claims = claims_of(rule, &caps, sentence, found);
                if !rule.accepts(&found_claims) {
                    continue;
                }
                for claim in &mut found_claims {
                    claim.text = said.trim().to_string();
                }
                if let Some(made) = found_claims.first() {
                    read.read(&caps, start, &made.object);
                    claims.append(&mut found_claims);
                }
            }
        }
        let denied: Vec<String> = DENIED
            .captures_iter(sentence)
            .filter_map(|c| c.name("x").map(|m| m.as_str().to_string()))
            .collect();
        let mut corrected = claim::corrections(&claims[first..], &denied);
        let relations = denied_relations(sentence);
        corrected.extend(claim::relation_corrections(&claims[first..], &relations));
        claims.append(&mut corrected);
        if claims.len() == first {
            claims.extend(claim::misspoken_in(
                episode.text,
                said.trim(),
                &MISTAKE,
                &MISSPOKEN,
                |v| no_value(v.trim_matches(['"', '\''])),
            ));
        }
    }
    // "We got a cat. Her name is Mochi": a pet's name, not a relative's.
    claim::pet_names_kept_off_people(&mut claims, PET_WORD.is_match(episode.text));
    claims
}

static PET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:{PETS})s?\b")).unwrap_or_else(|e| unreachable!("{e}"))
});

/// A message owning a mistake: what lets "X, not Y" correct a value.
static MISTAKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:I meant|I mean|meant to (?:say|write|type)|correction|sorry|oops|whoops|my bad|my mistake|misspoke|typo|mixed up|scratch that|actually|wait)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "I meant Emily, not Emma", "it's Spotify, not Shopify", "not Emma but
/// Emily": the right value `x` and the wrong one `y`, each a clause's own;
/// a value said without a lead is a name ("Sorry, Emily, not Emma"), so
/// "you're not talented" is none.
static MISSPOKEN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?:^|[,:;!]\s*)not (?P<y>[^,.;:!?]+?),? but (?P<x>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
        r"(?:^|[,:;!]\s*)(?i:I meant|I mean|I meant to say|it's|it is|it was|its|that's|that is|that was|the name is|her name is|his name is)\s+(?P<x>[^,.;:!?]+?),? (?:and )?not (?P<y>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
        r"(?:^|[,:;!]\s*)(?P<x>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3}),? (?:and )?not (?P<y>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
    ]
    .iter()
    .map(|re| Regex::new(re).unwrap_or_else(|e| unreachable!("{e}")))
    .collect()
});

/// What answers rather than names: "No, not really" corrects nothing.
fn no_value(v: &str) -> &str {
    const ANSWERS: &[&str] = &[
        "No", "Yes", "Yeah", "Nope", "Nah", "Well", "Oh", "Ok", "Okay", "Sure",
    ];
    if ANSWERS.contains(&v) { "" } else { v }
}

/// "I left Tencent and joined Moonshot": a clause after "and", "but" or
/// "then" that starts with a verb of change has the sentence's first
/// subject. Not "like" or "love" ("and like I mentioned", "and love
/// ourselves" read as tastes on LongMemEval's dev conversations).
fn subject_carried(sentence: &str) -> String {
    static ELLIPSIS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?P<c>and|but|then|and then|and just|and recently) (?P<v>joined|moved|started|left|quit|became|work|worked|live|lived|adopted|bought|switched|retired|broke up|went|signed up|graduated)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    static FIRST_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:I|[Ww]e|[Hh]e|[Ss]he)\b").unwrap_or_else(|e| unreachable!("{e}"))
    });
    let Some(subject) = FIRST_SUBJECT.find(sentence) else {
        return sentence.to_string();
    };
    let subject = match subject.as_str() {
        "I" => "I".to_string(),
        other => other.to_lowercase(),
    };
    ELLIPSIS
        // A `;` ends the first clause's object there ("Tencent", not
        // "Tencent and joined Moonshot").
        .replace_all(sentence, format!("$c; {subject} $v").as_str())
        .into_owned()
}

/// The speaker's contractions spelled out ("I'm" is "I am", "she's a
/// nurse" is "she is a nurse"), so that a rule's `{S} am` reads both;
/// curly apostrophes as straight ones.
fn uncontracted(sentence: &str) -> String {
    static CONTRACTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?P<s>I|[Ww]e)'(?P<v>m|ve|ll|re)\b|\b(?P<p>[Hh]e|[Ss]he)'s (?P<a>an?|the|now|currently|still|from|in|at|my|our|his|her)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let straight = sentence.replace('\u{2019}', "'");
    CONTRACTED
        .replace_all(&straight, |c: &Captures<'_>| {
            // "he's a dentist" (not "he's got", "he's been": "has").
            if let (Some(pronoun), Some(after)) = (c.name("p"), c.name("a")) {
                return format!("{} is {}", pronoun.as_str(), after.as_str());
            }
            let verb = match &c["v"] {
                "m" => "am",
                "ve" => "have",
                "ll" => "will",
                _ => "are",
            };
            format!("{} {verb}", &c["s"])
        })
        .into_owned()
}

/// "I am Maya, 29, a nurse at X": an introduction's parts said one by
/// one ("I am Maya; I am 29; I am a nurse at X"), each its own clause for
/// the rules.
fn appositions(sentence: &str) -> String {
    static INTRODUCED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bI am (?P<n>[A-Z][a-z]+), (?:(?P<a>\d{1,2})(?:, |\b))?(?P<r>an? )?")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    INTRODUCED
        .replace_all(sentence, |c: &Captures<'_>| {
            if c.name("a").is_none() && c.name("r").is_none() {
                return c[0].to_string();
            }
            let mut out = format!("I am {};", &c["n"]);
            if let Some(age) = c.name("a") {
                out.push_str(&format!(" I am {};", age.as_str()));
            }
            if let Some(rest) = c.name("r") {
                out.push_str(&format!(" I am {}", rest.as_str()));
            }
            out
        })
        .into_owned()
}

/// "Just joined Moonshot!", "Starting at a clinic next Monday": chat
/// drops the "I" before a verb of change, and the sentence is the
/// speaker's.
fn speaker_implied(sentence: &str) -> String {
    static OPENS_WITH_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?P<a>(?:[Jj]ust|[Ff]inally|[Rr]ecently|[Aa]lso|[Aa]nd) )?(?P<v>[Jj]oined|[Mm]oved|[Rr]elocated|[Ss]tarted|[Qq]uit|[Ll]eft|[Gg]ot|[Bb]ecame|[Ss]tarting)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let sentence = sentence.trim_start();
    let Some(caps) = OPENS_WITH_CHANGE.captures(sentence) else {
        return sentence.to_string();
    };
    let (Some(whole), Some(verb)) = (caps.get(0), caps.name("v")) else {
        return sentence.to_string();
    };
    let adverb = caps
        .name("a")
        .map_or(String::new(), |a| a.as_str().to_lowercase());
    let verb = verb.as_str().to_lowercase();
    // "Starting at X" is "I'm starting at X".
    let spoken = if verb == "starting" {
        format!("I'm {adverb}starting")
    } else {
        format!("I {adverb}{verb}")
    };
    format!("{spoken}{}", &sentence[whole.end()..])
}

/// A value a sentence denies: "..., not Tencent", "not in Munich".
static DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:not|rather than|instead of) (?:at |in |for |with )?(?P<x>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// The relations a sentence denies, as predicates: "..., not my sister"
/// (`sister`), "not my best friend" (`best_friend`).
fn denied_relations(sentence: &str) -> Vec<&'static str> {
    static DENIED_RELATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bnot (?:my|his|her|our|their) (?P<r>[a-z]+(?: friend)?)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    DENIED_RELATION
        .captures_iter(sentence)
        .filter_map(|c| {
            let said = c.name("r")?.as_str().to_ascii_lowercase().replace(' ', "_");
            claim::FAMILY.iter().copied().find(|f| *f == said)
        })
        .collect()
}

/// The claims one rule's match makes.
fn claims_of(
    rule: &Rule,
    caps: &Captures<'_>,
    sentence: &str,
    found: Option<when::Found>,
) -> Vec<Claim> {
    let Some(subject) = subject_of(caps) else {
        return Vec::new();
    };
    // "She is my sister": a pronoun or a sentence's opening word names
    // nobody.
    let object = object_of(caps, found).filter(|o| {
        rule.object_kind != Some("person")
            || !(NOT_NAMES.contains(&o.as_str())
                || ["He", "She", "They", "We", "You", "I"].contains(&o.as_str()))
    });
    let Some(object) = object else {
        // "I quit my job": ends whatever job there was; "the move fell
        // through" calls off whatever move there was.
        if matches!(rule.kind, ClaimKind::Ended | ClaimKind::CalledOff) {
            let predicate = match rule.predicate {
                Predicate::Fixed(p) => p,
                _ => "works_at",
            };
            return vec![claim(
                rule,
                predicate,
                subject,
                String::new(),
                sentence,
                found,
            )];
        }
        return Vec::new();
    };
    let predicate = predicate_of(rule, caps);
    if predicate.is_empty() {
        return Vec::new();
    }
    let object = match cardinal(&object) {
        Some(age) if predicate == "age" => age.to_string(),
        _ => object,
    };
    // "I'm a nurse at X": the title is a claim of its own, and a word
    // formed like a title that names no job ("a regular at X") makes
    // neither claim.
    let title = caps.name("t").map(|m| m.as_str().to_string());
    let titled = if predicate == "job_title" {
        Some(object.as_str())
    } else {
        title.as_deref()
    };
    if titled.is_some_and(names_no_job) {
        return Vec::new();
    }
    let mut out = vec![claim(
        rule,
        &predicate,
        subject.clone(),
        object,
        sentence,
        found,
    )];
    if let Some(title) = title {
        out.push(Claim {
            object_kind: None,
            ..claim(rule, "job_title", subject.clone(), title, sentence, found)
        });
    }
    // "switched from X to Y": X stopped when Y began.
    if let Some(from) = caps.name("from").and_then(|m| clean_object(m.as_str())) {
        out.push(Claim {
            kind: ClaimKind::Ended,
            ..claim(rule, &predicate, subject, from, sentence, found)
        });
    }
    out
}

/// Whether a title's last word names no job ("member", "regular").
fn names_no_job(title: &str) -> bool {
    title
        .split_whitespace()
        .last()
        .is_some_and(|w| NOT_JOBS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Who a match is about: the speaker ("I", "we"), a pronoun to resolve,
/// or a name; `None` for a capitalised word that is no name ("Looks
/// like", "Events like": a name takes the third person).
fn subject_of(caps: &Captures<'_>) -> Option<Subject> {
    Some(match caps.name("s").map(|m| m.as_str()) {
        None | Some("I") => Subject::Speaker,
        Some(s) if s.eq_ignore_ascii_case("we") => Subject::Speaker,
        Some(s) if ["he", "she"].contains(&s.to_ascii_lowercase().as_str()) => {
            Subject::Pronoun(s.to_ascii_lowercase())
        }
        // "Her name is ...", "his name is ...".
        Some(s) if s.eq_ignore_ascii_case("her") => Subject::Pronoun("she".into()),
        Some(s) if s.eq_ignore_ascii_case("his") => Subject::Pronoun("he".into()),
        Some(s) if let Some(relation) = relation_said(s) => Subject::Relative(relation),
        Some(s) if NOT_NAMES.contains(&s) => return None,
        Some(s) => {
            // "Alice loves", not "Looks like" or "Events like": a name takes
            // the third person.
            let verb = caps
                .get(0)
                .and_then(|m| m.as_str().get(s.len()..))
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or_default();
            if BASE_VERBS.contains(&verb.to_ascii_lowercase().as_str()) {
                return None;
            }
            Subject::Named(s.to_string())
        }
    })
}

/// "my sister", "our son": the family predicate a subject names.
fn relation_said(subject: &str) -> Option<String> {
    let (owner, said) = subject.split_once(' ')?;
    if !["my", "our"].contains(&owner.to_ascii_lowercase().as_str()) {
        return None;
    }
    let said = said.to_ascii_lowercase().replace(' ', "_");
    claim::known_by_relation(&said).then_some(said)
}

/// A match's object: it stops where a time expression starts, and an
/// object that is itself the time ("went to a few weeks ago") is none.
fn object_of(caps: &Captures<'_>, found: Option<when::Found>) -> Option<String> {
    caps.name("o").and_then(|m| {
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
    })
}

/// The predicate a rule's match names (empty: none).
fn predicate_of(rule: &Rule, caps: &Captures<'_>) -> String {
    match &rule.predicate {
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
    }
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
        // As consolidation takes them: settled whatever the language.
        claim::settled(super::claims(&episode))
            .into_iter()
            .map(|c| {
                let who = match c.subject {
                    Subject::Speaker => "I".to_string(),
                    Subject::Named(n) => n,
                    Subject::Pronoun(p) => p,
                    Subject::Relative(r) => format!("@{r}"),
                };
                let when = match c.valid {
                    Some(w) if w.from == Timestamp::MIN => {
                        w.to.and_then(when::date_of)
                            .map_or(String::new(), |d| format!(" @..{d}"))
                    }
                    Some(w) => when::date_of(w.from).map_or(String::new(), |d| format!(" @{d}")),
                    None => String::new(),
                };
                format!("{:?} {who} {} {}{when}", c.kind, c.predicate, c.object)
            })
            .collect()
    }

    #[test]
    fn a_trade_is_known_by_its_ending() {
        assert_eq!(
            claims("I'm a pediatrician."),
            ["Holds I job_title pediatrician"]
        );
        assert_eq!(
            claims("She's a cardiologist."),
            ["Holds she job_title cardiologist"]
        );
        assert_eq!(
            claims("I am a physiotherapist."),
            ["Holds I job_title physiotherapist"]
        );
        // Endings a trade does not take make no job.
        assert!(claims("I'm a perfectionist.").is_empty());
    }

    #[test]
    fn a_plan_called_off_names_its_slot() {
        assert_eq!(
            claims("We're not moving to Toronto anymore."),
            ["CalledOff I lives_in Toronto"]
        );
        assert_eq!(claims("The move fell through."), ["CalledOff I lives_in "]);
        assert_eq!(claims("We decided not to move."), ["CalledOff I lives_in "]);
        assert_eq!(
            claims("Actually we're staying in Ottawa after all."),
            ["CalledOff I lives_in "]
        );
        assert_eq!(
            claims("I'm not joining Stripe after all."),
            ["CalledOff I works_at Stripe"]
        );
        assert_eq!(
            claims("I turned down the offer from Stripe."),
            ["CalledOff I works_at Stripe"]
        );
        assert_eq!(
            claims("The job offer fell through."),
            ["CalledOff I works_at "]
        );
    }

    #[test]
    fn a_value_said_by_mistake_is_named_for_consolidation_to_find() {
        let pair = |right: &str, wrong: &str| {
            vec![
                format!("Withdrawn I _misspoken {wrong}"),
                format!("Holds I _misspoken {right}"),
            ]
        };
        assert_eq!(
            claims("Oops, I meant Emily, not Emma."),
            pair("Emily", "Emma")
        );
        assert_eq!(
            claims("Correction: it's Spotify, not Shopify."),
            pair("Spotify", "Shopify")
        );
        assert_eq!(claims("Sorry, not Emma but Emily."), pair("Emily", "Emma"));
        // No word owns a mistake, or the sentence says something else:
        // nothing is misspoken.
        assert!(claims("Let's meet in Paris, not London.").is_empty());
        assert!(claims("No, not really. It's actually fun.").is_empty());
        assert!(claims("Sorry, but it doesn't mean you're not talented.").is_empty());
        assert_eq!(
            claims("Sorry, I work at Spotify, not Shopify."),
            ["Holds I works_at Spotify", "Withdrawn I works_at Shopify"]
        );
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
        // A period with an end: held until then, and ended there.
        assert_eq!(
            claims("I worked at IBM until March 2020."),
            [
                "Happened I works_at IBM @..2020-03-01",
                "Ended I works_at IBM @2020-03-01"
            ]
        );
        assert_eq!(
            claims("I left Tencent and joined Moonshot last week."),
            [
                "Ended I works_at Tencent @2023-05-08",
                "Holds I works_at Moonshot @2023-05-08"
            ]
        );
    }

    #[test]
    fn jobs_said_the_everyday_ways() {
        // What one is, where: a title and a workplace.
        assert_eq!(
            claims("I'm a nurse at Leeds General Infirmary."),
            [
                "Holds I works_at Leeds General Infirmary",
                "Holds I job_title nurse"
            ]
        );
        // A title's period ends no sentence.
        assert_eq!(
            claims("I'm a nurse at St. Mary's Hospital."),
            [
                "Holds I works_at St. Mary's Hospital",
                "Holds I job_title nurse"
            ]
        );
        assert_eq!(
            claims("She is a software engineer at a small startup in Lyon"),
            [
                "Holds she works_at small startup",
                "Holds she job_title software engineer"
            ]
        );
        // Forms of a title that name no job, and places that are none.
        assert!(claims("I'm a regular at Joe's Cafe.").is_empty());
        assert!(claims("I'm a sucker for sweets.").is_empty());
        assert!(claims("I'm a beginner at chess.").is_empty());
        // Chat drops the "I" before a verb of change.
        assert_eq!(
            claims("Just joined Moonshot!"),
            ["Holds I works_at Moonshot"]
        );
        assert_eq!(
            claims("Starting at a private clinic next Monday."),
            ["Holds I works_at private clinic @2023-05-22"]
        );
        assert!(claims("Starting to feel better.").is_empty());
        assert_eq!(claims("I quit the hospital job."), ["Ended I works_at "]);
    }

    #[test]
    fn an_introduction_and_a_move_ahead() {
        assert_eq!(
            claims("Quick intro: I'm Maya, 29, a data analyst at Spotify in Stockholm."),
            [
                "Holds I works_at Spotify",
                "Holds I job_title data analyst",
                "Holds I name Maya",
                "Holds I age 29"
            ]
        );
        assert_eq!(claims("Hi, I'm Tom!"), ["Holds I name Tom"]);
        assert!(
            claims("I love sushi, I'm Tom's friend.")
                .iter()
                .all(|c| !c.contains(" name "))
        );
        assert_eq!(claims("I'm 29."), ["Holds I age 29"]);
        // A nationality or a count is no name; a time is no age.
        assert!(claims("I'm Canadian.").is_empty());
        assert!(claims("I'm 5 minutes away.").is_empty());
        assert_eq!(
            claims("Heads up, I'm moving to Copenhagen in August."),
            ["Holds I lives_in Copenhagen @2023-08-01"]
        );
        assert!(
            claims("I'm moving to Copenhagen.")
                .iter()
                .all(|c| !c.contains("lives_in"))
        );
        assert_eq!(
            claims("My boyfriend Erik and I just got engaged!"),
            [
                "Holds I relationship_status engaged",
                "Holds I boyfriend Erik"
            ]
        );
    }

    #[test]
    fn a_relation_corrected_is_withdrawn_for_that_person() {
        assert_eq!(
            claims("Sorry, it's actually my cousin Clara, not my sister."),
            ["Holds I cousin Clara", "Withdrawn I sister Clara"]
        );
        // A denial of nothing held says nothing.
        assert!(claims("That is not my sister's car.").is_empty());
        assert_eq!(
            claims("Clara is my cousin, not my sister."),
            ["Holds I cousin Clara", "Withdrawn I sister Clara"]
        );
        assert!(claims("She is my sister.").is_empty());
    }

    #[test]
    fn endings_name_what_they_end() {
        assert_eq!(claims("I got laid off."), ["Ended I works_at "]);
        assert_eq!(
            claims("I quit yesterday."),
            ["Ended I works_at  @2023-05-16"]
        );
        assert_eq!(
            claims("My dog passed away last month."),
            ["Ended I has_pet dog @2023-04-01"]
        );
        assert_eq!(claims("My cat Luna died."), ["Ended I has_pet Luna"]);
        let breakup = claims("I broke up with Tom.");
        assert_eq!(breakup.len(), claim::PARTNERS.len());
        assert!(
            breakup.contains(&"Ended I boyfriend Tom".to_string()),
            "{breakup:?}"
        );
        assert_eq!(claims("We broke up.").len(), claim::PARTNERS.len());
        // Not endings: a job quit in a question, a plan.
        assert!(claims("Did you quit smoking?").is_empty());
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

    #[test]
    fn pastimes_taken_up_and_given_up() {
        assert_eq!(
            claims("I got into rock climbing last year."),
            ["Holds I likes rock climbing @2022-01-01"]
        );
        assert_eq!(
            claims("I picked up running in February"),
            ["Holds I likes running @2023-02-01"]
        );
        assert_eq!(
            claims("I also started learning the cello."),
            ["Holds I likes cello"]
        );
        assert_eq!(claims("She took up yoga"), ["Holds she likes yoga"]);
        assert_eq!(
            claims("I gave up running after my knee injury"),
            ["Ended I likes running"]
        );
        assert_eq!(
            claims("I quit the cello, it was too much."),
            ["Ended I likes cello"]
        );
        assert_eq!(
            claims("I go bouldering twice a week."),
            ["Holds I likes bouldering"]
        );
        // An instrument or sport one plays; learning to play one.
        assert_eq!(
            claims("I play the guitar in a band on weekends."),
            ["Holds I likes guitar"]
        );
        assert_eq!(
            claims("He plays tennis with his dad."),
            ["Holds he likes tennis"]
        );
        assert_eq!(
            claims("I've also started learning how to play the piano - it's hard!"),
            ["Holds I likes piano"]
        );
        assert!(claims("I play with my kids every evening.").is_empty());
        assert!(claims("I don't play the piano.").is_empty());
        assert!(claims("I go shopping for a new job tomorrow.").is_empty());
        // What "picked up" and "got into" take besides pastimes.
        assert!(claims("I picked up my daughter from school.").is_empty());
        assert!(claims("I got into Stanford!").is_empty());
        assert!(claims("I picked up something at the market.").is_empty());
        assert!(claims("I got into trouble at work.").is_empty());
        assert_eq!(
            claims("I started working at a bakery."),
            ["Holds I works_at bakery"]
        );
        // A job left is no pastime given up.
        assert_eq!(claims("I quit my job"), ["Ended I works_at "]);
    }

    #[test]
    fn what_is_said_in_passing() {
        assert_eq!(
            claims("I adopted a puppy named Max."),
            ["Holds I has_pet Max"]
        );
        assert_eq!(
            claims("We adopted a rescue dog, a greyhound called Biscuit."),
            ["Holds I has_pet Biscuit"]
        );
        assert_eq!(
            claims("I got a job as a lab manager at AstraZeneca."),
            [
                "Holds I works_at AstraZeneca",
                "Holds I job_title lab manager"
            ]
        );
        assert_eq!(
            claims("My daughter Ella turned seven yesterday."),
            [
                "Holds Ella age 7 @2023-05-16",
                "Holds I daughter Ella @2023-05-16"
            ]
        );
        // A bare age closes its clause; words are written in digits.
        assert_eq!(
            claims("My brother Jack is forty-two."),
            ["Holds Jack age 42", "Holds I brother Jack"]
        );
        assert_eq!(claims("Jack is forty percent sure."), Vec::<String>::new());
        assert_eq!(
            claims("I started at Zalando as an art director."),
            ["Holds I works_at Zalando", "Holds I job_title art director"]
        );
        assert_eq!(
            claims("My brother is a dentist in Oslo."),
            ["Holds @brother job_title dentist"]
        );
        assert_eq!(
            claims("I teach chemistry at a high school in Leeds."),
            ["Holds I works_at high school"]
        );
        assert_eq!(
            claims("Our dog Biscuit is getting old."),
            ["Holds I has_pet Biscuit"]
        );
        assert_eq!(
            claims("I'm based in Toronto."),
            ["Holds I lives_in Toronto"]
        );
        assert_eq!(
            claims("I teach at Lincoln High School."),
            ["Holds I works_at Lincoln High School"]
        );
        // A relative by the relation alone is someone; a friend is not
        // pinned to one person.
        assert_eq!(
            claims("My mom lives in Florida."),
            ["Holds @mom lives_in Florida"]
        );
        assert_eq!(
            claims("My husband is a chef."),
            ["Holds @husband job_title chef"]
        );
        assert!(claims("My friend lives in Paris.").is_empty());
        // A name another rule's subject is also a relation's object, and
        // what follows a cut object is read by another rule.
        assert_eq!(
            claims("My cousin Ana lives in Porto."),
            ["Holds Ana lives_in Porto", "Holds I cousin Ana"]
        );
        assert_eq!(
            claims("I live in Leeds with my wife Priya."),
            ["Holds I lives_in Leeds", "Holds I wife Priya"]
        );
        // A trade said alone, by its word; an -er word that names no trade
        // is none.
        assert_eq!(
            claims("She's a pharmacist."),
            ["Holds she job_title pharmacist"]
        );
        assert_eq!(
            claims("I am a high school teacher."),
            ["Holds I job_title high school teacher"]
        );
        assert!(claims("I'm a dreamer.").is_empty());
        assert!(claims("He's got a point.").is_empty());
        // A job begun with its title.
        assert_eq!(
            claims("I took a new job as a data analyst at Spotify."),
            ["Holds I works_at Spotify", "Holds I job_title data analyst"]
        );
        assert_eq!(
            claims("I've been working part-time for Oxfam."),
            ["Holds I works_at Oxfam"]
        );
        assert_eq!(claims("I drive a Volvo."), ["Holds I owns Volvo"]);
        assert_eq!(
            claims("I'm severely allergic to peanuts."),
            ["Holds I allergic_to peanuts"]
        );
        assert_eq!(
            claims("My only allergy is penicillin."),
            ["Holds I allergic_to penicillin"]
        );
        // Someone else's allergy is not the speaker's.
        assert!(claims("My son's allergy is penicillin.").is_empty());
        assert_eq!(
            claims("I'm considering learning Japanese."),
            ["Holds I plans learning Japanese"]
        );
        assert_eq!(
            claims("We adopted a dog, his name is Bruno."),
            ["Holds I has_pet Bruno"]
        );
    }
}
