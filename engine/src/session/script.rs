//! Scripts run statement by statement: a run of consecutive facts is one
//! transaction (all of it or none), a statement that does not parse is
//! its own error and the steps around it still run, and each step's
//! result reaches the caller as soon as it is ready.

use std::collections::HashMap;

use chronolog_ql::ast::Statement;
use chronolog_ql::{ParsedStatement, Span, parse_each};
use chronolog_storage::Value;
use rustc_hash::FxHashMap;

use super::{Output, Session, to_vals};
use crate::error::{Error, Result};
use crate::exec::Limits;
use crate::val::Val;

impl Session {
    /// As [`Session::run_with`], but an error comes with what the
    /// statements before it did (they stay done: a created relation, a
    /// committed batch), so a caller can report both.
    pub fn run_script(
        &mut self,
        script: &str,
        params: &HashMap<String, Value>,
        limits: &Limits,
    ) -> ScriptRun {
        let parsed = match parse_each(script) {
            Ok(parsed) => parsed,
            Err(e) => return ScriptRun::failed(e.into()),
        };
        if let Some(e) = parsed.iter().find_map(|(_, s)| s.as_ref().err()) {
            return ScriptRun::failed(e.clone().into());
        }
        let mut outputs = Vec::new();
        let mut error = None;
        self.run_parsed(
            script,
            parsed,
            params,
            limits,
            |_, _, result| match result {
                Ok(output) => {
                    outputs.push(output);
                    true
                }
                Err(e) => {
                    error = Some(e);
                    false
                }
            },
        );
        ScriptRun { outputs, error }
    }

    /// Runs a script step by step, handing each step's result to `each`
    /// with the span of the text it ran, as soon as it is ready: a shell
    /// prints as it goes, times each step and shows an error in place.
    /// A step is one statement, a run of consecutive facts (one
    /// transaction: a bad fact refuses the whole run), or a statement that
    /// does not parse (its error; the steps around it still run). `each`
    /// returns whether to go on. Only text that cannot even be split into
    /// tokens (an unterminated string) is the `Err`, and then nothing ran.
    pub fn run_each(
        &mut self,
        script: &str,
        params: &HashMap<String, Value>,
        limits: &Limits,
        each: impl FnMut(&Session, Span, Result<Output>) -> bool,
    ) -> Result<()> {
        let parsed = parse_each(script)?;
        self.run_parsed(script, parsed, params, limits, each);
        Ok(())
    }

    fn run_parsed(
        &mut self,
        script: &str,
        parsed: Vec<ParsedStatement>,
        params: &HashMap<String, Value>,
        limits: &Limits,
        mut each: impl FnMut(&Session, Span, Result<Output>) -> bool,
    ) {
        self.script += 1;
        let params = to_vals(params);
        // A run of facts is one transaction whatever goes wrong inside it,
        // a fact that does not parse included: the run is the facts and
        // the broken statements that are not plainly something else.
        let in_run = |(span, s): &ParsedStatement| match s {
            Ok(Statement::Fact(_)) => true,
            Ok(_) => false,
            Err(_) => looks_like_fact(script.get(span.start..span.end).unwrap_or("")),
        };
        let is_fact = |(_, s): &ParsedStatement| matches!(s, Ok(Statement::Fact(_)));
        let mut at = 0;
        while at < parsed.len() {
            let run = parsed[at..].iter().take_while(|p| in_run(p)).count();
            let facts = parsed[at..at + run].iter().any(is_fact);
            let end = if facts { at + run } else { at + 1 };
            let span = parsed[at].0.to(parsed[end - 1].0);
            let broken = parsed[at..end].iter().find_map(|(_, s)| s.as_ref().err());
            let result = match (&parsed[at].1, broken) {
                (_, Some(e)) => Err(e.clone().into()),
                (Ok(Statement::Fact(_)), None) => {
                    self.fact_batch(parsed[at..end].iter().map(|(_, s)| s), &params)
                }
                (Ok(statement), None) => self
                    .statement(statement, &params, limits)
                    .map_err(|e| e.at(parsed[at].0)),
                (Err(e), None) => Err(e.clone().into()),
            };
            if !each(self, span, result) {
                break;
            }
            at = end;
        }
    }

    /// One transaction for a run of facts: all of them or none.
    fn fact_batch<'s>(
        &mut self,
        facts: impl Iterator<Item = &'s std::result::Result<Statement, chronolog_ql::ParseError>>,
        params: &FxHashMap<String, Val>,
    ) -> Result<Output> {
        let store = self.store.clone();
        let mut txn = store.begin();
        for statement in facts {
            if let Ok(Statement::Fact(fact)) = statement {
                self.fact(&mut txn, fact, params)
                    .map_err(|e| e.at(fact.span))?;
            }
        }
        let info = txn.commit()?;
        self.after_commit();
        Ok(Output::Committed(info))
    }
}

/// What [`Session::run_script`] did: the outputs of the statements that
/// ran, in order, and the error that stopped it, if one did.
#[derive(Debug)]
pub struct ScriptRun {
    /// One output per statement (or run of facts) that succeeded.
    pub outputs: Vec<Output>,
    /// Why the script stopped early; the statements in `outputs` ran and
    /// stay done.
    pub error: Option<Error>,
}

impl ScriptRun {
    fn failed(error: Error) -> ScriptRun {
        ScriptRun {
            outputs: Vec::new(),
            error: Some(error),
        }
    }
}

/// Whether the text of a statement that does not parse is meant as a fact
/// (not a query, a command, a `let` or a rule): it then belongs to the run
/// of facts around it, which it aborts.
fn looks_like_fact(text: &str) -> bool {
    let text = text.trim_start();
    !(text.starts_with("?-")
        || text.starts_with(':')
        || text.starts_with("let ")
        || text.contains(":-"))
}
