//! Nothing a caller passes may abort the process or run without bound: a
//! huge `k`, deep nesting, a long chain of rules, a query that would fill
//! the machine's memory. Each is answered or refused with a typed error.

use chronolog_engine::{Error, Limits, Output, Session};

fn nodes(db: &mut Session, n: usize) {
    let mut script = String::from(":create edge(a: int, b: int).\n");
    for i in 0..n {
        script.push_str(&format!("edge({i}, {}).\n", (i + 1) % n));
    }
    db.run(&script).expect("load edges");
}

#[test]
fn a_query_past_its_memory_budget_stops_naming_the_rule() {
    let mut db = Session::in_memory();
    nodes(&mut db, 3_000);
    // Every pair of nodes on a cycle: 9 million tuples, far past 64 MiB.
    let limits = Limits {
        max_memory: Some(64 << 20),
        ..Limits::default()
    };
    let err = db
        .run_with(
            "reach(X, Y) :- edge(X, Y).
             reach(X, Y) :- reach(X, Z), edge(Z, Y).
             ?- reach(X, Y).",
            &Default::default(),
            &limits,
        )
        .expect_err("over budget");
    let message = err.to_string();
    assert!(matches!(err, Error::LimitExceeded(_)), "{message}");
    assert!(message.contains("memory budget of 64 MiB"), "{message}");
    assert!(message.contains("`reach`"), "{message}");
    // The same on two threads, which watch the budget together.
    let two = Limits {
        threads: 2,
        ..limits.clone()
    };
    let err = db
        .run_with("?- reach(X, Y).", &Default::default(), &two)
        .expect_err("over budget on two threads");
    let message = err.to_string();
    assert!(message.contains("memory budget of 64 MiB"), "{message}");
    assert!(message.contains("`reach`"), "{message}");
    // The database is untouched and answers the next query.
    let out = db.run("?- edge(0, Y).").expect("still usable");
    assert_eq!(out.len(), 1);
}

#[test]
fn the_budget_counts_the_stored_copies_and_indexes_a_join_makes() {
    // A join deriving nothing still copies `edge` and groups the copy by
    // the columns it looks up: memory the budget counts.
    let mut db = Session::in_memory();
    nodes(&mut db, 60_000);
    let triangles = "?- edge(X, Y), edge(Y, Z), edge(Z, X).";
    let tight = Limits {
        max_memory: Some(1 << 20),
        ..Limits::default()
    };
    let err = db
        .run_with(triangles, &Default::default(), &tight)
        .expect_err("over budget");
    let message = err.to_string();
    assert!(matches!(err, Error::LimitExceeded(_)), "{message}");
    assert!(message.contains("0 MiB derived"), "{message}");
    assert!(message.contains("the copy of stored `edge`"), "{message}");
    // Under the default budget it is answered: a cycle has no triangle.
    let out = db.run(triangles).expect("answered");
    assert!(matches!(out.last(), Some(Output::Rows(rows)) if rows.is_empty()));
}

#[test]
fn the_default_budget_is_a_fraction_of_the_machine() {
    let budget = chronolog_engine::default_query_memory();
    assert!(budget >= 256 << 20, "{budget}");
    assert_eq!(Limits::default().max_memory, Some(budget));
}

