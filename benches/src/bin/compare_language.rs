//! Side-by-side report for the language (issues #3, #33): Chronolog's
//! Datalog against cozo 0.7.6 and, on the graph workloads, ascent 0.8.1
//! (Datalog compiled by a Rust macro, sequential) and a hand-written
//! breadth-first search over a CSR array (the floor), on the same data in
//! the same run, every answer's size checked equal.
//!
//! ```sh
//! cargo run --release -p chronolog-benches --bin compare_language
//! ```

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use anyhow::{Result, anyhow, ensure};
use chronolog_benches::peers::{
    Csr, ascent_closure, ascent_reach, ascent_same_generation, ascent_same_generation_of,
    ascent_triangles, ascent_unreached,
};
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

/// One measure's seconds in each engine (`None`: that peer does not run it).
struct Row {
    what: String,
    ours: f64,
    cozo: f64,
    ascent: Option<f64>,
    hand: Option<f64>,
    unit: &'static str,
}

impl Row {
    fn new(what: String, ours: f64, cozo: f64, unit: &'static str) -> Row {
        Row {
            what,
            ours,
            cozo,
            ascent: None,
            hand: None,
            unit,
        }
    }

    fn print(&self) {
        let scale = if self.unit == "us" { 1e6 } else { 1e3 };
        let cell = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.2}", t * scale));
        // Above 1: Chronolog is that many times faster; below, slower.
        let ratio = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.2}", t / self.ours));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            self.what,
            self.unit,
            cell(Some(self.ours)),
            cell(Some(self.cozo)),
            cell(self.ascent),
            cell(self.hand),
            ratio(Some(self.cozo)),
            ratio(self.ascent),
        );
    }
}

/// A graph workload every engine runs: Chronolog's rules and query,
/// cozo's script, ascent's program, on the same edges.
struct GraphWorkload {
    what: &'static str,
    pairs: Vec<(i64, i64)>,
    rules: &'static str,
    query: &'static str,
    cozo: &'static str,
    ascent: fn(&[(i64, i64)]) -> usize,
}

/// Runs `w` in each engine alone (loaded, measured, dropped), checks
/// their answers agree, and adds its row.
fn graph_row(table: &mut Vec<Row>, w: GraphWorkload) -> Result<()> {
    let mut db = load_graph_chronolog(&w.pairs)?;
    db.run(w.rules)?;
    let (n, ours) = time(|| rows_of(db.run(w.query)?))?;
    drop(db);
    let cozo = load_graph_cozo(&w.pairs)?;
    let (m, theirs) = time(|| cozo_rows(&cozo, w.cozo, BTreeMap::new()))?;
    drop(cozo);
    let (a, ascent_time) = time(|| Ok((w.ascent)(&w.pairs)))?;
    ensure!(
        n == m && n == a,
        "{}: {n} rows, cozo {m}, ascent {a}",
        w.what
    );
    table.push(Row {
        ascent: Some(ascent_time),
        ..Row::new(format!("{}; {n} rows", w.what), ours, theirs, "ms")
    });
    Ok(())
}

/// The transitive closure's rules in Chronolog, and in cozo (without its
/// query).
const CLOSURE_RULES: &str = "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y).";
/// See [`CLOSURE_RULES`].
const CLOSURE_COZO: &str = "t[x, y] := *e[x, y]\nt[x, y] := t[x, z], *e[z, y]";

/// The closure's edges (2,000 nodes, 10,000 edges).
fn closure_edges() -> Vec<(i64, i64)> {
    graph_edges(2_000, 10_000, 12)
}

/// Reachability's first query alone, on 30 freshly loaded copies of its
/// graph: the median, and a process to profile.
fn reach_first() -> Result<()> {
    let pairs = graph_edges(20_000, 100_000, 11);
    let mut times = Vec::new();
    let store = load_graph_chronolog(&pairs)?.store().clone();
    let runs = std::env::var("REACH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    for _ in 0..runs {
        // A new engine over the loaded store: nothing cached.
        let mut db = Session::new(store.clone());
        db.run("reach(Y) :- e(0, Y). reach(Y) :- reach(X), e(X, Y).")?;
        times.push(time(|| rows_of(db.run("?- reach(Y).")?))?.1);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "reachability, first query: median {:.2} ms, least {:.2} ms",
        times[15] * 1e3,
        times[0] * 1e3
    );
    Ok(())
}

