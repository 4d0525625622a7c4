//! One memory, several languages: a question finds what was said in
//! another language through the multilingual space (Universal Sentence
//! Encoder multilingual v3), and the word gates, which cannot expect a
//! question's words in another language's messages, defer to it.

use std::sync::Arc;

use chronolog_engine::{Engine, HashingEmbedder, Output, Store};
use chronolog_memory::{Context, ItemKind, Memory, Message, Options, SearchOptions};

mod common;
use common::{at, multilingual_model};

/// A memory whose English space is hashing (so what is found comes from
/// the multilingual space and the words) and whose multilingual space is
/// the real model; `None` where the model is not installed.
fn memory() -> Option<Memory> {
    memory_over(Store::in_memory())
}

fn memory_over(store: Store) -> Option<Memory> {
    let model = multilingual_model()?;
    let engine = Engine::with_embedders(store, Arc::new(HashingEmbedder::new(64)), model);
    let options = Options {
        reranker: None,
        ..Options::manual()
    };
    Some(Memory::with_engine(engine, options).expect("memory"))
}

/// The user says `text` on `date`, in a conversation of its own (so its
/// passage is the message alone).
fn say(memory: &Memory, tenant: &str, date: &str, text: &str) {
    memory
        .add(
            tenant,
            Message::new("user", text).at(at(date)).session(date),
        )
        .expect("add");
}

fn ask(memory: &Memory, tenant: &str, question: &str) -> Context {
    memory
        .search(tenant, question, &SearchOptions::default())
        .expect("search")
}

/// The messages of a context, best first.
fn ranked(context: &Context) -> Vec<&str> {
    context
        .ranked_episodes
        .iter()
        .filter_map(|id| {
            context
                .items
                .iter()
                .find(|i| i.kind == ItemKind::Episode && i.id == *id)
                .map(|i| i.said.as_str())
        })
        .collect()
}

/// Where `needle` stands among the context's messages, best first.
fn place(context: &Context, needle: &str) -> Option<usize> {
    ranked(context).iter().position(|s| s.contains(needle))
}

/// How many of `tenant`'s passages are in the multilingual space.
fn in_multilingual_space(memory: &Memory, tenant: &str) -> usize {
    let mut session = memory.engine().session();
    let out = session
        .run(&format!("?- mem_multilingual(P, _, {tenant}, _)."))
        .expect("query");
    match out.last() {
        Some(Output::Rows(rows)) => rows.len(),
        other => panic!("rows, not {other:?}"),
    }
}

fn channel_ran(context: &Context, name: &str) -> bool {
    context.channels.iter().any(|(c, n)| c == name && *n > 0)
}

