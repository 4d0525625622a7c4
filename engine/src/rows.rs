//! `Rows`: a query's answer, every value end to end in one buffer.
//!
//! An answer of 900,000 pairs held as a `Vec` per row cost 900,000
//! allocations to build and as many to free, about a third of the time of
//! the query that made it; one buffer with a row view costs one of each.

use crate::order::SymbolOrder;
use crate::radix::sort_by_low_bits;
use crate::val::Val;

/// A query's answer: `len()` rows of `columns.len()` values, in output
/// order.
#[derive(Clone, Debug)]
pub struct Rows {
    /// Column names.
    pub columns: Vec<String>,
    /// Row `i` is `cells[i * width..(i + 1) * width]`.
    cells: Vec<Val>,
    /// Rows (needed apart from `cells` when there are no columns: a
    /// yes/no question answers with one empty row or none).
    len: usize,
    /// No value owns memory (no text, bytes, vector or list), so dropping
    /// the answer frees its buffer without visiting each value: for a
    /// closure's 8 million values, 22 of the 30 ms its drop took.
    plain: bool,
}

impl PartialEq for Rows {
    fn eq(&self, other: &Rows) -> bool {
        self.columns == other.columns && self.len == other.len && self.cells == other.cells
    }
}

impl Drop for Rows {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if self.plain {
            // SAFETY: no value is exposed past a length of 0, and the
            // values not dropped own nothing (`plain`).
            unsafe { self.cells.set_len(0) }
        }
    }
}

impl Rows {
    /// An answer from whole rows, each of `columns.len()` values.
    pub(crate) fn from_rows(columns: Vec<String>, rows: Vec<Vec<Val>>) -> Rows {
        let len = rows.len();
        debug_assert!(rows.iter().all(|r| r.len() == columns.len()));
        Rows {
            columns,
            cells: rows.into_iter().flatten().collect(),
            len,
            plain: false,
        }
    }

    /// The answer of the rows of `cells` (`width` values each), put in the
    /// engine's output order: sorted by value (answers are sets; a fixed
    /// order makes them reproducible), then by `order_by` (column,
    /// descending) if given, then cut to `limit`. Symbols order by name
    /// (`symbols` ranks those in `cells`).
    pub(crate) fn sorted(
        columns: Vec<String>,
        mut cells: Vec<Val>,
        len: usize,
        order_by: &[(usize, bool)],
        limit: Option<u64>,
        symbols: &SymbolOrder,
    ) -> Rows {
        let width = columns.len();
        debug_assert_eq!(cells.len(), len * width);
        let row = |i: usize| &cells[i * width..(i + 1) * width];
        // An answer derived in order (a searched closure) is not sorted
        // again; an unsorted one is found out at its first inversion.
        let in_order = order_by.is_empty()
            && width > 0
            && (1..len).all(|i| symbols.cmp_rows(row(i - 1), row(i)).is_le());
        if in_order {
            return Rows::in_order(columns, cells, len, limit);
        }
        let mut order = canonical_order(&cells, width, len, symbols);
        let row = |i: u32| &cells[i as usize * width..(i as usize + 1) * width];
        if !order_by.is_empty() {
            order.sort_by(|&a, &b| {
                for &(c, desc) in order_by {
                    let o = symbols.cmp(&row(a)[c], &row(b)[c]);
                    if o.is_ne() {
                        return if desc { o.reverse() } else { o };
                    }
                }
                std::cmp::Ordering::Equal
            });
        }
        if let Some(n) = limit {
            order.truncate(usize::try_from(n).unwrap_or(usize::MAX));
        }
        let kept = order.len();
        let identity = order.iter().enumerate().all(|(i, &r)| i == r as usize);
        if identity {
            cells.truncate(kept * width);
        } else if kept == len && std::mem::size_of_val(cells.as_slice()) > IN_PLACE_ABOVE {
            // Every row of a large answer stays: moved in place, so it is
            // never held twice (slower than a copy, whose writes run in
            // order).
            permute_rows(&mut cells, width, &order);
        } else {
            // Move each value to its place (no clone, no drop).
            let mut out = Vec::with_capacity(len * width);
            for &r in &order {
                let at = r as usize * width;
                out.extend(
                    cells[at..at + width]
                        .iter_mut()
                        .map(|v| std::mem::replace(v, Val::Null)),
                );
            }
            cells = out;
        }
        Rows {
            columns,
            cells,
            len: kept,
            plain: false,
        }
    }

    /// The answer of the rows of `cells`, known to be in output order
    /// already (a search derived them in value order and nothing orders
    /// them otherwise), cut to `limit`.
    pub(crate) fn in_order(
        columns: Vec<String>,
        mut cells: Vec<Val>,
        len: usize,
        limit: Option<u64>,
    ) -> Rows {
        let width = columns.len();
        let kept = limit.map_or(len, |n| len.min(usize::try_from(n).unwrap_or(usize::MAX)));
        cells.truncate(kept * width);
        Rows {
            columns,
            cells,
            len: kept,
            plain: false,
        }
    }

