//! The abstention gate: when the memory holds too little about a
//! question, the search says so, with a reason an agent developer can
//! read, instead of padding the context with whatever came nearest.
//!
//! The dense channels always return their nearest rows, however far, so
//! the gate looks at what is not relative: whether the question's words
//! occur in this tenant's memory at all (`bm25` finds only rows sharing a
//! word), and whether the names it asks about are this tenant's entities.
//! Thresholds on scores are for the evaluation harness to calibrate on the
//! dev data.

use super::channels::{Channel, Ranked};
use super::understand::Question;

/// `Some(reason)` when the search should abstain.
pub(crate) fn judge(
    question: &Question,
    rankings: &[Ranked],
    fused: &[(String, f64)],
) -> Option<String> {
    if fused.is_empty() {
        return Some("this memory holds nothing for this tenant at that time".into());
    }
    let lexical = rankings
        .iter()
        .filter(|r| matches!(r.channel, Channel::EpisodeWords | Channel::FactWords))
        .map(|r| r.items.len())
        .sum::<usize>();
    let words_searched = rankings
        .iter()
        .any(|r| matches!(r.channel, Channel::EpisodeWords | Channel::FactWords));
    let named_entities = question
        .entities
        .iter()
        .filter(|e| !e.ends_with("/user"))
        .count();
    // It names someone or something this tenant never mentioned.
    if named_entities == 0
        && !question.unknown_names.is_empty()
        && (lexical == 0 || !words_searched)
    {
        return Some(format!(
            "the question is about {}, which this memory never mentions",
            question.unknown_names.join(", ")
        ));
    }
    // No word of the question occurs anywhere in this memory.
    if words_searched && lexical == 0 && named_entities == 0 {
        return Some("no word of the question occurs in this memory".into());
    }
    None
}

/// Words that carry no topic of their own in a question.
const STOP: &[&str] = &[
    "the", "and", "for", "are", "was", "were", "what", "when", "where", "who", "whom", "whose",
    "which", "why", "how", "did", "does", "doing", "done", "have", "has", "had", "having", "can",
    "could", "would", "should", "will", "shall", "may", "might", "must", "you", "your", "yours",
    "mine", "our", "ours", "his", "her", "hers", "its", "their", "theirs", "they", "them", "she",
    "him", "this", "that", "these", "those", "there", "here", "with", "from", "into", "about",
    "than", "then", "also", "just", "some", "any", "all", "not", "but", "yes", "name", "named",
    "thing", "things", "tell", "know", "remember", "remind", "please", "like", "much", "many",
    "long", "ever", "still", "now", "one", "get", "got", "kind", "sort", "type",
];

/// The question's topic words: three letters or more, not in [`STOP`].
pub(crate) fn topic_words(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

/// `Some(reason)` when no topic word of the question occurs in the
/// assembled items (a word matches its inflections: "work", "worked",
/// "working"): what was found is only near, not about it.
pub(crate) fn uncovered(question: &str, item_texts: &[&str]) -> Option<String> {
    let topics = topic_words(question);
    if topics.is_empty() {
        return None;
    }
    let words: std::collections::HashSet<String> = item_texts
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect();
    let stem = |w: &str| -> String {
        w.chars()
            .take(w.chars().count().saturating_sub(2).max(4))
            .collect()
    };
    let found = topics.iter().any(|t| {
        words
            .iter()
            .any(|w| w == t || (w.len() >= 4 && stem(w) == stem(t)))
    });
    if found {
        None
    } else {
        Some(format!(
            "nothing in this memory is about {}",
            topics.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_words_decide_coverage() {
        assert_eq!(
            topic_words("What is the name of my pet iguana?"),
            ["pet", "iguana"]
        );
        assert!(
            uncovered(
                "What is the name of my pet iguana?",
                &["My sister Mia loves climbing"]
            )
            .is_some()
        );
        assert!(uncovered("Where do I work?", &["I worked at Tencent"]).is_none());
        assert!(uncovered("When did I start at Moonshot?", &["I started at Moonshot"]).is_none());
        assert!(uncovered("Where do I?", &["anything"]).is_none());
    }
}
