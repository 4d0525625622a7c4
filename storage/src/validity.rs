//! The validity index: which rows are live at (valid time `v`, transaction
//! time `t`), answered as a roaring bitmap.
//!
//! ```text
//!  live(v, t)  = believed(t) ∩ started(v) \ ended(v, t)
//!  believed(t) = rows[0 .. rows_at(t)) \ closed(t)     (tx_live when t is latest)
//!  started(v)  = rows with valid_from <= v                    (TimeIndex)
//!  ended(v, t) = rows with appended valid_to <= v             (TimeIndex)
//!              ∪ rows cut to a valid_to <= v at a tx <= t     (TimeIndex over cuts)
//!  closed(t)   = rows with tx_to <= t                         (TimeIndex)
//! ```
//!
//! Each term is a clone of a cumulative bitmap plus at most one stride of
//! entries, so no row that is not live is read. The one exception is a read
//! at a transaction time older than some cuts: the cuts made after it are
//! walked (newest rows first) to put back rows that were not yet cut then.
//!
//! "Now" has a fast path: a cached bitmap of the rows live at the latest
//! transaction time and a valid-time watermark, kept current by every write
//! and valid until the next valid-time event after the watermark (the
//! horizon).

use std::sync::Arc;

use parking_lot::Mutex;
use roaring::RoaringBitmap;

use crate::chunked::ChunkedVec;
use crate::relation::{CutTimes, Relation};
use crate::time_index::TimeIndex;

/// The relation's time columns, which the indexes read times from.
#[derive(Clone, Copy)]
pub(crate) struct Times<'a> {
    pub valid_from: &'a ChunkedVec<i64>,
    pub valid_to: &'a ChunkedVec<i64>,
    pub tx_to: &'a ChunkedVec<i64>,
    pub cuts: CutTimes<'a>,
}

#[derive(Debug, Default)]
pub(crate) struct Validity {
    /// Rows whose `tx_to` is still open.
    tx_live: RoaringBitmap,
    starts: TimeIndex,
    ends: TimeIndex,
    cut_ends: TimeIndex,
    closes: TimeIndex,
    now: Mutex<Option<NowCache>>,
}

/// Rows live at `(valid_at .. horizon, latest tx)`.
#[derive(Debug)]
struct NowCache {
    valid_at: i64,
    horizon: i64,
    rows: Arc<RoaringBitmap>,
}

impl Validity {
    /// Indexes `row`, whose bounds are already in the time columns.
    pub(crate) fn on_append(&mut self, row: u32, times: Times<'_>) {
        let valid_from = times.valid_from.get(row as usize);
        let valid_to = times.valid_to.get(row as usize);
        // `insert`, not `push`: roaring 0.10's push scans a bitmap container
        // for its maximum, and rows arrive densely.
        self.tx_live.insert(row);
        self.starts.insert(row, times.valid_from);
        if valid_to != i64::MAX {
            self.ends.insert(row, times.valid_to);
        }
        if let Some(cache) = self.now.get_mut() {
            if valid_from <= cache.valid_at && cache.valid_at < valid_to {
                Arc::make_mut(&mut cache.rows).insert(row);
            }
            if valid_from > cache.valid_at {
                cache.horizon = cache.horizon.min(valid_from);
            }
            if valid_to > cache.valid_at && valid_to != i64::MAX {
                cache.horizon = cache.horizon.min(valid_to);
            }
        }
    }

    /// Indexes cut `id` of `row`, which now ends at `valid_to`.
    pub(crate) fn on_cut(&mut self, id: u32, row: u32, valid_to: i64, times: Times<'_>) {
        self.cut_ends.insert(id, &times.cuts);
        if let Some(cache) = self.now.get_mut() {
            if valid_to <= cache.valid_at {
                if cache.rows.contains(row) {
                    Arc::make_mut(&mut cache.rows).remove(row);
                }
            } else {
                cache.horizon = cache.horizon.min(valid_to);
            }
        }
    }

    /// Records that `row` was withdrawn; its `tx_to` is already set.
    pub(crate) fn on_close(&mut self, row: u32, times: Times<'_>) {
        self.tx_live.remove(row);
        self.closes.insert(row, times.tx_to);
        if let Some(cache) = self.now.get_mut()
            && cache.rows.contains(row)
        {
            Arc::make_mut(&mut cache.rows).remove(row);
        }
    }

    /// Rows of `rel` live at `(valid, tx)`. `visible` is the relation's row
    /// count at `tx`, and `latest` says no commit after `tx` touched it.
    pub(crate) fn live(
        &self,
        rel: &Relation,
        valid: i64,
        tx: i64,
        visible: u32,
        latest: bool,
    ) -> Arc<RoaringBitmap> {
        if latest
            && let Some(cache) = self.now.lock().as_ref()
            && cache.valid_at <= valid
            && valid < cache.horizon
        {
            return Arc::clone(&cache.rows);
        }
        let times = rel.times();
        let mut rows = if latest {
            self.tx_live.clone()
        } else {
            let mut believed = RoaringBitmap::new();
            believed.insert_range(0..visible);
            believed -= self.closes.upto(tx, times.tx_to);
            believed
        };
        rows &= self.starts.upto(valid, times.valid_from);
        rows -= self.ends.upto(valid, times.valid_to);
        let mut cut = self.cut_ends.upto(valid, &times.cuts);
        if !latest {
            // Cuts made after `tx` were not believed at `tx`: put back rows
            // that were still running at `valid` then. A row's first cut needs
            // no look at the row: if its appended end was already <= `valid`,
            // `ends` removes it anyway.
            let mut put_back = Vec::new();
            for later in rel.cuts_after(tx) {
                if later.valid_to <= valid
                    && (later.prev == crate::relation::NONE
                        || rel.valid_to_at(later.row, tx) > valid)
                {
                    put_back.push(later.row);
                }
            }
            put_back.sort_unstable();
            put_back.dedup();
            cut -= RoaringBitmap::from_sorted_iter(put_back).unwrap_or_default();
        }
        rows -= cut;
        let rows = Arc::new(rows);
        if latest {
            let horizon = [
                self.starts.first_after(valid, times.valid_from),
                self.ends.first_after(valid, times.valid_to),
                self.cut_ends.first_after(valid, &times.cuts),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(i64::MAX);
            *self.now.lock() = Some(NowCache {
                valid_at: valid,
                horizon,
                rows: Arc::clone(&rows),
            });
        }
        rows
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let cache = self
            .now
            .lock()
            .as_ref()
            .map_or(0, |c| c.rows.serialized_size());
        self.tx_live.serialized_size()
            + self.starts.heap_bytes()
            + self.ends.heap_bytes()
            + self.cut_ends.heap_bytes()
            + self.closes.heap_bytes()
            + cache
    }
}
