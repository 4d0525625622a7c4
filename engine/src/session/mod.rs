//! `Session`: a session over a store. It runs scripts statement by
//! statement, keeps the rules and `let` bindings defined so far, and
//! prepares queries once to run many times with parameters.
//!
//! Transactions: consecutive fact statements (`p(a). retract q(b).`) form one
//! write transaction, committed when the next non-fact statement (or the end
//! of the script) is reached. A bad fact aborts its whole batch, so bad input
//! changes nothing. A script that does not parse runs nothing.
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | `Session`: its state, statements, prepared queries, the read-your-writes wait for the indexes |
//! | `script.rs` | scripts step by step: runs of facts as one transaction, `ScriptRun` |
//! | `facts.rs` | a fact statement lowered to a write: arity, column types, values, valid interval |
//! | `catalog.rs` | the store as the compiler's catalog; `:create` as a schema |
//! | `render.rs` | values as text: plain, for tables (six digits), as re-enterable facts |

mod catalog;
mod facts;
mod render;
mod script;

pub use script::ScriptRun;

use std::collections::HashMap;
use std::sync::Arc;

use chronolog_ql::ast::{self, Expr, Statement};
use chronolog_ql::plan::{Constant, Plan};
use chronolog_ql::{
    CompileError, CompileErrorKind, Lets, Span, compile_query, constant, parse, parse_each,
};
use chronolog_storage::{CommitInfo, Schema, Store, Value, WriteTxn};
use rustc_hash::FxHashMap;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::exec::{Executor, Limits, Physical};
use crate::retrieval::Retrieval;
use crate::retrieval::embed::Embedder;
use crate::rows::Rows;
use crate::symbols::SymbolResolver;
use crate::val::Val;
use catalog::{StoreCatalog, schema_of};

/// What one statement produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// `:create` made a relation.
    Created(String),
    /// A batch of facts committed.
    Committed(CommitInfo),
    /// `let` bound a name.
    Bound(String),
    /// A rule was added for this relation.
    RuleAdded(String),
    /// A query's answer.
    Rows(Rows),
    /// `:relations` or `:describe`: relation schemas.
    Schemas(Vec<Schema>),
}

/// A query parsed and planned once, to run many times.
#[derive(Debug, Clone)]
pub struct Prepared {
    plan: Plan,
    /// Worked out once here rather than at every execution.
    physical: Physical,
}

impl Prepared {
    /// The plan, as `:explain` prints it.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}

impl Engine {
    /// A new session: no rules, no `let`s, sharing this engine's indexes
    /// and caches. Its first `near` or `bm25` waits until the rows stored
    /// when it opened are indexed.
    pub fn session(&self) -> Session {
        Session::over(self.clone())
    }
}

/// A Datalog session over an [`Engine`]: the rules and `let`s defined so
/// far, and the names of symbols its queries mentioned that the store does
/// not know. Cheap to make (`engine.session()`); everything heavy (the
/// store, the indexer, the caches) belongs to the engine and is shared.
pub struct Session {
    engine: Engine,
    /// The engine's store (a handle), kept at hand.
    store: Store,
    rules: Vec<ast::Rule>,
    /// For each rule, the script it came from (a count of scripts run):
    /// its spans point into that script's text only.
    rule_scripts: Vec<u64>,
    /// The script running now.
    script: u64,
    lets: Lets,
    symbols: SymbolResolver,
    /// The indexes may lag what this session must see: the rows stored
    /// when it opened, then its own commits. Its next `near` or `bm25`
    /// waits for them to catch up (read your own writes, and never a
    /// partial answer over a memory that was already there).
    indexes_behind: bool,
}

/// Whether a plan runs `near` or `bm25` (which read the indexes).
fn searches_text(plan: &Plan) -> bool {
    plan.strata
        .iter()
        .flat_map(|s| &s.rules)
        .flat_map(|r| &r.steps)
        .any(|step| matches!(step, chronolog_ql::plan::Step::Ranked { op, .. } if op.searches_text()))
}

impl Session {
    /// A session over a new engine over `store` (see [`Engine::new`]). A
    /// program with several sessions on one store makes one [`Engine`]
    /// and asks it for each session instead.
    pub fn new(store: Store) -> Session {
        Engine::new(store).session()
    }

    /// A session over a new engine whose `embed` columns and
    /// `near(rel, "text", k)` queries use `embedder`.
    pub fn with_embedder(store: Store, embedder: Arc<dyn Embedder>) -> Session {
        Engine::with_embedder(store, embedder).session()
    }

    pub(crate) fn over(engine: Engine) -> Session {
        Session {
            store: engine.store().clone(),
            engine,
            rules: Vec::new(),
            rule_scripts: Vec::new(),
            script: 0,
            lets: Lets::new(),
            symbols: SymbolResolver::default(),
            indexes_behind: true,
        }
    }

