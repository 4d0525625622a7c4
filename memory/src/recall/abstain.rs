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

use chronolog_engine::{Engine, Timestamp};

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

/// Below this ratio of the named speaker's best `bm25` score to anyone's,
/// the question is taken to be about someone else's words. On LoCoMo's
/// dev split, 0.5 abstained on 24.5% of the adversarial questions and
/// wrongly on 8.8% of the others (with the people gate); 0.7 on 37.6% and
/// 17.6%, past the 10% of wrong abstentions allowed.
const OTHERS_WORDS_RATIO: f64 = 0.5;

/// `Some(reason)` when the question names a speaker whose own messages
/// match its words much less well than the best message of anyone else:
/// the memory holds this about someone else. Scores of the two `bm25`
/// channels share one scale (one tenant's rows, the same IDF), so the
/// ratio of their best scores means the same in every memory.
pub(crate) fn others_words(rankings: &[Ranked]) -> Option<String> {
    // A channel that ran and found nothing scores 0; one that did not run
    // (no speaker named, words not searched) says nothing.
    let best = |channel: Channel| {
        rankings
            .iter()
            .filter(|r| r.channel == channel)
            .map(|r| r.items.first().map_or(0.0, |(_, s)| *s))
            .reduce(f64::max)
    };
    let (Some(speaker), Some(anyone)) = (best(Channel::SpeakerWords), best(Channel::EpisodeWords))
    else {
        return None;
    };
    (anyone > 0.0 && speaker / anyone < OTHERS_WORDS_RATIO).then(|| {
        "the question's words match other people's messages far better than those of the person it names"
            .to_string()
    })
}

/// Messages the question's people are looked for in: on LoCoMo's dev
/// split, among the first 3 this abstained on 47% of the adversarial
/// questions and wrongly on 28% of the others; among 6, 23% and 12%;
/// among 10, 14% and 6% (the wrong ones kept under 10%).
const TOP_FOR_PEOPLE: usize = 10;

/// `Some(reason)` when the question asks about a person of this memory
/// but none of the closest messages was said by them or names them: the
/// memory holds this about someone else (LoCoMo's adversarial questions
/// swap the two speakers).
pub(crate) fn someone_else(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    ranked: &[String],
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Option<String> {
    let store = engine.store();
    let rel = crate::view::relation(store, crate::schema::EPISODE).ok()?;
    let people: Vec<&str> = question
        .entities
        .iter()
        .filter_map(|e| e.strip_prefix(&format!("{tenant}/")))
        .filter(|name| *name != "user")
        .collect();
    if people.is_empty() || ranked.is_empty() {
        return None;
    }
    let top: Vec<super::assemble::Episode> = ranked
        .iter()
        .filter_map(|id| {
            super::assemble::episode_by_id(store, rel, id, as_of, known_at)
                .ok()
                .flatten()
        })
        .take(TOP_FOR_PEOPLE)
        .collect();
    // Only the people who speak in this memory: a person only spoken
    // about (a sister) is found in the speakers' messages.
    let speaks = |name: &str| {
        let mut capitalised = name.to_string();
        if let Some(first) = capitalised.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        [name.to_string(), capitalised].iter().any(|n| {
            store.symbol(n).is_some_and(|sym| {
                store
                    .snapshot()
                    .scan(rel)
                    .history()
                    .eq(3, chronolog_engine::Value::Sym(sym))
                    .count()
                    .is_ok_and(|n| n > 0)
            })
        })
    };
    for person in people.into_iter().filter(|p| speaks(p)) {
        let about = top.iter().any(|e| e.role.eq_ignore_ascii_case(person));
        if !about {
            return Some(format!(
                "the messages closest to the question are not about {person}"
            ));
        }
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

/// `Some(reason)` when no topic word of the question occurs in what the
/// assembled items say (the messages' words and the sentences facts were
/// read from, not the predicates the context renders: a dog is not a
/// "pet" because the rules filed it under `has_pet`). A word matches its
/// inflections ("work", "worked", "working"). Requiring the question's
/// last topic word instead wrongly abstained on 15% of LoCoMo's
/// answerable dev questions.
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
    let covered = |t: &String| {
        words
            .iter()
            .any(|w| w == t || (w.len() >= 4 && stem(w) == stem(t)))
    };
    let found = topics.iter().any(covered);
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
