//! Chronolog's C ABI. A small surface for other languages: open and close
//! a database, run a script with parameters and get every statement's
//! result as JSON, free what was returned, and read the last error; and
//! the agent memory (`chronolog_memory_*`, in `memory.rs`): add a
//! tenant's messages, consolidate, search into a JSON context, a
//! subject's history, forget, and Datalog over the memory's relations.
//!
//! The boundary's rules, each enforced here and nowhere else:
//! - Nothing unwinds into C: every body runs under `catch_unwind`, and a
//!   panic becomes `CHRONOLOG_STATUS_INTERNAL_ERROR`.
//! - A database handle is a number from a registry, never a pointer: an
//!   unknown, closed or made-up handle is `INVALID_HANDLE`, so a double
//!   close is an error, not a double free. Each handle's database sits
//!   behind a mutex, so handles may be used from several threads; a call
//!   that only reads or writes the store runs on a fork of that session,
//!   so a long query does not hold up the handle's other calls.
//! - Strings handed to C are registered until `chronolog_free_string`, so
//!   freeing one twice (or freeing a pointer we never gave) is an error.
//! - Pointers from C are checked for null and text for UTF-8 before use;
//!   `out` parameters are set to null/0 first, so an error never leaves
//!   garbage to free.
#![allow(unsafe_code)] // This crate is the unsafe boundary; see the rules above.

mod memory;

pub use memory::{
    ChronologMemory, chronolog_memory_add, chronolog_memory_close, chronolog_memory_consolidate,
    chronolog_memory_forget, chronolog_memory_history, chronolog_memory_open,
    chronolog_memory_search,
};

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use chronolog_engine::{Error, Limits, Session, json};
use chronolog_engine::{Store, Timestamp};
use serde_json::json;

/// A database handle: a number, never dereferenced, so a stale or made-up
/// one is reported instead of crashing. 0 is never a valid handle.
pub type ChronologDb = u64;

/// What a call did. Anything but `Ok` leaves a message for
/// `chronolog_last_error`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChronologStatus {
    /// It worked.
    Ok = 0,
    /// A required pointer argument was null.
    NullPointer = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// The database handle is unknown or already closed.
    InvalidHandle = 3,
    /// The script or query failed: a syntax error (the message shows
    /// line:column and a caret), an unknown relation, a type error...
    /// What ran before the failing statement stays done; the failing
    /// statement (or batch of facts) wrote nothing.
    QueryError = 4,
    /// An argument was malformed: parameters that are not a JSON object, a
    /// time that does not parse, a string this library never returned.
    InvalidArgument = 5,
    /// The storage layer failed (the directory cannot be opened, a disk
    /// error).
    StorageError = 6,
    /// A bug inside Chronolog: a panic caught at the boundary, or an
    /// invariant the engine found broken (`Error::Internal`).
    InternalError = 7,
    /// The call was stopped by `chronolog_cancel`, or ran past the
    /// handle's timeout (`chronolog_set_timeout`), or past its memory
    /// budget; it wrote nothing.
    Stopped = 8,
    /// A value over a documented limit: a symbol, relation or column name
    /// or a message's role over 4,096 bytes, a message's text over
    /// 256 KiB, a transaction too large to log, a relation full. It wrote
    /// nothing; the message names the limit.
    Limit = 9,
}

/// Why a call failed.
struct Failure {
    status: ChronologStatus,
    message: String,
}

impl Failure {
    fn new(status: ChronologStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// An engine error, shown against the text it is about.
    fn engine(e: Error, source: &str) -> Failure {
        use chronolog_engine::StorageError as Stored;
        let status = match e.kind() {
            // Only the disk and the directory are storage failures; a
            // limit is the input's size, the rest what the script said.
            Error::Storage {
                source: Stored::LimitReached { .. },
                ..
            } => ChronologStatus::Limit,
            Error::Storage {
                source:
                    Stored::Io { .. }
                    | Stored::DiskFull { .. }
                    | Stored::Corrupt { .. }
                    | Stored::Damaged { .. }
                    | Stored::Locked { .. }
                    | Stored::ReadOnly,
                ..
            } => ChronologStatus::StorageError,
            Error::Cancelled | Error::LimitExceeded(_) => ChronologStatus::Stopped,
            Error::Internal(_) => ChronologStatus::InternalError,
            _ => ChronologStatus::QueryError,
        };
        Failure::new(status, e.render(source))
    }
}

type Outcome = Result<(), Failure>;

/// The next handle, of either kind: databases and memories are numbered
/// from one counter, so a handle of one kind is never a valid handle of
/// the other (a memory handle passed to `chronolog_execute` is
/// `INVALID_HANDLE`, not the database that happens to share its number).
pub(crate) static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);
static DATABASES: LazyLock<Mutex<HashMap<ChronologDb, Arc<Handle>>>> =
    LazyLock::new(Mutex::default);

