//! The engine's Rust API beyond scripts: prepared queries with parameters,
//! row and time limits, cancellation, and the property that semi-naive
//! evaluation derives exactly what naive evaluation does.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use chronolog_engine::{Error, Limits, Output, Session, Strategy as Evaluation};
use chronolog_storage::{Timestamp, Value};
use proptest::prelude::*;

fn rows(out: Vec<Output>) -> Vec<Vec<String>> {
    let db_rows = match out.into_iter().last() {
        Some(Output::Rows(r)) => r,
        other => panic!("expected rows, got {other:?}"),
    };
    db_rows
        .iter()
        .map(|r| r.iter().map(|v| format!("{v:?}")).collect())
        .collect()
}

#[test]
fn a_prepared_query_runs_many_times_with_parameters() {
    let mut db = Session::in_memory();
    db.run(
        ":create works_at(person: sym key, company: sym).
         works_at(alice, tencent) valid 2021-03-01.
         works_at(alice, moonshot) valid 2024-06-01.
         works_at(bob, acme) valid 2020-01-01.",
    )
    .expect("setup");
    let q = db
        .prepare("?- works_at(alice, Y) as_of $t1.")
        .expect("prepare");
    let at = |day: &str| {
        HashMap::from([(
            "t1".to_string(),
            Value::Time(Timestamp::parse(day).expect("day")),
        )])
    };
    let run = |db: &mut Session, day: &str| {
        let r = db
            .execute(&q, &at(day), &Limits::default())
            .expect("execute");
        r.iter().map(|row| db.render(&row[0])).collect::<Vec<_>>()
    };
    assert_eq!(run(&mut db, "2022-01-01"), ["tencent"]);
    assert_eq!(run(&mut db, "2025-01-01"), ["moonshot"]);
    assert_eq!(run(&mut db, "2019-01-01"), Vec::<String>::new());
    let err = db
        .execute(&q, &HashMap::new(), &Limits::default())
        .expect_err("missing");
    assert!(
        matches!(err, Error::MissingParam(ref p) if p == "t1"),
        "{err}"
    );
    // A parameter can stand for a symbol too.
    let q = db.prepare("?- works_at(P, C), P = $who.").expect("prepare");
    let bob = db.store().symbol("bob").expect("bob");
    let r = db
        .execute(
            &q,
            &HashMap::from([("who".to_string(), Value::Sym(bob))]),
            &Limits::default(),
        )
        .expect("execute");
    assert_eq!(r.len(), 1);
    assert_eq!(
        r.row(0).map(|row| db.render(&row[1])).as_deref(),
        Some("acme")
    );
}

#[test]
fn a_prepared_query_binds_a_derived_argument_by_parameter() {
    // The parameter reaches the magic-sets rewrite's demand (`sg/bf`):
    // each run derives what its own node demands.
    let mut db = Session::in_memory();
    db.run(
        ":create e(a: int, b: int).
         e(1, 2). e(1, 3). e(2, 4). e(3, 5). e(5, 6).
         sg(X, Y) :- e(P, X), e(P, Y), X != Y.
         sg(X, Y) :- e(A, X), sg(A, B), e(B, Y).",
    )
    .expect("setup");
    let q = db.prepare("?- sg($n, Y).").expect("prepare");
    let plan = db.explain("?- sg($n, Y).").expect("explain");
    assert!(plan.contains("demand sg/bf"), "{plan}");
    let mut run = |n: i64| {
        let r = db
            .execute(
                &q,
                &HashMap::from([("n".to_string(), Value::Int(n))]),
                &Limits::default(),
            )
            .expect("execute");
        r.iter().map(|row| db.render(&row[0])).collect::<Vec<_>>()
    };
    assert_eq!(run(2), ["3"]);
    assert_eq!(run(4), ["5"]);
    assert_eq!(run(6), Vec::<String>::new());
}

