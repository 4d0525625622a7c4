//! `:import FILE [RELATION]`: rows from CSV (with a header row) or JSON
//! Lines (one object per line) into a stored relation, in one transaction.
//!
//! Fields are named after the relation's columns; `valid_from` and
//! `valid_to` (ISO dates or datetimes), when the relation has no columns of
//! those names, give each row's valid time, which is otherwise "always", as
//! for a fact written without `valid`. A bad row refuses the whole file and
//! names its line.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use chronolog_engine::Session;
use chronolog_engine::{ColumnDef, ColumnType, Interval, Schema, Timestamp, Value, WriteTxn};
use serde_json::Value as Json;

/// A field as read: CSV gives text, JSON Lines gives JSON values.
enum Field {
    Text(String),
    Json(Json),
}

/// One record: its line in the file and its named fields.
struct Record {
    line: u64,
    fields: Vec<(String, Field)>,
}

/// Imports `path` into `relation` (default: the file's stem) and says how
/// many rows went in.
pub fn import(db: &mut Session, path: &Path, relation: Option<&str>) -> Result<usize> {
    let relation = match relation {
        Some(name) => name.to_string(),
        None => path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| anyhow!("name the relation: `:import FILE RELATION`"))?
            .to_string(),
    };
    let rel = db
        .store()
        .relation_id(&relation)
        .map_err(|_| anyhow!("unknown relation `{relation}` (create it first)"))?;
    let schema = db.store().schema(rel)?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let records = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => read_csv(&text)?,
        Some("jsonl" | "ndjson" | "json") => read_json_lines(&text)?,
        _ => bail!("{}: expected a .csv or .jsonl file", path.display()),
    };
    let count = records.len();
    db.write(|txn| {
        for record in &records {
            let at_line =
                |e: &dyn std::fmt::Display| {
                    chronolog_engine::Error::Runtime(chronolog_engine::RuntimeError::Input(
                        format!("{}:{}: {e}", path.display(), record.line),
                    ))
                };
            let (values, valid) = row(txn, &schema, record).map_err(|e| at_line(&e))?;
            match valid {
                Some(valid) => txn.assert(rel, values, valid, None),
                None => txn.assert_from_commit(rel, values, None),
            }
            .map_err(|e| at_line(&e))?;
        }
        Ok(())
    })?;
    Ok(count)
}

fn read_csv(text: &str) -> Result<Vec<Record>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .context("the CSV header row")?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut records = Vec::new();
    for result in reader.records() {
        let record = result.context("bad CSV")?;
        let line = record.position().map_or(0, |p| p.line());
        records.push(Record {
            line,
            fields: header
                .iter()
                .cloned()
                .zip(record.iter().map(|f| Field::Text(f.to_string())))
                .collect(),
        });
    }
    Ok(records)
}

fn read_json_lines(text: &str) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let json: Json =
            serde_json::from_str(line).with_context(|| format!("line {line_no}: bad JSON"))?;
        let Json::Object(object) = json else {
            bail!("line {line_no}: expected a JSON object");
        };
        records.push(Record {
            line: line_no,
            fields: object
                .into_iter()
                .map(|(k, v)| (k, Field::Json(v)))
                .collect(),
        });
    }
    Ok(records)
}

/// A record as the relation's values and its valid interval.
fn row(
    txn: &mut WriteTxn<'_>,
    schema: &Schema,
    record: &Record,
) -> Result<(Vec<Value>, Option<Interval>)> {
    let mut values: Vec<Option<Value>> = vec![None; schema.columns.len()];
    let (mut from, mut to) = (None, None);
    for (name, field) in &record.fields {
        if let Some(i) = schema.columns.iter().position(|c| &c.name == name) {
            values[i] = Some(value(txn, &schema.columns[i], field)?);
        } else if name == "valid_from" || name == "valid_to" {
            let time = match field {
                Field::Text(t) if t.is_empty() => continue,
                Field::Json(Json::Null) => continue,
                Field::Text(t) | Field::Json(Json::String(t)) => Timestamp::parse(t)?,
                Field::Json(other) => bail!("`{name}`: expected a date, got {other}"),
            };
            *(if name == "valid_from" {
                &mut from
            } else {
                &mut to
            }) = Some(time);
        } else {
            bail!("`{}` has no column `{name}`", schema.name);
        }
    }
    let values = values
        .into_iter()
        .zip(&schema.columns)
        .map(|(v, col)| match v {
            Some(v) => Ok(v),
            None if col.nullable => Ok(Value::Null),
            None => Err(anyhow!("missing column `{}`", col.name)),
        })
        .collect::<Result<Vec<_>>>()?;
    // A row without dates holds from the import's transaction on, as an
    // undated fact does.
    let valid = match (from, to) {
        (None, None) => None,
        (Some(from), None) => Some(Interval::starting(from)),
        (from, Some(to)) => Some(Interval::new(
            from.unwrap_or(Timestamp::MIN),
            to.as_valid_end(),
        )?),
    };
    Ok((values, valid))
}

fn value(txn: &mut WriteTxn<'_>, column: &ColumnDef, field: &Field) -> Result<Value> {
    let wrong = |got: &dyn std::fmt::Display| {
        anyhow!("column `{}` is {}, got {got}", column.name, column.ty)
    };
    Ok(match field {
        Field::Text(t) if t.is_empty() && column.nullable => Value::Null,
        Field::Json(Json::Null) if column.nullable => Value::Null,
        Field::Text(t) => match column.ty {
            ColumnType::Str => Value::str(t),
            ColumnType::Sym => Value::Sym(txn.symbol(t)?),
            ColumnType::Int => Value::Int(t.trim().parse().map_err(|_| wrong(t))?),
            ColumnType::Float => Value::Float(t.trim().parse().map_err(|_| wrong(t))?),
            ColumnType::Bool => Value::Bool(t.trim().parse().map_err(|_| wrong(t))?),
            ColumnType::Time => Value::Time(Timestamp::parse(t.trim())?),
            ColumnType::Vector(_) => {
                vector(&serde_json::from_str(t).map_err(|_| wrong(t))?).ok_or_else(|| wrong(t))?
            }
            ColumnType::Bytes => bail!("column `{}`: bytes cannot be imported", column.name),
        },
        Field::Json(json) => match (column.ty, json) {
            (ColumnType::Str, Json::String(s)) => Value::str(s),
            (ColumnType::Sym, Json::String(s)) => Value::Sym(txn.symbol(s)?),
            (ColumnType::Int, Json::Number(n)) => Value::Int(n.as_i64().ok_or_else(|| wrong(n))?),
            (ColumnType::Float, Json::Number(n)) => {
                Value::Float(n.as_f64().ok_or_else(|| wrong(n))?)
            }
            (ColumnType::Bool, Json::Bool(b)) => Value::Bool(*b),
            (ColumnType::Time, Json::String(s)) => Value::Time(Timestamp::parse(s)?),
            (ColumnType::Vector(_), json) => vector(json).ok_or_else(|| wrong(json))?,
            (_, other) => return Err(wrong(other)),
        },
    })
}

fn vector(json: &Json) -> Option<Value> {
    let items = json.as_array()?;
    let floats = items
        .iter()
        .map(|x| x.as_f64().map(|x| x as f32))
        .collect::<Option<Vec<f32>>>()?;
    Some(Value::Vector(floats.into()))
}
