//! One read-only Datalog query over the memory's store, as the MCP `query`
//! tool and `POST /v1/query` run it: bounded in rows sent and in time.

use std::time::{Duration, Instant};

use chronolog_engine::{Limits, Output, json};
use chronolog_memory::{Memory, Stop};
use serde_json::{Value as Json, json};

use crate::scope;

/// Rows an answer carries at most; the rest are counted, not sent.
pub const MAX_QUERY_ROWS: usize = 500;

/// How long one query may run.
pub const QUERY_DEADLINE: Duration = Duration::from_secs(10);

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
/// the engine's read-only execution. With `tenant` (a tenant's key), the
/// query must read that tenant's rows only ([`crate::scope`]), and
/// `$tenant` is bound to it.
pub fn run(
    memory: &Memory,
    text: &str,
    params: Option<&serde_json::Map<String, Json>>,
    stop: &Stop,
    tenant: Option<&str>,
) -> Result<Json, QueryError> {
    let refused = |message: String| QueryError {
        message,
        stopped: false,
    };
    let mut params = params.cloned().unwrap_or_default();
    if let Some(tenant) = tenant {
        crate::scope::check(memory.engine().store(), text, tenant).map_err(refused)?;
        if params.contains_key(scope::TENANT_PARAM) {
            return Err(refused(format!(
                "`${}` is the key's tenant, set by the server: leave it out of `params`",
                scope::TENANT_PARAM
            )));
        }
        params.insert(scope::TENANT_PARAM.into(), json!({ "sym": tenant }));
    }
    let mut session = memory.engine().session();
    let fail = |e: chronolog_engine::Error| QueryError::of(&e, text);
    let prepared = session.prepare(text).map_err(fail)?;
    let params = if params.is_empty() {
        Default::default()
    } else {
        json::params(&mut session, &Json::Object(params).to_string())
            .map_err(|e| refused(e.to_string()))?
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
