//! [`Memory`]: one store's agent memory. `add` is System 1 (append the
//! episode, wake the worker, return); the worker and `consolidate_now` are
//! System 2 (claims, entities, conflicts, salience).

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use chronolog_engine::{Engine, Interval, RelationId, Session, Timestamp, Value};
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;

use crate::consolidate::extract::{Extractor, RuleExtractor};
use crate::consolidate::{Adjudicator, Consolidator, KeepBoth, Report};
use crate::error::{Error, Result};
use crate::recall::{self, Context, ItemKind, SearchOptions};
use crate::schema;
use crate::view::{self, FactVersion, ForgetReport};

/// One message to remember.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Who said it: `user`, `assistant`, or a name.
    pub role: String,
    /// What was said, kept exactly.
    pub text: String,
    /// When it was said (its event time); now when `None`.
    pub at: Option<Timestamp>,
    /// The conversation it belongs to; `default` when `None`.
    pub session: Option<String>,
}

impl Message {
    /// `role` said `text`, now, in the default session.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Message {
        Message {
            role: role.into(),
            text: text.into(),
            at: None,
            session: None,
        }
    }

    /// Said at `at` rather than now.
    pub fn at(mut self, at: Timestamp) -> Message {
        self.at = Some(at);
        self
    }

    /// In conversation `session`.
    pub fn session(mut self, session: impl Into<String>) -> Message {
        self.session = Some(session.into());
        self
    }
}

/// How a [`Memory`] consolidates.
pub struct Options {
    /// Run a background worker that consolidates soon after each `add`
    /// (`false`: only [`Memory::consolidate_now`] does, for tests and
    /// batch jobs that want each step to be deterministic).
    pub background: bool,
    /// Turns messages into claims.
    pub extractor: Box<dyn Extractor>,
    /// Decides what the rules cannot.
    pub adjudicator: Box<dyn Adjudicator>,
    /// Salience halves in this many days without reinforcement.
    pub half_life_days: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            background: true,
            extractor: Box::new(RuleExtractor),
            adjudicator: Box::new(KeepBoth),
            half_life_days: 30.0,
        }
    }
}

impl Options {
    /// The defaults, without the background worker.
    pub fn manual() -> Options {
        Options {
            background: false,
            ..Options::default()
        }
    }
}

/// An agent memory over one store. Share it between threads behind an
/// `Arc`: `add` from any of them never waits for consolidation.
pub struct Memory {
    shared: Arc<Shared>,
    worker: Option<(Sender<u64>, JoinHandle<()>)>,
}

struct Shared {
    engine: Engine,
    writer: Mutex<Writer>,
    /// Fact slots searches returned, to reinforce: (tenant, slot, when).
    retrieved: Mutex<Vec<(String, String, Timestamp)>>,
    /// Questions' embeddings.
    vectors: recall::VectorCache,
    /// Salience's half-life, for the read side's salience channel.
    half_life_days: f64,
    consolidator: Mutex<Consolidator>,
    episode: RelationId,
}

/// The append path's state: a session and the next episode number.
struct Writer {
    session: Session,
    next_seq: u64,
}

impl Memory {
    /// Opens (or creates) the memory stored at `path`, with a background
    /// consolidation worker.
    pub fn open(path: impl AsRef<Path>) -> Result<Memory> {
        Memory::with_engine(Engine::open(path)?, Options::default())
    }

    /// A memory that lives in RAM only, with a background worker.
    pub fn in_memory() -> Result<Memory> {
        Memory::with_engine(Engine::in_memory(), Options::default())
    }

    /// A memory over `engine` (whose embedder embeds episodes and facts).
    pub fn with_engine(engine: Engine, options: Options) -> Result<Memory> {
        let mut session = engine.session();
        let created = schema::ensure(&mut session)?;
        let episode = session
            .store()
            .relation_id(schema::EPISODE)
            .map_err(chronolog_engine::Error::from)?;
        let next_seq = view::last_seq(&session)? + 1;
        let mut consolidator = Consolidator::new(
            engine.session(),
            options.extractor,
            options.adjudicator,
            options.half_life_days,
        )?;
        // A store from before passages: its consolidated episodes get theirs.
        if created.contains(&schema::PASSAGE) && next_seq > 1 {
            consolidator.backfill_passages()?;
        }
        let shared = Arc::new(Shared {
            engine,
            writer: Mutex::new(Writer { session, next_seq }),
            retrieved: Mutex::new(Vec::new()),
            vectors: Mutex::new(std::collections::HashMap::new()),
            half_life_days: options.half_life_days,
            consolidator: Mutex::new(consolidator),
            episode,
        });
        let worker = if options.background {
            let (tx, rx) = crossbeam_channel::unbounded();
            let for_worker = shared.clone();
            let handle = std::thread::Builder::new()
                .name("chronolog-consolidate".into())
                .spawn(move || work(&for_worker, &rx))
                .map_err(|e| Error::Worker(e.to_string()))?;
            Some((tx, handle))
        } else {
            None
        };
        Ok(Memory { shared, worker })
    }

