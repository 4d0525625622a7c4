//! What the conversation tests share: dates, a memory in RAM, a message.

use std::sync::Arc;

use chronolog_engine::{Engine, HashingEmbedder, Store, Timestamp};
use chronolog_memory::{Memory, Message, Options, Tuning};

/// `2024-06-01` (or any form the language takes) as a timestamp.
pub fn at(date: &str) -> Timestamp {
    Timestamp::parse(date).expect("a date")
}

/// An engine over `store` whose every space is embedded by hashing.
pub fn hashing_engine(store: Store) -> Engine {
    Engine::with_embedders(
        store,
        Arc::new(HashingEmbedder::new(64)),
        Arc::new(HashingEmbedder::new(64)),
    )
}

/// A memory in RAM with the hashing embedder and no reranker, consolidated
/// by hand: what it finds does not depend on which models are installed.
#[allow(dead_code)] // Not every test file builds its memory so.
pub fn memory() -> Memory {
    let engine = hashing_engine(Store::in_memory());
    let options = Options {
        reranker: None,
        ..Options::manual()
    };
    Memory::with_engine(engine, options).expect("memory")
}

/// [`memory`] with `reranker` and `tuning`: what a reranker test varies.
#[allow(dead_code)] // Not every test file reranks.
pub fn memory_with(
    reranker: Option<Arc<dyn chronolog_engine::Reranker>>,
    tuning: Tuning,
) -> Memory {
    let engine = hashing_engine(Store::in_memory());
    let options = Options {
        reranker,
        tuning,
        ..Options::manual()
    };
    Memory::with_engine(engine, options).expect("memory")
}

/// [`memory`] kept on disk in `dir`, as a user's database is.
#[allow(dead_code)] // Not every test file keeps its memory on disk.
pub fn memory_in(dir: &std::path::Path) -> Memory {
    let store = Store::open(dir).expect("open the store");
    let engine = hashing_engine(store);
    let options = Options {
        reranker: None,
        ..Options::manual()
    };
    Memory::with_engine(engine, options).expect("memory")
}

/// The rows `query` answers in `memory`'s store, each rendered as the
/// shell shows it, sorted: what a test compares whatever order a scan gives.
#[allow(dead_code)] // Not every test file reads the store's rows.
pub fn sorted_rows(memory: &Memory, query: &str) -> Vec<Vec<String>> {
    let mut session = memory.engine().session();
    let out = session.run(query).expect(query);
    let Some(chronolog_engine::Output::Rows(rows)) = out.last() else {
        panic!("{query}: no rows")
    };
    let mut rendered: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|v| session.render(v)).collect())
        .collect();
    rendered.sort();
    rendered
}

/// The user says `text` on `date` in `tenant`'s memory; the episode id.
#[allow(dead_code)] // Not every test file says things as the user.
pub fn say(memory: &Memory, tenant: &str, date: &str, text: &str) -> String {
    say_as(memory, tenant, "user", date, text)
}

/// `role` says `text` on `date` in `tenant`'s memory (a conversation
/// between named people); the episode id.
#[allow(dead_code)] // Not every test file has named speakers.
pub fn say_as(memory: &Memory, tenant: &str, role: &str, date: &str, text: &str) -> String {
    memory
        .add(tenant, Message::new(role, text).at(at(date)))
        .expect("add")
}

/// The real embedding model when installed (`scripts/install-model.sh`),
/// else `None`, or a failure where `CHRONOLOG_REQUIRE_MODEL` is set (CI),
/// so a test that needs it cannot pass there by skipping.
#[allow(dead_code)] // Not every test file needs the model.
pub fn model() -> Option<Arc<dyn chronolog_engine::Embedder>> {
    let dir = std::env::var_os("CHRONOLOG_MODEL_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
        });
    match chronolog_engine::MiniLm::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            assert!(
                std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
                "the model is required here: {e}"
            );
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// The cross-encoder reranker when installed (`scripts/install-model.sh`),
/// else `None`, or a failure where `CHRONOLOG_REQUIRE_MODEL` is set (CI).
#[allow(dead_code)] // Not every test file needs the reranker.
pub fn reranker() -> Option<Arc<dyn chronolog_engine::Reranker>> {
    match chronolog_engine::CrossEncoder::load(&chronolog_engine::CrossEncoder::default_dir()) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            assert!(
                std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
                "the reranker is required here: {e}"
            );
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// The multilingual model (Universal Sentence Encoder multilingual v3)
/// when installed, else `None`, or a failure where
/// `CHRONOLOG_REQUIRE_MODEL` is set (CI).
#[allow(dead_code)] // Not every test file needs the model.
pub fn multilingual_model() -> Option<Arc<dyn chronolog_engine::Embedder>> {
    let dir = chronolog_engine::UseMultilingual::default_dir();
    match chronolog_engine::UseMultilingual::load(&dir) {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => {
            assert!(
                std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
                "the multilingual model is required here: {e}"
            );
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// Asks `question` at each of `budgets` (smallest first) and checks what
/// a budget promises in any language: a context within its budget; a
/// larger budget holds everything a smaller one does; a budget too small
/// for anything found says so. The largest budget's context.
#[allow(dead_code)] // Only the language files check budgets so.
pub fn check_budgets(
    memory: &Memory,
    tenant: &str,
    question: &str,
    budgets: &[usize],
) -> chronolog_memory::Context {
    use chronolog_memory::SearchOptions;
    let options = SearchOptions {
        now: Some(at("2025-01-01")),
        ..SearchOptions::default()
    };
    let contexts = memory
        .search_at_budgets(tenant, question, &options, budgets)
        .expect("search at budgets");
    for (context, &budget) in contexts.iter().zip(budgets) {
        assert!(context.tokens <= budget, "{budget}: {context:#?}");
        if context.items.is_empty() {
            let reason = context.reason.clone().unwrap_or_default();
            assert!(
                reason.starts_with(&format!("a budget of {budget} tokens holds nothing")),
                "{reason}"
            );
        }
    }
    for pair in contexts.windows(2) {
        for item in &pair[0].items {
            assert!(
                pair[1].items.iter().any(|i| i.id == item.id),
                "{} at {} tokens, not at {}",
                item.id,
                pair[0].budget,
                pair[1].budget
            );
        }
    }
    contexts.into_iter().last().expect("a context per budget")
}

/// Whether `channel` ran in the search that gave `context`.
#[allow(dead_code)] // Not every test file asks which channels ran.
pub fn ran(context: &chronolog_memory::Context, channel: &str) -> bool {
    context.channels.iter().any(|(c, _)| c == channel)
}

/// The objects of `predicate` believed valid at `as_of`, sorted.
#[allow(dead_code)] // Only the files that check beliefs by date.
pub fn believed(memory: &Memory, tenant: &str, as_of: &str, predicate: &str) -> Vec<String> {
    let mut objects: Vec<String> = memory
        .facts(tenant, Some(at(as_of)), None)
        .expect("facts")
        .into_iter()
        .filter(|f| f.predicate == predicate)
        .map(|f| f.object)
        .collect();
    objects.sort();
    objects
}
