//! What `top` and `decayed` share: every live row scored by a function of
//! its own values, and the best `k` ids kept in one deterministic order.

use std::cmp::Ordering;

use chronolog_storage::{RelationId, RowId, RowView, ValueRef};

use super::{At, Ranking};
use crate::error::Result;
use crate::val::Val;

/// The best `k` ids of the rows in `live` by `score` (a row it scores
/// `None` is left out). An id held by several rows counts once, at its
/// best score. Equal scores are ordered by id, symbols by name, so the
/// cut at `k` never depends on the order names were interned in.
pub(super) fn best(
    at: &At<'_>,
    rel: RelationId,
    live: &roaring::RoaringBitmap,
    k: usize,
    score: impl Fn(&RowView<'_>) -> Option<f64>,
) -> Result<Ranking> {
    let rows: Vec<RowId> = live.iter().collect();
    let mut scored: Vec<(Val, f64)> = Vec::with_capacity(rows.len());
    at.snapshot.read_rows(rel, &rows, |row| {
        if let Some(s) = score(row).filter(|s| !s.is_nan()) {
            scored.push((Val::from_ref(row.value(0)), s));
        }
    })?;
    let store = at.snapshot.store();
    let name = |v: &Val| match v {
        Val::Sym(s) => store
            .symbol_name(chronolog_storage::Symbol(*s))
            .ok()
            .map(|n| n.to_string()),
        _ => None,
    };
    let by_id = |a: &Val, b: &Val| match (name(a), name(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(b),
    };
    // Best first; names are looked up only to break a tie.
    scored.sort_by(|a, b| match b.1.total_cmp(&a.1) {
        Ordering::Equal => by_id(&a.0, &b.0),
        other => other,
    });
    let mut seen = std::collections::HashSet::new();
    scored.retain(|(id, _)| seen.insert(id.clone()));
    scored.truncate(k);
    Ok(scored)
}

/// A number or time cell as a score (a time as its microseconds).
pub(super) fn number(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Int(i) => Some(i as f64),
        ValueRef::Float(x) => Some(x),
        ValueRef::Time(t) => Some(t.micros() as f64),
        _ => None,
    }
}
