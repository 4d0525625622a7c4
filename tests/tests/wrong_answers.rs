//! Answers that were once silently wrong (issue 12), each pinned by a test
//! that failed before its fix.

use chronolog_engine::{Output, Session};

/// The last statement's rows, rendered, in the engine's order.
fn answer(db: &mut Session, script: &str) -> Vec<Vec<String>> {
    let out = db.run(script).unwrap_or_else(|e| panic!("{script}: {e}"));
    let rows = match out.into_iter().last() {
        Some(Output::Rows(r)) => r,
        other => panic!("{script}: expected rows, got {other:?}"),
    };
    rows.iter()
        .map(|r| r.iter().map(|v| db.render(v)).collect())
        .collect()
}

fn column(rows: Vec<Vec<String>>) -> Vec<String> {
    rows.into_iter().map(|mut r| r.remove(0)).collect()
}

#[test]
fn a_variable_repeated_in_the_atom_that_binds_it_unifies() {
    let mut db = Session::in_memory();
    db.run(
        ":create e(a: sym, b: sym). e(a, b). e(b, a). e(c, c).
         :create w(p: sym key, c: sym). w(x, x). w(y, z).
         :create n(a: int, b: int). n(1, 2). n(2, 2). n(3, 5).",
    )
    .expect("load");
    assert_eq!(column(answer(&mut db, "?- e(X, X).")), ["c"]);
    assert_eq!(
        column(answer(&mut db, "?- w(P, P).")),
        ["x"],
        "a keyed relation"
    );
    assert_eq!(
        column(answer(&mut db, "?- n(A, A + 1).")),
        ["1"],
        "an expression"
    );
    assert_eq!(
        column(answer(&mut db, "loop(X) :- e(X, X). ?- loop(X).")),
        ["c"],
        "in a rule body"
    );
    assert_eq!(
        column(answer(
            &mut db,
            "reach(X, Y) :- e(X, Y). reach(X, Y) :- reach(X, Z), e(Z, Y). ?- reach(X, X)."
        )),
        ["a", "b", "c"],
        "over a derived relation, on a cycle"
    );
    let history = answer(&mut db, "?- history e(X, X).");
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0][0], "c");
    assert_eq!(
        history[0].len(),
        1 + 7,
        "one variable, then the version's columns"
    );
    // Outside the atom that binds it, a repeated variable was always fine.
    assert_eq!(
        column(answer(&mut db, "?- e(X, Y), e(Y, X), X = Y.")),
        ["c"]
    );
}

#[test]
fn numbers_compare_numerically_in_lookups_too() {
    let mut db = Session::in_memory();
    db.run(
        ":create n(a: int, s: sym). n(2, q). n(3, x). n(4, y).
         :create f(a: float, s: sym). f(2.0, z).",
    )
    .expect("load");
    assert_eq!(column(answer(&mut db, "?- n(I, S), I = 3.0.")), ["3"]);
    assert_eq!(column(answer(&mut db, "?- n(I, S), I != 3.0.")), ["2", "4"]);
    assert_eq!(column(answer(&mut db, "?- n(3.0, S).")), ["x"]);
    assert!(answer(&mut db, "?- n(3.5, S).").is_empty());
    assert_eq!(column(answer(&mut db, "?- f(2, S).")), ["z"]);
    assert_eq!(
        column(answer(&mut db, "?- n(I, S), not f(I, _).")),
        ["3", "4"],
        "a negated lookup coerces as well"
    );
    assert_eq!(column(answer(&mut db, "?- history n(3.0, S).")), ["x"]);
}

#[test]
fn strings_find_symbols_in_queries_as_in_facts() {
    let mut db = Session::in_memory();
    db.run(":create w(p: sym key, c: sym). w(\"bob\", acme).")
        .expect("load");
    assert_eq!(column(answer(&mut db, "?- w(\"bob\", C).")), ["acme"]);
    assert_eq!(column(answer(&mut db, "?- w(bob, C).")), ["acme"]);
    assert!(answer(&mut db, "?- w(\"nobody\", C).").is_empty());
}

