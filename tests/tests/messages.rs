//! The conversation log (`Session::add_message`, `search_messages`): the
//! write path and the fused, as-of read path the C ABI exposes.

use std::sync::Arc;

use chronolog_engine::{HashingEmbedder, Session};
use chronolog_storage::{Store, Timestamp};

fn db() -> Session {
    Session::with_embedder(Store::in_memory(), Arc::new(HashingEmbedder::new(384)))
}

fn at(date: &str) -> Option<Timestamp> {
    Some(Timestamp::parse(date).expect("date"))
}

#[test]
fn messages_are_found_by_words_and_meaning_as_of_when_they_were_said() {
    let mut db = db();
    assert!(
        db.search_messages("anything", 5, None)
            .expect("empty")
            .is_empty()
    );
    let tencent = db
        .add_message(
            "alice",
            "I just started at Tencent in Shenzhen",
            at("2021-03-01"),
        )
        .expect("add");
    let canteen = db
        .add_message("bob", "the canteen food is great today", at("2021-04-10"))
        .expect("add");
    let moonshot = db
        .add_message(
            "alice",
            "big news: I am joining Moonshot in June",
            at("2024-05-20"),
        )
        .expect("add");
    assert_eq!(
        [&tencent, &canteen, &moonshot]
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len(),
        3,
        "ids are unique"
    );

    let now = db
        .search_messages("joining Moonshot", 2, None)
        .expect("search");
    assert_eq!(now[0].id, moonshot);
    assert_eq!(now[0].role, "alice");
    assert_eq!(now[0].rank, 1);
    assert!(now.len() <= 2);
    assert!(now.windows(2).all(|w| w[0].score >= w[1].score));

    // In 2022 the Moonshot message had not been said yet.
    let then = db
        .search_messages("joining Moonshot", 3, at("2022-01-01"))
        .expect("search");
    assert!(then.iter().all(|h| h.id != moonshot), "{then:?}");
    assert!(!then.is_empty());

    let words = db.search_messages("canteen", 1, None).expect("search");
    assert_eq!(words[0].id, canteen);
    assert_eq!(words[0].text, "the canteen food is great today");
}

#[test]
fn a_message_without_a_role_is_refused_and_changes_nothing() {
    let mut db = db();
    assert!(db.add_message(" ", "hello", None).is_err());
    assert!(db.store().relation_id("message").is_err());
    db.add_message("user", "hello", None).expect("add");
    let out = db.run("?- message(I, R, T).").expect("query");
    let Some(chronolog_engine::Output::Rows(rows)) = out.last() else {
        panic!("{out:?}")
    };
    assert_eq!(rows.len(), 1);
}
