//! The conversation log: the lossless write path of agent memory. Each
//! message is one row of the stored relation `message(id: sym key, role:
//! sym, text: str search embed)`, valid from when it was said, written with
//! no model on the path (embedding and text indexing happen in the
//! background, `retrieval::indexes`). Searching it fuses meaning and words
//! with `rrf(near, bm25)` as of any instant. The memory layer to come
//! (consolidation into facts, provenance) reads from here.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use chronolog_storage::{Interval, Timestamp, Value};

use crate::error::{Error, Result, RuntimeError};
use crate::exec::Limits;
use crate::session::Session;
use crate::val::Val;

/// The relation messages live in.
pub const MESSAGE_RELATION: &str = "message";

const CREATE: &str = ":create message(id: sym key, role: sym, text: str search embed).";

/// One message found by [`Session::search_messages`].
#[derive(Clone, Debug, PartialEq)]
pub struct MessageHit {
    /// The message's id (its provenance tag in answers).
    pub id: String,
    /// Who said it (`user`, `assistant`, a name).
    pub role: String,
    /// What was said.
    pub text: String,
    /// The fused score: higher is better.
    pub score: f64,
    /// 1 for the best.
    pub rank: u64,
}

impl Session {
    /// Appends a message said by `role` at `at` (default: now) and returns
    /// its new id. Never waits for a model: the message is searchable by
    /// words and meaning once the background indexer has seen it (at once
    /// for this session's own next search).
    pub fn add_message(&mut self, role: &str, text: &str, at: Option<Timestamp>) -> Result<String> {
        if role.trim().is_empty() {
            return Err(RuntimeError::MessageNeedsRole.into());
        }
        let rel = match self.store().relation_id(MESSAGE_RELATION) {
            Ok(rel) => rel,
            Err(_) => {
                // Another session may create it first; either way it exists.
                let _ = self.run(CREATE);
                self.store().relation_id(MESSAGE_RELATION)?
            }
        };
        let id = fresh_id();
        let valid = Interval::starting(at.unwrap_or_else(Timestamp::now));
        self.write(|txn| {
            let values = vec![
                Value::Sym(txn.symbol(&id)?),
                Value::Sym(txn.symbol(role)?),
                Value::str(text),
            ];
            txn.assert(rel, values, valid, None)?;
            Ok(())
        })?;
        Ok(id)
    }

    /// The `k` messages that best match `query`, by meaning and by words
    /// (`rrf(near, bm25)`), among those said by `as_of` (default: now). No
    /// messages yet is an empty answer, not an error.
    pub fn search_messages(
        &mut self,
        query: &str,
        k: usize,
        as_of: Option<Timestamp>,
    ) -> Result<Vec<MessageHit>> {
        if k == 0 || self.store().relation_id(MESSAGE_RELATION).is_err() {
            return Ok(Vec::new());
        }
        // Each input ranks more than `k` so that fusion can reorder them;
        // a `k` past what the language allows asks for everything anyway.
        let max = chronolog_ql::MAX_RANKED_K as usize;
        let k = k.min(max);
        let depth = k.saturating_mul(2).clamp(10, max);
        let text = format!(
            "?- rrf(near(message, $q, {depth}), bm25(message, $q, {depth})) as (Id, Score, Rank), \
             message(Id, Role, Text) as_of $at order by Rank limit {k}."
        );
        let prepared = self.prepare(&text)?;
        let params = HashMap::from([
            ("q".to_string(), Value::str(query)),
            (
                "at".to_string(),
                Value::Time(as_of.unwrap_or_else(Timestamp::now)),
            ),
        ]);
        let rows = self.execute(&prepared, &params, &Limits::default())?;
        rows.iter()
            .map(|row| match row {
                [id, score, rank, role, text] => Ok(MessageHit {
                    id: self.render(id),
                    role: self.render(role),
                    text: self.render(text),
                    score: score.as_f64().unwrap_or(0.0),
                    rank: match rank {
                        Val::Int(r) => u64::try_from(*r).unwrap_or(0),
                        _ => 0,
                    },
                }),
                _ => Err(Error::Internal("unexpected search row".into())),
            })
            .collect()
    }
}

/// A new message id, unique across sessions and processes without any
/// coordination: 64 random bits (a collision would make a message replace
/// another, as `id` is the key).
fn fresh_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = (
        Timestamp::now().micros(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
    );
    let bits = std::collections::hash_map::RandomState::new().hash_one(seed);
    format!("m-{bits:016x}")
}