#[test]
fn integer_overflow_is_an_error_never_a_panic_or_a_wrap() {
    let mut db = Session::in_memory();
    db.run(":create a(n: int). a(9223372036854775807). a(1).")
        .expect("load");
    for query in [
        "?- X = (-9223372036854775807 - 1) / -1.",
        "?- X = 9223372036854775807 + 1.",
        "?- X = -(-9223372036854775807 - 1).",
        "?- X = (-9223372036854775807 - 1) * -1.",
        "t(sum(N)) :- a(N). ?- t(S).",
        "?- X = 2021-01-01 + 9223372036854775807.",
    ] {
        let err = db.run(query).expect_err(query);
        assert!(
            err.to_string().contains("integer overflow"),
            "{query}: {err}"
        );
    }
    // A sum that fits is still an int.
    db.run(":create b(n: int). b(2). b(40).").expect("load");
    assert_eq!(
        column(answer(&mut db, "u(sum(N)) :- b(N). ?- u(S).")),
        ["42"]
    );
}

#[test]
fn history_modifiers_work_or_are_refused_and_none_is_given_twice() {
    let mut db = Session::in_memory();
    db.run(
        ":create w(p: sym key, c: sym).
         w(alice, tencent) valid 2021-03-01.
         w(alice, moonshot) valid 2024-06-01.
         w(bob, acme) valid 2020-01-01.",
    )
    .expect("load");
    let all = answer(&mut db, "?- history w(P, C).");
    assert_eq!(all.len(), 3);
    let limited = answer(&mut db, "?- history w(P, C) limit 2.");
    assert_eq!(limited, all[..2].to_vec(), "limit keeps the first versions");
    let ordered = column(answer(&mut db, "?- history w(P, C) order by C desc."))
        .into_iter()
        .collect::<Vec<_>>();
    assert_eq!(
        ordered,
        ["alice", "alice", "bob"],
        "sorted by P then C desc"
    );
    let by_company = answer(&mut db, "?- history w(P, C) order by C desc limit 1.");
    assert_eq!(by_company[0][1], "tencent");
    for refused in [
        "?- history w(P, C) as_of 2022-01-01.",
        "?- history w(P, C) known_at 2022-01-01.",
    ] {
        let err = db.run(refused).expect_err(refused);
        assert!(
            err.to_string().contains("takes no `as_of` or `known_at`"),
            "{err}"
        );
    }
    for twice in [
        "?- w(P, C) as_of 2022-01-01 as_of 2025-01-01.",
        "?- w(P, C) known_at 2022-01-01 known_at 2025-01-01.",
        "?- w(P, C) limit 1 limit 2.",
        "?- w(P, C) order by P order by C.",
    ] {
        let err = db.run(twice).expect_err(twice);
        assert!(err.to_string().contains("at most once"), "{twice}: {err}");
    }
}

#[test]
fn correct_with_a_valid_clause_is_refused_not_ignored() {
    let mut db = Session::in_memory();
    db.run(":create w(p: sym key, c: sym). w(bob, openai) valid 2023-01-01.")
        .expect("load");
    let err = db
        .run("correct w(bob, openai) valid 2023-06-01.")
        .expect_err("refused");
    let shown = err.render("correct w(bob, openai) valid 2023-06-01.");
    assert!(
        shown.contains("`correct` withdraws the whole fact"),
        "{shown}"
    );
    assert!(
        shown.contains("1:24"),
        "the caret is under `valid`: {shown}"
    );
    assert_eq!(
        column(answer(&mut db, "?- w(bob, C) as_of 2024-01-01.")),
        ["openai"]
    );
}

