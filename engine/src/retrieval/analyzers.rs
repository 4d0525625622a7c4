//! The analyzers a `search` column names: how its text, and the words a
//! query searches for, are cut into terms. Every analyzer starts from
//! [`WordTokenizer`] (words, Chinese by its dictionary), drops tokens
//! over 40 bytes (base64, URLs) and lower-cases; then
//!
//! | analyzer | drops | stems |
//! |---|---|---|
//! | `english` | English stop words (Lucene's list) | Snowball English |
//! | `german` | German stop words (Snowball's list) | Snowball German |
//! | `chinese` | particles and structural words | nothing |
//! | `simple` | nothing | nothing |
//! | `multilingual` | as the text's own language | as the text's own language |
//!
//! `multilingual` detects each indexed text's language
//! ([`detect_language`]) and cuts it with that language's analyzer; a
//! query is cut by the analyzer of every language the column has held so
//! far, its terms the union. A column that has only held English text is
//! searched exactly as an `english` one, and a short German question
//! ("Wohnst du noch in Köln?", which lingua is not sure of) still meets
//! the German stems of the messages it asks about.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use tantivy::tokenizer::{
    BoxTokenStream, Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer,
    TextAnalyzerBuilder, Tokenizer,
};

use super::language::{TextLanguage, detect_language};
use super::words::WordTokenizer;
use crate::error::{Error, Result, RetrievalError};
use crate::marks::TextSearch;

/// Chinese words that carry no topic in a search: particles, aspect and
/// structural markers, measure words. Pronouns and question words stay,
/// as "I" and "what" do in English (Lucene's English list keeps them);
/// BM25's idf already weighs them down.
const CHINESE_FUNCTION_WORDS: &[&str] = &[
    "的", "了", "着", "过", "吗", "呢", "吧", "啊", "呀", "啦", "嘛", "哦", "嗯", "地", "得", "之",
    "所", "个", "和", "与", "及", "而", "或", "是", "在", "也", "都", "就", "又", "很", "把", "被",
];

/// The languages a `multilingual` column may hold, in the order a query
/// is cut by them.
const LANGUAGES: [TextLanguage; 3] = [
    TextLanguage::English,
    TextLanguage::German,
    TextLanguage::Chinese,
];

fn bit(language: TextLanguage) -> u8 {
    match language {
        TextLanguage::English => 1,
        TextLanguage::German => 2,
        TextLanguage::Chinese => 4,
    }
}

fn text_error(e: impl std::fmt::Display) -> Error {
    Error::from(RetrievalError::TextIndex(e.to_string()))
}

fn base() -> TextAnalyzerBuilder<impl Tokenizer> {
    TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
}

fn simple() -> TextAnalyzer {
    base().build()
}

/// The analyzer of one language.
fn of_language(language: TextLanguage) -> Result<TextAnalyzer> {
    let stemmed = |language: Language| -> Result<TextAnalyzer> {
        let stop_words = StopWordFilter::new(language)
            .ok_or_else(|| text_error(format!("tantivy has no {language:?} stop words")))?;
        Ok(base()
            .filter(stop_words)
            .filter(Stemmer::new(language))
            .build())
    };
    match language {
        TextLanguage::English => stemmed(Language::English),
        TextLanguage::German => stemmed(Language::German),
        TextLanguage::Chinese => Ok(base()
            .filter(StopWordFilter::remove(
                CHINESE_FUNCTION_WORDS.iter().map(|w| (*w).to_string()),
            ))
            .build()),
    }
}

/// Cuts each text with the analyzer of its own language, and notes the
/// language in the column's set of languages held.
#[derive(Clone)]
struct ByLanguage {
    analyzers: [TextAnalyzer; 3],
    held: Arc<AtomicU8>,
}

impl Tokenizer for ByLanguage {
    type TokenStream<'a> = BoxTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> BoxTokenStream<'a> {
        let language = detect_language(text);
        self.held.fetch_or(bit(language), Ordering::Relaxed);
        let slot = LANGUAGES.iter().position(|&l| l == language).unwrap_or(0);
        self.analyzers[slot].token_stream(text)
    }
}

/// How one column's text and its queries are cut.
pub(crate) struct Analysis {
    name: &'static str,
    indexing: TextAnalyzer,
    /// For `multilingual`: each language's analyzer, and the languages
    /// the column has held (bits of [`bit`]).
    by_language: Option<([TextAnalyzer; 3], Arc<AtomicU8>)>,
}

