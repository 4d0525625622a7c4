//! Per-column value index: which rows hold a given value (at any time).
//!
//! Most values in an agent's memory are held by a handful of rows (a person's
//! few jobs), a few by very many (a popular company). So each distinct value
//! keeps its rows inline in the map entry while they fit (`INLINE` of them,
//! no allocation), then in a vector, and past `BITMAP_AT` in a roaring
//! bitmap (compact, and fast to intersect). Rows are appended in increasing id order, so every
//! form is sorted and a lookup hands out all row ids at once: the row checks
//! that follow are independent loads the CPU can overlap.

use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

use crate::value::ValueRef;

/// Rows kept inside the map entry itself.
const INLINE: usize = 5;
/// Values held by more rows than this switch to a bitmap.
const BITMAP_AT: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct ValueIndex {
    /// Bool, Int, Float (bit pattern), Sym, Time: keyed by 64 bits.
    fixed: FxHashMap<u64, Rows>,
    /// Str, Bytes: keyed by their bytes.
    var: FxHashMap<Box<[u8]>, Rows>,
    null: Rows,
}

/// The rows holding one value, ascending.
#[derive(Debug)]
enum Rows {
    Inline { len: u8, rows: [u32; INLINE] },
    List(Vec<u32>),
    Bitmap(Box<RoaringBitmap>),
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Inline {
            len: 0,
            rows: [0; INLINE],
        }
    }
}

impl Rows {
    fn push(&mut self, row: u32) {
        match self {
            Rows::Inline { len, rows } if (*len as usize) < INLINE => {
                rows[*len as usize] = row;
                *len += 1;
            }
            Rows::Inline { rows, .. } => {
                let mut all = Vec::with_capacity(2 * INLINE);
                all.extend_from_slice(rows);
                all.push(row);
                *self = Rows::List(all);
            }
            Rows::List(list) if list.len() < BITMAP_AT => list.push(row),
            Rows::List(list) => {
                let mut bitmap =
                    RoaringBitmap::from_sorted_iter(list.iter().copied()).unwrap_or_default();
                bitmap.insert(row);
                *self = Rows::Bitmap(Box::new(bitmap));
            }
            Rows::Bitmap(bitmap) => {
                bitmap.insert(row);
            }
        }
    }

    fn posting(&self) -> Posting<'_> {
        match self {
            Rows::Inline { len, rows } => Posting::List(&rows[..*len as usize]),
            Rows::List(list) => Posting::List(list),
            Rows::Bitmap(bitmap) => Posting::Bitmap(bitmap),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Rows::Inline { .. } => 0,
            Rows::List(list) => list.capacity() * 4 + 16,
            Rows::Bitmap(bitmap) => bitmap.serialized_size() + 48,
        }
    }
}

/// The rows holding one value, in ascending row order.
#[derive(Clone, Copy)]
pub(crate) enum Posting<'a> {
    List(&'a [u32]),
    Bitmap(&'a RoaringBitmap),
}

impl Posting<'_> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Posting::List(rows) => rows.len() as u64,
            Posting::Bitmap(b) => b.len(),
        }
    }

    /// Calls `f` on every row, ascending.
    pub(crate) fn for_each(&self, f: impl FnMut(u32)) {
        match *self {
            Posting::List(rows) => rows.iter().copied().for_each(f),
            Posting::Bitmap(b) => b.iter().for_each(f),
        }
    }

    pub(crate) fn to_bitmap(self) -> RoaringBitmap {
        match self {
            Posting::List(rows) => {
                RoaringBitmap::from_sorted_iter(rows.iter().copied()).unwrap_or_default()
            }
            Posting::Bitmap(b) => b.clone(),
        }
    }
}

enum Key<'a> {
    Fixed(u64),
    Var(&'a [u8]),
    Null,
}

/// A bijective bit mixer (the murmur3 finalizer). The fixed-width keys go
/// through it before FxHash, which keeps low bits low: without it, times in
/// microseconds (dates have many trailing zero bits) or integral floats would
/// crowd into a few buckets.
fn mix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

fn key(value: ValueRef<'_>) -> Option<Key<'_>> {
    Some(match value {
        ValueRef::Null => Key::Null,
        ValueRef::Bool(b) => Key::Fixed(mix(u64::from(b))),
        ValueRef::Int(i) => Key::Fixed(mix(i as u64)),
        ValueRef::Float(x) => Key::Fixed(mix(x.to_bits())),
        ValueRef::Sym(s) => Key::Fixed(mix(u64::from(s.0))),
        ValueRef::Time(t) => Key::Fixed(mix(t.0 as u64)),
        ValueRef::Str(s) => Key::Var(s.as_bytes()),
        ValueRef::Bytes(b) => Key::Var(b),
        ValueRef::Vector(_) => return None,
    })
}

impl ValueIndex {
    /// Records that `row` (the next row id) holds `value`.
    pub(crate) fn insert(&mut self, row: u32, value: ValueRef<'_>) {
        let rows = match key(value) {
            Some(Key::Fixed(k)) => self.fixed.entry(k).or_default(),
            Some(Key::Var(bytes)) => {
                if !self.var.contains_key(bytes) {
                    self.var.insert(bytes.into(), Rows::default());
                }
                match self.var.get_mut(bytes) {
                    Some(rows) => rows,
                    None => return,
                }
            }
            Some(Key::Null) => &mut self.null,
            None => return,
        };
        rows.push(row);
    }

    /// The rows holding `value` (empty for vectors, which are not indexed).
    pub(crate) fn get(&self, value: ValueRef<'_>) -> Posting<'_> {
        let rows = match key(value) {
            Some(Key::Fixed(k)) => self.fixed.get(&k),
            Some(Key::Var(bytes)) => self.var.get(bytes),
            Some(Key::Null) => Some(&self.null),
            None => None,
        };
        rows.map_or(Posting::List(&[]), Rows::posting)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(u64, Rows)>() + 1;
        self.fixed.capacity() * entry
            + self.var.capacity() * (std::mem::size_of::<(Box<[u8]>, Rows)>() + 1)
            + self.var.keys().map(|k| k.len() + 16).sum::<usize>()
            + self
                .fixed
                .values()
                .chain(self.var.values())
                .map(Rows::heap_bytes)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Symbol;

    #[test]
    fn chains_and_bitmaps_agree_with_a_scan() {
        let mut index = ValueIndex::default();
        let values: Vec<u32> = (0..5000)
            .map(|i| if i % 3 == 0 { 1 } else { i % 17 })
            .collect();
        for (row, &v) in values.iter().enumerate() {
            index.insert(row as u32, ValueRef::Sym(Symbol(v)));
        }
        index.insert(5000, ValueRef::Str("x"));
        index.insert(5001, ValueRef::Null);
        for v in 0..20u32 {
            let expected: Vec<u32> = (0..values.len() as u32)
                .filter(|&r| values[r as usize] == v)
                .collect();
            let posting = index.get(ValueRef::Sym(Symbol(v)));
            assert_eq!(posting.len() as usize, expected.len());
            assert_eq!(posting.to_bitmap().iter().collect::<Vec<_>>(), expected);
        }
        assert_eq!(
            index
                .get(ValueRef::Str("x"))
                .to_bitmap()
                .iter()
                .collect::<Vec<_>>(),
            vec![5000]
        );
        assert_eq!(index.get(ValueRef::Str("y")).len(), 0);
        assert_eq!(
            index
                .get(ValueRef::Null)
                .to_bitmap()
                .iter()
                .collect::<Vec<_>>(),
            vec![5001]
        );
    }
}
