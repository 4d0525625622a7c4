//! Read views: a snapshot fixes a transaction time; a scan selects rows of one
//! relation by a temporal selector and optional equality filters.
//!
//! A scan first computes the candidate rows as a bitmap — the validity index
//! for `as of (v, t)`, intersected with value-index bitmaps for bound columns
//! (or, when those are small, a direct check of each candidate's four time
//! bounds) — and only then reads rows, a chunk at a time, so the state lock is
//! never held across a whole query.

use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::error::{Error, Result};
use crate::relation::{Relation, RowId};
use crate::store::{RelationId, Store};
use crate::time::{Interval, Timestamp};
use crate::value::{Symbol, Value, ValueRef};

/// Rows read per acquisition of the state lock.
const CHUNK_ROWS: usize = 4096;

/// Below this many candidates from the value indexes, rows are checked
/// directly instead of building the validity bitmap.
const DIRECT_CHECK_MAX: u64 = 2048;

/// A consistent read view at one transaction time.
#[derive(Clone)]
pub struct Snapshot {
    store: Store,
    tx: i64,
    now: i64,
}

/// A point on both axes: the world as it was at `valid`, as the database
/// knew it at `known`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsOf {
    /// Valid time: when in the world.
    pub valid: Timestamp,
    /// Transaction time: as of which commit.
    pub known: Timestamp,
}

/// Which versions of rows a scan returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// Rows live at one point on both axes.
    AsOf(AsOf),
    /// Every row ever committed up to the snapshot, live or not.
    History,
}

/// One row version, owned.
#[derive(Clone, Debug, PartialEq)]
pub struct RowVersion {
    /// The row's id within its relation.
    pub id: RowId,
    /// Column values, in schema order.
    pub values: Vec<Value>,
    /// When the fact is true in the world.
    pub valid: Interval,
    /// When the database believed it; `to` is open if it still does as of the
    /// snapshot.
    pub tx: Interval,
    /// The row this one replaced, if any.
    pub supersedes: Option<RowId>,
    /// Where the fact came from, if recorded.
    pub provenance: Option<Symbol>,
}

impl Snapshot {
    pub(crate) fn new(store: Store, tx: i64, now: i64) -> Snapshot {
        Snapshot { store, tx, now }
    }

    /// The snapshot's transaction time: it sees exactly the commits up to here.
    pub fn tx(&self) -> Timestamp {
        Timestamp(self.tx)
    }

    /// "Now" on the valid axis for this snapshot.
    pub fn now(&self) -> Timestamp {
        Timestamp(self.now)
    }

    /// The default selector: valid now, known as of the snapshot.
    pub fn current(&self) -> AsOf {
        AsOf {
            valid: self.now(),
            known: self.tx(),
        }
    }

    /// The store this snapshot reads.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Starts a scan of `rel` (as of now by default).
    pub fn scan(&self, rel: RelationId) -> Scan<'_> {
        Scan {
            snapshot: self,
            rel,
            selector: Selector::AsOf(self.current()),
            filters: Vec::new(),
        }
    }
}

/// A scan being built: choose the selector and filters, then run it.
pub struct Scan<'s> {
    snapshot: &'s Snapshot,
    rel: RelationId,
    selector: Selector,
    filters: Vec<(usize, Value)>,
}