    /// The engine underneath: Datalog over the memory's relations, and
    /// sessions for other work on the same store.
    pub fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    /// Appends one message of `tenant` and returns its episode id. No model
    /// runs and nothing waits for consolidation; the episode is durable (as
    /// the store's durability says) and searchable by words and by queries
    /// when this returns.
    pub fn add(&self, tenant: &str, message: Message) -> Result<String> {
        let mut ids = self.add_batch(tenant, std::slice::from_ref(&message))?;
        ids.pop()
            .ok_or_else(|| Error::Worker("no id came back".into()))
    }

    /// Appends a whole conversation in one transaction: all of it or, on
    /// any bad message, none of it.
    pub fn add_batch(&self, tenant: &str, messages: &[Message]) -> Result<Vec<String>> {
        check_tenant(tenant)?;
        for m in messages {
            if m.role.trim().is_empty() {
                return Err(Error::NoRole);
            }
            if let Some(s) = &m.session
                && (s.trim().is_empty() || s.len() > 256)
            {
                return Err(Error::BadSession(s.clone()));
            }
        }
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        let now = Timestamp::now();
        let rel = self.shared.episode;
        let mut writer = self.shared.writer.lock();
        let first = writer.next_seq;
        let ids: Vec<String> = (0..messages.len() as u64)
            .map(|i| episode_id(tenant, first + i))
            .collect();
        writer.session.write(|txn| {
            let tenant_sym = txn.symbol(tenant)?;
            for (i, (m, id)) in messages.iter().zip(&ids).enumerate() {
                let at = m.at.unwrap_or(now);
                let values = vec![
                    Value::Sym(txn.symbol(id)?),
                    Value::Sym(tenant_sym),
                    Value::Sym(txn.symbol(m.session.as_deref().unwrap_or("default"))?),
                    Value::Sym(txn.symbol(m.role.trim())?),
                    Value::Int((first + i as u64) as i64),
                    Value::Time(at),
                    Value::str(&m.text),
                ];
                txn.assert(rel, values, Interval::starting(at), None)?;
            }
            Ok(())
        })?;
        writer.next_seq += messages.len() as u64;
        let last = writer.next_seq - 1;
        drop(writer);
        if let Some((tx, _)) = &self.worker {
            // A worker that has stopped is seen by `consolidate_now`; `add`
            // itself has done its job.
            let _ = tx.send(last);
        }
        Ok(ids)
    }

    /// Consolidates every episode not consolidated yet, and waits until
    /// the text and vector indexes cover what it wrote. Running it again
    /// with nothing new does nothing.
    pub fn consolidate_now(&self) -> Result<Report> {
        let retrieved = std::mem::take(&mut *self.shared.retrieved.lock());
        let report = self.shared.consolidator.lock().run(retrieved)?;
        Ok(report)
    }

    /// Every version of every fact about `subject` (a name or alias in
    /// `tenant`'s memory), on both time axes, with what each replaced and
    /// the episodes it came from. A faded or superseded fact is still here.
    pub fn history(&self, tenant: &str, subject: &str) -> Result<Vec<FactVersion>> {
        check_tenant(tenant)?;
        view::history(&self.shared.engine, tenant, subject)
    }

    /// The facts of `tenant` valid at `as_of` as known at `known_at`
    /// (either `None`: now).
    pub fn facts(
        &self,
        tenant: &str,
        as_of: Option<Timestamp>,
        known_at: Option<Timestamp>,
    ) -> Result<Vec<FactVersion>> {
        check_tenant(tenant)?;
        view::facts(&self.shared.engine, tenant, as_of, known_at)
    }

    /// The smallest context that holds the evidence for `question` in
    /// `tenant`'s memory, or an abstention with its reason. What it returns
    /// is reinforced (salience) by the next consolidation pass, off this
    /// path. Reads only `tenant`'s rows, on every channel.
    pub fn search(&self, tenant: &str, question: &str, options: &SearchOptions) -> Result<Context> {
        let mut retrieval = self.retrieve(tenant, question, options)?;
        let context = retrieval.context_at(options.budget)?;
        self.reinforce_later(tenant, std::slice::from_ref(&context), options);
        Ok(context)
    }

