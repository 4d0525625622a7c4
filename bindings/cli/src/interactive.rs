//! The interactive loop: rustyline for line editing and persistent
//! history, a validator that keeps reading until a statement ends, and
//! completion of commands, relation names and keywords.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Config, Context, Editor, Helper};

use crate::input::{self, COMMANDS, Entry};
use crate::shell::{Flow, PROMPT, Shell};

const KEYWORDS: &[&str] = &[
    "as_of", "known_at", "history", "not", "valid", "retract", "correct", "let", "order", "by",
    "limit", "desc", "near", "bm25", "top", "decayed", "hops", "rrf", "count", "sum", "min", "max",
    "mean", "collect",
];

/// What rustyline asks of the shell while a line is edited.
struct ShellHelper {
    /// Relation names, refreshed after every entry.
    relations: Arc<Mutex<Vec<String>>>,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let start = line[..pos]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |i| i + 1);
        let word = &line[start..pos];
        let candidates: Vec<String> = if let Some(command) = word.strip_prefix(':') {
            COMMANDS
                .iter()
                .chain(&["create", "describe"])
                .filter(|c| c.starts_with(command))
                .map(|c| format!(":{c}"))
                .collect()
        } else {
            let relations = self
                .relations
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            relations
                .iter()
                .map(String::as_str)
                .chain(KEYWORDS.iter().copied())
                .filter(|name| !word.is_empty() && name.starts_with(word))
                .map(str::to_string)
                .collect()
        };
        let pairs = candidates
            .into_iter()
            .map(|c| Pair {
                display: c.clone(),
                replacement: c,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Validator for ShellHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if input::is_complete(ctx.input()) {
            ValidationResult::Valid(None)
        } else {
            ValidationResult::Incomplete
        })
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}

impl Highlighter for ShellHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Helper for ShellHelper {}

/// Reads entries from the terminal until `:quit` or Ctrl-D. Ctrl-C at the
/// prompt clears the line; during a query it cancels the query (the
/// signal handler in `main` sets the shell's cancel flag).
pub fn run(shell: &mut Shell, history: Option<PathBuf>) -> anyhow::Result<()> {
    let config = Config::builder().auto_add_history(true).build();
    let relations = Arc::new(Mutex::new(relation_names(shell)));
    let mut editor: Editor<ShellHelper, FileHistory> = Editor::with_config(config)?;
    editor.set_helper(Some(ShellHelper {
        relations: relations.clone(),
    }));
    if let Some(path) = &history {
        // No history yet is fine.
        let _ = editor.load_history(path);
    }
    loop {
        match editor.readline(PROMPT) {
            Ok(line) => {
                let entry = match input::command(&line) {
                    Some(command) if !line.trim().contains('\n') => command,
                    _ if input::is_blank(&line) => continue,
                    _ => Entry::Statements {
                        text: &line,
                        offset: 0,
                    },
                };
                let flow = shell.run_entry(&entry, &line)?;
                if let Some(path) = &history {
                    let _ = editor.save_history(path);
                }
                if flow == Flow::Quit {
                    break;
                }
                *relations
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = relation_names(shell);
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

fn relation_names(shell: &Shell) -> Vec<String> {
    shell
        .db()
        .store()
        .relations()
        .into_iter()
        .map(|s| s.name)
        .collect()
}
