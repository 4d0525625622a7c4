//! The C ABI's conversation log (`chronolog_add_message`,
//! `chronolog_search`): a tenant-less message log that predates the agent
//! memory (`chronolog_memory_*`, which programs should prefer). Each
//! message is one row of the stored relation `message(id: sym key, role:
//! sym, text: str search embed)`, valid from when it was said, written
//! with no model on the path; a search fuses meaning and words with
//! `rrf(near, bm25)` as of any instant. Built on the engine's public API
//! alone, as any program could.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use chronolog_engine::{Error, Interval, Limits, Session, Timestamp, Val, Value};

/// The relation messages live in.
pub(crate) const MESSAGE_RELATION: &str = "message";

const CREATE: &str = ":create message(id: sym key, role: sym, text: str search embed).";

/// One message found by [`search_messages`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MessageHit {
    /// The message's id (its provenance tag in answers).
    pub(crate) id: String,
    /// Who said it (`user`, `assistant`, a name).
    pub(crate) role: String,
    /// What was said.
    pub(crate) text: String,
    /// The fused score: higher is better.
    pub(crate) score: f64,
    /// 1 for the best.
    pub(crate) rank: u64,
}

/// Why a message could not be added.
#[derive(Debug)]
pub(crate) enum AddError {
    /// The role was empty.
    NoRole,
    /// The engine refused the write.
    Engine(Error),
}

impl From<Error> for AddError {
    fn from(e: Error) -> AddError {
        AddError::Engine(e)
    }
}

/// Appends a message said by `role` at `at` (default: now) and returns
/// its new id. Never waits for a model: the message is searchable by
/// words and meaning once the background indexer has seen it (at once
/// for this session's own next search).
pub(crate) fn add_message(
    session: &mut Session,
    role: &str,
    text: &str,
    at: Option<Timestamp>,
) -> Result<String, AddError> {
    if role.trim().is_empty() {
        return Err(AddError::NoRole);
    }
    let rel = match session.store().relation_id(MESSAGE_RELATION) {
        Ok(rel) => rel,
        Err(_) => {
            // Another session may create it first; either way it exists.
            let _ = session.run(CREATE);
            session
                .store()
                .relation_id(MESSAGE_RELATION)
                .map_err(Error::from)?
        }
    };
    let id = fresh_id();
    let valid = Interval::starting(at.unwrap_or_else(Timestamp::now));
    session.write(|txn| {
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
pub(crate) fn search_messages(
    session: &mut Session,
    query: &str,
    k: usize,
    as_of: Option<Timestamp>,
) -> Result<Vec<MessageHit>, Error> {
    if k == 0 || session.store().relation_id(MESSAGE_RELATION).is_err() {
        return Ok(Vec::new());
    }
    // Each input ranks more than `k` so that fusion can reorder them;
    // a `k` past what the language allows asks for everything anyway.
    let max = chronolog_engine::MAX_RANKED_K as usize;
    let k = k.min(max);
    let depth = k.saturating_mul(2).clamp(10, max);
    let text = format!(
        "?- rrf(near(message, $q, {depth}), bm25(message, $q, {depth})) as (Id, Score, Rank), \
         message(Id, Role, Text) as_of $at order by Rank limit {k}."
    );
    let prepared = session.prepare(&text)?;
    let params = HashMap::from([
        ("q".to_string(), Value::str(query)),
        (
            "at".to_string(),
            Value::Time(as_of.unwrap_or_else(Timestamp::now)),
        ),
    ]);
    let rows = session.execute(&prepared, &params, &Limits::default())?;
    rows.iter()
        .map(|row| match row {
            [id, score, rank, role, text] => Ok(MessageHit {
                id: session.render(id),
                role: session.render(role),
                text: session.render(text),
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chronolog_engine::{HashingEmbedder, Output, Store};

    use super::*;

    fn db() -> Session {
        Session::with_embedder(Store::in_memory(), Arc::new(HashingEmbedder::new(384)))
    }

    fn at(date: &str) -> Option<Timestamp> {
        Some(Timestamp::parse(date).expect("date"))
    }

    fn add(db: &mut Session, role: &str, text: &str, when: &str) -> String {
        add_message(db, role, text, at(when)).unwrap_or_else(|e| panic!("add: {e:?}"))
    }

    #[test]
    fn messages_are_found_by_words_and_meaning_as_of_when_they_were_said() {
        let mut db = db();
        let none = search_messages(&mut db, "anything", 5, None).expect("empty");
        assert!(none.is_empty());
        let tencent = add(
            &mut db,
            "alice",
            "I just started at Tencent in Shenzhen",
            "2021-03-01",
        );
        let canteen = add(
            &mut db,
            "bob",
            "the canteen food is great today",
            "2021-04-10",
        );
        let moonshot = add(
            &mut db,
            "alice",
            "big news: I am joining Moonshot in June",
            "2024-05-20",
        );
        assert_eq!(
            [&tencent, &canteen, &moonshot]
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len(),
            3,
            "ids are unique"
        );

        let now = search_messages(&mut db, "joining Moonshot", 2, None).expect("search");
        assert_eq!(now[0].id, moonshot);
        assert_eq!(now[0].role, "alice");
        assert_eq!(now[0].rank, 1);
        assert!(now.len() <= 2);
        assert!(now.windows(2).all(|w| w[0].score >= w[1].score));

        // In 2022 the Moonshot message had not been said yet.
        let then =
            search_messages(&mut db, "joining Moonshot", 3, at("2022-01-01")).expect("search");
        assert!(then.iter().all(|h| h.id != moonshot), "{then:?}");
        assert!(!then.is_empty());

        let words = search_messages(&mut db, "canteen", 1, None).expect("search");
        assert_eq!(words[0].id, canteen);
        assert_eq!(words[0].text, "the canteen food is great today");
    }

    #[test]
    fn a_message_without_a_role_is_refused_and_changes_nothing() {
        let mut db = db();
        assert!(matches!(
            add_message(&mut db, " ", "hello", None),
            Err(AddError::NoRole)
        ));
        assert!(db.store().relation_id(MESSAGE_RELATION).is_err());
        add_message(&mut db, "user", "hello", None).unwrap_or_else(|e| panic!("add: {e:?}"));
        let out = db.run("?- message(I, R, T).").expect("query");
        let Some(Output::Rows(rows)) = out.last() else {
            panic!("{out:?}")
        };
        assert_eq!(rows.len(), 1);
    }
}
