//! Stored relations copied for a query: columnar, typed, grouped by key.
//!
//! A join or a recursion over a stored relation reads it in full once (see
//! `exec/stored.rs`) and then looks rows up by the values of its bound columns.
//! The copy keeps the storage's column types: a bool, int, symbol or time
//! column without nulls is a vector of `u64` bits (8 bytes a value, hashed
//! and compared as integers, turned back into a [`Val`] only when a row is
//! bound), anything else a vector of `Val`s.
//!
//! Per pattern of bound columns, a second copy holds the rows grouped by
//! key, so one key's rows are one contiguous run: for an edge relation
//! grouped by its source this is the adjacency array of a CSR graph, and a
//! walk reads a node's edges from adjacent cache lines instead of taking a
//! random miss per edge. Grouping is a stable radix sort, then one gather
//! per column: by a single scalar column, of its bits less the column's
//! least value (exact; small ids and ints vary in two or three bytes, so
//! two or three passes); by anything else, of the key hash's low 32 bits,
//! with a fix-up for the rare spans whose keys differ.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use chronolog_storage::{ColumnType, Gathered};
use hashbrown::HashTable;
use smallvec::SmallVec;

use crate::graph::Graph;
use crate::radix::sort_by_low_bits;
use crate::val::{Val, hash_part, mix64};

/// The start of every key hash (any odd constant: keys of one scalar then
/// hash by a bijection of their bits, so distinct keys never share a hash).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// What the bits of a scalar column mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    Int,
    Time,
    Sym,
}

impl Kind {
    /// The kind of a storage column type stored as bits.
    fn of(ty: ColumnType) -> Option<Kind> {
        match ty {
            ColumnType::Bool => Some(Kind::Bool),
            ColumnType::Int => Some(Kind::Int),
            ColumnType::Time => Some(Kind::Time),
            ColumnType::Sym => Some(Kind::Sym),
            _ => None,
        }
    }

