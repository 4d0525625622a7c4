//! Forget as an erasure: what names the subject is gone from every channel,
//! every `mem_*` relation (history included) and the bytes on disk, matched
//! as people write names; nothing unrelated goes.

use chronolog_engine::Value;
use chronolog_memory::{Error, Memory, SearchOptions, schema};

mod common;
use common::{memory, memory_in, say};

/// Every value of every row of every `mem_*` relation, history included,
/// as text (symbols by name).
fn every_value(memory: &Memory) -> Vec<String> {
    let store = memory.engine().store();
    let snapshot = store.snapshot();
    let mut out = Vec::new();
    for name in schema::NAMES {
        let rel = store.relation_id(name).expect("relation");
        snapshot
            .scan(rel)
            .history()
            .for_each(|row| {
                for value in row.values() {
                    match value {
                        Value::Sym(s) => out.push(store.symbol_name(s).expect("name").to_string()),
                        Value::Str(s) => out.push(s.to_string()),
                        _ => {}
                    }
                }
            })
            .expect("scan");
    }
    out
}

/// Every byte of every file under `dir`.
fn bytes_on_disk(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(bytes_on_disk(&path));
        } else {
            out.extend(std::fs::read(&path).expect("read"));
        }
    }
    out
}

fn holds_bytes(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// What a search for `question` hands an agent, every channel's
/// candidates included.
fn recall(memory: &Memory, question: &str) -> String {
    let context = memory
        .search("u1", question, &SearchOptions::default())
        .expect("search");
    // The items and every candidate's episode, not the abstention reason
    // (which may quote the question).
    let items: Vec<&str> = context.items.iter().map(|i| i.text.as_str()).collect();
    format!("{}\n{:?}", items.join("\n"), context.ranked_episodes)
}

fn believed(memory: &Memory, predicate: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = memory
        .facts("u1", None, None)
        .expect("facts")
        .into_iter()
        .filter(|f| f.predicate == predicate)
        .map(|f| (f.object, f.text))
        .collect();
    out.sort();
    out
}

#[test]
fn a_forgotten_person_is_in_no_channel_no_relation_and_no_byte_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = memory_in(dir.path());
    say(
        &memory,
        "u1",
        "2024-01-01",
        "I work at Tencent in Shenzhen.",
    );
    say(
        &memory,
        "u1",
        "2024-01-02",
        "My friend Quentin Zorblax is a chef.",
    );
    say(&memory, "u1", "2024-01-03", "I love hiking in the hills.");
    say(
        &memory,
        "u1",
        "2024-01-04",
        "I told quentin about my new job.",
    );
    say(&memory, "u1", "2024-01-05", "Quentin's birthday is in May.");
    say(&memory, "u1", "2024-01-06", "Zorblax is a funny surname.");
    say(&memory, "u1", "2024-01-07", "I like green tea.");
    memory.consolidate_now().expect("consolidate");
    let before = recall(&memory, "When is Quentin's birthday?");
    assert!(before.to_lowercase().contains("quentin"), "{before}");
    assert!(holds_bytes(&bytes_on_disk(dir.path()), "zorblax"));

    let report = memory.forget("u1", "Quentin Zorblax").expect("forget");
    assert_eq!(report.episodes, 4, "{report:?}");
    assert!(report.forms.contains(&"zorblax".to_string()), "{report:?}");

    for question in [
        "When is Quentin's birthday?",
        "Who is a chef?",
        "Who did I tell about my new job?",
        "What is a funny surname?",
        "quentin zorblax",
    ] {
        let seen = recall(&memory, question).to_lowercase();
        assert!(
            !seen.contains("quentin") && !seen.contains("zorblax"),
            "{question}: {seen}"
        );
    }
    for value in every_value(&memory) {
        let value = value.to_lowercase();
        assert!(
            !value.contains("quentin") && !value.contains("zorblax"),
            "{value}"
        );
    }
    let disk = bytes_on_disk(dir.path());
    assert!(!holds_bytes(&disk, "quentin") && !holds_bytes(&disk, "zorblax"));
    // The rest stays, and what followed an erased message is still found.
    assert_eq!(believed(&memory, "works_at")[0].0, "Tencent");
    assert!(recall(&memory, "Which tea do I like?").contains("green tea"));
    assert!(recall(&memory, "Where do I go hiking?").contains("hiking in the hills"));

    // And so after a reopen.
    drop(memory);
    let memory = memory_in(dir.path());
    assert_eq!(believed(&memory, "works_at")[0].0, "Tencent");
    assert!(
        every_value(&memory)
            .iter()
            .all(|v| !v.to_lowercase().contains("quentin"))
    );
}

