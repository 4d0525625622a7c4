//! The `chronolog._chronolog` extension module: the engine's sessions and
//! the agent memory for Python. The package around it
//! (`python/chronolog/__init__.py`) re-exports it and adds the pure-Python
//! parts (the `Rows` list and its pandas conversion).
//!
//! Every call that reads or writes the store releases the GIL, so Python
//! threads run searches and writes in parallel. Errors become
//! `chronolog.Error` (a language error: `chronolog.QueryError`, whose
//! message shows line:column and a caret).

mod database;
mod memory;
mod time;
mod values;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    chronolog,
    Error,
    PyException,
    "Anything Chronolog could not do; the message says why."
);
create_exception!(
    chronolog,
    QueryError,
    Error,
    "A script or query that does not parse or compile; the message shows line:column and a caret."
);

/// An engine error as a Python exception; `source` is the text it is
/// about, for the caret.
pub(crate) fn engine_error(e: &chronolog_engine::Error, source: &str) -> PyErr {
    match e {
        chronolog_engine::Error::Parse(_) | chronolog_engine::Error::Compile(_) => {
            QueryError::new_err(e.render(source))
        }
        _ => Error::new_err(e.render(source)),
    }
}

/// The error a script stopped at, after `done` of its steps ran: a step is
/// a statement or a run of facts (one transaction), and the ones before
/// the error stay done (a created relation, a committed batch). The
/// message says so, and the exception's `done` holds the count, so a
/// caller knows what was written.
pub(crate) fn script_error(
    py: Python<'_>,
    e: &chronolog_engine::Error,
    source: &str,
    done: usize,
) -> PyErr {
    let mut message = e.render(source);
    if done > 0 {
        message.push_str(&format!(
            "\nthe {done} step(s) before it ran and stay done (a step: a statement, or a run of facts committed as one transaction)"
        ));
    }
    let err = match e {
        chronolog_engine::Error::Parse(_) | chronolog_engine::Error::Compile(_) => {
            QueryError::new_err(message)
        }
        _ => Error::new_err(message),
    };
    // An attribute the exception's own class allows: cannot fail but on
    // memory exhaustion, where the message still says it.
    let _ = err.value(py).setattr("done", done);
    err
}

/// A memory error as a Python exception.
pub(crate) fn memory_error(e: &chronolog_memory::Error) -> PyErr {
    Error::new_err(e.to_string())
}

/// The error of a call on a closed database or memory.
pub(crate) fn closed(what: &str) -> PyErr {
    Error::new_err(format!("the {what} is closed"))
}

#[pymodule]
fn _chronolog(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("QueryError", py.get_type::<QueryError>())?;
    m.add_class::<database::Database>()?;
    m.add_class::<database::Query>()?;
    m.add_class::<values::Sym>()?;
    m.add_class::<memory::Memory>()?;
    m.add_class::<memory::Context>()?;
    m.add_class::<memory::Item>()?;
    m.add_class::<memory::FactVersion>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
