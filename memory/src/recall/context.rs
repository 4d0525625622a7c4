//! What a search returns: a [`Context`] of [`Item`]s (facts first, each
//! with its valid interval, what it replaced and its source; then the
//! messages, in the order said) or an abstention with its reason, as
//! text for a prompt or as JSON; and how an item is written.

use chronolog_engine::{Interval, Timestamp};

use super::render::{message_line, render_messages, short_id, short_time};
use crate::lang::Lang;
use crate::schema::Episode;
use crate::view::FactVersion;

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A consolidated fact.
    Fact,
    /// A message as it was said.
    Episode,
}

/// One piece of evidence in a context.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Fact or episode.
    pub kind: ItemKind,
    /// The fact's slot or the episode's id.
    pub id: String,
    /// The item as the prompt shows it.
    pub text: String,
    /// What the memory was told: the message, or the sentence a fact was
    /// read from.
    pub said: String,
    /// Who said it (an episode's role; a fact's source speaker).
    pub speaker: Option<String>,
    /// When it was said.
    pub at: Option<Timestamp>,
    /// A fact's valid interval.
    pub valid: Option<Interval>,
    /// The value a fact replaced.
    pub supersedes: Option<String>,
    /// The episodes it came from.
    pub sources: Vec<String>,
    /// Its fused score.
    pub score: f64,
    /// Its tokens (cl100k_base) as rendered: for a message its line, not
    /// the time line it shares with the messages of its minute.
    pub tokens: usize,
}

/// What a search returns: the items, or an abstention and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// The memory holds too little to answer: the items are empty and
    /// `reason` says why.
    pub abstain: bool,
    /// Why it abstained.
    pub reason: Option<String>,
    /// Tokens the rendered text takes (cl100k_base).
    pub tokens: usize,
    /// The budget asked for.
    pub budget: usize,
    /// The valid-time instant the context's facts hold at (its messages
    /// are read as of the search, which may be later).
    pub as_of: Timestamp,
    /// Why that instant (a time the question named), if not now.
    pub as_of_because: Option<String>,
    /// The items, in reading order.
    pub items: Vec<Item>,
    /// How many candidates each channel found.
    pub channels: Vec<(String, usize)>,
    /// Every candidate as the episodes it rests on, best first, each
    /// once (a fact counts as its source episodes): the ranking recall is
    /// measured on, whatever the budget let into `items`.
    pub ranked_episodes: Vec<String>,
    /// How well the strongest evidence answers the question: the
    /// reranker's score of the best message it read (a logit; above 0 it
    /// judges the message an answer). `None` when no reranker read this
    /// question (none installed, another language, depth below 2). An
    /// agent may ask again, or say it does not know, on a low one.
    pub evidence_score: Option<f32>,
}

/// Tokens of `text` in cl100k_base (the tokenizer of GPT-4-class models),
/// loaded from the crate's bundled ranks: no network.
pub fn count_tokens(text: &str) -> usize {
    bpe_openai::cl100k_base().count(text)
}

/// Whether `text` must take more than `tokens` tokens in cl100k_base: it
/// has more words. The tokenizer's first split never puts two
/// whitespace-separated words in one piece, and a piece is at least one
/// token; counting words costs a scan, counting tokens the tokenizer, and
/// this reads no further than the word that settles it (once a context
/// is nearly full, a long candidate is judged by its first few words).
/// Unspaced text (Chinese) is one word a run: a weak bound, still a
/// bound.
pub(crate) fn more_words_than(text: &str, tokens: usize) -> bool {
    text.split_whitespace().nth(tokens).is_some()
}

pub(super) const HEADER_FACTS: &str = "Facts:\n";
pub(super) const HEADER_EPISODES: &str = "Messages (times in UTC):\n";

impl Context {
    /// The context as text to paste into a prompt.
    pub fn to_text(&self) -> String {
        if self.abstain {
            return format!(
                "No memory answers this: {}.\n",
                self.reason.as_deref().unwrap_or("too little evidence")
            );
        }
        let mut out = String::new();
        let facts: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Fact)
            .collect();
        let episodes: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Episode)
            .collect();
        if !facts.is_empty() {
            out.push_str(HEADER_FACTS);
            for item in facts {
                out.push_str(&item.text);
            }
        }
        if !episodes.is_empty() {
            out.push_str(HEADER_EPISODES);
            out.push_str(&render_messages(
                episodes
                    .iter()
                    .map(|i| (i.at.unwrap_or(Timestamp::MIN), i.text.as_str())),
            ));
        }
        out
    }
}

