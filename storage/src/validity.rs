//! The validity index: which rows are live at (valid time `v`, transaction
//! time `t`), answered as a roaring bitmap.
//!
//! ```text
//!  live(v, t) = believed(t) ∩ started(v) \ ended(v)
//!  believed(t) = rows[0 .. rows_at(t)) \ closed(t)      (tx_live when t is latest)
//!  started(v)  = rows with valid_from <= v             (TimeIndex)
//!  ended(v)    = rows with valid_to   <= v             (TimeIndex, finite ends only)
//!  closed(t)   = rows with tx_to      <= t             (TimeIndex)
//! ```
//!
//! Each term is a clone of a cumulative bitmap plus at most one segment of
//! entries, so no row that is not live is ever read. "Now" has a fast path:
//! a cached bitmap of the rows live at the latest transaction time and a
//! valid-time watermark, kept current by every write and valid until the
//! next valid-time event after the watermark (the horizon).

use std::sync::Arc;

use parking_lot::Mutex;
use roaring::RoaringBitmap;

use crate::chunked::ChunkedVec;
use crate::time_index::TimeIndex;

/// The relation's three time columns, which the indexes read times from.
#[derive(Clone, Copy)]
pub(crate) struct Times<'a> {
    pub valid_from: &'a ChunkedVec<i64>,
    pub valid_to: &'a ChunkedVec<i64>,
    pub tx_to: &'a ChunkedVec<i64>,
}

#[derive(Debug, Default)]
pub(crate) struct Validity {
    /// Rows whose `tx_to` is still open.
    tx_live: RoaringBitmap,
    starts: TimeIndex,
    ends: TimeIndex,
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

    /// Records that `row` was withdrawn; its `tx_to` is already set.
    pub(crate) fn on_close(&mut self, row: u32, times: Times<'_>) {
        self.tx_live.remove(row);
        self.closes.insert(row, times.tx_to);
        if let Some(cache) = self.now.get_mut() {
            if cache.rows.contains(row) {
                Arc::make_mut(&mut cache.rows).remove(row);
            }
        }
    }

    /// Rows live at `(valid, tx)`. `visible` is the relation's row count at
    /// `tx`, and `latest` says no commit after `tx` touched the relation.
    pub(crate) fn live(
        &self,
        valid: i64,
        tx: i64,
        visible: u32,
        latest: bool,
        times: Times<'_>,
    ) -> Arc<RoaringBitmap> {
        if latest {
            if let Some(cache) = self.now.lock().as_ref() {
                if cache.valid_at <= valid && valid < cache.horizon {
                    return Arc::clone(&cache.rows);
                }
            }
        }
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
        let rows = Arc::new(rows);
        if latest {
            let horizon = [
                self.starts.first_after(valid, times.valid_from),
                self.ends.first_after(valid, times.valid_to),
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
        if std::env::var_os("CHRONOLOG_HEAP_DEBUG").is_some() {
            eprintln!(
                "validity: tx_live {} starts {} ends {} closes {} cache {}",
                self.tx_live.serialized_size(),
                self.starts.heap_bytes(),
                self.ends.heap_bytes(),
                self.closes.heap_bytes(),
                cache
            );
        }
        self.tx_live.serialized_size()
            + self.starts.heap_bytes()
            + self.ends.heap_bytes()
            + self.closes.heap_bytes()
            + cache
    }
}