    /// One search assembled at several token budgets: the contexts that
    /// separate [`Memory::search`] calls at each budget would return, for
    /// the price of one retrieval. For a caller that chooses the context's
    /// size after seeing what fits, and for the evaluation, which scores
    /// coverage against budget. `options.budget` is ignored.
    pub fn search_at_budgets(
        &self,
        tenant: &str,
        question: &str,
        options: &SearchOptions,
        budgets: &[usize],
    ) -> Result<Vec<Context>> {
        let mut retrieval = self.retrieve(tenant, question, options)?;
        let contexts = budgets
            .iter()
            .map(|&budget| retrieval.context_at(budget))
            .collect::<Result<Vec<_>>>()?;
        self.reinforce_later(tenant, &contexts, options);
        Ok(contexts)
    }

    fn retrieve(
        &self,
        tenant: &str,
        question: &str,
        options: &SearchOptions,
    ) -> Result<recall::Retrieval<'_>> {
        check_tenant(tenant)?;
        let options = &SearchOptions {
            half_life_days: self.shared.half_life_days,
            ..options.clone()
        };
        recall::retrieve(
            &self.shared.engine,
            &self.shared.vectors,
            tenant,
            question,
            options,
        )
    }

    /// Queues the facts the contexts returned for reinforcement by the
    /// next consolidation pass (salience), off the search's path.
    fn reinforce_later(&self, tenant: &str, contexts: &[Context], options: &SearchOptions) {
        let mut slots: Vec<String> = contexts
            .iter()
            .flat_map(|c| &c.items)
            .filter(|i| i.kind == ItemKind::Fact)
            .map(|i| i.id.clone())
            .collect();
        slots.sort();
        slots.dedup();
        if !slots.is_empty() {
            let at = options.now.unwrap_or_else(Timestamp::now);
            self.shared
                .retrieved
                .lock()
                .extend(slots.into_iter().map(|s| (tenant.to_string(), s, at)));
            if let Some((tx, _)) = &self.worker {
                let _ = tx.send(0);
            }
        }
    }

    /// How [`Memory::search`] would answer `question`, step by step: the
    /// question as understood, each channel's first candidates, the
    /// fusion, the verdict. Reinforces nothing.
    pub fn explain_search(
        &self,
        tenant: &str,
        question: &str,
        options: &SearchOptions,
    ) -> Result<String> {
        check_tenant(tenant)?;
        recall::explain(
            &self.shared.engine,
            &self.shared.vectors,
            tenant,
            question,
            options,
        )
    }

    /// Every fact of `tenant` believed now, over all of valid time: what
    /// holds, what held before it, and what happened when.
    pub fn timeline(&self, tenant: &str) -> Result<Vec<FactVersion>> {
        check_tenant(tenant)?;
        view::timeline(&self.shared.engine, tenant)
    }

    /// The right to be forgotten: erases `subject` (a name or alias in
    /// `tenant`'s memory) with every episode that mentions it, every fact
    /// about it, its aliases, and their index entries and embeddings, from
    /// every read and every old snapshot. Each erased name is logged in the
    /// store's purge audit (without the name). Other tenants are untouched.
    pub fn forget(&self, tenant: &str, subject: &str) -> Result<ForgetReport> {
        check_tenant(tenant)?;
        // No consolidation may write about the subject while it goes.
        let mut consolidator = self.shared.consolidator.lock();
        let report = view::forget(&self.shared.engine, tenant, subject)?;
        consolidator.reload_entities()?;
        Ok(report)
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        if let Some((tx, handle)) = self.worker.take() {
            drop(tx);
            let _ = handle.join();
        }
    }
}

/// The background worker: consolidate whenever episodes arrive, taking
/// everything queued at once; stop when the memory is dropped.
fn work(shared: &Shared, rx: &Receiver<u64>) {
    while rx.recv().is_ok() {
        while rx.try_recv().is_ok() {}
        // An error here (a full disk, say) leaves the cursor where it was:
        // the next wake-up, or `consolidate_now`, retries the same episodes.
        let retrieved = std::mem::take(&mut *shared.retrieved.lock());
        let _ = shared.consolidator.lock().run(retrieved);
    }
}

/// An episode's id: its tenant and its number, so that it names its
/// tenant wherever it appears.
fn episode_id(tenant: &str, seq: u64) -> String {
    format!("{tenant}/e{seq}")
}

/// Tenants are hard boundaries, so their names are kept simple enough
/// that no tenant's ids can look like another's.
pub(crate) fn check_tenant(tenant: &str) -> Result<()> {
    let ok = !tenant.is_empty()
        && tenant.len() <= 128
        && tenant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'));
    if ok {
        Ok(())
    } else {
        Err(Error::BadTenant(tenant.to_string()))
    }
}
