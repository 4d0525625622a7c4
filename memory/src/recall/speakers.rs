//! The people a question names who speak in the memory, and word
//! searches over what someone said: the speaker channels' seeds and the
//! abstention gate's own searches.

use std::collections::HashMap;

use chronolog_engine::{Engine, Limits, Session, Timestamp, Val, Value};

use super::understand::Question;
use crate::error::Result;
use crate::schema::{Episode, Relations};

/// The roles (as stored symbols) of the people the question names who
/// speak in this tenant's memory.
pub(crate) fn speakers(
    engine: &Engine,
    tenant: &str,
    question: &Question,
) -> Vec<chronolog_engine::Symbol> {
    let store = engine.store();
    let (Ok(rel), Some(tenant_sym)) = (
        Relations::of(store).map(|r| r.episode),
        store.symbol(tenant),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in question
        .entities
        .iter()
        .filter_map(|e| e.strip_prefix(&format!("{tenant}/")))
        .filter(|name| *name != "user")
    {
        let mut capitalised = name.to_string();
        if let Some(first) = capitalised.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        for candidate in [name.to_string(), capitalised] {
            let Some(sym) = store.symbol(&candidate) else {
                continue;
            };
            let speaks = store
                .snapshot()
                .scan(rel)
                .eq(Episode::TENANT, Value::Sym(tenant_sym))
                .eq(Episode::ROLE, Value::Sym(sym))
                .count()
                .is_ok_and(|n| n > 0);
            if speaks && !out.contains(&sym) {
                out.push(sym);
            }
        }
    }
    out
}

/// The role (as a stored symbol) of the memory's own user when the
/// question asks about them in the first person ("Where do I work?", not
/// "What did you recommend?") and the user speaks in this tenant's memory
/// beside someone else (an assistant): "I" is whoever asks, and what
/// they did is mostly in their own messages, as a named person's is in
/// theirs. Kept apart from [`speakers`]: the ownership gate compares a
/// person named in the question with the others, and the user's partner
/// in a chat answers every topic the user raises.
pub(crate) fn user_role(
    engine: &Engine,
    tenant: &str,
    question: &Question,
) -> Option<chronolog_engine::Symbol> {
    if !question.about_user {
        return None;
    }
    let store = engine.store();
    let rel = Relations::of(store).ok()?.episode;
    let (tenant_sym, role) = (store.symbol(tenant)?, store.symbol("user")?);
    let snapshot = store.snapshot();
    let said = snapshot
        .scan(rel)
        .eq(Episode::TENANT, Value::Sym(tenant_sym))
        .count()
        .ok()?;
    let by_user = snapshot
        .scan(rel)
        .eq(Episode::TENANT, Value::Sym(tenant_sym))
        .eq(Episode::ROLE, Value::Sym(role))
        .count()
        .ok()?;
    // Where the user says everything, their channels are the episode
    // channels again: they would only outweigh the facts.
    (by_user > 0 && by_user < said).then_some(role)
}

/// A message a word search found: its id and score, who said it, what
/// they said.
pub(crate) struct Found {
    pub id: String,
    pub score: f64,
    pub role: String,
    pub text: String,
}

/// `bm25` over `tenant`'s messages for `words`, those said by `role`
/// only when given: the abstention gate's own searches, with the
/// question's topic words alone (its names would favour whoever says them).
pub(crate) fn episode_words(
    reader: super::Reader<'_>,
    tenant: &str,
    words: &str,
    role: Option<chronolog_engine::Symbol>,
    k: usize,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Vec<Found>> {
    let mut session = reader.caches.readers.lease(reader.engine)?;
    let mut params: HashMap<String, Value> = HashMap::from([
        ("t".to_string(), Value::str(tenant)),
        ("q".to_string(), Value::str(words)),
        ("k".to_string(), Value::Int(k as i64)),
        ("at".to_string(), Value::Time(as_of)),
        (
            "known".to_string(),
            Value::Time(known_at.unwrap_or_else(Timestamp::now)),
        ),
    ]);
    let filter = match role {
        Some(role) => {
            params.insert("s".to_string(), Value::Sym(role));
            ", role = $s"
        }
        None => "",
    };
    let text = format!(
        "?- bm25(mem_episode, $q, $k, tenant = $t{filter}) as (E, S), \
         mem_episode(E, _, _, Role, _, _, Text) as_of $at known_at $known."
    );
    Ok(rows(reader, &mut session, &text, &params)?
        .into_iter()
        .filter_map(|r| match r.as_slice() {
            [id, score, role, text] => Some(Found {
                id: session.render(id),
                score: score.as_f64().unwrap_or(0.0),
                role: session.render(role),
                text: session.render(text),
            }),
            _ => None,
        })
        .collect())
}

fn rows(
    reader: super::Reader<'_>,
    session: &mut Session,
    text: &str,
    params: &HashMap<String, Value>,
) -> Result<Vec<Vec<Val>>> {
    let prepared = reader.caches.prepared(session, text)?;
    let rows = session.execute(&prepared, params, &Limits::default())?;
    Ok(rows.to_vecs())
}
