//! The right to be forgotten: `Store::purge` erases every row holding a
//! subject, from every read (history and older snapshots included), forgets
//! the name, keeps an audit record without it, and survives a reopen.

use chronolog_storage::{ColumnDef, ColumnType, Interval, Schema, Store, Value};
use chronolog_tests::day;

struct Fixture {
    works_at: chronolog_storage::RelationId,
    knows: chronolog_storage::RelationId,
}

fn setup(store: &Store) -> Fixture {
    let works_at = store
        .create_relation(Schema::new(
            "works_at",
            vec![
                ColumnDef::new("person", ColumnType::Sym).key(),
                ColumnDef::new("company", ColumnType::Sym),
                ColumnDef::new("note", ColumnType::Str),
            ],
        ))
        .expect("create");
    let knows = chronolog_tests::create_knows(store);
    let mut txn = store.begin();
    let alice = txn.symbol("alice").expect("sym");
    let bob = txn.symbol("bob").expect("sym");
    let acme = txn.symbol("acme").expect("sym");
    let initech = txn.symbol("initech").expect("sym");
    let note = |s: &str| Value::str(s);
    txn.assert(
        works_at,
        vec![Value::Sym(alice), Value::Sym(acme), note("alice's secret")],
        Interval::starting(day("2020-01-01")),
        None,
    )
    .expect("a");
    txn.assert(
        works_at,
        vec![Value::Sym(bob), Value::Sym(acme), note("bob")],
        Interval::starting(day("2020-01-01")),
        None,
    )
    .expect("b");
    txn.assert(
        knows,
        vec![Value::Sym(alice), Value::Sym(bob)],
        Interval::ALWAYS,
        None,
    )
    .expect("k1");
    txn.assert(
        knows,
        vec![Value::Sym(bob), Value::Sym(alice)],
        Interval::ALWAYS,
        None,
    )
    .expect("k2");
    txn.commit().expect("commit");
    let mut txn = store.begin();
    txn.assert(
        works_at,
        vec![Value::Sym(alice), Value::Sym(initech), note("moved")],
        Interval::starting(day("2023-01-01")),
        None,
    )
    .expect("a2");
    txn.commit().expect("commit");
    Fixture { works_at, knows }
}

fn everything(store: &Store, f: &Fixture) -> Vec<Vec<Value>> {
    let snap = store.snapshot();
    let mut out = Vec::new();
    for rel in [f.works_at, f.knows] {
        for row in snap.scan(rel).history().collect().expect("history") {
            out.push(row.values);
        }
    }
    out
}

fn mentions(store: &Store, values: &[Value], needle: &str) -> bool {
    values.iter().any(|v| match v {
        Value::Sym(s) => &*store.symbol_name(*s).expect("name") == needle,
        Value::Str(s) => s.contains(needle),
        _ => false,
    })
}