impl Context {
    /// The context as JSON: `{"abstain", "reason", "tokens", "budget",
    /// "as_of", "evidence_score", "items": [{"kind", "id", "text", "speaker", "at",
    /// "valid_from", "valid_to", "supersedes", "sources", "score"}]}`;
    /// times in ISO 8601, `null` for an open end.
    pub fn to_json(&self) -> serde_json::Value {
        // An open end (a fact that still holds) is null, as in
        // `FactVersion::to_json`.
        let time = |t: Option<Timestamp>| {
            t.filter(|t| *t != Timestamp::MIN && *t != Timestamp::MAX)
                .map(|t| serde_json::Value::String(t.to_string()))
        };
        serde_json::json!({
            "abstain": self.abstain,
            "reason": self.reason,
            "tokens": self.tokens,
            "budget": self.budget,
            "as_of": self.as_of.to_string(),
            "as_of_because": self.as_of_because,
            // Two decimals: a logit's last digits differ between CPUs.
            "evidence_score": self.evidence_score.map(|e| (f64::from(e) * 100.0).round() / 100.0),
            "text": self.to_text(),
            "channels": self.channels.iter().map(|(c, n)| serde_json::json!({"channel": c, "candidates": n})).collect::<Vec<_>>(),
            "items": self.items.iter().map(|i| serde_json::json!({
                "kind": match i.kind { ItemKind::Fact => "fact", ItemKind::Episode => "episode" },
                "id": i.id,
                "text": i.text.trim_end(),
                "speaker": i.speaker,
                "at": time(i.at),
                "valid_from": time(i.valid.map(|v| v.from)),
                "valid_to": time(i.valid.map(|v| v.to)),
                "supersedes": i.supersedes,
                "sources": i.sources,
                // Four decimals: enough to order by, and stable to print.
                "score": (i.score * 1e4).round() / 1e4,
            })).collect::<Vec<_>>(),
        })
    }
}

/// A message as an item: its line, tagged with its short id.
pub(super) fn episode_item(episode: &Episode, score: f64, tenant_prefix: &str) -> Item {
    Item {
        kind: ItemKind::Episode,
        id: episode.id.clone(),
        text: message_line(
            short_id(&episode.id, tenant_prefix),
            &episode.role,
            &episode.text,
        ),
        said: episode.text.clone(),
        speaker: Some(episode.role.clone()),
        at: Some(episode.at),
        valid: None,
        supersedes: None,
        sources: vec![episode.id.clone()],
        score,
        tokens: 0,
    }
}

/// How a fact's line is written, beside the fact itself.
pub(super) struct FactLine<'a> {
    /// The subject by the name it goes by ("Clara", not `clara`).
    pub subject: &'a str,
    /// Who said the message the fact was read from.
    pub speaker: Option<String>,
    /// The question asks when: the interval is written in words.
    pub asks_when: bool,
    /// The value ended: it is written past.
    pub past: bool,
}

