//! `chronolog.Memory`: the agent memory (write path, consolidation,
//! search) and what its reads return (`Context`, `Item`, `FactVersion`).
//!
//! `Memory` is shared between threads as it is in Rust: each call clones
//! the handle under a short lock and works with the GIL released.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use chronolog_engine::{Embedder, Engine, HashingEmbedder, Limits, Output, Store};
use chronolog_memory::{Lang, Message, Options, SearchRequest};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::time::{from_timestamp, to_timestamp_opt};
use crate::values::{self, Table};
use crate::{closed, engine_error, memory_error};

/// The embedder `name` asks for: `default` (bge-small-en when installed,
/// else all-MiniLM-L6-v2, loaded on first use; else the hashing stand-in,
/// with a `RuntimeWarning` saying how to install a model), an installed
/// model by name (`bge`, `minilm`, `potion`: an error when it is not
/// installed), or `hashing`.
pub(crate) fn embedder(py: Python<'_>, name: &str) -> PyResult<Arc<dyn Embedder>> {
    match name {
        "default" => {
            if let Some(reason) = chronolog_engine::stand_in_reason() {
                let warning = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
                PyErr::warn(py, &warning, &std::ffi::CString::new(reason)?, 1)?;
            }
            Ok(chronolog_engine::default_embedder())
        }
        "hashing" => Ok(Arc::new(HashingEmbedder::new(384))),
        "bge" | "minilm" | "potion" => chronolog_engine::embedder_named(name)
            .map_err(|e| PyValueError::new_err(format!("embedder {name:?}: {e}"))),
        other => Err(PyValueError::new_err(format!(
            "embedder is \"default\", \"bge\", \"minilm\", \"potion\" or \"hashing\", not {other:?}"
        ))),
    }
}

/// An agent memory: every message kept verbatim as an episode,
/// consolidated into facts whose newer values supersede (never delete)
/// older ones, and searched into a small context for a prompt.
#[pyclass(module = "chronolog", frozen)]
pub struct Memory {
    inner: RwLock<Option<Arc<chronolog_memory::Memory>>>,
}

impl Memory {
    fn get(&self) -> PyResult<Arc<chronolog_memory::Memory>> {
        self.inner
            .read()
            .map_err(|_| crate::Error::new_err("the memory was poisoned by a panic"))?
            .clone()
            .ok_or_else(|| closed("memory"))
    }
}

