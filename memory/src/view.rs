//! Reading memory back for people, tests and the read side: a subject's
//! fact history, the facts valid at an instant, a tenant's timeline.
//! Reads go through the store's snapshots (one consistent instant each).

use chronolog_engine::{
    Engine, Interval, RelationId, RowVersion, Scan, Session, Store, Symbol, Timestamp, Value,
};

use crate::error::Result;
use crate::ids;
use crate::schema::{About, Alias, Elaborates, Episode, Fact, Relations, Source};

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

/// The first row of `rel` whose `column` holds the name `key`, among the
/// versions `select` picks (`|scan| scan` for the live ones): the lookup by
/// id every relation keyed by a name needs. `None` when no row was ever
/// stored under `key`.
pub(crate) fn first_keyed(
    store: &Store,
    rel: RelationId,
    column: usize,
    key: &str,
    select: impl for<'s> FnOnce(Scan<'s>) -> Scan<'s>,
) -> Result<Option<RowVersion>> {
    let Some(sym) = store.symbol(key) else {
        return Ok(None);
    };
    let snapshot = store.snapshot();
    let rows = select(snapshot.scan(rel).eq(column, Value::Sym(sym)))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    Ok(rows.into_iter().next())
}

/// The highest episode number stored (0 when there is none).
pub(crate) fn last_seq(session: &Session) -> Result<u64> {
    let store = session.store();
    let rel = Relations::of(store)?;
    let mut last = 0;
    store
        .snapshot()
        .scan(rel.episode)
        .history()
        .for_each(|row| {
            if let Value::Int(seq) = row.value(Episode::SEQ).to_owned() {
                last = last.max(u64::try_from(seq).unwrap_or(0));
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    Ok(last)
}

/// The entity `name` refers to in `tenant`'s memory, through its aliases.
pub(crate) fn entity_of(store: &Store, tenant: &str, name: &str) -> Result<Option<Symbol>> {
    let rel = Relations::of(store)?.alias;
    let row = first_keyed(store, rel, Alias::ALIAS, &ids::entity(tenant, name), |s| s)?;
    Ok(row.and_then(|r| match r.values.get(Alias::ENTITY) {
        Some(Value::Sym(s)) => Some(*s),
        _ => None,
    }))
}

/// Every version of every fact about `subject`, oldest first per slot.
pub(crate) fn history(engine: &Engine, tenant: &str, subject: &str) -> Result<Vec<FactVersion>> {
    let store = engine.store();
    let Some(entity) = entity_of(store, tenant, subject)? else {
        return Ok(Vec::new());
    };
    let rel = Relations::of(store)?;
    let snapshot = store.snapshot();
    let mut slots: Vec<Symbol> = Vec::new();
    snapshot
        .scan(rel.about)
        .eq(About::ENTITY, Value::Sym(entity))
        .for_each(|row| {
            if let Value::Sym(slot) = row.value(About::SLOT).to_owned()
                && !slots.contains(&slot)
            {
                slots.push(slot);
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    let mut out = Vec::new();
    for slot in slots {
        let rows = snapshot
            .scan(rel.fact)
            .history()
            .eq(Fact::SLOT, Value::Sym(slot))
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
    let snapshot = store.snapshot();
    let mut scan = snapshot
        .scan(Relations::of(store)?.fact)
        .eq(Fact::TENANT, Value::Sym(tenant));
    if let Some(t) = as_of {
        scan = scan.as_of(t);
    }
    if let Some(t) = known_at {
        scan = scan.known_at(t);
    }
    let rows = scan.collect().map_err(chronolog_engine::Error::from)?;
    rows.iter()
        .map(|row| {
            // A version that replaced another is read beside its slot's
            // rows: what it replaced, or the row it continues.
            let slot_rows = match (row.supersedes, &row.values[Fact::SLOT]) {
                (Some(_), Value::Sym(slot)) => snapshot
                    .scan(Relations::of(store)?.fact)
                    .history()
                    .eq(Fact::SLOT, Value::Sym(*slot))
                    .collect()
                    .map_err(chronolog_engine::Error::from)?,
                _ => Vec::new(),
            };
            version(store, row, &slot_rows)
        })
        .collect()
}

/// Every fact version of `tenant` believed at `known_at` (now when
/// `None`), whatever its valid time: the tenant's whole timeline, past
/// values included.
pub(crate) fn timeline(
    engine: &Engine,
    tenant: &str,
    known_at: Option<Timestamp>,
) -> Result<Vec<FactVersion>> {
    let store = engine.store();
    let Some(tenant) = store.symbol(tenant) else {
        return Ok(Vec::new());
    };
    let rows = store
        .snapshot()
        .scan(Relations::of(store)?.fact)
        .history()
        .eq(Fact::TENANT, Value::Sym(tenant))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let believed = |r: &&RowVersion| match known_at {
        Some(k) => r.tx.from <= k && k < r.tx.to,
        None => r.tx.to == Timestamp::MAX,
    };
    rows.iter()
        .filter(believed)
        .map(|row| version(store, row, &rows))
        .collect()
}

/// A stored fact row as a [`FactVersion`]; `slot_rows` are the rows the
/// one it supersedes is looked up in.
pub(crate) fn version(
    store: &Store,
    row: &RowVersion,
    slot_rows: &[RowVersion],
) -> Result<FactVersion> {
    let fact = Fact::from_values(store, &row.values)?;
    // What a withdrawn value gave back is a continuation row of the value
    // it cut (same values, superseding it, starting where it was cut), and
    // what a plan called off gave back is the value again from its own
    // start: one version, from the first row's start, replacing what it
    // replaced.
    // History holds a row once per change of its valid time (a cut): the
    // latest is what it holds now.
    let latest = |id| {
        slot_rows
            .iter()
            .filter(|r| r.id == id)
            .max_by_key(|r| r.tx.from)
    };
    let (mut from, mut replaced, mut at) = (row.valid.from, row.supersedes, row.id);
    while let Some(earlier) = replaced.and_then(latest) {
        let continued = earlier.valid.to == from || earlier.valid.from == from;
        if earlier.id >= at || earlier.values != row.values || !continued {
            break;
        }
        (from, replaced, at) = (earlier.valid.from, earlier.supersedes, earlier.id);
    }
    let supersedes = match replaced {
        Some(id) => slot_rows
            .iter()
            .find(|r| r.id == id)
            .map(|r| Fact::from_values(store, &r.values).map(|f| f.object))
            .transpose()?,
        None => None,
    };
    Ok(FactVersion {
        sources: sources(store, &fact.slot, &fact.object)?,
        elaborates: elaborated(store, &fact.slot, row.valid.from)?,
        subject: fact.subject,
        predicate: fact.predicate,
        text: fact.text,
        confidence: fact.confidence,
        valid: Interval {
            from,
            to: row.valid.to,
        },
        known: row.tx,
        supersedes,
        source: row
            .provenance
            .and_then(|p| store.symbol_name(p).ok())
            .map(|n| n.to_string()),
        slot: fact.slot,
        object: fact.object,
    })
}

/// The value of the slot `slot` elaborates, as it was at `at`.
fn elaborated(store: &Store, slot: &str, at: Timestamp) -> Result<Option<String>> {
    let Some(sym) = store.symbol(slot) else {
        return Ok(None);
    };
    let rel = Relations::of(store)?;
    let snapshot = store.snapshot();
    let links = snapshot
        .scan(rel.elaborates)
        .eq(Elaborates::SLOT, Value::Sym(sym))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let Some(Value::Sym(base)) = links.first().and_then(|l| l.values.get(Elaborates::BASE)) else {
        return Ok(None);
    };
    let rows = snapshot
        .scan(rel.fact)
        .eq(Fact::SLOT, Value::Sym(*base))
        .as_of(at)
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    rows.first()
        .map(|r| Fact::from_values(store, &r.values).map(|f| f.object))
        .transpose()
}

/// The episodes that stated `object` for `slot`.
fn sources(store: &Store, slot: &str, object: &str) -> Result<Vec<String>> {
    let Some(slot) = store.symbol(slot) else {
        return Ok(Vec::new());
    };
    let rows = store
        .snapshot()
        .scan(Relations::of(store)?.source)
        .eq(Source::SLOT, Value::Sym(slot))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let wanted = ids::normalize(object);
    let mut out = Vec::new();
    for row in rows {
        let source = Source::from_values(store, &row.values)?;
        if ids::normalize(&source.object) == wanted {
            out.push(source.episode);
        }
    }
    Ok(out)
}
