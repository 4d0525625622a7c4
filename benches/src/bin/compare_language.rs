//! Side-by-side report for the language (issue #3): Chronolog's Datalog
//! against cozo 0.7.6 on the same data in the same run.
//!
//! ```sh
//! cargo run --release -p chronolog-benches --bin compare_language
//! ```

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use anyhow::{Result, anyhow, ensure};
use chronolog_benches::*;
use chronolog_engine::{Limits, Session};
use chronolog_storage::{Store, Timestamp, Value};
use cozo::{DataValue, DbInstance, ScriptMutability};
use rand::{Rng, SeedableRng};

fn cozo_rows(db: &DbInstance, script: &str, params: BTreeMap<String, DataValue>) -> Result<usize> {
    let rows = db
        .run_script(script, params, ScriptMutability::Immutable)
        .map_err(|e| anyhow!("{e}"))?;
    Ok(rows.rows.len())
}

fn time<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let started = Instant::now();
    let out = f()?;
    Ok((out, started.elapsed().as_secs_f64()))
}

/// The median of some timings (this VM's timings are noisy).
fn median(samples: impl Iterator<Item = Result<f64>>) -> Result<f64> {
    let mut v = samples.collect::<Result<Vec<f64>>>()?;
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2)
        .copied()
        .ok_or_else(|| anyhow!("no samples"))
}

fn rows_of(out: Vec<chronolog_engine::Output>) -> Result<usize> {
    match out.into_iter().last() {
        Some(chronolog_engine::Output::Rows(r)) => Ok(r.len()),
        _ => Err(anyhow!("no rows")),
    }
}

/// Runs `ours` in Chronolog and `theirs` in cozo once each (their row
/// counts must agree), then `runs` more times each: `(rows, our median,
/// their median)` in seconds.
fn side_by_side(
    db: &mut Session,
    ours: &str,
    cozo: &DbInstance,
    theirs: &str,
    runs: usize,
) -> Result<(usize, f64, f64)> {
    let (n, _) = time(|| rows_of(db.run(ours)?))?;
    let (m, _) = time(|| cozo_rows(cozo, theirs, BTreeMap::new()))?;
    ensure!(n == m, "{ours}: {n} rows vs cozo's {m}");
    let our_median = median((0..runs).map(|_| time(|| rows_of(db.run(ours)?)).map(|r| r.1)))?;
    let their_median =
        median((0..runs).map(|_| time(|| cozo_rows(cozo, theirs, BTreeMap::new())).map(|r| r.1)))?;
    Ok((n, our_median, their_median))
}

