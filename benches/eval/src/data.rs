//! The benchmarks' files read into conversations, turns and questions.

use std::io::Read;
use std::path::Path;

use anyhow::{Context as _, Result, anyhow, bail};
use chronolog_engine::Timestamp;
use serde_json::Value as Json;

use super::Dataset;

/// Which part of a file a run asks.
pub(super) struct Selection<'a> {
    /// Only questions of these categories (LoCoMo's "1".."5", LongMemEval's
    /// question types); all when empty.
    pub(super) types: &'a [String],
    /// At most this many of the file's items (conversations, or LongMemEval
    /// questions), spread evenly over the file.
    pub(super) limit: Option<usize>,
    /// Only questions whose text holds this, in any case: one question
    /// looked at closely.
    pub(super) matching: Option<&'a str>,
}

/// The file's conversations, each with the questions the selection keeps
/// (a conversation left without questions is dropped). The file may be
/// gzipped (LongMemEval ships so).
pub(super) fn read(
    path: &Path,
    dataset: Dataset,
    selection: &Selection,
) -> Result<Vec<Conversation>> {
    let mut bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut plain)
            .with_context(|| format!("{} is not a readable gzip file", path.display()))?;
        bytes = plain;
    }
    let data: Json = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not JSON", path.display()))?;
    let items = data
        .as_array()
        .ok_or_else(|| anyhow!("{} is not a JSON list", path.display()))?;
    let mut conversations: Vec<Conversation> = match dataset {
        Dataset::Locomo => items.iter().map(load_locomo).collect(),
        Dataset::LongMemEval => items
            .iter()
            .enumerate()
            .map(|(i, q)| load_longmemeval(i, q))
            .collect::<Result<_>>()?,
    };
    if !selection.types.is_empty() {
        let known: std::collections::BTreeSet<&str> = conversations
            .iter()
            .flat_map(|c| c.qa.iter().map(|q| q.category.as_str()))
            .collect();
        if let Some(unknown) = selection.types.iter().find(|t| !known.contains(t.as_str())) {
            bail!(
                "no question in {} is of type `{unknown}`; its types are {}",
                path.display(),
                known.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        for conv in &mut conversations {
            conv.qa.retain(|q| selection.types.contains(&q.category));
        }
        conversations.retain(|c| !c.qa.is_empty());
    }
    if let Some(wanted) = selection.matching {
        let wanted = wanted.to_lowercase();
        for conv in &mut conversations {
            conv.qa
                .retain(|q| q.question.to_lowercase().contains(&wanted));
        }
        conversations.retain(|c| !c.qa.is_empty());
    }
    if let Some(limit) = selection.limit {
        conversations = spread(conversations, limit);
    }
    Ok(conversations)
}

/// `n` of `items` at evenly spaced positions (the first included), in
/// order; all of them when there are not more than `n`. LongMemEval's file
/// is sorted by question type, so an even spread samples every type.
fn spread<T>(items: Vec<T>, n: usize) -> Vec<T> {
    let len = items.len();
    if n >= len {
        return items;
    }
    let keep: std::collections::HashSet<usize> = (0..n).map(|i| i * len / n).collect();
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, item)| item)
        .collect()
}

/// One turn of a conversation.
pub(super) struct Turn {
    pub(super) dia_id: String,
    /// Its episode's id without the tenant, once ingested.
    pub(super) episode: String,
    pub(super) speaker: String,
    pub(super) text: String,
    pub(super) at: Option<Timestamp>,
    pub(super) session: String,
}

/// One question with its gold evidence (read only when scoring).
pub(super) struct Qa {
    pub(super) question: String,
    pub(super) answer: String,
    /// LoCoMo's category ("1".."5") or LongMemEval's question type.
    pub(super) category: String,
    /// The right output is an abstention (LoCoMo 5, LongMemEval `_abs`).
    pub(super) unanswerable: bool,
    /// "Now" for this question, when the dataset gives one.
    pub(super) now: Option<Timestamp>,
    pub(super) evidence: Vec<String>,
    /// The sessions that hold the answer (LongMemEval's
    /// `answer_session_ids`; LoCoMo: the evidence turns' sessions).
    pub(super) answer_sessions: Vec<String>,
}

