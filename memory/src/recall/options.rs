//! How a search runs ([`SearchOptions`]) and the instants it reads at.

use std::collections::HashMap;

use chronolog_engine::{Embedding, Prepared, Timestamp};

use super::Channel;
use crate::tuning::Tuning;

/// What a memory's searches keep between them: questions' embeddings, so
/// that asking the same question again (at another budget or instant)
/// runs no model (emptied past 4,096), the channels' queries, parsed
/// and planned once per memory rather than once per search, and the
/// sessions they run in.
#[derive(Default)]
pub(crate) struct Caches {
    pub(crate) vectors: parking_lot::Mutex<HashMap<(Embedding, String), Vec<f32>>>,
    pub(crate) queries: parking_lot::Mutex<HashMap<String, std::sync::Arc<Prepared>>>,
    pub(crate) readers: super::readers::Readers,
}

impl Caches {
    /// The query `text`, planned by `session` the first time any search
    /// of this memory ran it.
    pub(crate) fn prepared(
        &self,
        session: &chronolog_engine::Session,
        text: &str,
    ) -> crate::error::Result<std::sync::Arc<Prepared>> {
        if let Some(prepared) = self.queries.lock().get(text) {
            return Ok(prepared.clone());
        }
        let prepared = std::sync::Arc::new(session.prepare(text)?);
        self.queries
            .lock()
            .insert(text.to_string(), prepared.clone());
        Ok(prepared)
    }
}

/// What every search of one memory reads with: its engine, caches and
/// tuning, and its reranker if it has one.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'m> {
    pub(crate) engine: &'m chronolog_engine::Engine,
    pub(crate) caches: &'m Caches,
    pub(crate) tuning: &'m Tuning,
    pub(crate) reranker: Option<&'m dyn chronolog_engine::Reranker>,
    /// Each tenant's languages.
    pub(crate) languages: &'m crate::tenant_lang::TenantLanguages,
}

/// How a search runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// The valid-time instant to answer at: facts and messages alike are
    /// read as of it, so nothing said later is seen. Default: now, with
    /// the facts read at the time the question names, if it names one.
    pub as_of: Option<Timestamp>,
    /// The transaction time to answer as known at (default: now).
    pub known_at: Option<Timestamp>,
    /// The most tokens (cl100k_base) the context may hold.
    pub budget: usize,
    /// How many items each channel contributes before fusion (twice as
    /// many for a question for several things, "What books has Tim
    /// read?", whose evidence is many messages).
    pub k: usize,
    /// The channels to use (default: all).
    pub channels: Vec<Channel>,
    /// "Now" for relative times in the question ("last week").
    pub now: Option<Timestamp>,
    /// Let the abstention gate speak (`false`: always assemble, for
    /// measuring what the gate costs and saves).
    pub abstain: bool,
    /// The question's language, pinned; `None`: detected
    /// ([`crate::Lang::detect_question`]).
    pub lang: Option<crate::Lang>,
    /// How many of the first candidate messages the memory's reranker
    /// reorders (0: no reranking, for a caller that wants the fastest
    /// answer; without a reranker, nothing is reordered).
    pub rerank_depth: usize,
    /// When to give up: a cancel flag and a deadline, checked between
    /// the search's stages and inside each query it runs. The default
    /// never stops.
    pub stop: crate::Stop,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions::with_tuning(&Tuning::default())
    }
}

impl SearchOptions {
    /// The defaults with `tuning`'s budget and depth: what a binding asks
    /// with when its caller gives neither ([`crate::Memory::tuning`]).
    pub fn with_tuning(tuning: &Tuning) -> SearchOptions {
        SearchOptions {
            as_of: None,
            known_at: None,
            budget: tuning.budget,
            k: tuning.k,
            channels: Channel::ALL.to_vec(),
            now: None,
            abstain: true,
            lang: None,
            rerank_depth: tuning.rerank_depth,
            stop: crate::Stop::default(),
        }
    }
}

/// The instants a search reads at. A question's own time ("in 2022", "4
/// years ago", "last year") picks the facts that held then, but not the
/// messages: what was said later often tells of that time ("we went
/// camping last year"), and reading messages as of a time before the
/// memory began left nothing to search. Messages are read as of the
/// search itself (the caller's `as_of`, or now); the period the question
/// names still ranks what was said in it (`Channel::SaidThen`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instants {
    /// The valid time facts are read at.
    pub facts: Timestamp,
    /// The valid time messages are read at.
    pub messages: Timestamp,
    /// The transaction time both are read at; `None` is what is believed
    /// now.
    pub known_at: Option<Timestamp>,
}