#[test]
fn a_chinese_or_german_question_finds_an_english_message() {
    let Some(memory) = memory() else { return };
    for (date, text) in [
        ("2024-03-01", "My dog Rex loves swimming in the lake."),
        ("2024-03-02", "The quarterly report is due on Friday."),
        ("2024-03-03", "I started learning the violin last month."),
        ("2024-03-04", "We had pasta with tomato sauce for dinner."),
        ("2024-03-05", "The train to the airport was late again."),
    ] {
        say(&memory, "alice", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    // A memory that only ever heard English has nothing in the
    // multilingual space until a question needs it there.
    assert_eq!(in_multilingual_space(&memory, "alice"), 0);

    let explained = memory
        .explain_search("alice", "我的狗喜欢做什么？", &SearchOptions::default())
        .expect("explain");
    assert!(
        explained.contains("across languages: the memory is in en"),
        "{explained}"
    );
    let first = ask(&memory, "alice", "我的狗喜欢做什么？");
    assert_eq!(in_multilingual_space(&memory, "alice"), 5);
    assert!(
        place(&first, "Rex loves swimming") == Some(0),
        "{:?}",
        ranked(&first)
    );
    say(&memory, "alice", "2024-03-06", "I bought a red bicycle.");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        in_multilingual_space(&memory, "alice"),
        6,
        "new passages join it"
    );
    for (question, answer) in [
        ("我买了什么颜色的自行车？", "red bicycle"),
        ("我在学什么乐器？", "violin"),
        ("Was macht mein Hund gern?", "Rex loves swimming"),
        ("Welches Musikinstrument lerne ich gerade?", "violin"),
        // Short: lingua is 0.79 sure it is German, enough for a question.
        ("Welches Instrument lerne ich?", "violin"),
    ] {
        let context = ask(&memory, "alice", question);
        assert!(!context.abstain, "{question}: {:?}", context.reason);
        assert!(
            channel_ran(&context, "multilingual_meaning"),
            "{question}: {:?}",
            context.channels
        );
        assert!(
            place(&context, answer).is_some_and(|p| p == 0),
            "{question}: {:?}",
            ranked(&context)
        );
    }
}

#[test]
fn an_english_question_finds_a_chinese_message() {
    let Some(memory) = memory() else { return };
    for (date, text) in [
        ("2024-03-01", "我养了一只猫，叫咪咪。"),
        ("2024-03-02", "我每天早上去公园跑步。"),
        ("2024-03-03", "明天要下雨，记得带伞。"),
        ("2024-03-04", "我最喜欢的水果是芒果。"),
    ] {
        say(&memory, "li", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    // Chinese messages put their tenant in the multilingual space at once.
    assert_eq!(in_multilingual_space(&memory, "li"), 4);

    for (question, answer) in [
        ("Where do I go running every morning?", "公园跑步"),
        ("What is my favourite fruit?", "芒果"),
    ] {
        let context = ask(&memory, "li", question);
        assert!(!context.abstain, "{question}: {:?}", context.reason);
        assert!(
            place(&context, answer).is_some_and(|p| p == 0),
            "{question}: {:?}",
            ranked(&context)
        );
    }
}

#[test]
fn an_english_question_to_an_english_memory_stays_in_the_english_space() {
    let Some(memory) = memory() else { return };
    say(
        &memory,
        "bob",
        "2024-03-01",
        "I moved to Lisbon last spring.",
    );
    memory.consolidate_now().expect("consolidate");
    let context = ask(&memory, "bob", "Where did I move?");
    assert_eq!(in_multilingual_space(&memory, "bob"), 0);
    assert!(
        channel_ran(&context, "episode_meaning"),
        "{:?}",
        context.channels
    );
    assert!(
        !context
            .channels
            .iter()
            .any(|(c, _)| c == "multilingual_meaning"),
        "{:?}",
        context.channels
    );
    // A question in the memory's own language is still judged by its
    // words: nothing here is about a blood type.
    let unknown = ask(&memory, "bob", "What is my blood type?");
    assert!(unknown.abstain, "{unknown:#?}");
}

#[test]
fn a_bilingual_memory_is_searched_in_both_spaces_and_its_words_defer() {
    let Some(memory) = memory() else { return };
    // Mostly Chinese, the last message English: the memory is in both.
    for (date, text) in [
        ("2024-03-01", "我养了一只猫，叫咪咪。"),
        ("2024-03-02", "我每天早上去公园跑步。"),
        ("2024-03-03", "I started learning the violin last month."),
    ] {
        say(&memory, "mei", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    // A Chinese question is in a language the memory holds: not across
    // languages, yet the words defer, for its answer is in English.
    let explained = memory
        .explain_search("mei", "我在学什么乐器？", &SearchOptions::default())
        .expect("explain");
    assert!(
        explained.contains("mixed languages: the memory is in en, zh"),
        "{explained}"
    );
    let chinese = ask(&memory, "mei", "我在学什么乐器？");
    assert!(!chinese.abstain, "{chinese:#?}");
    assert!(
        place(&chinese, "violin").is_some(),
        "{:?}",
        ranked(&chinese)
    );
    // An English question reads both spaces: English for the English
    // message, multilingual for the Chinese ones.
    let english = ask(&memory, "mei", "What is my cat called?");
    assert!(
        channel_ran(&english, "episode_meaning"),
        "{:?}",
        english.channels
    );
    assert!(
        channel_ran(&english, "multilingual_meaning"),
        "{:?}",
        english.channels
    );
    assert!(!english.abstain, "{english:#?}");
    assert!(place(&english, "咪咪").is_some(), "{:?}", ranked(&english));
}

#[test]
fn a_reopened_memory_keeps_its_tenants_in_the_multilingual_space() {
    let dir = tempfile::tempdir().expect("a directory");
    {
        let Some(memory) = memory_over(Store::open(dir.path()).expect("store")) else {
            return;
        };
        say(&memory, "li", "2024-03-01", "我每天早上去公园跑步。");
        memory.consolidate_now().expect("consolidate");
        assert_eq!(in_multilingual_space(&memory, "li"), 1);
    }
    let memory = memory_over(Store::open(dir.path()).expect("store")).expect("the model");
    say(&memory, "li", "2024-03-02", "I like green tea.");
    memory.consolidate_now().expect("consolidate");
    // Its English message joins the space too, so a Chinese question finds it.
    assert_eq!(in_multilingual_space(&memory, "li"), 2);
    let context = ask(&memory, "li", "我喜欢喝什么茶？");
    assert!(channel_ran(&context, "multilingual_meaning"));
    // In the context; not first: `bm25` matches 我 in the Chinese message
    // and outweighs meaning in a memory this small (pronouns are kept, as "I" is).
    assert!(
        place(&context, "green tea").is_some(),
        "{:?}",
        ranked(&context)
    );
}
