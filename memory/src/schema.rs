//! The memory's relations: ordinary bi-temporal relations of the store,
//! created once, so everything memory holds can be queried, joined and
//! time-travelled from Datalog. The tenant is a column of every relation
//! that holds content, and every id a row links by (episode, entity, slot)
//! starts with its tenant, so links never cross tenants. docs/memory.md
//! describes each column.

use chronolog_engine::Session;

use crate::error::Result;

/// Episodes: one lossless message each, valid from when it was said,
/// never rewritten. `seq` orders them across the store.
pub const EPISODE: &str = "mem_episode";
/// Passages: each episode as the meaning channels read it, the message
/// before it in its session and the speakers' names included ("The kids
/// loved it!" says little alone), embedded by consolidation, never on `add`.
/// A passage has an id of its own ([`passage_id`]) so that forgetting the
/// message before it can erase it whole.
pub const PASSAGE: &str = "mem_passage";

/// The id of `episode`'s passage.
pub fn passage_id(episode: &str) -> String {
    format!("{episode}/p")
}

/// The episode a passage id belongs to.
pub fn passage_episode(passage: &str) -> &str {
    passage.strip_suffix("/p").unwrap_or(passage)
}
/// Facts: one row per version of a slot (subject and predicate, and the
/// object too for many-valued predicates); the slot is the key, so a new
/// value cuts the old one at its start and supersedes it.
pub const FACT: &str = "mem_fact";
/// Every episode that stated or restated a slot's value (provenance
/// beyond the row's own).
pub const SOURCE: &str = "mem_source";
/// Entities (people, places, organisations, ...) of a tenant.
pub const ENTITY: &str = "mem_entity";
/// Names and words that refer to an entity, tenant-prefixed.
pub const ALIAS: &str = "mem_alias";
/// Which entities an episode mentions.
pub const MENTION: &str = "mem_mention";
/// Which entities a fact slot is about (its subject and object).
pub const ABOUT: &str = "mem_about";
/// Salience of a slot: a score, when it was last reinforced, how often.
pub const SALIENCE: &str = "mem_salience";
/// Pairs of slots an adjudicator could not choose between.
pub const CONTESTED: &str = "mem_contested";
/// Facts that elaborate another's value ("Google Zurich" of "Google"):
/// kept beside it, not in conflict.
pub const ELABORATES: &str = "mem_elaborates";
/// How far consolidation has read the episodes.
pub const CURSOR: &str = "mem_cursor";

const CREATE: &[(&str, &str)] = &[
    (
        EPISODE,
        ":create mem_episode(id: sym key, tenant: sym, session: sym, role: sym, seq: int, at: time, text: str search).",
    ),
    (
        PASSAGE,
        ":create mem_passage(id: sym key, episode: sym, tenant: sym, role: sym, text: str embed).",
    ),
    (
        FACT,
        ":create mem_fact(slot: sym key, tenant: sym, subject: sym, predicate: sym, object: str, text: str search embed, confidence: float).",
    ),
    (
        SOURCE,
        ":create mem_source(slot: sym, episode: sym, object: str).",
    ),
    (
        ENTITY,
        ":create mem_entity(id: sym key, tenant: sym, name: str search(simple), kind: sym).",
    ),
    (ALIAS, ":create mem_alias(alias: sym key, entity: sym)."),
    (MENTION, ":create mem_mention(episode: sym, entity: sym)."),
    (ABOUT, ":create mem_about(slot: sym, entity: sym)."),
    (
        SALIENCE,
        ":create mem_salience(slot: sym key, tenant: sym, score: float, reinforced: int, last: time).",
    ),
    (CONTESTED, ":create mem_contested(slot: sym, other: sym)."),
    (ELABORATES, ":create mem_elaborates(slot: sym, base: sym)."),
    (CURSOR, ":create mem_cursor(name: sym key, seq: int)."),
];

/// Creates whichever relations are missing (a store opened before gets
/// none twice), and says which it created.
pub fn ensure(session: &mut Session) -> Result<Vec<&'static str>> {
    let mut created = Vec::new();
    for (name, create) in CREATE {
        if session.store().relation_id(name).is_err() {
            session.run(create)?;
            created.push(*name);
        }
    }
    Ok(created)
}
