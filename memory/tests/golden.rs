//! Memory golden conversations: each `conversations/*.conv` script says
//! messages, consolidates and asks, and its `.out` file holds what the
//! memory did at each step: the facts believed after a consolidation,
//! and beside each question the context (or the abstention and why),
//! with `ask explain` the question as understood, each channel's first
//! candidates, the fusion and the verdict. Scores are left out (the
//! ranks say the order; a float's last digits are no behaviour).
//!
//! A script's lines:
//!
//! ```text
//! # a comment
//! tenant alice                      (default: t)
//! say 2024-06-01 user: I work at Tencent.
//! consolidate
//! facts [as_of=DATE]
//! ask [explain] [as_of=DATE] [budget=N] Where do I work?
//! ```
//!
//! The memory runs in RAM with the hashing embedder, so the files are
//! the same on every machine. Refresh them with
//! `UPDATE_GOLDEN=1 cargo test -p chronolog-memory --test golden`.

mod common;

use std::path::{Path, PathBuf};

use chronolog_memory::{Memory, Message, SearchOptions};
use common::at;

/// "Now" for every question: after every script's last message.
const NOW: &str = "2026-01-01";

fn run_script(script: &str) -> Result<String, String> {
    let memory = common::memory();
    let mut tenant = "t".to_string();
    let mut out = String::new();
    for (number, line) in script.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |why: &str| format!("line {}: {why}: {line}", number + 1);
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        out.push_str(&format!("> {line}\n"));
        match command {
            "tenant" => tenant = rest.trim().to_string(),
            "say" => {
                let (date, said) = rest
                    .split_once(' ')
                    .ok_or_else(|| fail("say DATE ROLE: TEXT"))?;
                let (role, text) = said
                    .split_once(": ")
                    .ok_or_else(|| fail("say DATE ROLE: TEXT"))?;
                memory
                    .add(&tenant, Message::new(role, text).at(at(date)))
                    .map_err(|e| fail(&e.to_string()))?;
            }
            "consolidate" => {
                memory.consolidate_now().map_err(|e| fail(&e.to_string()))?;
                out.push_str(&facts(&memory, &tenant, None));
            }
            "facts" => {
                let as_of = rest.strip_prefix("as_of=").map(|d| at(d.trim()));
                out.push_str(&facts(&memory, &tenant, as_of));
            }
            "ask" => out.push_str(&ask(&memory, &tenant, rest).map_err(|e| fail(&e))?),
            _ => return Err(fail("unknown command")),
        }
    }
    Ok(out)
}

/// The facts believed at `as_of` (now when `None`), one per line, sorted.
fn facts(memory: &Memory, tenant: &str, as_of: Option<chronolog_engine::Timestamp>) -> String {
    let mut lines: Vec<String> = memory
        .facts(tenant, as_of, None)
        .expect("facts")
        .into_iter()
        .map(|f| {
            let to = if f.valid.to == chronolog_engine::Timestamp::MAX {
                "now".to_string()
            } else {
                f.valid.to.to_string()
            };
            let replaced = f
                .supersedes
                .map_or(String::new(), |s| format!(", replaced {s}"));
            format!(
                "  fact {} {} {} ({} .. {to}{replaced})\n",
                chronolog_memory::ids::entity_name(&f.subject),
                f.predicate,
                f.object,
                f.valid.from
            )
        })
        .collect();
    lines.sort();
    lines.concat()
}

fn ask(memory: &Memory, tenant: &str, rest: &str) -> Result<String, String> {
    let mut options = SearchOptions {
        now: Some(at(NOW)),
        ..SearchOptions::default()
    };
    let mut explain = false;
    let mut question = rest;
    loop {
        let (word, after) = question.split_once(' ').unwrap_or((question, ""));
        if word == "explain" {
            explain = true;
        } else if let Some(date) = word.strip_prefix("as_of=") {
            options.as_of = Some(at(date));
        } else if let Some(budget) = word.strip_prefix("budget=") {
            options.budget = budget.parse().map_err(|_| "budget=N".to_string())?;
        } else {
            break;
        }
        question = after;
    }
    let mut out = String::new();
    if explain {
        let text = memory
            .explain_search(tenant, question, &options)
            .map_err(|e| e.to_string())?;
        // The tuning it ran with is the defaults: not repeated per question.
        for line in text.lines().take_while(|l| *l != "tuning:") {
            out.push_str(&format!("  | {}\n", without_scores(line)));
        }
    }
    let context = memory
        .search(tenant, question, &options)
        .map_err(|e| e.to_string())?;
    for line in context.to_text().lines() {
        out.push_str(&format!("  {line}\n"));
    }
    Ok(out)
}

/// `line` without its scores: `(0.123)` and ` 0.123 ` go.
fn without_scores(line: &str) -> String {
    let mut out = Vec::new();
    for word in line.split(' ') {
        let bare = word.trim_matches(|c| c == '(' || c == ')');
        let is_score = bare.contains('.') && bare.parse::<f64>().is_ok() && !bare.ends_with('.');
        if !is_score {
            out.push(word);
        }
    }
    out.join(" ")
}

fn conversations() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conversations")
}

#[test]
fn golden_conversations_match_their_expected_output() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(conversations())
        .expect("conversations dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "conv"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no conversation scripts found");
    let mut failures = Vec::new();
    for script in &scripts {
        let text = std::fs::read_to_string(script).expect("read script");
        let actual = run_script(&text).unwrap_or_else(|e| panic!("{}: {e}", script.display()));
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