#[test]
fn limits_stop_a_runaway_recursion_and_cancel_stops_a_query() {
    let mut db = Session::in_memory();
    db.run(
        ":create n(x: int).
         n(0).
         count_up(X) :- n(X).
         count_up(Y) :- count_up(X), Y = X + 1.",
    )
    .expect("setup");
    let limits = Limits {
        max_derived: Some(10_000),
        ..Limits::default()
    };
    let err = db
        .run_with("?- count_up(X).", &HashMap::new(), &limits)
        .expect_err("unbounded");
    assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
    let cancel = Arc::new(AtomicBool::new(true));
    let limits = Limits {
        cancel: Some(cancel),
        ..Limits::default()
    };
    let err = db
        .run_with("?- count_up(X).", &HashMap::new(), &limits)
        .expect_err("cancelled");
    assert!(matches!(err, Error::Cancelled), "{err}");
    // Cancelled from another thread while it runs (Ctrl-C in the shell):
    // it never ends by itself, so returning at all shows the poll works,
    // however slowly each round goes.
    let cancel = Arc::new(AtomicBool::new(false));
    let limits = Limits {
        cancel: Some(cancel.clone()),
        ..Limits::default()
    };
    let setter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let err = db
        .run_with("?- count_up(X), X < 0.", &HashMap::new(), &limits)
        .expect_err("cancelled while running");
    assert!(matches!(err, Error::Cancelled), "{err}");
    setter.join().expect("setter thread");
    // The session is still usable.
    let out = db.run("?- n(X).").expect("after a stopped query");
    assert_eq!(rows(out).len(), 1);
}

#[test]
fn a_bad_fact_aborts_its_whole_batch() {
    let mut db = Session::in_memory();
    db.run(":create p(x: int).").expect("create");
    let err = db.run("p(1). p(2). p(\"three\").").expect_err("bad type");
    assert!(err.to_string().contains("holds int"), "{err}");
    assert_eq!(
        rows(db.run("?- p(X).").expect("query")).len(),
        0,
        "nothing of the batch landed"
    );
}

#[test]
fn a_closure_over_text_is_the_same_on_any_number_of_threads() {
    // Text values are shared, not copied, into the answer (each thread
    // clones them into its part of one buffer): every count of threads
    // gives the rows the rounds of the fixpoint give.
    let mut db = Session::in_memory();
    let mut script = String::from(":create e(a: str, b: str).\n");
    for i in 0..60u32 {
        let (a, b) = (i * 7 % 23, (i * 11 + 5) % 23);
        script += &format!("e(\"node {a}\", \"node {b}\").\n");
    }
    script += "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y).\n";
    db.run(&script).expect("setup");
    let run = |db: &mut Session, limits: &Limits| {
        rows(
            db.run_with("?- t(X, Y).", &HashMap::new(), limits)
                .expect("closure"),
        )
    };
    let naive = run(
        &mut db,
        &Limits {
            strategy: Evaluation::Naive,
            ..Limits::default()
        },
    );
    assert!(naive.len() > 100, "{}", naive.len());
    for threads in [1, 2, 3, 64] {
        let searched = run(
            &mut db,
            &Limits {
                threads,
                ..Limits::default()
            },
        );
        assert_eq!(searched, naive, "{threads} threads");
    }
}

#[test]
fn rules_defined_again_are_planned_once() {
    let mut db = Session::in_memory();
    db.run(":create e(a: int, b: int).\ne(1, 2). e(2, 3).")
        .expect("setup");
    let rules = "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y).";
    db.run(rules).expect("rules");
    db.run(rules).expect("the same rules again");
    let plan = db.explain("?- t(X, Y).").expect("explain");
    assert!(plan.contains("closure of e"), "{plan}");
    assert_eq!(plan.matches("rule t(X, Y)").count(), 2, "{plan}");
    assert_eq!(rows(db.run("?- t(X, Y).").expect("closure")).len(), 3);
}

