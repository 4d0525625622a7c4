//! One bi-temporal relation in memory: its rows, columns and indexes.
//!
//! Rows are append-only and identified by a dense [`RowId`] in commit order,
//! so transaction-time starts are monotonic in the id: the rows a snapshot at
//! transaction time `t` can see are a prefix `0..rows_at(t)`. A row's values
//! and valid start never change. Two things can happen to it later, each
//! recorded with the transaction time at which it happened, so that every
//! earlier belief stays answerable:
//!
//! * it is **closed**: `tx_to` goes once from open to the withdrawing tx;
//! * it is **cut**: from tx `t` on, its valid interval ends earlier. Cuts are
//!   kept in a per-relation log, newest first per row, and only ever shorten.
//!
//! ```text
//!  valid ▲
//!  time  │            ┌───────────────── moonshot (row 1, supersedes row 0)
//!  2024-06 ────────── │
//!        │  tencent   │ tencent: row 0 as believed from t2, cut to 2024-06
//!  2021-03 ─ (row 0) ─┤ (as believed during [t1, t2): open-ended)
//!        └────────────┴──────────────────────────────▶ transaction time
//!                    t2: cut row 0 at 2024-06-01; append row 1
//! ```
//!
//! A functional replacement is thus one new row and one 24-byte cut, not a
//! closed row plus a re-appended remainder.

use crate::chunked::ChunkedVec;
use crate::column::Column;
use crate::log::NewRow;
use crate::schema::Schema;
use crate::time::{Interval, Timestamp};
use crate::time_index::EventTimes;
use crate::validity::{Times, Validity};
use crate::value::{Symbol, Value, ValueRef};
use crate::value_index::{Posting, ValueIndex};

/// A row's id within its relation: dense, starting at 0, in commit order.
pub type RowId = u32;

/// Marks "no row" / "no symbol" / "no cut" in the `u32` link columns.
pub(crate) const NONE: u32 = u32::MAX;

/// From transaction time `tx` on, `row`'s valid interval ends at `valid_to`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cut {
    pub row: u32,
    /// The row's previous cut, or [`NONE`].
    pub prev: u32,
    pub tx: i64,
    pub valid_to: i64,
}

/// The cut log as the truncation index sees it: entry ids are cut ids.
#[derive(Clone, Copy)]
pub(crate) struct CutTimes<'a>(pub &'a ChunkedVec<Cut>);

impl EventTimes for CutTimes<'_> {
    #[inline]
    fn time(&self, id: u32) -> i64 {
        self.0.get(id as usize).valid_to
    }
    #[inline]
    fn row(&self, id: u32) -> u32 {
        self.0.get(id as usize).row
    }
}

/// One version of a row: its valid end and transaction interval while that
/// valid end was believed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Version {
    pub valid_to: i64,
    pub tx_from: i64,
    pub tx_to: i64,
}

#[derive(Debug)]
pub(crate) struct Relation {
    pub(crate) schema: Schema,
    /// Slot columns: the key columns, or all columns.
    pub(crate) slot_columns: Vec<usize>,
    columns: Vec<Column>,
    valid_from: ChunkedVec<i64>,
    /// The valid end the row was appended with.
    valid_to: ChunkedVec<i64>,
    tx_to: ChunkedVec<i64>,
    supersedes: ChunkedVec<u32>,
    provenance: ChunkedVec<u32>,
    /// Per row: its newest cut, or [`NONE`].
    last_cut: ChunkedVec<u32>,
    /// Every cut, in transaction-time order.
    cuts: ChunkedVec<Cut>,
    /// `(tx, first row)` for each commit that appended rows, in tx order;
    /// a row's `tx_from` is the tx of the last commit starting at or before it.
    commits: Vec<(i64, u32)>,
    /// Per column: value -> rows holding it. `None` for vector columns.
    value_index: Vec<Option<ValueIndex>>,
    pub(crate) validity: Validity,
    /// Transaction time of the last commit that changed this relation.
    pub(crate) last_write_tx: i64,
    /// Rows erased by a purge: redacted, and invisible to every read.
    purged: roaring::RoaringBitmap,
}

