//! `Engine`: what every session over one store shares. Opening a store
//! costs an indexer thread, a text index and an embedding arena per
//! indexed relation, and caches of materialized relations and graphs; a
//! session (rules, `let`s, query-only symbols) costs next to nothing. So a
//! program holds one engine per store and hands a session to each reader,
//! writer or worker (the memory layer's consolidation worker, its
//! searchers, each C ABI call): they share one indexer, one set of indexes
//! and one set of caches. `Engine::session` lives with `Session`
//! (`session/mod.rs`), so this file does not import the session.

use std::path::Path;
use std::sync::Arc;

use chronolog_storage::Store;

use crate::error::Result;
use crate::marks::Embedding;
use crate::retrieval::Retrieval;
use crate::retrieval::default_embedder::default_embedder;
use crate::retrieval::embed::Embedder;
use crate::retrieval::indexes::Indexes;
use crate::stored_cache::StoredCache;

/// The shared engine over one store: `Send + Sync`, and cheap to clone (a
/// reference count). Dropping the last clone stops its indexer thread.
#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
}

struct Shared {
    store: Store,
    retrieval: Retrieval,
    stored_cache: StoredCache,
}

impl Engine {
    /// An engine over an open store, embedding text with the default
    /// embedder ([`default_embedder`]).
    pub fn new(store: Store) -> Engine {
        Engine::with_embedder(store, default_embedder())
    }

    /// An engine whose `embed` columns and `near(rel, "text", k)` queries
    /// use `embedder`.
    pub fn with_embedder(store: Store, embedder: Arc<dyn Embedder>) -> Engine {
        let multilingual = crate::retrieval::default_embedder::multilingual_embedder();
        Engine::with_embedders(store, embedder, multilingual)
    }

    /// [`Engine::with_embedder`], with `multilingual` for the columns
    /// declared `embed(multilingual)` (by default the Universal Sentence
    /// Encoder multilingual v3 when installed): a test pins both models.
    pub fn with_embedders(
        store: Store,
        embedder: Arc<dyn Embedder>,
        multilingual: Arc<dyn Embedder>,
    ) -> Engine {
        let indexes = Indexes::new(store.clone(), embedder, multilingual);
        // Rows already stored are indexed in the background from the start.
        indexes.nudge();
        Engine {
            shared: Arc::new(Shared {
                store,
                retrieval: Retrieval::new(indexes),
                stored_cache: StoredCache::default(),
            }),
        }
    }

    /// Opens (or creates) the database in directory `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Engine> {
        Ok(Engine::new(Store::open(path)?))
    }

    /// An engine over a store in memory only.
    pub fn in_memory() -> Engine {
        Engine::new(Store::in_memory())
    }

    /// The underlying store.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// The embedder's name (`hashing-384`, `bge-small-en`).
    pub fn embedder_name(&self) -> String {
        self.shared.retrieval.indexes.embedder().name()
    }

    /// Embeds `texts` with the engine's embedder, as `near` embeds its
    /// query: a caller that searches several `embed` columns for one text
    /// embeds it once and passes the vector (`near(rel, $v, k)`).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.shared.retrieval.indexes.embedder().embed(texts)
    }

    /// Embeds `texts` with the model of `space`, for `near` over columns
    /// declared `embed(multilingual)` (or `embed`, the same as
    /// [`Engine::embed`]).
    pub fn embed_in(&self, space: Embedding, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.shared
            .retrieval
            .indexes
            .embedder_for(space)
            .embed(texts)
    }

    /// The name of the model that embeds `space` (its vectors are filed
    /// under it).
    pub fn embedder_name_in(&self, space: Embedding) -> String {
        self.shared.retrieval.indexes.embedder_for(space).name()
    }

    /// Waits until every row committed so far is searchable by `near` and
    /// `bm25` (they are indexed off the writer's path, within about 200 ms).
    pub fn sync_indexes(&self) -> Result<()> {
        self.shared.retrieval.indexes.sync()
    }

    /// `sync_indexes`, then merges each text index into one segment now.
    /// The indexer does this by itself once writes pause for about 100 ms;
    /// call it after a bulk load to have searches at full speed at once.
    pub fn compact_indexes(&self) -> Result<()> {
        self.shared.retrieval.indexes.sync()?;
        self.shared.retrieval.indexes.compact()
    }

    pub(crate) fn retrieval(&self) -> &Retrieval {
        &self.shared.retrieval
    }

    pub(crate) fn stored_cache(&self) -> &StoredCache {
        &self.shared.stored_cache
    }

    /// Whether two handles are the same engine.
    pub fn same_as(&self, other: &Engine) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn an_engine_is_shared_across_threads_and_a_session_moves_to_one() {
        send_sync::<Engine>();
        fn send<T: Send>() {}
        send::<crate::Session>();
    }
}
