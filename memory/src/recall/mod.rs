//! The read side: a question in, the smallest context that holds the
//! evidence out, or an abstention with its reason.
//!
//! 1. [`understand`]: the question's entities, its time, whether it asks when.
//! 2. Channels, each a query in the language restricted to the tenant's
//!    rows (`tenant = $t`) and read at the question's instants: meaning
//!    (`near`) and words (`bm25`) over episodes and over facts, words over
//!    the messages of a speaker the question names, the graph around the
//!    question's entities (`hops`), recency (`top`) and salience
//!    (`decayed`).
//! 3. Weighted reciprocal-rank fusion (`rrf`).
//! 4. [`abstain`]: too little evidence is said, not padded; a question
//!    about one person whose words are another's is refused.
//! 5. Reranking: the first candidate messages read again with the
//!    question by a cross-encoder ([`chronolog_engine::Reranker`]) and
//!    reordered in the places they held.
//! 6. Assembly: `gather` reads the candidates once per question, `fit`
//!    cuts them to each budget: facts first, then the episodes behind them
//!    and the best other episodes, within a token budget (cl100k_base),
//!    into a [`Context`].
//!
//! | file | job |
//! |---|---|
//! | `options.rs` | [`SearchOptions`], the instants a search reads at, what searches keep between them |
//! | `readers.rs` | the sessions searches read through, caught up with the indexes after the memory's own writes |
//! | `understand.rs` | the question: entities, instant, what it asks |
//! | `channel.rs` | the channels and their weights |
//! | `channels.rs` | running each channel's query |
//! | `fuse.rs` | weighted reciprocal-rank fusion |
//! | `speakers.rs` | the speakers a question names; word searches over what someone said |
//! | `abstain.rs` | the gate |
//! | `gather.rs` | the candidates read from the store, once per question |
//! | `asked.rs` | which facts asked by their predicate lead, and in what order |
//! | `rerank.rs` | the reranker's reordering of the first messages |
//! | `fit.rs` | a context cut to a budget |
//! | `excerpt.rs` | a long message shown by its sentences about the question |
//! | `context.rs` | [`Context`], [`Item`]: text and JSON |
//! | `render.rs` | how messages are written |
//! | `retrieval.rs` | one question's retrieval, cut to each budget |
//! | `explain.rs` | a retrieval step by step |

pub mod abstain;
mod asked;
mod channel;
mod channels;
pub mod context;
mod excerpt;
mod explain;
mod fit;
mod fuse;
mod gather;
mod options;
mod readers;
pub mod render;
mod rerank;
mod retrieval;
mod speakers;
pub mod understand;

pub use channel::Channel;
pub use context::{Context, Item, ItemKind};
pub(crate) use explain::explain;
pub use options::SearchOptions;
pub(crate) use options::{Caches, Instants, Reader};
pub(crate) use retrieval::{Retrieval, retrieve};
