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
use smallvec::SmallVec;

use crate::column::Gathered;
use crate::error::{Error, Result};
use crate::relation::{Relation, RowId, Version};
use crate::store::{RelationId, Store};
use crate::time::{Interval, Timestamp};
use crate::value::{Symbol, Value, ValueRef};
use crate::value_index::Posting;
use crate::vectors::VectorBlock;

/// Rows read per acquisition of the state lock.
const CHUNK_ROWS: usize = 4096;

/// Rows per block of a vector scan (6 MB of 384-float vectors).
const VECTOR_BLOCK_ROWS: usize = 4096;

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

    /// Calls `f` on rows `rows` of the vector column `column` of `rel`,
    /// block by block (every row, live or not: the caller filters with a
    /// live bitmap from [`Scan::bitmap`]). The read lock is taken per block,
    /// so a long scan lets writers in between blocks; rows appended
    /// meanwhile are outside any bitmap taken before them.
    pub fn vector_blocks(
        &self,
        rel: RelationId,
        column: usize,
        rows: std::ops::Range<u32>,
        mut f: impl FnMut(VectorBlock<'_>),
    ) -> Result<()> {
        let mut start = rows.start as usize;
        loop {
            let state = self.store.inner.state.read();
            let arena = vector_arena(state.relation(rel)?, column)?;
            let end = (rows.end as usize).min(arena.len());
            if start >= end {
                return Ok(());
            }
            let stop = (start + VECTOR_BLOCK_ROWS).min(end);
            f(arena.block(start..stop));
            start = stop;
        }
    }

    /// Calls `f` on a one-row block for each row in `rows` (ids past the
    /// end are skipped), under one read lock: for re-scoring a few
    /// candidates.
    pub fn vector_rows(
        &self,
        rel: RelationId,
        column: usize,
        rows: &[u32],
        mut f: impl FnMut(VectorBlock<'_>),
    ) -> Result<()> {
        let state = self.store.inner.state.read();
        let arena = vector_arena(state.relation(rel)?, column)?;
        for &row in rows {
            if (row as usize) < arena.len() {
                f(arena.block(row as usize..row as usize + 1));
            }
        }
        Ok(())
    }

    /// The values of columns `columns` of `rel` at `rows` (typically a
    /// scan's [`Scan::live_rows`]), in row-id order, one [`Gathered`] per
    /// column: as bits when the column is a bool, int, symbol or time
    /// column with no null among them. For callers that copy a whole
    /// relation (the engine, for a join): the bitmap is walked once (not at
    /// all when its ids are contiguous) and each column read in one typed
    /// pass instead of matching every value. The read lock is taken per
    /// 4,096 rows, as in [`Scan::for_each`]; a row purged meanwhile is left
    /// out of every column.
    pub fn gather(
        &self,
        rel: RelationId,
        columns: &[usize],
        rows: &RoaringBitmap,
    ) -> Result<Vec<Gathered>> {
        let mut out = {
            let state = self.store.inner.state.read();
            let relation = state.relation(rel)?;
            if let Some(last) = rows.max()
                && last >= relation.len()
            {
                return Err(Error::RowOutOfRange {
                    relation: relation.schema.name.clone(),
                    row: last,
                    len: relation.len(),
                });
            }
            let n = rows.len() as usize;
            columns
                .iter()
                .map(|&c| match relation.column(c) {
                    Some(col) if col.scalar_for(rows) => Ok(Gathered::Scalars(
                        relation.schema.columns[c].ty,
                        Vec::with_capacity(n),
                    )),
                    Some(_) => Ok(Gathered::Values(Vec::with_capacity(n))),
                    None => Err(Error::ArityMismatch {
                        relation: relation.schema.name.clone(),
                        expected: relation.schema.arity(),
                        got: c + 1,
                    }),
                })
                .collect::<Result<Vec<Gathered>>>()?
        };
        // With nothing retracted in between, live ids are one range.
        let bounds = match (rows.min(), rows.max()) {
            (Some(lo), Some(hi)) if u64::from(hi - lo) + 1 == rows.len() => Some((lo, hi)),
            _ => None,
        };
        let mut next = bounds.map(|(lo, _)| lo);
        let mut walk = rows.iter();
        let mut ids: Vec<u32> = Vec::with_capacity(CHUNK_ROWS);
        loop {
            ids.clear();
            match (bounds, next) {
                (Some((_, hi)), Some(from)) => {
                    let to = hi.min(from.saturating_add(CHUNK_ROWS as u32 - 1));
                    ids.extend(from..=to);
                    next = to.checked_add(1).filter(|&n| n <= hi);
                }
                (Some(_), None) => {}
                (None, _) => ids.extend(walk.by_ref().take(CHUNK_ROWS)),
            }
            if ids.is_empty() {
                break;
            }
            let state = self.store.inner.state.read();
            let relation = state.relation(rel)?;
            // A row purged since `rows` was taken is gone from every read.
            ids.retain(|&row| !relation.is_purged(row));
            for (&c, o) in columns.iter().zip(out.iter_mut()) {
                if let Some(col) = relation.column(c) {
                    col.gather(ids.iter().copied(), o);
                }
            }
        }
        Ok(out)
    }

    /// Row `row` of `relation` as this snapshot's transaction time sees it.
    fn latest_view<'r>(&self, relation: &'r Relation, row: RowId) -> RowView<'r> {
        RowView {
            rel: relation,
            row,
            known: self.tx,
            tx_clip: self.tx,
            version: None,
        }
    }

    /// Calls `f` on each of `rows` (ids past the end, or purged, are
    /// skipped), as seen by this snapshot, under one read lock: for turning
    /// the row ids a search found into values.
    pub fn read_rows(
        &self,
        rel: RelationId,
        rows: &[RowId],
        mut f: impl FnMut(&RowView<'_>),
    ) -> Result<()> {
        let state = self.store.inner.state.read();
        let relation = state.relation(rel)?;
        for &row in rows {
            if row < relation.len() && !relation.purged().contains(row) {
                f(&self.latest_view(relation, row));
            }
        }
        Ok(())
    }

    /// The rows of `rel` erased by a purge: indexes kept beside the store
    /// erase their copies of these rows too.
    pub fn purged(&self, rel: RelationId) -> Result<RoaringBitmap> {
        Ok(self
            .store
            .inner
            .state
            .read()
            .relation(rel)?
            .purged()
            .clone())
    }

    /// Calls `f` on every row of `rel` from row id `from` on, in id order,
    /// whatever its validity: for indexes kept beside the store (text,
    /// embeddings) that map row ids to documents and filter by a snapshot's
    /// bitmap at query time. Returns the id one past the last row visited.
    pub fn rows_from(
        &self,
        rel: RelationId,
        from: RowId,
        mut f: impl FnMut(&RowView<'_>),
    ) -> Result<RowId> {
        let mut row = from;
        loop {
            let state = self.store.inner.state.read();
            let relation = state.relation(rel)?;
            let end = relation.len().min(row.saturating_add(CHUNK_ROWS as u32));
            if row >= end {
                return Ok(row);
            }
            while row < end {
                if !relation.purged().contains(row) {
                    f(&self.latest_view(relation, row));
                }
                row += 1;
            }
        }
    }

    /// Starts a scan of `rel` (as of now by default).
    pub fn scan(&self, rel: RelationId) -> Scan<'_> {
        Scan {
            snapshot: self,
            rel,
            selector: Selector::AsOf(self.current()),
            filters: SmallVec::new(),
        }
    }
}