/// A fact as an item: its subject, predicate, object, when it held (as
/// the question asks), what it replaced, and the message it came from,
/// as `line` says; written in the question's language `lang`.
pub(super) fn fact_item(
    fact: &FactVersion,
    line: FactLine<'_>,
    score: f64,
    tenant_prefix: &str,
    lang: Lang,
) -> Item {
    let FactLine {
        subject,
        speaker,
        asks_when,
        past,
    } = line;
    let reader = lang.reader();
    let w = reader.fact_words();
    let until = if fact.valid.to == Timestamp::MAX {
        w.now.to_string()
    } else {
        short_time(fact.valid.to)
    };
    let replaced = fact
        .supersedes
        .as_ref()
        .map_or(String::new(), |s| format!("; {} {s}", w.replaced));
    // A start not said ("I worked at IBM until 2020") is left out.
    let from = (fact.valid.from != Timestamp::MIN).then(|| short_time(fact.valid.from));
    let (past_word, from_word, until_word) = (w.past, w.from, w.until);
    let when = match (&from, past || asks_when) {
        (Some(from), true) if past => {
            format!(" ({past_word}: {from_word} {from} {until_word} {until}{replaced})")
        }
        (None, true) if past => format!(" ({past_word}: {until_word} {until}{replaced})"),
        (Some(from), true) => format!(" ({from_word} {from} {until_word} {until}{replaced})"),
        (None, true) | (None, false) => format!(" ({until_word} {until}{replaced})"),
        (Some(from), false) => format!(" ({from} .. {until}{replaced})"),
    };
    let source = fact.source.clone().unwrap_or_default();
    Item {
        kind: ItemKind::Fact,
        id: fact.slot.clone(),
        text: format!(
            "- {}{when} [from {}]\n",
            reader.fact_phrase(subject, &fact.predicate, &fact.object),
            short_id(&source, tenant_prefix)
        ),
        said: fact.text.clone(),
        speaker,
        at: None,
        valid: Some(fact.valid),
        supersedes: fact.supersedes.clone(),
        sources: fact.sources.clone(),
        score,
        tokens: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{count_tokens, more_words_than};
    use proptest::prelude::*;

    /// The words of `text`: the fewest tokens it can take.
    fn fewest_tokens(text: &str) -> usize {
        text.split_whitespace().count()
    }

    proptest! {
        /// The early stop changes no answer: more words than `tokens`,
        /// read as far as it settles, is the whole count above `tokens`.
        #[test]
        fn more_words_than_reads_as_the_word_count(
            text in "([a-z]{1,5}|[ \t\n\u{a0}\u{3000}]{1,3}|[我柏]{1,2}){0,20}",
            tokens in 0usize..25,
        ) {
            prop_assert_eq!(more_words_than(&text, tokens), fewest_tokens(&text) > tokens);
        }

        /// A fill leaves a message out uncounted when it has more words
        /// than the tokens left: that is right only if words never
        /// outnumber tokens, in any script, spacing or punctuation.
        #[test]
        fn a_text_has_at_least_as_many_tokens_as_words(
            text in "( ?(the|I|moved|to|in|May|e3|user)|[a-zA-Z]{1,12}|[0-9]{1,7}|[ \t\n\u{a0}\u{3000}]{1,3}|[.,;:!?'\"()\\[\\]-]{1,3}|'s|[äöüß]{1,3}|[我搬到了柏林]{1,4}|[😀🙂]{1,2}){0,40}"
        ) {
            prop_assert!(fewest_tokens(&text) <= count_tokens(&text), "{text:?}");
        }
    }

    proptest! {
        /// A fill counts each line of a context once and sums the counts
        /// (`fit`'s `finish`), never the joined text: right only if a text
        /// of newline-ended lines, each starting with a non-space (as every
        /// header, fact, time and message line does), tokenizes as the sum
        /// of its lines, whatever the lines hold.
        #[test]
        fn count_tokens_is_additive_over_a_contexts_lines(
            lines in prop::collection::vec(
                "[a-zA-Z0-9\\[\\]'.,:!?\"(-]([ \t\r\n\u{a0}\u{3000}]{1,3}|'s|'ll|[a-zA-Z]{1,9}|[0-9]{1,5}|[.,;:!?'\"()-]{1,3}|[äöüß]{1,3}|[我搬到了柏林。]{1,4}|[😀🙂]{1,2}){0,30}\n",
                1..8,
            )
        ) {
            let joined: String = lines.concat();
            let sum: usize = lines.iter().map(|l| count_tokens(l)).sum();
            prop_assert_eq!(count_tokens(&joined), sum, "{:?}", lines);
        }
    }

    /// tiktoken's own count, the reference `count_tokens` must equal.
    fn tiktoken_count(text: &str) -> usize {
        tiktoken_rs::cl100k_base_singleton()
            .encode_ordinary(text)
            .len()
    }

    proptest! {
        /// Every budget, context and evaluation figure is in cl100k_base
        /// tokens as OpenAI's tokenizer counts them; the faster counter
        /// must agree with the reference to the token, in any script.
        #[test]
        fn count_tokens_equals_tiktokens_count(
            text in "( ?(the|I|moved|to|in|May|e3|user|don't|WE'LL)|[a-zA-Z]{1,12}|[0-9]{1,9}|[ \t\r\n\u{a0}\u{3000}\u{2028}]{1,5}|[.,;:!?'\"()\\[\\]<>|/_-]{1,4}|'s|[äöüßÄÖÜ]{1,3}|e\u{301}|[我搬到了柏林。，！]{1,6}|[😀🙂👩‍💻]{1,2}|<\\|endoftext\\|>){0,60}"
        ) {
            prop_assert_eq!(count_tokens(&text), tiktoken_count(&text), "{:?}", text);
        }
    }

    #[test]
    fn count_tokens_equals_tiktokens_count_on_long_runs() {
        for text in [
            "",
            " ",
            "\n\n\n\n",
            &" ".repeat(300),
            &"\r\n".repeat(50),
            &"1".repeat(100),
            &"a".repeat(2_000),
            &"柏林".repeat(400),
            "<|endoftext|><|fim_prefix|>",
            "Ich heiße Jürgen und wohne in der Straße 12, 80331 München.",
            "我在月之暗面工作，去年从北京搬到了上海。",
        ] {
            assert_eq!(count_tokens(text), tiktoken_count(text), "{text:?}");
        }
    }

    #[test]
    fn count_tokens_is_not_additive_when_a_line_starts_with_space() {
        // Why `finish`'s sum needs lines that start with a non-space: a
        // newline then a newline are one token, not two.
        assert!(count_tokens("a\n\nb\n") < count_tokens("a\n") + count_tokens("\nb\n"));
    }

    #[test]
    fn words_bound_tokens_from_below() {
        let line = "answer_4ffa04a2_3:0 user: I recently participated in the \"Bike-a-Thon\" charity event in November.\n";
        assert!(fewest_tokens(line) <= count_tokens(line));
        assert_eq!(fewest_tokens("  two   words "), 2);
        assert_eq!(fewest_tokens(""), 0);
    }
}
