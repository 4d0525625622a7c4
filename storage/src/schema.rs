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
    /// Whether, and how, the engine indexes the column's text for BM25
    /// search (`str` columns only).
    pub search: TextSearch,
    /// Text the engine embeds for vector search (`str` columns only).
    pub embed: bool,
}

impl ColumnDef {
    /// A non-key, non-nullable column.
    pub fn new(name: impl Into<String>, ty: ColumnType) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            ty,
            key: false,
            nullable: false,
            search: TextSearch::Off,
            embed: false,
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

    /// Asks the engine to index the column's text for BM25 search, as
    /// English (see [`TextSearch::English`]).
    pub fn search(self) -> ColumnDef {
        self.search_as(TextSearch::English)
    }

    /// Asks the engine to index the column's text for BM25 search, cut
    /// into words by `analyzer`.
    pub fn search_as(mut self, analyzer: TextSearch) -> ColumnDef {
        self.search = analyzer;
        self
    }

    /// Asks the engine to embed the column's text for vector search.
    pub fn embed(mut self) -> ColumnDef {
        self.embed = true;
        self
    }
}

/// How a column's text is cut into words for BM25 search: the same cut
/// applies to the stored text and to the words searched for.
///
/// Stored in the log as one byte where a `bool` used to be (postcard
/// encodes `false` and `Off`, `true` and `English`, alike), so a column
/// marked `search` before analyzers existed reads back as English.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub enum TextSearch {
    /// Not indexed for BM25.
    #[default]
    Off,
    /// English: lower case, English stop words dropped, words reduced to
    /// their stem ("moved" and "moving" both match "move"). What people
    /// tell an assistant, and what it asks back, is mostly this.
    English,
    /// Words as written, lower-cased, nothing dropped or stemmed: names,
    /// codes, or text in another language.
    Simple,
}

impl TextSearch {
    /// Whether the column is indexed at all.
    pub fn is_on(self) -> bool {
        self != TextSearch::Off
    }

    /// The analyzer's name in the language (`search(english)`).
    pub fn name(self) -> &'static str {
        match self {
            TextSearch::Off => "off",
            TextSearch::English => "english",
            TextSearch::Simple => "simple",
        }
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

    /// The schema as the language declares it:
    /// `works_at(person: sym key, company: sym)`.
    pub fn describe(&self) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{}: {}{}{}{}{}",
                    c.name,
                    c.ty,
                    if c.nullable { "?" } else { "" },
                    if c.key { " key" } else { "" },
                    match c.search {
                        TextSearch::Off => "",
                        TextSearch::English => " search",
                        TextSearch::Simple => " search(simple)",
                    },
                    if c.embed { " embed" } else { "" }
                )
            })
            .collect();
        format!("{}({})", self.name, columns.join(", "))
    }

    /// Position of the column called `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub(crate) fn validate(&self) -> Result<()> {
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
            if (col.search.is_on() || col.embed) && col.ty != ColumnType::Str {
                return Err(bad(format!(
                    "only str columns can be searched or embedded, not `{}`",
                    col.name
                )));
            }
            if col.key && matches!(col.ty, ColumnType::Vector(_)) {
                return Err(bad(format!("vector column `{}` cannot be a key", col.name)));
            }
            // A relation's searched columns form one text, cut one way.
            if let Some(other) = self.columns[..i]
                .iter()
                .find(|c| c.search.is_on() && col.search.is_on() && c.search != col.search)
            {
                return Err(bad(format!(
                    "columns `{}` and `{}` are searched with different analyzers ({} and {}); a relation's searched text is cut one way",
                    other.name,
                    col.name,
                    other.search.name(),
                    col.search.name()
                )));
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
        && s.len() <= 128
}

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

    /// A column as format 3 wrote it before analyzers existed.
    #[derive(Serialize)]
    struct ColumnBeforeAnalyzers {
        name: String,
        ty: ColumnType,
        key: bool,
        nullable: bool,
        search: bool,
        embed: bool,
    }

    #[test]
    fn a_column_written_with_a_search_flag_reads_back_as_english() {
        for (flag, expected) in [(false, TextSearch::Off), (true, TextSearch::English)] {
            let old = ColumnBeforeAnalyzers {
                name: "text".into(),
                ty: ColumnType::Str,
                key: false,
                nullable: false,
                search: flag,
                embed: true,
            };
            let bytes = postcard::to_allocvec(&old).expect("encode");
            let read: ColumnDef = postcard::from_bytes(&bytes).expect("decode");
            assert_eq!(read.search, expected);
            assert!(read.embed);
        }
    }

    #[test]
    fn searched_columns_of_one_relation_share_an_analyzer() {
        let schema = Schema::new(
            "doc",
            vec![
                ColumnDef::new("title", ColumnType::Str).search(),
                ColumnDef::new("code", ColumnType::Str).search_as(TextSearch::Simple),
            ],
        );
        let err = schema.validate().expect_err("two analyzers");
        assert!(err.to_string().contains("different analyzers"), "{err}");
    }
}