    /// The bits a value equal to `v` has in a column of this kind, or
    /// `None` if no value of the column equals `v` (a float equals an int
    /// of the same value, as everywhere in the engine).
    #[inline]
    pub(crate) fn code(self, v: &Val) -> Option<u64> {
        match (self, v) {
            (Kind::Int, Val::Int(i)) => Some(*i as u64),
            (Kind::Int, Val::Float(x)) => {
                let i = *x as i64;
                (i as f64).total_cmp(x).is_eq().then_some(i as u64)
            }
            (Kind::Time, Val::Time(t)) => Some(*t as u64),
            (Kind::Sym, Val::Sym(s)) => Some(u64::from(*s)),
            (Kind::Bool, Val::Bool(b)) => Some(u64::from(*b)),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn val(self, code: u64) -> Val {
        match self {
            Kind::Bool => Val::Bool(code != 0),
            Kind::Int => Val::Int(code as i64),
            Kind::Time => Val::Time(code as i64),
            Kind::Sym => Val::Sym(code as u32),
        }
    }
}

/// One column of a copy.
pub(crate) enum Column {
    /// Bits of one kind of scalar.
    Scalar(Kind, Vec<u64>),
    /// Any values.
    Vals(Vec<Val>),
}

impl Column {
    /// From what storage gathered.
    pub(crate) fn from_gathered(gathered: Gathered) -> Column {
        match gathered {
            Gathered::Scalars(ty, bits) => match Kind::of(ty) {
                Some(kind) => Column::Scalar(kind, bits),
                // Storage only gathers bool, int, symbol and time columns as
                // bits; anything else would be a storage bug, kept readable.
                None => Column::Vals(bits.into_iter().map(|b| Val::Int(b as i64)).collect()),
            },
            Gathered::Values(values) => Column::Vals(values.into_iter().map(Val::from).collect()),
        }
    }

    /// Values held.
    pub(crate) fn len(&self) -> usize {
        match self {
            Column::Scalar(_, bits) => bits.len(),
            Column::Vals(vals) => vals.len(),
        }
    }

    /// The value at `row`.
    #[inline]
    pub(crate) fn get(&self, row: u32) -> Val {
        match self {
            Column::Scalar(kind, bits) => kind.val(bits[row as usize]),
            Column::Vals(vals) => vals[row as usize].clone(),
        }
    }

    /// Whether the value at `row` equals `v`.
    #[inline]
    fn matches(&self, row: u32, v: &Val) -> bool {
        match self {
            Column::Scalar(kind, bits) => kind.code(v) == Some(bits[row as usize]),
            Column::Vals(vals) => vals[row as usize] == *v,
        }
    }

    /// Folds each row's value into its key hash.
    fn hash_into(&self, hashes: &mut [u64]) {
        match self {
            Column::Scalar(_, bits) => {
                for (h, &b) in hashes.iter_mut().zip(bits) {
                    *h = mix64(*h ^ b);
                }
            }
            Column::Vals(vals) => {
                for (h, v) in hashes.iter_mut().zip(vals) {
                    *h = mix64(*h ^ hash_part(v));
                }
            }
        }
    }

    /// What a key value adds to a key hash in this column, or `None` if no
    /// row can hold it. Agrees with `hash_into`.
    #[inline]
    fn key_part(&self, v: &Val) -> Option<u64> {
        match self {
            Column::Scalar(kind, _) => kind.code(v),
            Column::Vals(_) => Some(hash_part(v)),
        }
    }

    /// A total order on the values of two rows, for grouping only (bits
    /// order as integers).
    fn cmp_rows(&self, a: u32, b: u32) -> Ordering {
        match self {
            Column::Scalar(_, bits) => bits[a as usize].cmp(&bits[b as usize]),
            Column::Vals(vals) => vals[a as usize].cmp(&vals[b as usize]),
        }
    }

    /// The values at `rows`, in that order.
    fn gather(&self, rows: &[u32]) -> Column {
        match self {
            Column::Scalar(kind, bits) => {
                Column::Scalar(*kind, rows.iter().map(|&r| bits[r as usize]).collect())
            }
            Column::Vals(vals) => {
                Column::Vals(rows.iter().map(|&r| vals[r as usize].clone()).collect())
            }
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Column::Scalar(_, bits) => bits.len() * 8,
            Column::Vals(vals) => vals.len() * std::mem::size_of::<Val>(),
        }
    }
}

/// A stored relation's rows live at one instant, read-only, with grouped
/// copies built on demand per pattern of bound columns.
pub(crate) struct Frozen {
    len: u32,
    columns: Vec<Column>,
    /// One grouped copy per pattern (a query has few: a list beats a map).
    groups: Vec<(SmallVec<[usize; 4]>, Grouped)>,
    /// A two-column relation as a graph, edges forward and backward, built
    /// for the first search that needs it (`graph.rs`).
    graphs: [Option<Arc<Graph>>; 2],
}

/// Key hash -> `(hash, start, len)` of the key's run.
type Heads = HashTable<(u64, u32, u32)>;

/// The rows grouped by the key of one pattern: key hash -> `(start, len)`
/// of its run in `columns`.
struct Grouped {
    heads: Heads,
    columns: Vec<Column>,
}

/// The rows of one lookup: a run of a grouped copy (`pattern` indexes the
/// copies) or, with no bound column, a range of the rows themselves
/// (`pattern` is `None`).
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub pattern: Option<usize>,
    pub rows: Range<u32>,
}

impl Frozen {
    /// A relation of `len` rows from its columns (each `len` long).
    pub(crate) fn new(len: u32, columns: Vec<Column>) -> Frozen {
        debug_assert!(columns.iter().all(|c| c.len() == len as usize));
        Frozen {
            len,
            columns,
            groups: Vec::new(),
            graphs: [None, None],
        }
    }

