//! `chronolog.Database`: a session on a store, for Datalog from Python,
//! and `chronolog.Query`, a query parsed and planned once.
//!
//! The session sits behind a mutex that is only ever taken with the GIL
//! released (taking it while holding the GIL could deadlock with a thread
//! that holds it and waits for the GIL to come back).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use chronolog_engine::{Limits, Output, Prepared, Session, Store};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::values::{self, Table};
use crate::{closed, engine_error, script_error};

type Shared = Arc<Mutex<Option<Session>>>;

/// Runs `work` on the session with the GIL released.
fn with_session<T: Send>(
    py: Python<'_>,
    shared: &Shared,
    work: impl FnOnce(&mut Session) -> PyResult<T> + Send,
) -> PyResult<T> {
    py.detach(|| {
        let mut guard = shared
            .lock()
            .map_err(|_| crate::Error::new_err("the database was poisoned by a panic"))?;
        let session = guard.as_mut().ok_or_else(|| closed("database"))?;
        work(session)
    })
}

/// A Chronolog database: Datalog over bi-temporal relations, on disk at
/// `path` (created on first use) or in memory when `path` is None.
#[pyclass(module = "chronolog")]
pub struct Database {
    shared: Shared,
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path=None, embedder="default", read_only=false))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        embedder: &str,
        read_only: bool,
    ) -> PyResult<Database> {
        let embedder = crate::memory::embedder(py, embedder)?;
        let session = py.detach(|| -> PyResult<Session> {
            let store = match &path {
                // Reading only: nothing created or changed, writes refused.
                Some(dir) if read_only => {
                    let options = chronolog_engine::Options {
                        read_only: true,
                        ..chronolog_engine::Options::default()
                    };
                    Store::open_with(dir, options).map_err(|e| {
                        crate::Error::new_err(format!(
                            "cannot read the database at {}: {e}",
                            dir.display()
                        ))
                    })?
                }
                None if read_only => {
                    return Err(crate::Error::new_err(
                        "read_only needs the path of an existing database",
                    ));
                }
                Some(dir) => {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        crate::Error::new_err(format!("cannot create {}: {e}", dir.display()))
                    })?;
                    Store::open(dir).map_err(|e| {
                        crate::Error::new_err(format!(
                            "cannot open the database at {}: {e}",
                            dir.display()
                        ))
                    })?
                }
                None => Store::in_memory(),
            };
            Ok(Session::with_embedder(store, embedder))
        })?;
        Ok(Database {
            shared: Arc::new(Mutex::new(Some(session))),
        })
    }

    /// Runs a script (statements, rules, queries) and returns the rows of
    /// its last query (empty when it has none). `params` bind `$names`:
    /// str is text, `Sym("x")` a symbol, a datetime or date a time.
    #[pyo3(signature = (script, params=None))]
    fn run(
        &self,
        py: Python<'_>,
        script: &str,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let params = values::params_json(params)?;
        let ran = with_session(py, &self.shared, |session| {
            let params = values::read_params(session, params.as_deref())
                .map_err(|e| engine_error(&e, script))?;
            let ran = session.run_script(script, &params, &Limits::default());
            Ok(match ran.error {
                Some(e) => Err((e, ran.outputs.len())),
                None => Ok(ran.outputs.iter().rev().find_map(|o| match o {
                    Output::Rows(rows) => Some(Table::of(session, rows)),
                    _ => None,
                })),
            })
        })?;
        let table = ran.map_err(|(e, done)| script_error(py, &e, script, done))?;
        match table {
            Some(table) => table.to_python(py),
            None => Table {
                columns: Vec::new(),
                rows: Vec::new(),
            }
            .to_python(py),
        }
    }

    /// Parses and plans one query (`?- ...`) once, to run many times with
    /// different parameters.
    fn prepare(&self, py: Python<'_>, query: String) -> PyResult<Query> {
        let prepared = with_session(py, &self.shared, |session| {
            session
                .prepare(&query)
                .map_err(|e| engine_error(&e, &query))
        })?;
        Ok(Query {
            shared: self.shared.clone(),
            prepared: Arc::new(prepared),
            text: query,
        })
    }

    /// The relations and their columns, as `[(name, [column, ...])]`.
    fn relations(&self, py: Python<'_>) -> PyResult<Vec<(String, Vec<String>)>> {
        with_session(py, &self.shared, |session| {
            Ok(session
                .store()
                .relations()
                .iter()
                .map(|s| {
                    (
                        s.name.to_string(),
                        s.columns.iter().map(|c| c.name.to_string()).collect(),
                    )
                })
                .collect())
        })
    }

    /// Closes the database (and its prepared queries); the store's files
    /// are released for another process.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let session = py.detach(|| self.shared.lock().ok().and_then(|mut s| s.take()));
        drop(session);
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// A query parsed and planned once ([`Database::prepare`]).
#[pyclass(module = "chronolog", frozen)]
pub struct Query {
    shared: Shared,
    prepared: Arc<Prepared>,
    text: String,
}

#[pymethods]
impl Query {
    /// Runs the query on the database as it is now.
    #[pyo3(signature = (params=None))]
    fn run(&self, py: Python<'_>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let params = values::params_json(params)?;
        let text = &self.text;
        let prepared = &self.prepared;
        let table = with_session(py, &self.shared, |session| {
            let params = values::read_params(session, params.as_deref())
                .map_err(|e| engine_error(&e, text))?;
            let rows = session
                .execute(prepared, &params, &Limits::default())
                .map_err(|e| engine_error(&e, text))?;
            Ok(Table::of(session, &rows))
        })?;
        table.to_python(py)
    }

    fn __repr__(&self) -> String {
        format!("Query({:?})", self.text)
    }
}