#[pymethods]
impl Memory {
    #[new]
    #[pyo3(signature = (path=None, embedder="default", background=true))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        embedder: &str,
        background: bool,
    ) -> PyResult<Memory> {
        let embedder = self::embedder(py, embedder)?;
        let memory = py.detach(|| -> PyResult<chronolog_memory::Memory> {
            let store = match &path {
                Some(dir) => {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        crate::Error::new_err(format!("cannot create {}: {e}", dir.display()))
                    })?;
                    Store::open(dir).map_err(|e| {
                        crate::Error::new_err(format!(
                            "cannot open the memory at {}: {e}",
                            dir.display()
                        ))
                    })?
                }
                None => Store::in_memory(),
            };
            let options = if background {
                Options::default()
            } else {
                Options::manual()
            };
            chronolog_memory::Memory::with_engine(Engine::with_embedder(store, embedder), options)
                .map_err(|e| memory_error(&e))
        })?;
        Ok(Memory {
            inner: RwLock::new(Some(Arc::new(memory))),
        })
    }

    /// Appends one message to `tenant`'s memory and returns its episode
    /// id. Durable and searchable by words when it returns; no model runs.
    /// `lang` (`en`, `zh`, `de`) names its language when the caller knows
    /// it; default: the tenant's pinned language, else detected.
    #[pyo3(signature = (tenant, role, text, at=None, session=None, lang=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments.
    fn add(
        &self,
        py: Python<'_>,
        tenant: &str,
        role: String,
        text: String,
        at: Option<&Bound<'_, PyAny>>,
        session: Option<String>,
        lang: Option<&str>,
    ) -> PyResult<String> {
        let message = message(
            role,
            text,
            to_timestamp_opt(at)?,
            session,
            parse_lang(lang)?,
        );
        let memory = self.get()?;
        py.detach(|| memory.add(tenant, message))
            .map_err(|e| memory_error(&e))
    }

    /// Appends many messages of `tenant` in one commit, all or nothing.
    /// Each is a dict with `role`, `text` and optionally `at`, `session`
    /// and `lang`, or a `(role, text)` / `(role, text, at)` tuple.
    fn add_many(
        &self,
        py: Python<'_>,
        tenant: &str,
        messages: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<String>> {
        let mut batch = Vec::new();
        for (i, item) in messages.try_iter()?.enumerate() {
            let item = item?;
            // Say which message, keeping the error's type.
            let message = message_from(&item).map_err(|e| {
                let text = format!("message {i}: {}", e.value(py));
                if e.is_instance_of::<crate::Error>(py) {
                    crate::Error::new_err(text)
                } else {
                    PyTypeError::new_err(text)
                }
            })?;
            batch.push(message);
        }
        let memory = self.get()?;
        py.detach(|| memory.add_batch(tenant, &batch))
            .map_err(|e| memory_error(&e))
    }

    /// Pins the language `tenant`'s messages and questions are read in
    /// (`en`, `zh`, `de`; `None` unpins): for a user whose language is
    /// known, since short messages say too little to detect. Pin before
    /// the first message: what is consolidated is not read again.
    fn pin_language(&self, py: Python<'_>, tenant: &str, lang: Option<&str>) -> PyResult<()> {
        let lang = parse_lang(lang)?;
        let memory = self.get()?;
        py.detach(|| memory.pin_language(tenant, lang))
            .map_err(|e| memory_error(&e))
    }

    /// The language `tenant` is pinned to (`en`, `zh`, `de`), or `None`.
    fn pinned_language(&self, py: Python<'_>, tenant: &str) -> PyResult<Option<String>> {
        let memory = self.get()?;
        let lang = py
            .detach(|| memory.pinned_language(tenant))
            .map_err(|e| memory_error(&e))?;
        Ok(lang.map(|l| l.code().to_string()))
    }

    /// Consolidates every episode not consolidated yet into facts, now,
    /// and says what it did.
    fn consolidate(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let memory = self.get()?;
        let report = py
            .detach(|| memory.consolidate_now())
            .map_err(|e| memory_error(&e))?;
        let out = PyDict::new(py);
        out.set_item("episodes", report.episodes)?;
        out.set_item("claims", report.claims)?;
        out.set_item("facts", report.facts)?;
        out.set_item("restated", report.restated)?;
        out.set_item("ended", report.ended)?;
        out.set_item("withdrawn", report.withdrawn)?;
        out.set_item("contested", report.contested)?;
        out.set_item("paraphrased", report.paraphrased)?;
        out.set_item("elaborated", report.elaborated)?;
        out.set_item("dropped", report.dropped)?;
        out.set_item("reinforced", report.reinforced)?;
        Ok(out.unbind())
    }

    /// The smallest context that holds the evidence for `question`, as of
    /// a valid time (default: the one the question names, else now) and
    /// as known at a transaction time, within `budget` tokens (default: the
    /// memory's tuning, 2,000); the first `rerank` candidate messages
    /// reordered by the cross-encoder (default 20; 0: none, fastest); the
    /// question read in `lang` (`en`, `zh`, `de`) rather than detected.
    /// The options are the C ABI's and MCP's (`SearchRequest`).
    #[pyo3(signature = (tenant, question, as_of=None, known_at=None, budget=None, rerank=None, lang=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments.
    fn search(
        &self,
        py: Python<'_>,
        tenant: &str,
        question: &str,
        as_of: Option<&Bound<'_, PyAny>>,
        known_at: Option<&Bound<'_, PyAny>>,
        budget: Option<u64>,
        rerank: Option<u64>,
        lang: Option<String>,
    ) -> PyResult<Context> {
        let memory = self.get()?;
        let request = SearchRequest {
            as_of: to_timestamp_opt(as_of)?,
            known_at: to_timestamp_opt(known_at)?,
            budget,
            rerank,
            lang,
        };
        let options = request
            .options(memory.tuning())
            .map_err(|e| memory_error(&e))?;
        let context = py
            .detach(|| memory.search(tenant, question, &options))
            .map_err(|e| memory_error(&e))?;
        Context::from_rust(py, &context)
    }

    /// One retrieval assembled at each of `budgets`: the contexts that
    /// separate `search` calls at those budgets would return, for the price
    /// of one search (pick the size after seeing what fits).
    #[pyo3(signature = (tenant, question, budgets, as_of=None, known_at=None))]
    fn search_at_budgets(
        &self,
        py: Python<'_>,
        tenant: &str,
        question: &str,
        budgets: Vec<usize>,
        as_of: Option<&Bound<'_, PyAny>>,
        known_at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Context>> {
        let memory = self.get()?;
        let request = SearchRequest {
            as_of: to_timestamp_opt(as_of)?,
            known_at: to_timestamp_opt(known_at)?,
            ..SearchRequest::default()
        };
        let options = request
            .options(memory.tuning())
            .map_err(|e| memory_error(&e))?;
        let contexts = py
            .detach(|| memory.search_at_budgets(tenant, question, &options, &budgets))
            .map_err(|e| memory_error(&e))?;
        contexts.iter().map(|c| Context::from_rust(py, c)).collect()
    }

    /// Every version of every fact about `subject` (any name it goes by),
    /// oldest first per fact, superseded and retracted ones included.
    fn history(&self, py: Python<'_>, tenant: &str, subject: &str) -> PyResult<Vec<FactVersion>> {
        let memory = self.get()?;
        let versions = py
            .detach(|| memory.history(tenant, subject))
            .map_err(|e| memory_error(&e))?;
        versions
            .iter()
            .map(|v| FactVersion::from_rust(py, v))
            .collect()
    }

    /// The facts of `tenant` valid at `as_of` (default now), as known at
    /// `known_at` (default now).
    #[pyo3(signature = (tenant, as_of=None, known_at=None))]
    fn facts(
        &self,
        py: Python<'_>,
        tenant: &str,
        as_of: Option<&Bound<'_, PyAny>>,
        known_at: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<FactVersion>> {
        let (as_of, known_at) = (to_timestamp_opt(as_of)?, to_timestamp_opt(known_at)?);
        let memory = self.get()?;
        let versions = py
            .detach(|| memory.facts(tenant, as_of, known_at))
            .map_err(|e| memory_error(&e))?;
        versions
            .iter()
            .map(|v| FactVersion::from_rust(py, v))
            .collect()
    }

    /// Erases `subject` with every message that names it, every fact about
    /// it and its aliases, from every read, every old snapshot and the
    /// bytes on disk (see `docs/memory.md`, "Forgetting").
    fn forget(&self, py: Python<'_>, tenant: &str, subject: &str) -> PyResult<Py<PyDict>> {
        let memory = self.get()?;
        let report = py
            .detach(|| memory.forget(tenant, subject))
            .map_err(|e| memory_error(&e))?;
        let out = PyDict::new(py);
        out.set_item("episodes", report.episodes)?;
        out.set_item("facts", report.facts)?;
        out.set_item("rewritten", report.rewritten)?;
        out.set_item("aliases", report.aliases)?;
        out.set_item("rows", report.rows)?;
        out.set_item("forms", report.forms)?;
        Ok(out.unbind())
    }

    /// Runs a Datalog script over the memory's relations (`mem_episode`,
    /// `mem_fact`, ...) in a fresh session and returns the rows of its
    /// last query.
    #[pyo3(signature = (script, params=None))]
    fn query(
        &self,
        py: Python<'_>,
        script: &str,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let params = values::params_json(params)?;
        let memory = self.get()?;
        type Ran = Result<Table, (chronolog_engine::Error, usize)>;
        let ran = py.detach(|| -> PyResult<Ran> {
            let mut session = memory.engine().session();
            let params = values::read_params(&mut session, params.as_deref())
                .map_err(|e| engine_error(&e, script))?;
            let ran = session.run_script(script, &params, &Limits::default());
            Ok(match ran.error {
                Some(e) => Err((e, ran.outputs.len())),
                None => Ok(ran
                    .outputs
                    .iter()
                    .rev()
                    .find_map(|o| match o {
                        Output::Rows(rows) => Some(Table::of(&session, rows)),
                        _ => None,
                    })
                    .unwrap_or(Table {
                        columns: Vec::new(),
                        rows: Vec::new(),
                    })),
            })
        })?;
        let table = ran.map_err(|(e, done)| crate::script_error(py, &e, script, done))?;
        table.to_python(py)
    }

    /// The embedder in use (`bge-small-en`, `all-MiniLM-L6-v2`, or the
    /// hashing stand-in).
    #[getter]
    fn embedder_name(&self) -> PyResult<String> {
        Ok(self.get()?.engine().embedder_name())
    }

    /// Stops the consolidation worker (after its current pass) and
    /// releases the store's files. Calls after it raise.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = self.inner.write().ok().and_then(|mut m| m.take());
        // The worker is joined when the last handle goes: without the GIL,
        // since a Python thread may be waiting on it.
        py.detach(move || drop(taken));
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// A language code from Python: `chronolog.Error` for one not served,
/// as for any bad field of a message or search.
fn parse_lang(code: Option<&str>) -> PyResult<Option<Lang>> {
    code.map(|c| c.parse::<Lang>())
        .transpose()
        .map_err(|e| crate::Error::new_err(format!("lang: {e}")))
}

fn message(
    role: String,
    text: String,
    at: Option<chronolog_engine::Timestamp>,
    session: Option<String>,
    lang: Option<Lang>,
) -> Message {
    let mut message = Message::new(role, text);
    message.lang = lang;
    if let Some(at) = at {
        message = message.at(at);
    }
    if let Some(session) = session {
        message = message.session(session);
    }
    message
}

/// One message of `add_many`: a dict or a tuple.
fn message_from(item: &Bound<'_, PyAny>) -> PyResult<Message> {
    if let Ok(dict) = item.cast::<PyDict>() {
        let field = |name: &str| dict.get_item(name);
        let role: String = field("role")?
            .ok_or_else(|| PyTypeError::new_err("no \"role\""))?
            .extract()?;
        let text: String = field("text")?
            .ok_or_else(|| PyTypeError::new_err("no \"text\""))?
            .extract()?;
        let at = to_timestamp_opt(field("at")?.as_ref())?;
        let session: Option<String> = match field("session")? {
            Some(s) if !s.is_none() => Some(s.extract()?),
            _ => None,
        };
        let lang: Option<String> = match field("lang")? {
            Some(s) if !s.is_none() => Some(s.extract()?),
            _ => None,
        };
        let lang = parse_lang(lang.as_deref())?;
        return Ok(message(role, text, at, session, lang));
    }
    let tuple = item
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("a message is a dict or a (role, text[, at]) tuple"))?;
    let role: String = tuple.get_item(0)?.extract()?;
    let text: String = tuple.get_item(1)?.extract()?;
    let at = match tuple.len() {
        2 => None,
        3 => to_timestamp_opt(Some(&tuple.get_item(2)?))?,
        n => {
            return Err(PyTypeError::new_err(format!(
                "a message tuple has 2 or 3 items, not {n}"
            )));
        }
    };
    Ok(message(role, text, at, None, None))
}

/// What a search returns: a small context for a prompt, or an abstention.
#[pyclass(module = "chronolog", frozen, get_all)]
pub struct Context {
    /// The memory holds too little to answer; `reason` says why.
    abstain: bool,
    /// Why it abstained.
    reason: Option<String>,
    /// Tokens `text` takes (cl100k_base).
    tokens: usize,
    /// The budget asked for.
    budget: usize,
    /// The valid time the context answers at.
    as_of: Py<PyAny>,
    /// Why that time (a time the question named), if not now.
    as_of_because: Option<String>,
    /// The evidence, in reading order: facts first, then messages.
    items: Vec<Py<Item>>,
    /// The context as text, to paste into a prompt.
    text: String,
    json: String,
}

impl Context {
    fn from_rust(py: Python<'_>, context: &chronolog_memory::Context) -> PyResult<Context> {
        Ok(Context {
            abstain: context.abstain,
            reason: context.reason.clone(),
            tokens: context.tokens,
            budget: context.budget,
            as_of: from_timestamp(py, context.as_of)?,
            as_of_because: context.as_of_because.clone(),
            items: context
                .items
                .iter()
                .map(|i| Py::new(py, Item::from_rust(py, i)?))
                .collect::<PyResult<_>>()?,
            text: context.to_text(),
            json: context.to_json().to_string(),
        })
    }
}

#[pymethods]
impl Context {
    /// The context as a dict (the JSON form the MCP server and the C ABI
    /// return).
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py
            .import("json")?
            .call_method1("loads", (&self.json,))?
            .unbind())
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Context(abstain={}, items={}, tokens={})",
            if self.abstain { "True" } else { "False" },
            self.items.len(),
            self.tokens
        )
    }
}