    /// The relation's two columns as a graph, edges from the first to the
    /// second (or, `backward`, the reverse); `None` unless it has two.
    pub(crate) fn graph(&mut self, backward: bool) -> Option<Arc<Graph>> {
        let [first, second] = &self.columns[..] else {
            return None;
        };
        let (from, to) = if backward {
            (second, first)
        } else {
            (first, second)
        };
        let slot = &mut self.graphs[usize::from(backward)];
        if let Some(graph) = slot {
            return Some(graph.clone());
        }
        let graph = match (from, to) {
            (Column::Scalar(a, x), Column::Scalar(b, y)) if a == b => {
                Graph::of_bits(*a, x.iter().copied().zip(y.iter().copied()))
            }
            _ => Graph::of_vals((0..self.len).map(|r| (from.get(r), to.get(r)))),
        };
        let graph = Arc::new(graph);
        *slot = Some(graph.clone());
        Some(graph)
    }

    /// How many grouped copies lookups have made so far.
    pub(crate) fn groupings(&self) -> usize {
        self.groups.len()
    }

    /// Bytes held, grouped copies included (what a cached copy costs).
    pub(crate) fn bytes(&self) -> usize {
        let columns = |cs: &[Column]| cs.iter().map(Column::bytes).sum::<usize>();
        columns(&self.columns)
            + self
                .groups
                .iter()
                .map(|(_, g)| columns(&g.columns) + g.heads.len() * 16)
                .sum::<usize>()
            + self
                .graphs
                .iter()
                .flatten()
                .map(|g| g.bytes())
                .sum::<usize>()
    }

    /// The columns a run's rows index into.
    #[inline]
    pub(crate) fn columns(&self, pattern: Option<usize>) -> &[Column] {
        match pattern {
            None => &self.columns,
            Some(p) => &self.groups[p].1.columns,
        }
    }

    /// The rows whose columns `cols` equal `key`, as one run (the grouped
    /// copy for `cols` is built on first use).
    pub(crate) fn run(&mut self, cols: &[usize], key: &[Val]) -> Run {
        if cols.is_empty() {
            return Run {
                pattern: None,
                rows: 0..self.len,
            };
        }
        let at = match self.groups.iter().position(|(c, _)| c.as_slice() == cols) {
            Some(at) => at,
            None => {
                let grouped = self.group_by(cols);
                self.groups.push((cols.into(), grouped));
                self.groups.len() - 1
            }
        };
        let grouped = &self.groups[at].1;
        let mut hash = SEED;
        for (&c, v) in cols.iter().zip(key) {
            match grouped.columns[c].key_part(v) {
                Some(part) => hash = mix64(hash ^ part),
                None => {
                    return Run {
                        pattern: Some(at),
                        rows: 0..0,
                    };
                }
            }
        }
        let rows = grouped
            .heads
            .find(hash, |&(h, start, _)| {
                h == hash
                    && cols
                        .iter()
                        .zip(key)
                        .all(|(&c, v)| grouped.columns[c].matches(start, v))
            })
            .map_or(0..0, |&(_, start, len)| start..start + len);
        Run {
            pattern: Some(at),
            rows,
        }
    }

    /// A copy of the rows grouped by their `cols`, rows of one key in row
    /// order.
    fn group_by(&self, cols: &[usize]) -> Grouped {
        let (order, heads) = match cols {
            [c] if matches!(self.columns[*c], Column::Scalar(..)) => self.group_by_bits(*c),
            _ => self.group_by_hash(cols),
        };
        let rows: Vec<u32> = order.into_iter().map(|(_, r)| r).collect();
        Grouped {
            heads,
            columns: self.columns.iter().map(|c| c.gather(&rows)).collect(),
        }
    }