impl Relation {
    pub(crate) fn new(schema: Schema) -> Relation {
        let columns = schema.columns.iter().map(|c| Column::new(c.ty)).collect();
        let value_index = schema
            .columns
            .iter()
            .map(|c| (!matches!(c.ty, crate::ColumnType::Vector(_))).then(ValueIndex::default))
            .collect();
        Relation {
            slot_columns: schema.slot_columns(),
            schema,
            columns,
            valid_from: ChunkedVec::default(),
            valid_to: ChunkedVec::default(),
            tx_to: ChunkedVec::default(),
            supersedes: ChunkedVec::default(),
            provenance: ChunkedVec::default(),
            last_cut: ChunkedVec::default(),
            cuts: ChunkedVec::default(),
            commits: Vec::new(),
            value_index,
            validity: Validity::default(),
            last_write_tx: i64::MIN,
            purged: roaring::RoaringBitmap::new(),
        }
    }

    /// Number of rows ever appended.
    pub(crate) fn len(&self) -> u32 {
        self.valid_from.len() as u32
    }

    /// Rows visible to a snapshot at transaction time `tx`: `0..rows_at(tx)`.
    pub(crate) fn rows_at(&self, tx: i64) -> u32 {
        let c = self.commits.partition_point(|&(t, _)| t <= tx);
        match self.commits.get(c) {
            Some(&(_, first)) => first,
            None => self.len(),
        }
    }

    pub(crate) fn tx_from(&self, row: RowId) -> i64 {
        let c = self.commits.partition_point(|&(_, first)| first <= row);
        self.commits[c - 1].0
    }

    #[inline]
    pub(crate) fn tx_to(&self, row: RowId) -> i64 {
        self.tx_to.get(row as usize)
    }

