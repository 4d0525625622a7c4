//! Golden tests for the language: each `tests/golden/*.dl` script runs in a
//! fresh in-memory database and its output must equal the `.out` file beside
//! it, each statement's output under the statement, as the shell shows it. A script is split into cases by lines holding only `---`; each case
//! runs in the same session (like lines typed into the REPL), and an error
//! is printed the way the REPL shows it (line:column and a caret, relative
//! to the case). A case starting with `%% explain` prints the plan of the
//! query that follows instead of running it.
//!
//! Refresh the expected files with `UPDATE_GOLDEN=1 cargo test --test golden`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use chronolog_engine::{Output, Session, Val};

/// Appends what one statement (or run of facts) produced.
fn render_output(db: &Session, output: Output, tx_labels: &mut Vec<i64>, out: &mut String) {
    match output {
        Output::Created(name) => {
            let _ = writeln!(out, "created {name}");
        }
        Output::Bound(name) => {
            let _ = writeln!(out, "let {name}");
        }
        Output::Schemas(schemas) => {
            for schema in schemas {
                let _ = writeln!(out, "{}", chronolog_engine::declaration(&schema));
            }
        }
        Output::RuleAdded(name) => {
            let _ = writeln!(out, "rule {name}");
        }
        Output::Committed(info) => {
            let _ = writeln!(
                out,
                "committed: {} added, {} cut, {} closed",
                info.rows_added, info.rows_cut, info.rows_closed
            );
            for replaced in &info.replaced {
                let _ = writeln!(
                    out,
                    "replaced: {} (row {})",
                    db.render_replaced(replaced),
                    replaced.row
                );
            }
        }
        Output::Rows(rows) => {
            let _ = writeln!(out, "{}", rows.columns.join(" | "));
            for row in &rows {
                let cells: Vec<String> = row
                    .iter()
                    .zip(&rows.columns)
                    .map(|(v, col)| match v {
                        // Transaction times are wall-clock; show them as t1, t2, ...
                        Val::Time(t) if col.starts_with("tx_") && *t != i64::MAX => {
                            let at = tx_labels.iter().position(|x| x == t).unwrap_or_else(|| {
                                tx_labels.push(*t);
                                tx_labels.len() - 1
                            });
                            format!("tx{}", at + 1)
                        }
                        other => db.render_display(other),
                    })
                    .collect();
                let _ = writeln!(out, "{}", cells.join(" | "));
            }
            let n = rows.len();
            let _ = writeln!(out, "({n} {})", if n == 1 { "row" } else { "rows" });
        }
    }
}

/// Echoes the case's lines up to byte `end` (from `*echoed` on), as the
/// shell echoes what was typed.
fn echo(case: &str, echoed: &mut usize, end: usize, out: &mut String) {
    if end <= *echoed {
        return;
    }
    // Whole lines: through the end of the line `end` falls in.
    let stop = case[end..].find('\n').map_or(case.len(), |n| end + n + 1);
    for line in case[*echoed..stop].lines() {
        if !line.trim().is_empty() {
            let _ = writeln!(out, "> {line}");
        }
    }
    *echoed = stop;
}

/// A case's statements, each echoed with its output under it. A case that
/// does not parse runs nothing (it is echoed whole, then its error); a
/// runtime error stops the case, as `Session::run` does.
fn render_case(db: &mut Session, case: &str, tx_labels: &mut Vec<i64>) -> String {
    let mut out = String::new();
    let mut echoed = 0;
    if let Some(query) = case.trim_start().strip_prefix("%% explain") {
        echo(case, &mut echoed, case.len(), &mut out);
        match db.explain(query.trim()) {
            Ok(plan) => out.push_str(&plan),
            Err(e) => writeln!(out, "{}", e.render(query.trim())).unwrap_or(()),
        }
        return out;
    }
    if let Err(e) = chronolog_ql::parse(case) {
        echo(case, &mut echoed, case.len(), &mut out);
        let _ = writeln!(out, "{}", chronolog_engine::Error::from(e).render(case));
        return out;
    }
    let mut failed = None;
    let ran = db.run_each(
        case,
        &Default::default(),
        &Default::default(),
        |db, span, result| {
            echo(case, &mut echoed, span.end, &mut out);
            match result {
                Ok(output) => {
                    render_output(db, output, tx_labels, &mut out);
                    true
                }
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        },
    );
    if let Some(e) = failed.or(ran.err()) {
        let _ = writeln!(out, "{}", e.render(case));
    }
    out
}

fn run_script(script: &str) -> String {
    // The hashing embedder: `near` scores in the expected files must not
    // depend on whether the model files are installed.
    let mut db = Session::with_embedder(
        chronolog_storage::Store::in_memory(),
        std::sync::Arc::new(chronolog_engine::HashingEmbedder::new(384)),
    );
    let mut tx_labels = Vec::new();
    let mut out = String::new();
    for case in script.split("\n---\n") {
        if case.trim().is_empty() {
            continue;
        }
        out.push_str(&render_case(&mut db, case, &mut tx_labels));
        out.push('\n');
    }
    out
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

#[test]
fn golden_scripts_match_their_expected_output() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("golden dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dl"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no golden scripts found");
    let mut failures = Vec::new();
    for script in &scripts {
        let text = std::fs::read_to_string(script).expect("read script");
        let actual = run_script(&text);
        let expected_path = script.with_extension("out");
        if update {
            std::fs::write(&expected_path, &actual).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                script.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches (refresh with UPDATE_GOLDEN=1):\n{}",
        failures.join("\n")
    );
}
