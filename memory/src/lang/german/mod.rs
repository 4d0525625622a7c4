//! German: words lower-cased, stems by Snowball's German stemmer (the one
//! tantivy's German analyzer uses), stop words, ich/wir as the first
//! person and du/ihr (and the polite Sie) as the second.

mod claims;
mod facts;
mod pastimes;
mod plans;
mod question;
mod rule;
mod rules;
mod time;
mod words;

use std::sync::LazyLock;

use regex::Regex;
use rust_stemmers::{Algorithm, Stemmer};

use super::{FactWords, Language, Person, QuestionWords, TimePhrase};
use crate::claim::{Claim, EpisodeView};

/// The German reader.
pub(super) struct German;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::German));
/// `question` with its phrases that ask a predicate as one word says it:
/// "freie Zeit" is Freizeit, which asks for pastimes, and "Bin ich noch
/// Lehrer?" asks the job (Beruf), whichever it is now.
fn asked_as(question: &str) -> String {
    let question = FREE_TIME.replace_all(question, "Freizeit");
    IS_A_TRADE
        .replace_all(&question, "${ask}Beruf")
        .into_owned()
}

/// "Bin ich noch Lehrer?", "Ist Sam Krankenpfleger?", "Ist meine Frau
/// Ärztin?": whether one is of a trade (German says it without article).
static IS_A_TRADE: LazyLock<Regex> = LazyLock::new(|| {
    let trade = format!(
        r"^(?P<ask>\s*(?i:bin|ist|sind)\s+(?:(?i:ich|mein|meine) )?\S+\s+(?:(?i:noch|immer noch|jetzt|nicht mehr|kein|keine) )?(?:(?i:ein|eine) )?){}\s*\?",
        words::TITLE
    );
    Regex::new(&trade).unwrap_or_else(|e| unreachable!("{e}"))
});

/// "freie Zeit" is Freizeit: one word, that asks for pastimes.
static FREE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bfreie[nmr]? zeit\b").unwrap_or_else(|e| unreachable!("{e}"))
});

/// Words that carry no topic of their own.
const STOP: &[&str] = &[
    "der",
    "die",
    "das",
    "den",
    "dem",
    "des",
    "ein",
    "eine",
    "einer",
    "eines",
    "einem",
    "einen",
    "und",
    "oder",
    "aber",
    "ist",
    "sind",
    "war",
    "waren",
    "bin",
    "bist",
    "hat",
    "habe",
    "haben",
    "hast",
    "hatte",
    "hatten",
    "wird",
    "werden",
    "wurde",
    "ich",
    "du",
    "er",
    "sie",
    "es",
    "wir",
    "ihr",
    "mich",
    "mir",
    "dich",
    "dir",
    "uns",
    "euch",
    "mein",
    "meine",
    "meinen",
    "meinem",
    "meiner",
    "dein",
    "deine",
    "sein",
    "seine",
    "ihre",
    "unser",
    "unsere",
    "was",
    "wer",
    "wen",
    "wem",
    "wo",
    "wann",
    "wie",
    "warum",
    "welche",
    "welcher",
    "welches",
    "welchen",
    "welchem",
    // "do" as a question says it: no topic.
    "mache",
    "machst",
    "macht",
    "machen",
    "tue",
    "tust",
    "tut",
    "wieso",
    "in",
    "im",
    "an",
    "am",
    "auf",
    "aus",
    "bei",
    "mit",
    "nach",
    "von",
    "vor",
    "zu",
    "zum",
    "zur",
    "für",
    "über",
    "unter",
    "um",
    "als",
    "auch",
    "noch",
    "schon",
    "nur",
    "sehr",
    "so",
    "nicht",
    "kein",
    "keine",
    "jetzt",
    "hier",
    "dort",
    "da",
    "dass",
    "ob",
    "wenn",
    "denn",
    "doch",
    "mal",
    "heißt",
    "heisst",
    "name",
    "namen",
    "gerade",
    "immer",
    "etwas",
    "viel",
    "viele",
    "sich",
    "man",
    "gibt",
    "gern",
    "gerne",
    "bitte",
    "sag",
    "sage",
    "weißt",
    "erinnerst",
    "denn",
    "eigentlich",
];

const FIRST_PERSON: &[&str] = &[
    "ich", "mich", "mir", "mein", "meine", "meinen", "meinem", "meiner", "meines", "wir", "uns",
    "unser", "unsere",
];
const SECOND_PERSON: &[&str] = &[
    "du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "ihr", "euch", "euer",
    "sie", "ihnen",
];