fn main() -> Result<()> {
    let mut table: Vec<[String; 4]> = Vec::new();
    let push = |table: &mut Vec<[String; 4]>, what: String, ours: f64, theirs: f64, unit: &str| {
        let scale = if unit == "us" { 1e6 } else { 1e3 };
        table.push([
            what,
            format!("{:.2} {unit}", ours * scale),
            format!("{:.2} {unit}", theirs * scale),
            format!("{:.1}x faster", theirs / ours),
        ]);
    };

    // 1. The design card's point query on 500,000 versions.
    let w = Workload::STANDARD;
    let (loaded, _) = load_chronolog(Store::in_memory(), w)?;
    let (cozo, _) = load_cozo(w)?;
    let people = loaded.people.clone();
    let mut db = Session::new(loaded.store.clone());
    let t1 = w.mid_time();
    let prepared = db.prepare("?- works_at($p, Y) as_of $t1.")?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let probes: Vec<usize> = (0..20_000).map(|_| rng.gen_range(0..w.entities)).collect();
    let mut samples = Vec::with_capacity(probes.len());
    for &i in &probes {
        let params = HashMap::from([
            ("p".to_string(), Value::Sym(people[i])),
            ("t1".to_string(), Value::Time(Timestamp(t1))),
        ]);
        let started = Instant::now();
        let rows = db.execute(&prepared, &params, &Limits::default())?;
        samples.push(started.elapsed().as_nanos() as u64);
        ensure!(rows.len() == 1, "one company for person {i}");
    }
    let ours_p50 = percentile(&mut samples, 50.0) as f64 / 1e9;
    let mut text = Vec::new();
    for &i in probes.iter().take(5_000) {
        let script = format!("?- works_at(p{i}, Y) as_of {}.", Timestamp(t1));
        let started = Instant::now();
        let n = rows_of(db.run(&script)?)?;
        text.push(started.elapsed().as_nanos() as u64);
        ensure!(n == 1);
    }
    let text_p50 = percentile(&mut text, 50.0) as f64 / 1e9;
    let mut theirs = Vec::new();
    for &i in probes.iter().take(2_000) {
        let started = Instant::now();
        cozo_query(&cozo, COZO_POINT, Some(i), t1)?;
        theirs.push(started.elapsed().as_nanos() as u64);
    }
    let cozo_p50 = percentile(&mut theirs, 50.0) as f64 / 1e9;
    push(
        &mut table,
        "point `works_at(p, Y) as_of t1`, prepared, p50".into(),
        ours_p50,
        cozo_p50,
        "us",
    );
    push(
        &mut table,
        "the same from text each time (parse + plan + run), p50".into(),
        text_p50,
        cozo_p50,
        "us",
    );
    drop(db);
    drop(cozo);

    // 2. Reachability from one node: 20,000 nodes, 100,000 edges. Each
    // engine is loaded, measured and dropped alone, so neither pays for the
    // other's memory.
    let pairs = graph_edges(20_000, 100_000, 11);
    let mut db = load_graph_chronolog(&pairs)?;
    db.run("reach(Y) :- e(0, Y). reach(Y) :- reach(X), e(X, Y).")?;
    // The first run reads and hashes the edges; later runs at the same
    // snapshot reuse them (the session's cache of materialized relations).
    let (n, cold) = time(|| rows_of(db.run("?- reach(Y).")?))?;
    let warm = median((0..9).map(|_| time(|| rows_of(db.run("?- reach(Y).")?)).map(|r| r.1)))?;
    drop(db);
    let cozo = load_graph_cozo(&pairs)?;
    let reach_cozo = "reach[y] := *e[0, y]\nreach[y] := reach[x], *e[x, y]\n?[y] := reach[y]";
    let (m, cozo_first) = time(|| cozo_rows(&cozo, reach_cozo, BTreeMap::new()))?;
    let cozo_warm = median(
        (0..9).map(|_| time(|| cozo_rows(&cozo, reach_cozo, BTreeMap::new())).map(|r| r.1)),
    )?;
    drop(cozo);
    ensure!(n == m, "reach: {n} vs {m}");
    push(
        &mut table,
        format!("reachability from one node, first query (20k nodes, 100k edges; {n} reached)"),
        cold,
        cozo_first,
        "ms",
    );
    push(
        &mut table,
        "reachability from one node, repeated, median of 9".into(),
        warm,
        cozo_warm,
        "ms",
    );

    // 3. Full transitive closure: 2,000 nodes, 10,000 edges.
    let pairs = graph_edges(2_000, 10_000, 12);
    let mut db = load_graph_chronolog(&pairs)?;
    db.run("t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y).")?;
    let (n, ours) = time(|| rows_of(db.run("?- t(X, Y).")?))?;
    drop(db);
    let cozo = load_graph_cozo(&pairs)?;
    let (m, theirs) = time(|| {
        cozo_rows(
            &cozo,
            "t[x, y] := *e[x, y]\nt[x, y] := t[x, z], *e[z, y]\n?[x, y] := t[x, y]",
            BTreeMap::new(),
        )
    })?;
    drop(cozo);
    ensure!(n == m, "closure: {n} vs {m}");
    push(
        &mut table,
        format!("transitive closure (2k nodes, 10k edges; {n} pairs)"),
        ours,
        theirs,
        "ms",
    );

    // 4. colleague: 100,000 people in 10,000 companies.
    let (mut db, cozo) = load_colleagues(100_000, 10_000)?;
    let (n, ours, theirs) = side_by_side(&mut db, "?- colleague(X, Y).", &cozo, COLLEAGUE_COZO, 3)?;
    push(
        &mut table,
        format!("two-atom join `colleague` (100k people, 10k companies; {n} pairs), median of 3"),
        ours,
        theirs,
        "ms",
    );

    // 5. An aggregate over the same data: people per company.
    db.run("headcount(C, count(P)) :- works_at(P, C).")?;
    let headcount_cozo = "?[c, count(p)] := *w[p, c]";
    let (n, ours, theirs) = side_by_side(&mut db, "?- headcount(C, N).", &cozo, headcount_cozo, 5)?;
    push(
        &mut table,
        format!("aggregate `headcount(C, count(P))` (100k people; {n} groups), median of 5"),
        ours,
        theirs,
        "ms",
    );

    println!("| measure | chronolog | cozo 0.7.6 (mem) | ratio |");
    println!("|---|---|---|---|");
    for [a, b, c, d] in table {
        println!("| {a} | {b} | {c} | {d} |");
    }
    Ok(())
}