/// The closure on one thread and on every core, alternately, seven
/// times each: the medians and their ratio.
fn closure_threads() -> Result<()> {
    let mut db = load_graph_chronolog(&closure_edges())?;
    db.run(CLOSURE_RULES)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut one, mut many) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        for (threads, times) in [(1, &mut one), (cores, &mut many)] {
            let limits = chronolog_engine::Limits {
                threads,
                ..chronolog_engine::Limits::default()
            };
            times.push(
                time(|| rows_of(db.run_with("?- t(X, Y).", &Default::default(), &limits)?))?.1,
            );
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] * 1e3
    };
    let (one, many) = (median(&mut one), median(&mut many));
    println!(
        "closure: 1 thread {one:.1} ms, {cores} threads {many:.1} ms ({:.2}x)",
        one / many
    );
    Ok(())
}

/// The closure computed by `engine` alone in this process, then this
/// process's peak resident memory in KiB (Linux's `VmHWM`), printed.
fn closure_alone(engine: &str) -> Result<()> {
    let pairs = closure_edges();
    let n = match engine {
        "chronolog" => {
            let mut db = load_graph_chronolog(&pairs)?;
            db.run(CLOSURE_RULES)?;
            rows_of(db.run("?- t(X, Y).")?)?
        }
        "cozo" => cozo_rows(
            &load_graph_cozo(&pairs)?,
            &format!("{CLOSURE_COZO}\n?[x, y] := t[x, y]"),
            BTreeMap::new(),
        )?,
        "ascent" => ascent_closure(&pairs),
        "hand" => Csr::new(2_000, &pairs).closure(),
        other => return Err(anyhow!("no engine {other}")),
    };
    ensure!(n == 3_944_197, "{engine}: {n} pairs");
    let status = std::fs::read_to_string("/proc/self/status")?;
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .ok_or_else(|| anyhow!("no VmHWM in /proc/self/status"))?;
    println!("{peak}");
    Ok(())
}

