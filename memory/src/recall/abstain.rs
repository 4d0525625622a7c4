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

use crate::tuning::Tuning;
use chronolog_engine::Engine;

use super::Channel;
use super::channels::Ranked;
use super::understand::Question;

/// `Some(reason)` when the search should abstain.
pub(crate) fn judge(
    question: &Question,
    rankings: &[Ranked],
    fused: &[(String, f64)],
) -> Option<String> {
    if fused.is_empty() {
        return Some("this memory holds nothing for this tenant at that time".into());
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
    if words_searched && lexical == 0 && named_entities == 0 {
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
    engine: &Engine,
    tenant: &str,
    question: &Question,
    at: super::Instants,
    tuning: &Tuning,
) -> crate::error::Result<Option<String>> {
    let store = engine.store();
    let named = super::speakers::speakers(engine, tenant, question);
    let [person] = named.as_slice() else {
        return Ok(None);
    };
    let Ok(person_name) = store.symbol_name(*person).map(|n| n.to_string()) else {
        return Ok(None);
    };
    let mut people: Vec<String> = vec![person_name.to_lowercase()];
    let topics = |people: &[String]| -> Vec<String> {
        topic_words(&question.text)
            .into_iter()
            .filter(|w| !people.contains(w))
            .collect()
    };
    if topics(&people).is_empty() {
        return Ok(None);
    }
    let query = topics(&people).join(" ");
    let mut found = super::speakers::episode_words(
        engine,
        tenant,
        &query,
        None,
        tuning.owners_candidates,
        at.messages,
        at.known_at,
    )?;
    found.extend(super::speakers::episode_words(
        engine,
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
    let wanted: Vec<String> = topics(&people).iter().map(|w| stem(w)).collect();
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
        let Some(sentence) = best_sentence(&f.text, &wanted) else {
            continue;
        };
        let persons = if addressed(sentence, &others_named) {
            // Said to someone: the person named, when they take part.
            speaker != people[0]
        } else {
            speaker == people[0]
        };
        if persons {
            let said: std::collections::HashSet<String> =
                words(sentence).map(|w| stem(&w)).collect();
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

/// Words that make a sentence the speaker's own.
const FIRST_PERSON: &[&str] = &[
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'd", "i'll",
];
/// Words that make a sentence about the one spoken to.
const SECOND_PERSON: &[&str] = &["you", "your", "yours", "yourself", "you're", "you've"];

/// The sentence of `text` with the most of `wanted` (stemmed) words.
fn best_sentence<'t>(text: &'t str, wanted: &[String]) -> Option<&'t str> {
    let mut best: Option<(&str, usize)> = None;
    for sentence in sentences(text) {
        let hits = words(sentence)
            .map(|w| stem(&w))
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
fn addressed(sentence: &str, others: &[&String]) -> bool {
    let ws: Vec<String> = words(sentence).collect();
    let first = ws
        .iter()
        .filter(|w| FIRST_PERSON.contains(&w.as_str()))
        .count();
    let second = ws
        .iter()
        .filter(|w| SECOND_PERSON.contains(&w.as_str()))
        .count();
    // "Mel" names Melanie: a word of three letters or more that starts a
    // name, and is not a common word.
    let names_other = ws.iter().any(|w| {
        w.len() >= 3
            && !STOP.contains(&w.as_str())
            && others.iter().any(|name| name.starts_with(w.as_str()))
    });
    second > first || (first == 0 && (sentence.trim_end().ends_with('?') || names_other))
}

/// Sentences: split after `.`, `!` or `?` followed by white space.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_some_and(|b| b.is_ascii_whitespace())
        {
            out.push(text[start..=i].trim());
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(text[start..].trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Lower-cased words, curly apostrophes straightened, a possessive "'s"
/// dropped ("Melanie's" is "melanie").
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| {
            let w = w.to_lowercase().replace('\u{2019}', "'");
            let w = w.trim_matches('\'');
            w.strip_suffix("'s").unwrap_or(w).to_string()
        })
        .filter(|w| !w.is_empty())
}

/// A crude stem for matching a question's words in a sentence: a common
/// suffix off where four letters or more remain ("races" is "race").
fn stem(word: &str) -> String {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.chars().count() >= 4
        {
            return root.to_string();
        }
    }
    word.to_string()
}

/// Words that carry no topic of their own in a question.
const STOP: &[&str] = &[
    "the", "and", "for", "are", "was", "were", "what", "when", "where", "who", "whom", "whose",
    "which", "why", "how", "did", "does", "doing", "done", "have", "has", "had", "having", "can",
    "could", "would", "should", "will", "shall", "may", "might", "must", "you", "your", "yours",
    "mine", "our", "ours", "his", "her", "hers", "its", "their", "theirs", "they", "them", "she",
    "him", "this", "that", "these", "those", "there", "here", "with", "from", "into", "about",
    "than", "then", "also", "just", "some", "any", "all", "not", "but", "yes", "name", "named",
    "thing", "things", "tell", "know", "remember", "remind", "please", "like", "much", "many",
    "long", "ever", "still", "now", "one", "get", "got", "kind", "sort", "type", "been", "being",
    "myself", "more", "most", "other", "such", "only", "own", "same", "over", "under", "again",
    "once", "very", "too", "each", "every", "off", "down", "don", "doesn", "didn",
];

/// The question's topic words: three letters or more, not in [`STOP`].
pub(crate) fn topic_words(question: &str) -> Vec<String> {
    words(question)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()) && !w.contains('\''))
        .collect()
}

/// `Some(reason)` when no topic word of the question occurs in what the
/// assembled items say (the messages' words and the sentences facts were
/// read from, not the predicates the context renders: a dog is not a
/// "pet" because the rules filed it under `has_pet`). A word matches its
/// inflections ("work", "worked", "working"). Requiring the question's
/// last topic word instead wrongly abstained on 15% of LoCoMo's
/// answerable dev questions.
pub(crate) fn uncovered(question: &str, item_texts: &[&str]) -> Option<String> {
    let topics = topic_words(question);
    if topics.is_empty() {
        return None;
    }
    let words: std::collections::HashSet<String> = item_texts
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect();
    let stem = |w: &str| -> String {
        w.chars()
            .take(w.chars().count().saturating_sub(2).max(4))
            .collect()
    };
    let covered = |t: &String| {
        words
            .iter()
            .any(|w| w == t || (w.len() >= 4 && stem(w) == stem(t)))
    };
    let found = topics.iter().any(covered);
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

    #[test]
    fn topic_words_decide_coverage() {
        assert_eq!(
            topic_words("What is the name of my pet iguana?"),
            ["pet", "iguana"]
        );
        assert!(
            uncovered(
                "What is the name of my pet iguana?",
                &["My sister Mia loves climbing"]
            )
            .is_some()
        );
        assert!(uncovered("Where do I work?", &["I worked at Tencent"]).is_none());
        assert!(uncovered("When did I start at Moonshot?", &["I started at Moonshot"]).is_none());
        assert!(uncovered("Where do I?", &["anything"]).is_none());
        assert_eq!(
            topic_words("What is Melanie's dog's name?"),
            ["melanie", "dog"]
        );
    }

    #[test]
    fn a_sentence_is_the_speakers_own_unless_it_is_said_to_someone() {
        let mel = "melanie".to_string();
        let others = [&mel];
        assert!(!addressed("I ran a charity race last week.", &others));
        assert!(addressed("Your charity race sounds great.", &others));
        assert!(addressed("How was the race?", &others));
        assert!(addressed("Mel, the race sounds great!", &others));
        // "I" outweighs a question mark or a name.
        assert!(!addressed("Mel, I ran a race too!", &others));
        assert!(!addressed("Did I tell you about my race?", &others));
    }

    #[test]
    fn the_matching_sentence_is_the_one_with_most_topic_words() {
        let wanted: Vec<String> = ["charity", "race"].iter().map(|w| stem(w)).collect();
        let text = "Hi! I ran a race. It was a charity race for kids.";
        assert_eq!(
            best_sentence(text, &wanted),
            Some("It was a charity race for kids.")
        );
        assert_eq!(best_sentence("Nothing here.", &wanted), None);
        assert_eq!(sentences("One. Two!Three? "), ["One.", "Two!Three?"]);
        assert_eq!(stem("races"), "race");
        assert_eq!(stem("painting"), "paint");
        assert_eq!(stem("was"), "was");
    }
}