    /// Groups by one scalar column: rows sorted by their bits less the
    /// column's least value (exact, so a run is a span of equal bits; ids,
    /// small ints and dates of a few years span under 2^32, so the radix
    /// sort makes two to four passes). A column spanning more is hashed.
    fn group_by_bits(&self, column: usize) -> (Vec<(u64, u32)>, Heads) {
        let Column::Scalar(_, bits) = &self.columns[column] else {
            return self.group_by_hash(&[column]);
        };
        let (lo, hi) = bits.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &b| {
            (lo.min(b as i64), hi.max(b as i64))
        });
        if bits.is_empty() || (hi as i128 - lo as i128) >= 1 << 32 {
            return self.group_by_hash(&[column]);
        }
        let mut order: Vec<(u64, u32)> = bits
            .iter()
            .map(|&b| b.wrapping_sub(lo as u64))
            .zip(0..self.len)
            .collect();
        sort_by_low_bits(&mut order, 32);
        let runs = 1 + order.windows(2).filter(|w| w[0].0 != w[1].0).count();
        let mut heads: Heads = HashTable::with_capacity(runs);
        let mut run = 0;
        for i in 1..=order.len() {
            if i == order.len() || order[i].0 != order[run].0 {
                let hash = mix64(SEED ^ order[run].0.wrapping_add(lo as u64));
                heads.insert_unique(hash, (hash, run as u32, (i - run) as u32), |&(h, _, _)| h);
                run = i;
            }
        }
        (order, heads)
    }

    /// Groups by key hash: rows sorted by the hash's low 32 bits, then any
    /// span whose entries differ in full hash or key put in (hash, key,
    /// row) order, so each key's rows are contiguous.
    fn group_by_hash(&self, cols: &[usize]) -> (Vec<(u64, u32)>, Heads) {
        let mut hashes = vec![SEED; self.len as usize];
        for &c in cols {
            self.columns[c].hash_into(&mut hashes);
        }
        let mut order: Vec<(u64, u32)> = hashes.into_iter().zip(0..self.len).collect();
        sort_by_low_bits(&mut order, 32);
        let same_key =
            |a: u32, b: u32| cols.iter().all(|&c| self.columns[c].cmp_rows(a, b).is_eq());
        let mut start = 0;
        while start < order.len() {
            let low = order[start].0 as u32;
            let mut end = start + 1;
            while end < order.len() && order[end].0 as u32 == low {
                end += 1;
            }
            let span = &mut order[start..end];
            let (h0, r0) = span[0];
            if span.iter().any(|&(h, r)| h != h0 || !same_key(r, r0)) {
                span.sort_by(|a, b| {
                    a.0.cmp(&b.0)
                        .then_with(|| {
                            cols.iter()
                                .map(|&c| self.columns[c].cmp_rows(a.1, b.1))
                                .find(|o| o.is_ne())
                                .unwrap_or(Ordering::Equal)
                        })
                        .then(a.1.cmp(&b.1))
                });
            }
            start = end;
        }
        let mut heads: Heads = HashTable::new();
        let mut run = 0;
        for i in 1..=order.len() {
            let ends = i == order.len() || {
                let (a, b) = (order[i], order[run]);
                a.0 != b.0 || !same_key(a.1, b.1)
            };
            if ends {
                let hash = order[run].0;
                heads.insert_unique(hash, (hash, run as u32, (i - run) as u32), |&(h, _, _)| h);
                run = i;
            }
        }
        (order, heads)
    }
}

#[cfg(test)]
impl Frozen {
    /// A copy of `rows`: a column whose values are all ints (or all
    /// symbols, times, bools) is stored as bits, any other as values.
    pub(crate) fn from_rows(arity: usize, rows: &[Vec<Val>]) -> Frozen {
        let columns = (0..arity)
            .map(|c| {
                let kind = rows.first().and_then(|r| match r[c] {
                    Val::Int(_) => Some(Kind::Int),
                    Val::Sym(_) => Some(Kind::Sym),
                    Val::Time(_) => Some(Kind::Time),
                    Val::Bool(_) => Some(Kind::Bool),
                    _ => None,
                });
                let bits: Option<Vec<u64>> = kind.and_then(|k| {
                    rows.iter()
                        .map(|r| k.code(&r[c]).filter(|_| !matches!(r[c], Val::Float(_))))
                        .collect()
                });
                match (kind, bits) {
                    (Some(k), Some(bits)) => Column::Scalar(k, bits),
                    _ => Column::Vals(rows.iter().map(|r| r[c].clone()).collect()),
                }
            })
            .collect();
        Frozen::new(rows.len() as u32, columns)
    }

