//! What the engine asks of a column beyond its type: whether and how its
//! text is indexed for `bm25` (the analyzer), and whether and by which
//! model it is embedded for `near`. The store keeps these as two opaque
//! bytes
//! ([`Annotations`]); only this file reads and writes them, and only the
//! engine knows the `:create` syntax that declares them.

use chronolog_storage::{Annotations, ColumnDef, ColumnType, Schema};

use crate::error::Result;

/// How a column's text is cut into words for BM25 search: the same cut
/// applies to the stored text and to the words searched for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum TextSearch {
    /// Not indexed for BM25.
    #[default]
    Off,
    /// English: lower case, English stop words dropped, words reduced to
    /// their stem ("moved" and "moving" both match "move"). What people
    /// tell an assistant, and what it asks back, is mostly this.
    English,
    /// Words as written, lower-cased, nothing dropped or stemmed: names,
    /// codes, or text in a language no analyzer knows.
    Simple,
    /// German: lower case, German stop words dropped, words reduced to
    /// their Snowball stem ("wohnst" and "wohne" both match "wohnen").
    German,
    /// Chinese: words cut by jieba's dictionary, particles and pronouns
    /// dropped, nothing stemmed.
    Chinese,
    /// Each text cut by the analyzer of the language it is written in
    /// (Chinese, German or English, detected per text), and a query cut
    /// by the analyzer of every language the column holds: memory text,
    /// where one conversation may switch languages.
    Multilingual,
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
            TextSearch::German => "german",
            TextSearch::Chinese => "chinese",
            TextSearch::Multilingual => "multilingual",
        }
    }

    /// Its byte in a column's annotations (1 was the `search` flag before
    /// analyzers existed, and still means English).
    fn byte(self) -> u8 {
        match self {
            TextSearch::Off => 0,
            TextSearch::English => 1,
            TextSearch::Simple => 2,
            TextSearch::German => 3,
            TextSearch::Chinese => 4,
            TextSearch::Multilingual => 5,
        }
    }

    /// The analyzer a byte names; one this version does not know is read
    /// as not indexed rather than guessed.
    fn of_byte(byte: u8) -> TextSearch {
        match byte {
            1 => TextSearch::English,
            2 => TextSearch::Simple,
            3 => TextSearch::German,
            4 => TextSearch::Chinese,
            5 => TextSearch::Multilingual,
            _ => TextSearch::Off,
        }
    }
}

/// Which model embeds a column's text for `near`: its vector space. A
/// question searches a column with a vector from the same model.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Embedding {
    /// Not embedded.
    #[default]
    Off,
    /// The engine's embedder (`embed`): the default sentence model
    /// (bge-small-en, else all-MiniLM-L6-v2), or whichever the engine was
    /// opened with.
    Default,
    /// The multilingual model (`embed(multilingual)`: Universal Sentence
    /// Encoder multilingual v3), one space for Chinese, German, English and
    /// more, so a question finds text written in another language.
    Multilingual,
}

impl Embedding {
    /// Whether the column is embedded at all.
    pub fn is_on(self) -> bool {
        self != Embedding::Off
    }

    /// The space's name in the language (`embed(multilingual)`).
    pub fn name(self) -> &'static str {
        match self {
            Embedding::Off => "off",
            Embedding::Default => "default",
            Embedding::Multilingual => "multilingual",
        }
    }

    /// Its byte in a column's annotations (1 was the `embed` flag before
    /// there were two spaces, and still means the engine's embedder).
    fn byte(self) -> u8 {
        match self {
            Embedding::Off => 0,
            Embedding::Default => 1,
            Embedding::Multilingual => 2,
        }
    }

    /// The space a byte names; one this version does not know is read as
    /// not embedded rather than guessed.
    fn of_byte(byte: u8) -> Embedding {
        match byte {
            1 => Embedding::Default,
            2 => Embedding::Multilingual,
            _ => Embedding::Off,
        }
    }
}

/// A column's marks, as the engine reads them from its annotations.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ColumnMarks {
    /// Indexed for `bm25`, cut by this analyzer.
    pub search: TextSearch,
    /// Embedded for `near`, in this space.
    pub embed: Embedding,
}

impl ColumnMarks {
    /// The marks `column` carries.
    pub fn of(column: &ColumnDef) -> ColumnMarks {
        let [search, embed] = column.annotations.0;
        ColumnMarks {
            search: TextSearch::of_byte(search),
            embed: Embedding::of_byte(embed),
        }
    }

    /// The marks as the store keeps them.
    pub fn annotations(self) -> Annotations {
        Annotations([self.search.byte(), self.embed.byte()])
    }

