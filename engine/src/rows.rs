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
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// Column names.
    pub columns: Vec<String>,
    /// Row `i` is `cells[i * width..(i + 1) * width]`.
    cells: Vec<Val>,
    /// Rows (needed apart from `cells` when there are no columns: a
    /// yes/no question answers with one empty row or none).
    len: usize,
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
        let len = order.len();
        let identity = order.iter().enumerate().all(|(i, &r)| i == r as usize);
        if identity {
            cells.truncate(len * width);
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
            len,
        }
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

/// Row numbers in `Val` order of the rows. When every first value has the
/// same scalar type, the sort runs on `(u64 key, row)` pairs that order the
/// same way, which is several times faster than comparing rows. Equal rows
/// (bindings to aggregate may repeat) end up next to each other.
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
    let first = cells.first().and_then(key);
    let keys: Option<Vec<(u64, u32)>> = first.and_then(|(kind, _)| {
        (0..len as u32)
            .map(|i| match key(&row(i)[0]) {
                Some((k, x)) if k == kind => Some((x, i)),
                _ => None,
            })
            .collect()
    });
    match keys {
        Some(mut keys) => {
            // Pairs sort by their integer key (stably, so by row within a
            // key); only rows that share a first value then need their
            // other values compared.
            sort_by_low_bits(&mut keys, 64);
            if width > 1 {
                let mut start = 0;
                while start < keys.len() {
                    let mut end = start + 1;
                    while end < keys.len() && keys[end].0 == keys[start].0 {
                        end += 1;
                    }
                    if end - start > 1 {
                        keys[start..end].sort_unstable_by(|a, b| {
                            symbols.cmp_rows(&row(a.1)[1..], &row(b.1)[1..])
                        });
                    }
                    start = end;
                }
            }
            keys.into_iter().map(|(_, i)| i).collect()
        }
        None => {
            let mut order: Vec<u32> = (0..len as u32).collect();
            order.sort_unstable_by(|&a, &b| symbols.cmp_rows(row(a), row(b)));
            order
        }
    }
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
