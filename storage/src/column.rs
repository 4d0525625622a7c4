//! Columnar, append-only storage of one relation's values.
//!
//! Each column is a flat typed vector (strings and bytes in one arena with an
//! offset table, vectors in one contiguous `f32` arena), so appending a row
//! allocates nothing per row and scans read memory sequentially. Null slots
//! hold a placeholder and are marked in a per-column bitmap.

use roaring::RoaringBitmap;

use crate::chunked::ChunkedVec;
use crate::value::{ColumnType, Symbol, Value, ValueRef};
use crate::vectors::VectorArena;

/// One column's values for a set of rows, from `Snapshot::gather`.
#[derive(Clone, Debug, PartialEq)]
pub enum Gathered {
    /// A bool, int, symbol or time column (its type is given) with no null
    /// among the rows: each value's bits (a bool as 0 or 1, an int or a
    /// time as its `i64` bits, a symbol as its id).
    Scalars(ColumnType, Vec<u64>),
    /// Any other column: the values.
    Values(Vec<Value>),
}

/// One column's values for every row of a relation.
#[derive(Debug)]
pub(crate) struct Column {
    data: ColumnData,
    nulls: RoaringBitmap,
}

#[derive(Debug)]
enum ColumnData {
    Bool(ChunkedVec<bool>),
    Int(ChunkedVec<i64>),
    Float(ChunkedVec<f64>),
    Sym(ChunkedVec<u32>),
    Time(ChunkedVec<i64>),
    Str(Arena),
    Bytes(Arena),
    Vector(VectorArena),
}

/// Variable-length values end to end; `ends[i]` is one past row i's last byte.
#[derive(Debug, Default)]
struct Arena {
    ends: ChunkedVec<u64>,
    bytes: Vec<u8>,
}

impl Arena {
    fn push(&mut self, item: &[u8]) {
        self.bytes.extend_from_slice(item);
        self.ends.push(self.bytes.len() as u64);
    }

    fn get(&self, row: usize) -> &[u8] {
        let start = if row == 0 {
            0
        } else {
            self.ends.get(row - 1) as usize
        };
        &self.bytes[start..self.ends.get(row) as usize]
    }

    fn zero(&mut self, row: usize) {
        let start = if row == 0 {
            0
        } else {
            self.ends.get(row - 1) as usize
        };
        self.bytes[start..self.ends.get(row) as usize].fill(0);
    }

    fn heap_bytes(&self) -> usize {
        self.ends.heap_bytes() + self.bytes.capacity()
    }
}

impl Column {
    pub(crate) fn new(ty: ColumnType) -> Column {
        let data = match ty {
            ColumnType::Bool => ColumnData::Bool(ChunkedVec::default()),
            ColumnType::Int => ColumnData::Int(ChunkedVec::default()),
            ColumnType::Float => ColumnData::Float(ChunkedVec::default()),
            ColumnType::Sym => ColumnData::Sym(ChunkedVec::default()),
            ColumnType::Time => ColumnData::Time(ChunkedVec::default()),
            ColumnType::Str => ColumnData::Str(Arena::default()),
            ColumnType::Bytes => ColumnData::Bytes(Arena::default()),
            ColumnType::Vector(dim) => ColumnData::Vector(VectorArena::new(dim as usize)),
        };
        Column {
            data,
            nulls: RoaringBitmap::new(),
        }
    }

    /// Appends a value that the schema has already checked; `row` is the id
    /// the value gets (the column's current length).
    pub(crate) fn push(&mut self, row: u32, value: ValueRef<'_>) {
        if value == ValueRef::Null {
            self.nulls.insert(row);
        }
        match (&mut self.data, value) {
            (ColumnData::Bool(v), ValueRef::Bool(b)) => v.push(b),
            (ColumnData::Int(v), ValueRef::Int(i)) => v.push(i),
            (ColumnData::Float(v), ValueRef::Float(x)) => v.push(x),
            (ColumnData::Sym(v), ValueRef::Sym(s)) => v.push(s.0),
            (ColumnData::Time(v), ValueRef::Time(t)) => v.push(t.0),
            (ColumnData::Str(a), ValueRef::Str(s)) => a.push(s.as_bytes()),
            (ColumnData::Bytes(a), ValueRef::Bytes(b)) => a.push(b),
            (ColumnData::Vector(a), ValueRef::Vector(x)) => a.push(x),
            // Null (or, defensively, a mismatched value): keep rows aligned.
            (ColumnData::Bool(v), _) => v.push(false),
            (ColumnData::Int(v), _) => v.push(0),
            (ColumnData::Float(v), _) => v.push(0.0),
            (ColumnData::Sym(v), _) => v.push(u32::MAX),
            (ColumnData::Time(v), _) => v.push(0),
            (ColumnData::Str(a) | ColumnData::Bytes(a), _) => a.push(&[]),
            (ColumnData::Vector(a), _) => a.push_zero(),
        }
    }

