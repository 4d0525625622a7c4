//! System 2: the episodes not consolidated yet become facts, one
//! transaction per episode (its facts, entities, links, passage and the
//! cursor past it), so a crash in the middle loses nothing and a rerun
//! duplicates nothing.
//!
//! | file | job |
//! |---|---|
//! | `pass.rs` | the pass: pending episodes after the cursor, one commit each, reinforcement of what searches returned |
//! | `report.rs` | [`Report`]: what a pass did, counted claim by claim |
//! | `extract.rs` | claims from a message: the [`crate::Extractor`] trait and the rule extractor (each language's rules, `crate::lang`) |
//! | `paraphrase.rs` | a free predicate mapped to the one-valued slot it paraphrases |
//! | `entities.rs` | who and what a message is about: speaker, names through aliases, pronouns |
//! | `conversation.rs` | what a pass remembers of a conversation between messages, stored with each one |
//! | `conflict.rs` | the conflict ladder: what a claim does to its slot's versions |
//! | `apply.rs` | a decision written: the fact row, its links, its salience |
//! | `passage.rs` | what the meaning channels embed for an episode |
//! | `sentence.rs` | a person's message's sentences, each embedded alone (an assistant's replies are not split) |

mod apply;
mod conflict;
mod conversation;
pub mod entities;
pub mod extract;
mod misspoken;
mod paraphrase;
mod pass;
pub(crate) mod passage;
mod report;
pub(crate) mod sentence;
mod slots;

pub use conflict::{Adjudicator, Decision, KeepBoth};
pub(crate) use pass::{Consolidator, consolidated};
pub use report::Report;