fn vector_arena(relation: &Relation, column: usize) -> Result<&crate::vectors::VectorArena> {
    relation
        .vectors(column)
        .ok_or_else(|| Error::NotVectorColumn {
            relation: relation.schema.name.clone(),
            column,
        })
}

/// A scan being built: choose the selector and filters, then run it.
pub struct Scan<'s> {
    snapshot: &'s Snapshot,
    rel: RelationId,
    selector: Selector,
    filters: SmallVec<[(usize, Value); 2]>,
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

    /// The selected rows as a bitmap of row ids.
    pub fn bitmap(&self) -> Result<RoaringBitmap> {
        let state = self.snapshot.store.inner.state.read();
        Ok(match self.candidates(state.relation(self.rel)?)? {
            Candidates::Few(rows) => RoaringBitmap::from_sorted_iter(rows).unwrap_or_default(),
            Candidates::Many(rows) => rows,
        })
    }

    /// The selected rows, shared rather than copied: for an unfiltered
    /// as-of scan of the latest state this is the validity index's cached
    /// bitmap itself, so callers that key caches on the live rows can
    /// compare pointers before contents.
    pub fn live_rows(&self) -> Result<Arc<RoaringBitmap>> {
        let Selector::AsOf(at) = self.selector else {
            return Ok(Arc::new(self.bitmap()?));
        };
        if !self.filters.is_empty() {
            return Ok(Arc::new(self.bitmap()?));
        }
        let state = self.snapshot.store.inner.state.read();
        let rel = state.relation(self.rel)?;
        let known = at.known.0.min(self.snapshot.tx);
        let latest = known >= rel.last_write_tx;
        let rows = rel
            .validity
            .live(rel, at.valid.0, known, rel.rows_at(known), latest);
        if rel.purged().is_empty() {
            Ok(rows)
        } else {
            let mut rows = Arc::unwrap_or_clone(rows);
            rows -= rel.purged();
            Ok(Arc::new(rows))
        }
    }

    /// Rows right on the temporal axes and on the filters. A small posting
    /// (a bound key) is walked and each row's bounds checked directly; anything
    /// larger goes through the validity bitmap and bitmap intersections.
    fn candidates(&self, rel: &Relation) -> Result<Candidates> {
        let schema = &rel.schema;
        if let Some((column, _)) = self.filters.iter().find(|(c, _)| *c >= schema.arity()) {
            return Err(Error::ArityMismatch {
                relation: schema.name.clone(),
                expected: schema.arity(),
                got: column + 1,
            });
        }
        let (valid, known) = match self.selector {
            Selector::AsOf(at) => (Some(at.valid.0), at.known.0.min(self.snapshot.tx)),
            Selector::History => (None, self.snapshot.tx),
        };
        let visible = rel.rows_at(known);
        let matches = |row: RowId| {
            self.filters
                .iter()
                .all(|(c, v)| rel.value(row, *c) == v.as_ref())
        };
        // Rows of a posting hold its value already; only the other filters
        // need a look at the row.
        let single_indexed = self.filters.len() == 1
            && rel
                .rows_with(self.filters[0].0, self.filters[0].1.as_ref())
                .is_some();
        let postings = || {
            self.filters
                .iter()
                .filter_map(|(c, v)| rel.rows_with(*c, v.as_ref()))
        };
        if let Some(smallest) = postings().min_by_key(|p| p.len())
            && smallest.len() <= DIRECT_CHECK_MAX
        {
            let mut rows = SmallVec::new();
            smallest.for_each(|row| {
                let keep = row < visible
                    && !rel.is_purged(row)
                    && valid.is_none_or(|v| rel.is_live(row, v, known))
                    && (single_indexed || matches(row));
                if keep {
                    rows.push(row);
                }
            });
            // Postings are ascending, so `rows` already is.
            return Ok(Candidates::Few(rows));
        }
        let mut rows = match valid {
            Some(v) => {
                let latest = known >= rel.last_write_tx;
                Arc::unwrap_or_clone(rel.validity.live(rel, v, known, visible, latest))
            }
            None => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..visible);
                all
            }
        };
        if !rel.purged().is_empty() {
            rows -= rel.purged();
        }
        for posting in postings() {
            match posting {
                Posting::Bitmap(b) => rows &= b,
                other => rows &= other.to_bitmap(),
            }
        }
        if !self.filters.is_empty() && !rows.is_empty() {
            // Filters on unindexed columns (vectors) are checked row by row.
            rows = rows.iter().filter(|&row| matches(row)).collect();
        }
        Ok(Candidates::Many(rows))
    }

    /// Calls `f` on every selected row, in row-id order. For a history scan,
    /// a row whose valid interval was cut appears once per version.
    pub fn for_each(&self, mut f: impl FnMut(&RowView<'_>)) -> Result<()> {
        let tx_clip = self.snapshot.tx;
        let known = match self.selector {
            Selector::AsOf(at) => Some(at.known.0.min(tx_clip)),
            Selector::History => None,
        };
        let mut emit = |rel: &Relation, row: RowId| match known {
            Some(known) => f(&RowView {
                rel,
                row,
                known,
                tx_clip,
                version: None,
            }),
            None => {
                for version in rel.versions(row) {
                    if version.tx_from <= tx_clip {
                        f(&RowView {
                            rel,
                            row,
                            known: version.tx_from,
                            tx_clip,
                            version: Some(version),
                        });
                    }
                }
            }
        };
        let rows = {
            let state = self.snapshot.store.inner.state.read();
            let rel = state.relation(self.rel)?;
            match self.candidates(rel)? {
                Candidates::Few(rows) => {
                    for row in rows {
                        emit(rel, row);
                    }
                    return Ok(());
                }
                Candidates::Many(rows) => rows,
            }
        };
        let mut iter = rows.iter().peekable();
        while iter.peek().is_some() {
            let state = self.snapshot.store.inner.state.read();
            let rel = state.relation(self.rel)?;
            for row in iter.by_ref().take(CHUNK_ROWS) {
                emit(rel, row);
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

    /// How many rows (for a history scan: row versions) are selected.
    pub fn count(&self) -> Result<u64> {
        if self.selector == Selector::History {
            let mut n = 0;
            self.for_each(|_| n += 1)?;
            return Ok(n);
        }
        let state = self.snapshot.store.inner.state.read();
        Ok(match self.candidates(state.relation(self.rel)?)? {
            Candidates::Few(rows) => rows.len() as u64,
            Candidates::Many(rows) => rows.len(),
        })
    }
}

/// A scan's selected rows: few (a bound key), or a bitmap.
enum Candidates {
    /// Sorted row ids.
    Few(SmallVec<[RowId; 16]>),
    Many(RoaringBitmap),
}

/// A borrowed view of one row (one version of it, in a history scan).
pub struct RowView<'a> {
    rel: &'a Relation,
    row: RowId,
    /// The transaction time the row is seen at.
    known: i64,
    tx_clip: i64,
    /// Set for history scans; as-of scans derive it when asked.
    version: Option<Version>,
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

    fn version(&self) -> Version {
        self.version
            .unwrap_or_else(|| self.rel.version_at(self.row, self.known))
    }

    /// The valid-time interval (as believed at the scan's transaction time).
    pub fn valid(&self) -> Interval {
        match self.version {
            Some(v) => Interval {
                from: self.rel.valid(self.row).from,
                to: Timestamp(v.valid_to),
            },
            None => self.rel.valid_at(self.row, self.known),
        }
    }

    /// The transaction-time interval during which this version was believed,
    /// as seen from the snapshot (`to` is open if it still is).
    pub fn tx(&self) -> Interval {
        let v = self.version();
        Interval {
            from: Timestamp(v.tx_from),
            to: Timestamp(if v.tx_to > self.tx_clip {
                i64::MAX
            } else {
                v.tx_to
            }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ColumnDef, Schema};
    use crate::value::ColumnType;

    #[test]
    fn gather_reads_live_rows_column_by_column() -> Result<()> {
        let store = Store::in_memory();
        let rel = store.create_relation(Schema::new(
            "r",
            vec![
                ColumnDef::new("id", ColumnType::Int).key(),
                ColumnDef::new("who", ColumnType::Sym),
                ColumnDef::new("note", ColumnType::Str).nullable(),
                ColumnDef::new("at", ColumnType::Time).nullable(),
            ],
        ))?;
        let mut txn = store.begin();
        let bob = txn.symbol("bob")?;
        let from = Interval::starting(Timestamp(0));
        for (id, note, at) in [
            (-1i64, Some("x"), Some(5)),
            (2, None, Some(7)),
            (3, Some("z"), None),
        ] {
            let values = vec![
                Value::Int(id),
                Value::Sym(bob),
                note.map_or(Value::Null, |n| Value::Str(n.into())),
                at.map_or(Value::Null, |t| Value::Time(Timestamp(t))),
            ];
            txn.assert(rel, values, from, None)?;
        }
        txn.commit()?;
        let snap = store.snapshot();
        let all = snap.scan(rel).live_rows()?;
        assert_eq!(
            snap.gather(rel, &[0], &all)?[0],
            Gathered::Scalars(ColumnType::Int, vec![-1i64 as u64, 2, 3])
        );
        assert_eq!(
            snap.gather(rel, &[0, 1], &all)?[1],
            Gathered::Scalars(ColumnType::Sym, vec![u64::from(bob.0); 3])
        );
        assert_eq!(
            snap.gather(rel, &[2], &all)?[0],
            Gathered::Values(vec![
                Value::Str("x".into()),
                Value::Null,
                Value::Str("z".into())
            ])
        );
        // A null among the rows makes the column values; without it, bits.
        assert!(matches!(
            snap.gather(rel, &[3], &all)?[0],
            Gathered::Values(_)
        ));
        let ends: RoaringBitmap = [0u32, 2].into_iter().collect();
        assert_eq!(
            snap.gather(rel, &[0, 2], &ends)?,
            vec![
                Gathered::Scalars(ColumnType::Int, vec![-1i64 as u64, 3]),
                Gathered::Values(vec![Value::Str("x".into()), Value::Str("z".into())]),
            ]
        );
        let first_two: RoaringBitmap = [0u32, 1].into_iter().collect();
        assert_eq!(
            snap.gather(rel, &[3], &first_two)?[0],
            Gathered::Scalars(ColumnType::Time, vec![5, 7])
        );
        // Bad column or row: an error, not a panic.
        assert!(matches!(
            snap.gather(rel, &[0, 4], &all),
            Err(Error::ArityMismatch { .. })
        ));
        let past: RoaringBitmap = [9u32].into_iter().collect();
        assert!(matches!(
            snap.gather(rel, &[0], &past),
            Err(Error::RowOutOfRange { row: 9, .. })
        ));
        Ok(())
    }
}
