//! The main job until the REPL lands: writes the design card's story into an
//! embedded database on disk and asks it questions on both time axes.
//!
//! ```sh
//! cargo run --release -p chronolog-storage --example bitemporal_demo [DB_DIR]
//! ```
//!
//! The database lives in `DB_DIR` (default `./chronolog-data`). The first run
//! writes the story; later runs reopen it from disk and get the same answers.

use chronolog_storage::{
    ColumnDef, ColumnType, Interval, RelationId, RowVersion, Schema, Store, Timestamp, Value,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "chronolog-data".to_string());
    let started = std::time::Instant::now();
    let store = Store::open(&dir)?;
    println!(
        "database: {dir} (opened in {:.1} ms)",
        started.elapsed().as_secs_f64() * 1e3
    );
    let works_at = match store.relation_id("works_at") {
        Ok(id) => {
            println!("reopened: the story is already on disk\n");
            id
        }
        Err(_) => {
            let id = write_story(&store)?;
            println!("wrote the story in four transactions\n");
            id
        }
    };
    let history = store.snapshot().scan(works_at).history().collect()?;
    let first_tx = history.first().map_or(Timestamp(0), |r| r.tx.from);
    let last_tx = store.snapshot().tx();

    let ask = |title: &str, valid: &str, known: Timestamp| -> Result<()> {
        let rows = store
            .snapshot()
            .scan(works_at)
            .as_of(Timestamp::parse(valid)?)
            .known_at(known)
            .eq(0, Value::Sym(store.symbol("alice").ok_or("no alice")?))
            .collect()?;
        let answer: Vec<String> = rows.iter().map(|r| show(&store, &r.values[1])).collect();
        println!(
            "{title}\n  -> {}\n",
            if answer.is_empty() {
                "(nothing)".to_string()
            } else {
                answer.join(", ")
            }
        );
        Ok(())
    };
    ask("works_at(alice, Y) as_of 2022-01-01", "2022-01-01", last_tx)?;
    ask("works_at(alice, Y) as_of 2025-01-01", "2025-01-01", last_tx)?;
    ask(
        "works_at(alice, Y) as_of 2025-01-01 known_at <first commit>  (what we believed then)",
        "2025-01-01",
        first_tx,
    )?;
    ask(
        "works_at(alice, Y) as_of 2022-01-01 known_at <before the first commit>",
        "2022-01-01",
        Timestamp(first_tx.0 - 1),
    )?;
    ask(
        "works_at(alice, Y) as_of 2027-01-01  (after the correction)",
        "2027-01-01",
        last_tx,
    )?;

    println!("history works_at(alice, Y):");
    println!(
        "  {:<4} {:<10} {:<24} {:<62} {:<10} provenance",
        "row", "company", "valid", "known (tx)", "supersedes"
    );
    for row in &history {
        print_row(&store, row);
    }
    Ok(())
}

fn write_story(store: &Store) -> Result<RelationId> {
    let works_at = store.create_relation(Schema::new(
        "works_at",
        vec![
            ColumnDef::new("person", ColumnType::Sym).key(),
            ColumnDef::new("company", ColumnType::Sym),
        ],
    ))?;
    let day = |s: &str| Timestamp::parse(s);
    let mut txn = store.begin();
    let alice = txn.symbol("alice")?;
    let (tencent, moonshot, openai) = (
        txn.symbol("tencent")?,
        txn.symbol("moonshot")?,
        txn.symbol("openai")?,
    );
    let hr = txn.symbol("hr-import:2021")?;
    txn.assert(
        works_at,
        vec![Value::Sym(alice), Value::Sym(tencent)],
        Interval::starting(day("2021-03-01")?),
        Some(hr),
    )?;
    txn.commit()?;

    let mut txn = store.begin();
    let chat = txn.symbol("chat:2024-06-03#17")?;
    txn.assert(
        works_at,
        vec![Value::Sym(alice), Value::Sym(moonshot)],
        Interval::starting(day("2024-06-01")?),
        Some(chat),
    )?;
    txn.commit()?;

    // A later message says she moves to openai in 2026, then we learn that
    // was a misunderstanding: corrected, not deleted.
    let mut txn = store.begin();
    let rumour = txn.symbol("chat:2025-01-09#4")?;
    txn.assert(
        works_at,
        vec![Value::Sym(alice), Value::Sym(openai)],
        Interval::starting(day("2026-01-01")?),
        Some(rumour),
    )?;
    txn.commit()?;
    let mut txn = store.begin();
    txn.correct(works_at, vec![Value::Sym(alice), Value::Sym(openai)])?;
    txn.commit()?;
    Ok(works_at)
}

fn show(store: &Store, value: &Value) -> String {
    match value {
        Value::Sym(s) => store
            .symbol_name(*s)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        other => format!("{other:?}"),
    }
}

fn print_row(store: &Store, row: &RowVersion) {
    let provenance = row
        .provenance
        .and_then(|p| store.symbol_name(p).ok())
        .map(|p| p.to_string())
        .unwrap_or_default();
    let supersedes = row
        .supersedes
        .map(|s| format!("row {s}"))
        .unwrap_or_default();
    println!(
        "  {:<4} {:<10} {:<24} {:<62} {:<10} {}",
        row.id,
        show(store, &row.values[1]),
        row.valid.to_string(),
        row.tx.to_string(),
        supersedes,
        provenance
    );
}
