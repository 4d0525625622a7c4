//! [`Memory`]: one store's agent memory. `add` is System 1 (append the
//! episode, wake the worker, return); the worker and `consolidate_now` are
//! System 2 (claims, entities, conflicts, salience).

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use chronolog_engine::{Engine, Interval, RelationId, Session, Timestamp};
use crossbeam_channel::Sender;
use parking_lot::Mutex;

use crate::consolidate::{Consolidator, Report};
use crate::error::{Error, Result};
use crate::forget::{self, ForgetReport};
use crate::ids;
use crate::lang::Lang;
use crate::options::Options;
use crate::recall::{self, Context, ItemKind, SearchOptions};
use crate::schema;
use crate::tenant_lang::TenantLanguages;
use crate::tuning::Tuning;
use crate::view::{self, FactVersion};
use crate::worker::{self, Status, WorkerFailure};

mod write;

/// An agent memory over one store. Share it between threads behind an
/// `Arc`: `add` from any of them never waits for consolidation.
pub struct Memory {
    shared: Arc<Shared>,
    worker: Option<(Sender<u64>, JoinHandle<()>)>,
}

struct Shared {
    engine: Engine,
    writer: Mutex<Writer>,
    /// The number of the next reinforcement a search queues
    /// (`mem_retrieved`): unique in this process, and after any earlier
    /// one's, since it starts at the clock.
    next_retrieved: std::sync::atomic::AtomicU64,
    /// What searches keep between them: questions' embeddings, planned
    /// queries, reader sessions.
    caches: recall::Caches,
    /// Each tenant's language, the consolidator's to update.
    languages: Arc<TenantLanguages>,
    /// The read side's tuning (the consolidator holds its own copy).
    tuning: Tuning,
    reranker: Option<Arc<dyn chronolog_engine::Reranker>>,
    consolidator: Mutex<Consolidator>,
    /// The worker's last failure, until a pass succeeds.
    failure: Mutex<Option<WorkerFailure>>,
    episode: RelationId,
    retrieved: RelationId,
    said_in: RelationId,
    language_pin: RelationId,
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
        let relations = schema::Relations::of(session.store())?;
        let next_seq = view::last_seq(&session)? + 1;
        let languages = Arc::new(TenantLanguages::load(session.store(), &relations)?);
        let mut consolidator = Consolidator::new(
            engine.session(),
            options.extractor,
            options.adjudicator,
            options.tuning.clone(),
            languages.clone(),
        )?;
        // A store from before passages: its consolidated episodes get theirs.
        if created.contains(&schema::Passage::RELATION) && next_seq > 1 {
            consolidator.backfill_passages()?;
        }
        // And one from before sentences, theirs.
        if created.contains(&schema::Sentence::RELATION) && next_seq > 1 {
            consolidator.backfill_sentences()?;
        }
        let shared = Arc::new(Shared {
            engine,
            writer: Mutex::new(Writer { session, next_seq }),
            next_retrieved: std::sync::atomic::AtomicU64::new(
                u64::try_from(Timestamp::now().micros()).unwrap_or(0),
            ),
            caches: recall::Caches::default(),
            languages,
            tuning: options.tuning,
            reranker: options.reranker,
            consolidator: Mutex::new(consolidator),
            failure: Mutex::new(None),
            episode: relations.episode,
            retrieved: relations.retrieved,
            said_in: relations.said_in,
            language_pin: relations.language_pin,
        });
        let worker = if options.background {
            let (tx, rx) = crossbeam_channel::unbounded();
            let for_worker = shared.clone();
            let handle = std::thread::Builder::new()
                .name("chronolog-consolidate".into())
                .spawn(move || {
                    worker::work(
                        &rx,
                        || for_worker.consolidator.lock().run(&crate::Stop::default()),
                        &for_worker.failure,
                    )
                })
                .map_err(|e| Error::Worker(e.to_string()))?;
            Some((tx, handle))
        } else {
            None
        };
        Ok(Memory { shared, worker })
    }

    /// The memory's tuning: the defaults a search takes
    /// ([`SearchOptions::with_tuning`]) and every weight it runs with.
    pub fn tuning(&self) -> &Tuning {
        &self.shared.tuning
    }

    /// The engine underneath: Datalog over the memory's relations, and
    /// sessions for other work on the same store.
    pub fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    /// Consolidates every episode not consolidated yet, and waits until
    /// the text and vector indexes cover what it wrote. Running it again
    /// with nothing new does nothing.
    pub fn consolidate_now(&self) -> Result<Report> {
        self.consolidate_until(&crate::Stop::default())
    }

    /// [`Memory::consolidate_now`] that gives up when `stop` says so,
    /// between messages: what it finished stays consolidated and the
    /// next pass goes on from there. It waits for a pass already running
    /// (the worker's) before it starts.
    pub fn consolidate_until(&self, stop: &crate::Stop) -> Result<Report> {
        let result = self.shared.consolidator.lock().run(stop);
        if result.is_ok() {
            *self.shared.failure.lock() = None;
        }
        let report = result?;
        Ok(report)
    }

    /// Where consolidation stands: episodes stored, episodes consolidated,
    /// and the background worker's failure if its last pass failed (it
    /// retries by itself; [`Memory::consolidate_now`] retries at once and
    /// returns the error).
    pub fn status(&self) -> Result<Status> {
        let last_episode = self.shared.writer.lock().next_seq - 1;
        // Read from the store, not the consolidator, which a pass holds.
        let store = self.shared.engine.store();
        let consolidated = crate::consolidate::consolidated(store, &schema::Relations::of(store)?)?;
        Ok(Status {
            last_episode,
            consolidated,
            failure: self.shared.failure.lock().clone(),
        })
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
        self.reinforce_later(tenant, std::slice::from_ref(&context), options)?;
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
        self.reinforce_later(tenant, &contexts, options)?;
        Ok(contexts)
    }

    fn retrieve(
        &self,
        tenant: &str,
        question: &str,
        options: &SearchOptions,
    ) -> Result<recall::Retrieval<'_>> {
        check_tenant(tenant)?;
        let lang = self.question_lang(tenant, question, options);
        self.enter_multilingual_for(tenant, lang)?;
        recall::retrieve(self.reader(), tenant, question, lang, options)
    }

    /// Brings `tenant`'s passages into the multilingual space when a
    /// question in `lang` needs it there and they are not yet: the first
    /// question in another language to an English memory waits for its
    /// passages to be embedded once; a tenant never asked so never pays.
    fn enter_multilingual_for(&self, tenant: &str, lang: Lang) -> Result<()> {
        let languages = &self.shared.languages;
        if !languages.spaces(tenant, lang)?.multilingual
            || languages.is_multilingual(tenant)
            || !self.has_tenant(tenant)?
        {
            return Ok(());
        }
        let copied = self.shared.consolidator.lock().enter_multilingual(tenant)?;
        if copied > 0 {
            self.shared.caches.readers.wrote();
            self.shared.engine.sync_indexes()?;
        }
        Ok(())
    }

    /// What this memory's searches read with.
    fn reader(&self) -> recall::Reader<'_> {
        recall::Reader {
            engine: &self.shared.engine,
            caches: &self.shared.caches,
            tuning: &self.shared.tuning,
            reranker: self.shared.reranker.as_deref(),
            languages: &self.shared.languages,
        }
    }

    /// The language a question to `tenant` is read in: named by
    /// `options`, else the tenant's pinned language, else detected.
    fn question_lang(&self, tenant: &str, question: &str, options: &SearchOptions) -> Lang {
        self.shared
            .languages
            .question_lang(tenant, options.lang, question)
    }

    /// Queues the facts the contexts returned for reinforcement by the
    /// next consolidation pass (salience), off the search's path: a
    /// buffered commit of `mem_retrieved` rows, made durable by the next
    /// synced commit, so a search from a process that ends at once (the
    /// command line's `recall`) still counts.
    fn reinforce_later(
        &self,
        tenant: &str,
        contexts: &[Context],
        options: &SearchOptions,
    ) -> Result<()> {
        let mut slots: Vec<String> = contexts
            .iter()
            .flat_map(|c| &c.items)
            .filter(|i| i.kind == ItemKind::Fact)
            .map(|i| i.id.clone())
            .collect();
        slots.sort();
        slots.dedup();
        if slots.is_empty() {
            return Ok(());
        }
        let at = options.now.unwrap_or_else(Timestamp::now);
        let rel = self.shared.retrieved;
        let first = self
            .shared
            .next_retrieved
            .fetch_add(slots.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.shared.writer.lock().session.write(|txn| {
            txn.buffered();
            for (n, slot) in (first..).zip(&slots) {
                let row = schema::Retrieved {
                    id: ids::retrieved(tenant, n),
                    tenant: tenant.to_string(),
                    slot: slot.clone(),
                    at,
                };
                let values = row.to_values(txn)?;
                txn.assert(rel, values, Interval::ALWAYS, None)?;
            }
            Ok(())
        })?;
        if let Some((tx, _)) = &self.worker {
            let _ = tx.send(0);
        }
        Ok(())
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
        let lang = self.question_lang(tenant, question, options);
        self.enter_multilingual_for(tenant, lang)?;
        recall::explain(self.reader(), tenant, question, lang, options)
    }

    /// Every fact of `tenant` believed now, over all of valid time: what
    /// holds, what held before it, and what happened when.
    pub fn timeline(&self, tenant: &str) -> Result<Vec<FactVersion>> {
        check_tenant(tenant)?;
        view::timeline(&self.shared.engine, tenant, None)
    }

    /// Whether `tenant` has ever stored a message here (a forgotten
    /// message still counts until the forget erased it): a server tells
    /// an unknown tenant from an empty answer with it.
    pub fn has_tenant(&self, tenant: &str) -> Result<bool> {
        check_tenant(tenant)?;
        let store = self.shared.engine.store();
        let Some(symbol) = store.symbol(tenant) else {
            return Ok(false);
        };
        let rows = store
            .snapshot()
            .scan(self.shared.episode)
            .history()
            .eq(
                schema::Episode::TENANT,
                chronolog_engine::Value::Sym(symbol),
            )
            .bitmap()
            .map_err(chronolog_engine::Error::from)?;
        Ok(!rows.is_empty())
    }

    /// The right to be forgotten: erases `subject` (a name or alias in
    /// `tenant`'s memory) with every episode that mentions it, every fact
    /// about it, its aliases, and their index entries and embeddings, from
    /// every read and every old snapshot. Each erased name is logged in the
    /// store's purge audit (without the name). Other tenants are untouched.
    pub fn forget(&self, tenant: &str, subject: &str) -> Result<ForgetReport> {
        check_tenant(tenant)?;
        // No consolidation may write about the subject while it goes, and
        // what is not consolidated yet is first: its mentions of the
        // subject are what find its messages.
        let mut consolidator = self.shared.consolidator.lock();
        consolidator.run(&crate::Stop::default())?;
        let multilingual = self.shared.languages.is_multilingual(tenant);
        let report = forget::forget(&self.shared.engine, tenant, subject, multilingual)?;
        self.shared.caches.readers.wrote();
        consolidator.reload()?;
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

/// Tenants are hard boundaries, so their names are kept simple enough
/// that no tenant's ids can look like another's.
///
/// Checks a tenant name: 1 to 128 letters, digits and `_ - . @` (a
/// tenant is a namespace in ids and keys, so it holds no separators that
/// would make two names one). Servers check the names they are given
/// before they store a key for one.
pub fn check_tenant(tenant: &str) -> Result<()> {
    let ok = !tenant.is_empty()
        && tenant.len() <= 128
        && tenant
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'));
    if ok {
        Ok(())
    } else {
        Err(Error::BadTenant(tenant.to_string()))
    }
}
