//! `chronolog serve`: one process owns a Chronolog memory and serves it to
//! many agents at once, so that a second editor window, a second MCP
//! client or a script beside the agent share the memory instead of
//! failing on the database's lock.
//!
//! - [`http`]: the HTTP/JSON API under `/v1` (remember, recall, history,
//!   timeline, forget, consolidate, status, query), `/health` and
//!   `/openapi.json`;
//! - [`mcp`]: the MCP tools, on standard input and output (`chronolog
//!   mcp`) and on the streamable HTTP transport at `/mcp`;
//! - [`keys`]: bearer keys, each for one tenant or for an admin, stored
//!   salted and hashed in the database directory;
//! - [`serve`]: binding, limits, request logs and graceful shutdown;
//! - [`client`]: finding the server that holds a database (`server.json`)
//!   and calling it, for the commands that would otherwise open it.
//!
//! A tenant's key reaches its tenant only, on every route and tool, and
//! its Datalog must read that tenant's rows only ([`scope`]); only an
//! admin key names tenants and reads across them.

pub mod client;
pub mod error;
pub mod http;
pub mod keys;
pub mod mcp;
pub mod query;
pub mod scope;
pub mod serve;

use std::path::Path;
use std::sync::Arc;

pub use client::Client;
pub use error::{Error, Result};
pub use keys::{Caller, KeyInfo, KeyStore, Scope};
pub use serve::{ServeOptions, Server, serve_blocking};

/// Opens (or creates) the memory at `db` with its background
/// consolidation worker, embedding with `embedder`: `model` (the default
/// sentence model when installed, else the hashing stand-in, with a notice
/// on standard error), `hashing`, or an installed model by name (`bge`,
/// `minilm`, `potion` for long histories, `usem`). A database keeps the
/// embedder it was built with.
pub fn open_memory(db: &Path, embedder: &str) -> Result<chronolog_memory::Memory> {
    let embedder: Arc<dyn chronolog_engine::Embedder> = match embedder {
        "model" => {
            let (embedder, notice) = chronolog_engine::default_embedder_with_notice();
            if let Some(notice) = notice {
                eprintln!("chronolog: {notice}");
            }
            embedder
        }
        "hashing" => Arc::new(chronolog_engine::HashingEmbedder::new(384)),
        other => chronolog_engine::embedder_named(other).map_err(|e| {
            Error::BadRequest(format!(
                "the embedder is model, hashing, minilm, bge, potion or usem: {e}"
            ))
        })?,
    };
    std::fs::create_dir_all(db).map_err(Error::io(db))?;
    let store = chronolog_engine::Store::open(db).map_err(|e| {
        Error::Memory(chronolog_memory::Error::Engine(
            chronolog_engine::Error::from(e),
        ))
    })?;
    let engine = chronolog_engine::Engine::with_embedder(store, embedder);
    Ok(chronolog_memory::Memory::with_engine(
        engine,
        chronolog_memory::Options::default(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_embedder_is_refused_by_name_and_creates_nothing() {
        let dir = tempfile::tempdir().expect("a directory");
        let db = dir.path().join("db");
        let Err(err) = open_memory(&db, "word2vec") else {
            panic!("an unknown embedder opened a memory");
        };
        let message = err.to_string();
        assert!(message.contains("potion or usem"), "{message}");
        assert!(message.contains("word2vec"), "{message}");
        assert!(!db.exists(), "nothing is created for a refused call");
    }

    #[test]
    fn an_installed_model_is_chosen_by_name() {
        if !chronolog_engine::Potion::default_dir()
            .join("model.safetensors")
            .is_file()
        {
            assert!(
                std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
                "CHRONOLOG_REQUIRE_MODEL is set but potion-base-8M is not installed"
            );
            return;
        }
        let dir = tempfile::tempdir().expect("a directory");
        let memory = open_memory(&dir.path().join("db"), "potion").expect("opens");
        assert_eq!(memory.engine().embedder_name(), "potion-base-8M");
    }
}
