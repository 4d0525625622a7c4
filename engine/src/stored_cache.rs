//! Stored relations materialized by earlier queries, kept for the next.
//!
//! A join or a recursion over a stored relation reads it in full and hashes
//! it (see `exec/stored.rs`); an analyst or an agent then asks the next question
//! over the same data. The copy is reusable exactly when the same rows are
//! live: stored rows are immutable once appended (a purge erases a row from
//! every read, so it leaves the live set too), so a relation's live set of
//! row ids identifies its contents. The key is therefore (relation, live
//! bitmap), whatever as-of or known-at instant produced that bitmap; any
//! write that changes what is live misses, and nothing goes stale.

use std::sync::Arc;

use chronolog_storage::RelationId;
use parking_lot::Mutex;
use roaring::RoaringBitmap;

use crate::frozen::Frozen;

/// Bytes in all cached copies at most (grouped copies included): bounds
/// the memory a session keeps between queries.
const MAX_CACHED_BYTES: usize = 64 << 20;

/// A materialized relation with the key it is valid for.
pub(crate) struct Materialized {
    pub rel: RelationId,
    pub live: Arc<RoaringBitmap>,
    pub relation: Frozen,
}

/// Most recently used last; shared by every session of an engine. A copy
/// is taken out while a query uses it, so two queries never share one.
#[derive(Default)]
pub(crate) struct StoredCache {
    entries: Mutex<Vec<Materialized>>,
}

impl StoredCache {
    /// Takes out the copy of `rel` whose live rows are `live`, if one is
    /// kept.
    pub(crate) fn take(&self, rel: RelationId, live: &Arc<RoaringBitmap>) -> Option<Frozen> {
        let mut entries = self.entries.lock();
        let at = entries
            .iter()
            .position(|m| m.rel == rel && (Arc::ptr_eq(&m.live, live) || *m.live == **live))?;
        Some(entries.remove(at).relation)
    }

    /// Keeps `m` for later queries, evicting the least recently used
    /// entries beyond the size bound (and any other copy of the relation:
    /// the newest is the likeliest to be asked for again).
    pub(crate) fn put(&self, m: Materialized) {
        let bytes = m.relation.bytes();
        if bytes > MAX_CACHED_BYTES {
            return;
        }
        let mut entries = self.entries.lock();
        entries.retain(|old| old.rel != m.rel);
        entries.push(m);
        let mut total: usize = entries.iter().map(|m| m.relation.bytes()).sum();
        while total > MAX_CACHED_BYTES {
            let evicted = entries.remove(0);
            total -= evicted.relation.bytes();
        }
    }
}
