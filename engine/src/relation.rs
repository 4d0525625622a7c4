//! Derived relations during one query: sets of tuples with hash indexes
//! built on demand per pattern of bound columns.
//!
//! Rows are append-only, so "the tuples added since position `p`" is a
//! range: semi-naive deltas are ranges of the full relation, not copies.

use rustc_hash::FxHashMap;

use crate::val::{MixState, Tuple, Val};

/// A set of tuples with lazily built hash indexes.
#[derive(Default)]
pub(crate) struct Relation {
    pub(crate) rows: Vec<Tuple>,
    /// `(hash, row position)` for every row: the set, without a second copy
    /// of the tuples; the stored hash makes probes and growth cheap.
    set: hashbrown::HashTable<(u64, u32)>,
    /// bound columns -> key values -> ascending row positions.
    indexes: FxHashMap<Vec<usize>, HashIndex>,
}

/// Key values -> ascending row positions, for one pattern of bound columns.
type HashIndex = std::collections::HashMap<Box<[Val]>, Vec<u32>, MixState>;

fn hash_tuple(t: &[Val]) -> u64 {
    use std::hash::BuildHasher;
    MixState::default().hash_one(t)
}

impl Relation {
    pub(crate) fn len(&self) -> u32 {
        self.rows.len() as u32
    }

    /// Inserts `tuple` unless it is already there.
    pub(crate) fn insert(&mut self, tuple: Tuple) -> bool {
        let hash = hash_tuple(&tuple);
        if self.holds(hash, &tuple) {
            return false;
        }
        self.push_new(hash, tuple);
        true
    }

    /// Inserts a copy of `tuple` unless it is already there (no allocation
    /// for a duplicate).
    pub(crate) fn insert_slice(&mut self, tuple: &[Val]) -> bool {
        let hash = hash_tuple(tuple);
        if self.holds(hash, tuple) {
            return false;
        }
        self.push_new(hash, tuple.into());
        true
    }

    fn holds(&self, hash: u64, tuple: &[Val]) -> bool {
        self.set
            .find(hash, |&(h, i)| {
                h == hash && *self.rows[i as usize] == *tuple
            })
            .is_some()
    }

    /// Appends a tuple known not to be in the set, updating set and indexes.
    fn push_new(&mut self, hash: u64, tuple: Tuple) {
        let Relation { rows, set, indexes } = self;
        let at = rows.len() as u32;
        for (cols, index) in indexes.iter_mut() {
            let key: Box<[Val]> = cols.iter().map(|&c| tuple[c].clone()).collect();
            index.entry(key).or_default().push(at);
        }
        set.insert_unique(hash, (hash, at), |&(h, _)| h);
        rows.push(tuple);
    }

    /// Appends a row known to be new (rows of a stored relation live at one
    /// instant are distinct). The set is not updated: only for relations
    /// that are read, never inserted into, afterwards.
    pub(crate) fn push_distinct(&mut self, tuple: Tuple) {
        debug_assert!(self.indexes.is_empty());
        self.rows.push(tuple);
    }

    /// Positions in `range` of the rows whose columns `cols` equal `key`.
    pub(crate) fn positions(
        &mut self,
        cols: &[usize],
        key: &[Val],
        range: std::ops::Range<u32>,
    ) -> Positions {
        if cols.is_empty() {
            return range.collect();
        }
        let rows = &self.rows;
        let index = self.indexes.entry(cols.to_vec()).or_insert_with(|| {
            let mut index = HashIndex::default();
            for (i, t) in rows.iter().enumerate() {
                index
                    .entry(cols.iter().map(|&c| t[c].clone()).collect())
                    .or_default()
                    .push(i as u32);
            }
            index
        });
        match index.get(key) {
            None => Positions::new(),
            Some(hits) => {
                let lo = hits.partition_point(|&p| p < range.start);
                let hi = hits.partition_point(|&p| p < range.end);
                Positions::from_slice(&hits[lo..hi])
            }
        }
    }
}

/// Row positions of one lookup; small ones stay on the stack.
pub(crate) type Positions = smallvec::SmallVec<[u32; 16]>;
