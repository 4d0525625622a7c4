//! Differential tests against cozo 0.7.6: random facts and random programs
//! (joins, transitive closure, negation, aggregation) run in both engines and
//! are compared as sets; as-of queries on random histories are compared
//! against cozo's `Validity` time travel.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chronolog_engine::{Database, Limits, Output, Val};
use cozo::{DataValue, DbInstance, ScriptMutability};
use proptest::prelude::*;

fn cozo_db() -> DbInstance {
    DbInstance::new("mem", "", "").expect("cozo mem")
}

fn cozo_exec(db: &DbInstance, script: &str) {
    db.run_script(script, BTreeMap::new(), ScriptMutability::Mutable)
        .unwrap_or_else(|e| panic!("cozo failed on {script}: {e:?}"));
}

fn cozo_run(db: &DbInstance, script: &str) -> BTreeSet<Vec<i64>> {
    let rows = db
        .run_script(script, BTreeMap::new(), ScriptMutability::Mutable)
        .unwrap_or_else(|e| panic!("cozo failed on {script}: {e:?}"));
    rows.rows
        .into_iter()
        .map(|r| {
            r.iter()
                .map(|v| match (v.get_int(), v.get_float()) {
                    (Some(i), _) => i,
                    // cozo sums integers as floats.
                    (None, Some(x)) if x.fract() == 0.0 => x as i64,
                    _ => panic!("cozo returned a non-integer {v:?}"),
                })
                .collect()
        })
        .collect()
}

fn ours(db: &mut Database, script: &str) -> BTreeSet<Vec<i64>> {
    let out = db
        .run_with(script, &HashMap::new(), &Limits::default())
        .unwrap_or_else(|e| panic!("chronolog failed on {script}: {}", e.render(script)));
    let Some(Output::Rows(rows)) = out.into_iter().last() else {
        panic!("no rows")
    };
    rows.to_vecs()
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| match v {
                    Val::Int(i) => i,
                    other => panic!("expected int, got {other:?}"),
                })
                .collect()
        })
        .collect()
}

/// The same data in both engines: `e(a, b)` edges and `f(a)` marks.
fn load(edges: &[(i64, i64)], marks: &[i64]) -> (Database, DbInstance) {
    let mut db = Database::in_memory();
    let mut script = String::from(":create e(a: int, b: int).\n:create f(a: int).\n");
    for (a, b) in edges {
        script += &format!("e({a}, {b}).\n");
    }
    for m in marks {
        script += &format!("f({m}).\n");
    }
    db.run(&script).expect("load chronolog");
    let cozo = cozo_db();
    cozo_exec(&cozo, ":create e {a: Int, b: Int}");
    cozo_exec(&cozo, ":create f {a: Int}");
    let rows = |v: Vec<Vec<i64>>| {
        DataValue::List(
            v.into_iter()
                .map(|r| DataValue::List(r.into_iter().map(DataValue::from).collect()))
                .collect(),
        )
    };
    let params = BTreeMap::from([
        (
            "e".to_string(),
            rows(edges.iter().map(|&(a, b)| vec![a, b]).collect()),
        ),
        (
            "f".to_string(),
            rows(marks.iter().map(|&m| vec![m]).collect()),
        ),
    ]);
    cozo.run_script(
        "?[a, b] <- $e :put e {a, b}",
        params.clone(),
        ScriptMutability::Mutable,
    )
    .expect("cozo put e");
    cozo.run_script("?[a] <- $f :put f {a}", params, ScriptMutability::Mutable)
        .expect("cozo put f");
    (db, cozo)
}

/// (chronolog program, cozo program) pairs computing the same relation.
const PROGRAMS: [(&str, &str); 8] = [
    ("?- e(X, Y), e(Y, Z).", "?[x, y, z] := *e[x, y], *e[y, z]"),
    // Projections: the join's middle or second column dropped, so head
    // tuples repeat and must be deduplicated.
    (
        "p(X, Z) :- e(X, Y), e(Y, Z). ?- p(X, Z).",
        "?[x, z] := *e[x, y], *e[y, z]",
    ),
    ("?- e(X, _).", "?[x] := *e[x, _]"),
    (
        "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y). ?- t(X, Y).",
        "t[x, y] := *e[x, y]\nt[x, y] := t[x, z], *e[z, y]\n?[x, y] := t[x, y]",
    ),
    (
        "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y). ?- t(X, Y), not f(Y).",
        "t[x, y] := *e[x, y]\nt[x, y] := t[x, z], *e[z, y]\n?[x, y] := t[x, y], not *f[y]",
    ),
    (
        "?- e(X, Y), not e(Y, X), X < Y.",
        "?[x, y] := *e[x, y], not *e[y, x], x < y",
    ),
    (
        "deg(X, count(Y)) :- e(X, Y). ?- deg(X, N).",
        "?[x, count(y)] := *e[x, y]",
    ),
    (
        "s(X, sum(Y), min(Y), max(Y)) :- e(X, Y). ?- s(X, A, B, C).",
        "?[x, sum(y), min(y), max(y)] := *e[x, y]",
    ),
];

/// One argument of a generated atom: a variable (0..3 names X, Y, Z), a
/// constant, or `_`.
#[derive(Clone, Debug)]
enum GenArg {
    Var(usize),
    Const(i64),
    Any,
}

fn gen_arg() -> impl Strategy<Value = GenArg> {
    prop_oneof![
        4 => (0usize..3).prop_map(GenArg::Var),
        1 => (0i64..15).prop_map(GenArg::Const),
        1 => Just(GenArg::Any),
    ]
}