#[test]
fn forgetting_a_company_keeps_the_job_that_replaced_it() {
    let memory = memory();
    say(&memory, "u1", "2021-03-01", "I work at Tencent.");
    say(
        &memory,
        "u1",
        "2022-05-01",
        "Actually I work at Alibaba, not Tencent.",
    );
    say(&memory, "u1", "2022-06-01", "I live in Hangzhou.");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "works_at")[0].0, "Alibaba");

    let report = memory.forget("u1", "tencent").expect("forget");
    assert_eq!(report.episodes, 2, "{report:?}");
    assert_eq!(report.rewritten, 1, "{report:?}");
    assert_eq!(
        believed(&memory, "works_at"),
        [(
            "Alibaba".to_string(),
            "Actually I work at Alibaba, not …".to_string()
        )]
    );
    assert_eq!(believed(&memory, "lives_in")[0].0, "Hangzhou");
    let history = memory.history("u1", "user").expect("history");
    assert!(
        history
            .iter()
            .all(|f| !format!("{f:?}").to_lowercase().contains("tencent")),
        "{history:#?}"
    );
    assert!(recall(&memory, "Where do I work?").contains("Alibaba"));
}

#[test]
fn a_job_left_for_another_is_forgotten_alone() {
    let memory = memory();
    say(
        &memory,
        "u1",
        "2021-03-01",
        "I work at Tencent in Shenzhen.",
    );
    say(
        &memory,
        "u1",
        "2024-06-01",
        "Big news: I left Tencent and joined Moonshot!",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "works_at")[0].0, "Moonshot");
    memory.forget("u1", "Tencent").expect("forget");
    let jobs = believed(&memory, "works_at");
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].0, "Moonshot");
    assert!(!jobs[0].1.contains("Tencent"), "{jobs:?}");
}

#[test]
fn a_first_name_shared_by_two_people_is_refused_and_erases_nothing() {
    let memory = memory();
    say(
        &memory,
        "u1",
        "2024-01-01",
        "My friend Quentin Blake draws.",
    );
    say(
        &memory,
        "u1",
        "2024-01-02",
        "My boss Quentin Moore is strict.",
    );
    memory.consolidate_now().expect("consolidate");
    let before = every_value(&memory);
    let err = memory.forget("u1", "Quentin").expect_err("ambiguous");
    assert!(matches!(err, Error::AmbiguousSubject { .. }), "{err}");
    assert!(err.to_string().contains("Quentin Blake"), "{err}");
    assert_eq!(every_value(&memory), before);
    // The full name is not ambiguous: only that Quentin goes.
    memory.forget("u1", "Quentin Moore").expect("forget");
    let after = every_value(&memory).join("\n");
    assert!(
        after.contains("Quentin Blake") && !after.contains("Moore"),
        "{after}"
    );
}

#[test]
fn a_name_written_in_lower_case_is_forgotten_too() {
    let memory = memory();
    say(&memory, "u1", "2024-01-01", "Mirela is my cousin.");
    say(&memory, "u1", "2024-01-02", "mirela called me yesterday");
    say(&memory, "u1", "2024-01-03", "I like chess.");
    let report = memory.forget("u1", "Mirela").expect("forget");
    assert_eq!(report.episodes, 2, "{report:?}");
    let texts: Vec<String> = every_value(&memory)
        .into_iter()
        .filter(|v| v.to_lowercase().contains("mirela"))
        .collect();
    assert!(texts.is_empty(), "{texts:?}");
    // A name nobody ever said erases nothing.
    assert_eq!(memory.forget("u1", "Zygmunt").expect("forget").rows, 0);
}

/// "Forget my mom": the relative the user named by relation, in each
/// language served, with her name and what was said of her.
#[test]
fn a_relative_named_by_relation_is_forgotten_by_it() {
    for (lang, said, subject, name) in [
        (
            chronolog_memory::Lang::English,
            ["My mom lives in Florida.", "My mom's name is Linda."],
            "my mom",
            "Linda",
        ),
        (
            chronolog_memory::Lang::German,
            ["Meine Mutter wohnt in Bremen.", "Meine Mutter heißt Linda."],
            "meine Mutter",
            "Linda",
        ),
        (
            chronolog_memory::Lang::Chinese,
            ["我妈妈住在广州。", "我妈妈叫李娜。"],
            "我妈妈",
            "李娜",
        ),
    ] {
        let memory = memory();
        memory.pin_language("u1", Some(lang)).expect("pin");
        say(&memory, "u1", "2024-01-01", said[0]);
        say(&memory, "u1", "2024-01-02", said[1]);
        say(&memory, "u1", "2024-01-03", "I like chess.");
        memory.consolidate_now().expect("consolidate");
        let report = memory.forget("u1", subject).expect("forget");
        assert!(report.episodes >= 1, "{lang:?}: {report:?}");
        let left: Vec<String> = every_value(&memory)
            .into_iter()
            .filter(|v| v.contains(name))
            .collect();
        assert!(left.is_empty(), "{lang:?}: {left:?}");
        assert!(believed(&memory, "lives_in").is_empty(), "{lang:?}");
    }
}
