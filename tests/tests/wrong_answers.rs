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
