//! Side-by-side report: Chronolog's storage API against cozo 0.7.6 (in-memory,
//! `Validity` key column) on the same workload in the same run. Prints a
//! markdown table with both numbers and their ratio; `docs/benchmarks.md`
//! records its output and this command:
//!
//! ```sh
//! cargo run --release -p chronolog-benches --bin compare
//! ```
//!
//! Environment: `ENTITIES` (default 100000), `VERSIONS` (default 5).

use std::time::Instant;

use anyhow::{Result, ensure};
use chronolog_benches::*;
use chronolog_storage::{Durability, Options, Store, Timestamp, Value};
use rand::{Rng, SeedableRng};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Loads per engine and workload; the median is reported.
const LOAD_RUNS: usize = 3;

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn us(ns: u64) -> String {
    format!("{:.2} us", ns as f64 / 1e3)
}

fn main() -> Result<()> {
    let w = Workload {
        entities: env_usize("ENTITIES", Workload::STANDARD.entities),
        versions: env_usize("VERSIONS", Workload::STANDARD.versions),
    };
    println!(
        "workload: {} entities x {} versions = {} rows asserted\n",
        w.entities,
        w.versions,
        w.rows()
    );
    let mut table: Vec<[String; 4]> = Vec::new();

    // Load in memory, measuring resident memory around the first load. The
    // machine is a shared VM (CPU steal is common), so load rates are the
    // median of three loads of each engine.
    let rss_before = rss_bytes();
    let (db, first_s) = load_chronolog(Store::in_memory(), w)?;
    let rss_after = rss_bytes();
    let mut ours = vec![first_s];
    let mut theirs = Vec::new();
    let mut cozo = None;
    for _ in 0..LOAD_RUNS {
        let (db, s) = load_cozo(w)?;
        theirs.push(s);
        cozo = Some(db);
    }
    for _ in 1..LOAD_RUNS {
        ours.push(load_chronolog(Store::in_memory(), w)?.1);
    }
    let cozo = cozo.ok_or_else(|| anyhow::anyhow!("no cozo load"))?;
    let (load_s, cozo_load_s) = (median(&mut ours), median(&mut theirs));
    table.push([
        format!(
            "batched load of all {} versions (replacements cut rows), in memory",
            w.rows()
        ),
        format!("{:.0} rows/s", w.rows() as f64 / load_s),
        format!("{:.0} rows/s", w.rows() as f64 / cozo_load_s),
        format!("{:.1}x faster", cozo_load_s / load_s),
    ]);

    // New facts only (no replacements): one version of every entity.
    let fresh = Workload {
        entities: w.entities,
        versions: 1,
    };
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..LOAD_RUNS {
        ours.push(load_chronolog(Store::in_memory(), fresh)?.1);
        theirs.push(load_cozo(fresh)?.1);
    }
    let (fresh_s, cozo_fresh_s) = (median(&mut ours), median(&mut theirs));
    table.push([
        format!("batched insert of {} new facts, in memory", fresh.rows()),
        format!("{:.0} rows/s", fresh.rows() as f64 / fresh_s),
        format!("{:.0} rows/s", fresh.rows() as f64 / cozo_fresh_s),
        format!("{:.1}x faster", cozo_fresh_s / fresh_s),
    ]);

    // Both engines must give the same answers before their speed means anything.
    let t = w.mid_time();
    let snap = db.store.snapshot();
    for i in (0..w.entities).step_by((w.entities / 500).max(1)) {
        let ours = chronolog_point(&db, &snap, i, t)
            .map(|s| db.store.symbol_name(s))
            .transpose()?;
        let params = std::collections::BTreeMap::from([
            ("t".to_string(), cozo::DataValue::from(t)),
            ("p".to_string(), cozo::DataValue::from(Workload::person(i))),
        ]);
        let theirs = cozo
            .run_script(COZO_POINT, params, cozo::ScriptMutability::Immutable)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let theirs = theirs
            .rows
            .first()
            .and_then(|r| r[0].get_str().map(str::to_string));
        ensure!(
            ours.as_deref() == theirs.as_deref(),
            "person {i}: chronolog {ours:?} vs cozo {theirs:?}"
        );
    }

    // Point as-of lookups, one timing per call.
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let probes: Vec<usize> = (0..20_000).map(|_| rng.gen_range(0..w.entities)).collect();
    let mut ours: Vec<u64> = Vec::with_capacity(probes.len());
    for &i in &probes {
        let started = Instant::now();
        let found = chronolog_point(&db, &snap, i, t);
        ours.push(started.elapsed().as_nanos() as u64);
        ensure!(found.is_some(), "person {i} has a company at t");
    }
    let mut theirs: Vec<u64> = Vec::with_capacity(2_000);
    for &i in probes.iter().take(2_000) {
        let started = Instant::now();
        cozo_query(&cozo, COZO_POINT, Some(i), t)?;
        theirs.push(started.elapsed().as_nanos() as u64);
    }
    let (p50, cp50) = (percentile(&mut ours, 50.0), percentile(&mut theirs, 50.0));
    table.push([
        "point as-of lookup, p50".into(),
        us(p50),
        us(cp50),
        format!("{:.0}x faster", cp50 as f64 / p50 as f64),
    ]);
    table.push([
        "point as-of lookup, p99".into(),
        us(percentile(&mut ours, 99.0)),
        us(percentile(&mut theirs, 99.0)),
        String::new(),
    ]);

    // The same lookups against an older transaction time (not the latest).
    let known = {
        let history = snap
            .scan(db.works_at)
            .history()
            .eq(0, Value::Sym(db.people[0]))
            .collect()?;
        history.get(2).map_or(snap.tx(), |r| r.tx.from)
    };
    let mut past: Vec<u64> = Vec::with_capacity(probes.len());
    for &i in &probes {
        let started = Instant::now();
        let scan = snap
            .scan(db.works_at)
            .as_of(Timestamp(t))
            .known_at(known)
            .eq(0, Value::Sym(db.people[i]));
        let mut n = 0;
        scan.for_each(|_| n += 1)?;
        past.push(started.elapsed().as_nanos() as u64);
    }
    table.push([
        "point lookup known_at an old tx, p50".into(),
        us(percentile(&mut past, 50.0)),
        "n/a (cozo has one time axis)".into(),
        String::new(),
    ]);

    // As-of scan of every current row.
    let now = Timestamp::now().0;
    let runs = 15;
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let n = chronolog_scan_now(&db, &snap)?;
        ours.push(started.elapsed().as_nanos() as u64);
        ensure!(n == w.entities, "scan saw {n} rows");
        let started = Instant::now();
        let m = cozo_query(&cozo, COZO_SCAN, None, now)?;
        theirs.push(started.elapsed().as_nanos() as u64);
        ensure!(m == w.entities, "cozo scan saw {m} rows");
    }
    let (s, cs) = (percentile(&mut ours, 50.0), percentile(&mut theirs, 50.0));
    table.push([
        format!("as-of scan of all {} current rows, median", w.entities),
        format!("{:.2} ms", s as f64 / 1e6),
        format!("{:.2} ms", cs as f64 / 1e6),
        format!("{:.0}x faster", cs as f64 / s as f64),
    ]);
    let mut hist = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let n = snap
            .scan(db.works_at)
            .as_of(Timestamp(t))
            .known_at(known)
            .count()?;
        hist.push(started.elapsed().as_nanos() as u64);
        ensure!(n > 0);
    }
    table.push([
        "validity bitmap at (mid valid time, old tx), median".into(),
        format!("{:.2} ms", percentile(&mut hist, 50.0) as f64 / 1e6),
        String::new(),
        String::new(),
    ]);

    // Memory.
    let raw = w.raw_bytes();
    let resident = rss_after.saturating_sub(rss_before);
    let physical_rows = db.store.snapshot().scan(db.works_at).history().count()?;
    table.push([
        format!("resident memory for the load ({physical_rows} row versions)"),
        format!(
            "{:.1} MB ({:.2}x raw {:.1} MB)",
            resident as f64 / 1e6,
            resident as f64 / raw as f64,
            raw as f64 / 1e6
        ),
        String::new(),
        format!("heap estimate {:.1} MB", db.store.heap_bytes() as f64 / 1e6),
    ]);
    drop(cozo);
    drop(snap);
    drop(db);

    // Durable loads through the commit log.
    for (label, durability) in [
        ("fdatasync of log and head per commit", Durability::Sync),
        ("buffered", Durability::Buffered),
    ] {
        let dir = tempfile::tempdir()?;
        let store = Store::open_with(
            dir.path(),
            Options {
                durability,
                ..Options::default()
            },
        )?;
        let (_db, secs) = load_chronolog(store, w)?;
        table.push([
            format!("batched durable insert, {label} ({} rows/commit)", BATCH),
            format!("{:.0} rows/s", w.rows() as f64 / secs),
            String::new(),
            String::new(),
        ]);
    }

    // One small synced commit at a time: what a durable single write costs
    // (one fdatasync: the frame, and the head record the commit before wrote).
    {
        let dir = tempfile::tempdir()?;
        let store = Store::open(dir.path())?;
        let rel = store.create_relation(chronolog_storage::Schema::new(
            "note",
            vec![
                chronolog_storage::ColumnDef::new("n", chronolog_storage::ColumnType::Int),
                chronolog_storage::ColumnDef::new("text", chronolog_storage::ColumnType::Str),
            ],
        ))?;
        let mut samples = Vec::with_capacity(1_000);
        for n in 0..1_000i64 {
            let started = Instant::now();
            let mut txn = store.begin();
            txn.assert(
                rel,
                vec![Value::Int(n), Value::str(format!("note number {n}"))],
                chronolog_storage::Interval::ALWAYS,
                None,
            )?;
            txn.commit()?;
            samples.push(started.elapsed().as_nanos() as u64);
        }
        let (p50, p99) = (
            percentile(&mut samples, 50.0),
            percentile(&mut samples, 99.0),
        );
        table.push([
            "one-fact synced commit, p50 / p99 (1,000 commits)".into(),
            format!("{} / {}", us(p50), us(p99)),
            String::new(),
            String::new(),
        ]);
    }

    // Reopen a database of about a million physical rows.
    let dir = tempfile::tempdir()?;
    let big = Workload {
        entities: 111_112,
        versions: 5,
    };
    {
        let store = Store::open_with(
            dir.path(),
            Options {
                durability: Durability::Buffered,
                ..Options::default()
            },
        )?;
        load_chronolog(store.clone(), big)?;
        store.sync()?;
    }
    let started = Instant::now();
    let store = Store::open(dir.path())?;
    let open_s = started.elapsed().as_secs_f64();
    let rows = store
        .snapshot()
        .scan(store.relation_id("works_at")?)
        .history()
        .count()?;
    table.push([
        format!("open a {rows}-row database (replay + indexes)"),
        format!("{:.2} s", open_s),
        String::new(),
        String::new(),
    ]);

    println!("| measure | chronolog | cozo 0.7.6 (mem) | ratio |");
    println!("|---|---|---|---|");
    for [a, b, c, d] in table {
        println!("| {a} | {b} | {c} | {d} |");
    }
    Ok(())
}