    /// The same answer, known to hold no value that owns memory (a search
    /// over a graph of numbers, times, bools or symbols).
    pub(crate) fn of_plain_values(mut self) -> Rows {
        debug_assert!(self.cells.iter().all(Val::is_plain));
        self.plain = true;
        self
    }

    /// Rows in the answer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `i`, if there is one.
    pub fn row(&self, i: usize) -> Option<&[Val]> {
        let width = self.columns.len();
        (i < self.len).then(|| &self.cells[i * width..(i + 1) * width])
    }

    /// The rows in order.
    pub fn iter(&self) -> RowIter<'_> {
        RowIter { rows: self, at: 0 }
    }

    /// The rows as vectors of values (for callers that want to own them).
    pub fn to_vecs(&self) -> Vec<Vec<Val>> {
        self.iter().map(<[Val]>::to_vec).collect()
    }
}

/// The rows of a [`Rows`], in order.
pub struct RowIter<'a> {
    rows: &'a Rows,
    at: usize,
}

impl<'a> Iterator for RowIter<'a> {
    type Item = &'a [Val];

    fn next(&mut self) -> Option<&'a [Val]> {
        let row = self.rows.row(self.at)?;
        self.at += 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.rows.len - self.at;
        (left, Some(left))
    }
}

impl ExactSizeIterator for RowIter<'_> {}

impl<'a> IntoIterator for &'a Rows {
    type Item = &'a [Val];
    type IntoIter = RowIter<'a>;

    fn into_iter(self) -> RowIter<'a> {
        self.iter()
    }
}

/// Answers whose values take more bytes than this are put in order in
/// place rather than copied: a copy would hold them twice.
const IN_PLACE_ABOVE: usize = 64 << 20;

/// Puts row `order[i]` of `cells` (rows of `width` values) at position
/// `i`, for a permutation `order` of all the rows, by following its cycles
/// and swapping: nothing is cloned and nothing allocated but a bit per row.
fn permute_rows(cells: &mut [Val], width: usize, order: &[u32]) {
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        let mut at = start;
        while !placed[at] {
            placed[at] = true;
            let from = order[at] as usize;
            if from == start {
                break;
            }
            // `at` takes the row that belongs there; the cycle's first row
            // travels on to the next place that wants it.
            for c in 0..width {
                cells.swap(at * width + c, from * width + c);
            }
            at = from;
        }
    }
}

