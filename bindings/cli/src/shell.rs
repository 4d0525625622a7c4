//! The shell's core, shared by the interactive loop and scripts: runs
//! language text through the engine step by step, runs the shell's own
//! commands, and prints answers and errors.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chronolog_engine::{Limits, Output, Session};

use crate::input::{self, Entry};
use crate::output::{self, Format, Style};

/// What the caller does after an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next entry.
    Continue,
    /// `:quit`.
    Quit,
}

/// A shell session on one database.
pub struct Shell {
    db: Session,
    /// The agent memory over the same engine, made on first use.
    memory: Option<chronolog_memory::Memory>,
    /// How answers print.
    pub style: Style,
    /// Print each input (with the prompt) before its output, and errors on
    /// the output stream: a script's run then reads as a session transcript.
    pub echo: bool,
    /// In a script, go on after an error instead of stopping there.
    pub keep_going: bool,
    cancel: Arc<AtomicBool>,
    errors: usize,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

/// The prompt before the first line of an entry.
pub const PROMPT: &str = "chronolog> ";
/// The prompt before each further line of an entry.
pub const CONTINUATION: &str = "      ...> ";

const HELP: &str = "\
Statements end with a `.` and may span lines; commands start with `:` and take one line.

  :create works_at(person: sym key, company: sym).   declare a relation (key = one value at a time)
  works_at(alice, acme) valid 2021-03-01.             assert a fact (retract ..., correct ...)
  ?- works_at(alice, Y) as_of 2022-01-01.             ask as of a valid time (known_at for belief time)
  ?- history works_at(alice, Y).                      every version with its time bounds
  colleague(X, Y) :- works_at(X, C), works_at(Y, C), X != Y.
  ?- rrf(near(episode, \"text\", 10), bm25(episode, \"words\", 10)) as (Id, Score, Rank), episode(Id, T).

  :help                     this text
  :relations                every relation and its columns
  :schema REL               one relation's columns
  :load FILE                run a script file
  :explain QUERY            the plan of a query, without running it
  :history REL(ARGS)        the same as ?- history REL(ARGS).
  :import FILE [REL]        rows from CSV (header row) or JSON Lines into REL (default: the file's name);
                            fields valid_from / valid_to give valid time
  :remember --tenant T --role R [--at TIME] [--session S] TEXT
                            append a message to T's agent memory (--jsonl FILE: a file, all or nothing)
  :consolidate              turn remembered messages into facts (then ?- mem_fact(...).)
  :recall --tenant T [--as-of TIME] [--known-at TIME] [--budget N] [--format text|json] QUESTION
                            the context T's memory holds for a question, or why it abstains
                            (--explain, or :explain :recall ...: its channels, fusion and verdict)
  :forget --tenant T SUBJECT
                            erase a name (or \"my mom\", a place) with every message naming it
  :timing on|off            print how long each statement took
  :format table|json|csv    how answers print
  :maxrows N                rows a table shows before cutting
  :quit                     leave (or Ctrl-D); Ctrl-C stops a running query
";

impl Shell {
    /// A shell printing to `out` (answers) and `err` (errors).
    pub fn new(
        db: Session,
        cancel: Arc<AtomicBool>,
        out: Box<dyn Write>,
        err: Box<dyn Write>,
    ) -> Shell {
        Shell {
            db,
            memory: None,
            style: Style::default(),
            echo: false,
            keep_going: false,
            cancel,
            errors: 0,
            out,
            err,
        }
    }

    /// The database, for completion.
    pub fn db(&self) -> &Session {
        &self.db
    }

    /// How many errors were reported so far.
    pub fn errors(&self) -> usize {
        self.errors
    }

    /// Runs a whole script (a file, `-e` text, standard input). Stops at
    /// the first error unless `keep_going`.
    pub fn run_script(&mut self, source: &str) -> io::Result<Flow> {
        for entry in input::split(source) {
            let before = self.errors;
            if self.run_entry(&entry, source)? == Flow::Quit {
                return Ok(Flow::Quit);
            }
            if self.errors > before && !self.keep_going {
                break;
            }
        }
        Ok(Flow::Continue)
    }

    /// Runs one entry; `source` is the text it was cut from, which error
    /// positions count from.
    pub fn run_entry(&mut self, entry: &Entry<'_>, source: &str) -> io::Result<Flow> {
        self.cancel.store(false, Ordering::SeqCst);
        let flow = match *entry {
            Entry::Command { name, arg } => {
                if self.echo {
                    let space = if arg.is_empty() { "" } else { " " };
                    writeln!(self.out, "{PROMPT}:{name}{space}{arg}")?;
                }
                let flow = self.command(name, arg)?;
                if self.echo {
                    writeln!(self.out)?;
                }
                flow
            }
            Entry::Statements { text, offset } => {
                self.statements(source, text, offset, self.echo)?;
                Flow::Continue
            }
        };
        self.out.flush()?;
        self.err.flush()?;
        Ok(flow)
    }

    /// Runs language text; `echo_input` prints each step's text first (off
    /// for text the shell made up itself, like `:history`'s query).
    fn statements(
        &mut self,
        source: &str,
        text: &str,
        offset: usize,
        echo_input: bool,
    ) -> io::Result<()> {
        let limits = Limits {
            cancel: Some(self.cancel.clone()),
            ..Limits::default()
        };
        let Shell {
            db,
            style,
            echo,
            keep_going,
            errors,
            out,
            err,
            ..
        } = self;
        let (style, echo, keep_going) = (*style, *echo, *keep_going);
        let mut io_error = None;
        let mut started = Instant::now();
        let ran = db.run_each(text, &HashMap::new(), &limits, |db, span, result| {
            let elapsed = started.elapsed();
            let step = || -> io::Result<bool> {
                if echo_input {
                    write_echo(out, &text[span.start..span.end])?;
                }
                match result {
                    Ok(output) => {
                        output::print(db, &output, &style, elapsed, out)?;
                        Ok(true)
                    }
                    Err(e) => {
                        *errors += 1;
                        let message = e.shifted(offset).render(source);
                        writeln!(if echo { &mut *out } else { &mut *err }, "{message}")?;
                        Ok(keep_going)
                    }
                }
            };
            let go_on = step().unwrap_or_else(|e| {
                io_error = Some(e);
                false
            });
            if echo_input {
                // A blank line between steps reads like a session.
                let _ = writeln!(out);
            }
            started = Instant::now();
            go_on
        });
        if let Some(e) = io_error {
            return Err(e);
        }
        if let Err(e) = ran {
            self.errors += 1;
            if echo_input {
                write_echo(&mut self.out, text.trim())?;
            }
            let message = e.shifted(offset).render(source);
            self.report(&message)?;
            if echo_input {
                writeln!(self.out)?;
            }
        }
        Ok(())
    }

    fn report(&mut self, message: &str) -> io::Result<()> {
        let sink = if self.echo {
            &mut self.out
        } else {
            &mut self.err
        };
        writeln!(sink, "{message}")
    }

    fn fail(&mut self, message: &str) -> io::Result<Flow> {
        self.errors += 1;
        self.report(&format!("error: {message}"))?;
        Ok(Flow::Continue)
    }

    fn command(&mut self, name: &str, arg: &str) -> io::Result<Flow> {
        let flow = match name {
            "quit" | "exit" => return Ok(Flow::Quit),
            "help" => {
                self.out.write_all(HELP.as_bytes())?;
                Flow::Continue
            }
            "relations" => {
                let schemas = self.db.store().relations();
                self.print(&Output::Schemas(schemas))?;
                Flow::Continue
            }
            "schema" => {
                let name = arg.trim_end_matches('.').trim();
                match self.db.store().relation_id(name) {
                    Ok(id) => match self.db.store().schema(id) {
                        Ok(schema) => {
                            self.print(&Output::Schemas(vec![schema]))?;
                            Flow::Continue
                        }
                        Err(e) => self.fail(&e.to_string())?,
                    },
                    Err(_) if name.is_empty() => self.fail("usage: :schema REL")?,
                    Err(_) => self.fail(&format!("unknown relation `{name}`"))?,
                }
            }
            "load" => self.load(arg)?,
            // `:explain :recall ...`: why a recall finds what it finds.
            "explain" if arg.starts_with(":recall") => {
                let recall = arg.trim_start_matches(":recall").trim_start();
                return self.command("recall", &format!("--explain {recall}"));
            }
            "explain" => {
                let query = as_query(arg, "");
                match self.db.explain(&query) {
                    Ok(plan) => {
                        self.out.write_all(plan.as_bytes())?;
                        Flow::Continue
                    }
                    Err(e) => {
                        self.errors += 1;
                        let message = e.render(&query);
                        self.report(&message)?;
                        Flow::Continue
                    }
                }
            }
            "history" => {
                let query = as_query(arg, "history ");
                self.statements(&query, &query, 0, false)?;
                Flow::Continue
            }
            "timing" => match arg {
                "on" => self.set(|s| s.style.timing = true)?,
                "off" => self.set(|s| s.style.timing = false)?,
                "" => self.say(&format!(
                    "timing is {}",
                    if self.style.timing { "on" } else { "off" }
                ))?,
                _ => self.fail("usage: :timing on|off")?,
            },
            "format" => match arg.parse::<Format>() {
                Ok(format) => self.set(|s| s.style.format = format)?,
                Err(_) if arg.is_empty() => {
                    self.say(&format!("format is {}", self.style.format))?
                }
                Err(message) => self.fail(&message)?,
            },
            "maxrows" => match arg.parse::<usize>() {
                Ok(n) if n > 0 => self.set(|s| s.style.max_rows = n)?,
                _ if arg.is_empty() => self.say(&format!("maxrows is {}", self.style.max_rows))?,
                _ => self.fail("usage: :maxrows N (a positive number)")?,
            },
            "import" => {
                let mut words = arg.split_whitespace();
                match (words.next(), words.next(), words.next()) {
                    (Some(file), relation, None) => {
                        let started = Instant::now();
                        match crate::import::import(&mut self.db, Path::new(file), relation) {
                            Ok(n) => {
                                let took = self.style.timing.then(|| {
                                    format!(" in {}", output::format_duration(started.elapsed()))
                                });
                                self.say(&format!(
                                    "imported {n} {}{}",
                                    if n == 1 { "row" } else { "rows" },
                                    took.unwrap_or_default()
                                ))?
                            }
                            Err(e) => self.fail(&format!("{e:#}"))?,
                        }
                    }
                    _ => self.fail("usage: :import FILE [RELATION]")?,
                }
            }
            "remember" => {
                let done = crate::remember::Remember::parse(arg)
                    .and_then(|request| request.run(self.memory()?));
                match done {
                    Ok(ids) => self.say(&ids.join("\n"))?,
                    Err(e) => self.fail(&format!("{e:#}"))?,
                }
            }
            "recall" => {
                let done = crate::recall::Recall::parse(arg)
                    .and_then(|request| request.run(self.memory()?));
                match done {
                    Ok(text) => {
                        self.out.write_all(text.as_bytes())?;
                        Flow::Continue
                    }
                    Err(e) => self.fail(&format!("{e:#}"))?,
                }
            }
            "forget" => {
                let done = crate::forget::Forget::parse(arg)
                    .and_then(|request| request.run(self.memory()?));
                match done {
                    Ok(line) => self.say(&line)?,
                    Err(e) => self.fail(&format!("{e:#}"))?,
                }
            }
            "consolidate" => match self.memory().and_then(|m| Ok(m.consolidate_now()?)) {
                Ok(report) => self.say(&crate::remember::describe(&report.to_json()))?,
                Err(e) => self.fail(&format!("{e:#}"))?,
            },
            other => self.fail(&format!("unknown command `:{other}` (try :help)"))?,
        };
        Ok(flow)
    }

    /// The memory over this shell's engine (its relations are made on
    /// first use).
    fn memory(&mut self) -> anyhow::Result<&chronolog_memory::Memory> {
        if self.memory.is_none() {
            let memory = chronolog_memory::Memory::with_engine(
                self.db.engine().clone(),
                chronolog_memory::Options::manual(),
            )?;
            self.memory = Some(memory);
        }
        self.memory
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("no memory"))
    }

    fn load(&mut self, arg: &str) -> io::Result<Flow> {
        if arg.is_empty() {
            return self.fail("usage: :load FILE");
        }
        match std::fs::read_to_string(arg) {
            Ok(script) => {
                let keep_going = self.keep_going;
                let before = self.errors;
                let flow = self.run_script(&script)?;
                self.keep_going = keep_going;
                if self.errors > before {
                    self.report(&format!("(in {arg})"))?;
                }
                Ok(flow)
            }
            Err(e) => self.fail(&format!("cannot read {arg}: {e}")),
        }
    }

    fn set(&mut self, change: impl FnOnce(&mut Shell)) -> io::Result<Flow> {
        change(self);
        Ok(Flow::Continue)
    }

    fn say(&mut self, line: &str) -> io::Result<Flow> {
        if self.style.format == Format::Table || self.echo {
            writeln!(self.out, "{line}")?;
        } else {
            writeln!(self.err, "{line}")?;
        }
        Ok(Flow::Continue)
    }

    fn print(&mut self, output: &Output) -> io::Result<()> {
        output::print(
            &self.db,
            output,
            &self.style,
            std::time::Duration::ZERO,
            &mut self.out,
        )
    }

    /// Writes a note (the banner, a notice) in table format only, so that
    /// JSON and CSV output stay machine-readable.
    pub fn note(&mut self, line: &str) -> io::Result<()> {
        self.say(line).map(|_| ())
    }
}

/// `works_at(alice, Y)` or `?- works_at(alice, Y).` as a whole query.
fn as_query(arg: &str, modifier: &str) -> String {
    let body = arg.trim().trim_start_matches("?-").trim();
    let body = body.strip_suffix('.').unwrap_or(body);
    format!("?- {modifier}{body}.")
}

fn write_echo(out: &mut dyn Write, text: &str) -> io::Result<()> {
    for (i, line) in text.lines().enumerate() {
        let prompt = if i == 0 { PROMPT } else { CONTINUATION };
        writeln!(out, "{prompt}{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_arguments_become_whole_queries() {
        assert_eq!(as_query("p(X)", ""), "?- p(X).");
        assert_eq!(as_query("?- p(X).", ""), "?- p(X).");
        assert_eq!(as_query("p(a, Y)", "history "), "?- history p(a, Y).");
    }
}
