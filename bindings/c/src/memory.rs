//! The agent memory through the C ABI: open a memory, add messages to a
//! tenant's memory, consolidate, search (the context as JSON), a
//! subject's history, forget a subject. The boundary's rules are the
//! database's (see the crate docs): numbered handles from their own
//! registry, registered strings, typed statuses, nothing unwinds into C.
//!
//! A memory handle owns its store: a directory is opened either as a
//! database (`chronolog_open`) or as a memory, not both at once.

use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use chronolog_engine::{Engine, Limits};
use chronolog_memory::{Lang, Memory, Message, Options, SearchOptions, SearchRequest, Stop};
use serde_json::Value as Json;

use crate::{
    ChronologStatus, Failure, Running, RunningCalls, boundary, clear_out, give_string, lock,
    optional_text_arg, run_script_json, text_arg, time_arg, warn_once_if_stand_in,
};

/// A memory handle: a number, never dereferenced, like [`crate::ChronologDb`].
/// 0 is never a valid handle.
pub type ChronologMemory = u64;

/// One open memory and what stops its calls, as a database handle has.
struct MemoryHandle {
    memory: Memory,
    /// The stop flags of the searches and consolidations running on it.
    running: RunningCalls,
    /// Milliseconds a search or consolidation may run, 0 for no limit.
    timeout_ms: AtomicU64,
}

impl MemoryHandle {
    /// The stop of a call registered as `running`: its flag and the
    /// handle's timeout from now.
    fn stop(&self, running: &Running<'_>) -> Stop {
        Stop {
            cancel: Some(running.flag.clone()),
            deadline: crate::deadline(self.timeout_ms.load(Ordering::Relaxed)),
        }
    }
}

impl std::ops::Deref for MemoryHandle {
    type Target = Memory;
    fn deref(&self) -> &Memory {
        &self.memory
    }
}

static MEMORIES: LazyLock<Mutex<HashMap<ChronologMemory, Arc<MemoryHandle>>>> =
    LazyLock::new(Mutex::default);

fn memory_of(handle: ChronologMemory) -> Result<Arc<MemoryHandle>, Failure> {
    lock(&MEMORIES).get(&handle).cloned().ok_or_else(|| {
        Failure::new(
            ChronologStatus::InvalidHandle,
            format!("memory handle {handle} is unknown or already closed"),
        )
    })
}

impl Failure {
    /// A memory error: bad names and lines are the caller's arguments;
    /// the engine's errors keep their statuses.
    fn memory(e: chronolog_memory::Error) -> Failure {
        use chronolog_memory::Error as E;
        match e {
            E::Engine(e) => Failure::engine(e, ""),
            E::Worker(_) => Failure::new(ChronologStatus::InternalError, e.to_string()),
            other => Failure::new(ChronologStatus::InvalidArgument, other.to_string()),
        }
    }
}

/// Opens (creating it if needed) the memory in directory `path`, or an
/// in-memory one when `path` is null, with a background worker that
/// consolidates what is added; writes its handle to `out_memory`.
///
/// # Safety
/// `path` is null or a NUL-terminated string; `out_memory` points to
/// writable storage for one handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_open(
    path: *const c_char,
    out_memory: *mut ChronologMemory,
) -> ChronologStatus {
    boundary(|| {
        if out_memory.is_null() {
            return Err(Failure::new(
                ChronologStatus::NullPointer,
                "`out_memory` is null",
            ));
        }
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { *out_memory = 0 };
        // SAFETY: the caller's contract.
        let path = unsafe { optional_text_arg(path, "path") }?;
        let store = crate::open_store(path, false)?;
        warn_once_if_stand_in();
        let engine = Engine::with_embedder(store, chronolog_engine::default_embedder());
        let memory = Memory::with_engine(engine, Options::default()).map_err(Failure::memory)?;
        let handle = crate::NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        let entry = MemoryHandle {
            memory,
            running: RunningCalls::default(),
            timeout_ms: AtomicU64::new(0),
        };
        lock(&MEMORIES).insert(handle, Arc::new(entry));
        // SAFETY: checked above.
        unsafe { *out_memory = handle };
        Ok(())
    })
}