/// One open database and what stops its calls.
struct Handle {
    db: Mutex<Session>,
    /// The stop flag of every `chronolog_execute` running or waiting for
    /// the database now: `chronolog_cancel` sets them all, without waiting
    /// for the database's lock.
    running: RunningCalls,
    /// Milliseconds a call may run, 0 for no limit.
    timeout_ms: AtomicU64,
}

/// Where a `chronolog_execute` runs. A script that defines rules or
/// `let`s changes the handle's session, so it runs on it, holding it; any
/// other runs on a fork of it, holding nothing, so a long query never holds
/// up the handle's other calls (they share the handle's engine).
enum Runner<'h> {
    Handle(MutexGuard<'h, Session>),
    Fork(Session),
}

impl<'h> Runner<'h> {
    fn for_script(handle: &'h Handle, script: &str) -> Runner<'h> {
        if Session::defines(script) {
            Runner::Handle(lock(&handle.db))
        } else {
            Runner::Fork(lock(&handle.db).fork())
        }
    }

    fn session(&mut self) -> &mut Session {
        match self {
            Runner::Handle(guard) => guard,
            Runner::Fork(fork) => fork,
        }
    }

    /// The handle's next search sees what a fork wrote.
    fn finish(self, handle: &Handle) {
        if let Runner::Fork(fork) = self {
            lock(&handle.db).adopt_writes(&fork);
        }
    }
}

/// The stop flags of the calls running on a handle (a database's or a
/// memory's): cancel and close set them all.
pub(crate) type RunningCalls = Mutex<Vec<Arc<AtomicBool>>>;

/// A call's registration in a handle's [`RunningCalls`], removed when it
/// ends.
pub(crate) struct Running<'h> {
    calls: &'h RunningCalls,
    pub(crate) flag: Arc<AtomicBool>,
}

impl<'h> Running<'h> {
    pub(crate) fn start(calls: &'h RunningCalls) -> Running<'h> {
        let flag = Arc::new(AtomicBool::new(false));
        lock(calls).push(flag.clone());
        Running { calls, flag }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(self.calls).retain(|f| !Arc::ptr_eq(f, &self.flag));
    }
}

/// Stops every call in `calls`.
pub(crate) fn stop_all(calls: &RunningCalls) {
    for flag in lock(calls).iter() {
        flag.store(true, Ordering::Relaxed);
    }
}

/// The instant a call started now with a timeout of `milliseconds` (0:
/// none) must stop at.
pub(crate) fn deadline(milliseconds: u64) -> Option<std::time::Instant> {
    (milliseconds > 0)
        .then(|| std::time::Instant::now() + std::time::Duration::from_millis(milliseconds))
}

/// Removes `handle` from `registry` and waits, stopping them, for the
/// calls that hold it to return: `Ok` once it was the last holder and is
/// dropped, `INTERNAL_ERROR` past [`CLOSE_WAIT`] (it goes when they do).
pub(crate) fn close_handle<T>(
    registry: &Mutex<HashMap<u64, Arc<T>>>,
    handle: u64,
    kind: &str,
    calls: impl Fn(&T) -> &RunningCalls,
) -> Outcome {
    let Some(mut shared) = lock(registry).remove(&handle) else {
        return Err(Failure::new(
            ChronologStatus::InvalidHandle,
            format!("{kind} handle {handle} is unknown or already closed"),
        ));
    };
    let deadline = std::time::Instant::now() + CLOSE_WAIT;
    loop {
        stop_all(calls(&shared));
        match Arc::try_unwrap(shared) {
            Ok(last) => {
                drop(last);
                return Ok(());
            }
            Err(still) if std::time::Instant::now() < deadline => {
                shared = still;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(_) => {
                return Err(Failure::new(
                    ChronologStatus::InternalError,
                    format!(
                        "a call on {kind} handle {handle} has not stopped after {} s; it closes when that call returns",
                        CLOSE_WAIT.as_secs()
                    ),
                ));
            }
        }
    }
}
static STRINGS: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(Mutex::default);

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Locks, ignoring poisoning: every call leaves the data consistent (the
/// engine changes nothing on error), so a panic elsewhere does not make it
/// unusable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs a call's body: catches panics, records the error message.
fn boundary(body: impl FnOnce() -> Outcome) -> ChronologStatus {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Failure::new(
            ChronologStatus::InternalError,
            format!("internal error: {what}"),
        ))
    });
    let (status, message) = match outcome {
        Ok(()) => (ChronologStatus::Ok, None),
        Err(f) => (f.status, Some(f.message)),
    };
    LAST_ERROR.with(|last| {
        *last.borrow_mut() = message
            .map(|m| CString::new(m.replace('\0', " ")).unwrap_or_else(|_| CString::default()));
    });
    status
}