    /// Whether the indexer has anything to do for a column.
    pub(crate) fn indexed(self) -> bool {
        self.search.is_on() || self.embed.is_on()
    }
}

/// The schema as the language declares it:
/// `works_at(person: sym key, company: sym)`.
pub fn declaration(schema: &Schema) -> String {
    let columns: Vec<String> = schema
        .columns
        .iter()
        .map(|c| {
            let marks = ColumnMarks::of(c);
            format!(
                "{}: {}{}{}{}{}",
                c.name,
                c.ty,
                if c.nullable { "?" } else { "" },
                if c.key { " key" } else { "" },
                match marks.search {
                    TextSearch::Off => "",
                    TextSearch::English => " search",
                    TextSearch::Simple => " search(simple)",
                    TextSearch::German => " search(german)",
                    TextSearch::Chinese => " search(chinese)",
                    TextSearch::Multilingual => " search(multilingual)",
                },
                match marks.embed {
                    Embedding::Off => "",
                    Embedding::Default => " embed",
                    Embedding::Multilingual => " embed(multilingual)",
                }
            )
        })
        .collect();
    format!("{}({})", schema.name, columns.join(", "))
}

/// What the engine requires of marked columns, checked before a relation
/// is created: only text is searched or embedded, and a relation's
/// searched columns (joined into one text) are cut by one analyzer.
pub(crate) fn check(schema: &Schema) -> Result<()> {
    let bad = |reason: String| chronolog_storage::Error::InvalidSchema {
        relation: schema.name.clone(),
        reason,
    };
    for (i, col) in schema.columns.iter().enumerate() {
        let marks = ColumnMarks::of(col);
        if marks.indexed() && col.ty != ColumnType::Str {
            return Err(bad(format!(
                "only str columns can be searched or embedded, not `{}`",
                col.name
            ))
            .into());
        }
        let other = schema.columns[..i].iter().find(|c| {
            let theirs = ColumnMarks::of(c).search;
            theirs.is_on() && marks.search.is_on() && theirs != marks.search
        });
        if let Some(other) = other {
            return Err(bad(format!(
                "columns `{}` and `{}` are searched with different analyzers ({} and {}); a relation's searched text is cut one way",
                other.name,
                col.name,
                ColumnMarks::of(other).search.name(),
                marks.search.name()
            ))
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, ty: ColumnType, search: TextSearch, embed: Embedding) -> ColumnDef {
        ColumnDef::new(name, ty).annotated(ColumnMarks { search, embed }.annotations())
    }

    #[test]
    fn marks_round_trip_through_annotations() {
        for search in [
            TextSearch::Off,
            TextSearch::English,
            TextSearch::Simple,
            TextSearch::German,
            TextSearch::Chinese,
            TextSearch::Multilingual,
        ] {
            for embed in [Embedding::Off, Embedding::Default, Embedding::Multilingual] {
                let col = column("text", ColumnType::Str, search, embed);
                assert_eq!(ColumnMarks::of(&col), ColumnMarks { search, embed });
            }
        }
        // An analyzer from a later version is not guessed at.
        let later = ColumnDef::new("t", ColumnType::Str).annotated(Annotations([9, 9]));
        assert_eq!(ColumnMarks::of(&later).search, TextSearch::Off);
        assert_eq!(ColumnMarks::of(&later).embed, Embedding::Off);
    }

    #[test]
    fn searched_columns_of_one_relation_share_an_analyzer() {
        let schema = Schema::new(
            "doc",
            vec![
                column(
                    "title",
                    ColumnType::Str,
                    TextSearch::English,
                    Embedding::Off,
                ),
                column("code", ColumnType::Str, TextSearch::Simple, Embedding::Off),
            ],
        );
        let err = check(&schema).expect_err("two analyzers");
        assert!(err.to_string().contains("different analyzers"), "{err}");
        let int = Schema::new(
            "n",
            vec![column(
                "x",
                ColumnType::Int,
                TextSearch::Off,
                Embedding::Default,
            )],
        );
        assert!(check(&int).is_err());
    }

    #[test]
    fn a_declaration_reads_as_the_language_writes_it() {
        let schema = Schema::new(
            "note",
            vec![
                ColumnDef::new("id", ColumnType::Sym).key(),
                column(
                    "text",
                    ColumnType::Str,
                    TextSearch::Simple,
                    Embedding::Multilingual,
                ),
                ColumnDef::new("at", ColumnType::Time).nullable(),
            ],
        );
        assert_eq!(
            declaration(&schema),
            "note(id: sym key, text: str search(simple) embed(multilingual), at: time?)"
        );
    }
}