#[test]
fn purge_erases_a_subject_everywhere_and_survives_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let f = setup(&store);
    let alice = store.symbol("alice").expect("alice");
    let before = store.snapshot();
    assert_eq!(
        everything(&store, &f).len(),
        6,
        "2 alice versions + 1 cut version + bob + 2 knows"
    );

    let record = store.purge("alice", "erasure request #7").expect("purge");
    assert_eq!(record.rows, 4, "two works_at rows, two knows rows");
    assert_eq!(record.subjects, [alice]);

    let check = |store: &Store| {
        assert_eq!(store.symbol("alice"), None, "the name is forgotten");
        assert_eq!(
            &*store.symbol_name(alice).expect("id still taken"),
            "<purged>"
        );
        let rows = everything(store, &f);
        assert_eq!(rows.len(), 1, "only bob's job is left: {rows:?}");
        assert!(rows.iter().all(|r| !mentions(store, r, "alice")));
        let bob = store.symbol("bob").expect("bob");
        let bobs = store
            .snapshot()
            .scan(f.works_at)
            .eq(0, Value::Sym(bob))
            .collect()
            .expect("bob");
        assert_eq!(bobs.len(), 1);
        assert_eq!(bobs[0].values[2], Value::str("bob"));
        let purges = store.purges();
        assert_eq!(purges.len(), 1);
        assert_eq!(purges[0].reason, "erasure request #7");
        assert_eq!(purges[0].rows, 4);
    };
    check(&store);
    // A snapshot taken before the purge does not bring alice back either.
    assert_eq!(before.scan(f.knows).history().count().expect("count"), 0);
    assert_eq!(
        before
            .scan(f.works_at)
            .eq(0, Value::Sym(alice))
            .count()
            .expect("count"),
        0
    );

    // A new "alice" is a new subject, and writing still works.
    let mut txn = store.begin();
    let new_alice = txn.symbol("alice").expect("sym");
    assert_ne!(new_alice, alice);
    let acme = store.symbol("acme").expect("acme");
    txn.assert(
        f.works_at,
        vec![
            Value::Sym(new_alice),
            Value::Sym(acme),
            Value::str("hello again"),
        ],
        Interval::ALWAYS,
        None,
    )
    .expect("assert");
    txn.commit().expect("commit");
    drop(before);
    drop(store);

    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(store.symbol("alice"), Some(new_alice));
    assert_eq!(&*store.symbol_name(alice).expect("id"), "<purged>");
    let rows = everything(&store, &f);
    assert_eq!(rows.len(), 2, "bob's job and the new alice's");
    assert!(!rows.iter().any(|r| mentions(&store, r, "secret")));
    assert_eq!(store.purges().len(), 1);
}

/// Every file under `dir`, read whole: what is on disk.
fn bytes_on_disk(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(bytes_on_disk(&path));
        } else {
            out.extend(std::fs::read(&path).expect("read"));
        }
    }
    out
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// One erasure of a name and of a single row that no symbol of its own
/// names: both gone from every read and from the bytes on disk, in one
/// audit record, while the row's symbols and everything else stay.
#[test]
fn an_erasure_of_a_name_and_a_row_is_one_purge_and_leaves_no_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let f = setup(&store);
    let alice = store.symbol("alice").expect("alice");
    let bob = store.symbol("bob").expect("bob");
    let bobs_job = store
        .snapshot()
        .scan(f.works_at)
        .eq(0, Value::Sym(bob))
        .collect()
        .expect("bob")[0]
        .id;
    assert!(holds(&bytes_on_disk(dir.path()), "alice's secret"));
    let record = store
        .erase(
            &["alice", "nobody by this name"],
            &[(f.works_at, bobs_job), (f.works_at, 9_999)],
            "erasure request #8",
        )
        .expect("erase");
    assert_eq!(record.subjects, [alice]);
    assert_eq!(record.rows, 5, "alice's four rows and bob's job");
    assert_eq!(store.purges().len(), 1);
    let check = |store: &Store| {
        assert!(everything(store, &f).is_empty());
        assert_eq!(store.symbol("bob"), Some(bob), "bob's name stays");
        assert!(store.symbol("acme").is_some());
        let disk = bytes_on_disk(dir.path());
        for gone in ["alice", "secret", "moved"] {
            assert!(!holds(&disk, gone), "{gone:?} is still on disk");
        }
        assert!(holds(&disk, "initech"), "symbols not erased stay");
    };
    check(&store);
    // An erasure of what is already gone logs nothing.
    let again = store
        .erase(&["alice"], &[(f.works_at, bobs_job)], "again")
        .expect("erase again");
    assert_eq!(again.rows, 0);
    assert_eq!(store.purges().len(), 1);
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    check(&store);
    assert_eq!(store.purges()[0].subjects, [alice]);
}

#[test]
fn purging_an_unknown_name_changes_nothing() {
    let store = Store::in_memory();
    let f = setup(&store);
    let record = store.purge("carol", "no such person").expect("purge");
    assert_eq!(record.rows, 0);
    assert!(store.purges().is_empty());
    assert_eq!(everything(&store, &f).len(), 6);
}

