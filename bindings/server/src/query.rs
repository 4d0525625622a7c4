//! One read-only Datalog query over the memory's store, as the MCP `query`
//! tool and `POST /v1/query` run it: bounded in rows sent and in time.

use std::time::{Duration, Instant};

use chronolog_engine::{Limits, Output, json};
use chronolog_memory::{Memory, Stop};
use serde_json::{Value as Json, json};

/// Rows an answer carries at most; the rest are counted, not sent.
pub const MAX_QUERY_ROWS: usize = 500;

/// How long one query may run.
pub const QUERY_DEADLINE: Duration = Duration::from_secs(10);

/// Why a tenant's key may not query: Datalog reads every tenant's rows.
pub const NEEDS_ADMIN: &str = "Datalog queries read every tenant's rows: they need an admin key \
(a tenant's key reads its memory through recall, history and timeline)";

/// Why a query gave no answer.
#[derive(Debug)]
pub struct QueryError {
    /// The engine's message, rendered against the query's text.
    pub message: String,
    /// It was stopped (cancelled, or past its time or memory limit), not
    /// refused for what it says.
    pub stopped: bool,
}

impl QueryError {
    fn of(e: &chronolog_engine::Error, text: &str) -> QueryError {
        use chronolog_engine::Error as E;
        QueryError {
            message: e.render(text),
            stopped: matches!(e, E::Cancelled | E::LimitExceeded(_)),
        }
    }
}

/// Runs `text` with `params` (`{"name": value}` as the engine's JSON
/// parameters take them) and returns `{"columns", "rows", "total",
/// "truncated"}`, or the error rendered against the query's text (line,
/// column and a caret). Writes, rules and schema changes are refused by
/// the engine's read-only execution.
pub fn run(
    memory: &Memory,
    text: &str,
    params: Option<&serde_json::Map<String, Json>>,
    stop: &Stop,
) -> Result<Json, QueryError> {
    let mut session = memory.engine().session();
    let fail = |e: chronolog_engine::Error| QueryError::of(&e, text);
    let prepared = session.prepare(text).map_err(fail)?;
    let params = match params {
        Some(params) => json::params(&mut session, &Json::Object(params.clone()).to_string())
            .map_err(|e| QueryError {
                message: e.to_string(),
                stopped: false,
            })?,
        None => Default::default(),
    };
    let deadline = Instant::now() + QUERY_DEADLINE;
    let limits = Limits {
        deadline: Some(stop.deadline.map_or(deadline, |d| d.min(deadline))),
        cancel: stop.cancel.clone(),
        ..Limits::default()
    };
    let rows = session.execute(&prepared, &params, &limits).map_err(fail)?;
    let total = rows.len();
    let mut answer = json::output(&session, &Output::Rows(rows));
    let shown = answer["rows"]["rows"].as_array_mut().map(|rows| {
        rows.truncate(MAX_QUERY_ROWS);
        rows.len()
    });
    answer["rows"]["total"] = json!(total);
    answer["rows"]["truncated"] = json!(shown.unwrap_or(0) < total);
    Ok(answer["rows"].take())
}