impl Analysis {
    /// The analysis `search` names (`Off` is cut as `simple`, though no
    /// index is made for it).
    pub(crate) fn new(search: TextSearch) -> Result<Analysis> {
        let fixed = |name, indexing| {
            Ok(Analysis {
                name,
                indexing,
                by_language: None,
            })
        };
        match search {
            TextSearch::English => fixed("chronolog_english", of_language(TextLanguage::English)?),
            TextSearch::German => fixed("chronolog_german", of_language(TextLanguage::German)?),
            TextSearch::Chinese => fixed("chronolog_chinese", of_language(TextLanguage::Chinese)?),
            TextSearch::Simple | TextSearch::Off => fixed("chronolog_simple", simple()),
            TextSearch::Multilingual => {
                let analyzers = [
                    of_language(TextLanguage::English)?,
                    of_language(TextLanguage::German)?,
                    of_language(TextLanguage::Chinese)?,
                ];
                let held = Arc::new(AtomicU8::new(0));
                let indexing = TextAnalyzer::from(ByLanguage {
                    analyzers: analyzers.clone(),
                    held: held.clone(),
                });
                Ok(Analysis {
                    name: "chronolog_multilingual",
                    indexing,
                    by_language: Some((analyzers, held)),
                })
            }
        }
    }

    /// The name its indexing analyzer is registered under in tantivy.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// The analyzer documents are indexed with.
    pub(crate) fn indexing(&self) -> TextAnalyzer {
        self.indexing.clone()
    }

    /// The distinct terms a query for `text` searches, in the order first
    /// cut.
    pub(crate) fn query_terms(&self, text: &str) -> Vec<String> {
        let mut terms: Vec<String> = Vec::new();
        let mut cut = |mut analyzer: TextAnalyzer| {
            let mut stream = analyzer.token_stream(text);
            while stream.advance() {
                let term = &stream.token().text;
                if !terms.contains(term) {
                    terms.push(term.clone());
                }
            }
        };
        match &self.by_language {
            None => cut(self.indexing.clone()),
            Some((analyzers, held)) => {
                let held = held.load(Ordering::Relaxed);
                for (slot, &language) in LANGUAGES.iter().enumerate() {
                    // A column that has held nothing yet is cut as English.
                    if held & bit(language) != 0 || (held == 0 && slot == 0) {
                        cut(analyzers[slot].clone());
                    }
                }
            }
        }
        terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(analysis: &Analysis, text: &str) -> Vec<String> {
        analysis.query_terms(text)
    }

    fn indexed(analysis: &Analysis, text: &str) -> Vec<String> {
        let mut analyzer = analysis.indexing();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn each_language_drops_and_stems_its_own_words() {
        let german = Analysis::new(TextSearch::German).expect("german");
        assert_eq!(terms(&german, "Wohnst du noch in Köln?"), ["wohn", "koln"]);
        assert_eq!(
            terms(&german, "Ich wohne seit drei Jahren in Köln"),
            ["wohn", "seit", "drei", "jahr", "koln"]
        );
        let chinese = Analysis::new(TextSearch::Chinese).expect("chinese");
        let cut = terms(&chinese, "我的姐姐在北京住了三年");
        for kept in ["我", "姐姐", "北京"] {
            assert!(cut.iter().any(|t| t == kept), "{kept} in {cut:?}");
        }
        for dropped in ["的", "在", "了"] {
            assert!(!cut.iter().any(|t| t == dropped), "{dropped} in {cut:?}");
        }
        let english = Analysis::new(TextSearch::English).expect("english");
        assert_eq!(
            terms(&english, "She moved to Berlin"),
            ["she", "move", "berlin"]
        );
    }

    #[test]
    fn multilingual_cuts_each_text_in_its_language() {
        let analysis = Analysis::new(TextSearch::Multilingual).expect("multilingual");
        // Nothing held yet: a query is cut as English.
        assert_eq!(
            terms(&analysis, "Wohnst du in Köln?"),
            ["wohnst", "du", "köln"]
        );
        assert_eq!(
            indexed(&analysis, "I moved to Berlin last spring."),
            ["i", "move", "berlin", "last", "spring"]
        );
        // Only English held: exactly the English cut.
        let english = Analysis::new(TextSearch::English).expect("english");
        for q in ["Wohnst du in Köln?", "Where did she move?", "我在哪里工作"] {
            assert_eq!(terms(&analysis, q), terms(&english, q), "{q}");
        }
        assert_eq!(
            indexed(&analysis, "Ich wohne seit drei Jahren in Köln."),
            ["wohn", "seit", "drei", "jahr", "koln"]
        );
        assert_eq!(
            indexed(&analysis, "我在腾讯工作了三年"),
            ["我", "腾讯", "工作", "三年"]
        );
        // English, German and Chinese held: a query is cut all three
        // ways, so a German question lingua is unsure of meets the
        // German stems (and the Chinese cut keeps Latin words as
        // written, "in" too).
        assert_eq!(
            terms(&analysis, "Wohnst du in Köln?"),
            ["wohnst", "du", "köln", "wohn", "koln", "in"]
        );
    }
}
