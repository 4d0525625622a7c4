//! English: the rules, time phrases, question cues and word handling the
//! memory was first built with, tuned on LoCoMo's dev conversations only.

mod claims;
mod names;
mod object;
mod question;
mod time;
mod words;

use std::sync::LazyLock;

use regex::Regex;

use super::{Language, Person, QuestionWords, TimePhrase};
use crate::claim::{Claim, EpisodeView};

/// The English reader.
pub(super) struct English;

impl Language for English {
    fn claims(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        claims::claims(episode)
    }

    fn emphasised(&self, text: &str) -> bool {
        static EMPHASIS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)\b(?:remember that|please remember|don't forget|do not forget|important|never forget|keep in mind|note that)\b")
                .unwrap_or_else(|e| unreachable!("{e}"))
        });
        EMPHASIS.is_match(text)
    }

    fn mentions<'t>(&self, text: &'t str) -> Vec<&'t str> {
        // Capitalised words, one or two: "Alice", "Moonshot AI".
        static CAPITALISED: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)?\b")
                .unwrap_or_else(|e| unreachable!("{e}"))
        });
        CAPITALISED.find_iter(text).map(|m| m.as_str()).collect()
    }

    fn time_phrases(&self, text: &str) -> Vec<TimePhrase> {
        time::phrases(text)
    }

    fn read_question(&self, question: &str) -> QuestionWords {
        question::read(question)
    }

    fn question_parts(&self, question: &str) -> Vec<String> {
        question::parts(question)
    }

    fn sentences<'t>(&self, text: &'t str) -> Vec<&'t str> {
        words::sentences(text)
    }

    fn words(&self, text: &str) -> Vec<String> {
        words::words(text).collect()
    }

    fn stem(&self, word: &str) -> String {
        words::stem(word)
    }

    fn is_stop_word(&self, word: &str) -> bool {
        words::is_stop_word(word)
    }

    fn topic_words(&self, question: &str) -> Vec<String> {
        words::topic_words(question)
    }

    fn same_word(&self, topic: &str, word: &str) -> bool {
        words::same_word(topic, word)
    }

    fn person(&self, word: &str) -> Option<Person> {
        words::person(word)
    }
}
