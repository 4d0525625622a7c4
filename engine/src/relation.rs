//! Relations during one query: sets of tuples with hash indexes built on
//! demand per pattern of bound columns.
//!
//! Tuples live row after row in one flat vector of values (no allocation
//! per tuple, and a probe touches one cache line instead of chasing a box).
//! Rows are append-only, so "the tuples added since position `p`" is a
//! range: semi-naive deltas are ranges of the full relation, not copies.
//! An index keeps, per key, the newest row with that key, and a `next`
//! chain links each row to the previous one with the same key: adding a
//! row allocates nothing per key, and a walk for a range can stop as soon
//! as it passes the range's start.

use hashbrown::HashTable;
use smallvec::SmallVec;

use crate::val::{Val, hash_key};

/// No row: the end of an index chain.
const NONE: u32 = u32::MAX;

/// A set of tuples of one arity with lazily built hash indexes.
pub(crate) struct Relation {
    arity: usize,
    /// Row `i` is `cells[i * arity..(i + 1) * arity]`.
    cells: Vec<Val>,
    len: u32,
    /// `(hash, row)` for every row: the set, without a second copy of the
    /// tuples; the stored hash makes probes and growth cheap. Unused (and
    /// empty) for relations filled with [`Relation::push_distinct`].
    set: HashTable<(u64, u32)>,
    /// One index per pattern of bound columns (a query has few patterns,
    /// so a short list beats a map).
    indexes: Vec<(SmallVec<[usize; 4]>, ChainIndex)>,
}

/// Key -> newest row with that key; `next[row]` -> the previous row with
/// the same key, so each key's rows form a descending chain.
#[derive(Default)]
struct ChainIndex {
    heads: HashTable<(u64, u32)>,
    next: Vec<u32>,
}

impl ChainIndex {
    /// Links row `at` (whose key hashes to `hash`) into its key's chain.
    /// `same_key(row)` says whether an existing row has the same key.
    fn link(&mut self, hash: u64, at: u32, same_key: impl Fn(u32) -> bool) {
        debug_assert_eq!(self.next.len(), at as usize);
        match self
            .heads
            .find_mut(hash, |&(h, row)| h == hash && same_key(row))
        {
            Some(head) => {
                self.next.push(head.1);
                head.1 = at;
            }
            None => {
                self.next.push(NONE);
                self.heads.insert_unique(hash, (hash, at), |&(h, _)| h);
            }
        }
    }
}

impl Relation {
    /// An empty relation of `arity` columns.
    pub(crate) fn new(arity: usize) -> Relation {
        Relation {
            arity,
            cells: Vec::new(),
            len: 0,
            set: HashTable::new(),
            indexes: Vec::new(),
        }
    }

