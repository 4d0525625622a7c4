//! Answers that were once silently wrong (issue 12), each pinned by a test
//! that failed before its fix.

use chronolog_engine::{Database, Output};

/// The last statement's rows, rendered, in the engine's order.
fn answer(db: &mut Database, script: &str) -> Vec<Vec<String>> {
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
    let mut db = Database::in_memory();
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
    let mut db = Database::in_memory();
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
    let mut db = Database::in_memory();
    db.run(":create w(p: sym key, c: sym). w(\"bob\", acme).")
        .expect("load");
    assert_eq!(column(answer(&mut db, "?- w(\"bob\", C).")), ["acme"]);
    assert_eq!(column(answer(&mut db, "?- w(bob, C).")), ["acme"]);
    assert!(answer(&mut db, "?- w(\"nobody\", C).").is_empty());
}

#[test]
fn integer_overflow_is_an_error_never_a_panic_or_a_wrap() {
    let mut db = Database::in_memory();
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
