//! A long message shown by its sentences about the question: an
//! assistant's answer of a thousand tokens would otherwise take half of a
//! context's room for the one sentence that matched, crowding out the
//! short messages that hold the rest of the evidence. The message itself
//! is kept whole in the store and in the item's `said`; only what the
//! prompt shows is cut, and a cut is marked with "…".

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use crate::lang::Language;

/// The mark where sentences were left out.
const GAP: &str = "…";

/// The stems of `question`'s topic words, which [`excerpt`] looks for.
pub(crate) fn wanted(lang: &dyn Language, question: &str) -> HashSet<String> {
    lang.topic_words(question)
        .iter()
        .map(|w| lang.stem(w))
        .collect()
}

/// `text` cut to its sentences that share the most of the question's
/// topic words (`wanted`, stemmed), in the order they were written,
/// within about `most` tokens ([`rough_tokens`]; its opening sentences
/// where none shares a word); `None` when `text` is within `most`
/// already. The best sentence stays even when it alone is longer.
///
/// `topical` remembers, per word as written, which topic words it holds:
/// a question's candidates share most of their words, each read once.
pub(crate) fn excerpt(
    lang: &dyn Language,
    wanted: &HashSet<String>,
    text: &str,
    most: usize,
    topical: &mut FxHashMap<String, Vec<String>>,
) -> Option<String> {
    // Lengths are estimated, not counted: the tokenizer over every
    // candidate's sentences cost a search more than all else it does,
    // and the context counts what it takes anyway.
    if most == 0 || rough_tokens(text) <= most {
        return None;
    }
    let sentences = lang.sentences(text);
    if sentences.len() < 2 {
        return None;
    }
    let mut matched = |sentence: &str| {
        let mut found: Vec<&str> = Vec::new();
        // A language's words never span white space, so each piece
        // between white space is read once per question.
        for piece in sentence.split_whitespace() {
            // Nor begin or end with punctuation: "Moncayo," is "Moncayo".
            let piece = piece.trim_matches(|c: char| !c.is_alphanumeric());
            if piece.is_empty() {
                continue;
            }
            if !topical.contains_key(piece) {
                let hits = lang
                    .words(piece)
                    .iter()
                    .map(|w| lang.stem(w))
                    .filter(|stem| wanted.contains(stem))
                    .collect();
                topical.insert(piece.to_string(), hits);
            }
            for stem in topical.get(piece).into_iter().flatten() {
                if let Some(stem) = wanted.get(stem)
                    && !found.contains(&stem.as_str())
                {
                    found.push(stem.as_str());
                }
            }
        }
        found.len()
    };
    // Most topic words first; among equals, the earlier. A sentence with
    // none is shown only where none has any (a match on meaning alone):
    // then the message's opening.
    let mut order: Vec<(usize, usize)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| (i, matched(s)))
        .collect();
    if order.iter().any(|(_, m)| *m > 0) {
        order.retain(|(_, m)| *m > 0);
    }
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0;
    for (i, _) in order {
        let cost = rough_tokens(sentences[i]);
        if chosen.is_empty() || used + cost <= most {
            chosen.push(i);
            used += cost;
        }
    }
    if chosen.len() == sentences.len() {
        return None;
    }
    chosen.sort_unstable();
    let mut out = String::new();
    let mut next = 0;
    for i in chosen {
        if i > next {
            out.push_str(GAP);
            out.push(' ');
        }
        out.push_str(sentences[i]);
        out.push(' ');
        next = i + 1;
    }
    if next < sentences.len() {
        out.push_str(GAP);
    }
    Some(out.trim_end().to_string())
}

/// About the tokens cl100k_base makes of `text`, without running it: four
/// ASCII bytes a token (English and German prose average about that), a
/// token for any other character (a Chinese character is about one).
pub(crate) fn rough_tokens(text: &str) -> usize {
    let ascii = text.bytes().filter(u8::is_ascii).count();
    let other = text.chars().count() - ascii;
    ascii.div_ceil(4) + other
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap;

    use super::{excerpt, rough_tokens, wanted};
    use crate::lang::{Lang, Language};
    use crate::recall::context::count_tokens;

    /// `text` cut for `question` within about `most` tokens.
    fn cut(lang: &dyn Language, question: &str, text: &str, most: usize) -> Option<String> {
        excerpt(
            lang,
            &wanted(lang, question),
            text,
            most,
            &mut FxHashMap::default(),
        )
    }

    #[test]
    fn a_long_answer_is_cut_to_its_sentences_about_the_question() {
        let lang = Lang::English.reader();
        let text = "Great question! There are many options for a weekend trip. \
                    The hiking trail at Moncayo offers panoramic views of the mountains. \
                    You should also pack water and sunscreen. Enjoy your trip!";
        assert_eq!(
            cut(lang, "Which hiking trail offers panoramic views?", text, 15).as_deref(),
            Some("… The hiking trail at Moncayo offers panoramic views of the mountains. …")
        );
        // Within the limit, or one sentence long: shown whole.
        assert_eq!(cut(lang, "trail?", text, 100), None);
        assert_eq!(cut(lang, "trail?", "One long sentence here.", 2), None);
        // 0: never cut.
        assert_eq!(cut(lang, "trail?", text, 0), None);
        // No sentence shares a word: the opening, as far as it fits.
        assert_eq!(
            cut(lang, "Where should we eat?", text, 15).as_deref(),
            Some("Great question! There are many options for a weekend trip. …")
        );
    }

    #[test]
    fn each_language_cuts_at_its_own_sentences() {
        let zh = Lang::Chinese.reader();
        let text = "你好！周末有很多选择。蒙卡约的徒步路线可以看到全景。记得带水。";
        assert_eq!(
            cut(zh, "哪条徒步路线可以看到全景？", text, 10).as_deref(),
            Some("… 蒙卡约的徒步路线可以看到全景。 …")
        );
        let de = Lang::German.reader();
        let text = "Gute Frage! Es gibt viele Möglichkeiten. \
                    Der Wanderweg am Moncayo bietet einen Panoramablick. Viel Spaß!";
        assert_eq!(
            cut(de, "Welcher Wanderweg bietet einen Panoramablick?", text, 8).as_deref(),
            Some("… Der Wanderweg am Moncayo bietet einen Panoramablick. …")
        );
    }

    #[test]
    fn the_estimate_is_near_the_tokenizers_count_in_each_language() {
        let texts = [
            "The hiking trail at Moncayo offers panoramic views of the mountains, \
             and you should pack water, sunscreen and a light jacket for the evening.",
            "Der Wanderweg am Moncayo bietet einen Panoramablick über die Berge; \
             nehmen Sie Wasser, Sonnencreme und eine leichte Jacke für den Abend mit.",
            "蒙卡约的徒步路线可以看到群山的全景，记得带上水、防晒霜和一件薄外套。",
        ];
        for text in texts {
            let (rough, counted) = (rough_tokens(text), count_tokens(text));
            assert!(
                rough * 10 >= counted * 6 && rough * 10 <= counted * 16,
                "{rough} against {counted}: {text}"
            );
        }
    }
}
