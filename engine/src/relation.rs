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
//!
//! A relation that is only read once filled (a stored relation materialized
//! for a query, see [`Relation::freeze`]) is indexed differently: per
//! pattern, a copy of its rows grouped by key, so one key's rows are one
//! contiguous run. A graph walk then reads a node's edges from adjacent
//! cache lines instead of one random miss per edge (the chain index's
//! `next` hop plus the row itself), which is what bounds recursion over
//! stored edges.

use hashbrown::HashTable;
use smallvec::SmallVec;

use crate::val::{MixState, Val};

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
    /// Set by [`Relation::freeze`]: no more rows, lookups use `runs`.
    frozen: bool,
    /// One grouped copy per pattern of bound columns (frozen relations).
    runs: Vec<(SmallVec<[usize; 4]>, RunIndex)>,
}

/// The rows of a frozen relation grouped by the key of one pattern: key ->
/// `(start, len)` of its run in `cells`.
struct RunIndex {
    heads: HashTable<(u64, u32, u32)>,
    cells: Vec<Val>,
}

/// The rows of one lookup in a frozen relation: a run of a grouped copy
/// (`pattern` is an index into its runs) or, with no bound column, a range
/// of the rows themselves (`pattern` is `None`).
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub pattern: Option<usize>,
    pub rows: std::ops::Range<u32>,
}

/// Key -> newest row with that key; `next[row]` -> the previous row with
/// the same key, so each key's rows form a descending chain.
#[derive(Default)]
struct ChainIndex {
    heads: HashTable<(u64, u32)>,
    next: Vec<u32>,
}

/// Sorts `(hash, _, _)` entries by the low 32 bits of the hash, stably:
/// two counting passes of 16 bits each.
fn radix_sort_low32<T: Copy>(entries: &mut Vec<(u64, T, u32)>) {
    let mut other = entries.clone();
    for shift in [0u32, 16] {
        let digit = |e: &(u64, T, u32)| ((e.0 >> shift) & 0xffff) as usize;
        let mut starts = vec![0usize; 1 << 16];
        for e in entries.iter() {
            starts[digit(e)] += 1;
        }
        let mut at = 0;
        for s in starts.iter_mut() {
            let n = *s;
            *s = at;
            at += n;
        }
        for e in entries.iter() {
            let d = digit(e);
            other[starts[d]] = *e;
            starts[d] += 1;
        }
        std::mem::swap(entries, &mut other);
    }
}

/// A key of one scalar as `(type, payload)`, compared without reading its
/// row again (ints, times and symbols; 0 is "not such a key").
fn exact_scalar(v: &Val) -> Option<(u8, u64)> {
    match v {
        Val::Int(i) => Some((1, *i as u64)),
        Val::Time(t) => Some((2, *t as u64)),
        Val::Sym(s) => Some((3, u64::from(*s))),
        _ => None,
    }
}

