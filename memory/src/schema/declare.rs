//! The `relation!` declaration: one block per `mem_*` relation gives its
//! row type, its column numbers, the conversions both ways and its
//! `:create` text, so a column is named in exactly one place.

use chronolog_engine::{Store, Timestamp, Value, WriteTxn};

use crate::error::{Error, Result};

/// A column's storage type and the Rust type its rows hold.
pub trait Kind {
    /// The Rust value of one cell.
    type Cell;
    /// The type's name in `:create`.
    const NAME: &'static str;
    /// The stored value as the row type holds it, `None` when it is of
    /// another type (a store this schema did not write).
    fn read(store: &Store, value: &Value) -> Option<Self::Cell>;
    /// The value to store.
    fn write(txn: &mut WriteTxn<'_>, cell: &Self::Cell) -> chronolog_engine::Result<Value>;
}

/// An interned name, read back as its text.
pub struct Sym;
/// Free text.
pub struct Str;
/// A 64-bit integer.
pub struct Int;
/// A 64-bit float.
pub struct Float;
/// An instant.
pub struct Time;

impl Kind for Sym {
    type Cell = String;
    const NAME: &'static str = "sym";
    fn read(store: &Store, value: &Value) -> Option<String> {
        match value {
            Value::Sym(s) => store.symbol_name(*s).ok().map(|n| n.to_string()),
            _ => None,
        }
    }
    fn write(txn: &mut WriteTxn<'_>, cell: &String) -> chronolog_engine::Result<Value> {
        Ok(Value::Sym(txn.symbol(cell)?))
    }
}

impl Kind for Str {
    type Cell = String;
    const NAME: &'static str = "str";
    fn read(_: &Store, value: &Value) -> Option<String> {
        match value {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }
    fn write(_: &mut WriteTxn<'_>, cell: &String) -> chronolog_engine::Result<Value> {
        Ok(Value::str(cell))
    }
}

impl Kind for Int {
    type Cell = i64;
    const NAME: &'static str = "int";
    fn read(_: &Store, value: &Value) -> Option<i64> {
        match value {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    fn write(_: &mut WriteTxn<'_>, cell: &i64) -> chronolog_engine::Result<Value> {
        Ok(Value::Int(*cell))
    }
}

impl Kind for Float {
    type Cell = f64;
    const NAME: &'static str = "float";
    fn read(_: &Store, value: &Value) -> Option<f64> {
        match value {
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
    fn write(_: &mut WriteTxn<'_>, cell: &f64) -> chronolog_engine::Result<Value> {
        Ok(Value::Float(*cell))
    }
}

impl Kind for Time {
    type Cell = Timestamp;
    const NAME: &'static str = "time";
    fn read(_: &Store, value: &Value) -> Option<Timestamp> {
        match value {
            Value::Time(t) => Some(*t),
            _ => None,
        }
    }
    fn write(_: &mut WriteTxn<'_>, cell: &Timestamp) -> chronolog_engine::Result<Value> {
        Ok(Value::Time(*cell))
    }
}

/// One cell of a stored row, or the error that names the relation and
/// column that did not hold what the schema says.
pub(crate) fn cell<K: Kind>(
    store: &Store,
    values: &[Value],
    relation: &'static str,
    column: usize,
) -> Result<K::Cell> {
    values
        .get(column)
        .and_then(|v| K::read(store, v))
        .ok_or(Error::BadRow { relation, column })
}

/// A relation's `:create` statement from its columns: `(name, type,
/// annotation)`, the annotation empty or `key`, `search`, `embed`, ....
pub(crate) fn create_text(name: &str, columns: &[(&str, &str, &str)]) -> String {
    let columns: Vec<String> = columns
        .iter()
        .map(|(column, kind, annotation)| {
            if annotation.is_empty() {
                format!("{column}: {kind}")
            } else {
                format!("{column}: {kind} {annotation}")
            }
        })
        .collect();
    format!(":create {name}({}).", columns.join(", "))
}

/// Declares a `mem_*` relation: its row type with one field per column
/// (in column order), a `usize` constant per column for scans that match
/// or read one column, `from_values` / `to_values`, and `create`.
macro_rules! relation {
    (
        $(#[$doc:meta])*
        $row:ident = $name:literal {
            $(
                $(#[$field_doc:meta])*
                $field:ident / $column:ident : $kind:ident $($annotation:literal)?
            ),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $row {
            $(
                $(#[$field_doc])*
                pub $field: <$crate::schema::declare::$kind as $crate::schema::declare::Kind>::Cell,
            )+
        }

        const _: () = {
            #[allow(non_camel_case_types, dead_code)]
            enum Columns { $($field),+ }

            #[allow(dead_code)]
            impl $row {
                /// The relation's name in the store and the language.
                pub const RELATION: &'static str = $name;
                $(
                    #[doc = concat!("The column number of `", stringify!($field), "`.")]
                    pub const $column: usize = Columns::$field as usize;
                )+
                /// How many columns a row has.
                pub const ARITY: usize = [$(stringify!($field)),+].len();

                /// The `:create` statement this declaration stands for.
                pub fn create() -> String {
                    $crate::schema::declare::create_text($name, &[$(
                        (
                            stringify!($field),
                            <$crate::schema::declare::$kind as $crate::schema::declare::Kind>::NAME,
                            relation!(@annotation $($annotation)?),
                        )
                    ),+])
                }

                /// The row a scan returned, or [`crate::Error::BadRow`] for a
                /// row that does not have this relation's shape.
                pub fn from_values(
                    store: &chronolog_engine::Store,
                    values: &[chronolog_engine::Value],
                ) -> $crate::error::Result<$row> {
                    Ok($row {
                        $(
                            $field: $crate::schema::declare::cell::<$crate::schema::declare::$kind>(
                                store, values, $name, Self::$column,
                            )?,
                        )+
                    })
                }

                /// The values to assert, names interned in `txn`.
                pub fn to_values(
                    &self,
                    txn: &mut chronolog_engine::WriteTxn<'_>,
                ) -> chronolog_engine::Result<Vec<chronolog_engine::Value>> {
                    Ok(vec![$(
                        <$crate::schema::declare::$kind as $crate::schema::declare::Kind>::write(
                            txn, &self.$field,
                        )?
                    ),+])
                }
            }
        };
    };
    (@annotation $annotation:literal) => { $annotation };
    (@annotation) => { "" };
}

pub(crate) use relation;
