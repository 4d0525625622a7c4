//! The abstention gate: when the memory holds too little about a
//! question, the search says so, with a reason an agent developer can
//! read, instead of padding the context with whatever came nearest.
//!
//! The dense channels always return their nearest rows, however far, so
//! the gate looks at what is not relative: whether the question's words
//! occur in this tenant's memory at all (`bm25` finds only rows sharing a
//! word), and whether the names it asks about are this tenant's entities.
//! Thresholds on scores are for the evaluation harness to calibrate on the
//! dev data.

use super::Channel;
use super::channels::Ranked;
use super::understand::Question;
use crate::lang::{Language, Person};

/// `Some(reason)` when the search should abstain. `asked` says a fact of
/// an entity the question names holds a predicate its words ask about
/// ("Who is my employer?" and a `works_at` fact): then no shared word is
/// needed. `crossing` says the question is in another language than the
/// memory: its words and names cannot be expected there, and only an
/// empty memory is a reason (what the multilingual channel found stands).
pub(crate) fn judge(
    question: &Question,
    rankings: &[Ranked],
    fused: &[(String, f64)],
    asked: bool,
    crossing: bool,
) -> Option<String> {
    if fused.is_empty() {
        return Some("this memory holds nothing for this tenant at that time".into());
    }
    if crossing {
        return None;
    }
    let lexical = rankings
        .iter()
        .filter(|r| matches!(r.channel, Channel::EpisodeWords | Channel::FactWords))
        .map(|r| r.items.len())
        .sum::<usize>();
    let words_searched = rankings
        .iter()
        .any(|r| matches!(r.channel, Channel::EpisodeWords | Channel::FactWords));
    let named_entities = question
        .entities
        .iter()
        .filter(|e| !e.ends_with("/user"))
        .count();
    // It names someone or something this tenant never mentioned.
    if named_entities == 0
        && !question.unknown_names.is_empty()
        && (lexical == 0 || !words_searched)
    {
        return Some(format!(
            "the question is about {}, which this memory never mentions",
            question.unknown_names.join(", ")
        ));
    }
    // No word of the question occurs anywhere in this memory.
    if words_searched && lexical == 0 && named_entities == 0 && !asked {
        return Some("no word of the question occurs in this memory".into());
    }
    None
}

/// `Some(reason)` when the question names one speaker of this memory and
/// what it asks about is, in the messages that match its topic words,
/// someone else's: said by another person in the first person ("I ran a
/// charity race"), not by the person named nor to them ("your race").
/// LoCoMo's adversarial questions swap the two speakers this way, and the
/// named person's replies echo the other's words ("a charity race, wow"),
/// so who *says* the words tells less than whose they are.
pub(crate) fn owners_words(
    reader: super::Reader<'_>,
    tenant: &str,
    question: &Question,
    at: super::Instants,
) -> crate::error::Result<Option<String>> {
    let (engine, tuning) = (reader.engine, reader.tuning);
    let store = engine.store();
    let lang = question.lang.reader();
    let named = super::speakers::speakers(engine, tenant, question);
    let [person] = named.as_slice() else {
        return Ok(None);
    };
    let Ok(person_name) = store.symbol_name(*person).map(|n| n.to_string()) else {
        return Ok(None);
    };
    let mut people: Vec<String> = vec![person_name.to_lowercase()];
    let topics = |people: &[String]| -> Vec<String> {
        lang.topic_words(&question.text)
            .into_iter()
            .filter(|w| !people.contains(w))
            .collect()
    };
    if topics(&people).is_empty() {
        return Ok(None);
    }
    let query = topics(&people).join(" ");
    let mut found = super::speakers::episode_words(
        reader,
        tenant,
        &query,
        None,
        tuning.owners_candidates,
        at.messages,
        at.known_at,
    )?;
    found.extend(super::speakers::episode_words(
        reader,
        tenant,
        &query,
        Some(*person),
        tuning.owners_candidates,
        at.messages,
        at.known_at,
    )?);
    for f in &found {
        let role = f.role.to_lowercase();
        if !people.contains(&role) {
            people.push(role);
        }
    }
    let wanted: Vec<String> = topics(&people).iter().map(|w| lang.stem(w)).collect();
    // Each message once (the two searches overlap), its score to the
    // person's side or to everyone else's.
    let mut seen = std::collections::HashSet::new();
    let (mut own, mut others): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    // The person's own sentence with every topic word: theirs, however
    // much others said about it ("Oscar, my guinea pig" beside the other
    // speaker's talk of her pets).
    let mut says_it_all = false;
    for f in &found {
        if !seen.insert(f.id.as_str()) {
            continue;
        }
        let speaker = f.role.to_lowercase();
        let others_named: Vec<&String> = people.iter().filter(|p| **p != speaker).collect();
        let Some(sentence) = best_sentence(lang, &f.text, &wanted) else {
            continue;
        };
        let persons = if addressed(lang, sentence, &others_named) {
            // Said to someone: the person named, when they take part.
            speaker != people[0]
        } else {
            speaker == people[0]
        };
        if persons {
            let said: std::collections::HashSet<String> = lang
                .words(sentence)
                .into_iter()
                .map(|w| lang.stem(&w))
                .collect();
            says_it_all |= wanted.iter().all(|w| said.contains(w));
            own.push(f.score);
        } else {
            others.push(f.score);
        }
    }
    let best_sum = |mut scores: Vec<f64>| -> f64 {
        scores.sort_by(|a, b| b.total_cmp(a));
        scores.iter().take(tuning.owners_best).sum()
    };
    let (own, others) = (best_sum(own), best_sum(others));
    Ok(
        (!says_it_all && others > 0.0 && own < tuning.owners_words_ratio * others).then(|| {
            format!(
                "what the question asks about is someone else's in this memory, not {person_name}'s"
            )
        }),
    )
}