/// Row numbers in `Val` order of the rows. The leading columns in which
/// every value has one scalar type (symbols, ints or times) compare as
/// `u64` keys that order the same way: the rows are radix-sorted by the
/// first column's, then each run sharing it is sorted by the next keys,
/// and only rows equal on all of those compare their other values
/// (several times faster than comparing rows). Equal rows (bindings to
/// aggregate may repeat) end up next to each other.
pub(crate) fn canonical_order(
    cells: &[Val],
    width: usize,
    len: usize,
    symbols: &SymbolOrder,
) -> Vec<u32> {
    if width == 0 {
        return (0..len as u32).collect();
    }
    let row = |i: u32| &cells[i as usize * width..(i as usize + 1) * width];
    let key = |v: &Val| -> Option<(u8, u64)> {
        const FLIP: u64 = 1 << 63;
        match v {
            Val::Sym(s) => Some((0, symbols.rank(*s))),
            Val::Int(i) => Some((1, (*i as u64) ^ FLIP)),
            Val::Time(t) => Some((2, (*t as u64) ^ FLIP)),
            _ => None,
        }
    };
    // The leading columns whose values are all of one scalar kind.
    let one_kind = |c: usize| -> bool {
        let Some((kind, _)) = key(&row(0)[c]) else {
            return false;
        };
        (0..len as u32).all(|i| matches!(key(&row(i)[c]), Some((k, _)) if k == kind))
    };
    let keyed = if len == 0 {
        0
    } else {
        (0..width).take_while(|&c| one_kind(c)).count()
    };
    let mut order: Vec<u32> = (0..len as u32).collect();
    if keyed == 0 {
        order.sort_unstable_by(|&a, &b| symbols.cmp_rows(row(a), row(b)));
        return order;
    }
    let key_of = |r: u32, c: usize| key(&row(r)[c]).map_or(0, |(_, x)| x);
    // Radix passes by the first column, then each run of rows sharing it
    // sorted by the other keyed columns' keys and the rest's values.
    let mut pairs: Vec<(u64, u32)> = order.iter().map(|&r| (key_of(r, 0), r)).collect();
    sort_by_low_bits(&mut pairs, 64);
    order.clear();
    order.extend(pairs.iter().map(|&(_, r)| r));
    if width > 1 {
        let by_rest = |a: &u32, b: &u32| {
            (1..keyed)
                .map(|c| key_of(*a, c).cmp(&key_of(*b, c)))
                .find(|o| o.is_ne())
                .unwrap_or_else(|| symbols.cmp_rows(&row(*a)[keyed..], &row(*b)[keyed..]))
        };
        let mut start = 0;
        while start < pairs.len() {
            let mut end = start + 1;
            while end < pairs.len() && pairs[end].0 == pairs[start].0 {
                end += 1;
            }
            if end - start > 1 {
                order[start..end].sort_unstable_by(by_rest);
            }
            start = end;
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(rows: &[&[i64]]) -> Vec<Val> {
        rows.iter()
            .flat_map(|r| r.iter().map(|&i| Val::Int(i)))
            .collect()
    }

    fn cols(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("c{i}")).collect()
    }

    use proptest::prelude::*;

    proptest! {
        /// The keyed radix passes give the order comparing whole rows
        /// gives, whichever columns are scalar of one kind.
        #[test]
        fn canonical_order_is_the_order_of_whole_rows(
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![
                        6 => (-3i64..4).prop_map(Val::Int),
                        1 => (-3i64..4).prop_map(|t| Val::Time(t * 1000)),
                        1 => (0.0f64..2.0).prop_map(Val::Float),
                        1 => "[ab]{0,2}".prop_map(|s| Val::Str(s.into())),
                    ],
                    3,
                ),
                0..40,
            ),
        ) {
            let symbols = SymbolOrder::default();
            let cells: Vec<Val> = rows.iter().flatten().cloned().collect();
            let order = canonical_order(&cells, 3, rows.len(), &symbols);
            let got: Vec<&Vec<Val>> = order.iter().map(|&i| &rows[i as usize]).collect();
            let mut want: Vec<&Vec<Val>> = rows.iter().collect();
            want.sort_by(|a, b| symbols.cmp_rows(a, b));
            prop_assert_eq!(&got, &want);
            // A large answer moves its rows in place into that order.
            let want: Vec<Vec<Val>> = want.into_iter().cloned().collect();
            let mut moved = cells.clone();
            permute_rows(&mut moved, 3, &order);
            prop_assert_eq!(moved.chunks(3).map(<[Val]>::to_vec).collect::<Vec<_>>(), want.clone());
            let sorted = Rows::sorted(cols(3), cells, rows.len(), &[], None, &symbols);
            prop_assert_eq!(sorted.to_vecs(), want);
        }
    }

    #[test]
    fn answers_sort_by_value_then_order_by_then_limit() {
        let cells = ints(&[&[3, 1], &[1, 9], &[2, 5], &[1, 2]]);
        let rows = Rows::sorted(
            cols(2),
            cells.clone(),
            4,
            &[],
            None,
            &SymbolOrder::default(),
        );
        assert_eq!(
            rows.to_vecs(),
            vec![
                ints(&[&[1, 2]]),
                ints(&[&[1, 9]]),
                ints(&[&[2, 5]]),
                ints(&[&[3, 1]])
            ]
        );
        let rows = Rows::sorted(
            cols(2),
            cells,
            4,
            &[(1, true)],
            Some(2),
            &SymbolOrder::default(),
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.row(0), Some(ints(&[&[1, 9]]).as_slice()));
        assert_eq!(rows.row(1), Some(ints(&[&[2, 5]]).as_slice()));
        assert_eq!(rows.row(2), None);
    }

    #[test]
    fn mixed_first_columns_sort_by_whole_rows() {
        let cells = vec![
            Val::Str("b".into()),
            Val::Int(2),
            Val::Int(1),
            Val::Str("a".into()),
        ];
        let rows = Rows::sorted(cols(1), cells, 4, &[], None, &SymbolOrder::default());
        let firsts: Vec<Val> = rows.iter().map(|r| r[0].clone()).collect();
        assert_eq!(
            firsts,
            vec![
                Val::Int(1),
                Val::Int(2),
                Val::Str("a".into()),
                Val::Str("b".into())
            ]
        );
    }

    #[test]
    fn an_answer_of_plain_values_is_the_same_answer() {
        let cells = ints(&[&[1, 2], &[3, 4]]);
        let rows = Rows::in_order(cols(2), cells.clone(), 2, None);
        let plain = Rows::in_order(cols(2), cells, 2, None).of_plain_values();
        assert_eq!(plain, rows);
        assert_eq!(plain.clone().to_vecs(), rows.to_vecs());
        assert!(!Val::Str("text".into()).is_plain() && Val::Sym(3).is_plain());
    }

    #[test]
    fn an_answer_without_columns_counts_its_rows() {
        let yes = Rows::sorted(
            Vec::new(),
            Vec::new(),
            1,
            &[],
            None,
            &SymbolOrder::default(),
        );
        assert_eq!(yes.len(), 1);
        assert_eq!(yes.iter().collect::<Vec<_>>(), vec![&[] as &[Val]]);
        let no = Rows::from_rows(Vec::new(), Vec::new());
        assert!(no.is_empty());
    }
}