/// A required string argument.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string (the C contract).
unsafe fn text_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(
            ChronologStatus::NullPointer,
            format!("`{name}` is null"),
        ));
    }
    // SAFETY: non-null, and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(ptr) };
    c.to_str().map_err(|e| {
        Failure::new(
            ChronologStatus::InvalidUtf8,
            format!("`{name}` is not UTF-8: {e}"),
        )
    })
}

/// An optional string argument: null means absent.
///
/// # Safety
/// As [`text_arg`].
unsafe fn optional_text_arg<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { text_arg(ptr, name) }.map(Some)
    }
}

fn time_arg(text: Option<&str>, name: &str) -> Result<Option<Timestamp>, Failure> {
    text.map(|t| {
        Timestamp::parse(t)
            .map_err(|e| Failure::new(ChronologStatus::InvalidArgument, format!("`{name}`: {e}")))
    })
    .transpose()
}

/// Clears an `out` string parameter, or fails if it is null.
///
/// # Safety
/// `out` is null or points to writable storage for one pointer.
unsafe fn clear_out(out: *mut *mut c_char, name: &str) -> Outcome {
    if out.is_null() {
        return Err(Failure::new(
            ChronologStatus::NullPointer,
            format!("`{name}` is null"),
        ));
    }
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *out = std::ptr::null_mut() };
    Ok(())
}

/// Hands a string to C through `out` (already checked by [`clear_out`]).
///
/// # Safety
/// As [`clear_out`].
unsafe fn give_string(out: *mut *mut c_char, text: String) -> Outcome {
    let c = CString::new(text)
        .map_err(|_| Failure::new(ChronologStatus::InternalError, "a result held a NUL byte"))?;
    let ptr = c.into_raw();
    lock(&STRINGS).insert(ptr as usize);
    // SAFETY: checked non-null and writable by `clear_out`.
    unsafe { *out = ptr };
    Ok(())
}

fn database(db: ChronologDb) -> Result<Arc<Handle>, Failure> {
    lock(&DATABASES).get(&db).cloned().ok_or_else(|| {
        Failure::new(
            ChronologStatus::InvalidHandle,
            format!("database handle {db} is unknown or already closed"),
        )
    })
}

/// Opens (creating it if needed) the database in directory `path`, or an
/// in-memory one when `path` is null, and writes its handle to `out_db`.
/// Text is embedded with the default sentence model when one is installed
/// (bge-small-en, else all-MiniLM-L6-v2), else with the deterministic
/// hashing embedder.
///
/// # Safety
/// `path` is null or a NUL-terminated string; `out_db` points to writable
/// storage for one handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_open(
    path: *const c_char,
    out_db: *mut ChronologDb,
) -> ChronologStatus {
    // SAFETY: forwarded contract.
    boundary(|| unsafe { open_database(path, out_db, false) })
}

/// Opens the existing database in directory `path` to read it only:
/// nothing in the directory is created or changed (it may be on a
/// read-only mount), other readers may open it beside this one, writers
/// wait until the readers close, and a script that writes fails with
/// `STORAGE_ERROR` ("opened read-only"), having written nothing.
///
/// # Safety
/// `path` is a NUL-terminated string; `out_db` points to writable storage
/// for one handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_open_read_only(
    path: *const c_char,
    out_db: *mut ChronologDb,
) -> ChronologStatus {
    // SAFETY: forwarded contract.
    boundary(|| unsafe {
        text_arg(path, "path")?;
        open_database(path, out_db, true)
    })
}

