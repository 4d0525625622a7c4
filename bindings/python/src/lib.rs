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