fn hash_values<'v>(values: impl Iterator<Item = &'v Val>) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = MixState::default().build_hasher();
    for v in values {
        v.hash(&mut h);
    }
    h.finish()
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
            frozen: false,
            runs: Vec::new(),
        }
    }

    pub(crate) fn arity(&self) -> usize {
        self.arity
    }

    /// Values held, grouped copies included (the memory a cached copy
    /// costs, in cells).
    pub(crate) fn cells(&self) -> usize {
        self.cells.len() + self.runs.iter().map(|(_, r)| r.cells.len()).sum::<usize>()
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
        let hash = hash_values(tuple.iter());
        let at = self.len;
        let (arity, cells) = (self.arity, &self.cells);
        // One probe finds the tuple or the slot it goes in.
        match self.set.entry(
            hash,
            |&(h, row)| {
                h == hash && {
                    let start = row as usize * arity;
                    &cells[start..start + arity] == tuple
                }
            },
            |&(h, _)| h,
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => return false,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert((hash, at));
            }
        }
        self.cells.extend_from_slice(tuple);
        self.len += 1;
        self.index_new_row(at);
        true
    }

    /// Appends a row known to be new (rows of a stored relation live at one
    /// instant are distinct). The set is not updated: only for relations
    /// that are read, never inserted into, afterwards.
    pub(crate) fn push_distinct(&mut self, tuple: impl IntoIterator<Item = Val>) {
        debug_assert!(self.set.is_empty() && self.indexes.is_empty());
        let before = self.cells.len();
        self.cells.extend(tuple);
        debug_assert_eq!(self.cells.len() - before, self.arity);
        self.len += 1;
    }

    /// Ends filling: from now on the relation is only read, through
    /// [`Relation::run`].
    pub(crate) fn freeze(&mut self) {
        debug_assert!(self.indexes.is_empty());
        self.frozen = true;
    }

    /// The rows of a frozen relation whose columns `cols` equal `key`, as
    /// one run (the grouped copy for `cols` is built on first use).
    pub(crate) fn run(&mut self, cols: &[usize], key: &[Val]) -> Run {
        debug_assert!(self.frozen);
        if cols.is_empty() {
            return Run {
                pattern: None,
                rows: 0..self.len,
            };
        }
        let at = match self.runs.iter().position(|(c, _)| c.as_slice() == cols) {
            Some(at) => at,
            None => {
                self.runs.push((cols.into(), self.group_by(cols)));
                self.runs.len() - 1
            }
        };
        let index = &self.runs[at].1;
        let arity = self.arity;
        let hash = hash_values(key.iter());
        let rows = index
            .heads
            .find(hash, |&(h, start, _)| {
                h == hash && {
                    let row = &index.cells[start as usize * arity..];
                    cols.iter().zip(key).all(|(&c, v)| row[c] == *v)
                }
            })
            .map_or(0..0, |&(_, start, len)| start..start + len);
        Run {
            pattern: Some(at),
            rows,
        }
    }

    /// Row `i` of a run's rows.
    #[inline]
    pub(crate) fn run_row(&self, pattern: Option<usize>, i: u32) -> &[Val] {
        let at = i as usize * self.arity;
        match pattern {
            None => &self.cells[at..at + self.arity],
            Some(p) => &self.runs[p].1.cells[at..at + self.arity],
        }
    }

    /// A copy of the rows grouped by their `cols`. Rows are sorted by key
    /// hash (one sequential pass and a sort, where a hash table of groups
    /// takes a dependent cache miss per row), runs of one key are found
    /// from the sorted entries alone when the key is one scalar (no row is
    /// re-read), and each row is then copied to its place in row order.
    fn group_by(&self, cols: &[usize]) -> RunIndex {
        let key_of = |at: u32| {
            let row = self.row(at);
            cols.iter().map(move |&c| &row[c])
        };
        // `(hash, (type, payload), row)`: a one-scalar key is identified
        // exactly by its middle part, so equal hashes need no row reads.
        let mut all_exact = cols.len() == 1;
        let mut order: Vec<(u64, (u8, u64), u32)> = (0..self.len)
            .map(|at| {
                let exact = match cols {
                    [c] => exact_scalar(&self.row(at)[*c]),
                    _ => None,
                };
                all_exact &= exact.is_some();
                (hash_values(key_of(at)), exact.unwrap_or((0, 0)), at)
            })
            .collect();
        // Group by the low 32 bits of the hash with a stable two-pass radix
        // sort (rows stay in row order within a group; a comparison sort
        // cost four times the instructions), then put any span whose
        // entries differ in full hash or key in (hash, key, row) order, so
        // every key's rows are contiguous.
        radix_sort_low32(&mut order);
        type Entry = (u64, (u8, u64), u32);
        let same_key = |a: &Entry, b: &Entry| {
            a.0 == b.0
                && if all_exact {
                    a.1 == b.1
                } else {
                    key_of(a.2).eq(key_of(b.2))
                }
        };
        let mut start = 0;
        while start < order.len() {
            let low = order[start].0 as u32;
            let mut end = start + 1;
            while end < order.len() && order[end].0 as u32 == low {
                end += 1;
            }
            let span = &mut order[start..end];
            if span.iter().any(|e| !same_key(e, &span[0])) {
                span.sort_by(|a, b| {
                    (a.0, a.1)
                        .cmp(&(b.0, b.1))
                        .then_with(|| key_of(a.2).cmp(key_of(b.2)))
                        .then(a.2.cmp(&b.2))
                });
            }
            start = end;
        }
        let mut heads: HashTable<(u64, u32, u32)> = HashTable::new();
        let mut run = 0;
        for i in 1..=order.len() {
            if i == order.len() || !same_key(&order[i], &order[run]) {
                let hash = order[run].0;
                heads.insert_unique(hash, (hash, run as u32, (i - run) as u32), |&(h, _, _)| h);
                run = i;
            }
        }
        // Scatter in row order: sequential reads, independent writes.
        let mut place = vec![0u32; self.len as usize];
        for (i, &(_, _, at)) in order.iter().enumerate() {
            place[at as usize] = i as u32;
        }
        let arity = self.arity;
        let mut cells = vec![Val::Null; self.cells.len()];
        for (at, &to) in place.iter().enumerate() {
            let to = to as usize * arity;
            cells[to..to + arity].clone_from_slice(self.row(at as u32));
        }
        RunIndex { heads, cells }
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
            let hash = hash_values(cols.iter().map(|&c| &new[c]));
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
        let hash = hash_values(key.iter());
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
            let hash = hash_values(cols.iter().map(|&c| &new[c]));
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
    fn frozen_relations_answer_lookups_with_runs_of_a_grouped_copy() {
        let mut r = Relation::new(2);
        for (a, b) in [(1, 10), (2, 20), (1, 11), (3, 30), (1, 12), (2, 21)] {
            r.push_distinct(ints(&[a, b]));
        }
        r.freeze();
        let rows = |r: &mut Relation, cols: &[usize], key: &[i64]| {
            let run = r.run(cols, &ints(key));
            let mut out: Vec<Vec<i64>> = run
                .rows
                .clone()
                .map(|i| {
                    r.run_row(run.pattern, i)
                        .iter()
                        .map(|v| match v {
                            Val::Int(i) => *i,
                            _ => -1,
                        })
                        .collect()
                })
                .collect();
            out.sort();
            out
        };
        assert_eq!(rows(&mut r, &[0], &[1]), [[1, 10], [1, 11], [1, 12]]);
        assert_eq!(rows(&mut r, &[0], &[2]), [[2, 20], [2, 21]]);
        assert_eq!(rows(&mut r, &[1], &[30]), [[3, 30]]);
        assert_eq!(rows(&mut r, &[0, 1], &[2, 21]), [[2, 21]]);
        assert!(rows(&mut r, &[0], &[9]).is_empty());
        assert_eq!(rows(&mut r, &[], &[]).len(), 6);
        // Each pattern's copy holds every row once.
        assert_eq!(r.cells(), 12 * 4);

        // Keys that are not one int, time or symbol are compared by value:
        // a float equal to an int is the same key.
        let mut mixed = Relation::new(2);
        mixed.push_distinct([Val::Int(1), Val::Int(10)]);
        mixed.push_distinct([Val::Str("a".into()), Val::Int(20)]);
        mixed.push_distinct([Val::Float(1.0), Val::Int(11)]);
        mixed.push_distinct([Val::Str("a".into()), Val::Int(21)]);
        mixed.freeze();
        assert_eq!(mixed.run(&[0], &[Val::Int(1)]).rows.len(), 2);
        assert_eq!(mixed.run(&[0], &[Val::Str("a".into())]).rows.len(), 2);
        assert_eq!(mixed.run(&[0], &[Val::Str("b".into())]).rows.len(), 0);
    }

    #[test]
    fn every_key_of_many_is_one_run_even_when_low_hash_bits_collide() {
        // 300,000 keys: about ten pairs share the low 32 bits of their
        // hash, which the radix pass groups by, so the fix-up runs.
        let n = 300_000i64;
        let mut r = Relation::new(2);
        for k in 0..n {
            r.push_distinct(ints(&[k, k * 2]));
            r.push_distinct(ints(&[k, k * 2 + 1]));
        }
        r.freeze();
        for k in (0..n).step_by(997).chain([n - 1]) {
            let run = r.run(&[0], &ints(&[k]));
            let mut seconds: Vec<Val> = run
                .rows
                .clone()
                .map(|i| r.run_row(run.pattern, i)[1].clone())
                .collect();
            seconds.sort();
            assert_eq!(seconds, ints(&[k * 2, k * 2 + 1]), "key {k}");
        }
        let index = &r.runs[0].1;
        let mut covered = 0;
        for &(_, start, len) in index.heads.iter() {
            assert_eq!(len, 2);
            let key = &index.cells[start as usize * 2];
            assert_eq!(
                &index.cells[(start as usize + 1) * 2],
                key,
                "one key per run"
            );
            covered += len;
        }
        assert_eq!(covered, 2 * n as u32);
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