pub(super) struct Conversation {
    pub(super) id: String,
    pub(super) turns: Vec<Turn>,
    pub(super) qa: Vec<Qa>,
    /// Turns left out because they had no text (a message needs some).
    pub(super) empty_turns: usize,
}

/// A turn as a context renders its message (baselines count the same
/// tokens per message as the memory's contexts, time lines included).
pub(super) fn turn_line(turn: &Turn) -> String {
    chronolog_memory::message_line(&turn.episode, &turn.speaker, &turn.text)
}

fn load_locomo(conv: &Json) -> Conversation {
    let id = conv["sample_id"]
        .as_str()
        .unwrap_or("conv")
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_");
    let mut turns = Vec::new();
    let mut empty = 0;
    if let Some(sessions) = conv["conversation"].as_object() {
        let mut keys: Vec<(u32, &String)> = sessions
            .keys()
            .filter_map(|k| {
                k.strip_prefix("session_")
                    .and_then(|n| n.parse().ok())
                    .map(|n| (n, k))
            })
            .collect();
        keys.sort();
        for (n, key) in keys {
            let at = sessions
                .get(&format!("session_{n}_date_time"))
                .and_then(Json::as_str)
                .and_then(parse_date);
            for turn in sessions[key].as_array().into_iter().flatten() {
                let mut text = turn["text"].as_str().unwrap_or_default().to_string();
                if let Some(caption) = turn["blip_caption"].as_str() {
                    text = format!("{text} [image: {caption}]");
                }
                if text.trim().is_empty() {
                    empty += 1;
                    continue;
                }
                turns.push(Turn {
                    dia_id: turn["dia_id"].as_str().unwrap_or_default().to_string(),
                    episode: String::new(),
                    speaker: turn["speaker"].as_str().unwrap_or("unknown").to_string(),
                    text,
                    at,
                    session: format!("D{n}"),
                });
            }
        }
    }
    let qa = conv["qa"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Qa {
            question: q["question"].as_str().unwrap_or_default().to_string(),
            answer: match &q["answer"] {
                Json::String(s) => s.clone(),
                Json::Null => q["adversarial_answer"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                other => other.to_string(),
            },
            category: q["category"].as_i64().unwrap_or(0).to_string(),
            unanswerable: q["category"].as_i64() == Some(5),
            now: None,
            // A few ids are malformed ("D8:6; D9:17"): split and trim.
            evidence: q["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .flat_map(|e| e.split([';', ',']).map(|s| s.trim().to_string()))
                .filter(|e| e.starts_with('D') && e.contains(':'))
                .collect(),
            answer_sessions: Vec::new(),
        })
        .map(|mut qa: Qa| {
            qa.answer_sessions = qa.evidence.iter().map(|e| session_of(e)).collect();
            qa.answer_sessions.sort();
            qa.answer_sessions.dedup();
            qa
        })
        .collect();
    Conversation {
        id,
        turns,
        qa,
        empty_turns: empty,
    }
}

/// "1:56 pm on 8 May, 2023" as UTC.
fn parse_date(text: &str) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::strptime("%I:%M %p on %d %B, %Y", text.trim()).ok()?;
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()?;
    Some(Timestamp(ts.as_microsecond()))
}

/// One LongMemEval question as a conversation of its own: its haystack's
/// sessions in order, each turn an episode (`<session id>:<index>`), the
/// turns marked `has_answer` its evidence, "now" its question date (or
/// its last session, see [`asked_after_haystack`]).
fn load_longmemeval(index: usize, q: &Json) -> Result<Conversation> {
    let question_id = q["question_id"].as_str().unwrap_or_default();
    let id = format!(
        "q{index}-{}",
        question_id.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
    );
    let sessions = q["haystack_sessions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let session_ids = q["haystack_session_ids"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let dates = q["haystack_dates"].as_array().cloned().unwrap_or_default();
    let mut turns = Vec::new();
    let mut evidence = Vec::new();
    let mut empty = 0;
    for (s, session) in sessions.iter().enumerate() {
        let session_id = session_ids
            .get(s)
            .and_then(Json::as_str)
            .map_or_else(|| format!("s{s}"), str::to_string);
        let at = dates
            .get(s)
            .and_then(Json::as_str)
            .and_then(parse_longmemeval_date);
        for (t, turn) in session.as_array().into_iter().flatten().enumerate() {
            let dia_id = format!("{session_id}:{t}");
            if turn["has_answer"].as_bool() == Some(true) {
                evidence.push(dia_id.clone());
            }
            let text = turn["content"].as_str().unwrap_or_default();
            // A message needs text; an empty turn says nothing to find.
            if text.trim().is_empty() {
                empty += 1;
                continue;
            }
            turns.push(Turn {
                dia_id,
                episode: String::new(),
                speaker: turn["role"].as_str().unwrap_or("user").to_string(),
                text: text.to_string(),
                at,
                session: session_id.clone(),
            });
        }
    }
    let qa = Qa {
        question: q["question"].as_str().unwrap_or_default().to_string(),
        answer: match &q["answer"] {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        },
        // The `_abs` questions are a type of their own, as the benchmark
        // reports them: the right output is an abstention.
        category: if question_id.ends_with("_abs") {
            "abstention".to_string()
        } else {
            q["question_type"].as_str().unwrap_or("unknown").to_string()
        },
        unanswerable: question_id.ends_with("_abs"),
        now: asked_after_haystack(
            q["question_date"].as_str().and_then(parse_longmemeval_date),
            &turns,
        ),
        evidence,
        answer_sessions: q["answer_session_ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .map(str::to_string)
            .collect(),
    };
    Ok(Conversation {
        id,
        turns,
        qa: vec![qa],
        empty_turns: empty,
    })
}

/// "2023/05/30 (Tue) 23:40" as UTC.
fn parse_longmemeval_date(text: &str) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::strptime("%Y/%m/%d (%a) %H:%M", text.trim()).ok()?;
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()?;
    Some(Timestamp(ts.as_microsecond()))
}

/// When a LongMemEval question is asked: its `question_date`, or, where
/// the file dates a haystack session after it, that session's date. The
/// benchmark's premise is that the whole haystack precedes the question
/// (its own retrieval metric reads every session), but 38 of the 250 dev
/// questions have sessions dated later on the question's own day (a
/// synthetic clock time on both), 20 of them evidence. Asked at the
/// question date, the memory would rightly not see what it was told
/// later; asked after the last session, every session is history, and the
/// date (which relative times are read against) is the same day.
fn asked_after_haystack(question_date: Option<Timestamp>, turns: &[Turn]) -> Option<Timestamp> {
    let last_said = turns.iter().filter_map(|t| t.at).max();
    match (question_date, last_said) {
        (Some(asked), Some(said)) => Some(asked.max(said)),
        (asked, said) => asked.or(said),
    }
}

/// "D3:12" -> "D3".
pub(super) fn session_of(dia_id: &str) -> String {
    dia_id.split(':').next().unwrap_or(dia_id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_longmemeval_question_is_asked_after_its_whole_haystack() {
        let question = |date: &str| {
            serde_json::json!({
                "question_id": "q1",
                "question_type": "temporal-reasoning",
                "question": "Which charity events did I join?",
                "answer": "two",
                "question_date": date,
                "haystack_session_ids": ["s1", "s2"],
                "haystack_dates": ["2023/11/29 (Wed) 01:03", "2023/11/29 (Wed) 07:51"],
                "haystack_sessions": [
                    [{"role": "user", "content": "I ran in the Run for the Cure.", "has_answer": true}],
                    [{"role": "user", "content": "I joined the Bike-a-Thon.", "has_answer": true}]
                ],
                "answer_session_ids": ["s1", "s2"]
            })
        };
        let now = |date: &str| {
            let conversation = load_longmemeval(0, &question(date)).expect("loads");
            conversation.qa[0].now
        };
        // Dated before its day's last session: asked after it.
        assert_eq!(
            now("2023/11/29 (Wed) 03:31"),
            parse_longmemeval_date("2023/11/29 (Wed) 07:51")
        );
        // Dated after every session: asked then.
        assert_eq!(
            now("2023/11/30 (Thu) 09:00"),
            parse_longmemeval_date("2023/11/30 (Thu) 09:00")
        );
    }

    #[test]
    fn a_spread_keeps_evenly_spaced_items_in_order() {
        assert_eq!(spread((0..10).collect(), 3), vec![0, 3, 6]);
        assert_eq!(spread((0..10).collect(), 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread((0..4).collect(), 9), vec![0, 1, 2, 3]);
        assert_eq!(spread((0..4).collect::<Vec<i32>>(), 0), Vec::<i32>::new());
    }
}