/// Each engine's peak resident memory for the closure, in MiB, each
/// measured in a process of its own (`None` where `/proc` is missing).
fn closure_peaks() -> Result<Option<[f64; 4]>> {
    if !std::path::Path::new("/proc/self/status").exists() {
        return Ok(None);
    }
    let exe = std::env::current_exe()?;
    let mut peaks = [0.0; 4];
    for (i, engine) in ["chronolog", "cozo", "ascent", "hand"].iter().enumerate() {
        let out = std::process::Command::new(&exe)
            .args(["--closure-alone", engine])
            .output()?;
        ensure!(
            out.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let kib: f64 = String::from_utf8_lossy(&out.stdout).trim().parse()?;
        peaks[i] = kib / 1024.0;
    }
    Ok(Some(peaks))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, engine] = args.as_slice()
        && flag == "--closure-alone"
    {
        return closure_alone(engine);
    }
    if let [_, flag] = args.as_slice()
        && flag == "--reach-first"
    {
        return reach_first();
    }
    if let [_, flag] = args.as_slice()
        && flag == "--closure-threads"
    {
        return closure_threads();
    }
    let mut table: Vec<Row> = Vec::new();
    let push = |table: &mut Vec<Row>, what: String, ours: f64, theirs: f64, unit: &'static str| {
        table.push(Row::new(what, ours, theirs, unit));
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
    // ascent has no state between runs: each run loads the edges and
    // indexes them, as a first query does.
    let (a, ascent_first) = time(|| Ok(ascent_reach(&pairs, 0)))?;
    let ascent_warm = median((0..9).map(|_| time(|| Ok(ascent_reach(&pairs, 0))).map(|r| r.1)))?;
    ensure!(n == a, "reach: {n} vs ascent's {a}");
    let (mut seen, mut queue) = (Vec::new(), Vec::new());
    let (h, hand_first) = time(|| {
        let csr = Csr::new(20_000, &pairs);
        Ok(csr.reach(0, &mut seen, &mut queue))
    })?;
    let csr = Csr::new(20_000, &pairs);
    let hand_warm =
        median((0..9).map(|_| time(|| Ok(csr.reach(0, &mut seen, &mut queue))).map(|r| r.1)))?;
    ensure!(n == h, "reach: {n} vs the search's {h}");
    table.push(Row {
        ascent: Some(ascent_first),
        hand: Some(hand_first),
        ..Row::new(
            format!(
                "reachability from one node, first query (20k nodes, 100k edges; {n} reached; hand: CSR built and searched)"
            ),
            cold,
            cozo_first,
            "ms",
        )
    });
    table.push(Row {
        ascent: Some(ascent_warm),
        hand: Some(hand_warm),
        ..Row::new(
            "reachability from one node, repeated, median of 9 (hand: the search alone)".into(),
            warm,
            cozo_warm,
            "ms",
        )
    });

    // 3. Full transitive closure: 2,000 nodes, 10,000 edges.
    let pairs = closure_edges();
    let mut db = load_graph_chronolog(&pairs)?;
    db.run(CLOSURE_RULES)?;
    let (n, ours) = time(|| rows_of(db.run("?- t(X, Y).")?))?;
    // The same search on the engine's own threads (one per core here),
    // on a fresh copy of the graph so neither run finds the other's.
    drop(db);
    let mut db = load_graph_chronolog(&pairs)?;
    db.run(CLOSURE_RULES)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let on_threads = chronolog_engine::Limits {
        threads,
        ..chronolog_engine::Limits::default()
    };
    let (n_threads, ours_threads) =
        time(|| rows_of(db.run_with("?- t(X, Y).", &Default::default(), &on_threads)?))?;
    ensure!(n == n_threads, "closure: {n} vs {n_threads} on threads");
    drop(db);
    let cozo = load_graph_cozo(&pairs)?;
    let (m, theirs) = time(|| {
        cozo_rows(
            &cozo,
            &format!("{CLOSURE_COZO}\n?[x, y] := t[x, y]"),
            BTreeMap::new(),
        )
    })?;
    drop(cozo);
    ensure!(n == m, "closure: {n} vs {m}");
    let (a, ascent_time) = time(|| Ok(ascent_closure(&pairs)))?;
    ensure!(n == a, "closure: {n} vs ascent's {a}");
    let (h, hand) = time(|| Ok(Csr::new(2_000, &pairs).closure()))?;
    ensure!(n == h, "closure: {n} vs the search's {h}");
    table.push(Row {
        ascent: Some(ascent_time),
        hand: Some(hand),
        ..Row::new(
            format!("transitive closure (2k nodes, 10k edges; {n} pairs; hand: a search from every node)"),
            ours,
            theirs,
            "ms",
        )
    });
    table.push(Row {
        ascent: Some(ascent_time),
        hand: Some(hand),
        ..Row::new(
            format!("the same closure, Chronolog on {threads} threads (`Limits::threads`)"),
            ours_threads,
            theirs,
            "ms",
        )
    });

    // 3b. The closure asked from one node: the bound argument passes
    // through the recursion, so only what node 0 reaches is derived.
    let mut db = load_graph_chronolog(&pairs)?;
    db.run(CLOSURE_RULES)?;
    let (n, ours) = time(|| rows_of(db.run("?- t(0, Y).")?))?;
    drop(db);
    let cozo = load_graph_cozo(&pairs)?;
    let (m, theirs) = time(|| {
        cozo_rows(
            &cozo,
            &format!("{CLOSURE_COZO}\n?[y] := t[0, y]"),
            BTreeMap::new(),
        )
    })?;
    drop(cozo);
    let (mut seen, mut queue) = (Vec::new(), Vec::new());
    let (h, hand) = time(|| Ok(Csr::new(2_000, &pairs).reach(0, &mut seen, &mut queue)))?;
    ensure!(
        n == m && n == h,
        "bound closure: {n}, cozo {m}, the search {h}"
    );
    table.push(Row {
        hand: Some(hand),
        ..Row::new(
            format!("the closure asked from one node `?- t(0, Y)` (2k nodes, 10k edges; {n} rows)"),
            ours,
            theirs,
            "ms",
        )
    });

    // 4. Same generation, a triangle join and stratified negation, in all
    // three engines on graphs sized to run in about a second.
    graph_row(
        &mut table,
        GraphWorkload {
            what: "same generation (1k nodes, 1.5k edges)",
            pairs: graph_edges(1_000, 1_500, 13),
            rules: "sg(X, Y) :- e(P, X), e(P, Y), X != Y. sg(X, Y) :- e(A, X), sg(A, B), e(B, Y).",
            query: "?- sg(X, Y).",
            cozo: "sg[x, y] := *e[p, x], *e[p, y], x != y\nsg[x, y] := *e[a, x], sg[a, b], *e[b, y]\n?[x, y] := sg[x, y]",
            ascent: ascent_same_generation,
        },
    )?;
    graph_row(
        &mut table,
        GraphWorkload {
            what: "same generation asked of one node `?- sg(500, Y)` (the same graph; magic sets)",
            pairs: graph_edges(1_000, 1_500, 13),
            rules: "sg(X, Y) :- e(P, X), e(P, Y), X != Y. sg(X, Y) :- e(A, X), sg(A, B), e(B, Y).",
            query: "?- sg(500, Y).",
            cozo: "sg[x, y] := *e[p, x], *e[p, y], x != y\nsg[x, y] := *e[a, x], sg[a, b], *e[b, y]\n?[y] := sg[500, y]",
            ascent: |pairs| ascent_same_generation_of(pairs, 500),
        },
    )?;
    graph_row(
        &mut table,
        GraphWorkload {
            what: "triangles `e(X, Y), e(Y, Z), e(Z, X)` (20k nodes, 100k edges)",
            pairs: graph_edges(20_000, 100_000, 14),
            rules: "tri(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X).",
            query: "?- tri(X, Y, Z).",
            cozo: "?[x, y, z] := *e[x, y], *e[y, z], *e[z, x]",
            ascent: ascent_triangles,
        },
    )?;
    graph_row(
        &mut table,
        GraphWorkload {
            what: "stratified negation: nodes one node does not reach (20k nodes, 20k edges)",
            pairs: graph_edges(20_000, 20_000, 15),
            rules: "node(X) :- e(X, _). node(Y) :- e(_, Y). \
         reach(Y) :- e(0, Y). reach(Y) :- reach(X), e(X, Y). \
         unreached(Y) :- node(Y), not reach(Y).",
            query: "?- unreached(Y).",
            cozo: "node[x] := *e[x, _]\nnode[y] := *e[_, y]\nreach[y] := *e[0, y]\nreach[y] := reach[x], *e[x, y]\n?[y] := node[y], not reach[y]",
            ascent: |pairs| ascent_unreached(pairs, 0),
        },
    )?;

    // 5. colleague: 100,000 people in 10,000 companies.
    let (mut db, cozo) = load_colleagues(100_000, 10_000)?;
    let (n, ours, theirs) = side_by_side(&mut db, "?- colleague(X, Y).", &cozo, COLLEAGUE_COZO, 3)?;
    push(
        &mut table,
        format!("two-atom join `colleague` (100k people, 10k companies; {n} pairs), median of 3"),
        ours,
        theirs,
        "ms",
    );

    // 6. An aggregate over the same data: people per company.
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

    println!(
        "| measure | unit | chronolog | cozo 0.7.6 (mem) | ascent 0.8.1 | hand-written | cozo / chronolog | ascent / chronolog |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in &table {
        row.print();
    }
    if let Some([ours, cozo, ascent, hand]) = closure_peaks()? {
        println!(
            "\nPeak resident memory of the transitive closure, each engine alone in a process (graph loaded, closure computed): chronolog {ours:.0} MiB, cozo {cozo:.0} MiB, ascent {ascent:.0} MiB, hand-written {hand:.0} MiB."
        );
    }
    Ok(())
}
