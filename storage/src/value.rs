//! Values, their types, and the borrowed view used on hot paths.
//!
//! [`Value`] is the owned form that crosses API boundaries; [`ValueRef`] borrows
//! straight from a relation's columns so scans allocate nothing per row.
//! Symbols are interned: a [`Symbol`] is a `u32` id into the database's symbol
//! table, which makes joins and index lookups on names integer comparisons.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// An interned name (`alice`, `works_at`); resolve it with
/// `Store::symbol_name`. Ids are dense and stable for the database's life.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Symbol(pub u32);

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The type of a column. Every value stored in the column must have it (or be
/// `Null` where the column is nullable).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ColumnType {
    /// `true` / `false`.
    Bool,
    /// 64-bit signed integer.
    Int,
    /// 64-bit float.
    Float,
    /// UTF-8 text, stored in a byte arena.
    Str,
    /// An interned name.
    Sym,
    /// Opaque bytes.
    Bytes,
    /// A point in time (UTC microseconds).
    Time,
    /// An `f32` vector of exactly this many dimensions.
    Vector(u32),
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnType::Bool => f.write_str("bool"),
            ColumnType::Int => f.write_str("int"),
            ColumnType::Float => f.write_str("float"),
            ColumnType::Str => f.write_str("str"),
            ColumnType::Sym => f.write_str("sym"),
            ColumnType::Bytes => f.write_str("bytes"),
            ColumnType::Time => f.write_str("time"),
            ColumnType::Vector(dim) => write!(f, "vec<{dim}>"),
        }
    }
}

/// An owned value.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub enum Value {
    /// Absent; only allowed in nullable columns.
    Null,
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// Text.
    Str(Arc<str>),
    /// An interned name.
    Sym(Symbol),
    /// Opaque bytes.
    Bytes(Arc<[u8]>),
    /// A point in time.
    Time(Timestamp),
    /// A dense `f32` vector.
    Vector(Arc<[f32]>),
}

impl Value {
    /// Text value from anything string-like.
    pub fn str(s: impl AsRef<str>) -> Value {
        Value::Str(Arc::from(s.as_ref()))
    }

    /// Borrows this value as a [`ValueRef`].
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Bool(b) => ValueRef::Bool(*b),
            Value::Int(i) => ValueRef::Int(*i),
            Value::Float(x) => ValueRef::Float(*x),
            Value::Str(s) => ValueRef::Str(s),
            Value::Sym(s) => ValueRef::Sym(*s),
            Value::Bytes(b) => ValueRef::Bytes(b),
            Value::Time(t) => ValueRef::Time(*t),
            Value::Vector(v) => ValueRef::Vector(v),
        }
    }

    /// Short description for error messages ("str \"abc\"", "int 3").
    pub fn describe(&self) -> String {
        self.as_ref().describe()
    }
}

/// A value borrowed from storage; what scans hand out.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum ValueRef<'a> {
    /// Absent.
    Null,
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(f64),
    /// Text.
    Str(&'a str),
    /// An interned name.
    Sym(Symbol),
    /// Opaque bytes.
    Bytes(&'a [u8]),
    /// A point in time.
    Time(Timestamp),
    /// A dense vector.
    Vector(&'a [f32]),
}

impl ValueRef<'_> {
    /// Copies into an owned [`Value`].
    pub fn to_owned(self) -> Value {
        match self {
            ValueRef::Null => Value::Null,
            ValueRef::Bool(b) => Value::Bool(b),
            ValueRef::Int(i) => Value::Int(i),
            ValueRef::Float(x) => Value::Float(x),
            ValueRef::Str(s) => Value::Str(Arc::from(s)),
            ValueRef::Sym(s) => Value::Sym(s),
            ValueRef::Bytes(b) => Value::Bytes(Arc::from(b)),
            ValueRef::Time(t) => Value::Time(t),
            ValueRef::Vector(v) => Value::Vector(Arc::from(v)),
        }
    }

    /// Whether this value may be stored in a column of type `ty`.
    pub fn fits(self, ty: ColumnType) -> bool {
        matches!(
            (self, ty),
            (ValueRef::Bool(_), ColumnType::Bool)
                | (ValueRef::Int(_), ColumnType::Int)
                | (ValueRef::Float(_), ColumnType::Float)
                | (ValueRef::Str(_), ColumnType::Str)
                | (ValueRef::Sym(_), ColumnType::Sym)
                | (ValueRef::Bytes(_), ColumnType::Bytes)
                | (ValueRef::Time(_), ColumnType::Time)
        ) || matches!((self, ty), (ValueRef::Vector(v), ColumnType::Vector(d)) if v.len() == d as usize)
    }

    /// Short description for error messages.
    pub fn describe(self) -> String {
        match self {
            ValueRef::Null => "null".into(),
            ValueRef::Bool(b) => format!("bool {b}"),
            ValueRef::Int(i) => format!("int {i}"),
            ValueRef::Float(x) => format!("float {x}"),
            ValueRef::Str(s) if s.len() > 40 => {
                format!("str {:?}...", &s[..s.floor_char_boundary(40)])
            }
            ValueRef::Str(s) => format!("str {s:?}"),
            ValueRef::Sym(s) => format!("sym {s:?}"),
            ValueRef::Bytes(b) => format!("bytes[{}]", b.len()),
            ValueRef::Time(t) => format!("time {t}"),
            ValueRef::Vector(v) => format!("vec<{}>", v.len()),
        }
    }
}
