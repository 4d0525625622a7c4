//! The language seam: everything in the memory that reads words goes
//! through a [`Language`], chosen per message and per question by
//! [`Lang`]. Each language owns its sentence splitting, words and stop
//! words, stemming, first and second person, names, question cues, time
//! phrases and extraction rules; what it produces is language-neutral
//! ([`crate::Claim`]s with canonical predicates, [`TimeExpr`]s anchored
//! by `when`), so consolidation and recall never name a language.
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | the [`Language`] trait, [`Lang`] (the languages served), what a question's words say |
//! | `english/` | English: `claims.rs` (the rules), `object.rs`, `names.rs`, `time.rs`, `question.rs`, `words.rs` |
//! | `chinese/` | Chinese: `mod.rs` (words by the engine's segmenter, stop words, person), `claims.rs` (reading), `rules.rs` (the rule table), `time.rs`, `question.rs` |

mod chinese;
mod detect;
mod english;
mod german;

use crate::claim::{Claim, EpisodeView};
pub(crate) use crate::when::TimePhrase;

/// A language the memory reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lang {
    /// English.
    #[default]
    English,
    /// Chinese (Mandarin, in simplified or traditional characters).
    Chinese,
    /// German.
    German,
}

impl Lang {
    /// Every language served.
    pub const ALL: [Lang; 3] = [Lang::English, Lang::Chinese, Lang::German];

    /// Its ISO 639-1 code.
    pub fn code(self) -> &'static str {
        match self {
            Lang::English => "en",
            Lang::Chinese => "zh",
            Lang::German => "de",
        }
    }

    /// The language of an ISO 639-1 code, if it is served.
    pub fn from_code(code: &str) -> Option<Lang> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(code.trim()))
    }

    /// The language `text` is written in, of those served. Chinese is told
    /// by its script: a text whose letters are at least a quarter Han
    /// characters is Chinese ("我用iPhone拍照" is). Latin script is German
    /// where lingua (its English and German models only) is sure of it,
    /// and English otherwise: a greeting or a name says too little to
    /// leave the default.
    pub fn detect(text: &str) -> Lang {
        Lang::detect_with(text, None)
    }

    /// [`Lang::detect`], leaning to `prior` (the tenant's language) where
    /// the text says too little: a short question lingua finds more German
    /// than not ("Was ist mein Job?", 0.67) is German in a German
    /// tenant's memory. An English question there stays English ("What is
    /// my job?" is 0.24).
    pub fn detect_with(text: &str, prior: Option<Lang>) -> Lang {
        let (mut han, mut letters) = (0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            han += usize::from(chronolog_engine::is_han(c));
        }
        if han > 0 && han * 4 >= letters {
            return Lang::Chinese;
        }
        if letters > 0 {
            let german = detect::german_confidence(text);
            let needed = if prior == Some(Lang::German) {
                detect::GERMAN_LEANING
            } else {
                detect::GERMAN_CONFIDENCE
            };
            if german >= needed {
                return Lang::German;
            }
        }
        Lang::English
    }

    /// What reads this language.
    pub(crate) fn reader(self) -> &'static dyn Language {
        match self {
            Lang::English => &english::English,
            Lang::Chinese => &chinese::Chinese,
            Lang::German => &german::German,
        }
    }
}

/// Whose a word is: the speaker's ("I", "my") or the one spoken to's
/// ("you", "your").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Person {
    First,
    Second,
}

/// How a question ties its time to the tenant's own timeline ("before I
/// moved to Berlin", "when I was at Tencent").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TimelineAnchor {
    /// Just before the fact began (`true`), or at its start.
    pub before: bool,
    /// The word that said so, lower-cased ("before", "after", "when").
    pub word: String,
    /// What the fact's object is called in the question ("Berlin").
    pub object: String,
}

/// What a question's words say, before the tenant's memory is consulted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct QuestionWords {
    /// It speaks in the first person ("Where do I work?").
    pub first_person: bool,
    /// Spans that may be names, each with its readings most likely
    /// first ("Did Alice" reads "Did Alice", then "Alice").
    pub names: Vec<Vec<String>>,
    /// Words that may be names written in lower case ("where does mia
    /// live").
    pub lower_words: Vec<String>,
    /// It asks when, or for how long.
    pub asks_when: bool,
    /// It asks about the past without naming a time ("used to").
    pub asks_past: bool,
    /// It asks for several things ("What books has Tim read?").
    pub asks_list: bool,
    /// Its time, taken from the tenant's timeline.
    pub anchor: Option<TimelineAnchor>,
}