#[test]
fn huge_k_is_refused_or_bounded_by_the_rows() {
    let mut db = Session::in_memory();
    db.run(
        ":create doc(id: sym key, text: str search embed).
         doc(a, \"alice works at acme\"). doc(b, \"bob likes tea\").",
    )
    .expect("load");
    for query in [
        "?- near(doc, \"alice\", 4294967295).",
        "?- bm25(doc, \"alice\", 200000000).",
        "?- near(doc, \"alice\", 0).",
    ] {
        let err = db.run(query).expect_err("absurd k");
        assert!(
            err.to_string().contains("k must be between 1 and"),
            "{query}: {err}"
        );
    }
    // The largest k allowed allocates by the live rows, not by k.
    let k = chronolog_ql::MAX_RANKED_K;
    let out = db
        .run(&format!(
            "?- rrf(near(doc, \"alice\", {k}), bm25(doc, \"alice\", {k}))."
        ))
        .expect("answered");
    assert_eq!(out.len(), 1);
}

#[test]
fn deep_nesting_and_long_rule_chains_are_bounded() {
    let mut db = Session::in_memory();
    let deep = format!("?- X = {}1{}.", "(".repeat(50_000), ")".repeat(50_000));
    let err = db.run(&deep).expect_err("too deep");
    assert!(err.to_string().contains("nested deeper than"), "{err}");

    nodes(&mut db, 10);
    let n = 20_000;
    let mut script = String::new();
    for i in 0..n {
        script.push_str(&format!("r{i}(X) :- r{}(X).\n", i + 1));
    }
    script.push_str(&format!("r{n}(X) :- edge(X, _).\n?- r0(X)."));
    // On a small thread stack: nothing in compiling or running it recurses
    // once per rule.
    let rows = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let out = db.run(&script).map_err(|e| e.to_string())?;
            match out.last() {
                Some(chronolog_engine::Output::Rows(rows)) => Ok(rows.len()),
                other => Err(format!("expected rows, got {other:?}")),
            }
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert_eq!(rows.expect("runs"), 10, "every node reaches r0");
}

/// A host thread with a small stack (256 KiB, as some C hosts give their
/// workers) runs `body` to completion.
fn on_a_small_stack(body: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(body)
        .expect("spawn")
        .join()
        .expect("the thread survived");
}

#[test]
fn wide_bodies_run_on_a_small_stack() {
    on_a_small_stack(|| {
        let mut db = Session::in_memory();
        db.run(":create p(x: int).\np(1).").expect("load");
        // 10,000 atoms, 10,000 comparisons, a rule of 5,000 atoms: a step
        // per atom, each calling the next.
        let rows = |out: Vec<Output>| match out.last() {
            Some(Output::Rows(rows)) => rows.len(),
            other => panic!("not rows: {other:?}"),
        };
        let atoms = vec!["p(X)"; 10_000].join(", ");
        let out = db.run(&format!("?- {atoms}.")).expect("wide query");
        assert_eq!(rows(out), 1);
        let comparisons = vec!["X > 0"; 10_000].join(", ");
        let out = db
            .run(&format!("?- p(X), {comparisons}."))
            .expect("wide filters");
        assert_eq!(rows(out), 1);
        let rule = vec!["p(X)"; 5_000].join(", ");
        let out = db
            .run(&format!("q(X) :- {rule}.\n?- q(X)."))
            .expect("wide rule");
        assert_eq!(rows(out), 1);
    });
}

#[test]
fn limit_without_order_stops_at_its_rows() {
    let mut db = Session::in_memory();
    let mut script = String::new();
    for rel in ["a", "b", "c", "d"] {
        script.push_str(&format!(":create {rel}(v: int).\n"));
        for i in 0..1_000 {
            script.push_str(&format!("{rel}({i}).\n"));
        }
    }
    db.run(&script).expect("load");
    // The whole answer is 10^12 rows; a budget of 10,000 derived rows
    // refuses any plan that computes it before cutting.
    let limits = Limits {
        max_derived: Some(10_000),
        ..Limits::default()
    };
    let query = "?- a(W), b(X), c(Y), d(Z) limit 10.";
    let rows = |db: &mut Session| match db
        .run_with(query, &Default::default(), &limits)
        .expect("ten rows")
        .pop()
    {
        Some(Output::Rows(rows)) => rows.to_vecs(),
        other => panic!("rows, not {other:?}"),
    };
    let first = rows(&mut db);
    assert_eq!(first.len(), 10);
    let distinct: std::collections::HashSet<String> =
        first.iter().map(|r| format!("{r:?}")).collect();
    assert_eq!(distinct.len(), 10, "{first:?}");
    // The same rows each time.
    assert_eq!(rows(&mut db), first);
    // An order over the whole answer needs all of it: refused.
    let err = db
        .run_with(
            "?- a(W), b(X), c(Y), d(Z) order by W desc limit 10.",
            &Default::default(),
            &limits,
        )
        .expect_err("the whole answer");
    assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
}

#[test]
fn a_limited_answer_is_part_of_the_whole_one() {
    let mut db = Session::in_memory();
    db.run(
        ":create p(a: int, b: int).
         p(1, 2). p(2, 3). p(3, 4). p(4, 1). p(2, 5). p(5, 6).
         r(X, Z) :- p(X, Y), p(Y, Z).
         r(X, Z) :- p(X, Z), X > 3.",
    )
    .expect("load");
    let rows = |db: &mut Session, q: &str| match db.run(q).expect("query").pop() {
        Some(Output::Rows(rows)) => rows.to_vecs(),
        other => panic!("rows, not {other:?}"),
    };
    let whole = rows(&mut db, "?- r(X, Z), p(Z, W).");
    assert!(whole.len() > 3, "{whole:?}");
    for n in 0..=whole.len() + 1 {
        let part = rows(&mut db, &format!("?- r(X, Z), p(Z, W) limit {n}."));
        assert_eq!(part.len(), n.min(whole.len()), "limit {n}");
        assert!(
            part.iter().all(|row| whole.contains(row)),
            "limit {n}: {part:?}"
        );
    }
}

#[test]
fn a_searched_closure_with_a_limit_derives_only_its_rows() {
    let mut db = Session::in_memory();
    nodes(&mut db, 3_000);
    db.run(
        "reach(X, Y) :- edge(X, Y).
         reach(X, Y) :- reach(X, Z), edge(Z, Y).",
    )
    .expect("rules");
    // 9 million pairs in all; a budget of 1,000 derived tuples refuses any
    // evaluation that computes them before cutting.
    let limits = Limits {
        max_derived: Some(1_000),
        ..Limits::default()
    };
    let rows = |db: &mut Session, query: &str| match db
        .run_with(query, &Default::default(), &limits)
        .expect("answered within the budget")
        .pop()
    {
        Some(Output::Rows(rows)) => rows.to_vecs(),
        other => panic!("rows, not {other:?}"),
    };
    let first = rows(&mut db, "?- reach(X, Y) limit 5.");
    // The closure's first five pairs in the answer's order: node 0 reaches
    // every node, 0 itself included around the cycle.
    let pairs: Vec<String> = first.iter().map(|r| format!("{:?}", r)).collect();
    assert_eq!(
        pairs,
        (0..5)
            .map(|y| format!("[Int(0), Int({y})]"))
            .collect::<Vec<_>>()
    );
    // One node's reach likewise.
    db.run("from0(Y) :- edge(0, Y). from0(Y) :- from0(X), edge(X, Y).")
        .expect("rules");
    assert_eq!(rows(&mut db, "?- from0(Y) limit 3.").len(), 3);
    // An order over the whole answer needs all of it: refused.
    let err = db
        .run_with(
            "?- reach(X, Y) order by Y desc limit 5.",
            &Default::default(),
            &limits,
        )
        .expect_err("the whole answer");
    assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
}
