//! BM25 over a relation's `search` columns, with tantivy.
//!
//! One in-memory tantivy index per relation: a document per row, holding
//! the row id (a fast field) and the row's `search` columns joined into
//! one text field, so BM25 statistics span every searched column. A query
//! collects tantivy's top hits among the rows live in the query's snapshot
//! (a fast-field filter inside the collector), so invalidated rows never
//! take a place in the top k. Scores are tantivy's own BM25 scores.
//! Documents arrive through `catch_up` on the indexer thread; see
//! `indexes.rs` for when a row becomes searchable.

use std::sync::Arc;

use chronolog_storage::{RelationId, RowId, Snapshot, ValueRef};

use crate::marks::TextSearch;
use parking_lot::Mutex;
use tantivy::collector::{FilterCollector, TopDocs};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::analyzers::Analysis;
use crate::error::{Error, Result, RetrievalError};
use roaring::RoaringBitmap;

/// Bytes tantivy may buffer before it writes a segment.
const WRITER_BUDGET: usize = 32 << 20;

/// A BM25 hit: a row and its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TextHit {
    pub row: RowId,
    pub score: f32,
}

struct Writer {
    writer: IndexWriter,
    next_row: RowId,
    purged_seen: u64,
    /// Documents were committed since the last `compact`.
    changed: bool,
}

/// The text index of one relation.
pub(crate) struct TextIndex {
    index: Index,
    reader: IndexReader,
    row_field: Field,
    body: Field,
    columns: Vec<usize>,
    analysis: Analysis,
    writer: Mutex<Writer>,
}

/// Live rows under one in this many of the index's documents are searched
/// among themselves (`TextIndex::search_among`) rather than found in the
/// whole index's matches.
const FEW_LIVE: u64 = 16;

fn text_error(e: impl std::fmt::Display) -> Error {
    Error::from(RetrievalError::TextIndex(e.to_string()))
}

impl TextIndex {
    /// An empty index of the `search` columns `columns`, whose text (and
    /// the words searched for) `analyzer` cuts into words.
    pub(crate) fn new(columns: Vec<usize>, analyzer: TextSearch) -> Result<TextIndex> {
        let mut schema = Schema::builder();
        let row_field =
            schema.add_u64_field("row", NumericOptions::default().set_indexed().set_fast());
        let analysis = Analysis::new(analyzer)?;
        let body = schema.add_text_field(
            "body",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(analysis.name())
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        );
        let index = Index::create_in_ram(schema.build());
        index
            .tokenizers()
            .register(analysis.name(), analysis.indexing());
        let writer = index
            .writer_with_num_threads(1, WRITER_BUDGET)
            .map_err(text_error)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(text_error)?;
        Ok(TextIndex {
            index,
            reader,
            row_field,
            body,
            columns,
            analysis,
            writer: Mutex::new(Writer {
                writer,
                next_row: 0,
                purged_seen: 0,
                changed: false,
            }),
        })
    }

    /// Indexes the rows added since the last call, erases purged rows, and
    /// makes both visible to searches.
    pub(crate) fn catch_up(&self, snapshot: &Snapshot, rel: RelationId) -> Result<()> {
        let mut w = self.writer.lock();
        let from = w.next_row;
        // Texts are copied out first: the store's state stays read-locked
        // while rows are visited, and a commit waits for that lock, so the
        // indexing proper happens after.
        let mut docs: Vec<(RowId, String)> = Vec::new();
        let end = snapshot.rows_from(rel, from, |row| {
            let mut text = String::new();
            for &c in &self.columns {
                if let ValueRef::Str(s) = row.value(c) {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(s);
                }
            }
            docs.push((row.id(), text));
        })?;
        let added = docs.len();
        for (row, text) in docs {
            let mut doc = TantivyDocument::default();
            doc.add_u64(self.row_field, u64::from(row));
            doc.add_text(self.body, &text);
            w.writer.add_document(doc).map_err(text_error)?;
        }
        w.next_row = end;
        let purged = snapshot.purged(rel)?;
        let erase = purged.len() != w.purged_seen;
        if erase {
            for row in &purged {
                w.writer
                    .delete_term(Term::from_field_u64(self.row_field, u64::from(row)));
            }
            w.purged_seen = purged.len();
        }
        if added > 0 || erase {
            w.writer.commit().map_err(text_error)?;
            self.reader.reload().map_err(text_error)?;
            w.changed = true;
        }
        Ok(())
    }

