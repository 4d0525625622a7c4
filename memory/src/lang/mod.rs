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
//! | `rule.rs` | an extraction rule's shape (pattern, predicate, kind, confidence), shared by the languages |
//! | `english/` | English: `claims.rs` (reading), `rules.rs` (the rule table), `plans.rs` (plans called off), `lexicon.rs`, `object.rs`, `names.rs`, `time.rs`, `question.rs`, `words.rs` |
//! | `chinese/` | Chinese: `mod.rs` (words by the engine's segmenter, stop words, person), `claims.rs` (reading), `rules.rs` (the rule table and its builder), `plans.rs`, `time.rs`, `question.rs`, `facts.rs` (a fact as a context writes it) |
//! | `german/` | German: `mod.rs` (words, Snowball stems, stop words, person), `claims.rs`, `rule.rs` (a rule's builder), `rules.rs` (the table), `plans.rs`, `time.rs`, `question.rs`, `facts.rs` |

mod chinese;
mod english;
mod german;
mod rule;

pub(crate) use rule::Rule;

use chronolog_engine::TextLanguage;

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

    /// A pin as the surfaces take it: a language code, or `none` to
    /// unpin ([`crate::Memory::pin_language`]).
    pub fn parse_pin(code: &str) -> Result<Option<Lang>, UnknownLanguage> {
        if code.trim().eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        code.parse().map(Some)
    }

    /// The language a message is written in, of those served: the
    /// engine's [`chronolog_engine::detect_language`], so a message is read
    /// by the same language its words are indexed in. Chinese by its
    /// script, German where lingua is sure of it, English otherwise: a
    /// greeting or a name says too little to leave the default.
    pub fn detect(text: &str) -> Lang {
        Lang::of(chronolog_engine::detect_language(text))
    }

    /// The language a question is written in: German wherever lingua
    /// finds it more German than English, for a short question says less
    /// than a message ("Was mag ich?" is 0.61 German, "Was it fun?" 0.49).
    pub fn detect_question(text: &str) -> Lang {
        Lang::of(chronolog_engine::detect_question_language(text))
    }

    fn of(language: TextLanguage) -> Lang {
        match language {
            TextLanguage::English => Lang::English,
            TextLanguage::German => Lang::German,
            TextLanguage::Chinese => Lang::Chinese,
        }
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

/// A language code this memory does not serve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a language served: en, zh or de")]
pub struct UnknownLanguage(pub String);

impl std::str::FromStr for Lang {
    type Err = UnknownLanguage;

    /// The language of an ISO 639-1 code (`en`, `zh`, `de`, any case).
    fn from_str(code: &str) -> Result<Lang, UnknownLanguage> {
        Lang::from_code(code).ok_or_else(|| UnknownLanguage(code.to_string()))
    }
}

impl std::fmt::Display for Lang {
    /// Its ISO 639-1 code.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
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
    /// It asks about what the one it is asked of said or did, or both
    /// sides ("what you recommended", "our last chat", "we talked
    /// about"), not only about the speaker: a request ("Can you suggest
    /// ...?") is no such reference.
    pub about_listener: bool,
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
    /// It asks for several things ("What books has Tim read?", "How
    /// many weddings have I attended?").
    pub asks_list: bool,
    /// Its time, taken from the tenant's timeline.
    pub anchor: Option<TimelineAnchor>,
    /// The relatives it names by relation ("my mom", "meine Mutter",
    /// "我妈妈"), as family predicates: the one the user named so, or a
    /// person known only so, is whom it asks about.
    pub relatives: Vec<String>,
}

/// The words a context writes a fact's interval with: "(2024-06-01 ..
/// now; replaced Tencent)", "(past: from 2021-03-01 until 2024-06-01)".
pub(crate) struct FactWords {
    /// An interval still open.
    pub now: &'static str,
    /// A value that no longer holds, shown because the question asks
    /// about the past.
    pub past: &'static str,
    /// Before the start.
    pub from: &'static str,
    /// Before the end.
    pub until: &'static str,
    /// Before the value it replaced.
    pub replaced: &'static str,
}

/// A predicate's label in a language with no other way to write it:
/// its entry in `labels`, a favourite (`favorite_color`) as its
/// category's word in `favorites` made a label by `favorite`, else the
/// predicate's own words (an extractor's `is_employed_at`).
pub(crate) fn fact_label(
    predicate: &str,
    labels: &[(&str, &str)],
    favorites: &[(&str, &str)],
    favorite: impl Fn(&str) -> String,
) -> String {
    labels
        .iter()
        .find(|(p, _)| *p == predicate)
        .map(|(_, label)| (*label).to_string())
        .or_else(|| {
            let category = predicate.strip_prefix("favorite_")?;
            let (word, _) = favorites.iter().find(|(_, c)| *c == category)?;
            Some(favorite(word))
        })
        .unwrap_or_else(|| predicate.replace('_', " "))
}

/// Fails unless `labels` names every family and event predicate the
/// rules make.
#[cfg(test)]
pub(crate) fn assert_labels_cover_the_rules(labels: &[(&str, &str)]) {
    for predicate in crate::claim::FAMILY.iter().chain(crate::claim::EVENTS) {
        assert!(
            labels.iter().any(|(p, _)| p == predicate),
            "{predicate} has no label"
        );
    }
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

    /// A fact as a context writes it for a reader of this language:
    /// "user works at Moonshot", "user 工作单位：月之暗面", "user
    /// Arbeitgeber: Moonshot"; a predicate the language has no words for
    /// (an extractor's own) as its own words.
    fn fact_phrase(&self, subject: &str, predicate: &str, object: &str) -> String;

    /// The words of a fact's interval.
    fn fact_words(&self) -> &'static FactWords;
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

/// The owner and family predicate of a subject that is a relative known
/// by relation (`ids::relative`: "user's mother"), for a language to
/// write in its words ("Mutter von user", "user的母亲").
pub(crate) fn relative_of(subject: &str) -> Option<(&str, String)> {
    let (owner, relation) = subject.split_once("'s ")?;
    let relation = relation.replace(' ', "_");
    crate::claim::known_by_relation(&relation).then_some((owner, relation))
}

/// The words of a word list (word, meaning) as one pattern's
/// alternatives ("Schwester|Bruder|..."), for a rule to put in.
pub(crate) fn alternatives(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(word, _)| *word)
        .collect::<Vec<_>>()
        .join("|")
}

/// A language's family words (word, predicate) whose "my ..." names one
/// person, as regex alternatives.
pub(crate) fn relative_words(family: &[(&str, &str)]) -> String {
    family
        .iter()
        .filter(|(_, relation)| crate::claim::known_by_relation(relation))
        .map(|(word, _)| *word)
        .collect::<Vec<_>>()
        .join("|")
}

/// The family predicates of the relatives `relative` finds in
/// `question` (its `r` group, a word of `family`).
pub(crate) fn relatives_found(
    relative: &regex::Regex,
    question: &str,
    family: &[(&str, &str)],
) -> Vec<String> {
    relative
        .captures_iter(question)
        .filter_map(|c| c.name("r"))
        .filter_map(|r| {
            family
                .iter()
                .find(|(w, _)| *w == r.as_str())
                .map(|(_, p)| (*p).to_string())
        })
        .collect()
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
        assert_eq!(Lang::detect_question("Was ist mein Job?"), Lang::German);
        assert_eq!(Lang::detect_question("What is my job?"), Lang::English);
        assert_eq!(Lang::from_code("xx"), None);
    }

    #[test]
    fn a_question_asks_the_predicates_its_words_name() {
        let asked = |lang: Lang, q: &str| lang.reader().predicates_asked(q);
        assert_eq!(
            asked(Lang::English, "What do I do for a living?"),
            ["works_at", "job_title"]
        );
        assert_eq!(asked(Lang::English, "Where am I living?"), ["lives_in"]);
        assert_eq!(asked(Lang::English, "What sports do I do?"), ["likes"]);
        assert_eq!(asked(Lang::English, "What is my dog's name?"), ["has_pet"]);
        // "free time" is leisure, whichever word says it; "time" alone
        // is no topic of its own there.
        assert_eq!(
            asked(Lang::English, "What do I do in my spare time?"),
            ["likes"]
        );
        assert_eq!(
            Lang::English
                .reader()
                .topic_words("What do I do in my free time?"),
            ["leisure"]
        );
        assert_eq!(
            asked(Lang::German, "Was mache ich in meiner Freizeit?"),
            ["likes"]
        );
        assert_eq!(asked(Lang::Chinese, "我业余时间做什么？"), ["likes"]);
        assert_eq!(asked(Lang::Chinese, "小雨几岁了？"), ["age"]);
        // Whether one is of a trade asks the job, whichever it is now.
        for (lang, question) in [
            (Lang::English, "Am I still a teacher?"),
            (Lang::English, "Is my wife a doctor now?"),
            (Lang::German, "Bin ich noch Lehrer?"),
            (Lang::German, "Ist meine Frau Ärztin?"),
            (Lang::Chinese, "我还是老师吗？"),
            (Lang::Chinese, "我老婆是护士吗？"),
        ] {
            let reader = lang.reader();
            assert!(
                reader.predicates_asked(question).contains(&"job_title"),
                "{question}"
            );
            let topics = reader.topic_words(question);
            assert!(
                topics.iter().all(|t| reader.asks_predicate(t)),
                "{question}: {topics:?}"
            );
        }
        assert!(!asked(Lang::English, "How many doctors did I visit?").contains(&"job_title"));
        assert_eq!(
            asked(Lang::German, "Was tue ich in meiner freien Zeit?"),
            ["likes"]
        );
        for (lang, question) in [
            (Lang::German, "Was mache ich in meiner freien Zeit?"),
            (Lang::Chinese, "我空闲时间做什么？"),
        ] {
            let topics = lang.reader().topic_words(question);
            assert!(
                topics.iter().all(|t| lang.reader().asks_predicate(t)),
                "{topics:?}"
            );
        }
        assert_eq!(asked(Lang::German, "Spiele ich ein Instrument?"), ["likes"]);
        assert_eq!(asked(Lang::Chinese, "我会什么乐器？"), ["likes"]);
        assert_eq!(asked(Lang::Chinese, "我的猫叫什么？"), ["has_pet"]);
        assert_eq!(
            asked(Lang::Chinese, "我老婆是做什么的？"),
            ["works_at", "job_title", "wife"]
        );
    }
}