    /// The engine this session runs on: ask it for more sessions over the
    /// same store.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A new session on the same engine that starts with this one's rules
    /// and `let`s: what a caller runs a query on without holding this
    /// session (the C ABI runs concurrent calls on one handle this way).
    pub fn fork(&self) -> Session {
        Session {
            engine: self.engine.clone(),
            store: self.store.clone(),
            rules: self.rules.clone(),
            rule_scripts: self.rule_scripts.clone(),
            script: self.script,
            lets: self.lets.clone(),
            symbols: self.symbols.clone(),
            indexes_behind: self.indexes_behind,
        }
    }

    /// Takes note of what a [`Session::fork`] of this session wrote: this
    /// session's next `near` or `bm25` then waits for the indexes to catch
    /// up with it, as it would for its own writes.
    pub fn adopt_writes(&mut self, fork: &Session) {
        self.indexes_behind |= fork.indexes_behind;
    }

    /// Whether running `script` would define rules or `let`s, that is,
    /// change the session and not only the store. A script that does not
    /// parse defines nothing (it runs nothing).
    pub fn defines(script: &str) -> bool {
        parse_each(script).is_ok_and(|parsed| {
            parsed
                .iter()
                .any(|(_, s)| matches!(s, Ok(Statement::Rule(_) | Statement::Let(_))))
        })
    }

    /// A plan constant as a value (symbols resolve to stored ids, or to
    /// virtual ids that match nothing).
    pub(crate) fn constant_value(&mut self, c: &Constant) -> Val {
        match c {
            Constant::Int(i) => Val::Int(*i),
            Constant::Float(x) => Val::Float(*x),
            Constant::Str(s) => Val::Str(Arc::from(s.as_str())),
            Constant::Sym(name) => Val::Sym(self.symbols.resolve(&self.store, name)),
            Constant::Time(t) => Val::Time(*t),
            Constant::Bool(b) => Val::Bool(*b),
            Constant::Null => Val::Null,
        }
    }

    /// The id a name has, or a virtual id that matches nothing stored.
    pub(crate) fn symbol_for(&mut self, name: &str) -> chronolog_storage::Symbol {
        chronolog_storage::Symbol(self.symbols.resolve(&self.store, name))
    }

    pub(crate) fn retrieval(&self) -> &Retrieval {
        self.engine.retrieval()
    }

    /// The embedder's name (`hashing-384`, `bge-small-en`).
    pub fn embedder_name(&self) -> String {
        self.engine.embedder_name()
    }

    /// Waits until every row committed so far is searchable by `near` and
    /// `bm25` (they are indexed off the writer's path, within about 200 ms).
    pub fn sync_indexes(&self) -> Result<()> {
        self.engine.sync_indexes()
    }

    /// `sync_indexes`, then merges each text index into one segment now.
    /// The indexer does this by itself once writes pause for about 100 ms;
    /// call it after a bulk load to have searches at full speed at once.
    pub fn compact_indexes(&self) -> Result<()> {
        self.engine.compact_indexes()
    }

    /// Opens (or creates) the database in directory `path`, with a new
    /// engine over it, and returns a session on that engine.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Session> {
        Ok(Session::new(Store::open(path)?))
    }

    /// A session on a new engine over a store in memory only.
    pub fn in_memory() -> Session {
        Session::new(Store::in_memory())
    }

    /// The underlying store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Runs a script with no parameters and no limits.
    pub fn run(&mut self, script: &str) -> Result<Vec<Output>> {
        self.run_with(script, &HashMap::new(), &Limits::default())
    }

    /// Runs a script; `params` bind `$name`s; `limits` bound each query.
    /// A script that does not parse runs nothing; otherwise it stops at the
    /// first error, and what ran before it stays done.
    pub fn run_with(
        &mut self,
        script: &str,
        params: &HashMap<String, Value>,
        limits: &Limits,
    ) -> Result<Vec<Output>> {
        let ran = self.run_script(script, params, limits);
        match ran.error {
            Some(e) => Err(e),
            None => Ok(ran.outputs),
        }
    }

    /// Waits for the background indexes when a search `needs` them and
    /// they may lag what this session must see (see `indexes_behind`).
    pub(crate) fn catch_up_indexes(&mut self, needs: bool) -> Result<()> {
        if needs && self.indexes_behind {
            self.engine.sync_indexes()?;
            self.indexes_behind = false;
        }
        Ok(())
    }

    /// Tells the indexes of a commit; this session's next search waits
    /// for them (read your own writes).
    fn after_commit(&mut self) {
        self.engine.retrieval().indexes.nudge();
        self.indexes_behind = true;
    }