/// Closes a memory: stops the searches and consolidations running on it
/// (each returns `CHRONOLOG_STATUS_STOPPED`; a stopped consolidation keeps
/// the messages it finished), lets its worker finish the message it is
/// on, and returns once the store's files are released. A call that has
/// not returned after 10 seconds is a bug: `INTERNAL_ERROR`, and the
/// memory closes when it returns. Closing twice is `INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_memory_close(memory: ChronologMemory) -> ChronologStatus {
    boundary(|| crate::close_handle(&MEMORIES, memory, "memory", |h: &MemoryHandle| &h.running))
}

/// Stops every search and consolidation running on `memory` when this is
/// called: each returns `CHRONOLOG_STATUS_STOPPED` within milliseconds (a
/// consolidation between two messages, keeping the ones it finished; a
/// search writes nothing). Safe from any thread; calls started afterwards
/// are not affected.
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_memory_cancel(memory: ChronologMemory) -> ChronologStatus {
    boundary(|| {
        crate::stop_all(&memory_of(memory)?.running);
        Ok(())
    })
}

/// Bounds how long each later search and consolidation on `memory` may
/// run, in milliseconds (0: no bound, the default); one past it returns
/// `CHRONOLOG_STATUS_STOPPED` (a consolidation keeps the messages it
/// finished, and the next goes on from there).
#[unsafe(no_mangle)]
pub extern "C" fn chronolog_memory_set_timeout(
    memory: ChronologMemory,
    milliseconds: u64,
) -> ChronologStatus {
    boundary(|| {
        memory_of(memory)?
            .timeout_ms
            .store(milliseconds, Ordering::Relaxed);
        Ok(())
    })
}

/// Appends one message to `tenant`'s memory, verbatim, and writes its
/// episode id (`tenant/e<n>`) to `out_id`. `role` is who said it (`user`,
/// `assistant`, a name); `at` (an ISO date or datetime; null: now) is when;
/// `session` (null: none) is the conversation it belongs to. No model runs
/// on this path; the episode is durable and searchable when it returns.
///
/// # Safety
/// `tenant`, `role`, `text`, `at` and `session` are null or NUL-terminated
/// strings; `out_id` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_add(
    memory: ChronologMemory,
    tenant: *const c_char,
    role: *const c_char,
    text: *const c_char,
    at: *const c_char,
    session: *const c_char,
    out_id: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_id, "out_id") }?;
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        let role = unsafe { text_arg(role, "role") }?;
        let text = unsafe { text_arg(text, "text") }?;
        let at = time_arg(unsafe { optional_text_arg(at, "at") }?, "at")?;
        let session = unsafe { optional_text_arg(session, "session") }?;
        let mut message = Message::new(role, text);
        if let Some(at) = at {
            message = message.at(at);
        }
        if let Some(session) = session {
            message = message.session(session);
        }
        let id = memory_of(memory)?
            .add(tenant, message)
            .map_err(Failure::memory)?;
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_id, id) }
    })
}

/// Pins the language `tenant`'s messages and questions are read in, for
/// a user whose language is known (a short message says too little to
/// detect: "Ich mag Jazz." reads as English): `lang` is `en`, `zh` or
/// `de`; null or `none` unpins, and each message's language is detected
/// again. A search's `"lang"` option still names its own. Pin before the
/// tenant's first message: what is consolidated is not read again.
///
/// # Safety
/// `tenant` and `lang` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_pin_language(
    memory: ChronologMemory,
    tenant: *const c_char,
    lang: *const c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        let lang = match unsafe { optional_text_arg(lang, "lang") }? {
            None => None,
            Some(code) => Lang::parse_pin(code).map_err(|e| {
                Failure::new(ChronologStatus::InvalidArgument, format!("`lang`: {e}"))
            })?,
        };
        memory_of(memory)?
            .pin_language(tenant, lang)
            .map_err(Failure::memory)
    })
}