    pub(crate) fn times(&self) -> Times<'_> {
        Times {
            valid_from: &self.valid_from,
            valid_to: &self.valid_to,
            tx_to: &self.tx_to,
            cuts: CutTimes(&self.cuts),
        }
    }

    /// The row's valid end as believed at transaction time `known`.
    #[inline]
    pub(crate) fn valid_to_at(&self, row: RowId, known: i64) -> i64 {
        let mut cut = self.last_cut.get(row as usize);
        while cut != NONE {
            let c = self.cuts.get(cut as usize);
            if c.tx <= known {
                return c.valid_to;
            }
            cut = c.prev;
        }
        self.valid_to.get(row as usize)
    }

    /// The row's current valid interval (as of the latest commit).
    pub(crate) fn valid(&self, row: RowId) -> Interval {
        self.valid_at(row, i64::MAX)
    }

    /// The row's valid interval as believed at transaction time `known`.
    pub(crate) fn valid_at(&self, row: RowId, known: i64) -> Interval {
        Interval {
            from: Timestamp(self.valid_from.get(row as usize)),
            to: Timestamp(self.valid_to_at(row, known)),
        }
    }

    /// Every version of the row, oldest first: one per cut, plus the
    /// original. Transaction intervals are as stored (not clipped).
    pub(crate) fn versions(&self, row: RowId) -> Vec<Version> {
        let mut versions = Vec::new();
        let mut tx_to = self.tx_to(row);
        let mut cut = self.last_cut.get(row as usize);
        while cut != NONE {
            let c = self.cuts.get(cut as usize);
            versions.push(Version {
                valid_to: c.valid_to,
                tx_from: c.tx,
                tx_to,
            });
            tx_to = c.tx;
            cut = c.prev;
        }
        versions.push(Version {
            valid_to: self.valid_to.get(row as usize),
            tx_from: self.tx_from(row),
            tx_to,
        });
        versions.reverse();
        versions
    }

    /// The version of the row believed at `known` (which must lie in the
    /// row's transaction interval).
    pub(crate) fn version_at(&self, row: RowId, known: i64) -> Version {
        let mut tx_to = self.tx_to(row);
        let mut cut = self.last_cut.get(row as usize);
        while cut != NONE {
            let c = self.cuts.get(cut as usize);
            if c.tx <= known {
                return Version {
                    valid_to: c.valid_to,
                    tx_from: c.tx,
                    tx_to,
                };
            }
            tx_to = c.tx;
            cut = c.prev;
        }
        Version {
            valid_to: self.valid_to.get(row as usize),
            tx_from: self.tx_from(row),
            tx_to,
        }
    }

    #[inline]
    /// The vector arena of column `column`, if it is a vector column.
    pub(crate) fn vectors(&self, column: usize) -> Option<&crate::vectors::VectorArena> {
        self.columns.get(column)?.vectors()
    }

    pub(crate) fn column(&self, column: usize) -> Option<&Column> {
        self.columns.get(column)
    }

    pub(crate) fn value(&self, row: RowId, column: usize) -> ValueRef<'_> {
        self.columns[column].get(row)
    }

    pub(crate) fn supersedes(&self, row: RowId) -> Option<RowId> {
        let s = self.supersedes.get(row as usize);
        (s != NONE).then_some(s)
    }

    pub(crate) fn provenance(&self, row: RowId) -> Option<Symbol> {
        let p = self.provenance.get(row as usize);
        (p != NONE).then_some(Symbol(p))
    }

    /// Whether `row` (already known to be `< rows_at(tx)`) is live at
    /// valid time `valid` and transaction time `tx`.
    #[inline]
    pub(crate) fn is_live(&self, row: RowId, valid: i64, tx: i64) -> bool {
        let r = row as usize;
        self.valid_from.get(r) <= valid
            && tx < self.tx_to.get(r)
            && valid < self.valid_to_at(row, tx)
    }

    /// Whether a purge erased the row.
    #[inline]
    pub(crate) fn is_purged(&self, row: RowId) -> bool {
        !self.purged.is_empty() && self.purged.contains(row)
    }

    /// Rows erased by purges.
    pub(crate) fn purged(&self) -> &roaring::RoaringBitmap {
        &self.purged
    }

    /// Rows (not yet purged) holding `sym` in any symbol column.
    pub(crate) fn rows_holding(&self, sym: Symbol) -> Vec<RowId> {
        let mut rows = roaring::RoaringBitmap::new();
        for (c, col) in self.schema.columns.iter().enumerate() {
            if col.ty == crate::ColumnType::Sym
                && let Some(posting) = self.rows_with(c, ValueRef::Sym(sym))
            {
                posting.for_each(|row| {
                    rows.insert(row);
                });
            }
        }
        rows -= &self.purged;
        rows.iter().collect()
    }

    /// Erases a row's contents (the right to be forgotten): its values are
    /// zeroed and it disappears from every read, history included.
    pub(crate) fn purge(&mut self, row: RowId) {
        if row < self.len() && self.purged.insert(row) {
            for column in &mut self.columns {
                column.redact(row);
            }
        }
    }

    /// Cuts made after transaction time `tx`, oldest first.
    pub(crate) fn cuts_after(&self, tx: i64) -> impl Iterator<Item = Cut> + '_ {
        let (mut lo, mut hi) = (0, self.cuts.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.cuts.get(mid).tx <= tx {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.cuts.len()).map(|i| self.cuts.get(i))
    }

    /// Rows holding `value` in `column`, at any time. `None` when the column
    /// is not indexed (vectors) or does not exist.
    pub(crate) fn rows_with(&self, column: usize, value: ValueRef<'_>) -> Option<Posting<'_>> {
        Some(self.value_index.get(column)?.as_ref()?.get(value))
    }

    /// Currently believed rows of the slot that `values` belongs to: walk the
    /// smallest posting among the slot columns and keep the rows whose
    /// transaction interval is open and whose other slot values match.
    pub(crate) fn live_slot_rows(&self, values: &[Value], out: &mut Vec<RowId>) {
        self.slot_rows(values, true, out);
    }

    /// Rows of the slot that `values` belongs to, believed now or (unless
    /// `live_only`) at any earlier transaction time; purged rows are gone.
    pub(crate) fn slot_rows(&self, values: &[Value], live_only: bool, out: &mut Vec<RowId>) {
        let smallest = self
            .slot_columns
            .iter()
            .filter_map(|&c| Some((c, self.rows_with(c, values[c].as_ref())?)))
            .min_by_key(|(_, posting)| posting.len());
        let mut keep = |row: RowId, skip: usize| {
            if (!live_only || self.tx_to.get(row as usize) == i64::MAX)
                && !self.is_purged(row)
                && self
                    .slot_columns
                    .iter()
                    .all(|&c| c == skip || self.value(row, c) == values[c].as_ref())
            {
                out.push(row);
            }
        };
        match smallest {
            // Rows of a posting hold its value: that column needs no check.
            Some((column, posting)) => posting.for_each(|row| keep(row, column)),
            None => (0..self.len()).for_each(|row| keep(row, usize::MAX)),
        }
    }

    /// Whether a row of the slot of `values` (so already equal on the slot
    /// columns) holds exactly `values`.
    pub(crate) fn slot_row_equals(&self, row: RowId, values: &[Value]) -> bool {
        (0..values.len())
            .filter(|c| !self.slot_columns.contains(c))
            .all(|c| self.value(row, c) == values[c].as_ref())
    }

    /// Appends the rows of one commit at transaction time `tx`.
    pub(crate) fn append(&mut self, tx: i64, rows: &[NewRow]) {
        if rows.is_empty() {
            return;
        }
        self.commits.push((tx, self.len()));
        for new in rows {
            let row = self.len();
            for (c, value) in new.values.iter().enumerate() {
                let value = value.as_ref();
                self.columns[c].push(row, value);
                if let Some(index) = &mut self.value_index[c] {
                    index.insert(row, value);
                }
            }
            self.valid_from.push(new.valid_from);
            self.valid_to.push(new.valid_to);
            self.tx_to.push(i64::MAX);
            self.supersedes.push(new.supersedes);
            self.provenance.push(new.provenance);
            self.last_cut.push(NONE);
            let times = Times {
                valid_from: &self.valid_from,
                valid_to: &self.valid_to,
                tx_to: &self.tx_to,
                cuts: CutTimes(&self.cuts),
            };
            self.validity.on_append(row, times);
        }
        self.last_write_tx = tx;
    }

    /// Ends `row`'s valid interval at `valid_to` from transaction time `tx`
    /// on. The caller guarantees the row is open and the cut shortens it to
    /// a non-empty interval.
    pub(crate) fn cut(&mut self, tx: i64, row: RowId, valid_to: i64) {
        debug_assert!(valid_to < self.valid_to_at(row, i64::MAX));
        let id = self.cuts.len() as u32;
        self.cuts.push(Cut {
            row,
            prev: self.last_cut.get(row as usize),
            tx,
            valid_to,
        });
        self.last_cut.set(row as usize, id);
        let times = Times {
            valid_from: &self.valid_from,
            valid_to: &self.valid_to,
            tx_to: &self.tx_to,
            cuts: CutTimes(&self.cuts),
        };
        self.validity.on_cut(id, row, valid_to, times);
        self.last_write_tx = tx;
    }

    /// Withdraws `row` at transaction time `tx`. The caller guarantees the
    /// row exists and is still open.
    pub(crate) fn close(&mut self, tx: i64, row: RowId) {
        debug_assert_eq!(self.tx_to.get(row as usize), i64::MAX);
        self.tx_to.set(row as usize, tx);
        let times = Times {
            valid_from: &self.valid_from,
            valid_to: &self.valid_to,
            tx_to: &self.tx_to,
            cuts: CutTimes(&self.cuts),
        };
        self.validity.on_close(row, times);
        self.last_write_tx = tx;
    }

    /// Heap bytes held by rows and indexes (an estimate from capacities).
    pub(crate) fn heap_bytes(&self) -> usize {
        let rows = self.columns.iter().map(Column::heap_bytes).sum::<usize>()
            + self.valid_from.heap_bytes()
            + self.valid_to.heap_bytes()
            + self.tx_to.heap_bytes()
            + self.supersedes.heap_bytes()
            + self.provenance.heap_bytes()
            + self.last_cut.heap_bytes()
            + self.cuts.heap_bytes()
            + self.commits.capacity() * 16;
        let indexes: usize = self
            .value_index
            .iter()
            .flatten()
            .map(ValueIndex::heap_bytes)
            .sum();
        rows + indexes + self.validity.heap_bytes()
    }
}
