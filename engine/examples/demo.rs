//! The main job until the REPL lands: the design card's story in the
//! language, on an embedded database on disk (`chronolog_engine::demo`).
//!
//! ```sh
//! cargo run --release -p chronolog-engine --example demo [DB_DIR]
//! ```
//!
//! The database lives in `DB_DIR` (default `./chronolog-data`). The first run
//! writes the story; later runs reopen it from disk and ask again.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "chronolog-data".to_string());
    chronolog_engine::demo::run(std::path::Path::new(&dir), &mut std::io::stdout())
}
