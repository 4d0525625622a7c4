//! Every value type round-trips through a commit, the value indexes and a
//! reopen from disk, nulls included.

use chronolog_storage::{ColumnDef, ColumnType, Interval, Schema, Store, Timestamp, Value};

#[test]
fn every_type_round_trips_through_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let schema = Schema::new(
        "everything",
        vec![
            ColumnDef::new("id", ColumnType::Int).key(),
            ColumnDef::new("flag", ColumnType::Bool),
            ColumnDef::new("score", ColumnType::Float),
            ColumnDef::new("text", ColumnType::Str),
            ColumnDef::new("name", ColumnType::Sym),
            ColumnDef::new("blob", ColumnType::Bytes),
            ColumnDef::new("at", ColumnType::Time),
            ColumnDef::new("embedding", ColumnType::Vector(3)),
            ColumnDef::new("maybe", ColumnType::Str).nullable(),
        ],
    );
    let rows = {
        let store = Store::open(dir.path()).expect("open");
        let rel = store.create_relation(schema.clone()).expect("create");
        let mut txn = store.begin();
        let sym = txn.symbol("zoë").expect("sym");
        let mut rows = Vec::new();
        for i in 0..3i64 {
            let row = vec![
                Value::Int(i),
                Value::Bool(i % 2 == 0),
                Value::Float(i as f64 * 0.5 - 1.0),
                Value::str(format!("text {i} — ünïcode")),
                Value::Sym(sym),
                Value::Bytes(vec![0, 255, i as u8].into()),
                Value::Time(Timestamp::parse("2024-02-29T12:00:00Z").expect("time")),
                Value::Vector(vec![i as f32, -1.5, f32::MAX].into()),
                if i == 1 {
                    Value::Null
                } else {
                    Value::str("here")
                },
            ];
            txn.assert(rel, row.clone(), Interval::ALWAYS, None)
                .expect("assert");
            rows.push(row);
        }
        txn.commit().expect("commit");
        rows
    };
    let store = Store::open(dir.path()).expect("reopen");
    let rel = store.relation_id("everything").expect("relation");
    assert_eq!(store.schema(rel).expect("schema"), schema);
    let snap = store.snapshot();
    let got: Vec<Vec<Value>> = snap
        .scan(rel)
        .collect()
        .expect("scan")
        .into_iter()
        .map(|r| r.values)
        .collect();
    assert_eq!(got, rows);
    // Each indexed column finds its rows by value.
    for (column, value, expected) in [
        (1, Value::Bool(true), 2),
        (2, Value::Float(-0.5), 1),
        (3, Value::str("text 2 — ünïcode"), 1),
        (5, Value::Bytes(vec![0, 255, 1].into()), 1),
        (
            6,
            Value::Time(Timestamp::parse("2024-02-29T12:00:00Z").expect("time")),
            3,
        ),
        (8, Value::Null, 1),
        (8, Value::str("here"), 2),
        // Vectors are not indexed; an equality filter still works, row by row.
        (7, Value::Vector(vec![2.0, -1.5, f32::MAX].into()), 1),
    ] {
        let n = snap
            .scan(rel)
            .eq(column, value.clone())
            .count()
            .expect("count");
        assert_eq!(n, expected, "column {column} = {value:?}");
    }
}

#[test]
fn a_vector_of_the_wrong_dimension_is_rejected() {
    let store = Store::in_memory();
    let rel = store
        .create_relation(Schema::new(
            "v",
            vec![ColumnDef::new("e", ColumnType::Vector(4))],
        ))
        .expect("create");
    let mut txn = store.begin();
    let err = txn
        .assert(
            rel,
            vec![Value::Vector(vec![1.0; 3].into())],
            Interval::ALWAYS,
            None,
        )
        .expect_err("3 != 4");
    assert_eq!(err.to_string(), "column `v.e` holds vec<4>, got vec<3>");
}
