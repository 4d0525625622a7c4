//! Words, as every text analyzer cuts them: runs of letters and digits,
//! with a run of Han characters cut into the words jieba's dictionary
//! finds. Chinese is written without spaces, so a clause ("我在腾讯工作")
//! would otherwise be one token, and `bm25` would never find "腾讯" in it.
//! Text without Han characters is cut exactly as tantivy's
//! `SimpleTokenizer` cuts it.
//!
//! The dictionary (jieba-rs's bundled one, about 350,000 words) is loaded
//! on the first Han character an index or a query sees, so a store that
//! holds none never pays for it.

use std::sync::LazyLock;

use jieba_rs::Jieba;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

/// Whether `c` is a Han character (CJK unified ideographs, their
/// extensions and compatibility forms, and 〇).
pub fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3007}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{323AF}')
}

/// The words of `text`, each with its byte offset, in order (a Han word
/// may be followed by the shorter words inside it).
pub fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !c.is_alphanumeric() {
            continue;
        }
        let han = is_han(c);
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = chars.peek() {
            if !d.is_alphanumeric() || is_han(d) != han {
                break;
            }
            end = i + d.len_utf8();
            chars.next();
        }
        let run = &text[start..end];
        if han {
            // Search mode: the dictionary's words, and the shorter words
            // inside a long one ("吃火锅" is also "火锅"), so a query finds
            // either. No HMM guesses: they glue words to their neighbours
            // ("我养") differently from one sentence to the next. Every
            // word is a slice of the run.
            let base = run.as_ptr() as usize;
            for word in JIEBA.cut_for_search(run, false) {
                out.push((start + (word.as_ptr() as usize - base), word));
            }
        } else {
            out.push((start, run));
        }
    }
    out
}

/// [`words`] as a tantivy tokenizer: the base of every analyzer.
#[derive(Clone, Default)]
pub(crate) struct WordTokenizer {
    tokens: Vec<Token>,
}

/// The tokens of one text, handed out in turn.
pub(crate) struct WordStream<'a> {
    tokens: &'a mut Vec<Token>,
    next: usize,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.tokens.clear();
        for (position, (from, word)) in words(text).into_iter().enumerate() {
            self.tokens.push(Token {
                offset_from: from,
                offset_to: from + word.len(),
                position,
                text: word.to_string(),
                position_length: 1,
            });
        }
        WordStream {
            tokens: &mut self.tokens,
            next: 0,
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1))]
    }

    fn token_mut(&mut self) -> &mut Token {
        let i = self
            .next
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::SimpleTokenizer;

    fn cut(text: &str) -> Vec<&str> {
        words(text).into_iter().map(|(_, w)| w).collect()
    }

    #[test]
    fn latin_text_is_cut_as_tantivys_simple_tokenizer_cuts_it() {
        let text = "Hello, happy tax-payer! I'm at Tencent since 2019; naïve café.";
        let mut simple = SimpleTokenizer::default();
        let mut stream = simple.token_stream(text);
        let mut expected = Vec::new();
        while stream.advance() {
            let t = stream.token();
            expected.push((t.offset_from, t.text.clone()));
        }
        let ours: Vec<(usize, String)> = words(text)
            .into_iter()
            .map(|(at, w)| (at, w.to_string()))
            .collect();
        assert_eq!(ours, expected);
    }

    #[test]
    fn han_runs_are_cut_into_dictionary_words() {
        assert_eq!(cut("我在腾讯工作。"), ["我", "在", "腾讯", "工作"]);
        // A script change inside a run of letters is a word boundary, and
        // no guess glues "我" to its verb.
        assert_eq!(cut("我用iPhone15拍照"), ["我", "用", "iPhone15", "拍照"]);
        // The shorter words inside a long one come too.
        assert_eq!(cut("我喜欢吃火锅"), ["我", "喜欢", "火锅", "吃火锅"]);
        let offsets: Vec<usize> = words("我在腾讯").into_iter().map(|(at, _)| at).collect();
        assert_eq!(offsets, [0, 3, 6]);
        // A clause of 40 characters is words, none dropped for length.
        let long =
            "我去年夏天和我的姐姐一起去北京旅游然后我们又去了上海参观了很多博物馆和公园非常开心";
        assert!(long.chars().count() >= 40);
        assert!(words(long).iter().all(|(_, w)| w.len() <= 40));
        assert!(cut(long).contains(&"博物馆"));
    }

    #[test]
    fn the_stream_hands_out_every_word_once() {
        let mut tokenizer = WordTokenizer::default();
        let mut stream = tokenizer.token_stream("我在腾讯工作 at Tencent");
        let mut seen = Vec::new();
        while stream.advance() {
            seen.push((stream.token().position, stream.token().text.clone()));
        }
        assert_eq!(
            seen,
            [
                (0, "我".to_string()),
                (1, "在".to_string()),
                (2, "腾讯".to_string()),
                (3, "工作".to_string()),
                (4, "at".to_string()),
                (5, "Tencent".to_string()),
            ]
        );
        let mut empty = tokenizer.token_stream("");
        assert!(!empty.advance());
    }
}