    fn rows_of(&self, run: &Run) -> Vec<Vec<Val>> {
        let columns = self.columns(run.pattern);
        let mut out: Vec<Vec<Val>> = run
            .rows
            .clone()
            .map(|r| columns.iter().map(|c| c.get(r)).collect())
            .collect();
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<Val> {
        v.iter().map(|&i| Val::Int(i)).collect()
    }

    fn lookup(r: &mut Frozen, cols: &[usize], key: &[Val]) -> Vec<Vec<Val>> {
        let run = r.run(cols, key);
        r.rows_of(&run)
    }

    #[test]
    fn lookups_answer_with_runs_of_a_grouped_copy() {
        let rows: Vec<Vec<Val>> = [(1, 10), (2, 20), (1, 11), (3, 30), (1, 12), (2, 21)]
            .iter()
            .map(|&(a, b)| ints(&[a, b]))
            .collect();
        let mut r = Frozen::from_rows(2, &rows);
        assert!(matches!(r.columns[0], Column::Scalar(Kind::Int, _)));
        assert_eq!(
            lookup(&mut r, &[0], &ints(&[1])),
            [ints(&[1, 10]), ints(&[1, 11]), ints(&[1, 12])]
        );
        assert_eq!(
            lookup(&mut r, &[0], &ints(&[2])),
            [ints(&[2, 20]), ints(&[2, 21])]
        );
        assert_eq!(lookup(&mut r, &[1], &ints(&[30])), [ints(&[3, 30])]);
        assert_eq!(lookup(&mut r, &[0, 1], &ints(&[2, 21])), [ints(&[2, 21])]);
        assert!(lookup(&mut r, &[0], &ints(&[9])).is_empty());
        assert_eq!(lookup(&mut r, &[], &[]).len(), 6);
        // A float equal to an int finds it; another type finds nothing.
        assert_eq!(lookup(&mut r, &[0], &[Val::Float(2.0)]).len(), 2);
        assert!(lookup(&mut r, &[0], &[Val::Float(2.5)]).is_empty());
        assert!(lookup(&mut r, &[0], &[Val::Sym(1)]).is_empty());
        // Within a run, rows keep their order.
        let run = r.run(&[0], &ints(&[1]));
        let seconds: Vec<Val> = run
            .rows
            .clone()
            .map(|i| r.columns(run.pattern)[1].get(i))
            .collect();
        assert_eq!(seconds, ints(&[10, 11, 12]));
        // Each pattern's copy holds every row once: 3 patterns + the rows.
        assert_eq!(r.groups.len(), 3);
        assert!(r.bytes() >= 4 * 12 * 8);
    }

    #[test]
    fn columns_of_mixed_values_group_by_value() {
        let rows = vec![
            vec![Val::Int(1), Val::Int(10)],
            vec![Val::Str("a".into()), Val::Int(20)],
            vec![Val::Float(1.0), Val::Int(11)],
            vec![Val::Str("a".into()), Val::Int(21)],
        ];
        let mut r = Frozen::from_rows(2, &rows);
        assert!(matches!(r.columns[0], Column::Vals(_)));
        assert_eq!(lookup(&mut r, &[0], &[Val::Int(1)]).len(), 2);
        assert_eq!(lookup(&mut r, &[0], &[Val::Str("a".into())]).len(), 2);
        assert!(lookup(&mut r, &[0], &[Val::Str("b".into())]).is_empty());
        assert_eq!(
            lookup(&mut r, &[0, 1], &[Val::Float(1.0), Val::Int(11)]).len(),
            1
        );
    }

    #[test]
    fn every_key_of_many_is_one_run_even_when_low_hash_bits_collide() {
        // 300,000 two-column keys (hashed, not grouped by bits): about ten
        // pairs share the low 32 bits of their hash, which the radix pass
        // groups by, so the fix-up runs.
        let n = 300_000i64;
        let rows: Vec<Vec<Val>> = (0..n)
            .flat_map(|k| [ints(&[k, 0, k * 2]), ints(&[k, 0, k * 2 + 1])])
            .collect();
        let mut r = Frozen::from_rows(3, &rows);
        for k in (0..n).step_by(997).chain([n - 1]) {
            assert_eq!(
                lookup(&mut r, &[0, 1], &ints(&[k, 0])),
                [ints(&[k, 0, k * 2]), ints(&[k, 0, k * 2 + 1])],
                "key {k}"
            );
        }
        let grouped = &r.groups[0].1;
        let mut covered = 0;
        for &(_, start, len) in grouped.heads.iter() {
            assert_eq!(len, 2);
            assert_eq!(
                grouped.columns[0].get(start),
                grouped.columns[0].get(start + 1),
                "one key per run"
            );
            covered += len;
        }
        assert_eq!(covered, 2 * n as u32);
        // Grouped by the one int column, the same runs come from sorting
        // the bits.
        assert_eq!(
            lookup(&mut r, &[0], &ints(&[n - 1])),
            [ints(&[n - 1, 0, 2 * n - 2]), ints(&[n - 1, 0, 2 * n - 1])]
        );
        assert!(lookup(&mut r, &[0], &ints(&[-5])).is_empty());

        // Keys below zero, and keys too far apart to sort by their bits.
        for keys in [[-3i64, 7, -3, 7], [i64::MIN, i64::MAX, i64::MIN, 0]] {
            let rows: Vec<Vec<Val>> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| ints(&[k, i as i64]))
                .collect();
            let mut r = Frozen::from_rows(2, &rows);
            for k in keys {
                let expected: Vec<Vec<Val>> = rows
                    .iter()
                    .filter(|row| row[0] == Val::Int(k))
                    .cloned()
                    .collect();
                assert_eq!(lookup(&mut r, &[0], &ints(&[k])), expected, "key {k}");
            }
            assert!(lookup(&mut r, &[0], &ints(&[1])).is_empty());
        }
    }

