//! Reading stored relations: one lookup per binding through the storage
//! value index until a query has looked one up often, then a columnar
//! copy (`frozen.rs`) kept in the engine's cache.

use chronolog_storage::{ColumnType, RelationId, Value};

use super::*;
use crate::error::{Error, Result};
use crate::frozen::{Column, Frozen};
use crate::stored_cache::Materialized;
use crate::val::{Tuple, Val};

/// After this many keyed lookups of one stored relation in one query, it is
/// read in full once and indexed in memory; until then each lookup goes
/// through the storage value index (cheapest for point queries).
pub(super) const MATERIALIZE_AFTER: u32 = 64;

/// One stored relation a query reads (registered when the query is bound:
/// `physical.rs`).
pub(super) struct StoredReads {
    pub(super) name: String,
    pub(super) rel: RelationId,
    /// The relation's column types, to bring lookup keys to them.
    pub(super) types: Vec<ColumnType>,
    pub(super) lookups: u32,
    pub(super) materialized: Option<Materialized>,
}

impl Executor<'_> {
    /// Rows of stored relation `id` (an index into `Executor::stored`)
    /// live at the query's (valid, known) whose columns `cols` equal `key`.
    pub(super) fn scan_stored(&mut self, id: usize, cols: &[usize], key: &[Val]) -> Result<Source> {
        let reads = self
            .stored
            .get(id)
            .ok_or_else(|| Error::Internal("a stored relation the query did not bind".into()))?;
        let rel = reads.rel;
        let Some(key) = coerce_key(self.snapshot.store(), &reads.types, cols, key) else {
            return Ok(Source::Read(Vec::new()));
        };
        let key = key.as_ref();
        let reads = &mut self.stored[id];
        reads.lookups += 1;
        if reads.materialized.is_none() && (cols.is_empty() || reads.lookups > MATERIALIZE_AFTER) {
            let m = self.materialize(rel)?;
            self.stored[id].materialized = Some(m);
            self.check_memory()?;
        }
        if let Some(m) = self.stored[id].materialized.as_mut() {
            // A lookup by new columns groups a copy of the relation by
            // them: memory the budget counts.
            let grouped = m.relation.groupings();
            let run = m.relation.run(cols, key);
            if m.relation.groupings() > grouped {
                self.check_memory()?;
            }
            return Ok(Source::Stored(id, run));
        }
        Ok(Source::Read(self.read_storage(rel, cols, key)?))
    }

    /// Every row of a stored relation live at the query's instant, from the
    /// cache when the same rows were materialized before; read column by
    /// column (one typed pass each) into a columnar copy.
    pub(super) fn materialize(&mut self, rel: RelationId) -> Result<Materialized> {
        let store = self.snapshot.store();
        let live = self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known)
            .live_rows()?;
        if let Some(relation) = self.cache.take(rel, &live) {
            return Ok(Materialized {
                rel,
                live,
                relation,
            });
        }
        let arity = store.arity(rel)?;
        let all: Vec<usize> = (0..arity).collect();
        let columns: Vec<Column> = self
            .snapshot
            .gather(rel, &all, &live)?
            .into_iter()
            .map(Column::from_gathered)
            .collect();
        // Rows, as read: a purge during the read leaves its rows out.
        let len = columns.first().map_or(live.len() as usize, Column::len);
        let relation = Frozen::new(len as u32, columns);
        Ok(Materialized {
            rel,
            live,
            relation,
        })
    }

    /// Reads matching rows through the storage scan API.
    pub(super) fn read_storage(
        &mut self,
        rel: RelationId,
        cols: &[usize],
        key: &[Val],
    ) -> Result<Vec<Tuple>> {
        let store = self.snapshot.store();
        let mut scan = self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known);
        for (&c, v) in cols.iter().zip(key) {
            match v.to_value() {
                // A virtual symbol (unknown to the store) matches nothing.
                Some(Value::Sym(s)) if self.symbols.is_virtual(s.0) => return Ok(Vec::new()),
                Some(value) => scan = scan.eq(c, value),
                None => return Ok(Vec::new()),
            }
        }
        let mut out = Vec::new();
        let arity = store.arity(rel)?;
        scan.for_each(|row| {
            let t: Vec<Val> = (0..arity).map(|c| Val::from_ref(row.value(c))).collect();
            out.push(t.into_boxed_slice());
        })?;
        // Equality on unindexed columns and int/float coercions are
        // re-checked here.
        out.retain(|t| cols.iter().zip(key).all(|(&c, v)| t[c] == *v));
        Ok(out)
    }
}

/// A lookup key brought to the types of the columns it is compared with,
/// so that a lookup agrees with `=`: numbers compare numerically (`3.0`
/// finds the int `3`, `3` the float `3.0`, `3.5` no int), and a string
/// finds the symbol of that name and a symbol the string of its name.
/// `None` when no stored value can equal the key.
pub(super) fn coerce_key<'k>(
    store: &chronolog_storage::Store,
    types: &[ColumnType],
    cols: &[usize],
    key: &'k [Val],
) -> Option<std::borrow::Cow<'k, [Val]>> {
    let fits = |ty: ColumnType, v: &Val| {
        !matches!(
            (ty, v),
            (ColumnType::Int, Val::Float(_))
                | (ColumnType::Float, Val::Int(_))
                | (ColumnType::Sym, Val::Str(_))
                | (ColumnType::Str, Val::Sym(_))
        )
    };
    let ty_of = |c: usize| types.get(c).copied().unwrap_or(ColumnType::Int);
    if cols.iter().zip(key).all(|(&c, v)| fits(ty_of(c), v)) {
        return Some(std::borrow::Cow::Borrowed(key));
    }
    let mut owned = Vec::with_capacity(key.len());
    for (&c, v) in cols.iter().zip(key) {
        owned.push(match (ty_of(c), v) {
            (ColumnType::Int, Val::Float(x)) => {
                if x.fract() != 0.0 || !(-9.2e18..9.2e18).contains(x) {
                    return None;
                }
                Val::Int(*x as i64)
            }
            (ColumnType::Float, Val::Int(i)) => Val::Float(*i as f64),
            (ColumnType::Sym, Val::Str(s)) => Val::Sym(store.symbol(s)?.0),
            (ColumnType::Str, Val::Sym(s)) => Val::Str(
                store
                    .symbol_name(chronolog_storage::Symbol(*s))
                    .ok()?
                    .as_ref()
                    .into(),
            ),
            _ => v.clone(),
        });
    }
    Some(std::borrow::Cow::Owned(owned))
}