/// Random graphs and random recursive programs over them.
fn program() -> impl Strategy<Value = (Vec<(u8, u8)>, Vec<u8>, usize)> {
    (
        prop::collection::vec((0u8..12, 0u8..12), 0..40),
        prop::collection::vec(0u8..12, 0..4),
        0usize..7,
    )
}

const PROGRAMS: [&str; 7] = [
    // transitive closure, right-linear (searched: `exec/closure.rs`)
    "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y). ?- t(X, Y).",
    // left-linear, and one node's reach each way (searched)
    "t(X, Y) :- e(X, Y). t(X, Y) :- e(X, Z), t(Z, Y). ?- t(X, Y).",
    "r(Y) :- e(3, Y). r(Y) :- r(X), e(X, Y). ?- r(Y).",
    "r(X) :- e(X, 3). r(X) :- e(X, Y), r(Y). ?- r(X).",
    // non-linear (two recursive atoms)
    "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), t(Z, Y). ?- t(X, Y).",
    // mutual recursion with a filter and stratified negation on top
    "a(X, Y) :- e(X, Y). b(X, Y) :- a(X, Z), e(Z, Y), X != Y. a(X, Y) :- b(X, Y). ?- a(X, Y), not f(Y).",
    // same generation
    "sg(X, X) :- e(X, _). sg(X, Y) :- e(PX, X), sg(PX, PY), e(PY, Y). ?- sg(X, Y).",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn semi_naive_equals_naive((edges, marked, which) in program()) {
        let mut db = Session::in_memory();
        let mut script = String::from(":create e(a: int, b: int).\n:create f(a: int).\n");
        for (a, b) in &edges {
            script += &format!("e({a}, {b}).\n");
        }
        for m in &marked {
            script += &format!("f({m}).\n");
        }
        db.run(&script).expect("setup");
        let program = PROGRAMS[which];
        let semi = db.run_with(program, &HashMap::new(), &Limits::default()).expect("semi-naive");
        let naive = Limits { strategy: Evaluation::Naive, ..Limits::default() };
        let slow = db.run_with(program, &HashMap::new(), &naive).expect("naive");
        // A searched closure on two threads derives the same.
        let two = Limits { threads: 2, ..Limits::default() };
        let threaded = db.run_with(program, &HashMap::new(), &two).expect("two threads");
        let semi = rows(semi);
        prop_assert_eq!(&semi, &rows(slow));
        prop_assert_eq!(&semi, &rows(threaded));
    }

    #[test]
    fn the_parser_never_panics(text in "\\PC{0,80}") {
        let mut db = Session::in_memory();
        let _ = db.run(&text);
    }

    #[test]
    fn the_parser_never_panics_on_near_programs(
        parts in prop::collection::vec(prop::sample::select(vec![
            "?-", "p(", "X", ",", ")", ".", ":-", "not", "valid", "2021-01-01", "..", "\"s\"", "_",
            "as_of", "$t", "count(", "let", "=", "1", "-", "history", ":create", "q(a: int key)", "order by", "limit",
        ]), 0..24)
    ) {
        let mut db = Session::in_memory();
        let _ = db.run(":create p(a: int, b: int).");
        let _ = db.run(&parts.join(" "));
    }
}