    fn statement(
        &mut self,
        statement: &Statement,
        params: &FxHashMap<String, Val>,
        limits: &Limits,
    ) -> Result<Output> {
        Ok(match statement {
            Statement::Create(create) => {
                let schema = schema_of(create);
                crate::marks::check(&schema).map_err(|e| e.at(create.span))?;
                self.store
                    .create_relation(schema)
                    .map_err(|e| Error::from(e).at(create.span))?;
                Output::Created(create.name.text.clone())
            }
            Statement::Relations(_) => Output::Schemas(self.store.relations()),
            Statement::Describe(name) => {
                let id = self.store.relation_id(&name.text).map_err(|_| {
                    CompileError::new(
                        CompileErrorKind::UnknownRelation(name.text.clone()),
                        name.span,
                    )
                })?;
                Output::Schemas(vec![self.store.schema(id)?])
            }
            Statement::Let(binding) => {
                let value = match &binding.value {
                    Expr::Const(c, _) => constant(c),
                    Expr::Ident(n) => self
                        .lets
                        .get(&n.text)
                        .cloned()
                        .unwrap_or(Constant::Sym(n.text.clone())),
                    other => {
                        return Err(CompileError::new(
                            CompileErrorKind::LetNotConstant,
                            other.span(),
                        )
                        .into());
                    }
                };
                self.lets.insert(binding.name.text.clone(), value);
                Output::Bound(binding.name.text.clone())
            }
            Statement::Rule(rule) => {
                if self.store.relation_id(&rule.head.name.text).is_ok() {
                    return Err(CompileError::new(
                        CompileErrorKind::DerivesIntoStored(rule.head.name.text.clone()),
                        rule.head.span,
                    )
                    .into());
                }
                self.rules.push(rule.clone());
                self.rule_scripts.push(self.script);
                Output::RuleAdded(rule.head.name.text.clone())
            }
            Statement::Query(query) => {
                let plan = self.compile(query, Some(self.script))?;
                let physical = Physical::of(&plan)?;
                Output::Rows(self.execute_plan(&plan, &physical, params, limits)?)
            }
            // `run_with` batches facts itself; they never reach here.
            Statement::Fact(f) => {
                return Err(CompileError::new(CompileErrorKind::FactOutsideBatch, f.span).into());
            }
        })
    }

    /// Runs `write` in one transaction and commits it: for callers that
    /// hold values, not text (bulk imports, the C ABI's messages). Nothing
    /// is written if `write` fails. The indexes hear of the commit like any
    /// other, and this session's next search sees it.
    pub fn write<T>(
        &mut self,
        write: impl FnOnce(&mut WriteTxn<'_>) -> Result<T>,
    ) -> Result<(T, CommitInfo)> {
        let store = self.store.clone();
        let mut txn = store.begin();
        let value = write(&mut txn)?;
        let info = txn.commit()?;
        self.after_commit();
        Ok((value, info))
    }

    /// Plans a query against the rules defined so far. An error inside a
    /// rule from an earlier script has a span in that script's text; it is
    /// pointed at the query instead, so that it never shows a caret under
    /// unrelated text.
    fn compile(&self, query: &ast::Query, script: Option<u64>) -> Result<Plan> {
        compile_query(query, &self.rules, &self.lets, &StoreCatalog(&self.store)).map_err(|e| {
            let within = |outer: Span| outer.start <= e.span.start && e.span.end <= outer.end;
            let in_this_script = within(query.span)
                || self
                    .rules
                    .iter()
                    .zip(&self.rule_scripts)
                    .any(|(rule, &from)| Some(from) == script && within(rule.span));
            if in_this_script {
                e.into()
            } else {
                CompileError::new(
                    CompileErrorKind::InEarlierRule(Box::new(e.kind)),
                    query.span,
                )
                .into()
            }
        })
    }

    /// Parses and plans one query (`?- ...`) against the rules and bindings
    /// defined so far.
    pub fn prepare(&self, text: &str) -> Result<Prepared> {
        let program = parse(text)?;
        match program.statements.as_slice() {
            [Statement::Query(query)] => {
                let plan = self.compile(query, None)?;
                let physical = Physical::of(&plan)?;
                Ok(Prepared { plan, physical })
            }
            _ => Err(CompileError::new(
                CompileErrorKind::ExpectedOneQuery,
                chronolog_ql::Span::new(0, text.len()),
            )
            .into()),
        }
    }

    /// Runs a prepared query on a fresh snapshot.
    pub fn execute(
        &mut self,
        prepared: &Prepared,
        params: &HashMap<String, Value>,
        limits: &Limits,
    ) -> Result<Rows> {
        let params = to_vals(params);
        self.execute_plan(&prepared.plan, &prepared.physical, &params, limits)
    }

    /// The plan of a query as text (`:explain`).
    pub fn explain(&self, text: &str) -> Result<String> {
        Ok(self.prepare(text)?.plan.to_string())
    }

    fn execute_plan(
        &mut self,
        plan: &Plan,
        physical: &Physical,
        params: &FxHashMap<String, Val>,
        limits: &Limits,
    ) -> Result<Rows> {
        self.catch_up_indexes(searches_text(plan))?;
        let snapshot = self.store.snapshot();
        let mut executor = Executor::new(
            &snapshot,
            params,
            limits,
            &mut self.symbols,
            self.engine.stored_cache(),
            self.engine.retrieval(),
        );
        let rows = executor.run(plan, physical)?;
        executor.finish();
        Ok(rows)
    }
}

pub(super) fn to_vals(params: &HashMap<String, Value>) -> FxHashMap<String, Val> {
    params
        .iter()
        .map(|(k, v)| (k.clone(), Val::from_ref(v.as_ref())))
        .collect()
}