/// `chronolog_open`, or its read-only twin.
///
/// # Safety
/// As `chronolog_open`.
/// The store at `path` (created on first use unless `read_only`), or a
/// store in memory for no path: what a database and a memory open.
pub(crate) fn open_store(path: Option<&str>, read_only: bool) -> Result<Store, Failure> {
    let cannot = |dir: &str, e: &dyn std::fmt::Display| {
        Failure::new(
            ChronologStatus::StorageError,
            format!("cannot open {dir}: {e}"),
        )
    };
    match path {
        None => Ok(Store::in_memory()),
        Some(dir) if read_only => {
            let options = chronolog_engine::Options {
                read_only: true,
                ..chronolog_engine::Options::default()
            };
            Store::open_with(dir, options).map_err(|e| cannot(dir, &e))
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                Failure::new(
                    ChronologStatus::StorageError,
                    format!("cannot create {dir}: {e}"),
                )
            })?;
            Store::open(dir).map_err(|e| cannot(dir, &e))
        }
    }
}

unsafe fn open_database(path: *const c_char, out_db: *mut ChronologDb, read_only: bool) -> Outcome {
    if out_db.is_null() {
        return Err(Failure::new(
            ChronologStatus::NullPointer,
            "`out_db` is null",
        ));
    }
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { *out_db = 0 };
    // SAFETY: the caller's contract.
    let path = unsafe { optional_text_arg(path, "path") }?;
    let store = open_store(path, read_only)?;
    warn_once_if_stand_in();
    let db = Session::with_embedder(store, chronolog_engine::default_embedder());
    let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
    let entry = Handle {
        db: Mutex::new(db),
        running: Mutex::default(),
        timeout_ms: AtomicU64::new(0),
    };
    lock(&DATABASES).insert(handle, Arc::new(entry));
    // SAFETY: checked above.
    unsafe { *out_db = handle };
    Ok(())
}

/// Says on standard error, once per process, that text will be embedded
/// with the hashing stand-in: search quality drops sharply without the
/// model, and a program started from an unexpected directory must not lose
/// it silently. `CHRONOLOG_QUIET=1` keeps it quiet.
fn warn_once_if_stand_in() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        if std::env::var_os("CHRONOLOG_QUIET").is_some_and(|v| v == "1") {
            return;
        }
        if let Some(reason) = chronolog_engine::stand_in_reason() {
            eprintln!("chronolog: warning: {reason}");
        }
    });
}

/// Writes `{"embedder": NAME, "stand_in": BOOL}` to `out_json`: which
/// sentence embedder `db` embeds text with (`bge-small-en` or
/// `all-MiniLM-L6-v2`, or the hashing stand-in, `hashing-384`, when no
/// model is installed).
///
/// # Safety
/// `out_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_embedder(
    db: ChronologDb,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out_json, "out_json") }?;
        let handle = database(db)?;
        let name = lock(&handle.db).embedder_name();
        let json = json!({
            "embedder": name,
            "stand_in": name.starts_with("hashing"),
        });
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, json.to_string()) }
    })
}

/// Closes a database: stops every call running or waiting on it (each
/// returns `CHRONOLOG_STATUS_STOPPED`, having written nothing, as after
/// `chronolog_cancel`) and returns once they have, the directory's lock
/// released, so it can be opened again at once. A call that has not
/// returned after 10 seconds is a bug: `INTERNAL_ERROR`, and the database
/// closes when that call returns. Closing twice is `INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_close(db: ChronologDb) -> ChronologStatus {
    boundary(|| close_handle(&DATABASES, db, "database", |h: &Handle| &h.running))
}

/// How long a close waits for the calls it stopped.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs a script (statements, facts, rules, queries, as in the REPL) and
/// writes a JSON array to `out_json`, one object per statement: `{"rows":
/// {"columns": [...], "rows": [[...]]}}`, `{"committed": {...}}`,
/// `{"created": "name"}`, ... `params_json` (may be null) binds `$name`s:
/// `{"p": {"sym": "alice"}, "t": {"time": "2022-01-01"}, "n": 3, "s":
/// "text"}`. A script that does not parse runs nothing; one that fails
/// partway stops at its error, and the error's message ends with the JSON
/// of the statements before it, which ran and stay done (a run of
/// consecutive facts is one transaction: all of it or none).
///
/// # Safety
/// `script` and `params_json` are null or NUL-terminated strings;
/// `out_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_execute(
    db: ChronologDb,
    script: *const c_char,
    params_json: *const c_char,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_json, "out_json") }?;
        let script = unsafe { text_arg(script, "script") }?;
        let params_json = unsafe { optional_text_arg(params_json, "params_json") }?;
        let handle = database(db)?;
        // Registered before waiting for the lock, so a cancel also stops a
        // call queued behind a long one.
        let running = Running::start(&handle.running);
        let timeout = handle.timeout_ms.load(Ordering::Relaxed);
        let limits = Limits {
            cancel: Some(running.flag.clone()),
            deadline: deadline(timeout),
            ..Limits::default()
        };
        let mut runner = Runner::for_script(&handle, script);
        let db = runner.session();
        if running.flag.load(Ordering::Relaxed) {
            return Err(Failure::new(ChronologStatus::Stopped, "query cancelled"));
        }
        let ran = run_script_json(db, script, params_json, &limits);
        runner.finish(&handle);
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, ran?) }
    })
}

