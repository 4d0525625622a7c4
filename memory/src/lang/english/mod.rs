//! English: the rules, time phrases, question cues and word handling the
//! memory was first built with, tuned on LoCoMo's dev conversations only.

mod claims;
mod lexicon;
mod names;
mod object;
mod pastimes;
mod plans;
mod question;
mod rules;
mod time;
mod words;

use std::sync::LazyLock;

use regex::Regex;

use super::{FactWords, Language, Person, QuestionWords, TimePhrase};
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
        words::topic_words(&asked_as(question))
    }

    fn same_word(&self, topic: &str, word: &str) -> bool {
        words::same_word(topic, word)
    }

    fn person(&self, word: &str) -> Option<Person> {
        words::person(word)
    }

    fn fact_phrase(&self, subject: &str, predicate: &str, object: &str) -> String {
        format!("{subject} {} {object}", predicate.replace('_', " "))
    }

    fn fact_words(&self) -> &'static FactWords {
        const WORDS: FactWords = FactWords {
            now: "now",
            past: "past",
            from: "from",
            until: "until",
            replaced: "replaced",
        };
        &WORDS
    }

    fn asks_predicate(&self, word: &str) -> bool {
        LEXICON.iter().any(|(entry, _)| self.same_word(entry, word))
    }

    fn predicates_asked(&self, question: &str) -> Vec<&'static str> {
        // "What do I do for a living?" asks the job, not the home that
        // "living" shares a stem with.
        let words: Vec<String> = words::words(&asked_as(question)).collect();
        super::lexicon_lookup(self, &words, LEXICON)
    }
}

/// `question` with its phrases that ask a predicate as one word says it:
/// "What do I do for a living?" asks the job (not the home "living"
/// shares a stem with), "free time" is leisure (not a word and "time"),
/// and "Am I still a teacher?" asks the job, whichever it is now.
fn asked_as(question: &str) -> String {
    let question = FOR_A_LIVING.replace_all(question, "job");
    let question = IDLE_TIME.replace_all(&question, "leisure");
    IS_A_TRADE.replace_all(&question, "${ask}job").into_owned()
}

/// "Am I still a teacher?", "Is Sam a nurse?", "Is my wife a doctor
/// now?": whether one is of a trade.
static IS_A_TRADE: LazyLock<Regex> = LazyLock::new(|| {
    let trade = format!(
        r"(?i)^(?P<ask>\s*(?:am|is|are)\s+(?:i|my \S+|\S+)\s+(?:still |now |currently |no longer )?an? )(?:(?:{}) )?(?:{})\b",
        lexicon::QUALIFIER,
        lexicon::PROFESSIONS
    );
    Regex::new(&trade).unwrap_or_else(|e| unreachable!("{e}"))
});

static FOR_A_LIVING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bfor a living\b").unwrap_or_else(|e| unreachable!("{e}")));

/// "free time", "spare time": one word, leisure, not a word and "time".
static IDLE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:free|spare|leisure|down)[ -]?time\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// The words that ask about a canonical predicate. A family word asks
/// about itself.
const LEXICON: &[(&str, &[&str])] = &[
    ("work", &["works_at", "job_title"]),
    ("job", &["works_at", "job_title"]),
    ("company", &["works_at"]),
    ("employer", &["works_at"]),
    ("employed", &["works_at"]),
    ("office", &["works_at"]),
    ("workplace", &["works_at"]),
    ("career", &["works_at", "job_title"]),
    ("profession", &["job_title"]),
    ("occupation", &["job_title"]),
    ("live", &["lives_in"]),
    ("home", &["lives_in"]),
    ("city", &["lives_in"]),
    ("reside", &["lives_in"]),
    ("based", &["lives_in"]),
    ("hometown", &["from"]),
    ("born", &["from"]),
    ("age", &["age"]),
    ("old", &["age"]),
    ("pet", &["has_pet"]),
    ("pets", &["has_pet"]),
    // A pet by its kind: "What is my dog's name?"
    ("dog", &["has_pet"]),
    ("cat", &["has_pet"]),
    ("puppy", &["has_pet"]),
    ("kitten", &["has_pet"]),
    ("hobby", &["likes"]),
    ("hobbies", &["likes"]),
    // Pastimes by their kind: a sport, an instrument one plays.
    ("pastime", &["likes"]),
    ("fun", &["likes"]),
    ("leisure", &["likes"]),
    ("sport", &["likes"]),
    ("sports", &["likes"]),
    ("instrument", &["likes"]),
    ("instruments", &["likes"]),
    ("play", &["likes"]),
    ("enjoy", &["likes"]),
    ("favorite", &["likes"]),
    ("favourite", &["likes"]),
    ("dislike", &["dislikes"]),
    ("hate", &["dislikes"]),
    ("married", &["relationship_status", "wife", "husband"]),
    ("single", &["relationship_status"]),
    ("sister", &["sister"]),
    ("brother", &["brother"]),
    ("wife", &["wife"]),
    ("husband", &["husband"]),
    ("partner", &["partner"]),
    ("boyfriend", &["boyfriend"]),
    ("girlfriend", &["girlfriend"]),
    ("son", &["son"]),
    ("mother", &["mother", "mom"]),
    ("mom", &["mother", "mom"]),
    ("father", &["father", "dad"]),
    ("dad", &["father", "dad"]),
    // Words for several relatives ask about each.
    ("siblings", &["brother", "sister"]),
    ("sibling", &["brother", "sister"]),
    ("parents", &["mother", "father", "mom", "dad"]),
    ("children", &["son", "daughter"]),
    ("kids", &["son", "daughter"]),
    ("daughter", &["daughter"]),
    ("boss", &["boss"]),
    ("allergic", &["allergic_to"]),
    ("allergy", &["allergic_to"]),
    ("allergies", &["allergic_to"]),
    ("plan", &["plans"]),
    ("plans", &["plans"]),
];