/// Writes the language `tenant` is pinned to (`en`, `zh` or `de`) to
/// `out_lang`, or null when it is not pinned.
///
/// # Safety
/// `tenant` is null or a NUL-terminated string; `out_lang` points to
/// writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_pinned_language(
    memory: ChronologMemory,
    tenant: *const c_char,
    out_lang: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_lang, "out_lang") }?;
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        match memory_of(memory)?
            .pinned_language(tenant)
            .map_err(Failure::memory)?
        {
            // SAFETY: checked by `clear_out`.
            Some(lang) => unsafe { give_string(out_lang, lang.code().to_string()) },
            None => Ok(()),
        }
    })
}

/// Consolidates every episode not consolidated yet into facts, now, and
/// writes what it did to `out_json`: `{"episodes", "claims", "facts",
/// "restated", "ended", "withdrawn", "contested", "paraphrased",
/// "elaborated", "dropped", "reinforced"}`.
///
/// # Safety
/// `out_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_consolidate(
    memory: ChronologMemory,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out_json, "out_json") }?;
        let handle = memory_of(memory)?;
        let running = Running::start(&handle.running);
        let report = handle
            .consolidate_until(&handle.stop(&running))
            .map_err(Failure::memory)?;
        let json = report.to_json();
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, json.to_string()) }
    })
}

/// Answers `question` from `tenant`'s memory: writes the context as JSON
/// to `out_json` (`{"abstain", "reason", "tokens", "budget", "as_of",
/// "items": [{"kind", "id", "text", "speaker", "at", "valid_from",
/// "valid_to", "supersedes", "sources", "score"}], "text"}`, where `text`
/// is the context to paste into a prompt). `options_json` (null: the
/// defaults) is a `SearchRequest` as MCP's `recall` and Python's `search`
/// take it: `"as_of"` and `"known_at"` (ISO times), `"budget"` (tokens,
/// default: the memory's tuning, 2,000), `"rerank"` (messages the
/// reranker reorders, default 20; 0: none), `"lang"` (`en`, `zh`, `de`:
/// the question's language, pinned).
///
/// # Safety
/// `tenant`, `question` and `options_json` are null or NUL-terminated
/// strings; `out_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_search(
    memory: ChronologMemory,
    tenant: *const c_char,
    question: *const c_char,
    options_json: *const c_char,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_json, "out_json") }?;
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        let question = unsafe { text_arg(question, "question") }?;
        let options = unsafe { optional_text_arg(options_json, "options_json") }?;
        let memory = memory_of(memory)?;
        let request = match options {
            Some(text) => SearchRequest::from_json(text).map_err(Failure::memory)?,
            None => SearchRequest::default(),
        };
        let running = Running::start(&memory.running);
        let options = SearchOptions {
            stop: memory.stop(&running),
            ..request.options(memory.tuning()).map_err(Failure::memory)?
        };
        let context = memory
            .search(tenant, question, &options)
            .map_err(Failure::memory)?;
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, context.to_json().to_string()) }
    })
}

/// Writes every version of every fact about `subject` (a name or alias in
/// `tenant`'s memory) to `out_json`, oldest first per fact: `[{"slot",
/// "subject", "predicate", "object", "text", "confidence", "valid_from",
/// "valid_to", "known_from", "known_to", "supersedes", "source",
/// "sources"}]`, times in ISO 8601 and `null` for an open end.
///
/// # Safety
/// `tenant` and `subject` are null or NUL-terminated strings; `out_json`
/// points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_history(
    memory: ChronologMemory,
    tenant: *const c_char,
    subject: *const c_char,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_json, "out_json") }?;
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        let subject = unsafe { text_arg(subject, "subject") }?;
        let versions = memory_of(memory)?
            .history(tenant, subject)
            .map_err(Failure::memory)?;
        let json = Json::Array(versions.iter().map(|v| v.to_json()).collect());
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, json.to_string()) }
    })
}

