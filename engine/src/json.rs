//! Answers and parameters as JSON: the form programs read and write (the
//! shell's `--format json`, the C ABI, the MCP server). A renderer over
//! values, beside the shell's table and CSV renderers: the session only
//! names symbols (its own query-only names among them) and withdrawn
//! facts. Symbols, strings and times all become JSON strings on the way
//! out; on the way in, a parameter says which it is (`{"sym": "alice"}`,
//! `{"time": "2022-01-01"}`) because the engine matches a symbol column
//! only with a symbol.
//!
//! ```
//! use chronolog_engine::{Output, Session, json};
//!
//! let mut db = Session::in_memory();
//! let out = db.run(":create w(p: sym key, c: sym). w(alice, acme). ?- w(alice, C).")?;
//! let Some(answer @ Output::Rows(_)) = out.last() else { panic!() };
//! assert_eq!(
//!     json::output(&db, answer).to_string(),
//!     r#"{"rows":{"columns":["C"],"rows":[["acme"]]}}"#
//! );
//! # Ok::<(), chronolog_engine::Error>(())
//! ```

use std::collections::HashMap;

use chronolog_ql::{CompileError, CompileErrorKind, Span};
use chronolog_storage::{Schema, Symbol, Timestamp, Value};
use serde_json::{Map, Value as Json, json};

use crate::error::{Error, Result};
use crate::marks::ColumnMarks;
use crate::session::{Output, Session};
use crate::val::Val;

/// One value as JSON: numbers and booleans as themselves; symbols,
/// strings and times (ISO 8601) as strings (named by `db`); vectors and
/// lists as arrays.
pub fn value(db: &Session, value: &Val) -> Json {
    match value {
        Val::Null => Json::Null,
        Val::Bool(b) => Json::Bool(*b),
        Val::Int(i) => json!(i),
        // NaN and infinities have no JSON form.
        Val::Float(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
        Val::Bytes(b) => Json::Array(b.iter().map(|x| json!(x)).collect()),
        Val::Vector(v) => Json::Array(
            v.iter()
                .map(|x| {
                    serde_json::Number::from_f64(f64::from(*x)).map_or(Json::Null, Json::Number)
                })
                .collect(),
        ),
        Val::List(items) => Json::Array(items.iter().map(|v| self::value(db, v)).collect()),
        Val::Str(_) | Val::Sym(_) | Val::Time(_) => Json::String(db.render(value)),
    }
}

/// What a statement produced, as one JSON object keyed by its kind:
/// `{"rows": {"columns": [...], "rows": [[...]]}}`, `{"committed":
/// {...}}`, `{"created": name}`, `{"let": name}`, `{"rule": name}` or
/// `{"relations": [...]}`.
pub fn output(db: &Session, output: &Output) -> Json {
    match output {
        Output::Rows(rows) => json!({
            "rows": {
                "columns": rows.columns,
                "rows": rows
                    .iter()
                    .map(|row| row.iter().map(|v| value(db, v)).collect::<Vec<_>>())
                    .collect::<Vec<_>>(),
            }
        }),
        Output::Committed(info) => json!({
            "committed": {
                "tx": info.tx.to_string(),
                "added": info.rows_added,
                "cut": info.rows_cut,
                "closed": info.rows_closed,
                "replaced": info.replaced.iter().map(|r| json!({
                    "fact": db.render_replaced(r),
                    "row": r.row,
                })).collect::<Vec<_>>(),
            }
        }),
        Output::Created(name) => json!({ "created": name }),
        Output::Bound(name) => json!({ "let": name }),
        Output::RuleAdded(name) => json!({ "rule": name }),
        Output::Schemas(schemas) => {
            json!({ "relations": schemas.iter().map(schema_json).collect::<Vec<_>>() })
        }
    }
}

/// Parameters from a JSON object (`{"t1": {"time": "2022-01-01"},
/// "p": {"sym": "alice"}, "n": 3, "q": "text"}`) for [`Session::run_with`]
/// and [`Session::execute`]. A name the store has never seen still binds
/// in `db` (it matches nothing). Plain strings are text, not symbols.
pub fn params(db: &mut Session, text: &str) -> Result<HashMap<String, Value>> {
    let bad = |msg: String| {
        Error::Compile(CompileError::new(
            CompileErrorKind::BadParameters(msg),
            Span::new(0, text.len()),
        ))
    };
    let parsed: Json = serde_json::from_str(text)
        .map_err(|e| bad(format!("parameters are not valid JSON: {e}")))?;
    let Json::Object(object) = parsed else {
        return Err(bad("parameters must be a JSON object".into()));
    };
    let mut params = HashMap::with_capacity(object.len());
    for (name, json) in object {
        let value = param_value(db, &json)
            .ok_or_else(|| bad(format!("parameter `${name}`: cannot use {json} as a value")))?;
        params.insert(name, value);
    }
    Ok(params)
}

fn param_value(db: &mut Session, json: &Json) -> Option<Value> {
    Some(match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64()?),
        },
        Json::String(s) => Value::str(s),
        Json::Array(items) => Value::Vector(
            items
                .iter()
                .map(|x| x.as_f64().map(|x| x as f32))
                .collect::<Option<Vec<f32>>>()?
                .into(),
        ),
        Json::Object(object) => typed_param(object, |name| db.symbol_for(name))?,
    })
}

/// `{"sym": "alice"}`, `{"time": "2022-01-01"}` or `{"str": "..."}`.
fn typed_param(object: &Map<String, Json>, symbol: impl FnOnce(&str) -> Symbol) -> Option<Value> {
    let [(kind, Json::String(text))] = object.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    Some(match kind.as_str() {
        "sym" => Value::Sym(symbol(text)),
        "time" => Value::Time(Timestamp::parse(text).ok()?),
        "str" => Value::str(text),
        _ => return None,
    })
}

fn schema_json(schema: &Schema) -> Json {
    json!({
        "name": schema.name,
        "columns": schema.columns.iter().map(|c| {
            let marks = ColumnMarks::of(c);
            json!({
                "name": c.name,
                "type": c.ty.to_string(),
                "key": c.key,
                "nullable": c.nullable,
                "search": marks.search.is_on(),
                "analyzer": marks.search.is_on().then(|| marks.search.name()),
                "embed": marks.embed.is_on(),
                "embedding": marks.embed.is_on().then(|| marks.embed.name()),
            })
        }).collect::<Vec<_>>(),
    })
}