#[test]
fn symbols_order_by_name_whatever_was_stored_first() {
    let mut db = Session::in_memory();
    db.run(
        ":create p(n: sym). p(zed). p(mike). p(alice).
         :create q(g: int, n: sym). q(1, zed). q(1, mike). q(2, alice). q(2, bob).
         :create doc(id: sym key, text: str search).
         doc(zz, \"alpha\"). doc(aa, \"beta\").",
    )
    .expect("load");
    assert_eq!(
        column(answer(&mut db, "?- p(N).")),
        ["alice", "mike", "zed"],
        "rows come sorted"
    );
    assert_eq!(
        column(answer(&mut db, "?- p(N) order by N desc.")),
        ["zed", "mike", "alice"]
    );
    assert_eq!(column(answer(&mut db, "?- p(N), N < mike.")), ["alice"]);
    assert_eq!(
        column(answer(&mut db, "?- p(N), N >= mike.")),
        ["mike", "zed"]
    );
    assert_eq!(
        answer(&mut db, "lo(G, min(N), max(N)) :- q(G, N). ?- lo(G, A, B)."),
        [["1", "mike", "zed"], ["2", "alice", "bob"]]
    );
    // A query-only name orders among stored ones.
    assert_eq!(column(answer(&mut db, "?- p(N), N > nina.")), ["zed"]);
    // Equal fused scores: by name.
    assert_eq!(
        column(answer(
            &mut db,
            "?- rrf(bm25(doc, \"alpha\", 5), bm25(doc, \"beta\", 5))."
        )),
        ["aa", "zz"]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 32, .. Default::default() })]

    /// Symbols loaded in any order sort, compare and aggregate by name.
    #[test]
    fn symbols_loaded_in_random_order_sort_by_name(
        names in proptest::collection::btree_set("q[a-z]{0,6}", 1..30),
        shuffle in proptest::collection::vec(0usize..1000, 30),
        pivot in "q[a-z]{0,6}",
    ) {
        let sorted: Vec<String> = names.iter().cloned().collect();
        let mut loaded = sorted.clone();
        for (i, s) in shuffle.iter().enumerate().take(loaded.len()) {
            let j = s % loaded.len();
            loaded.swap(i, j);
        }
        let mut db = Session::in_memory();
        let facts: String = loaded.iter().map(|n| format!("p({n}). ")).collect();
        db.run(&format!(":create p(n: sym). {facts}")).expect("load");
        proptest::prop_assert_eq!(column(answer(&mut db, "?- p(N).")), sorted.clone());
        let mut desc = sorted.clone();
        desc.reverse();
        proptest::prop_assert_eq!(column(answer(&mut db, "?- p(N) order by N desc.")), desc);
        let below: Vec<String> = sorted.iter().filter(|n| n.as_str() < pivot.as_str()).cloned().collect();
        proptest::prop_assert_eq!(column(answer(&mut db, &format!("?- p(N), N < {pivot}."))), below);
        let ends = answer(&mut db, "e(min(N), max(N)) :- p(N). ?- e(A, B).");
        proptest::prop_assert_eq!(&ends[0][0], &sorted[0]);
        proptest::prop_assert_eq!(&ends[0][1], &sorted[sorted.len() - 1]);
    }
}

