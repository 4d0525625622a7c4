//! The catalog the compiler sees: a store's relations as columns with
//! types, `search` and `embed` marks, and the way back from the
//! language's type names to the store's column types.

use chronolog_ql::ast::{self, Analyzer, Space, TypeName};
use chronolog_ql::{Catalog, ColumnInfo};
use chronolog_storage::{ColumnDef, ColumnType, Schema, Store};

use crate::marks::{ColumnMarks, Embedding, TextSearch};

pub(super) struct StoreCatalog<'a>(pub(super) &'a Store);

impl Catalog for StoreCatalog<'_> {
    fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>> {
        let id = self.0.relation_id(name).ok()?;
        let schema = self.0.schema(id).ok()?;
        Some(
            schema
                .columns
                .iter()
                .map(|c| {
                    let ty = match c.ty {
                        ColumnType::Bool => TypeName::Bool,
                        ColumnType::Int => TypeName::Int,
                        ColumnType::Float => TypeName::Float,
                        ColumnType::Str => TypeName::Str,
                        ColumnType::Sym => TypeName::Sym,
                        ColumnType::Bytes => TypeName::Bytes,
                        ColumnType::Time => TypeName::Time,
                        ColumnType::Vector(d) => TypeName::Vector(d),
                    };
                    ColumnInfo {
                        name: c.name.clone(),
                        ty,
                        search: ColumnMarks::of(c).search.is_on(),
                        embed: ColumnMarks::of(c).embed.is_on(),
                    }
                })
                .collect(),
        )
    }
}

fn column_type(ty: TypeName) -> ColumnType {
    match ty {
        TypeName::Int => ColumnType::Int,
        TypeName::Float => ColumnType::Float,
        TypeName::Str => ColumnType::Str,
        TypeName::Sym => ColumnType::Sym,
        TypeName::Bool => ColumnType::Bool,
        TypeName::Bytes => ColumnType::Bytes,
        TypeName::Time => ColumnType::Time,
        TypeName::Vector(d) => ColumnType::Vector(d),
    }
}

/// The schema a `:create` statement declares.
pub(super) fn schema_of(create: &ast::CreateRelation) -> Schema {
    Schema::new(
        create.name.text.clone(),
        create
            .columns
            .iter()
            .map(|c| ColumnDef {
                name: c.name.text.clone(),
                ty: column_type(c.ty),
                key: c.key,
                nullable: c.nullable,
                annotations: ColumnMarks {
                    search: match c.search {
                        None => TextSearch::Off,
                        Some(Analyzer::English) => TextSearch::English,
                        Some(Analyzer::Simple) => TextSearch::Simple,
                        Some(Analyzer::German) => TextSearch::German,
                        Some(Analyzer::Chinese) => TextSearch::Chinese,
                        Some(Analyzer::Multilingual) => TextSearch::Multilingual,
                    },
                    embed: match c.embed {
                        None => Embedding::Off,
                        Some(Space::Default) => Embedding::Default,
                        Some(Space::Multilingual) => Embedding::Multilingual,
                    },
                }
                .annotations(),
            })
            .collect(),
    )
}
