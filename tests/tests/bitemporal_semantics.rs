//! The design card's story, step by step: functional replacement, as-of on
//! both axes, history with its supersedes chain, retraction, correction, and
//! readers running beside a writer.

use std::sync::atomic::{AtomicBool, Ordering};

use chronolog_storage::{
    ColumnDef, ColumnType, Interval, RelationId, Schema, Store, Symbol, Timestamp, Value,
};
use chronolog_tests::day;

fn works_at(store: &Store) -> RelationId {
    store
        .create_relation(Schema::new(
            "works_at",
            vec![
                ColumnDef::new("person", ColumnType::Sym).key(),
                ColumnDef::new("company", ColumnType::Sym),
            ],
        ))
        .expect("create")
}

fn company_of(
    store: &Store,
    rel: RelationId,
    person: Symbol,
    valid: Timestamp,
    known: Timestamp,
) -> Vec<String> {
    store
        .snapshot()
        .scan(rel)
        .as_of(valid)
        .known_at(known)
        .eq(0, Value::Sym(person))
        .collect()
        .expect("scan")
        .into_iter()
        .map(|r| match r.values[1] {
            Value::Sym(s) => store.symbol_name(s).expect("name").to_string(),
            ref other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn functional_replacement_as_of_known_at_and_history() {
    let store = Store::in_memory();
    let rel = works_at(&store);
    let mut txn = store.begin();
    let alice = txn.symbol("alice").expect("sym");
    let tencent = txn.symbol("tencent").expect("sym");
    let moonshot = txn.symbol("moonshot").expect("sym");
    let chat = txn.symbol("chat:42").expect("sym");
    txn.assert(
        rel,
        vec![Value::Sym(alice), Value::Sym(tencent)],
        Interval::starting(day("2021-03-01")),
        Some(chat),
    )
    .expect("assert");
    let t1 = txn.commit().expect("commit").tx;

    let mut txn = store.begin();
    txn.assert(
        rel,
        vec![Value::Sym(alice), Value::Sym(moonshot)],
        Interval::starting(day("2024-06-01")),
        None,
    )
    .expect("assert");
    let info = txn.commit().expect("commit");
    let t2 = info.tx;
    assert!(t2 > t1, "transaction times strictly increase");
    assert_eq!(
        (info.rows_added, info.rows_cut, info.rows_closed),
        (1, 1, 0),
        "one new row; the old row cut short, nothing withdrawn"
    );

    let now = store.snapshot().tx();
    assert_eq!(
        company_of(&store, rel, alice, day("2022-01-01"), now),
        ["tencent"]
    );
    assert_eq!(
        company_of(&store, rel, alice, day("2025-01-01"), now),
        ["moonshot"]
    );
    assert_eq!(
        company_of(&store, rel, alice, day("2020-01-01"), now),
        Vec::<String>::new()
    );
    // What did we believe at t1 about 2025? Tencent, open-ended.
    assert_eq!(
        company_of(&store, rel, alice, day("2025-01-01"), t1),
        ["tencent"]
    );
    // Before anything was written we knew nothing.
    assert_eq!(
        company_of(&store, rel, alice, day("2022-01-01"), Timestamp(t1.0 - 1)),
        Vec::<String>::new()
    );

    let history = store
        .snapshot()
        .scan(rel)
        .history()
        .collect()
        .expect("history");
    assert_eq!(history.len(), 3, "two versions of row 0, one of row 1");
    let (believed, cut, new) = (&history[0], &history[1], &history[2]);
    assert_eq!((believed.id, cut.id, new.id), (0, 0, 1));
    assert_eq!(believed.valid, Interval::starting(day("2021-03-01")));
    assert_eq!(
        believed.tx,
        Interval { from: t1, to: t2 },
        "open-ended tencent was believed until t2"
    );
    assert_eq!(believed.provenance, Some(chat));
    assert_eq!(
        cut.valid,
        Interval::new(day("2021-03-01"), day("2024-06-01")).expect("iv")
    );
    assert_eq!(
        cut.tx,
        Interval::starting(t2),
        "from t2 on it ends at 2024-06-01"
    );
    assert_eq!(cut.provenance, Some(chat), "a cut keeps its provenance");
    assert_eq!(
        new.valid.from, cut.valid.to,
        "old.valid_to = new.valid_from"
    );
    assert_eq!(new.supersedes, Some(cut.id), "new.supersedes = old");

    // Correction: we were wrong about moonshot. Later reads forget it, and
    // tencent, which it cut short, is whole again; reads known at t2 still
    // see moonshot.
    let mut txn = store.begin();
    txn.correct(rel, vec![Value::Sym(alice), Value::Sym(moonshot)])
        .expect("correct");
    let t3 = txn.commit().expect("commit").tx;
    assert_eq!(
        company_of(&store, rel, alice, day("2025-01-01"), t3),
        ["tencent"]
    );
    assert_eq!(
        company_of(&store, rel, alice, day("2025-01-01"), t2),
        ["moonshot"]
    );
    assert_eq!(
        company_of(&store, rel, alice, day("2022-01-01"), t3),
        ["tencent"]
    );

    // Retraction: tencent stopped being true on 2023-01-01.
    let mut txn = store.begin();
    txn.retract(
        rel,
        vec![Value::Sym(alice), Value::Sym(tencent)],
        Interval::starting(day("2023-01-01")),
    )
    .expect("retract");
    let t4 = txn.commit().expect("commit").tx;
    assert_eq!(
        company_of(&store, rel, alice, day("2022-06-01"), t4),
        ["tencent"]
    );
    assert_eq!(
        company_of(&store, rel, alice, day("2023-06-01"), t4),
        Vec::<String>::new()
    );
    // Nothing was deleted: every version is still in the history (tencent
    // open-ended, cut at 2024-06, cut at 2023-01; moonshot, withdrawn;
    // tencent's continuation from 2024-06 after the correction, withdrawn
    // by the retraction).
    assert_eq!(
        store.snapshot().scan(rel).history().count().expect("count"),
        5
    );
}

#[test]
fn re_asserting_a_known_fact_changes_nothing() {
    let store = Store::in_memory();
    let rel = works_at(&store);
    let mut txn = store.begin();
    let (a, b) = (txn.symbol("a").expect("sym"), txn.symbol("b").expect("sym"));
    txn.assert(
        rel,
        vec![Value::Sym(a), Value::Sym(b)],
        Interval::starting(day("2020-01-01")),
        None,
    )
    .expect("assert");
    txn.commit().expect("commit");
    let mut txn = store.begin();
    txn.assert(
        rel,
        vec![Value::Sym(a), Value::Sym(b)],
        Interval::starting(day("2021-01-01")),
        None,
    )
    .expect("assert");
    let info = txn.commit().expect("commit");
    assert_eq!((info.rows_added, info.rows_closed), (0, 0));
}

#[test]
fn non_functional_relations_accumulate() {
    let store = Store::in_memory();
    let knows = chronolog_tests::create_knows(&store);
    let mut txn = store.begin();
    let names: Vec<Symbol> = ["alice", "bob", "carol"]
        .iter()
        .map(|n| txn.symbol(n).expect("sym"))
        .collect();
    txn.assert(
        knows,
        vec![Value::Sym(names[0]), Value::Sym(names[1])],
        Interval::ALWAYS,
        None,
    )
    .expect("a");
    txn.assert(
        knows,
        vec![Value::Sym(names[0]), Value::Sym(names[2])],
        Interval::ALWAYS,
        None,
    )
    .expect("b");
    txn.commit().expect("commit");
    let rows = store
        .snapshot()
        .scan(knows)
        .eq(0, Value::Sym(names[0]))
        .collect()
        .expect("scan");
    assert_eq!(rows.len(), 2);
}

#[test]
fn readers_run_beside_a_writer_and_never_see_half_a_batch() {
    let store = Store::in_memory();
    let rel = store
        .create_relation(Schema::new(
            "counter",
            vec![
                ColumnDef::new("batch", ColumnType::Int),
                ColumnDef::new("i", ColumnType::Int),
            ],
        ))
        .expect("create");
    const BATCH: i64 = 100;
    const BATCHES: i64 = 200;
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let mut reads = 0;
                while !done.load(Ordering::Relaxed) || reads < 10 {
                    let snap = store.snapshot();
                    let n = snap.scan(rel).count().expect("count");
                    assert_eq!(n as i64 % BATCH, 0, "a snapshot saw part of a batch");
                    // The same snapshot gives the same answer later, whatever
                    // the writer did in between.
                    std::thread::yield_now();
                    assert_eq!(snap.scan(rel).count().expect("count"), n);
                    let mut rows = 0;
                    snap.scan(rel).for_each(|_| rows += 1).expect("for_each");
                    assert_eq!(rows, n);
                    reads += 1;
                }
            });
        }
        for b in 0..BATCHES {
            let mut txn = store.begin();
            for i in 0..BATCH {
                txn.assert(
                    rel,
                    vec![Value::Int(b), Value::Int(i)],
                    Interval::ALWAYS,
                    None,
                )
                .expect("assert");
            }
            txn.commit().expect("commit");
        }
        done.store(true, Ordering::Relaxed);
    });
    assert_eq!(
        store.snapshot().scan(rel).count().expect("count"),
        (BATCH * BATCHES) as u64
    );
}