    /// Bytes this relation holds on the heap (capacity, not length: what a
    /// memory budget must count), less what its values point to.
    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(u64, u32)>();
        self.cells.capacity() * std::mem::size_of::<Val>()
            + self.set.capacity() * entry
            + self
                .indexes
                .iter()
                .map(|(_, ix)| ix.heads.capacity() * entry + ix.next.capacity() * 4)
                .sum::<usize>()
    }

    pub(crate) fn arity(&self) -> usize {
        self.arity
    }

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The tuple at `row`.
    #[inline]
    pub(crate) fn row(&self, row: u32) -> &[Val] {
        let at = row as usize * self.arity;
        &self.cells[at..at + self.arity]
    }

    /// Inserts a copy of `tuple` unless it is already there (nothing is
    /// allocated for a duplicate).
    pub(crate) fn insert(&mut self, tuple: &[Val]) -> bool {
        debug_assert_eq!(tuple.len(), self.arity);
        self.insert_by(|j| &tuple[j]).1
    }

    /// Inserts the tuple of `row`'s values at `cols` (a rule's head read
    /// straight from a binding, without building the tuple first).
    pub(crate) fn insert_projected(&mut self, row: &[Val], cols: &[usize]) -> bool {
        debug_assert_eq!(cols.len(), self.arity);
        self.insert_by(|j| &row[cols[j]]).1
    }

    /// The row holding `tuple`, inserted if it was not there (a relation
    /// used as a dictionary of keys, as aggregation does for its groups).
    pub(crate) fn find_or_insert(&mut self, tuple: &[Val]) -> u32 {
        debug_assert_eq!(tuple.len(), self.arity);
        self.insert_by(|j| &tuple[j]).0
    }

    /// Inserts the tuple whose value `j` is `value(j)`; says at which row
    /// it is and whether it is new.
    #[inline]
    fn insert_by<'v>(&mut self, value: impl Fn(usize) -> &'v Val) -> (u32, bool) {
        let arity = self.arity;
        let hash = hash_key((0..arity).map(&value));
        let at = self.len;
        let cells = &self.cells;
        // One probe finds the tuple or the slot it goes in. A one-column
        // relation (a reachable set) compares its one cell directly.
        let entry = if arity == 1 {
            let v = value(0);
            self.set.entry(
                hash,
                |&(h, row)| h == hash && cells[row as usize] == *v,
                |&(h, _)| h,
            )
        } else {
            self.set.entry(
                hash,
                |&(h, row)| {
                    h == hash && {
                        let start = row as usize * arity;
                        cells[start..start + arity]
                            .iter()
                            .enumerate()
                            .all(|(j, v)| *v == *value(j))
                    }
                },
                |&(h, _)| h,
            )
        };
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => return (found.get().1, false),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert((hash, at));
            }
        }
        self.cells.extend((0..arity).map(|j| value(j).clone()));
        self.len += 1;
        self.index_new_row(at);
        (at, true)
    }

    /// Appends a row known to be new (a rule whose head is distinct, see
    /// `distinct.rs`). The set is not updated: only for relations that are
    /// read, never inserted into, afterwards.
    pub(crate) fn push_distinct(&mut self, tuple: impl IntoIterator<Item = Val>) {
        debug_assert!(self.set.is_empty() && self.indexes.is_empty());
        let before = self.cells.len();
        self.cells.extend(tuple);
        debug_assert_eq!(self.cells.len() - before, self.arity);
        self.len += 1;
    }

    /// Appends whole rows known to be new, end to end in `cells` (a
    /// search's output made elsewhere), moving them. As
    /// [`Relation::push_distinct`]: the set is not updated.
    pub(crate) fn append_distinct(&mut self, mut cells: Vec<Val>) {
        debug_assert!(self.set.is_empty() && self.indexes.is_empty());
        debug_assert_eq!(cells.len() % self.arity.max(1), 0);
        let rows = cells.len() / self.arity.max(1);
        if self.cells.is_empty() {
            self.cells = cells;
        } else {
            self.cells.append(&mut cells);
        }
        self.len += rows as u32;
    }

    fn index_new_row(&mut self, at: u32) {
        let Relation {
            arity,
            cells,
            indexes,
            ..
        } = self;
        let row = |r: u32| &cells[r as usize * *arity..(r as usize + 1) * *arity];
        for (cols, index) in indexes.iter_mut() {
            let new = row(at);
            let hash = hash_key(cols.iter().map(|&c| &new[c]));
            index.link(hash, at, |r| {
                let old = row(r);
                cols.iter().all(|&c| old[c] == new[c])
            });
        }
    }

    /// The rows in `range` whose columns `cols` equal `key`, in descending
    /// order when `cols` is not empty.
    pub(crate) fn positions(
        &mut self,
        cols: &[usize],
        key: &[Val],
        range: std::ops::Range<u32>,
    ) -> Positions {
        if cols.is_empty() {
            return range.collect();
        }
        let at = match self.indexes.iter().position(|(c, _)| c.as_slice() == cols) {
            Some(at) => at,
            None => {
                self.indexes.push((cols.into(), self.build_index(cols)));
                self.indexes.len() - 1
            }
        };
        let index = &self.indexes[at].1;
        let hash = hash_key(key.iter());
        let Some(&(_, head)) = index.heads.find(hash, |&(h, r)| {
            h == hash && {
                let row = self.row(r);
                cols.iter().zip(key).all(|(&c, v)| row[c] == *v)
            }
        }) else {
            return Positions::new();
        };
        let mut out = Positions::new();
        let mut r = head;
        while r != NONE && r >= range.start {
            if r < range.end {
                out.push(r);
            }
            r = index.next[r as usize];
        }
        out
    }

    fn build_index(&self, cols: &[usize]) -> ChainIndex {
        let mut index = ChainIndex {
            heads: HashTable::with_capacity(self.len as usize / 2),
            next: Vec::with_capacity(self.len as usize),
        };
        for at in 0..self.len {
            let new = self.row(at);
            let hash = hash_key(cols.iter().map(|&c| &new[c]));
            index.link(hash, at, |r| {
                let old = self.row(r);
                cols.iter().all(|&c| old[c] == new[c])
            });
        }
        index
    }

    /// Moves the rows out, end to end in insertion order.
    pub(crate) fn into_cells(self) -> Vec<Val> {
        self.cells
    }
}

/// Row positions of one lookup; small ones stay on the stack.
pub(crate) type Positions = SmallVec<[u32; 16]>;

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<Val> {
        v.iter().map(|&i| Val::Int(i)).collect()
    }

    #[test]
    fn insert_is_a_set_and_float_equals_int() {
        let mut r = Relation::new(2);
        assert!(r.insert(&ints(&[1, 2])));
        assert!(!r.insert(&ints(&[1, 2])));
        assert!(!r.insert(&[Val::Float(1.0), Val::Int(2)]));
        assert!(r.insert(&ints(&[2, 1])));
        assert_eq!(r.len(), 2);
        assert_eq!(r.row(1), ints(&[2, 1]).as_slice());
        assert_eq!(r.find_or_insert(&ints(&[2, 1])), 1);
        assert_eq!(r.find_or_insert(&[Val::Float(1.0), Val::Int(2)]), 0);
        assert_eq!(r.find_or_insert(&ints(&[5, 5])), 2);
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn positions_follow_rows_added_after_the_index_and_respect_ranges() {
        let mut r = Relation::new(2);
        for (a, b) in [(1, 10), (2, 20), (1, 11)] {
            r.insert(&ints(&[a, b]));
        }
        assert_eq!(r.positions(&[0], &ints(&[1]), 0..3).as_slice(), &[2, 0]);
        r.insert(&ints(&[1, 12]));
        r.insert(&ints(&[3, 30]));
        assert_eq!(r.positions(&[0], &ints(&[1]), 0..5).as_slice(), &[3, 2, 0]);
        assert_eq!(r.positions(&[0], &ints(&[1]), 1..3).as_slice(), &[2]);
        assert_eq!(r.positions(&[0, 1], &ints(&[1, 11]), 0..5).as_slice(), &[2]);
        assert!(r.positions(&[0], &ints(&[9]), 0..5).is_empty());
        assert_eq!(r.positions(&[], &[], 3..5).as_slice(), &[3, 4]);
    }

    #[test]
    fn zero_arity_relations_hold_one_empty_tuple() {
        let mut r = Relation::new(0);
        assert!(r.insert(&[]));
        assert!(!r.insert(&[]));
        assert_eq!(r.len(), 1);
        assert!(r.into_cells().is_empty());
    }
}
