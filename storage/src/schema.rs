//! Relation schemas: typed columns, and which of them form the functional slot.
//!
//! Key columns decide what a new assertion replaces. With keys, the slot is the
//! key values: `works_at(person key, company)` holds at most one company per
//! person at any valid instant. Without keys the slot is the whole tuple, so
//! distinct tuples accumulate and only an identical tuple is merged.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::value::{ColumnType, ValueRef};

/// One column of a relation.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ColumnDef {
    /// Column name, unique within the relation.
    pub name: String,
    /// The type every value must have.
    pub ty: ColumnType,
    /// Whether this column is part of the functional slot.
    pub key: bool,
    /// Whether `Null` is accepted.
    pub nullable: bool,
    /// What the layer above asks of the column beyond its type and key
    /// (the engine: its text analyzer, whether it embeds the text): kept
    /// with the schema, never read here.
    pub annotations: Annotations,
}

/// Bytes the layer above keeps on a column and interprets itself; the
/// store only persists them. Two bytes where a column's `search` and
/// `embed` flags used to be: postcard writes a `bool`, a small enum index
/// and a `u8` as the same one byte, so every schema written before reads
/// back unchanged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash, Serialize, Deserialize)]
pub struct Annotations(pub [u8; 2]);

impl ColumnDef {
    /// A non-key, non-nullable column.
    pub fn new(name: impl Into<String>, ty: ColumnType) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            ty,
            key: false,
            nullable: false,
            annotations: Annotations::default(),
        }
    }

    /// Marks the column as part of the functional slot.
    pub fn key(mut self) -> ColumnDef {
        self.key = true;
        self
    }

    /// Lets the column hold `Null`.
    pub fn nullable(mut self) -> ColumnDef {
        self.nullable = true;
        self
    }

    /// Sets what the layer above asks of the column.
    pub fn annotated(mut self, annotations: Annotations) -> ColumnDef {
        self.annotations = annotations;
        self
    }
}

/// A relation's name and columns.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Schema {
    /// Relation name, unique in the database.
    pub name: String,
    /// Columns in positional order.
    pub columns: Vec<ColumnDef>,
}

/// Upper bound on columns per relation; keeps row encodings and error
/// messages bounded.
pub const MAX_COLUMNS: usize = 64;

impl Schema {
    /// A schema from a name and its columns.
    pub fn new(name: impl Into<String>, columns: Vec<ColumnDef>) -> Schema {
        Schema {
            name: name.into(),
            columns,
        }
    }

    /// Number of columns.
    pub fn arity(&self) -> usize {
        self.columns.len()
    }

    /// Whether the relation has key columns (a functional slot).
    pub fn is_functional(&self) -> bool {
        self.columns.iter().any(|c| c.key)
    }

    /// Positions of the columns that identify a slot: the key columns, or all
    /// columns when there are none.
    pub fn slot_columns(&self) -> Vec<usize> {
        let keys: Vec<usize> = (0..self.columns.len())
            .filter(|&i| self.columns[i].key)
            .collect();
        if keys.is_empty() {
            (0..self.columns.len()).collect()
        } else {
            keys
        }
    }

    /// Position of the column called `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub(crate) fn validate(&self) -> Result<()> {
        // A name past the limit is a limit, and its message shows the
        // name's start, not a megabyte of it.
        for name in std::iter::once(&self.name).chain(self.columns.iter().map(|c| &c.name)) {
            if name.len() > MAX_NAME_LEN {
                let start: String = name.chars().take(32).collect();
                return Err(Error::LimitReached {
                    what: format!(
                        "relation and column names are at most {MAX_NAME_LEN} bytes; `{start}…` has {}",
                        name.len()
                    ),
                });
            }
        }
        let bad = |reason: String| Error::InvalidSchema {
            relation: self.name.clone(),
            reason,
        };
        if !is_identifier(&self.name) {
            return Err(bad(
                "the name must be a letter followed by letters, digits or `_`".into(),
            ));
        }
        if self.columns.is_empty() {
            return Err(bad("a relation needs at least one column".into()));
        }
        if self.columns.len() > MAX_COLUMNS {
            return Err(bad(format!("at most {MAX_COLUMNS} columns")));
        }
        for (i, col) in self.columns.iter().enumerate() {
            if !is_identifier(&col.name) {
                return Err(bad(format!(
                    "column name `{}` is not an identifier",
                    col.name
                )));
            }
            if self.columns[..i].iter().any(|c| c.name == col.name) {
                return Err(bad(format!("column `{}` appears twice", col.name)));
            }
            if matches!(col.ty, ColumnType::Vector(0)) {
                return Err(bad(format!(
                    "vector column `{}` needs a dimension > 0",
                    col.name
                )));
            }
            if col.key && matches!(col.ty, ColumnType::Vector(_)) {
                return Err(bad(format!("vector column `{}` cannot be a key", col.name)));
            }
        }
        Ok(())
    }

    /// Checks a tuple against the schema; the first offending column is reported.
    pub(crate) fn check_tuple<'a>(
        &self,
        values: impl ExactSizeIterator<Item = ValueRef<'a>>,
    ) -> Result<()> {
        if values.len() != self.columns.len() {
            return Err(Error::ArityMismatch {
                relation: self.name.clone(),
                expected: self.columns.len(),
                got: values.len(),
            });
        }
        for (value, col) in values.zip(&self.columns) {
            let ok = value.fits(col.ty) || (col.nullable && value == ValueRef::Null);
            if !ok {
                return Err(Error::TypeMismatch {
                    relation: self.name.clone(),
                    column: col.name.clone(),
                    expected: if col.nullable {
                        format!("{} or null", col.ty)
                    } else {
                        col.ty.to_string()
                    },
                    got: value.describe(),
                });
            }
        }
        Ok(())
    }
}

/// A letter of any script, then letters, digits or `_`: `员工`, `größe`
/// and `works_at` are names; a control character, a space, punctuation or
/// an empty name is not.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic())
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && s.len() <= MAX_NAME_LEN
}

/// The longest relation or column name, in bytes.
const MAX_NAME_LEN: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_letters_of_any_script() {
        for ok in ["works_at", "员工", "größe", "x1", "Straße_2"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in ["", "1x", "_x", "a b", "a\u{7}", "a-b", "员 工", "a\tb"] {
            assert!(!is_identifier(bad), "{bad:?}");
        }
    }

    /// A column as format 3 wrote it, with the engine's two flags.
    #[derive(Serialize)]
    struct ColumnWithFlags {
        name: String,
        ty: ColumnType,
        key: bool,
        nullable: bool,
        search: bool,
        embed: bool,
    }

    #[test]
    fn a_column_written_with_flags_reads_back_with_them_as_annotations() {
        for (search, embed) in [(false, true), (true, false), (true, true)] {
            let old = ColumnWithFlags {
                name: "text".into(),
                ty: ColumnType::Str,
                key: false,
                nullable: false,
                search,
                embed,
            };
            let bytes = postcard::to_allocvec(&old).expect("encode");
            let read: ColumnDef = postcard::from_bytes(&bytes).expect("decode");
            assert_eq!(
                read.annotations,
                Annotations([u8::from(search), u8::from(embed)])
            );
            assert_eq!(postcard::to_allocvec(&read).expect("encode"), bytes);
        }
    }
}
