//! Times between Python and the engine: `datetime` in and out, exact to
//! the microsecond (the engine's resolution), always UTC on the way out.
//! Goes through the `datetime` module's Python API rather than its C API,
//! which the stable ABI (abi3) does not offer.

use chronolog_engine::Timestamp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// The `datetime` module's pieces, looked up once.
struct Datetime {
    datetime: Py<PyAny>,
    date: Py<PyAny>,
    timedelta: Py<PyAny>,
    utc: Py<PyAny>,
    /// 1970-01-01T00:00:00+00:00.
    epoch: Py<PyAny>,
    /// One microsecond.
    micro: Py<PyAny>,
}

static DATETIME: PyOnceLock<Datetime> = PyOnceLock::new();

fn datetime(py: Python<'_>) -> PyResult<&Datetime> {
    DATETIME.get_or_try_init(py, || {
        let module = py.import("datetime")?;
        let datetime = module.getattr("datetime")?;
        let utc = module.getattr("timezone")?.getattr("utc")?;
        let epoch = datetime.call1((1970, 1, 1, 0, 0, 0, 0, &utc))?;
        let timedelta = module.getattr("timedelta")?;
        let micro = timedelta.call1((0, 0, 1))?;
        Ok::<_, PyErr>(Datetime {
            datetime: datetime.unbind(),
            date: module.getattr("date")?.unbind(),
            timedelta: timedelta.unbind(),
            utc: utc.unbind(),
            epoch: epoch.unbind(),
            micro: micro.unbind(),
        })
    })
}

/// A time from Python: a `datetime` (naive ones are read as UTC), a
/// `date` (its midnight, UTC) or an ISO 8601 string.
pub(crate) fn to_timestamp(value: &Bound<'_, PyAny>) -> PyResult<Timestamp> {
    let py = value.py();
    let dt = datetime(py)?;
    if let Ok(text) = value.extract::<String>() {
        return Timestamp::parse(&text).map_err(|e| {
            crate::Error::new_err(format!(
                "{text:?} is not a time ({e}); use ISO 8601 like 2024-05-01 or 2024-05-01T10:00:00Z"
            ))
        });
    }
    let moment = if value.is_instance(dt.datetime.bind(py))? {
        if value.getattr("tzinfo")?.is_none() {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("tzinfo", dt.utc.bind(py))?;
            value.call_method("replace", (), Some(&kwargs))?
        } else {
            value.clone()
        }
    } else if value.is_instance(dt.date.bind(py))? {
        dt.datetime.bind(py).call_method1(
            "combine",
            (
                value,
                py.import("datetime")?.getattr("time")?.call0()?,
                dt.utc.bind(py),
            ),
        )?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected a datetime, a date or an ISO 8601 string, not {}",
            value.get_type().name()?
        )));
    };
    let micros: i64 = moment
        .sub(dt.epoch.bind(py))?
        .floor_div(dt.micro.bind(py))?
        .extract()?;
    Ok(Timestamp(micros))
}

/// An optional time argument.
pub(crate) fn to_timestamp_opt(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Timestamp>> {
    match value {
        Some(v) if !v.is_none() => Ok(Some(to_timestamp(v)?)),
        _ => Ok(None),
    }
}

/// A time for Python: an aware UTC `datetime`; `None` for the open ends
/// of time (an interval still open, a fact valid since always).
pub(crate) fn from_timestamp(py: Python<'_>, t: Timestamp) -> PyResult<Py<PyAny>> {
    if t == Timestamp::MIN || t == Timestamp::MAX {
        return Ok(py.None());
    }
    let dt = datetime(py)?;
    let delta = dt.timedelta.bind(py).call1((0, 0, t.0))?;
    // Outside datetime's years 1..9999: no Python value; say so as None.
    match dt.epoch.bind(py).add(delta) {
        Ok(moment) => Ok(moment.unbind()),
        Err(_) => Ok(py.None()),
    }
}