/// Runs `script` on `session` with the `$name`s of `params_json` bound:
/// the JSON array of every statement's output, or the first error with
/// the JSON of the statements before it (which ran and stay done).
fn run_script_json(
    session: &mut Session,
    script: &str,
    params_json: Option<&str>,
    limits: &Limits,
) -> Result<String, Failure> {
    let params = match params_json {
        Some(text) => json::params(session, text)
            .map_err(|e| Failure::new(ChronologStatus::InvalidArgument, e.to_string()))?,
        None => HashMap::new(),
    };
    let ran = session.run_script(script, &params, limits);
    let json: Vec<_> = ran
        .outputs
        .iter()
        .map(|o| json::output(session, o))
        .collect();
    if let Some(e) = ran.error {
        let mut failure = Failure::engine(e, script);
        if !json.is_empty() {
            // What ran before the error stays done: say so.
            failure.message.push_str(&format!(
                "\nthe statements before it ran and stay done: {}",
                serde_json::Value::Array(json)
            ));
        }
        return Err(failure);
    }
    Ok(serde_json::Value::Array(json).to_string())
}

/// Stops every `chronolog_execute` on `db` that is running or waiting for
/// it when this is called: each returns `CHRONOLOG_STATUS_STOPPED` within
/// milliseconds, having written nothing. Safe from any thread; it never
/// waits for the running call. Calls started afterwards are not affected.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_cancel(db: ChronologDb) -> ChronologStatus {
    boundary(|| {
        stop_all(&database(db)?.running);
        Ok(())
    })
}

/// Bounds how long each later `chronolog_execute` on `db` may run, in
/// milliseconds (0: no bound, the default); a call past it returns
/// `CHRONOLOG_STATUS_STOPPED`, having written nothing.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_set_timeout(db: ChronologDb, milliseconds: u64) -> ChronologStatus {
    boundary(|| {
        database(db)?
            .timeout_ms
            .store(milliseconds, Ordering::Relaxed);
        Ok(())
    })
}

/// Frees a string this library returned. Null is fine (nothing to do); a
/// pointer freed already, or never returned by this library, is
/// `INVALID_ARGUMENT` and is left alone.
///
/// # Safety
/// None beyond passing a pointer value: it is only dereferenced when it is
/// one this library handed out and has not taken back.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_free_string(text: *mut c_char) -> ChronologStatus {
    boundary(|| {
        if text.is_null() {
            return Ok(());
        }
        if !lock(&STRINGS).remove(&(text as usize)) {
            return Err(Failure::new(
                ChronologStatus::InvalidArgument,
                "this string was not returned by chronolog, or was freed already",
            ));
        }
        // SAFETY: it came from `CString::into_raw` in `give_string` and was
        // still registered, so it is live and ours to free, once.
        drop(unsafe { CString::from_raw(text) });
        Ok(())
    })
}

/// Why the last call on this thread failed, or null if it succeeded. The
/// pointer is valid until the next chronolog call on this thread; do not
/// free it.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_last_error() -> *const c_char {
    LAST_ERROR.with(|last| {
        last.borrow()
            .as_ref()
            .map_or(std::ptr::null(), |m| m.as_ptr())
    })
}

/// The library's version, e.g. "0.1.0". Static; do not free it.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_bug_is_an_internal_error_and_bad_input_a_query_error() {
        let bug = Error::Internal("an invariant broke".into());
        assert_eq!(
            Failure::engine(bug, "").status,
            ChronologStatus::InternalError
        );
        let runtime = Error::Runtime(chronolog_engine::RuntimeError::DivisionByZero);
        assert_eq!(
            Failure::engine(runtime, "").status,
            ChronologStatus::QueryError
        );
        assert_eq!(
            Failure::engine(Error::Cancelled, "").status,
            ChronologStatus::Stopped
        );
    }
}
