//! Bad input gets a typed error and changes nothing: not the relation, not
//! the rest of the transaction, not what is on disk.

use chronolog_storage::{
    ColumnDef, ColumnType, Error, Interval, RelationId, Schema, Store, Symbol, Timestamp, Value,
};
use chronolog_tests::day;

fn works_at(store: &Store) -> RelationId {
    store
        .create_relation(Schema::new(
            "works_at",
            vec![
                ColumnDef::new("person", ColumnType::Sym).key(),
                ColumnDef::new("company", ColumnType::Sym),
                ColumnDef::new("since", ColumnType::Time).nullable(),
            ],
        ))
        .expect("create works_at")
}

#[test]
fn every_bad_write_is_a_typed_error_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let rel = works_at(&store);
    let mut txn = store.begin();
    let alice = txn.symbol("alice").expect("sym");
    let acme = txn.symbol("acme").expect("sym");
    txn.assert(
        rel,
        vec![Value::Sym(alice), Value::Sym(acme), Value::Null],
        Interval::ALWAYS,
        None,
    )
    .expect("good row");
    let before = txn.commit().expect("commit").tx;

    let mut txn = store.begin();
    let good = || vec![Value::Sym(alice), Value::Sym(acme), Value::Null];

    let err = txn
        .assert(rel, vec![Value::Sym(alice)], Interval::ALWAYS, None)
        .expect_err("wrong arity");
    assert!(
        matches!(
            err,
            Error::ArityMismatch {
                expected: 3,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "relation `works_at` has 3 columns, got 1 values"
    );

    let err = txn
        .assert(
            rel,
            vec![Value::Sym(alice), Value::Int(7), Value::Null],
            Interval::ALWAYS,
            None,
        )
        .expect_err("wrong type");
    assert!(matches!(err, Error::TypeMismatch { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "column `works_at.company` holds sym, got int 7"
    );

    let err = txn
        .assert(
            rel,
            vec![Value::Null, Value::Sym(acme), Value::Null],
            Interval::ALWAYS,
            None,
        )
        .expect_err("null in a non-nullable column");
    assert!(matches!(err, Error::TypeMismatch { .. }), "{err}");

    let err = txn
        .assert(
            rel,
            vec![Value::Sym(alice), Value::Sym(acme), Value::str("x")],
            Interval::ALWAYS,
            None,
        )
        .expect_err("str in a time column");
    assert_eq!(
        err.to_string(),
        "column `works_at.since` holds time or null, got str \"x\""
    );

    let inverted = Interval {
        from: day("2024-01-01"),
        to: day("2023-01-01"),
    };
    let err = txn
        .assert(rel, good(), inverted, None)
        .expect_err("inverted interval");
    assert!(matches!(err, Error::EmptyInterval { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "empty interval: valid_to 2023-01-01 is not after valid_from 2024-01-01"
    );
    assert!(Interval::new(day("2024-01-01"), day("2023-01-01")).is_err());
    let err = txn
        .retract(rel, good(), inverted)
        .expect_err("inverted retract");
    assert!(matches!(err, Error::EmptyInterval { .. }), "{err}");

    let err = txn
        .assert(RelationId(99), good(), Interval::ALWAYS, None)
        .expect_err("unknown relation id");
    assert!(matches!(err, Error::UnknownRelation { .. }), "{err}");
    let err = store
        .relation_id("lives_in")
        .expect_err("unknown relation name");
    assert_eq!(err.to_string(), "unknown relation `lives_in`");

    let err = txn
        .assert(
            rel,
            vec![Value::Sym(Symbol(12345)), Value::Sym(acme), Value::Null],
            Interval::ALWAYS,
            None,
        )
        .expect_err("unknown symbol");
    assert!(matches!(err, Error::UnknownSymbol { id: 12345 }), "{err}");
    let err = txn
        .assert(rel, good(), Interval::ALWAYS, Some(Symbol(777)))
        .expect_err("unknown provenance");
    assert!(matches!(err, Error::UnknownSymbol { id: 777 }), "{err}");

    let err = txn
        .correct(rel, vec![Value::Int(1)])
        .expect_err("correct with wrong arity");
    assert!(matches!(err, Error::ArityMismatch { .. }), "{err}");

    // Every op was rejected, so the transaction commits nothing.
    let info = txn.commit().expect("empty commit");
    assert_eq!((info.rows_added, info.rows_closed, info.tx), (0, 0, before));

    // Bad schemas.
    let err = store.create_relation(Schema::new(
        "works_at",
        vec![ColumnDef::new("a", ColumnType::Int)],
    ));
    assert!(matches!(err, Err(Error::RelationExists { .. })));
    for bad in [
        Schema::new("empty", vec![]),
        Schema::new("9lives", vec![ColumnDef::new("a", ColumnType::Int)]),
        Schema::new(
            "dup",
            vec![
                ColumnDef::new("a", ColumnType::Int),
                ColumnDef::new("a", ColumnType::Str),
            ],
        ),
        Schema::new("vec0", vec![ColumnDef::new("v", ColumnType::Vector(0))]),
        Schema::new(
            "veckey",
            vec![ColumnDef::new("v", ColumnType::Vector(3)).key()],
        ),
    ] {
        let name = bad.name.clone();
        let err = store.create_relation(bad).expect_err("invalid schema");
        assert!(matches!(err, Error::InvalidSchema { .. }), "{name}: {err}");
    }
    assert_eq!(store.relations().len(), 1);

    // Nothing changed, in memory or on disk.
    let check = |store: &Store| {
        let rows = store
            .snapshot()
            .scan(rel)
            .history()
            .collect()
            .expect("history");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].values, good());
        assert_eq!(store.relations().len(), 1);
    };
    check(&store);
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    check(&store);
}

#[test]
fn a_dropped_transaction_leaves_no_trace() {
    let store = Store::in_memory();
    let rel = works_at(&store);
    {
        let mut txn = store.begin();
        let alice = txn.symbol("alice").expect("sym");
        txn.assert(
            rel,
            vec![Value::Sym(alice), Value::Sym(alice), Value::Null],
            Interval::ALWAYS,
            None,
        )
        .expect("assert");
        // dropped without commit
    }
    assert_eq!(
        store.snapshot().scan(rel).history().count().expect("count"),
        0
    );
}

#[test]
fn bad_times_are_rejected_with_the_text() {
    let err = Timestamp::parse("2021-13-01").expect_err("month 13");
    assert_eq!(
        err.to_string(),
        "`2021-13-01` is not an ISO-8601 date or datetime"
    );
}

#[test]
fn a_database_open_elsewhere_is_reported_as_locked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _first = Store::open(dir.path()).expect("open");
    let err = Store::open(dir.path()).err().expect("second open fails");
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert!(err.to_string().ends_with("is in use by another process"));
}

#[test]
fn closing_and_reopening_at_once_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    for round in 0..20 {
        let store = Store::open(dir.path()).expect("reopen right after drop");
        if round == 0 {
            works_at(&store);
        }
        assert_eq!(store.relations().len(), 1);
    }
}