/// Stored relations read in full are kept between queries; each later
/// query must still see exactly the rows live at its own instant.
#[test]
fn repeated_queries_see_every_write_and_every_instant() {
    let mut db = Session::in_memory();
    db.run(
        ":create link(a: int, b: int).
         link(1, 2) valid 2020-01-01.
         link(2, 3) valid 2020-01-01.
         reach(Y) :- link(1, Y).
         reach(Y) :- reach(X), link(X, Y).",
    )
    .expect("setup");
    let reached = |db: &mut Session, q: &str| -> Vec<String> {
        rows(db.run(q).expect("query"))
            .into_iter()
            .flatten()
            .collect()
    };
    // Long enough chains force a full read (materialization) of `link`.
    let chain: String = (3..200)
        .map(|i| format!("link({i}, {}) valid 2021-01-01. ", i + 1))
        .collect();
    db.run(&chain).expect("chain");
    let all = reached(&mut db, "?- reach(Y).");
    assert_eq!(all.len(), 199);
    assert_eq!(
        reached(&mut db, "?- reach(Y).").len(),
        199,
        "a repeat agrees"
    );
    // An earlier instant sees only the 2020 links, then now again.
    assert_eq!(
        reached(&mut db, "?- reach(Y) as_of 2020-06-01."),
        ["Int(2)", "Int(3)"]
    );
    assert_eq!(reached(&mut db, "?- reach(Y).").len(), 199);
    // A new link and a retraction are seen by the very next query.
    db.run("link(200, 500) valid 2022-01-01.").expect("add");
    assert!(reached(&mut db, "?- reach(Y).").contains(&"Int(500)".to_string()));
    db.run("retract link(2, 3) valid 2023-01-01.")
        .expect("retract");
    assert_eq!(reached(&mut db, "?- reach(Y)."), ["Int(2)"]);
    // Valid time before the retraction still has the whole chain.
    assert_eq!(reached(&mut db, "?- reach(Y) as_of 2022-06-01.").len(), 200);
    assert_eq!(reached(&mut db, "?- reach(Y)."), ["Int(2)"]);
}

/// Joins whose matches overflow one batch of bindings (1,024 rows): a full
/// scan of 7,500 rows, a lookup with 2,500 matches, and filters, negation,
/// assignment and aggregation downstream of each hand-off, checked against
/// counts worked out here.
#[test]
fn joins_wider_than_a_batch_lose_and_repeat_nothing() {
    let mut db = Session::in_memory();
    let mut script = String::from(
        ":create fan(a: int, b: int).
         :create skip(b: int).
         :create start(s: int).
         start(0).\n",
    );
    for a in 0..3 {
        for b in 0..2500 {
            script.push_str(&format!("fan({a}, {b}).\n"));
        }
    }
    for b in (0..2500).step_by(7) {
        script.push_str(&format!("skip({b}).\n"));
    }
    db.run(&script).expect("load");
    db.run(
        "big(A, B, C) :- fan(A, B), fan(A2, B), A < A2, not skip(B), C = B + A2.
         wide(Y) :- start(S), fan(S, Y), Y > 10.
         per_a(A, count(B)) :- big(A, B, _).",
    )
    .expect("rules");
    let kept = (0..2500).filter(|b| b % 7 != 0).count();
    let big = rows(db.run("?- big(A, B, C).").expect("big"));
    assert_eq!(big.len(), 3 * kept, "three pairs (A < A2) per kept B");
    let distinct: std::collections::BTreeSet<_> = big.iter().collect();
    assert_eq!(distinct.len(), big.len());
    assert_eq!(rows(db.run("?- wide(Y).").expect("wide")).len(), 2500 - 11);
    assert_eq!(
        rows(db.run("?- per_a(A, N).").expect("per_a")),
        // An aggregate counts matches: A = 0 pairs with A2 = 1 and 2, so
        // each kept B matches `big(0, B, _)` twice.
        vec![
            vec!["Int(0)".to_string(), format!("Int({})", 2 * kept)],
            vec!["Int(1)".to_string(), format!("Int({kept})")],
        ]
    );
}

