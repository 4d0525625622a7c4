//! Stored relations materialized by earlier queries, kept for the next.
//!
//! A join or a recursion over a stored relation reads it in full and hashes
//! it (see `eval.rs`); an analyst or an agent then asks the next question
//! over the same data. The copy is reusable exactly when the same rows are
//! live: stored rows are immutable once appended (a purge erases a row from
//! every read, so it leaves the live set too), so a relation's live set of
//! row ids identifies its contents. The key is therefore (relation, live
//! bitmap), whatever as-of or known-at instant produced that bitmap; any
//! write that changes what is live misses, and nothing goes stale.

use std::sync::Arc;

use chronolog_storage::RelationId;
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

/// Most recently used last.
#[derive(Default)]
pub(crate) struct StoredCache {
    entries: Vec<Materialized>,
}

impl StoredCache {
    /// Takes out the copy of `rel` whose live rows are `live`, if one is
    /// kept.
    pub(crate) fn take(&mut self, rel: RelationId, live: &Arc<RoaringBitmap>) -> Option<Frozen> {
        let at = self
            .entries
            .iter()
            .position(|m| m.rel == rel && (Arc::ptr_eq(&m.live, live) || *m.live == **live))?;
        Some(self.entries.remove(at).relation)
    }

    /// Keeps `m` for later queries, evicting the least recently used
    /// entries beyond the size bound (and any other copy of the relation:
    /// the newest is the likeliest to be asked for again).
    pub(crate) fn put(&mut self, m: Materialized) {
        let bytes = m.relation.bytes();
        if bytes > MAX_CACHED_BYTES {
            return;
        }
        self.entries.retain(|old| old.rel != m.rel);
        self.entries.push(m);
        let mut total: usize = self.entries.iter().map(|m| m.relation.bytes()).sum();
        while total > MAX_CACHED_BYTES {
            let evicted = self.entries.remove(0);
            total -= evicted.relation.bytes();
        }
    }
}
