//! What the conversation tests share: dates, a memory in RAM, a message.

use std::sync::Arc;

use chronolog_engine::{Engine, HashingEmbedder, Store, Timestamp};
use chronolog_memory::{Memory, Message, Options};

/// `2024-06-01` (or any form the language takes) as a timestamp.
pub fn at(date: &str) -> Timestamp {
    Timestamp::parse(date).expect("a date")
}

/// A memory in RAM with the hashing embedder, consolidated by hand.
pub fn memory() -> Memory {
    let engine = Engine::with_embedder(Store::in_memory(), Arc::new(HashingEmbedder::new(64)));
    Memory::with_engine(engine, Options::manual()).expect("memory")
}

/// The user says `text` on `date` in `tenant`'s memory; the episode id.
pub fn say(memory: &Memory, tenant: &str, date: &str, text: &str) -> String {
    memory
        .add(tenant, Message::new("user", text).at(at(date)))
        .expect("add")
}
