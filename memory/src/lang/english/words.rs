//! English words as the gate compares them: sentences, lower-cased words
//! without their possessive, a crude suffix stem, Snowball's stems for
//! inflections, stop words, and the first and second person.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::lang::Person;

/// Words that make a sentence the speaker's own.
const FIRST_PERSON: &[&str] = &[
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'd", "i'll",
];
/// Words that make a sentence about the one spoken to.
const SECOND_PERSON: &[&str] = &["you", "your", "yours", "yourself", "you're", "you've"];

/// Sentences: split after `.`, `!` or `?` followed by white space.
pub(super) fn sentences(text: &str) -> Vec<&str> {
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
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| {
            let mut w = w.to_lowercase();
            if w.contains('\u{2019}') {
                w = w.replace('\u{2019}', "'");
            }
            let trimmed = w.trim_matches('\'');
            let bare = trimmed.strip_suffix("'s").unwrap_or(trimmed);
            // Most words are already bare: no second copy.
            if bare.len() == w.len() {
                w
            } else {
                bare.to_string()
            }
        })
        .filter(|w| !w.is_empty())
}

/// A crude stem for matching a question's words in a sentence: a common
/// suffix off where four letters or more remain ("races" is "race"). The
/// gates' judgements of whose words a sentence holds were fitted with it.
pub(super) fn stem(word: &str) -> String {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.chars().count() >= 4
        {
            return root.to_string();
        }
    }
    word.to_string()
}

/// Snowball's English (Porter2) stemmer, for telling inflections of one
/// word apart from different words ([`same_word`]).
static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

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

/// Words that say the present, as "now" does: the question is asked as
/// of now anyway, so they name no topic.
const PRESENT: &[&str] = &["currently", "nowadays", "presently"];

/// The question's topic words: three letters or more, not in [`STOP`],
/// nor the "days" of "these days" (the present, as "now" is).
pub(super) fn topic_words(question: &str) -> Vec<String> {
    let all: Vec<String> = words(question).collect();
    all.iter()
        .enumerate()
        .filter(|(i, w)| {
            let these_days =
                w.as_str() == "days" && i.checked_sub(1).map(|p| all[p].as_str()) == Some("these");
            w.len() >= 3 && !is_stop_word(w) && !w.contains('\'') && !these_days
        })
        .map(|(_, w)| w.clone())
        .collect()
}

/// Whether `word` (lower-cased) is a stop word.
pub(super) fn is_stop_word(word: &str) -> bool {
    STOP.contains(&word) || PRESENT.contains(&word)
}

/// Whether `word` (from a text) is `topic` or an inflection of it: equal,
/// or of one Snowball stem ("work", "worked", "working"; "employer" and
/// "employs"). Not a shared first four letters: "plant" is no "plan",
/// "cookie" no "cook".
pub(super) fn same_word(topic: &str, word: &str) -> bool {
    word == topic || STEMMER.stem(word) == STEMMER.stem(topic)
}

/// Whether `word` (lower-cased) is the first or second person.
pub(super) fn person(word: &str) -> Option<Person> {
    if FIRST_PERSON.contains(&word) {
        Some(Person::First)
    } else if SECOND_PERSON.contains(&word) {
        Some(Person::Second)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_stems_and_topics() {
        assert_eq!(
            topic_words("What is the name of my pet iguana?"),
            ["pet", "iguana"]
        );
        assert_eq!(
            topic_words("What is Melanie's dog's name?"),
            ["melanie", "dog"]
        );
        assert_eq!(
            topic_words("Who employs me these days, currently?"),
            ["employs"]
        );
        assert_eq!(sentences("One. Two!Three? "), ["One.", "Two!Three?"]);
        assert_eq!(stem("races"), "race");
        assert_eq!(stem("painting"), "paint");
        assert_eq!(stem("was"), "was");
        assert!(same_word("work", "worked"));
        assert!(same_word("employer", "employs"));
        assert!(!same_word("work", "word"));
        assert!(same_word("plan", "plans") && same_word("plan", "planning"));
        assert!(!same_word("plan", "plant") && !same_word("cook", "cookie"));
        assert_eq!(person("my"), Some(Person::First));
        assert_eq!(person("your"), Some(Person::Second));
    }
}