/// The sentence of `text` with the most of `wanted` (stemmed) words.
fn best_sentence<'t>(lang: &dyn Language, text: &'t str, wanted: &[String]) -> Option<&'t str> {
    let mut best: Option<(&str, usize)> = None;
    for sentence in lang.sentences(text) {
        let hits = lang
            .words(sentence)
            .into_iter()
            .map(|w| lang.stem(&w))
            .filter(|w| wanted.contains(w))
            .collect::<std::collections::HashSet<_>>()
            .len();
        if hits > 0 && best.is_none_or(|(_, h)| hits > h) {
            best = Some((sentence, hits));
        }
    }
    best.map(|(s, _)| s)
}

/// Whether a sentence is about the one spoken to rather than the speaker:
/// more "you" than "I", or a question or a sentence naming another person
/// without "I".
fn addressed(lang: &dyn Language, sentence: &str, others: &[&String]) -> bool {
    let ws = lang.words(sentence);
    let count = |person| ws.iter().filter(|w| lang.person(w) == Some(person)).count();
    let (first, second) = (count(Person::First), count(Person::Second));
    // "Mel" names Melanie: a word of three letters or more that starts a
    // name, and is not a common word.
    let names_other = ws.iter().any(|w| {
        w.len() >= 3
            && !lang.is_stop_word(w)
            && others.iter().any(|name| name.starts_with(w.as_str()))
    });
    second > first || (first == 0 && (sentence.trim_end().ends_with('?') || names_other))
}