#[test]
fn in_memory_purge_behaves_the_same() {
    let store = Store::in_memory();
    let f = setup(&store);
    store.purge("alice", "test").expect("purge");
    assert_eq!(everything(&store, &f).len(), 1);
    assert_eq!(store.symbol("alice"), None);
}

/// Data derived from rows (embeddings) kept beside the log: it survives a
/// reopen, and a purge erases the entries of the rows it erases, in every
/// space, for good.
#[test]
fn derived_data_survives_reopen_and_goes_with_a_purge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let f = setup(&store);
    let alice = store.symbol("alice").expect("alice");
    let mut all = Vec::new();
    let mut alices = Vec::new();
    store
        .snapshot()
        .scan(f.works_at)
        .history()
        .for_each(|row| {
            if !all.contains(&row.id()) {
                all.push(row.id());
            }
            if row.value(0) == chronolog_storage::ValueRef::Sym(alice)
                && !alices.contains(&row.id())
            {
                alices.push(row.id());
            }
        })
        .expect("rows");
    assert!(!alices.is_empty() && alices.len() < all.len());
    let entries: Vec<(u32, Vec<u8>)> = all.iter().map(|&r| (r, vec![r as u8; 4])).collect();
    store
        .put_derived("vectors", f.works_at, &entries)
        .expect("put");
    store
        .put_derived("other", f.works_at, &entries[..1])
        .expect("put other");
    drop(store);

    let read = |store: &Store, space: &str| {
        let mut out = Vec::new();
        store
            .derived(space, f.works_at, |row, bytes| {
                out.push((row, bytes.to_vec()))
            })
            .expect("derived");
        out
    };
    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(read(&store, "vectors"), entries);
    assert_eq!(read(&store, "other"), entries[..1].to_vec());
    assert!(read(&store, "nothing here").is_empty());

    store
        .purge("alice", "asked to be forgotten")
        .expect("purge");
    let kept: Vec<(u32, Vec<u8>)> = entries
        .iter()
        .filter(|(r, _)| !alices.contains(r))
        .cloned()
        .collect();
    assert_eq!(read(&store, "vectors"), kept);
    assert!(
        read(&store, "other")
            .iter()
            .all(|(r, _)| !alices.contains(r))
    );
    // A late writer (an indexer that read the text before the purge)
    // cannot put a purged row back.
    store
        .put_derived("vectors", f.works_at, &[(alices[0], vec![1, 2, 3])])
        .expect("put after purge");
    assert_eq!(read(&store, "vectors"), kept);
    drop(store);
    let store = Store::open(dir.path()).expect("reopen after purge");
    assert_eq!(read(&store, "vectors"), kept);

    // An in-memory store keeps none.
    let memory = Store::in_memory();
    let f = setup(&memory);
    memory
        .put_derived("vectors", f.works_at, &[(0, vec![1])])
        .expect("put");
    let mut any = false;
    memory
        .derived("vectors", f.works_at, |_, _| any = true)
        .expect("derived");
    assert!(!any);
}

/// A copy of a relation read after a purge, for rows listed before it,
/// leaves the purged rows out of every column.
#[test]
fn gather_leaves_out_rows_purged_since_their_bitmap_was_taken() {
    let store = Store::in_memory();
    let f = setup(&store);
    let snap = store.snapshot();
    let live = snap.scan(f.knows).live_rows().expect("live");
    assert_eq!(live.len(), 2);
    store.purge("alice", "gone").expect("purge");
    let columns = snap.gather(f.knows, &[0, 1], &live).expect("gather");
    for column in columns {
        match column {
            chronolog_storage::Gathered::Scalars(_, bits) => assert!(bits.is_empty()),
            chronolog_storage::Gathered::Values(values) => assert!(values.is_empty()),
        }
    }
}
