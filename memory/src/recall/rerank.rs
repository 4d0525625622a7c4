//! The reranker's pass over the fused candidates: the first few messages
//! read again, each with the question, by a cross-encoder, and reordered
//! by what it reads. Fusion ranks by agreement between channels that each
//! saw the question or the message alone; the cross-encoder sees both at
//! once, so it tells the message that answers from the one that shares
//! its words.

use chronolog_engine::{Engine, Reranker, Value};

use super::gather::Gathered;
use crate::error::Result;
use crate::schema::{Passage, Relations};
use crate::tuning::Tuning;
use crate::view::first_keyed;

/// One message the reranker read, for `explain`.
#[derive(Clone, Debug)]
pub(crate) struct Reread {
    pub(crate) id: String,
    /// Its place among the candidate messages before the reranker (0 first).
    pub(crate) fused_place: usize,
    /// The reranker's score (higher: more relevant; comparable within one
    /// question only).
    pub(crate) score: f32,
}

/// Reorders the first `depth` candidate messages of `gathered` by the
/// reranker's scores for `question` (each read as `speaker: text`, cut
/// after `tuning.rerank_chars` characters, and after the message before
/// it when another speaker said it and it fits whole in
/// `tuning.rerank_before_chars` of the room left), best first; returns
/// what it read, in its new order. With `tuning.rerank_budget_chars` set,
/// the messages are read in fused order only while their text fits in it
/// (the model's time grows with what it reads, so long messages are read
/// fewer). The messages keep the places they held together: the
/// reordered ones take, in their new order, the fused scores and the
/// places in the ranking that the messages read held, so what fusion put
/// around them (facts, their sources, the messages past `depth`) stays
/// where it was.
pub(crate) fn rerank(
    engine: &Engine,
    gathered: &mut Gathered,
    question: &str,
    reranker: &dyn Reranker,
    depth: usize,
    tuning: &Tuning,
) -> Result<Vec<Reread>> {
    let (chars, before_chars) = (tuning.rerank_chars, tuning.rerank_before_chars);
    let budget = match tuning.rerank_budget_chars {
        0 => usize::MAX,
        budget => budget,
    };
    let depth = depth.min(gathered.episodes.len());
    if depth < 2 {
        return Ok(Vec::new());
    }
    // Who said it is part of what it says ("Where does Caroline work?").
    let mut passages: Vec<String> = Vec::with_capacity(depth);
    let mut spent = 0usize;
    for (e, _) in &gathered.episodes[..depth] {
        let said = format!("{}: {}", e.role, opening(&e.text, chars));
        let room = before_chars.min(chars.saturating_sub(said.chars().count()));
        // Whole or not at all: the tail of a long reply is a fragment that
        // misleads more than it tells.
        // And only another speaker's: what a reply answers. The same
        // speaker's message before is another thought ("My friend Tom likes
        // westerns." before "Actually I live in Osaka.").
        let before = if room > 0 {
            message_before(engine, &e.id, &e.role, &e.text)?
                .filter(|(role, text)| {
                    role != &e.role && role.chars().count() + 2 + text.chars().count() <= room
                })
                .map(|(role, text)| format!("{role}: {text}"))
        } else {
            None
        };
        let passage = match before {
            Some(before) => format!("{before}\n{said}"),
            None => said,
        };
        spent += passage.chars().count();
        if spent > budget {
            break;
        }
        passages.push(passage);
    }
    let n = passages.len();
    if n < 2 {
        return Ok(Vec::new());
    }
    let texts: Vec<&str> = passages.iter().map(String::as_str).collect();
    let scores = reranker.score(question, &texts)?;
    let mut order: Vec<usize> = (0..n).collect();
    // Ties keep the fused order (a stable sort).
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let reread: Vec<Reread> = order
        .iter()
        .map(|&i| Reread {
            id: gathered.episodes[i].0.id.clone(),
            fused_place: i,
            score: scores[i],
        })
        .collect();
    // The slots' scores, best first, handed out in the new order. The
    // neighbours' cells are per place and not read yet: they stay.
    let slot_scores: Vec<f64> = gathered.episodes[..n].iter().map(|(_, s)| *s).collect();
    let mut taken: Vec<Option<_>> = gathered.episodes.drain(..n).map(Some).collect();
    let reordered: Vec<_> = order
        .iter()
        .zip(slot_scores)
        .filter_map(|(&i, score)| taken[i].take().map(|(episode, _)| (episode, score)))
        .collect();
    gathered.episodes.splice(..0, reordered);
    // The ranking recall is measured on: the same places, the new order
    // (every candidate message is in it once).
    let places: Vec<usize> = gathered
        .ranked_episodes
        .iter()
        .enumerate()
        .filter(|(_, id)| reread.iter().any(|r| &r.id == *id))
        .map(|(place, _)| place)
        .collect();
    for (place, r) in places.into_iter().zip(&reread) {
        gathered.ranked_episodes[place] = r.id.clone();
    }
    Ok(reread)
}

/// The message before `episode` in its session, as its speaker and text,
/// read from its passage (what the meaning channels embed).
fn message_before(
    engine: &Engine,
    episode: &str,
    role: &str,
    text: &str,
) -> Result<Option<(String, String)>> {
    let store = engine.store();
    let rel = Relations::of(store)?.passage;
    let row = first_keyed(
        store,
        rel,
        Passage::ID,
        &crate::ids::passage(episode),
        |s| s,
    )?;
    let Some(Value::Str(passage)) = row.as_ref().and_then(|r| r.values.get(Passage::TEXT)) else {
        return Ok(None);
    };
    Ok(
        crate::consolidate::passage::message_before(passage, role, text)
            .map(|(role, text)| (role.to_string(), text.to_string())),
    )
}

/// `text`'s first `chars` characters, cut after the last whole word (all
/// of it when `chars` is 0 or it is no longer).
fn opening(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((end, _)) if chars > 0 => {
            let head = &text[..end];
            match head.rfind(char::is_whitespace) {
                Some(space) if space > 0 => &head[..space],
                _ => head,
            }
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::opening;

    #[test]
    fn a_long_message_is_read_to_its_last_whole_word_within_the_limit() {
        assert_eq!(opening("I moved to Berlin last May", 12), "I moved to");
        assert_eq!(opening("I moved to Berlin", 0), "I moved to Berlin");
        assert_eq!(opening("I moved", 50), "I moved");
        // Unbroken text (Chinese) is cut at the character.
        assert_eq!(opening("我搬到了柏林", 3), "我搬到");
    }
}
