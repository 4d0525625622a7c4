//! Restart is not an event: consolidation that stops and starts again
//! after every message (a process per message, as the command line runs
//! it) writes exactly what one uninterrupted pass writes, passages with
//! the message before them, pronouns resolved, reinforcements counted.

mod common;

use std::path::Path;
use std::sync::Arc;

use chronolog_engine::{Engine, HashingEmbedder, Store, Value};
use chronolog_memory::{Memory, Message, Options, SearchOptions, schema};
use common::at;

/// Two sessions with names, pronouns, a job change, a restatement, a
/// correction and a move: every kind of state consolidation carries from
/// one message to the next.
const CONVERSATION: &[(&str, &str, &str, &str)] = &[
    (
        "s1",
        "Caroline",
        "2023-05-08",
        "I work at Tencent in Shenzhen.",
    ),
    (
        "s1",
        "Melanie",
        "2023-05-08",
        "My sister Alice lives in Boston.",
    ),
    (
        "s1",
        "Caroline",
        "2023-05-08",
        "She moved there last year, right?",
    ),
    (
        "s1",
        "Melanie",
        "2023-05-08",
        "Yes, she works at Google now.",
    ),
    (
        "s2",
        "Caroline",
        "2023-06-10",
        "Big news: I joined Moonshot last week!",
    ),
    (
        "s2",
        "Melanie",
        "2023-06-10",
        "Congrats! Alice says hi. She loves sushi.",
    ),
    ("s1", "Caroline", "2023-06-11", "I love pottery."),
    (
        "s2",
        "Caroline",
        "2023-06-12",
        "I love pottery, really. Remember that.",
    ),
    (
        "s2",
        "Melanie",
        "2023-06-12",
        "Alice never joined Google, I got that wrong.",
    ),
    ("s1", "Caroline", "2023-06-13", "I moved to Beijing."),
];

fn open(path: &Path) -> Memory {
    let engine = Engine::with_embedder(
        Store::open(path).expect("store"),
        Arc::new(HashingEmbedder::new(64)),
    );
    Memory::with_engine(engine, Options::manual()).expect("memory")
}

fn message(i: usize) -> Message {
    let (session, role, date, text) = CONVERSATION[i];
    Message::new(role, text).at(at(date)).session(session)
}

/// A search that returns facts (so it queues reinforcements), at a fixed
/// "now" so both runs reinforce alike.
fn ask(memory: &Memory) {
    let options = SearchOptions {
        now: Some(at("2023-07-01")),
        ..SearchOptions::default()
    };
    memory
        .search("t", "Where does Caroline work?", &options)
        .expect("search");
}

/// Every believed row of every memory relation, as text: values (names
/// for symbols), valid time and provenance; sorted. Transaction times
/// differ between runs by nature and are left out.
fn rows(memory: &Memory) -> Vec<String> {
    let store = memory.engine().store();
    let snapshot = store.snapshot();
    let mut out = Vec::new();
    for name in schema::NAMES {
        let rel = store.relation_id(name).expect("relation");
        for row in snapshot.scan(rel).collect().expect("scan") {
            let values: Vec<String> = row
                .values
                .iter()
                .map(|v| match v {
                    Value::Sym(s) => store.symbol_name(*s).expect("name").to_string(),
                    other => format!("{other:?}"),
                })
                .collect();
            let provenance = row
                .provenance
                .map(|p| store.symbol_name(p).expect("name").to_string());
            out.push(format!(
                "{name}({}) valid {}..{} from {provenance:?}",
                values.join(", "),
                row.valid.from,
                row.valid.to
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn a_reopen_after_every_message_writes_what_one_pass_writes() {
    let dir = tempfile::tempdir().expect("dir");
    let whole = dir.path().join("whole");
    let memory = open(&whole);
    for i in 0..CONVERSATION.len() {
        memory.add("t", message(i)).expect("add");
        if i == 6 {
            memory.consolidate_now().expect("consolidate");
            ask(&memory);
        }
    }
    memory.consolidate_now().expect("consolidate");
    let expected = rows(&memory);
    drop(memory);

    let stepped = dir.path().join("stepped");
    for i in 0..CONVERSATION.len() {
        let memory = open(&stepped);
        memory.add("t", message(i)).expect("add");
        memory.consolidate_now().expect("consolidate");
        if i == 6 {
            // A search from a process that ends right after it.
            drop(memory);
            ask(&open(&stepped));
        }
    }
    let memory = open(&stepped);
    memory.consolidate_now().expect("consolidate");
    let got = rows(&memory);

    let missing: Vec<&String> = expected.iter().filter(|r| !got.contains(r)).collect();
    let extra: Vec<&String> = got.iter().filter(|r| !expected.contains(r)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "rows differ\nonly in the uninterrupted run: {missing:#?}\nonly in the stepped run: {extra:#?}"
    );
    // What this compares is real: passages quote the message before,
    // pronouns reached their people, the search was counted.
    assert!(got.iter().any(|r| r.starts_with("mem_passage(")
        && r.contains(
            r"Caroline: She moved there last year, right?\nMelanie: Yes, she works at Google now."
        )));
    assert!(
        got.iter()
            .any(|r| r.starts_with("mem_fact(t/alice/lives_in"))
    );
    assert!(
        got.iter()
            .any(|r| r.starts_with("mem_salience(") && r.contains("Int(2), Time(2023-07-01)")),
        "the search reinforced what it returned, at its now: {got:#?}"
    );
    assert!(
        !got.iter().any(|r| r.starts_with("mem_retrieved(")),
        "the queue was emptied"
    );
}

#[test]
fn the_first_message_of_a_pass_still_gets_the_one_before_it() {
    let dir = tempfile::tempdir().expect("dir");
    let memory = open(&dir.path().join("db"));
    memory.add("t", message(0)).expect("add");
    memory.consolidate_now().expect("first pass");
    memory.add("t", message(1)).expect("add");
    memory.consolidate_now().expect("second pass");
    let store = memory.engine().store();
    let rel = store.relation_id("mem_passage").expect("relation");
    let texts: Vec<String> = store
        .snapshot()
        .scan(rel)
        .collect()
        .expect("scan")
        .into_iter()
        .filter_map(|r| match &r.values[4] {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        texts.contains(
            &"Caroline: I work at Tencent in Shenzhen.\nMelanie: My sister Alice lives in Boston."
                .to_string()
        ),
        "{texts:?}"
    );
}

#[test]
fn status_says_what_is_pending_and_consolidated() {
    let memory = common::memory();
    let status = memory.status().expect("status");
    assert_eq!(
        (status.last_episode, status.consolidated, status.pending()),
        (0, 0, 0)
    );
    memory.add("t", message(0)).expect("add");
    memory.add("t", message(1)).expect("add");
    assert_eq!(memory.status().expect("status").pending(), 2);
    memory.consolidate_now().expect("consolidate");
    let status = memory.status().expect("status");
    assert_eq!(
        (status.last_episode, status.consolidated, status.pending()),
        (2, 2, 0)
    );
    assert_eq!(status.failure, None);
    assert_eq!(status.to_json()["pending"], 0);
}