    /// Merges the index into one segment if it has several and documents
    /// came since the last call. The indexer runs this only when idle, so a
    /// bulk load ends as one segment (a query pays for every segment, once
    /// per word), while a steady trickle of writes keeps tantivy's own
    /// logarithmic merging and never waits for a full rewrite.
    ///
    /// tantivy refuses a merge that includes a segment it is merging in the
    /// background; then an impatient call gives up until the next idle
    /// pass, and a `patient` one (an explicit `compact_indexes`) waits for
    /// that merge and tries again.
    pub(crate) fn compact(&self, patient: bool) -> Result<()> {
        let mut w = self.writer.lock();
        if !w.changed {
            return Ok(());
        }
        let started = std::time::Instant::now();
        loop {
            let segments = self.index.searchable_segment_ids().map_err(text_error)?;
            if segments.len() <= 1 {
                break;
            }
            match w.writer.merge(&segments).wait() {
                Ok(_) => {
                    self.reader.reload().map_err(text_error)?;
                    break;
                }
                Err(_) if !patient => return Ok(()),
                Err(e) if started.elapsed() > std::time::Duration::from_secs(30) => {
                    return Err(text_error(e));
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
        w.changed = false;
        Ok(())
    }

    /// How many segments searches visit (for tests).
    #[cfg(test)]
    pub(crate) fn segments(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    /// The query for `text` taken as words, never as query syntax: text an
    /// LLM writes is full of colons, hyphens and capitalised `AND`s, which
    /// tantivy's parser would read as fields and operators. Each distinct
    /// token the field's analyzer makes from it is one optional term.
    fn words(&self, text: &str) -> BooleanQuery {
        let terms: Vec<(Occur, Box<dyn Query>)> = self
            .analysis
            .query_terms(text)
            .into_iter()
            .map(|word| {
                let term = Term::from_field_text(self.body, &word);
                let query: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, query)
            })
            .collect();
        BooleanQuery::new(terms)
    }

    /// The `k` best rows among `live` for `query` (words; any query syntax
    /// tantivy cannot parse is read leniently as words).
    ///
    /// When few rows are live (a filter kept one tenant's of many), only
    /// they are searched ([`TextIndex::search_among`]). Otherwise most are,
    /// so the search first asks tantivy for a few more than `k` hits
    /// without a filter (which lets it skip blocks that cannot reach the
    /// top, block-max WAND) and drops the dead ones; only when too many of
    /// those were dead does it search again with the live filter inside
    /// the collector, which scores every match.
    pub(crate) fn search(
        &self,
        query: &str,
        k: usize,
        live: Arc<RoaringBitmap>,
    ) -> Result<Vec<TextHit>> {
        // Never more than can be returned: `k` comes from the caller, and
        // tantivy sizes its heap by the limit.
        let k = k.min(live.len() as usize);
        if k == 0 {
            return Ok(Vec::new());
        }
        let query = self.words(query);
        let searcher = self.reader.searcher();
        if live.len().saturating_mul(FEW_LIVE) < searcher.num_docs() {
            return self.search_among(&searcher, query, k, &live);
        }
        let over = k.saturating_mul(4).max(k + 32);
        let top = searcher
            .search(&query, &TopDocs::with_limit(over))
            .map_err(text_error)?;
        let exhausted = top.len() < over;
        let mut hits = self.rows_of(&searcher, top)?;
        hits.retain(|h| live.contains(h.row));
        if hits.len() < k && !exhausted {
            let filter = FilterCollector::new(
                "row".to_string(),
                move |row: u64| u32::try_from(row).is_ok_and(|r| live.contains(r)),
                TopDocs::with_limit(k),
            );
            let top = searcher.search(&query, &filter).map_err(text_error)?;
            hits = self.rows_of(&searcher, top)?;
        }
        // tantivy orders equal scores by document; make ties deterministic
        // by row id.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        hits.truncate(k);
        Ok(hits)
    }

    /// The `k` best of the few `live` rows (one tenant's among many):
    /// the words intersected with the live rows' ids, so the cost follows
    /// the live rows, not the index. Scanning the index and keeping the
    /// live (the other paths) costs the whole index's matches, which for
    /// one tenant of many is almost all wasted. The row-id clause adds 0 to
    /// every score: scores equal the other paths'.
    fn search_among(
        &self,
        searcher: &tantivy::Searcher,
        words: BooleanQuery,
        k: usize,
        live: &RoaringBitmap,
    ) -> Result<Vec<TextHit>> {
        let rows = TermSetQuery::new(
            live.iter()
                .map(|row| Term::from_field_u64(self.row_field, u64::from(row))),
        );
        let query = BooleanQuery::new(vec![
            (Occur::Must, Box::new(words) as Box<dyn Query>),
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(rows), 0.0)),
            ),
        ]);
        let top = searcher
            .search(&query, &TopDocs::with_limit(k))
            .map_err(text_error)?;
        let mut hits = self.rows_of(searcher, top)?;
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        Ok(hits)
    }