/// One piece of evidence in a context.
#[pyclass(module = "chronolog", frozen, get_all)]
pub struct Item {
    /// `"fact"` or `"episode"`.
    kind: String,
    /// The fact's slot or the episode's id.
    id: String,
    /// The item as the prompt shows it.
    text: String,
    /// What the memory was told: the message, or the sentence a fact was
    /// read from.
    said: String,
    /// Who said it.
    speaker: Option<String>,
    /// When it was said.
    at: Py<PyAny>,
    /// When a fact began to hold (None: always, or not a fact).
    valid_from: Py<PyAny>,
    /// When a fact stopped holding (None: it still does, or not a fact).
    valid_to: Py<PyAny>,
    /// The value a fact replaced.
    supersedes: Option<String>,
    /// The episodes it came from.
    sources: Vec<String>,
    /// Its fused score.
    score: f64,
    /// Its tokens as rendered.
    tokens: usize,
}

impl Item {
    fn from_rust(py: Python<'_>, item: &chronolog_memory::Item) -> PyResult<Item> {
        let time = |t: Option<chronolog_engine::Timestamp>| match t {
            Some(t) => from_timestamp(py, t),
            None => Ok(py.None()),
        };
        Ok(Item {
            kind: match item.kind {
                chronolog_memory::ItemKind::Fact => "fact",
                chronolog_memory::ItemKind::Episode => "episode",
            }
            .to_string(),
            id: item.id.clone(),
            text: item.text.trim_end().to_string(),
            said: item.said.clone(),
            speaker: item.speaker.clone(),
            at: time(item.at)?,
            valid_from: time(item.valid.map(|v| v.from))?,
            valid_to: time(item.valid.map(|v| v.to))?,
            supersedes: item.supersedes.clone(),
            sources: item.sources.clone(),
            score: item.score,
            tokens: item.tokens,
        })
    }
}