#[test]
fn retrieval_k_counts_ids_not_rows() {
    let mut db = Session::in_memory();
    // Chunks of documents: the first column (the id) repeats.
    db.run(
        ":create chunk(doc: sym, text: str search embed).
         chunk(d1, \"alice joined acme in may\"). chunk(d1, \"alice likes acme coffee\").
         chunk(d1, \"acme and alice again\"). chunk(d2, \"alice left acme\").
         chunk(d3, \"bob works elsewhere\").",
    )
    .expect("load");
    // Three chunks of d1 match best; k = 2 still finds two documents.
    let mut by_words = column(answer(&mut db, "?- bm25(chunk, \"alice acme\", 2)."));
    by_words.sort();
    assert_eq!(by_words, ["d1", "d2"]);
    let by_meaning = column(answer(&mut db, "?- near(chunk, \"alice acme\", 2)."));
    assert_eq!(by_meaning.len(), 2, "{by_meaning:?}");
    assert_ne!(by_meaning[0], by_meaning[1]);
    let fused = column(answer(
        &mut db,
        "?- rrf(bm25(chunk, \"alice acme\", 2), near(chunk, \"alice acme\", 2)).",
    ));
    assert!(fused.len() >= 2, "{fused:?}");
}

#[test]
fn known_at_in_the_future_is_refused_not_answered_provisionally() {
    let mut db = Session::in_memory();
    db.run(":create w(p: sym key, c: sym). w(alice, acme) valid 2021-01-01.")
        .expect("load");
    let err = db
        .run("?- w(alice, C) known_at 2999-01-01.")
        .expect_err("the future is not known yet");
    assert!(err.to_string().contains("is in the future"), "{err}");
    // Up to now, answers are final: known_at a past instant after the last
    // commit is fine.
    assert_eq!(
        column(answer(&mut db, "?- w(alice, C) as_of 2022-01-01.")),
        ["acme"]
    );
    assert!(answer(&mut db, "?- w(alice, C) known_at 2020-01-01.").is_empty());
}

#[test]
fn bm25_takes_text_as_words_never_as_query_syntax() {
    let mut db = Session::in_memory();
    db.run(
        ":create note(id: sym key, text: str search).
         note(a, \"notes: pricing for the quarter\").
         note(b, \"self-hosted AND cheap, NOT managed\").
         note(c, \"nothing relevant here\").",
    )
    .expect("load");
    for (words, expected) in [
        ("notes: pricing", "a"),
        ("pricing:", "a"),
        ("self-hosted", "b"),
        ("NOT managed", "b"),
        ("-managed", "b"),
        ("cheap*", "b"),
        ("\"unclosed quote pricing", "a"),
    ] {
        let found = column(answer(&mut db, &format!("?- bm25(note, {words:?}, 1).")));
        assert_eq!(found, [expected], "{words}");
    }
    assert!(answer(&mut db, "?- bm25(note, \"::: --- ***\", 3).").is_empty());
}

#[test]
fn aggregates_range_over_matches_and_count_of_nothing_is_zero() {
    let mut db = Session::in_memory();
    db.run(
        ":create age(p: sym key, a: int). age(ann, 30). age(bob, 30). age(cat, 40).
         :create none(x: int).",
    )
    .expect("load");
    assert_eq!(
        column(answer(&mut db, "t(sum(A)) :- age(_, A). ?- t(S).")),
        ["100"]
    );
    assert_eq!(
        column(answer(&mut db, "n(count(A)) :- age(_, A). ?- n(C).")),
        ["3"]
    );
    assert_eq!(
        column(answer(&mut db, "m(mean(A)) :- age(_, A). ?- m(M).")),
        [format!("{}", 100.0 / 3.0)]
    );
    // Named variables were always kept apart; the same answers.
    assert_eq!(
        column(answer(&mut db, "t2(sum(A)) :- age(P, A). ?- t2(S).")),
        ["100"]
    );
    // Over nothing, ungrouped: count and sum are 0, min has no row.
    assert_eq!(
        column(answer(&mut db, "c(count(X)) :- none(X). ?- c(N).")),
        ["0"]
    );
    assert_eq!(
        column(answer(&mut db, "s(sum(X)) :- none(X). ?- s(N).")),
        ["0"]
    );
    assert!(answer(&mut db, "lo(min(X)) :- none(X). ?- lo(N).").is_empty());
    // Grouped over nothing: no groups, no rows.
    assert!(answer(&mut db, "g(X, count(X)) :- none(X). ?- g(X, N).").is_empty());
}

#[test]
fn a_time_compared_with_a_number_is_a_type_error_with_a_caret() {
    let mut db = Session::in_memory();
    db.run(":create ev(t: time). ev(2021-03-01).")
        .expect("load");
    let script = "?- ev(T),\n   T > 2021-3-1.";
    let err = db.run(script).expect_err("a typo, not a comparison");
    let shown = err.render(script);
    assert!(
        shown.contains("cannot compare a time with a number"),
        "{shown}"
    );
    assert!(shown.contains("--> 1:1") && shown.contains('^'), "{shown}");
    // Runtime errors carry their statement's place too.
    let script = "let x = 1.\n?- Y = 1 / 0.";
    let shown = db.run(script).expect_err("division by zero").render(script);
    assert!(
        shown.contains("division by zero") && shown.contains("--> 2:1"),
        "{shown}"
    );
    // Times compare with times.
    assert_eq!(
        column(answer(&mut db, "?- ev(T), T > 2021-01-01.")).len(),
        1
    );
}

#[test]
fn a_remainder_supersedes_the_row_it_was_split_from() {
    let mut db = Session::in_memory();
    db.run(
        ":create w(p: sym key, c: sym).
         w(alice, acme) valid 2020-01-01.
         w(alice, tencent) valid 2021-01-01.
         w(alice, moonshot) valid 2022-01-01 .. 2023-01-01.",
    )
    .expect("load");
    // Rows: 0 acme, 1 tencent (cut at 2022), 2 tencent's remainder from
    // 2023, 3 moonshot. The remainder continues row 1, not row 0 (what row
    // 1 superseded); moonshot supersedes row 1, which it cut short.
    let rows = answer(&mut db, "?- history w(alice, C).");
    let by_row: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r[0].clone(), r[5].clone(), r[6].clone()))
        .collect();
    assert_eq!(
        by_row,
        [
            ("acme".into(), "0".into(), "null".into()),
            ("tencent".into(), "1".into(), "0".into()),
            ("tencent".into(), "2".into(), "1".into()),
            ("moonshot".into(), "3".into(), "1".into()),
        ]
    );
}

#[test]
fn symbols_with_capitals_or_spaces_are_quoted_and_sym_parameters_work_in_facts() {
    let mut db = Session::in_memory();
    db.run(":create sister(of: sym, name: sym). sister(me, 'Mia Wong'). sister(me, 'It\\'s').")
        .expect("load");
    assert_eq!(
        column(answer(&mut db, "?- sister(me, N).")),
        ["It's", "Mia Wong"]
    );
    assert_eq!(column(answer(&mut db, "?- sister(X, 'Mia Wong').")), ["me"]);
    // A `{"sym": ...}` parameter in a fact, for a name the store has not
    // seen yet and for one it has.
    let params = chronolog_engine::json::params(
        &mut db,
        r#"{"who": {"sym": "Zoe Q"}, "me": {"sym": "me"}}"#,
    )
    .expect("params");
    db.run_with("sister($me, $who).", &params, &Default::default())
        .expect("a sym parameter in a fact");
    assert_eq!(column(answer(&mut db, "?- sister(X, 'Zoe Q').")), ["me"]);
}

#[test]
fn correct_makes_the_row_it_cut_short_whole_again() {
    let mut db = Session::in_memory();
    db.run(
        ":create w(p: sym key, c: sym).
         w(alice, acme) valid 2020-01-01.",
    )
    .expect("load");
    db.run("w(alice, rumour) valid 2023-01-01.")
        .expect("rumour");
    let rumour_known = answer(&mut db, "?- history w(alice, C).")[1][3].clone();
    db.run("correct w(alice, rumour).").expect("correct");
    assert_eq!(
        column(answer(&mut db, "?- w(alice, C) as_of 2024-01-01.")),
        ["acme"],
        "as if the rumour had never been said"
    );
    // Every earlier belief stays answerable.
    let before = format!("?- w(alice, C) as_of 2024-01-01 known_at {rumour_known}.");
    assert_eq!(column(answer(&mut db, &before)), ["rumour"]);
    // The history says why: acme goes on from where the rumour cut it.
    let rows = answer(&mut db, "?- history w(alice, C).");
    let last = rows.last().expect("a restoring row");
    assert_eq!(
        (last[0].as_str(), last[1].as_str(), last[2].as_str()),
        ("acme", "2023-01-01", "inf")
    );
    assert_eq!(last[6], "0", "it continues row 0: {rows:?}");

    // An assert and its correction in one batch change nothing at all.
    let versions = answer(&mut db, "?- history w(alice, C).").len();
    let out = db
        .run("w(alice, gossip) valid 2022-06-01 .. 2022-07-01. correct w(alice, gossip).")
        .expect("batch");
    match &out[0] {
        Output::Committed(info) => assert_eq!(
            (info.rows_added, info.rows_cut, info.rows_closed),
            (0, 0, 0),
            "{info:?}"
        ),
        other => panic!("expected a commit, got {other:?}"),
    }
    assert_eq!(answer(&mut db, "?- history w(alice, C).").len(), versions);
}

/// Issue 35 item 4: a correction withdraws what its own batch said of the
/// fact before it, so the job that assert would have cut runs on whole.
#[test]
fn a_correction_in_the_batch_of_its_assert_leaves_what_it_would_have_cut_whole() {
    let mut db = Session::in_memory();
    db.run(":create w(p: sym key, c: sym).").expect("schema");
    db.run(
        "w(bob, tencent) valid 2021-03-01.
         w(bob, moonshot) valid 2024-06-01.
         correct w(bob, moonshot).",
    )
    .expect("batch");
    assert_eq!(
        column(answer(&mut db, "?- w(bob, C) as_of 2025-01-01.")),
        ["tencent"]
    );
    let rows = answer(&mut db, "?- history w(bob, C).");
    assert_eq!(rows.len(), 1, "one row, never cut: {rows:?}");
    assert_eq!(
        (
            rows[0][0].as_str(),
            rows[0][1].as_str(),
            rows[0][2].as_str()
        ),
        ("tencent", "2021-03-01", "inf")
    );
    // An assert after the correction in the same batch is said.
    db.run("correct w(bob, openai). w(bob, openai) valid 2025-01-01.")
        .expect("batch");
    assert_eq!(
        column(answer(&mut db, "?- w(bob, C) as_of 2025-06-01.")),
        ["openai"]
    );
}

#[test]
fn an_undated_fact_holds_from_its_transaction_never_rewriting_the_past() {
    let mut db = Session::in_memory();
    db.run(
        ":create w(p: sym key, c: sym).
         w(dora, acme) valid 2020-01-01.",
    )
    .expect("load");
    db.run("w(dora, moonshot).").expect("an undated update");
    assert_eq!(
        column(answer(&mut db, "?- w(dora, C) as_of 2021-01-01.")),
        ["acme"],
        "the past is not rewritten"
    );
    assert_eq!(column(answer(&mut db, "?- w(dora, C).")), ["moonshot"]);
    let rows = answer(&mut db, "?- history w(dora, C).");
    let moonshot = rows.iter().find(|r| r[0] == "moonshot").expect("moonshot");
    assert_eq!(moonshot[1], moonshot[3], "valid from its transaction time");

    // A re-assert after a retraction leaves the gap.
    db.run(":create p(x: sym). p(a) valid 2020-01-01.")
        .expect("p");
    db.run("retract p(a) valid 2021-01-01 .. 2022-01-01.")
        .expect("gap");
    db.run("p(a).").expect("undated re-assert");
    assert!(answer(&mut db, "?- p(X) as_of 2021-06-01.").is_empty());

    // Timeless facts say so.
    db.run(":create knows(a: sym, b: sym). knows(alice, bob) valid always.")
        .expect("always");
    assert_eq!(
        column(answer(&mut db, "?- knows(alice, B) as_of 1900-01-01.")),
        ["bob"]
    );
    // An undated retract also takes effect from its transaction on.
    db.run("retract knows(alice, bob).").expect("retract");
    assert_eq!(
        column(answer(&mut db, "?- knows(alice, B) as_of 2020-01-01.")),
        ["bob"]
    );
    assert!(answer(&mut db, "?- knows(alice, B).").is_empty());
}

#[test]
fn a_back_dated_assert_names_the_facts_it_withdrew() {
    let mut db = Session::in_memory();
    db.run(":create w(p: sym key, c: sym). w(alice, a) valid 2021-01-01.")
        .expect("load");
    let out = db.run("w(alice, b) valid 2019-01-01.").expect("back-dated");
    let Some(Output::Committed(info)) = out.first() else {
        panic!("expected a commit, got {out:?}");
    };
    let names: Vec<String> = info
        .replaced
        .iter()
        .map(|r| db.render_replaced(r))
        .collect();
    assert_eq!(names, ["w(alice, a) valid 2021-01-01 .. inf"]);
    // An interruption or a plain replacement withdraws nothing whole.
    let out = db
        .run("w(alice, c) valid 2020-01-01 .. 2020-02-01. w(alice, d) valid 2023-01-01.")
        .expect("more");
    let Some(Output::Committed(info)) = out.first() else {
        panic!("expected a commit, got {out:?}");
    };
    assert!(info.replaced.is_empty(), "{:?}", info.replaced);
}