/// `Some(reason)` when no topic word of the question occurs in what the
/// assembled items say (the messages' words and the sentences facts were
/// read from, not the predicates the context renders: a dog is not a
/// "pet" because the rules filed it under `has_pet`). A word matches its
/// inflections ("work", "worked", "working"). Requiring the question's
/// last topic word instead wrongly abstained on 15% of LoCoMo's
/// answerable dev questions.
///
/// When the items show a fact the question asks about by its predicate
/// (`asked_shown`), a question whose topic words only ask for predicates
/// or name its entities is covered by it ("Who is my employer?"); one
/// with other topic words is judged as any other: "What is the name of
/// my pet iguana?" beside a dog named Rex still abstains.
pub(crate) fn uncovered(
    question: &Question,
    item_texts: &[&str],
    asked_shown: bool,
) -> Option<String> {
    let lang = question.lang.reader();
    let topics = lang.topic_words(&question.text);
    if asked_shown {
        // The fact is the named entity's: its name is covered too. A
        // question of nothing else is answered by the fact.
        let names: Vec<String> = question
            .entities
            .iter()
            .map(|e| crate::ids::entity_name(e).to_lowercase())
            .collect();
        if topics
            .iter()
            .all(|t| lang.asks_predicate(t) || names.contains(t))
        {
            return None;
        }
    }
    if topics.is_empty() {
        return None;
    }
    let words: std::collections::HashSet<String> =
        item_texts.iter().flat_map(|t| lang.words(t)).collect();
    let covered = |t: &String| words.iter().any(|w| lang.same_word(t, w));
    // Words that ask the same predicate name one topic: "Where am I
    // employed?" is about "I quit the hospital job" (both `works_at`).
    // The items' predicates are read once, and only when no word matched
    // and every topic word asks one: "my pet iguana" beside a dog is no
    // question about the dog.
    let linked = || {
        let items_ask: std::collections::HashSet<&str> = words
            .iter()
            .flat_map(|w| lang.predicates_asked(w))
            .collect();
        topics.iter().any(|t| {
            lang.predicates_asked(t)
                .iter()
                .any(|p| items_ask.contains(p))
        })
    };
    let found =
        topics.iter().any(covered) || (topics.iter().all(|t| lang.asks_predicate(t)) && linked());
    if found {
        None
    } else {
        Some(format!(
            "nothing in this memory is about {}",
            topics.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;

    fn english() -> &'static dyn Language {
        Lang::English.reader()
    }

    fn asked(text: &str) -> Question {
        Question {
            text: text.to_string(),
            lang: Lang::English,
            about_user: false,
            entities: Vec::new(),
            unknown_names: Vec::new(),
            as_of: None,
            as_of_because: None,
            period: None,
            predicates: Vec::new(),
            asks_when: false,
            asks_past: false,
            asks_list: false,
        }
    }

    #[test]
    fn topic_words_decide_coverage() {
        assert!(
            uncovered(
                &asked("What is the name of my pet iguana?"),
                &["My sister Mia loves climbing"],
                false
            )
            .is_some()
        );
        assert!(uncovered(&asked("Where do I work?"), &["I worked at Tencent"], false).is_none());
        assert!(
            uncovered(
                &asked("When did I start at Moonshot?"),
                &["I started at Moonshot"],
                false
            )
            .is_none()
        );
        assert!(uncovered(&asked("Where do I?"), &["anything"], false).is_none());
    }

    #[test]
    fn a_fact_asked_by_its_predicate_covers_its_words_only() {
        let iguana = asked("What is the name of my pet iguana?");
        assert!(uncovered(&iguana, &["My dog Rex needs a new collar."], true).is_some());
        let pet = asked("What is the name of my pet?");
        assert!(uncovered(&pet, &["My dog Rex needs a new collar."], true).is_none());
        let employer = asked("Who is my employer?");
        assert!(uncovered(&employer, &["I just joined Moonshot!"], true).is_none());
        assert!(uncovered(&employer, &["I just joined Moonshot!"], false).is_some());
        // A word that asks the same predicate covers it.
        let employed = asked("Where am I employed?");
        assert!(uncovered(&employed, &["I quit the hospital job."], false).is_none());
        assert!(uncovered(&employed, &["I quit smoking."], false).is_some());
        // A word for several relatives asks about each of them.
        let siblings = asked("Do I have siblings?");
        assert!(uncovered(&siblings, &["My brother Theo started college."], false).is_none());
        assert!(uncovered(&siblings, &["My wife is a pediatrician."], false).is_some());
        let kids = asked("How old are my kids?");
        assert!(uncovered(&kids, &["My daughter turned five."], false).is_none());
    }

    #[test]
    fn a_sentence_is_the_speakers_own_unless_it_is_said_to_someone() {
        let mel = "melanie".to_string();
        let others = [&mel];
        let addressed = |s: &str| addressed(english(), s, &others);
        assert!(!addressed("I ran a charity race last week."));
        assert!(addressed("Your charity race sounds great."));
        assert!(addressed("How was the race?"));
        assert!(addressed("Mel, the race sounds great!"));
        // "I" outweighs a question mark or a name.
        assert!(!addressed("Mel, I ran a race too!"));
        assert!(!addressed("Did I tell you about my race?"));
    }

    #[test]
    fn the_matching_sentence_is_the_one_with_most_topic_words() {
        let wanted: Vec<String> = ["charity", "race"]
            .iter()
            .map(|w| english().stem(w))
            .collect();
        let text = "Hi! I ran a race. It was a charity race for kids.";
        assert_eq!(
            best_sentence(english(), text, &wanted),
            Some("It was a charity race for kids.")
        );
        assert_eq!(best_sentence(english(), "Nothing here.", &wanted), None);
    }
}
