//! Reading memory back for people and tests: a subject's fact history, the
//! facts valid at an instant, and forgetting a subject. Reads go through
//! the store's snapshots (one consistent instant each).

use chronolog_engine::{Engine, Interval, RowVersion, Session, Store, Symbol, Timestamp, Value};

use crate::error::Result;
use crate::schema;

/// One version of a fact: what it said, when it held, when it was
/// believed, what it replaced and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct FactVersion {
    /// The slot: subject, predicate and (for many-valued predicates) the
    /// object; the versions of one slot form its supersedes chain.
    pub slot: String,
    /// The subject's entity id (`tenant/name`).
    pub subject: String,
    /// The predicate (`works_at`, ...).
    pub predicate: String,
    /// The object as said.
    pub object: String,
    /// The sentence it was read from.
    pub text: String,
    /// How sure the extractor was.
    pub confidence: f64,
    /// When it held in the world.
    pub valid: Interval,
    /// When the memory believed it (open while it still does).
    pub known: Interval,
    /// The object of the version it replaced, if it replaced one.
    pub supersedes: Option<String>,
    /// The value it says more about, kept beside it ("Google" for
    /// "Google Zurich"), if it elaborates one.
    pub elaborates: Option<String>,
    /// The episode this version was read from.
    pub source: Option<String>,
    /// Every episode that stated this slot's value, restatements included.
    pub sources: Vec<String>,
}

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

