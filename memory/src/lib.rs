//! Agent memory on Chronolog, in two systems (after the Engram paper).
//!
//! **System 1, the write path** ([`Memory::add`]): every message is
//! appended as an *episode*, losslessly, in one durable commit, and is
//! searchable by words at once. No model runs on it and it never waits.
//!
//! **System 2, consolidation** (a background worker, or
//! [`Memory::consolidate_now`]): episodes become atomic facts (subject,
//! predicate, object) with valid times read from the message against its
//! own date; entities are resolved through aliases; a new value invalidates
//! the old one instead of deleting it (the supersedes chain); a withdrawn
//! claim gives back what it cut; salience rises with restatement and fades
//! with time. Embeddings are made by the engine's indexer, in batches,
//! off the write path.
//!
//! Everything lives in ordinary bi-temporal relations (`mem_episode`,
//! `mem_fact`, ... in [`schema`]), so Datalog reads it all as of any
//! instant. Every row belongs to one tenant, and no API reads across
//! tenants. The crate reaches the database only through the engine.
//!
//! ```
//! use chronolog_memory::{Memory, Message, Options};
//! use chronolog_engine::{Engine, Timestamp};
//!
//! let memory = Memory::with_engine(Engine::in_memory(), Options::manual())?;
//! let at = |d: &str| Timestamp::parse(d).unwrap();
//! memory.add("acme", Message::new("user", "I work at Tencent.").at(at("2021-03-01")))?;
//! memory.add("acme", Message::new("user", "I just joined Moonshot!").at(at("2024-06-01")))?;
//! memory.consolidate_now()?;
//! let then = memory.facts("acme", Some(at("2022-01-01")), None)?;
//! assert_eq!(then[0].object, "Tencent");
//! let now = memory.facts("acme", None, None)?;
//! assert_eq!((now[0].object.as_str(), now[0].supersedes.as_deref()), ("Moonshot", Some("Tencent")));
//! # Ok::<(), chronolog_memory::Error>(())
//! ```

mod claim;
pub mod consolidate;
mod error;
mod forget;
pub mod ids;
mod lang;
mod memory;
mod message;
mod names;
mod options;
pub mod recall;
pub mod request;
pub mod salience;
pub mod schema;
mod stop;
mod tenant_lang;
pub mod tuning;
mod view;
pub mod when;
mod worker;

pub use consolidate::extract::{Claim, ClaimKind, EpisodeView, Extractor, RuleExtractor, Subject};
pub use consolidate::{Adjudicator, Decision, KeepBoth, Report};
pub use error::{Error, Result};
pub use forget::ForgetReport;
pub use lang::{Lang, UnknownLanguage};
pub use memory::{Memory, check_tenant};
pub use message::{MAX_MESSAGE_BYTES, Message};
pub use options::Options;
pub use recall::context::count_tokens;
pub use recall::render::{MessageBudget, message_line, render_messages};
pub use recall::{Channel, Context, Item, ItemKind, SearchOptions};
pub use request::SearchRequest;
pub use salience::{Stage, decayed, stage};
pub use stop::Stop;
pub use tuning::{Tuning, TuningError};
pub use view::FactVersion;
pub use when::When;
pub use worker::{Status, WorkerFailure};
