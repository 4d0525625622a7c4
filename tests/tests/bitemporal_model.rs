//! Replays random histories of asserts, functional replacements, retractions
//! and corrections against a deliberately different model, and checks every
//! as-of read on both axes, and the history, against it.
//!
//! The model knows nothing of rows or intervals: valid time is 21 discrete
//! cells (cell 20 stands for [20, +inf)), and each commit's belief is, per
//! slot, what the slot holds in every cell. The store's rows, remainders,
//! transaction closes, validity bitmaps and value indexes must all agree
//! with that, at every commit's transaction time and between commits, and
//! again after the database is closed and reopened from disk.

use std::collections::BTreeMap;

use chronolog_storage::{
    ColumnDef, ColumnType, Durability, Interval, Options, RelationId, RowVersion, Schema, Store,
    Timestamp, Value,
};
use proptest::prelude::*;

const CELLS: i64 = 21;
const OPEN: i64 = i64::MAX;

#[derive(Clone, Debug)]
enum Op {
    Assert {
        functional: bool,
        k: i64,
        v: i64,
        from: i64,
        to: i64,
    },
    Retract {
        functional: bool,
        k: i64,
        v: i64,
        from: i64,
        to: i64,
    },
    Correct {
        functional: bool,
        k: i64,
        v: i64,
    },
}

fn interval() -> impl Strategy<Value = (i64, i64)> {
    (0..20i64).prop_flat_map(|from| {
        prop_oneof![
            Just((from, OPEN)),
            (from + 1..=20).prop_map(move |to| (from, to))
        ]
    })
}

fn op() -> impl Strategy<Value = Op> {
    let fact = (any::<bool>(), 0..3i64, 0..3i64);
    prop_oneof![
        5 => (fact.clone(), interval()).prop_map(|((functional, k, v), (from, to))| Op::Assert { functional, k, v, from, to }),
        2 => (fact.clone(), interval()).prop_map(|((functional, k, v), (from, to))| Op::Retract { functional, k, v, from, to }),
        2 => fact.prop_map(|(functional, k, v)| Op::Correct { functional, k, v }),
    ]
}

/// Per relation (functional?), per tuple (k, v): which cells hold it.
type Belief = BTreeMap<(bool, i64, i64), [bool; CELLS as usize]>;

fn cells(from: i64, to: i64) -> std::ops::Range<usize> {
    let end = if to == OPEN { CELLS } else { to };
    from as usize..end as usize
}

/// What the model remembers of the past: each commit's belief before and
/// after it, and the belief when the current batch began.
struct Past<'a> {
    commits: &'a [(Belief, Belief)],
    batch_start: &'a Belief,
}

fn holds(belief: &Belief, fact: (bool, i64, i64), cell: usize) -> bool {
    belief.get(&fact).is_some_and(|held| held[cell])
}

fn holds_any(belief: &Belief, fact: (bool, i64, i64)) -> bool {
    belief.get(&fact).is_some_and(|held| held.contains(&true))
}

/// Cells that `x` held in `after` and another value of its key held in
/// `before` but not in `after`: what the commit from `before` to `after`
/// took from them for `x`.
fn taken(before: &Belief, after: &Belief, x: (bool, i64, i64), out: &mut Vec<(i64, usize)>) {
    let (functional, k, v) = x;
    for cell in 0..CELLS as usize {
        if !holds(after, x, cell) {
            continue;
        }
        for other in (0..3).filter(|&o| o != v) {
            let y = (functional, k, other);
            if holds(before, y, cell) && !holds(after, y, cell) {
                out.push((other, cell));
            }
        }
    }
}

fn model_apply(belief: &mut Belief, past: &Past<'_>, op: &Op) {
    match *op {
        Op::Assert {
            functional,
            k,
            v,
            from,
            to,
        } => {
            for cell in cells(from, to) {
                if functional {
                    // The functional slot is k: whatever else k held there is gone.
                    for ((f, kk, _), held) in belief.iter_mut() {
                        if *f && *kk == k {
                            held[cell] = false;
                        }
                    }
                }
                belief
                    .entry((functional, k, v))
                    .or_insert([false; CELLS as usize])[cell] = true;
            }
        }
        Op::Retract {
            functional,
            k,
            v,
            from,
            to,
        } => {
            if let Some(held) = belief.get_mut(&(functional, k, v)) {
                for cell in cells(from, to) {
                    held[cell] = false;
                }
            }
        }
        Op::Correct { functional, k, v } => {
            let x = (functional, k, v);
            // What x took from the other values of its key, newest first:
            // in this batch, then in each commit of x's current run of
            // belief (the commits since x was last held nowhere).
            let mut takings = Vec::new();
            if functional {
                taken(past.batch_start, belief, x, &mut takings);
                if holds_any(past.batch_start, x) {
                    for (before, after) in past.commits.iter().rev() {
                        if !holds_any(after, x) {
                            break;
                        }
                        taken(before, after, x, &mut takings);
                    }
                }
            }
            belief.remove(&x);
            for (other, cell) in takings {
                if (0..3).all(|o| !holds(belief, (functional, k, o), cell)) {
                    belief
                        .entry((functional, k, other))
                        .or_insert([false; CELLS as usize])[cell] = true;
                }
            }
        }
    }
}

