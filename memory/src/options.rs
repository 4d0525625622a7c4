//! How a memory consolidates and what it is tuned with.

use crate::consolidate::extract::{Extractor, RuleExtractor};
use crate::consolidate::{Adjudicator, KeepBoth};
use crate::tuning::Tuning;

/// How a [`crate::Memory`] consolidates.
pub struct Options {
    /// Run a background worker that consolidates soon after each `add`
    /// (`false`: only [`crate::Memory::consolidate_now`] does, for tests and
    /// batch jobs that want each step to be deterministic).
    pub background: bool,
    /// Turns messages into claims.
    pub extractor: Box<dyn Extractor>,
    /// Decides what the rules cannot.
    pub adjudicator: Box<dyn Adjudicator>,
    /// Every weight, threshold, depth and budget (see [`Tuning`]).
    pub tuning: Tuning,
    /// Reorders a search's first candidates by reading each with the
    /// question (default: the cross-encoder when installed; `None`: the
    /// fused order stands).
    pub reranker: Option<std::sync::Arc<dyn chronolog_engine::Reranker>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            background: true,
            extractor: Box::new(RuleExtractor),
            adjudicator: Box::new(KeepBoth),
            tuning: Tuning::default(),
            reranker: chronolog_engine::default_reranker(),
        }
    }
}

impl Options {
    /// The defaults, without the background worker.
    pub fn manual() -> Options {
        Options {
            background: false,
            ..Options::default()
        }
    }
}