    /// Erases the value at `row` (purge): zeroes its bytes and marks it null.
    pub(crate) fn redact(&mut self, row: u32) {
        self.nulls.insert(row);
        let i = row as usize;
        match &mut self.data {
            ColumnData::Bool(v) => v.set(i, false),
            ColumnData::Int(v) | ColumnData::Time(v) => v.set(i, 0),
            ColumnData::Float(v) => v.set(i, 0.0),
            ColumnData::Sym(v) => v.set(i, u32::MAX),
            ColumnData::Str(a) | ColumnData::Bytes(a) => a.zero(i),
            ColumnData::Vector(a) => a.zero(i),
        }
    }

    /// The value at `row`, borrowed.
    #[inline]
    pub(crate) fn get(&self, row: u32) -> ValueRef<'_> {
        if !self.nulls.is_empty() && self.nulls.contains(row) {
            return ValueRef::Null;
        }
        let i = row as usize;
        match &self.data {
            ColumnData::Bool(v) => ValueRef::Bool(v.get(i)),
            ColumnData::Int(v) => ValueRef::Int(v.get(i)),
            ColumnData::Float(v) => ValueRef::Float(v.get(i)),
            ColumnData::Sym(v) => ValueRef::Sym(Symbol(v.get(i))),
            ColumnData::Time(v) => ValueRef::Time(crate::time::Timestamp(v.get(i))),
            // The arena only ever receives `&str` bytes for Str columns.
            ColumnData::Str(a) => ValueRef::Str(std::str::from_utf8(a.get(i)).unwrap_or("")),
            ColumnData::Bytes(a) => ValueRef::Bytes(a.get(i)),
            ColumnData::Vector(a) => ValueRef::Vector(a.get(i)),
        }
    }

    /// Whether `gather` reads this column as scalars for `rows`: a bool,
    /// int, symbol or time column with no null among them.
    pub(crate) fn scalar_for(&self, rows: &RoaringBitmap) -> bool {
        matches!(
            self.data,
            ColumnData::Bool(_) | ColumnData::Int(_) | ColumnData::Sym(_) | ColumnData::Time(_)
        ) && self.nulls.is_disjoint(rows)
    }

    /// Appends the values at `rows` to `out`: as bits when `out` is
    /// `Gathered::Scalars` (the caller checked `scalar_for`), else as
    /// values. The type is matched once per call, not per value.
    pub(crate) fn gather(&self, rows: impl Iterator<Item = u32>, out: &mut Gathered) {
        match (&self.data, out) {
            (ColumnData::Bool(v), Gathered::Scalars(_, bits)) => {
                bits.extend(rows.map(|r| u64::from(v.get(r as usize))));
            }
            (ColumnData::Int(v) | ColumnData::Time(v), Gathered::Scalars(_, bits)) => {
                bits.extend(rows.map(|r| v.get(r as usize) as u64));
            }
            (ColumnData::Sym(v), Gathered::Scalars(_, bits)) => {
                bits.extend(rows.map(|r| u64::from(v.get(r as usize))));
            }
            (_, Gathered::Values(values)) => values.extend(rows.map(|r| self.get(r).to_owned())),
            // Scalars asked of a column that has none: `scalar_for` said no.
            (_, Gathered::Scalars(..)) => {}
        }
    }

    /// The vector arena, for a vector column.
    pub(crate) fn vectors(&self) -> Option<&VectorArena> {
        match &self.data {
            ColumnData::Vector(a) => Some(a),
            _ => None,
        }
    }

    /// Bytes held on the heap, for memory accounting.
    pub(crate) fn heap_bytes(&self) -> usize {
        let data = match &self.data {
            ColumnData::Bool(v) => v.heap_bytes(),
            ColumnData::Int(v) => v.heap_bytes(),
            ColumnData::Float(v) => v.heap_bytes(),
            ColumnData::Sym(v) => v.heap_bytes(),
            ColumnData::Time(v) => v.heap_bytes(),
            ColumnData::Str(a) | ColumnData::Bytes(a) => a.heap_bytes(),
            ColumnData::Vector(a) => a.heap_bytes(),
        };
        data + self.nulls.serialized_size()
    }
}