/// Everything the memory asks of a language. An implementation reads
/// only words: it never touches the store.
pub(crate) trait Language: Send + Sync {
    /// The claims `episode` makes, by this language's rules.
    fn claims(&self, episode: &EpisodeView<'_>) -> Vec<Claim>;

    /// Whether a message asks to be remembered ("remember that"): such
    /// memories start more salient.
    fn emphasised(&self, text: &str) -> bool;

    /// Spans of `text` that may name someone or something, to be looked up
    /// among the tenant's aliases.
    fn mentions<'t>(&self, text: &'t str) -> Vec<&'t str>;

    /// Every time phrase in `text`, by the rank of the pattern that read
    /// it, then left to right (the order `when::find` relies on).
    fn time_phrases(&self, text: &str) -> Vec<TimePhrase>;

    /// What a question's words say.
    fn read_question(&self, question: &str) -> QuestionWords;

    /// The parts of a question that asks several things ("Where do I work
    /// and where do I live?"); one part for one that does not.
    fn question_parts(&self, question: &str) -> Vec<String>;

    /// The sentences of `text`, trimmed, none empty.
    fn sentences<'t>(&self, text: &'t str) -> Vec<&'t str>;

    /// The words of `text` as they are compared: lower-cased, a possessive
    /// dropped.
    fn words(&self, text: &str) -> Vec<String>;

    /// A word's stem, so inflections of one word compare equal.
    fn stem(&self, word: &str) -> String;

    /// Whether `word` carries no topic of its own ("the", "what", "you").
    fn is_stop_word(&self, word: &str) -> bool;

    /// The words of a question that say what it is about.
    fn topic_words(&self, question: &str) -> Vec<String>;

    /// Whether `word`, from a text, is the topic word `topic` or one of
    /// its inflections.
    fn same_word(&self, topic: &str, word: &str) -> bool;

    /// Whether `word` is the first or second person.
    fn person(&self, word: &str) -> Option<Person>;

    /// The canonical predicates a question's words ask about ("Who is my
    /// employer?", "我在哪家公司？", "Wo arbeite ich?" ask `works_at`): a
    /// fact holding one answers the question whatever words its message
    /// used.
    fn predicates_asked(&self, question: &str) -> Vec<&'static str>;

    /// Whether `word`, a topic word of a question, is one of the words
    /// that ask about a predicate ("employer", "公司"): a fact of that
    /// predicate covers it; the question's other topic words ("iguana" in
    /// "my pet iguana") must still be found.
    fn asks_predicate(&self, word: &str) -> bool;
}

/// The predicates `words` ask about, by a language's lexicon (each entry
/// a word and the predicates it asks about), words compared by the
/// language's `same_word`.
pub(crate) fn lexicon_lookup(
    lang: &dyn Language,
    words: &[String],
    lexicon: &[(&str, &[&'static str])],
) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for word in words {
        for (entry, predicates) in lexicon {
            if lang.same_word(entry, word) {
                for p in *predicates {
                    if !out.contains(p) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_chinese_by_its_script() {
        assert_eq!(Lang::detect("我在腾讯工作。"), Lang::Chinese);
        assert_eq!(Lang::detect("我用iPhone拍照"), Lang::Chinese);
        assert_eq!(Lang::detect("I work at Tencent."), Lang::English);
        assert_eq!(
            Lang::detect("I love 火锅 and dumplings, really a lot"),
            Lang::English
        );
        assert_eq!(Lang::detect(""), Lang::English);
        assert_eq!(Lang::from_code("ZH"), Some(Lang::Chinese));
        assert_eq!(
            Lang::detect("Ich arbeite bei Siemens in München."),
            Lang::German
        );
        assert_eq!(Lang::detect("Wo arbeite ich?"), Lang::German);
        assert_eq!(Lang::detect("Where do I work?"), Lang::English);
        assert_eq!(Lang::detect("Hallo!"), Lang::English);
        assert_eq!(Lang::detect("Was ist mein Job?"), Lang::English);
        assert_eq!(
            Lang::detect_with("Was ist mein Job?", Some(Lang::German)),
            Lang::German
        );
        assert_eq!(
            Lang::detect_with("What is my job?", Some(Lang::German)),
            Lang::English
        );
        assert_eq!(Lang::from_code("xx"), None);
    }
}