    fn rows_of(
        &self,
        searcher: &tantivy::Searcher,
        top: Vec<(f32, tantivy::DocAddress)>,
    ) -> Result<Vec<TextHit>> {
        // Opening a fast-field column decodes its block index: once per
        // segment, not once per hit.
        let mut columns: Vec<Option<tantivy::columnar::Column<u64>>> =
            vec![None; searcher.segment_readers().len()];
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let column = match &mut columns[address.segment_ord as usize] {
                Some(c) => c,
                slot => slot.insert(
                    searcher
                        .segment_reader(address.segment_ord)
                        .fast_fields()
                        .u64("row")
                        .map_err(text_error)?,
                ),
            };
            if let Some(row) = column.first(address.doc_id) {
                hits.push(TextHit {
                    row: row as RowId,
                    score,
                });
            }
        }
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chronolog_storage::{ColumnDef, ColumnType, Interval, Schema, Store, Value};

    /// A store with a one-column text relation `doc`.
    fn doc_store() -> (Store, RelationId) {
        let store = Store::in_memory();
        let rel = store
            .create_relation(Schema::new(
                "doc",
                vec![ColumnDef::new("text", ColumnType::Str)],
            ))
            .expect("create");
        (store, rel)
    }

    #[test]
    fn compacting_merges_segments_and_keeps_every_answer() {
        let (store, rel) = doc_store();
        let index = TextIndex::new(vec![0], TextSearch::English).expect("index");
        for batch in 0..5 {
            let mut txn = store.begin();
            for i in 0..20 {
                let text = format!("word{i} batch{batch} common");
                txn.assert(rel, vec![Value::str(text)], Interval::ALWAYS, None)
                    .expect("assert");
            }
            txn.commit().expect("commit");
            index.catch_up(&store.snapshot(), rel).expect("catch up");
        }
        let live = Arc::new((0..100).filter(|r| r % 7 != 0).collect::<RoaringBitmap>());
        let queries = ["common word3", "batch2", "word19 batch4"];
        let before: Vec<_> = queries
            .iter()
            .map(|q| index.search(q, 10, live.clone()).expect("search"))
            .collect();
        assert!(index.segments() > 1);
        index.compact(true).expect("compact");
        assert_eq!(index.segments(), 1);
        for (q, expected) in queries.iter().zip(&before) {
            assert_eq!(
                &index.search(q, 10, live.clone()).expect("search"),
                expected
            );
        }
        // Nothing new: nothing to do.
        index.compact(false).expect("compact again");
        assert_eq!(index.segments(), 1);
    }

