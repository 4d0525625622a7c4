//! Per-column value index: which rows hold a given value (at any time).
//!
//! Most values in an agent's memory are held by a handful of rows (a person's
//! few jobs), a few by very many (a popular company). So each distinct value
//! keeps a *chain*: the newest row holding it, and per row the previous row
//! holding the same value — 4 bytes per row plus one small map entry per
//! value, where a roaring bitmap per value would cost a few hundred bytes. A
//! value held by more than `BITMAP_AT` rows also gets a roaring bitmap, so
//! intersections of popular values stay fast.

use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

use crate::chunked::ChunkedVec;
use crate::relation::NONE;
use crate::value::ValueRef;

/// Values held by more rows than this also keep a bitmap.
const BITMAP_AT: u32 = 64;

#[derive(Debug, Default)]
pub(crate) struct ValueIndex {
    /// Bool, Int, Float (bit pattern), Sym, Time: keyed by 64 bits.
    fixed: FxHashMap<u64, Head>,
    /// Str, Bytes: keyed by their bytes.
    var: FxHashMap<Box<[u8]>, Head>,
    null: Head,
    /// Per row: the previous row holding the same value, or `NONE`.
    prev: ChunkedVec<u32>,
}

#[derive(Debug)]
struct Head {
    last: u32,
    count: u32,
    bitmap: Option<Box<RoaringBitmap>>,
}

impl Default for Head {
    fn default() -> Self {
        Head {
            last: NONE,
            count: 0,
            bitmap: None,
        }
    }
}

/// The rows holding one value.
#[derive(Clone, Copy)]
pub(crate) enum Posting<'a> {
    Empty,
    Chain { prev: &'a ChunkedVec<u32>, last: u32, count: u32 },
    Bitmap(&'a RoaringBitmap),
}

impl<'a> Posting<'a> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Posting::Empty => 0,
            Posting::Chain { count, .. } => u64::from(*count),
            Posting::Bitmap(b) => b.len(),
        }
    }

    /// Calls `f` on every row (in no particular order).
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32)) {
        match *self {
            Posting::Empty => {}
            Posting::Chain { prev, last, .. } => {
                let mut row = last;
                while row != NONE {
                    f(row);
                    row = prev.get(row as usize);
                }
            }
            Posting::Bitmap(b) => b.iter().for_each(f),
        }
    }

    pub(crate) fn to_bitmap(self) -> RoaringBitmap {
        match self {
            Posting::Bitmap(b) => b.clone(),
            other => {
                let mut rows = Vec::with_capacity(other.len() as usize);
                other.for_each(|r| rows.push(r));
                rows.sort_unstable();
                RoaringBitmap::from_sorted_iter(rows).unwrap_or_default()
            }
        }
    }
}

enum Key<'a> {
    Fixed(u64),
    Var(&'a [u8]),
    Null,
}

fn key(value: ValueRef<'_>) -> Option<Key<'_>> {
    Some(match value {
        ValueRef::Null => Key::Null,
        ValueRef::Bool(b) => Key::Fixed(u64::from(b)),
        ValueRef::Int(i) => Key::Fixed(i as u64),
        ValueRef::Float(x) => Key::Fixed(x.to_bits()),
        ValueRef::Sym(s) => Key::Fixed(u64::from(s.0)),
        ValueRef::Time(t) => Key::Fixed(t.0 as u64),
        ValueRef::Str(s) => Key::Var(s.as_bytes()),
        ValueRef::Bytes(b) => Key::Var(b),
        ValueRef::Vector(_) => return None,
    })
}

impl ValueIndex {
    /// Records that `row` (the next row id) holds `value`.
    pub(crate) fn insert(&mut self, row: u32, value: ValueRef<'_>) {
        let head = match key(value) {
            Some(Key::Fixed(k)) => self.fixed.entry(k).or_default(),
            Some(Key::Var(bytes)) => {
                if !self.var.contains_key(bytes) {
                    self.var.insert(bytes.into(), Head::default());
                }
                match self.var.get_mut(bytes) {
                    Some(head) => head,
                    None => return,
                }
            }
            Some(Key::Null) => &mut self.null,
            None => {
                self.prev.push(NONE);
                return;
            }
        };
        self.prev.push(head.last);
        head.last = row;
        head.count += 1;
        match &mut head.bitmap {
            Some(bitmap) => {
                bitmap.insert(row);
            }
            None if head.count > BITMAP_AT => {
                let chain = Posting::Chain {
                    prev: &self.prev,
                    last: head.last,
                    count: head.count,
                };
                head.bitmap = Some(Box::new(chain.to_bitmap()));
            }
            None => {}
        }
    }

    /// The rows holding `value` (`Empty` for vectors, which are not indexed).
    pub(crate) fn get(&self, value: ValueRef<'_>) -> Posting<'_> {
        let head = match key(value) {
            Some(Key::Fixed(k)) => self.fixed.get(&k),
            Some(Key::Var(bytes)) => self.var.get(bytes),
            Some(Key::Null) => Some(&self.null),
            None => None,
        };
        match head {
            None => Posting::Empty,
            Some(Head { bitmap: Some(b), .. }) => Posting::Bitmap(b),
            Some(h) if h.count == 0 => Posting::Empty,
            Some(h) => Posting::Chain {
                prev: &self.prev,
                last: h.last,
                count: h.count,
            },
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(u64, Head)>() + 1;
        let bitmaps: usize = self
            .fixed
            .values()
            .chain(self.var.values())
            .filter_map(|h| h.bitmap.as_ref())
            .map(|b| b.serialized_size() + 32)
            .sum();
        self.fixed.capacity() * entry
            + self.var.iter().map(|(k, _)| k.len() + 16).sum::<usize>()
            + self.var.capacity() * (std::mem::size_of::<(Box<[u8]>, Head)>() + 1)
            + self.prev.heap_bytes()
            + bitmaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Symbol;

    #[test]
    fn chains_and_bitmaps_agree_with_a_scan() {
        let mut index = ValueIndex::default();
        let values: Vec<u32> = (0..5000).map(|i| if i % 3 == 0 { 1 } else { i % 17 }).collect();
        for (row, &v) in values.iter().enumerate() {
            index.insert(row as u32, ValueRef::Sym(Symbol(v)));
        }
        index.insert(5000, ValueRef::Str("x"));
        index.insert(5001, ValueRef::Null);
        for v in 0..20u32 {
            let expected: Vec<u32> = (0..values.len() as u32).filter(|&r| values[r as usize] == v).collect();
            let posting = index.get(ValueRef::Sym(Symbol(v)));
            assert_eq!(posting.len() as usize, expected.len());
            assert_eq!(posting.to_bitmap().iter().collect::<Vec<_>>(), expected);
        }
        assert_eq!(index.get(ValueRef::Str("x")).to_bitmap().iter().collect::<Vec<_>>(), vec![5000]);
        assert_eq!(index.get(ValueRef::Str("y")).len(), 0);
        assert_eq!(index.get(ValueRef::Null).to_bitmap().iter().collect::<Vec<_>>(), vec![5001]);
    }
}
