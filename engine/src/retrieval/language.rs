//! Which language a text is written in, of those the analyzers read:
//! Chinese by its script, German against English by lingua (with only
//! those two languages' models built in, loaded on first use). The
//! `multilingual` analyzer asks this of every text it indexes, and the
//! memory of every message, so the two always agree; a question, shorter,
//! is read in its likelier language.

use std::sync::LazyLock;

use lingua::{Language, LanguageDetector, LanguageDetectorBuilder};

use super::words::is_han;

/// A language the engine's analyzers know by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextLanguage {
    /// English: the default where a text says too little.
    English,
    /// German.
    German,
    /// Chinese, in simplified or traditional characters.
    Chinese,
}

/// How sure lingua must be that a message is German for it to be read
/// as German. A misread English message loses its facts and its stems,
/// while a German one read as English loses little (its words are still
/// searched). Of LoCoMo's 3,759 dev turns and questions (English) one
/// reaches 0.5 and none 0.6; German sentences that name foreign places
/// score lower than plain ones ("Ich arbeite bei Tencent in Shenzhen."
/// 0.885, "Ich wohne in Köln." 0.996), English ones about 0.15.
const GERMAN_MESSAGE: f64 = 0.8;

/// How sure lingua must be that a question is German: more German than
/// English. Questions are short and a misread one costs less (it is
/// searched in the multilingual space); short German ones score 0.6 to
/// 0.8 ("Was mag ich?" 0.61, "Welches Instrument lerne ich?" 0.79), and
/// none of the 1,249 questions of LoCoMo's and LongMemEval's dev halves
/// reaches 0.46 (nor "Was it fun?", 0.49, nor "Was he there?", 0.20).
const GERMAN_QUESTION: f64 = 0.5;

static DETECTOR: LazyLock<LanguageDetector> = LazyLock::new(|| {
    LanguageDetectorBuilder::from_languages(&[Language::English, Language::German]).build()
});

/// The language a message is written in. Chinese is told by its
/// script: a text whose letters are at least a quarter Han characters is
/// Chinese ("我用iPhone拍照" is). Latin script is German where lingua is
/// sure of it, and English otherwise: a greeting or a name says too
/// little to leave the default.
pub fn detect_language(text: &str) -> TextLanguage {
    detect(text, GERMAN_MESSAGE)
}

/// The language a question is written in: as [`detect_language`], but
/// German wherever lingua finds it more German than English, for a short
/// question says less ("Was mag ich?" is 0.61).
pub fn detect_question_language(text: &str) -> TextLanguage {
    detect(text, GERMAN_QUESTION)
}

fn detect(text: &str, german_at: f64) -> TextLanguage {
    let (mut han, mut letters) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        han += usize::from(is_han(c));
    }
    if han > 0 && han * 4 >= letters {
        return TextLanguage::Chinese;
    }
    if letters > 0 && DETECTOR.compute_language_confidence(text, Language::German) >= german_at {
        return TextLanguage::German;
    }
    TextLanguage::English
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_then_lingua_then_english() {
        assert_eq!(detect_language("我在腾讯工作。"), TextLanguage::Chinese);
        assert_eq!(detect_language("我用iPhone拍照"), TextLanguage::Chinese);
        assert_eq!(
            detect_language("Ich wohne seit drei Jahren in Köln."),
            TextLanguage::German
        );
        assert_eq!(
            detect_language("I have lived in Cologne for three years."),
            TextLanguage::English
        );
        assert_eq!(detect_language(""), TextLanguage::English);
        assert_eq!(detect_language("42!"), TextLanguage::English);
    }

    #[test]
    fn a_short_question_is_read_in_its_likelier_language() {
        for german in [
            "Was mag ich?",
            "Welches Instrument lerne ich?",
            "Was ist mein Job?",
            "Wie alt bin ich?",
        ] {
            assert_eq!(
                detect_question_language(german),
                TextLanguage::German,
                "{german}"
            );
        }
        for english in [
            "What is my job?",
            "Was it fun?",
            "Was he there?",
            "Am I late?",
        ] {
            assert_eq!(
                detect_question_language(english),
                TextLanguage::English,
                "{english}"
            );
        }
        assert_eq!(
            detect_question_language("我在哪里工作？"),
            TextLanguage::Chinese
        );
        // A message as short is not sure enough to leave English.
        assert_eq!(detect_language("Was mag ich?"), TextLanguage::English);
    }
}