/// A conjunctive query over `e` whose atoms repeat variables and hold
/// constants, in both languages, with its variables in order of first
/// appearance as the answer's columns.
fn conjunctive(atoms: &[(GenArg, GenArg)]) -> Option<(String, String)> {
    let (names, lower) = (["X", "Y", "Z"], ["x", "y", "z"]);
    let mut seen = Vec::new();
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for (a, b) in atoms {
        let mut one = |arg: &GenArg| match arg {
            GenArg::Var(v) => {
                if !seen.contains(v) {
                    seen.push(*v);
                }
                (names[*v].to_string(), lower[*v].to_string())
            }
            GenArg::Const(c) => (c.to_string(), c.to_string()),
            GenArg::Any => ("_".to_string(), "_".to_string()),
        };
        let ((oa, ta), (ob, tb)) = (one(a), one(b));
        ours.push(format!("e({oa}, {ob})"));
        theirs.push(format!("*e[{ta}, {tb}]"));
    }
    if seen.is_empty() {
        return None;
    }
    let head: Vec<&str> = seen.iter().map(|&v| lower[v]).collect();
    Some((
        format!("?- {}.", ours.join(", ")),
        format!("?[{}] := {}", head.join(", "), theirs.join(", ")),
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn atoms_with_repeated_variables_and_constants_agree_with_cozo(
        edges in prop::collection::vec((0i64..6, 0i64..6), 0..30),
        queries in prop::collection::vec(
            prop::collection::vec((gen_arg(), gen_arg()), 1..4), 1..6),
    ) {
        let edges: Vec<(i64, i64)> = edges.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let (mut db, cozo) = load(&edges, &[]);
        for atoms in &queries {
            let Some((ours_text, cozo_text)) = conjunctive(atoms) else { continue };
            let a = ours(&mut db, &ours_text);
            let b = cozo_run(&cozo, &cozo_text);
            prop_assert_eq!(a, b, "query {}", ours_text);
        }
    }

    #[test]
    fn programs_agree_with_cozo(
        edges in prop::collection::vec((0i64..15, 0i64..15), 0..45),
        marks in prop::collection::vec(0i64..15, 0..5),
    ) {
        let edges: Vec<(i64, i64)> = edges.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let marks: Vec<i64> = marks.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        let (mut db, cozo) = load(&edges, &marks);
        for (ours_text, cozo_text) in PROGRAMS {
            let a = ours(&mut db, ours_text);
            let b = cozo_run(&cozo, cozo_text);
            prop_assert_eq!(a, b, "program {}", ours_text);
        }
    }

    #[test]
    fn as_of_agrees_with_cozo_time_travel(
        events in prop::collection::vec((0i64..6, 1i64..60, 0i64..5, any::<bool>()), 1..40),
        probes in prop::collection::vec(0i64..70, 1..8),
    ) {
        // Per key, events in time order with distinct times; a retraction
        // ends the key's current value.
        let mut by_key: BTreeMap<i64, BTreeMap<i64, (i64, bool)>> = BTreeMap::new();
        for (k, t, v, assert) in events {
            by_key.entry(k).or_default().insert(t, (v, assert));
        }
        let mut db = Database::in_memory();
        db.run(":create h(k: int key, v: int).").expect("create");
        let cozo = cozo_db();
        cozo_exec(&cozo, ":create h {k: Int, vld: Validity => v: Int}");
        let day = 86_400_000_000i64;
        let base = 1_600_000_000_000_000i64;
        let mut cozo_rows = Vec::new();
        for (k, timeline) in &by_key {
            let mut current: Option<i64> = None;
            for (t, (v, assert)) in timeline {
                let at = base + t * day;
                let date = chronolog_storage::Timestamp(at).to_string();
                if *assert {
                    db.run(&format!("h({k}, {v}) valid {date}.")).expect("assert");
                    cozo_rows.push(DataValue::List(vec![DataValue::from(*k), DataValue::List(vec![DataValue::from(at), DataValue::from(true)]), DataValue::from(*v)]));
                    current = Some(*v);
                } else if let Some(cur) = current.take() {
                    db.run(&format!("retract h({k}, {cur}) valid {date}.")).expect("retract");
                    cozo_rows.push(DataValue::List(vec![DataValue::from(*k), DataValue::List(vec![DataValue::from(at), DataValue::from(false)]), DataValue::from(cur)]));
                }
            }
        }
        let params = BTreeMap::from([("rows".to_string(), DataValue::List(cozo_rows))]);
        cozo.run_script("?[k, vld, v] <- $rows :put h {k, vld => v}", params, ScriptMutability::Mutable).expect("cozo put");
        for p in probes {
            let at = base + p * day + day / 2;
            let date = chronolog_storage::Timestamp(at).to_string();
            let a = ours(&mut db, &format!("?- h(K, V) as_of {date}."));
            let b = cozo_run(&cozo, &format!("?[k, v] := *h{{k, v @ {at}}}"));
            prop_assert_eq!(a, b, "as of day {}", p);
            // A join on the value (distinct by the key) and a projection
            // onto it (not distinct).
            let a = ours(&mut db, &format!("?- h(K, V), h(L, V), K != L as_of {date}."));
            let b = cozo_run(&cozo, &format!("?[k, v, l] := *h{{k, v @ {at}}}, *h{{k: l, v @ {at}}}, k != l"));
            prop_assert_eq!(a, b, "join as of day {}", p);
            let a = ours(&mut db, &format!("values(V) :- h(_, V). ?- values(V) as_of {date}."));
            let b = cozo_run(&cozo, &format!("?[v] := *h{{v @ {at}}}"));
            prop_assert_eq!(a, b, "projection as of day {}", p);
        }
    }
}
