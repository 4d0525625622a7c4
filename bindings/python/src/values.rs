//! Values between Python and the engine. Parameters go in through the
//! engine's JSON parameter form (one set of rules for every way in);
//! answers come out as Python values: names and text as `str`, times as
//! UTC `datetime`s, vectors and lists as lists.

use std::collections::HashMap;

use chronolog_engine::{Session, Timestamp, Val, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Value as Json, json};

use crate::time;

/// A symbol (an interned name such as `alice` or `works_at`) as a query
/// parameter: `{"p": Sym("alice")}`, where a plain `str` is text.
#[pyclass(frozen, eq, hash, module = "chronolog")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Sym {
    /// The symbol's name.
    #[pyo3(get)]
    name: String,
}

#[pymethods]
impl Sym {
    #[new]
    fn new(name: String) -> Sym {
        Sym { name }
    }

    fn __repr__(&self) -> String {
        format!("Sym({:?})", self.name)
    }

    fn __str__(&self) -> String {
        self.name.clone()
    }
}

/// `params` (a dict of name to value) in the engine's JSON parameter
/// form, made while holding the GIL; the engine reads it with
/// [`chronolog_engine::json::params`] once the GIL is released.
pub(crate) fn params_json(params: Option<&Bound<'_, PyDict>>) -> PyResult<Option<String>> {
    let Some(params) = params else {
        return Ok(None);
    };
    let mut object = serde_json::Map::new();
    for (name, value) in params.iter() {
        let name: String = name
            .extract()
            .map_err(|_| PyTypeError::new_err("parameter names are strings"))?;
        let json = param_json(&value)
            .map_err(|e| PyTypeError::new_err(format!("parameter ${name}: {e}")))?;
        object.insert(name, json);
    }
    Ok(Some(Json::Object(object).to_string()))
}

/// The engine's parameters from [`params_json`]'s text.
pub(crate) fn read_params(
    session: &mut Session,
    json: Option<&str>,
) -> Result<HashMap<String, Value>, chronolog_engine::Error> {
    match json {
        Some(json) => chronolog_engine::json::params(session, json),
        None => Ok(HashMap::new()),
    }
}

fn param_json(value: &Bound<'_, PyAny>) -> PyResult<Json> {
    if value.is_none() {
        return Ok(Json::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Json::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(json!(value.extract::<i64>()?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(json!(value.extract::<f64>()?));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Json::String(text.to_cow()?.into_owned()));
    }
    if let Ok(sym) = value.cast::<Sym>() {
        return Ok(json!({ "sym": sym.get().name }));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items: Vec<f64> = value
            .extract()
            .map_err(|_| PyTypeError::new_err("a list parameter is a vector: numbers only"))?;
        return Ok(json!(items));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        // The JSON form itself: {"sym": ...}, {"time": ...}, {"str": ...}.
        let mut object = serde_json::Map::new();
        for (k, v) in dict.iter() {
            object.insert(k.extract()?, Json::String(v.extract()?));
        }
        return Ok(Json::Object(object));
    }
    // A datetime or a date.
    let t = time::to_timestamp(value)?;
    Ok(json!({ "time": t.to_string() }))
}

/// An answer value read out of the engine without the GIL (names
/// rendered through the session), to become a Python object once the GIL
/// is back.
pub(crate) enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Time(Timestamp),
    Bytes(Vec<u8>),
    Vector(Vec<f32>),
    List(Vec<Cell>),
}

impl Cell {
    pub(crate) fn of(session: &Session, value: &Val) -> Cell {
        match value {
            Val::Null => Cell::Null,
            Val::Bool(b) => Cell::Bool(*b),
            Val::Int(i) => Cell::Int(*i),
            Val::Float(x) => Cell::Float(*x),
            Val::Str(_) | Val::Sym(_) => Cell::Text(session.render(value)),
            Val::Time(t) => Cell::Time(Timestamp(*t)),
            Val::Bytes(b) => Cell::Bytes(b.to_vec()),
            Val::Vector(v) => Cell::Vector(v.to_vec()),
            Val::List(items) => Cell::List(items.iter().map(|v| Cell::of(session, v)).collect()),
        }
    }

    pub(crate) fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Cell::Null => py.None(),
            Cell::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
            Cell::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
            Cell::Float(x) => PyFloat::new(py, *x).into_any().unbind(),
            Cell::Text(text) => PyString::new(py, text).into_any().unbind(),
            Cell::Time(t) => time::from_timestamp(py, *t)?,
            Cell::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
            Cell::Vector(v) => PyList::new(py, v.iter().map(|x| f64::from(*x)))?
                .into_any()
                .unbind(),
            Cell::List(items) => {
                let items = items
                    .iter()
                    .map(|c| c.to_python(py))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any().unbind()
            }
        })
    }
}

/// A query's answer read out of the engine: its columns and its rows.
pub(crate) struct Table {
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Vec<Cell>>,
}

impl Table {
    pub(crate) fn of(session: &Session, rows: &chronolog_engine::Rows) -> Table {
        Table {
            columns: rows.columns.clone(),
            rows: rows
                .iter()
                .map(|row| row.iter().map(|v| Cell::of(session, v)).collect())
                .collect(),
        }
    }

    /// The answer as a `chronolog.Rows`: a list of dicts, column to value.
    pub(crate) fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let cells = row
                    .iter()
                    .map(|c| c.to_python(py))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyTuple::new(py, cells)?.into_any())
            })
            .collect::<PyResult<Vec<_>>>()?;
        let class = py.import("chronolog._rows")?.getattr("Rows")?;
        Ok(class
            .call1((self.columns.clone(), PyList::new(py, rows)?))?
            .unbind())
    }
}
