//! Telling German from English: lingua, with only the two languages'
//! models built in, loaded on first use.

use std::sync::LazyLock;

use lingua::{Language, LanguageDetector, LanguageDetectorBuilder};

/// How sure lingua must be that a text is German for it to be read as
/// German. A misread English message loses its facts, while a short
/// German one read as English loses little (its words are still
/// searched). Of LoCoMo's 3,759 dev turns and questions (English) one
/// reaches 0.5 and none 0.6; German sentences that name foreign places
/// score lower than plain ones ("Ich arbeite bei Tencent in Shenzhen."
/// 0.885, "Ich wohne in Köln." 0.996), English ones about 0.15.
pub(super) const GERMAN_CONFIDENCE: f64 = 0.8;

/// The confidence that is enough in a German tenant's memory: more German
/// than English. Short German questions score 0.6 to 0.8 ("Was mag ich?"
/// 0.61, "Wie alt bin ich?" 0.80), short English ones below 0.5 ("Was it
/// fun?" 0.49, "What is my job?" 0.24).
pub(super) const GERMAN_LEANING: f64 = 0.5;

static DETECTOR: LazyLock<LanguageDetector> = LazyLock::new(|| {
    LanguageDetectorBuilder::from_languages(&[Language::English, Language::German]).build()
});

/// Lingua's confidence, 0 to 1, that `text` is German rather than English.
pub(super) fn german_confidence(text: &str) -> f64 {
    DETECTOR.compute_language_confidence(text, Language::German)
}
