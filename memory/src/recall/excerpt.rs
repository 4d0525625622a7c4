//! A long message shown by its sentences about the question: an
//! assistant's answer of a thousand tokens would otherwise take half of a
//! context's room for the one sentence that matched, crowding out the
//! short messages that hold the rest of the evidence. The message itself
//! is kept whole in the store and in the item's `said`; only what the
//! prompt shows is cut, and a cut is marked with "…".

use std::collections::{HashMap, HashSet};

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
/// within `most` tokens as `tokens` counts them (its opening sentences
/// where none shares a word); `None` when `text` is within `most`
/// already. The best sentence stays even when it alone is longer.
///
/// `topical` remembers, per word, whether it is a topic word: a
/// question's candidates share most of their words, each stemmed once.
pub(crate) fn excerpt(
    lang: &dyn Language,
    wanted: &HashSet<String>,
    text: &str,
    most: usize,
    tokens: &mut dyn FnMut(&str) -> usize,
    topical: &mut HashMap<String, bool>,
) -> Option<String> {
    // Counting tokens is most of a search's cost, and most candidates
    // are never shown: a text's bytes bound its tokens from above and its
    // words from below, so most are judged without counting.
    if most == 0 || text.len() <= most {
        return None;
    }
    if words(text) <= most && tokens(text) <= most {
        return None;
    }
    let sentences = lang.sentences(text);
    if sentences.len() < 2 {
        return None;
    }
    let mut matched = |sentence: &str| {
        let mut found: HashSet<String> = HashSet::new();
        for word in lang.words(sentence) {
            let hit = match topical.get(&word) {
                Some(hit) => *hit,
                None => {
                    let hit = wanted.contains(&lang.stem(&word));
                    topical.insert(word.clone(), hit);
                    hit
                }
            };
            if hit {
                found.insert(lang.stem(&word));
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
        if !chosen.is_empty() && words(sentences[i]) > most.saturating_sub(used) {
            continue;
        }
        let cost = tokens(sentences[i]);
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

/// At most the tokens of `text`: cl100k_base never joins two words.
fn words(text: &str) -> usize {
    super::context::fewest_tokens(text)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{excerpt, wanted};
    use crate::lang::{Lang, Language};

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    /// `text` cut for `question` within `most` words.
    fn cut(lang: &dyn Language, question: &str, text: &str, most: usize) -> Option<String> {
        excerpt(
            lang,
            &wanted(lang, question),
            text,
            most,
            &mut words,
            &mut HashMap::new(),
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
            cut(lang, "Where should we eat?", text, 12).as_deref(),
            Some("Great question! There are many options for a weekend trip. …")
        );
    }

    #[test]
    fn each_language_cuts_at_its_own_sentences() {
        let zh = Lang::Chinese.reader();
        let text = "你好！周末有很多选择。蒙卡约的徒步路线可以看到全景。记得带水。";
        let chinese = excerpt(
            zh,
            &wanted(zh, "哪条徒步路线可以看到全景？"),
            text,
            3,
            &mut |t: &str| t.chars().count() / 4,
            &mut HashMap::new(),
        );
        assert_eq!(
            chinese.as_deref(),
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
}