impl Scan<'_> {
    /// Selects rows valid at `valid` (keeps the transaction time).
    pub fn as_of(mut self, valid: Timestamp) -> Self {
        let known = match self.selector {
            Selector::AsOf(at) => at.known,
            Selector::History => self.snapshot.tx(),
        };
        self.selector = Selector::AsOf(AsOf { valid, known });
        self
    }

    /// Selects what was believed at transaction time `known` (keeps the valid
    /// time). Times after the snapshot are clamped to it.
    pub fn known_at(mut self, known: Timestamp) -> Self {
        let valid = match self.selector {
            Selector::AsOf(at) => at.valid,
            Selector::History => self.snapshot.now(),
        };
        self.selector = Selector::AsOf(AsOf { valid, known });
        self
    }

    /// Selects with an explicit selector.
    pub fn select(mut self, selector: Selector) -> Self {
        self.selector = selector;
        self
    }

    /// Every version, live or not.
    pub fn history(self) -> Self {
        self.select(Selector::History)
    }

    /// Keeps rows whose column `column` equals `value`.
    pub fn eq(mut self, column: usize, value: Value) -> Self {
        self.filters.push((column, value));
        self
    }

    /// Candidate rows: right on the temporal axes, right on the filters.
    pub fn bitmap(&self) -> Result<RoaringBitmap> {
        let state = self.snapshot.store.inner.state.read();
        let rel = state.relation(self.rel)?;
        self.candidates(rel)
    }

    fn candidates(&self, rel: &Relation) -> Result<RoaringBitmap> {
        let schema = &rel.schema;
        for (column, _) in &self.filters {
            if *column >= schema.arity() {
                return Err(Error::ArityMismatch {
                    relation: schema.name.clone(),
                    expected: schema.arity(),
                    got: column + 1,
                });
            }
        }
        let (valid, known) = match self.selector {
            Selector::AsOf(at) => (Some(at.valid.0), at.known.0.min(self.snapshot.tx)),
            Selector::History => (None, self.snapshot.tx),
        };
        let visible = rel.rows_at(known);
        let mut bound: Option<RoaringBitmap> = None;
        for (column, value) in &self.filters {
            if let Some(rows) = rel.rows_with(*column, value.as_ref()) {
                bound = Some(match bound {
                    None => rows.clone(),
                    Some(b) => b & rows,
                });
            }
        }
        if let Some(b) = &mut bound {
            b.remove_range(visible..);
        }
        let mut rows = match (valid, bound) {
            (None, Some(b)) => b,
            (None, None) => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..visible);
                all
            }
            (Some(v), Some(b)) if b.len() <= DIRECT_CHECK_MAX => {
                b.iter().filter(|&row| rel.is_live(row, v, known)).collect()
            }
            (Some(v), bound) => {
                let latest = known >= rel.last_write_tx;
                let live = rel.validity.live(v, known, visible, latest);
                match bound {
                    Some(b) => b & live.as_ref(),
                    None => Arc::unwrap_or_clone(live),
                }
            }
        };
        // Filters on columns without a value index (vectors) are checked here.
        for (column, value) in &self.filters {
            if rel.rows_with(*column, value.as_ref()).is_none() {
                rows = rows
                    .iter()
                    .filter(|&row| rel.value(row, *column) == value.as_ref())
                    .collect();
            }
        }
        Ok(rows)
    }

    /// Calls `f` on every selected row, in row-id order.
    pub fn for_each(&self, mut f: impl FnMut(&RowView<'_>)) -> Result<()> {
        let rows = {
            let state = self.snapshot.store.inner.state.read();
            self.candidates(state.relation(self.rel)?)?
        };
        let tx_clip = self.snapshot.tx;
        let mut iter = rows.iter().peekable();
        while iter.peek().is_some() {
            let state = self.snapshot.store.inner.state.read();
            let rel = state.relation(self.rel)?;
            for row in iter.by_ref().take(CHUNK_ROWS) {
                f(&RowView { rel, row, tx_clip });
            }
        }
        Ok(())
    }

    /// The selected rows, owned.
    pub fn collect(&self) -> Result<Vec<RowVersion>> {
        let mut out = Vec::new();
        self.for_each(|row| out.push(row.to_version()))?;
        Ok(out)
    }

    /// How many rows are selected.
    pub fn count(&self) -> Result<u64> {
        Ok(self.bitmap()?.len())
    }
}

/// A borrowed view of one row during a scan.
pub struct RowView<'a> {
    rel: &'a Relation,
    row: RowId,
    tx_clip: i64,
}

impl RowView<'_> {
    /// The row's id.
    pub fn id(&self) -> RowId {
        self.row
    }

    /// The value in column `column` (panics if out of range: columns come
    /// from the schema the caller resolved).
    pub fn value(&self, column: usize) -> ValueRef<'_> {
        self.rel.value(self.row, column)
    }

    /// All values, owned.
    pub fn values(&self) -> Vec<Value> {
        (0..self.rel.schema.arity())
            .map(|c| self.rel.value(self.row, c).to_owned())
            .collect()
    }

    /// The valid-time interval.
    pub fn valid(&self) -> Interval {
        self.rel.valid(self.row)
    }

    /// The transaction-time interval, as seen from the snapshot.
    pub fn tx(&self) -> Interval {
        let to = self.rel.tx_to(self.row);
        Interval {
            from: Timestamp(self.rel.tx_from(self.row)),
            to: Timestamp(if to > self.tx_clip { i64::MAX } else { to }),
        }
    }

    /// The row this one replaced.
    pub fn supersedes(&self) -> Option<RowId> {
        self.rel.supersedes(self.row)
    }

    /// Where the fact came from.
    pub fn provenance(&self) -> Option<Symbol> {
        self.rel.provenance(self.row)
    }

    /// Copies the row out.
    pub fn to_version(&self) -> RowVersion {
        RowVersion {
            id: self.row,
            values: self.values(),
            valid: self.valid(),
            tx: self.tx(),
            supersedes: self.supersedes(),
            provenance: self.provenance(),
        }
    }
}
