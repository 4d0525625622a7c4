//! Indexes kept beside the store, off the writer's path: embeddings of
//! `embed` columns and the BM25 text index of `search` columns.
//!
//! Rows are append-only, so each index is a prefix of a relation: it has
//! seen rows `0..next_row`, and catching up means reading rows from
//! `next_row` on. A background thread does that when nudged after a commit
//! (and every `POLL` otherwise, for writes made through the storage API), so
//! a commit never waits for an embedding model or a text index. A row
//! becomes visible to `near` and `bm25` when its batch is indexed: within
//! one `POLL` plus the indexing time; `Indexes::sync` waits for it, and a
//! session calls it before its first search (so a memory stored before it
//! opened is searched whole, never the part indexed so far) and before its
//! search after its own commit (read your own writes; see
//! `Session::catch_up_indexes`). Queries
//! filter what the index returns by their snapshot's live rows, as every
//! other read does, and rows erased by a purge are erased from the indexes
//! on the next pass.
//!
//! Embeddings are also kept on disk beside the log (`Store::put_derived`,
//! by embedder name and column), so a store opened again loads them instead
//! of running the model over its whole history; a purge erases them there
//! with the rows. Text indexes are rebuilt on open (no model runs for
//! them).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use chronolog_storage::{ColumnType, RelationId, RowId, Store, ValueRef, VectorArena};

use crate::marks::{ColumnMarks, Embedding, TextSearch};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use parking_lot::{Condvar, Mutex, RwLock};

use super::embed::Embedder;
use super::text::TextIndex;
use crate::error::{Result, RetrievalError};

/// How often the worker looks for rows written behind its back.
const POLL: Duration = Duration::from_millis(100);
/// Embedded rows held for the disk cache while commits keep coming; past
/// this many they are written anyway (a crash loses what was held, which
/// is embedded again after the reopen).
const CACHE_BACKLOG_ROWS: usize = 4096;
/// At most one pass per this long while commits stream in, unless a
/// search waits for one. 25 ms left `add`'s p99 at 0.7 to 3.5 ms over
/// runs at 100,000 episodes, 100 ms at 0.6 to 0.8 ms (`benches/src/bin/memory.rs`).
const COALESCE: Duration = Duration::from_millis(100);

/// Texts embedded per batch (and per write-lock of the arena).
const BATCH: usize = 256;

/// The embeddings of one `embed` column, by row id.
pub(crate) struct Embeddings {
    pub vectors: VectorArena,
    /// Purges already erased from `vectors`.
    purged_seen: u64,
}

/// One column's embeddings, written by the worker, read by queries.
pub(crate) type SharedEmbeddings = Arc<RwLock<Embeddings>>;

/// What the worker keeps, shared with queries.
struct Shared {
    store: Store,
    /// Embeds `embed` columns (and `Embedding::Default` questions).
    embedder: Arc<dyn Embedder>,
    /// Embeds `embed(multilingual)` columns.
    multilingual: Arc<dyn Embedder>,
    embeddings: RwLock<HashMap<(RelationId, usize), SharedEmbeddings>>,
    texts: RwLock<HashMap<RelationId, Arc<TextIndex>>>,
    /// Passes asked for / finished (`sync` waits for its request's pass).
    requested: AtomicU64,
    finished: Mutex<u64>,
    finished_cv: Condvar,
    /// The last pass's failure, reported by `sync`.
    failure: Mutex<Option<String>>,
    /// Embeddings made but not yet in the disk cache: (space, relation,
    /// rows). The cache is written when commits pause, so its writes (and
    /// the file system's journal flushes they cause) never sit between a
    /// writer's synced commits.
    unwritten: Mutex<Vec<Unwritten>>,
}

type Unwritten = (String, RelationId, Vec<(RowId, Vec<u8>)>);

impl Shared {
    fn embedder_for(&self, space: Embedding) -> &Arc<dyn Embedder> {
        match space {
            Embedding::Multilingual => &self.multilingual,
            Embedding::Off | Embedding::Default => &self.embedder,
        }
    }
}

/// The indexes of one database session and their worker thread.
pub(crate) struct Indexes {
    shared: Arc<Shared>,
    worker: Mutex<Option<(Sender<()>, JoinHandle<()>)>>,
}

impl Indexes {
    pub(crate) fn new(
        store: Store,
        embedder: Arc<dyn Embedder>,
        multilingual: Arc<dyn Embedder>,
    ) -> Indexes {
        Indexes {
            shared: Arc::new(Shared {
                store,
                embedder,
                multilingual,
                embeddings: RwLock::new(HashMap::new()),
                texts: RwLock::new(HashMap::new()),
                requested: AtomicU64::new(0),
                finished: Mutex::new(0),
                finished_cv: Condvar::new(),
                failure: Mutex::new(None),
                unwritten: Mutex::new(Vec::new()),
            }),
            worker: Mutex::new(None),
        }
    }

