//! "I meant Emily, not Emma": a value said by mistake, corrected by a
//! message that names no relation. The claims a language makes of it
//! ([`crate::claim::misspoken`]) name no slot; this finds the fact that
//! holds the wrong value and gives both claims its subject, predicate
//! and period, so that fact is withdrawn (a correction: as known before,
//! it stays on record) and the right value holds in its place.

use chronolog_engine::{Interval, Store, Symbol, Timestamp, Value};

use super::extract::{Claim, ClaimKind};
use crate::claim::{MISSPOKEN, Subject};
use crate::error::Result;
use crate::ids::{self, normalize};
use crate::schema::{Entity, Episode, Fact, Relations};
use crate::when::When;

/// Gives each pair of misspoken claims in `claims` the fact its wrong
/// value names, said by `role` in `tenant`; a pair that names no fact
/// held now is dropped. Returns how many claims were dropped.
pub(super) fn resolve(
    store: &Store,
    rel: Relations,
    tenant: &str,
    role: &str,
    claims: &mut Vec<Claim>,
) -> Result<usize> {
    let mut dropped = 0;
    let mut i = 0;
    while i < claims.len() {
        if claims[i].predicate != MISSPOKEN {
            i += 1;
            continue;
        }
        let paired = claims[i].kind == ClaimKind::Withdrawn
            && claims
                .get(i + 1)
                .is_some_and(|c| c.predicate == MISSPOKEN && c.kind == ClaimKind::Holds);
        let found = if paired {
            held(store, rel, tenant, role, &claims[i].object)?
        } else {
            None
        };
        let Some((fact, valid)) = found else {
            let n = if paired { 2 } else { 1 };
            claims.drain(i..i + n);
            dropped += n;
            continue;
        };
        let subject = if fact.subject == ids::entity(tenant, role) {
            Subject::Speaker
        } else {
            Subject::Named(ids::entity_name(&fact.subject))
        };
        let kind = entity_kind(store, rel, &ids::entity(tenant, &fact.object))?;
        let wrong = &mut claims[i];
        wrong.subject = subject.clone();
        wrong.predicate = fact.predicate.clone();
        wrong.object = fact.object.clone();
        let right = &mut claims[i + 1];
        right.subject = subject;
        right.predicate = fact.predicate;
        right.object_kind = kind;
        // The right value held over the wrong one's period: from its
        // start, to its end where it had one (then a past period).
        let bounded = valid.to != Timestamp::MAX;
        right.valid = Some(When {
            from: valid.from,
            to: bounded.then_some(valid.to),
            stretch: bounded,
        });
        if bounded {
            right.kind = ClaimKind::Happened;
        }
        i += 2;
    }
    Ok(dropped)
}

/// The fact of `tenant` believed now whose value is `object` (as
/// [`normalize`] compares) and that `role` said (a speaker corrects what
/// they said, not what another did), with its valid period: of several,
/// one that still holds, then the one that began last.
fn held(
    store: &Store,
    rel: Relations,
    tenant: &str,
    role: &str,
    object: &str,
) -> Result<Option<(Fact, Interval)>> {
    let Some(tenant) = store.symbol(tenant) else {
        return Ok(None);
    };
    let wanted = normalize(object);
    let rows = store
        .snapshot()
        .scan(rel.fact)
        .history()
        .eq(Fact::TENANT, Value::Sym(tenant))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let mut best: Option<(Fact, Interval)> = None;
    for row in rows.into_iter().filter(|r| r.tx.to == Timestamp::MAX) {
        let fact = Fact::from_values(store, &row.values)?;
        if normalize(&fact.object) != wanted || !said_by(store, rel, row.provenance, role)? {
            continue;
        }
        let rank = |v: &Interval| (v.to == Timestamp::MAX, v.from);
        if best
            .as_ref()
            .is_none_or(|(_, b)| rank(&row.valid) > rank(b))
        {
            best = Some((fact, row.valid));
        }
    }
    Ok(best)
}

/// Whether the episode `provenance` names was said by `role`.
fn said_by(store: &Store, rel: Relations, provenance: Option<Symbol>, role: &str) -> Result<bool> {
    let Some(episode) = provenance else {
        return Ok(false);
    };
    let rows = store
        .snapshot()
        .scan(rel.episode)
        .eq(Episode::ID, Value::Sym(episode))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    Ok(rows.first().is_some_and(|row| {
        matches!(&row.values[Episode::ROLE], Value::Sym(r) if store.symbol_name(*r).is_ok_and(|n| &*n == role))
    }))
}

/// The kind of the entity `id` names, if the memory holds one: a right
/// value takes the kind its wrong one had (a daughter's name is a
/// person's).
fn entity_kind(store: &Store, rel: Relations, id: &str) -> Result<Option<&'static str>> {
    let Some(sym) = store.symbol(id) else {
        return Ok(None);
    };
    let rows = store
        .snapshot()
        .scan(rel.entity)
        .eq(Entity::ID, Value::Sym(sym))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let entity = Entity::from_values(store, &row.values)?;
    Ok(super::entities::KINDS
        .iter()
        .copied()
        .find(|k| *k == entity.kind))
}