impl FactVersion {
    /// The version as JSON, the form the MCP server, the Python package
    /// and the C ABI hand out: times in ISO 8601, `null` for an open end.
    pub fn to_json(&self) -> serde_json::Value {
        let time = |t: Timestamp| match t {
            Timestamp::MAX | Timestamp::MIN => serde_json::Value::Null,
            t => serde_json::Value::String(t.to_string()),
        };
        serde_json::json!({
            "slot": self.slot,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "text": self.text,
            "confidence": self.confidence,
            "valid_from": time(self.valid.from),
            "valid_to": time(self.valid.to),
            "known_from": time(self.known.from),
            "known_to": time(self.known.to),
            "supersedes": self.supersedes,
            "elaborates": self.elaborates,
            "source": self.source,
            "sources": self.sources,
        })
    }
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

/// The highest episode number stored (0 when there is none).
pub(crate) fn last_seq(session: &Session) -> Result<u64> {
    let store = session.store();
    let rel = store
        .relation_id(schema::EPISODE)
        .map_err(chronolog_engine::Error::from)?;
    let mut last = 0;
    store
        .snapshot()
        .scan(rel)
        .history()
        .for_each(|row| {
            if let Value::Int(seq) = row.value(4).to_owned() {
                last = last.max(u64::try_from(seq).unwrap_or(0));
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    Ok(last)
}

/// The entity `name` refers to in `tenant`'s memory, through its aliases.
pub(crate) fn entity_of(store: &Store, tenant: &str, name: &str) -> Result<Option<Symbol>> {
    let Some(alias) = store.symbol(&alias_key(tenant, name)) else {
        return Ok(None);
    };
    let rel = relation(store, schema::ALIAS)?;
    let rows = store
        .snapshot()
        .scan(rel)
        .eq(0, Value::Sym(alias))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    Ok(rows.first().and_then(|r| match r.values.get(1) {
        Some(Value::Sym(s)) => Some(*s),
        _ => None,
    }))
}

/// The alias row key of `name` in `tenant`: lower-cased, spaces single.
pub(crate) fn alias_key(tenant: &str, name: &str) -> String {
    format!("{tenant}/{}", normalize(name))
}

/// A symbol's name or a string's text (empty for anything else): how the
/// memory reads back the names and texts it stored.
pub(crate) fn text_of(store: &Store, value: Option<&Value>) -> String {
    match value {
        Some(Value::Sym(s)) => store
            .symbol_name(*s)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    }
}

/// Lower case, single spaces: how names and objects compare.
pub(crate) fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

pub(crate) fn relation(store: &Store, name: &str) -> Result<chronolog_engine::RelationId> {
    Ok(store
        .relation_id(name)
        .map_err(chronolog_engine::Error::from)?)
}

/// Every version of every fact about `subject`, oldest first per slot.
pub(crate) fn history(engine: &Engine, tenant: &str, subject: &str) -> Result<Vec<FactVersion>> {
    let store = engine.store();
    let Some(entity) = entity_of(store, tenant, subject)? else {
        return Ok(Vec::new());
    };
    let snapshot = store.snapshot();
    let about = relation(store, schema::ABOUT)?;
    let mut slots: Vec<Symbol> = Vec::new();
    snapshot
        .scan(about)
        .eq(1, Value::Sym(entity))
        .for_each(|row| {
            if let Value::Sym(slot) = row.value(0).to_owned()
                && !slots.contains(&slot)
            {
                slots.push(slot);
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    let fact = relation(store, schema::FACT)?;
    let mut out = Vec::new();
    for slot in slots {
        let rows = snapshot
            .scan(fact)
            .history()
            .eq(0, Value::Sym(slot))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        for row in &rows {
            out.push(version(store, row, &rows)?);
        }
    }
    Ok(out)
}

/// The facts of `tenant` valid at `as_of`, as known at `known_at`.
pub(crate) fn facts(
    engine: &Engine,
    tenant: &str,
    as_of: Option<Timestamp>,
    known_at: Option<Timestamp>,
) -> Result<Vec<FactVersion>> {
    let store = engine.store();
    let Some(tenant) = store.symbol(tenant) else {
        return Ok(Vec::new());
    };
    let fact = relation(store, schema::FACT)?;
    let snapshot = store.snapshot();
    let mut scan = snapshot.scan(fact).eq(1, Value::Sym(tenant));
    if let Some(t) = as_of {
        scan = scan.as_of(t);
    }
    if let Some(t) = known_at {
        scan = scan.known_at(t);
    }
    let rows = scan.collect().map_err(chronolog_engine::Error::from)?;
    rows.iter().map(|row| version(store, row, &[])).collect()
}

/// Every fact version of `tenant` believed now, whatever its valid time:
/// the tenant's whole timeline, past values included.
pub(crate) fn timeline(engine: &Engine, tenant: &str) -> Result<Vec<FactVersion>> {
    let store = engine.store();
    let Some(tenant) = store.symbol(tenant) else {
        return Ok(Vec::new());
    };
    let fact = relation(store, schema::FACT)?;
    let rows = store
        .snapshot()
        .scan(fact)
        .history()
        .eq(1, Value::Sym(tenant))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    rows.iter()
        .filter(|r| r.tx.to == Timestamp::MAX)
        .map(|row| version(store, row, &rows))
        .collect()
}

pub(crate) fn version(
    store: &Store,
    row: &RowVersion,
    slot_rows: &[RowVersion],
) -> Result<FactVersion> {
    let name = |v: Option<&Value>| text_of(store, v);
    let slot = name(row.values.first());
    let supersedes = row.supersedes.and_then(|id| {
        slot_rows
            .iter()
            .find(|r| r.id == id)
            .map(|r| name(r.values.get(4)))
    });
    let object = name(row.values.get(4));
    Ok(FactVersion {
        sources: sources(store, &slot, &object)?,
        subject: name(row.values.get(2)),
        predicate: name(row.values.get(3)),
        text: name(row.values.get(5)),
        confidence: match row.values.get(6) {
            Some(Value::Float(c)) => *c,
            _ => 0.0,
        },
        valid: row.valid,
        known: row.tx,
        supersedes,
        elaborates: elaborated(store, &slot, row.valid.from)?,
        source: row
            .provenance
            .and_then(|p| store.symbol_name(p).ok())
            .map(|n| n.to_string()),
        slot,
        object,
    })
}

/// The value of the slot `slot` elaborates, as it was at `at`.
fn elaborated(store: &Store, slot: &str, at: Timestamp) -> Result<Option<String>> {
    let Some(sym) = store.symbol(slot) else {
        return Ok(None);
    };
    let snapshot = store.snapshot();
    let links = snapshot
        .scan(relation(store, schema::ELABORATES)?)
        .eq(0, Value::Sym(sym))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let Some(Value::Sym(base)) = links.first().and_then(|l| l.values.get(1)) else {
        return Ok(None);
    };
    let rows = snapshot
        .scan(relation(store, schema::FACT)?)
        .eq(0, Value::Sym(*base))
        .as_of(at)
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    Ok(rows.first().map(|r| text_of(store, r.values.get(4))))
}

/// The episodes that stated `object` for `slot`.
fn sources(store: &Store, slot: &str, object: &str) -> Result<Vec<String>> {
    let Some(slot) = store.symbol(slot) else {
        return Ok(Vec::new());
    };
    let rel = relation(store, schema::SOURCE)?;
    let mut out = Vec::new();
    store
        .snapshot()
        .scan(rel)
        .eq(0, Value::Sym(slot))
        .for_each(|row| {
            if let (Value::Sym(ep), Value::Str(o)) =
                (row.value(1).to_owned(), row.value(2).to_owned())
                && normalize(&o) == normalize(object)
                && let Ok(name) = store.symbol_name(ep)
            {
                out.push(name.to_string());
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    Ok(out)
}

/// Erases `subject` and everything about it from `tenant`'s memory.
pub(crate) fn forget(engine: &Engine, tenant: &str, subject: &str) -> Result<ForgetReport> {
    let store = engine.store();
    let Some(entity) = entity_of(store, tenant, subject)? else {
        return Ok(ForgetReport::default());
    };
    let snapshot = store.snapshot();
    let column_syms = |rel: &str, match_col: usize, take_col: usize| -> Result<Vec<Symbol>> {
        let mut out: Vec<Symbol> = Vec::new();
        snapshot
            .scan(relation(store, rel)?)
            .history()
            .eq(match_col, Value::Sym(entity))
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
    let episodes = column_syms(schema::MENTION, 1, 0)?;
    let slots = column_syms(schema::ABOUT, 1, 0)?;
    let aliases = column_syms(schema::ALIAS, 1, 0)?;
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
    for sym in episodes
        .iter()
        .chain(&slots)
        .chain(&aliases)
        .chain(std::iter::once(&entity))
    {
        let Ok(name) = store.symbol_name(*sym) else {
            continue;
        };
        let record = store
            .purge(&name, &reason)
            .map_err(chronolog_engine::Error::from)?;
        report.rows += record.rows;
    }
    let passage_rel = relation(store, schema::PASSAGE)?;
    for follower in &followers {
        let passage = schema::passage_id(&follower.id);
        let record = store
            .purge(&passage, &reason)
            .map_err(chronolog_engine::Error::from)?;
        report.rows += record.rows;
        engine.session().write(|txn| {
            let values = vec![
                Value::Sym(txn.symbol(&passage)?),
                Value::Sym(txn.symbol(&follower.id)?),
                Value::Sym(txn.symbol(tenant)?),
                Value::Sym(txn.symbol(&follower.role)?),
                Value::str(format!("{}: {}", follower.role, follower.text)),
            ];
            txn.assert(passage_rel, values, Interval::starting(follower.at), None)?;
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
    let rel = relation(store, schema::EPISODE)?;
    let snapshot = store.snapshot();
    let mut out: Vec<Follower> = Vec::new();
    for &sym in episodes {
        let rows = snapshot
            .scan(rel)
            .history()
            .eq(0, Value::Sym(sym))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let Some(row) = rows.first() else { continue };
        let (Some(tenant), Some(session), Some(Value::Int(seq))) =
            (row.values.get(1), row.values.get(2), row.values.get(4))
        else {
            continue;
        };
        let mut next: Option<(i64, Follower)> = None;
        snapshot
            .scan(rel)
            .history()
            .eq(1, tenant.clone())
            .eq(2, session.clone())
            .for_each(|r| {
                let Value::Int(s) = r.value(4).to_owned() else {
                    return;
                };
                let Value::Sym(id) = r.value(0).to_owned() else {
                    return;
                };
                if s > *seq && !episodes.contains(&id) && next.as_ref().is_none_or(|(n, _)| s < *n)
                {
                    next = Some((
                        s,
                        Follower {
                            id: text_of(store, Some(&Value::Sym(id))),
                            role: text_of(store, Some(&r.value(3).to_owned())),
                            at: match r.value(5).to_owned() {
                                Value::Time(t) => t,
                                _ => r.valid().from,
                            },
                            text: text_of(store, Some(&r.value(6).to_owned())),
                        },
                    ));
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        if let Some((_, follower)) = next
            && !out.iter().any(|f| f.id == follower.id)
        {
            out.push(follower);
        }
    }
    Ok(out)
}