/// Erases `subject` from `tenant`'s memory, with every episode that
/// mentions it, every fact about it and its aliases, from every read and
/// every old snapshot; writes the counts to `out_json` (`{"episodes",
/// "facts", "aliases", "rows"}`).
///
/// # Safety
/// `tenant` and `subject` are null or NUL-terminated strings; `out_json`
/// points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_forget(
    memory: ChronologMemory,
    tenant: *const c_char,
    subject: *const c_char,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_json, "out_json") }?;
        let tenant = unsafe { text_arg(tenant, "tenant") }?;
        let subject = unsafe { text_arg(subject, "subject") }?;
        let report = memory_of(memory)?
            .forget(tenant, subject)
            .map_err(Failure::memory)?;
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, report.to_json().to_string()) }
    })
}

/// Runs a script over the memory's own store (its relations `mem_episode`,
/// `mem_fact`, ... and any the script creates), as `chronolog_execute`
/// runs one over a database: the same JSON, `params_json` and errors. It
/// reads and writes through the memory's engine, so no second engine
/// opens the memory's directory (a directory is a database or a memory,
/// never both at once). Rules and `let`s last for the one call. The
/// `mem_*` relations are the memory's to write: a script that writes them
/// by hand can contradict what consolidation believes.
///
/// # Safety
/// `script` and `params_json` are null or NUL-terminated strings;
/// `out_json` points to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chronolog_memory_execute(
    memory: ChronologMemory,
    script: *const c_char,
    params_json: *const c_char,
    out_json: *mut *mut c_char,
) -> ChronologStatus {
    boundary(|| {
        // SAFETY: the caller's contract, for each pointer.
        unsafe { clear_out(out_json, "out_json") }?;
        let script = unsafe { text_arg(script, "script") }?;
        let params_json = unsafe { optional_text_arg(params_json, "params_json") }?;
        let memory = memory_of(memory)?;
        let mut session = memory.engine().session();
        let out = run_script_json(&mut session, script, params_json, &Limits::default())?;
        // SAFETY: checked by `clear_out`.
        unsafe { give_string(out_json, out) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_of_one_kind_is_invalid_as_the_other() {
        let (mut db, mut memory) = (0, 0);
        // SAFETY: null paths (in RAM) and writable outputs.
        let opened = unsafe {
            (
                crate::chronolog_open(std::ptr::null(), &mut db),
                chronolog_memory_open(std::ptr::null(), &mut memory),
            )
        };
        assert_eq!(opened, (ChronologStatus::Ok, ChronologStatus::Ok));
        assert_ne!(db, memory);
        let mut out: *mut c_char = std::ptr::null_mut();
        // SAFETY: a NUL-terminated script, no parameters, a writable output.
        let status = unsafe {
            crate::chronolog_execute(memory, c"?- 1 = 1.".as_ptr(), std::ptr::null(), &mut out)
        };
        assert_eq!(status, ChronologStatus::InvalidHandle);
        // SAFETY: a writable output.
        let status = unsafe { chronolog_memory_consolidate(db, &mut out) };
        assert_eq!(status, ChronologStatus::InvalidHandle);
        assert_eq!(chronolog_memory_close(db), ChronologStatus::InvalidHandle);
        assert_eq!(
            crate::chronolog_close(memory),
            ChronologStatus::InvalidHandle
        );
        assert_eq!(chronolog_memory_close(memory), ChronologStatus::Ok);
        assert_eq!(crate::chronolog_close(db), ChronologStatus::Ok);
    }

    #[test]
    fn bad_search_options_are_argument_errors() {
        for bad in [
            "[]",
            "{",
            r#"{"as_of": "someday"}"#,
            r#"{"budget": -1}"#,
            r#"{"budget": "many"}"#,
            r#"{"colour": 1}"#,
        ] {
            let failure = SearchRequest::from_json(bad).map_err(Failure::memory).err();
            assert_eq!(
                failure.map(|f| f.status),
                Some(ChronologStatus::InvalidArgument),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_bad_tenant_is_an_argument_error_and_an_engine_bug_stays_internal() {
        let bad = chronolog_memory::Error::BadTenant("a/b".into());
        assert_eq!(
            Failure::memory(bad).status,
            ChronologStatus::InvalidArgument
        );
        let bug = chronolog_memory::Error::Engine(chronolog_engine::Error::Internal("x".into()));
        assert_eq!(Failure::memory(bug).status, ChronologStatus::InternalError);
    }
}