#[test]
fn k_and_limit_take_parameters_so_a_ranked_query_is_prepared_once() {
    let mut db = Session::with_embedder(
        chronolog_storage::Store::in_memory(),
        Arc::new(chronolog_engine::HashingEmbedder::new(64)),
    );
    let mut script = String::from(":create note(id: int key, text: str search).\n");
    for i in 0..20 {
        script.push_str(&format!("note({i}, \"tea note number {i}\").\n"));
    }
    db.run(&script).expect("notes");
    let ranked = db
        .prepare("?- bm25(note, $q, $k) as (I, S, R) order by R limit $n.")
        .expect("prepare");
    assert_eq!(
        db.explain("?- bm25(note, $q, $k) limit $n.")
            .expect("explain")
            .lines()
            .filter(|l| l.contains("$k") || l.contains("limit $n"))
            .count(),
        2,
        "the plan shows the parameters"
    );
    let run = |db: &mut Session, k: i64, n: i64| {
        let params = HashMap::from([
            ("q".to_string(), Value::str("tea")),
            ("k".to_string(), Value::Int(k)),
            ("n".to_string(), Value::Int(n)),
        ]);
        db.execute(&ranked, &params, &Limits::default())
    };
    assert_eq!(run(&mut db, 5, 100).expect("k 5").len(), 5);
    assert_eq!(run(&mut db, 12, 100).expect("k 12").len(), 12);
    assert_eq!(run(&mut db, 12, 3).expect("limit 3").len(), 3);
    // Held to the bounds a written k or limit is held to.
    let err = run(&mut db, 0, 3).expect_err("k 0");
    assert!(err.to_string().contains("k must be between 1"), "{err}");
    let err = run(&mut db, 5, -1).expect_err("limit -1");
    assert!(err.to_string().contains("limit $n"), "{err}");
    let err = db
        .execute(
            &ranked,
            &HashMap::from([("q".to_string(), Value::str("tea"))]),
            &Limits::default(),
        )
        .expect_err("no k");
    assert!(
        matches!(err, Error::MissingParam(ref p) if p == "k" || p == "n"),
        "{err}"
    );
}

#[test]
fn compile_errors_are_typed_so_a_program_can_match_on_them() {
    use chronolog_engine::CompileErrorKind;
    let mut db = Session::in_memory();
    db.run(":create knows(a: sym, b: sym).").expect("create");
    let kind = |db: &mut Session, script: &str| match db.run(script) {
        Err(Error::Compile(e)) => e.kind,
        other => panic!("{script}: expected a compile error, got {other:?}"),
    };
    assert_eq!(
        kind(&mut db, "?- nobody(X)."),
        CompileErrorKind::UnknownRelation("nobody".into())
    );
    assert_eq!(
        kind(&mut db, "?- knows(X)."),
        CompileErrorKind::Arity {
            relation: "knows".into(),
            columns: 2,
            arguments: 1
        }
    );
    assert_eq!(
        kind(
            &mut db,
            "p(X) :- knows(X, _), not q(X). q(X) :- knows(X, _), not p(X). ?- p(X)."
        ),
        CompileErrorKind::NegationThroughRecursion(vec!["p".into(), "q".into(), "p".into()])
    );
    // The message under the caret is the kind's text.
    let err = db.run("?- knows(X, Y), Z > 1.").expect_err("unsafe");
    assert!(err.to_string().contains("variable `Z` is unsafe"), "{err}");
}

#[test]
fn runtime_errors_are_typed_and_located() {
    use chronolog_engine::RuntimeError;
    let mut db = Session::in_memory();
    db.run(":create n(x: int). n(0) valid always.")
        .expect("load");
    let err = db.run("?- n(X), Y = 1 / X.").expect_err("division by zero");
    assert!(
        matches!(err.kind(), Error::Runtime(RuntimeError::DivisionByZero)),
        "{err:?}"
    );
    assert!(err.render("?- n(X), Y = 1 / X.").contains("1:1"), "located");
    let err = db
        .run("?- n(X), Y = 9223372036854775807 + 1.")
        .expect_err("overflow");
    assert!(
        matches!(err.kind(), Error::Runtime(RuntimeError::Overflow(_))),
        "{err:?}"
    );
    // A retrieval operator given the wrong kind of input, by parameter.
    db.run(":create note(id: int key, text: str search).")
        .expect("note");
    let params = HashMap::from([("q".to_string(), Value::Int(3))]);
    let err = db
        .run_with("?- bm25(note, $q, 3).", &params, &Limits::default())
        .expect_err("not text");
    assert!(
        matches!(
            err.kind(),
            Error::Retrieval(chronolog_engine::RetrievalError::Bm25Input(_))
        ),
        "{err:?}"
    );
}
