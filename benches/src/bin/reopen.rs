//! What reopening a memory costs: a database on disk with `N` embedded
//! episodes (default 2,000) is written and indexed by one session, then
//! opened again and searched by meaning at once. Uses the session's default
//! embedder (all-MiniLM-L6-v2 when installed by `scripts/install-model.sh`).
//!
//! ```sh
//! cargo run --release -p chronolog-benches --bin reopen [N]
//! ```

use std::time::Instant;

use anyhow::{Context, Result, ensure};
use chronolog_engine::{Output, Session};

fn main() -> Result<()> {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().context("N must be a number of episodes")?,
        None => 2_000,
    };
    let dir = tempfile::tempdir()?;
    let embedder = {
        let mut db = Session::open(dir.path())?;
        let mut script = String::from(":create episode(id: sym key, text: str search embed).\n");
        for i in 0..n {
            script.push_str(&format!(
                "episode(e{i}, \"note {i}: the meeting about project {} moved to room {}\").\n",
                i % 37,
                i % 11
            ));
        }
        db.run(&script)?;
        let started = Instant::now();
        db.sync_indexes()?;
        println!(
            "first session: embedding {n} episodes took {:.2?}",
            started.elapsed()
        );
        db.embedder_name()
    };
    let started = Instant::now();
    let mut db = Session::open(dir.path())?;
    let out = db.run("?- near(episode, \"meeting about project 5\", 3).")?;
    let elapsed = started.elapsed();
    let found = match out.last() {
        Some(Output::Rows(rows)) => rows.len(),
        _ => 0,
    };
    ensure!(found == 3, "the search found {found} episodes, not 3");
    println!("reopen, then the first `near` over all {n}: {elapsed:.2?} (embedder {embedder})");
    Ok(())
}