#[pymethods]
impl Item {
    fn __repr__(&self) -> String {
        format!("Item({}, {:?}, {:?})", self.kind, self.id, self.text)
    }
}

/// One version of a fact: what it said, when it held, when the memory
/// believed it, what it replaced and where it came from.
#[pyclass(module = "chronolog", frozen, get_all)]
pub struct FactVersion {
    /// The slot; a slot's versions form its supersedes chain.
    slot: String,
    /// The subject's entity id (`tenant/name`).
    subject: String,
    /// The predicate (`works_at`, ...).
    predicate: String,
    /// The object as said.
    object: String,
    /// The sentence it was read from.
    text: String,
    /// How sure the extractor was.
    confidence: f64,
    /// When it began to hold (None: always).
    valid_from: Py<PyAny>,
    /// When it stopped holding (None: it still does).
    valid_to: Py<PyAny>,
    /// When the memory came to believe it.
    known_from: Py<PyAny>,
    /// When the memory stopped believing it (None: it still does).
    known_to: Py<PyAny>,
    /// The object of the version it replaced.
    supersedes: Option<String>,
    /// The value it says more about, kept beside it.
    elaborates: Option<String>,
    /// The episode it was read from.
    source: Option<String>,
    /// Every episode that stated it.
    sources: Vec<String>,
}

impl FactVersion {
    fn from_rust(py: Python<'_>, v: &chronolog_memory::FactVersion) -> PyResult<FactVersion> {
        Ok(FactVersion {
            slot: v.slot.clone(),
            subject: v.subject.clone(),
            predicate: v.predicate.clone(),
            object: v.object.clone(),
            text: v.text.clone(),
            confidence: v.confidence,
            valid_from: from_timestamp(py, v.valid.from)?,
            valid_to: from_timestamp(py, v.valid.to)?,
            known_from: from_timestamp(py, v.known.from)?,
            known_to: from_timestamp(py, v.known.to)?,
            supersedes: v.supersedes.clone(),
            elaborates: v.elaborates.clone(),
            source: v.source.clone(),
            sources: v.sources.clone(),
        })
    }
}

#[pymethods]
impl FactVersion {
    fn __repr__(&self) -> String {
        format!(
            "FactVersion({} {} {:?})",
            self.subject, self.predicate, self.object
        )
    }
}