    pub(crate) fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.shared.embedder
    }

    /// The model that embeds a column of `space` (and a question searched
    /// against it).
    pub(crate) fn embedder_for(&self, space: Embedding) -> &Arc<dyn Embedder> {
        self.shared.embedder_for(space)
    }

    /// Whether any relation asks for an index (no thread is started for a
    /// database that has none).
    fn wanted(&self) -> bool {
        self.shared
            .store
            .relations()
            .iter()
            .any(|s| s.columns.iter().any(|c| ColumnMarks::of(c).indexed()))
    }

    /// Tells the worker there may be new rows (after a commit); starts it
    /// on first need.
    pub(crate) fn nudge(&self) {
        let mut worker = self.worker.lock();
        if worker.is_none() {
            if !self.wanted() {
                return;
            }
            let (tx, rx) = crossbeam_channel::bounded(1);
            let shared = self.shared.clone();
            let handle = std::thread::Builder::new()
                .name("chronolog-indexer".into())
                .spawn(move || run(&shared, &rx));
            match handle {
                Ok(handle) => *worker = Some((tx, handle)),
                Err(e) => {
                    *self.shared.failure.lock() = Some(format!("cannot start the indexer: {e}"));
                    return;
                }
            }
        }
        if let Some((tx, _)) = worker.as_ref() {
            // A full channel already holds a nudge: nothing is lost.
            let _ = tx.try_send(());
        }
    }

    /// Waits until every row committed before this call is indexed.
    pub(crate) fn sync(&self) -> Result<()> {
        if !self.wanted() {
            return Ok(());
        }
        let target = self.shared.requested.fetch_add(1, Ordering::SeqCst) + 1;
        self.nudge();
        let mut finished = self.shared.finished.lock();
        while *finished < target {
            if self.worker.lock().is_none() {
                break;
            }
            self.shared
                .finished_cv
                .wait_for(&mut finished, Duration::from_millis(50));
        }
        drop(finished);
        match self.shared.failure.lock().clone() {
            Some(e) => Err(RetrievalError::Indexing(e).into()),
            None => Ok(()),
        }
    }

    /// Merges every text index's segments (see `TextIndex::compact`).
    pub(crate) fn compact(&self) -> Result<()> {
        let texts: Vec<Arc<TextIndex>> = self.shared.texts.read().values().cloned().collect();
        texts.iter().try_for_each(|index| index.compact(true))
    }

    /// The embeddings of `rel.column` indexed so far.
    pub(crate) fn embeddings(&self, rel: RelationId, column: usize) -> Option<SharedEmbeddings> {
        self.shared.embeddings.read().get(&(rel, column)).cloned()
    }

    /// The text index of `rel`, if it has `search` columns.
    pub(crate) fn text(&self, rel: RelationId) -> Option<Arc<TextIndex>> {
        self.shared.texts.read().get(&rel).cloned()
    }
}

impl Drop for Indexes {
    fn drop(&mut self) {
        if let Some((tx, handle)) = self.worker.lock().take() {
            drop(tx);
            let _ = handle.join();
        }
    }
}

fn run(shared: &Shared, nudges: &Receiver<()>) {
    let mut last_pass = std::time::Instant::now();
    loop {
        let idle = match nudges.recv_timeout(POLL) {
            Ok(()) => false,
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => {
                write_cache(shared);
                return;
            }
        };
        // A burst of commits (one per message as an agent talks) becomes
        // one pass per `COALESCE`, not one per commit: a pass per commit
        // costs a text-index commit each and takes the CPU and the disk
        // from the writer. A waiting search (`sync`) is served at once.
        if !idle {
            let deadline = last_pass + COALESCE;
            loop {
                let waiter = shared.requested.load(Ordering::SeqCst) > *shared.finished.lock();
                let now = std::time::Instant::now();
                if waiter || now >= deadline {
                    break;
                }
                match nudges.recv_timeout(deadline - now) {
                    Ok(()) => {}
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        write_cache(shared);
                        return;
                    }
                }
            }
        }
        let target = shared.requested.load(Ordering::SeqCst);
        let outcome = catch_up(shared);
        last_pass = std::time::Instant::now();
        let backlog: usize = shared.unwritten.lock().iter().map(|u| u.2.len()).sum();
        if idle || backlog >= CACHE_BACKLOG_ROWS {
            write_cache(shared);
        }
        *shared.failure.lock() = outcome.as_ref().err().map(|e| e.to_string());
        {
            let mut finished = shared.finished.lock();
            *finished = (*finished).max(target);
            shared.finished_cv.notify_all();
        }
        // No commit for a whole poll: a good time to merge text segments
        // (after the waiters above were released).
        if idle && outcome.is_ok() {
            let texts: Vec<Arc<TextIndex>> = shared.texts.read().values().cloned().collect();
            if let Err(e) = texts.iter().try_for_each(|index| index.compact(false)) {
                *shared.failure.lock() = Some(e.to_string());
            }
        }
    }
}

/// Writes the embeddings made since the last call to the disk cache and
/// syncs it. The cache only saves recomputation: on a nearly full disk the
/// write is skipped, and a failure is reported like a failed pass.
fn write_cache(shared: &Shared) {
    let unwritten = std::mem::take(&mut *shared.unwritten.lock());
    if unwritten.is_empty() {
        return;
    }
    let written = unwritten.iter().try_for_each(|(space, rel, rows)| {
        match shared.store.put_derived(space, *rel, rows) {
            Err(chronolog_storage::Error::DiskFull { .. }) => Ok(()),
            other => other,
        }
    });
    if let Err(e) = written.and_then(|()| shared.store.sync_derived()) {
        *shared.failure.lock() = Some(e.to_string());
    }
}