    /// One tenant's rows among many (fewer than one in `FEW_LIVE`) are
    /// searched among themselves: the same hits, in the same order, with
    /// the same scores as the best of the whole index's answer kept to
    /// those rows.
    #[test]
    fn a_few_live_rows_are_searched_among_themselves_with_the_same_scores() {
        let (store, rel) = doc_store();
        let mut txn = store.begin();
        for i in 0..400u32 {
            let text = format!(
                "tenant{} spoke of {} and of {} on day {i}",
                i % 40,
                ["bread", "dogs", "work", "travel"][(i % 4) as usize],
                ["music", "bread", "rain"][(i % 3) as usize],
            );
            txn.assert(rel, vec![Value::str(text)], Interval::ALWAYS, None)
                .expect("assert");
        }
        txn.commit().expect("commit");
        let index = TextIndex::new(vec![0], TextSearch::English).expect("index");
        index.catch_up(&store.snapshot(), rel).expect("catch up");
        let all = Arc::new((0..400).collect::<RoaringBitmap>());
        for tenant in [0u32, 7, 39] {
            let live = Arc::new(
                (0..400)
                    .filter(|r| r % 40 == tenant)
                    .collect::<RoaringBitmap>(),
            );
            assert!(live.len() * FEW_LIVE < 400);
            for query in ["bread", "dogs and rain", "work music day", "nothing here"] {
                let among = index.search(query, 5, live.clone()).expect("among");
                let mut expected: Vec<TextHit> = index
                    .search(query, 400, all.clone())
                    .expect("whole")
                    .into_iter()
                    .filter(|h| live.contains(h.row))
                    .collect();
                expected.truncate(5);
                assert_eq!(among, expected, "tenant {tenant}, {query:?}");
            }
        }
    }

    /// The rows of a one-column relation holding `texts`, indexed by
    /// `analyzer`, that `query` finds.
    fn found(analyzer: TextSearch, texts: &[&str], query: &str) -> Vec<RowId> {
        let (store, rel) = doc_store();
        let mut txn = store.begin();
        for text in texts {
            txn.assert(rel, vec![Value::str(*text)], Interval::ALWAYS, None)
                .expect("assert");
        }
        txn.commit().expect("commit");
        let index = TextIndex::new(vec![0], analyzer).expect("index");
        index.catch_up(&store.snapshot(), rel).expect("catch up");
        let live = Arc::new((0..texts.len() as u32).collect::<RoaringBitmap>());
        let mut rows: Vec<RowId> = index
            .search(query, 10, live)
            .expect("search")
            .iter()
            .map(|h| h.row)
            .collect();
        rows.sort_unstable();
        rows
    }

    #[test]
    fn english_stems_words_and_drops_stop_words() {
        let texts = [
            "I moved to Berlin last spring",
            "We are moving the office",
            "The cat is on the mat",
        ];
        assert_eq!(found(TextSearch::English, &texts, "move"), [0, 1]);
        assert_eq!(found(TextSearch::English, &texts, "cats"), [2]);
        // Only stop words: nothing to search for.
        assert!(found(TextSearch::English, &texts, "the is on").is_empty());
        // Simple keeps words as written (lower-cased).
        assert!(found(TextSearch::Simple, &texts, "move").is_empty());
        assert_eq!(found(TextSearch::Simple, &texts, "MOVED"), [0]);
        assert_eq!(found(TextSearch::Simple, &texts, "the"), [1, 2]);
    }

    #[test]
    fn chinese_is_searched_by_its_words() {
        let long =
            "我去年夏天和我的姐姐一起去北京旅游然后我们又去了上海参观了很多博物馆和公园非常开心";
        let texts = [
            "我在腾讯工作。",
            "我刚加入了月之暗面！",
            long,
            "I work at Tencent",
        ];
        for analyzer in [TextSearch::English, TextSearch::Simple] {
            // A two-character word inside a clause is found.
            assert_eq!(found(analyzer, &texts, "腾讯"), [0]);
            assert_eq!(found(analyzer, &texts, "我在哪里工作？"), [0, 1, 2]);
            // A clause of 40 characters and more is indexed, word by word.
            assert_eq!(found(analyzer, &texts, "博物馆"), [2]);
            // A name the dictionary does not know is found by its
            // characters.
            assert_eq!(found(analyzer, &texts, "月之暗面"), [1]);
        }
    }
}