    fn value() -> impl proptest::strategy::Strategy<Value = Val> {
        use proptest::prelude::*;
        prop_oneof![
            (-3i64..3).prop_map(Val::Int),
            prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(1 << 40)].prop_map(Val::Int),
            (-2i64..2).prop_map(|x| Val::Float(x as f64)),
            Just(Val::Float(0.5)),
            (0u32..3).prop_map(Val::Sym),
            prop_oneof![Just("a"), Just("b")].prop_map(|s| Val::Str(s.into())),
        ]
    }

    proptest::proptest! {
        /// Every lookup, by any pattern, finds exactly the rows a scan with
        /// `==` finds, whether the columns are bits (all ints, say) or
        /// values (mixed types, floats equal to ints).
        #[test]
        fn lookups_agree_with_a_scan(
            rows in proptest::collection::vec(proptest::collection::vec(value(), 2), 0..40),
            ints_only in proptest::bool::ANY,
            probes in proptest::collection::vec(
                (proptest::sample::select(vec![vec![0usize], vec![1], vec![0, 1], vec![1, 0]]),
                 proptest::collection::vec(value(), 2)),
                1..12,
            ),
        ) {
            let rows: Vec<Vec<Val>> = if ints_only {
                rows.iter()
                    .map(|r| r.iter().map(|v| match v {
                        Val::Int(i) => Val::Int(*i),
                        Val::Sym(s) => Val::Int(i64::from(*s) - 7),
                        _ => Val::Int(11),
                    }).collect())
                    .collect()
            } else {
                rows
            };
            let mut frozen = Frozen::from_rows(2, &rows);
            for (cols, key) in probes {
                let key = &key[..cols.len()];
                let mut expected: Vec<Vec<Val>> = rows
                    .iter()
                    .filter(|r| cols.iter().zip(key).all(|(&c, v)| r[c] == *v))
                    .cloned()
                    .collect();
                expected.sort();
                proptest::prop_assert_eq!(lookup(&mut frozen, &cols, key), expected);
            }
        }
    }

    #[test]
    fn an_empty_relation_answers_every_lookup_with_nothing() {
        let mut r = Frozen::from_rows(2, &[]);
        assert!(lookup(&mut r, &[0], &ints(&[1])).is_empty());
        assert!(lookup(&mut r, &[], &[]).is_empty());
    }
}