/// One pass: every indexed column of every relation, from where it
/// stopped.
fn catch_up(shared: &Shared) -> Result<()> {
    let snapshot = shared.store.snapshot();
    for schema in shared.store.relations() {
        let rel = shared.store.relation_id(&schema.name)?;
        let search: Vec<usize> = (0..schema.columns.len())
            .filter(|&c| {
                ColumnMarks::of(&schema.columns[c]).search.is_on()
                    && schema.columns[c].ty == ColumnType::Str
            })
            .collect();
        // Checked at `:create`: a relation's searched columns share one
        // analyzer.
        let analyzer = search.first().map_or(TextSearch::English, |&c| {
            ColumnMarks::of(&schema.columns[c]).search
        });
        if !search.is_empty() {
            let index = {
                let mut texts = shared.texts.write();
                match texts.get(&rel) {
                    Some(index) => index.clone(),
                    None => {
                        let index = Arc::new(TextIndex::new(search.clone(), analyzer)?);
                        texts.insert(rel, index.clone());
                        index
                    }
                }
            };
            index.catch_up(&snapshot, rel)?;
        }
        for (column, col) in schema.columns.iter().enumerate() {
            let space = ColumnMarks::of(col).embed;
            if space.is_on() && col.ty == ColumnType::Str {
                embed_column(shared, &snapshot, rel, column, shared.embedder_for(space))?;
            }
        }
    }
    Ok(())
}

fn embed_column(
    shared: &Shared,
    snapshot: &chronolog_storage::Snapshot,
    rel: RelationId,
    column: usize,
    embedder: &Arc<dyn Embedder>,
) -> Result<()> {
    let space = embedding_space(embedder.as_ref(), column);
    let index = {
        let mut all = shared.embeddings.write();
        match all.get(&(rel, column)) {
            Some(index) => index.clone(),
            None => {
                let loaded = load_embeddings(shared, snapshot, rel, &space, embedder.dim())?;
                let index = Arc::new(RwLock::new(loaded));
                all.insert((rel, column), index.clone());
                index
            }
        }
    };
    let from = index.read().vectors.len() as RowId;
    let mut pending: Vec<(RowId, String)> = Vec::new();
    let end = snapshot.rows_from(rel, from, |row| {
        let text = match row.value(column) {
            ValueRef::Str(s) => s.to_string(),
            _ => String::new(),
        };
        pending.push((row.id(), text));
    })?;
    for batch in pending.chunks(BATCH) {
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed(&texts)?;
        {
            let mut index = index.write();
            for ((row, _), v) in batch.iter().zip(&vectors) {
                // Purged rows were skipped: keep row ids aligned with zeros.
                while (index.vectors.len() as RowId) < *row {
                    index.vectors.push_zero();
                }
                index.vectors.push(v);
            }
        }
        let persisted: Vec<(RowId, Vec<u8>)> = batch
            .iter()
            .zip(&vectors)
            .map(|((row, _), v)| (*row, v.iter().flat_map(|x| x.to_le_bytes()).collect()))
            .collect();
        // Written to the disk cache later, when commits pause (`run`).
        shared
            .unwritten
            .lock()
            .push((space.clone(), rel, persisted));
    }
    let mut index = index.write();
    while (index.vectors.len() as RowId) < end {
        index.vectors.push_zero();
    }
    let purged = snapshot.purged(rel)?;
    if purged.len() != index.purged_seen {
        for row in &purged {
            index.vectors.zero(row as usize);
        }
        index.purged_seen = purged.len();
    }
    Ok(())
}

/// Where a column's embeddings are kept on disk: by embedder (its name
/// identifies the vectors it makes) and column.
fn embedding_space(embedder: &dyn Embedder, column: usize) -> String {
    format!("embed/{}/{column}", embedder.name())
}

/// The embeddings of `rel` kept in `space` by earlier sessions: the longest
/// run of rows from the first, each kept or purged (a row missing from it,
/// whose write a crash lost, is embedded again with everything after it).
fn load_embeddings(
    shared: &Shared,
    snapshot: &chronolog_storage::Snapshot,
    rel: RelationId,
    space: &str,
    dim: usize,
) -> Result<Embeddings> {
    let purged = snapshot.purged(rel)?;
    let mut vectors = VectorArena::new(dim);
    let mut whole = true;
    shared.store.derived(space, rel, |row, bytes| {
        if !whole || bytes.len() != dim * 4 {
            whole = false;
            return;
        }
        while (vectors.len() as RowId) < row {
            if !purged.contains(vectors.len() as RowId) {
                whole = false;
                return;
            }
            vectors.push_zero();
        }
        let v: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        vectors.push(&v);
    })?;
    Ok(Embeddings {
        vectors,
        purged_seen: 0,
    })
}