/// The tuples the model holds at `cell`, sorted.
fn model_at(belief: &Belief, functional: bool, cell: usize) -> Vec<(i64, i64)> {
    belief
        .iter()
        .filter(|((f, _, _), held)| *f == functional && held[cell])
        .map(|((_, k, v), _)| (*k, *v))
        .collect()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("expected an int, got {other:?}"),
    }
}

fn pairs(rows: &[RowVersion]) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = rows
        .iter()
        .map(|r| (int(&r.values[0]), int(&r.values[1])))
        .collect();
    out.sort_unstable();
    out
}

fn setup(store: &Store) -> (RelationId, RelationId) {
    let f = store
        .create_relation(Schema::new(
            "f",
            vec![
                ColumnDef::new("k", ColumnType::Int).key(),
                ColumnDef::new("v", ColumnType::Int),
            ],
        ))
        .expect("create f");
    let m = store
        .create_relation(Schema::new(
            "m",
            vec![
                ColumnDef::new("k", ColumnType::Int),
                ColumnDef::new("v", ColumnType::Int),
            ],
        ))
        .expect("create m");
    (f, m)
}

/// Runs the batches; returns each commit's tx time with the model's belief.
/// The fact an operation is about: (functional?, k, v).
fn fact(op: &Op) -> (bool, i64, i64) {
    match *op {
        Op::Assert {
            functional, k, v, ..
        }
        | Op::Retract {
            functional, k, v, ..
        }
        | Op::Correct { functional, k, v } => (functional, k, v),
    }
}

fn run(store: &Store, rels: (RelationId, RelationId), batches: &[Vec<Op>]) -> Vec<(i64, Belief)> {
    let mut belief = Belief::new();
    let mut commits = Vec::new();
    let mut beliefs: Vec<(Belief, Belief)> = Vec::new();
    for batch in batches {
        let batch_start = belief.clone();
        let mut txn = store.begin();
        for op in batch {
            let (functional, k, v) = fact(op);
            let rel = if functional { rels.0 } else { rels.1 };
            let values = vec![Value::Int(k), Value::Int(v)];
            let iv = |from: i64, to: i64| {
                Interval::new(Timestamp(from), Timestamp(to)).expect("non-empty")
            };
            match *op {
                Op::Assert { from, to, .. } => txn.assert(rel, values, iv(from, to), None),
                Op::Retract { from, to, .. } => txn.retract(rel, values, iv(from, to)),
                Op::Correct { .. } => txn.correct(rel, values),
            }
            .expect("valid op");
        }
        // "Never said" reaches back within the batch: an assert a later
        // correction of the same fact withdraws is as if not written.
        let past = Past {
            commits: &beliefs,
            batch_start: &batch_start,
        };
        for (at, op) in batch.iter().enumerate() {
            let corrected_later = matches!(op, Op::Assert { .. })
                && batch[at + 1..]
                    .iter()
                    .any(|later| matches!(later, Op::Correct { .. }) && fact(later) == fact(op));
            if !corrected_later {
                model_apply(&mut belief, &past, op);
            }
        }
        let info = txn.commit().expect("commit");
        commits.push((info.tx.0, belief.clone()));
        beliefs.push((batch_start, belief.clone()));
    }
    commits
}