/// Sentences: cut after `.`, `!` or `?` and white space, but not after
/// the dot of an ordinal ("am 3. März").
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut previous = ' ';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let ends = match c {
            '!' | '?' | '\n' => true,
            '.' => !previous.is_ascii_digit(),
            _ => false,
        };
        if ends && next_is_space {
            out.push(text[start..i + c.len_utf8()].trim());
            start = i + c.len_utf8();
        }
        previous = c;
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// Lower-cased words.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl Language for German {
    fn claims(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        claims::claims(episode)
    }

    fn emphasised(&self, text: &str) -> bool {
        static EMPHASIS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)\b(?:merk dir|merke dir|vergiss nicht|nicht vergessen|denk daran|denke daran|wichtig|bitte merken)\b")
                .unwrap_or_else(|e| unreachable!("{e}"))
        });
        EMPHASIS.is_match(text)
    }

    fn mentions<'t>(&self, text: &'t str) -> Vec<&'t str> {
        // Capitalised words, one or two: names, and (German capitalises
        // them) nouns, looked up among the aliases all the same.
        static CAPITALISED: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b[A-ZÄÖÜ][a-zA-ZäöüßÄÖÜ]+(?: [A-ZÄÖÜ][a-zA-ZäöüßÄÖÜ]+)?\b")
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
        sentences(text)
    }

    fn words(&self, text: &str) -> Vec<String> {
        words(text)
    }

    fn stem(&self, word: &str) -> String {
        STEMMER.stem(&word.to_lowercase()).into_owned()
    }

    fn is_stop_word(&self, word: &str) -> bool {
        STOP.contains(&word)
    }

    fn topic_words(&self, question: &str) -> Vec<String> {
        words(&asked_as(question))
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
            .collect()
    }

    fn same_word(&self, topic: &str, word: &str) -> bool {
        // Snowball's German stems nouns and adjectives, not every verb
        // ending ("arbeite" is "arbeit", "arbeitet" stays): a stem that
        // starts the other's, two letters short at most, is the same word.
        // A participle loses its ge- ("gearbeitet" is "arbeitet").
        let unprefixed = |w: &str| -> String {
            match w.strip_prefix("ge") {
                Some(rest)
                    if rest.chars().count() >= 5 && (w.ends_with('t') || w.ends_with("en")) =>
                {
                    rest.to_string()
                }
                _ => w.to_string(),
            }
        };
        let (a, b) = (self.stem(&unprefixed(topic)), self.stem(&unprefixed(word)));
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        topic == word
            || (short.chars().count() >= 4
                && long.starts_with(short.as_str())
                && long.chars().count() - short.chars().count() <= 2)
    }

    fn fact_phrase(&self, subject: &str, predicate: &str, object: &str) -> String {
        facts::phrase(subject, predicate, object)
    }

    fn fact_words(&self) -> &'static FactWords {
        &facts::WORDS
    }

    fn asks_predicate(&self, word: &str) -> bool {
        LEXICON.iter().any(|(entry, _)| self.same_word(entry, word))
    }

    fn predicates_asked(&self, question: &str) -> Vec<&'static str> {
        super::lexicon_lookup(self, &words(&asked_as(question)), LEXICON)
    }

    fn person(&self, word: &str) -> Option<Person> {
        if FIRST_PERSON.contains(&word) {
            Some(Person::First)
        } else if SECOND_PERSON.contains(&word) {
            Some(Person::Second)
        } else {
            None
        }
    }
}

/// The words that ask about a canonical predicate.
const LEXICON: &[(&str, &[&str])] = &[
    ("arbeite", &["works_at", "job_title"]),
    ("arbeitest", &["works_at", "job_title"]),
    ("job", &["works_at", "job_title"]),
    ("firma", &["works_at"]),
    ("arbeitgeber", &["works_at"]),
    ("unternehmen", &["works_at"]),
    ("stelle", &["works_at"]),
    ("beruf", &["job_title"]),
    ("angestellt", &["works_at"]),
    ("beschäftigt", &["works_at"]),
    ("wohne", &["lives_in"]),
    ("wohnst", &["lives_in"]),
    ("lebe", &["lives_in"]),
    ("stadt", &["lives_in"]),
    ("zuhause", &["lives_in"]),
    ("wohnort", &["lives_in"]),
    ("herkunft", &["from"]),
    ("heimat", &["from"]),
    ("alter", &["age"]),
    ("alt", &["age"]),
    ("haustier", &["has_pet"]),
    ("haustiere", &["has_pet"]),
    ("hund", &["has_pet"]),
    ("katze", &["has_pet"]),
    ("kater", &["has_pet"]),
    ("hobby", &["likes"]),
    ("hobbys", &["likes"]),
    ("freizeit", &["likes"]),
    ("sport", &["likes"]),
    ("sportart", &["likes"]),
    ("sportarten", &["likes"]),
    ("instrument", &["likes"]),
    ("instrumente", &["likes"]),
    ("spielen", &["likes"]),
    ("verheiratet", &["relationship_status", "wife", "husband"]),
    ("schwester", &["sister"]),
    ("bruder", &["brother"]),
    ("frau", &["wife"]),
    ("mann", &["husband"]),
    ("freundin", &["friend"]),
    ("freund", &["friend"]),
    ("sohn", &["son"]),
    ("mutter", &["mother", "mom"]),
    ("vater", &["father", "dad"]),
    // Wörter für mehrere Verwandte fragen nach jedem.
    ("geschwister", &["brother", "sister"]),
    ("eltern", &["mother", "father", "mom", "dad"]),
    ("kinder", &["son", "daughter"]),
    ("tochter", &["daughter"]),
    ("chef", &["boss"]),
    ("allergisch", &["allergic_to"]),
    ("allergie", &["allergic_to"]),
    ("allergien", &["allergic_to"]),
    ("plane", &["plans"]),
    ("pläne", &["plans"]),
    ("chefin", &["boss"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_words_and_stems() {
        assert_eq!(
            sentences("Am 3. März bin ich umgezogen. Schön! Und du?"),
            ["Am 3. März bin ich umgezogen.", "Schön!", "Und du?"]
        );
        assert_eq!(German.topic_words("Wo arbeite ich jetzt?"), ["arbeite"]);
        assert!(German.same_word("arbeite", "arbeitet"));
        assert!(German.same_word("wohnt", "wohne"));
        assert!(German.same_word("gearbeitet", "arbeite"));
        assert!(German.same_word("gewohnt", "wohne"));
        assert!(!German.same_word("wohnt", "arbeite"));
        assert_eq!(German.person("ich"), Some(Person::First));
        assert_eq!(German.person("du"), Some(Person::Second));
        assert!(German.emphasised("Merk dir: ich bin allergisch gegen Nüsse"));
    }
}
