//! Forgetting a subject: its entity, aliases, every episode that mentions
//! it and every fact about it are purged from the store (rows, index
//! entries, embeddings, old snapshots); the passage of the message after
//! each erased one is written again without it.

use chronolog_engine::{Engine, Store, Symbol, Timestamp, Value};

use crate::consolidate::passage::{self, Said};
use crate::error::Result;
use crate::ids;
use crate::schema::{About, Alias, Conversation, Episode, Mention, Relations};
use crate::view::entity_of;

/// What [`crate::Memory::forget`] erased.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForgetReport {
    /// Episodes that mentioned the subject.
    pub episodes: usize,
    /// Fact slots about it.
    pub facts: usize,
    /// Names it went by.
    pub aliases: usize,
    /// Rows erased in all, across relations.
    pub rows: usize,
}

impl ForgetReport {
    /// The counts as JSON (`{"episodes", "facts", "aliases", "rows"}`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "episodes": self.episodes,
            "facts": self.facts,
            "aliases": self.aliases,
            "rows": self.rows,
        })
    }
}

/// Erases `subject` and everything about it from `tenant`'s memory.
pub(crate) fn forget(engine: &Engine, tenant: &str, subject: &str) -> Result<ForgetReport> {
    let store = engine.store();
    let Some(entity) = entity_of(store, tenant, subject)? else {
        return Ok(ForgetReport::default());
    };
    let snapshot = store.snapshot();
    let rel = Relations::of(store)?;
    let column_syms =
        |rel, match_col: usize, matching: Symbol, take_col: usize| -> Result<Vec<Symbol>> {
            let mut out: Vec<Symbol> = Vec::new();
            snapshot
                .scan(rel)
                .history()
                .eq(match_col, Value::Sym(matching))
                .for_each(|row| {
                    if let Value::Sym(s) = row.value(take_col).to_owned()
                        && !out.contains(&s)
                    {
                        out.push(s);
                    }
                })
                .map_err(chronolog_engine::Error::from)?;
            Ok(out)
        };
    let episodes = column_syms(rel.mention, Mention::ENTITY, entity, Mention::EPISODE)?;
    let slots = column_syms(rel.about, About::ENTITY, entity, About::SLOT)?;
    let aliases = column_syms(rel.alias, Alias::ENTITY, entity, Alias::ALIAS)?;
    let mut report = ForgetReport {
        episodes: episodes.len(),
        facts: slots.len(),
        aliases: aliases.len(),
        rows: 0,
    };
    let reason = format!("forget: a subject of tenant {tenant}");
    // The message after a forgotten one holds it in its passage: that
    // passage goes too, and comes back with its own message alone.
    let followers = followers(store, &episodes)?;
    // Consolidation's state of the tenant's conversations names people
    // lately named and quotes the last message: it starts afresh.
    let conversations = match store.symbol(tenant) {
        Some(tenant) => column_syms(
            rel.conversation,
            Conversation::TENANT,
            tenant,
            Conversation::ID,
        )?,
        None => Vec::new(),
    };
    for sym in episodes
        .iter()
        .chain(&slots)
        .chain(&aliases)
        .chain(std::iter::once(&entity))
        .chain(&conversations)
    {
        let Ok(name) = store.symbol_name(*sym) else {
            continue;
        };
        let record = store
            .purge(&name, &reason)
            .map_err(chronolog_engine::Error::from)?;
        report.rows += record.rows;
    }
    for follower in &followers {
        let record = store
            .purge(&ids::passage(&follower.id), &reason)
            .map_err(chronolog_engine::Error::from)?;
        report.rows += record.rows;
        let said = Said {
            episode: &follower.id,
            tenant,
            role: &follower.role,
            at: follower.at,
            text: &follower.text,
        };
        engine.session().write(|txn| {
            passage::write(txn, rel.passage, &said, passage::text(None, &said))?;
            Ok(())
        })?;
    }
    Ok(report)
}

/// An episode that follows a forgotten one in its session.
struct Follower {
    id: String,
    role: String,
    at: Timestamp,
    text: String,
}

/// The episodes right after each of `episodes` in its session, those
/// being forgotten left out.
fn followers(store: &Store, episodes: &[Symbol]) -> Result<Vec<Follower>> {
    let rel = Relations::of(store)?.episode;
    let snapshot = store.snapshot();
    let mut out: Vec<Follower> = Vec::new();
    for &sym in episodes {
        let rows = snapshot
            .scan(rel)
            .history()
            .eq(Episode::ID, Value::Sym(sym))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let Some(row) = rows.first() else { continue };
        let forgotten = Episode::from_values(store, &row.values)?;
        let conversation = snapshot
            .scan(rel)
            .history()
            .eq(Episode::TENANT, row.values[Episode::TENANT].clone())
            .eq(Episode::SESSION, row.values[Episode::SESSION].clone())
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let mut next: Option<Episode> = None;
        for r in conversation {
            let Value::Sym(id) = r.values[Episode::ID] else {
                continue;
            };
            if episodes.contains(&id) {
                continue;
            }
            let episode = Episode::from_values(store, &r.values)?;
            if episode.seq > forgotten.seq && next.as_ref().is_none_or(|n| episode.seq < n.seq) {
                next = Some(episode);
            }
        }
        if let Some(episode) = next
            && !out.iter().any(|f| f.id == episode.id)
        {
            out.push(Follower {
                id: episode.id,
                role: episode.role,
                at: episode.at,
                text: episode.text,
            });
        }
    }
    Ok(out)
}