fn check(
    store: &Store,
    rels: (RelationId, RelationId),
    commits: &[(i64, Belief)],
) -> Result<(), TestCaseError> {
    let snap = store.snapshot();
    let empty = Belief::new();
    // Probe each commit's tx, the instant after it, and before the first.
    let mut probes: Vec<(i64, &Belief)> = vec![(1, &empty)];
    for (tx, belief) in commits {
        probes.push((*tx, belief));
        probes.push((*tx + 1, belief));
    }
    for (functional, rel) in [(true, rels.0), (false, rels.1)] {
        let history = snap.scan(rel).history().collect().expect("history");
        for &(tx, belief) in &probes {
            for cell in 0..CELLS as usize {
                let expected = model_at(belief, functional, cell);
                let at = Timestamp(cell as i64);
                let scanned = snap
                    .scan(rel)
                    .as_of(at)
                    .known_at(Timestamp(tx))
                    .collect()
                    .expect("scan");
                prop_assert_eq!(
                    &pairs(&scanned),
                    &expected,
                    "as-of scan, rel f={}, cell {}, tx {}",
                    functional,
                    cell,
                    tx
                );
                // The same through the value index (direct row checks).
                let mut by_key = Vec::new();
                for k in 0..3 {
                    by_key.extend(
                        snap.scan(rel)
                            .as_of(at)
                            .known_at(Timestamp(tx))
                            .eq(0, Value::Int(k))
                            .collect()
                            .expect("lookup"),
                    );
                }
                prop_assert_eq!(
                    &pairs(&by_key),
                    &expected,
                    "indexed lookup, rel f={}, cell {}, tx {}",
                    functional,
                    cell,
                    tx
                );
                // And the history: rows believed at tx covering the cell.
                let believed: Vec<RowVersion> = history
                    .iter()
                    .filter(|r| r.tx.contains(Timestamp(tx)) && r.valid.contains(at))
                    .cloned()
                    .collect();
                prop_assert_eq!(
                    &pairs(&believed),
                    &expected,
                    "history, rel f={}, cell {}, tx {}",
                    functional,
                    cell,
                    tx
                );
            }
        }
        // "Now" (the wall clock, far past cell 20) at the latest tx.
        let latest = commits.last().map_or(&empty, |c| &c.1);
        let now = snap.scan(rel).collect().expect("scan now");
        prop_assert_eq!(
            pairs(&now),
            model_at(latest, functional, CELLS as usize - 1)
        );
        // History versions of one row have adjacent, non-overlapping
        // transaction intervals and only ever shorter valid intervals.
        for pair in history.windows(2) {
            if pair[0].id == pair[1].id {
                prop_assert_eq!(pair[0].tx.to, pair[1].tx.from);
                prop_assert!(pair[1].valid.to < pair[0].valid.to);
            }
        }
        // Links only point backwards, at rows of the same slot.
        for row in &history {
            if let Some(prev) = row.supersedes {
                prop_assert!(prev < row.id);
                let prev = history
                    .iter()
                    .find(|r| r.id == prev)
                    .expect("linked row is in the history");
                prop_assert_eq!(int(&prev.values[0]), int(&row.values[0]));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn in_memory_store_matches_the_model(batches in prop::collection::vec(prop::collection::vec(op(), 1..5), 1..8)) {
        let store = Store::in_memory();
        let rels = setup(&store);
        let commits = run(&store, rels, &batches);
        check(&store, rels, &commits)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn reopened_store_matches_the_model(batches in prop::collection::vec(prop::collection::vec(op(), 1..5), 1..8)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = Options {
            durability: Durability::Buffered,
            ..Options::default()
        };
        let commits = {
            let store = Store::open_with(dir.path(), options).expect("open");
            let rels = setup(&store);
            let commits = run(&store, rels, &batches);
            store.sync().expect("sync");
            commits
        };
        let store = Store::open_with(dir.path(), options).expect("reopen");
        let rels = (store.relation_id("f").expect("f"), store.relation_id("m").expect("m"));
        check(&store, rels, &commits)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// `correct` is "as if it had never been said": a fact asserted and
    /// corrected in one transaction, over a key that did not hold it,
    /// writes nothing at all, whatever it would have cut or replaced.
    #[test]
    fn assert_and_correct_in_one_batch_change_nothing(
        batches in prop::collection::vec(prop::collection::vec(op(), 1..5), 0..6),
        (functional, k, v) in (any::<bool>(), 0..3i64, 0..3i64),
        (from, to) in interval(),
    ) {
        let store = Store::in_memory();
        let rels = setup(&store);
        let commits = run(&store, rels, &batches);
        let believed = commits.last().is_some_and(|(_, belief)| holds_any(belief, (functional, k, v)));
        prop_assume!(!believed);
        let rel = if functional { rels.0 } else { rels.1 };
        let before = store.snapshot().scan(rel).history().collect().expect("history");
        let mut txn = store.begin();
        let interval = Interval::new(Timestamp(from), Timestamp(to)).expect("non-empty");
        txn.assert(rel, vec![Value::Int(k), Value::Int(v)], interval, None).expect("assert");
        txn.correct(rel, vec![Value::Int(k), Value::Int(v)]).expect("correct");
        let info = txn.commit().expect("commit");
        prop_assert_eq!((info.rows_added, info.rows_cut, info.rows_closed), (0, 0, 0));
        let after = store.snapshot().scan(rel).history().collect().expect("history");
        prop_assert_eq!(pairs(&before), pairs(&after));
        prop_assert_eq!(before.len(), after.len());
    }
}
