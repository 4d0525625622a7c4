//! `Session`: a session over a store. It runs scripts statement by
//! statement, keeps the rules and `let` bindings defined so far, and
//! prepares queries once to run many times with parameters.
//!
//! Transactions: consecutive fact statements (`p(a). retract q(b).`) form one
//! write transaction, committed when the next non-fact statement (or the end
//! of the script) is reached. A bad fact aborts its whole batch, so bad input
//! changes nothing. A script that does not parse runs nothing.

use std::collections::HashMap;
use std::sync::Arc;

use chronolog_ql::ast::{self, Analyzer, Expr, FactKind, Statement, TypeName, ValidClause};
use chronolog_ql::plan::{Constant, Plan};
use chronolog_ql::{
    Catalog, ColumnInfo, CompileError, CompileErrorKind, Lets, ParsedStatement, Span,
    compile_query, constant, parse, parse_each,
};
use chronolog_storage::{
    ColumnDef, ColumnType, CommitInfo, Interval, Replaced, Schema, Store, TextSearch, Timestamp,
    Value, WriteTxn,
};
use rustc_hash::FxHashMap;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::exec::{Executor, Limits, Physical};
use crate::retrieval::Retrieval;
use crate::retrieval::embed::Embedder;
use crate::rows::Rows;
use crate::symbols::SymbolResolver;
use crate::val::Val;

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

struct StoreCatalog<'a>(&'a Store);

impl Catalog for StoreCatalog<'_> {
    fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>> {
        let id = self.0.relation_id(name).ok()?;
        let schema = self.0.schema(id).ok()?;
        Some(
            schema
                .columns
                .iter()
                .map(|c| {
                    let ty = match c.ty {
                        ColumnType::Bool => TypeName::Bool,
                        ColumnType::Int => TypeName::Int,
                        ColumnType::Float => TypeName::Float,
                        ColumnType::Str => TypeName::Str,
                        ColumnType::Sym => TypeName::Sym,
                        ColumnType::Bytes => TypeName::Bytes,
                        ColumnType::Time => TypeName::Time,
                        ColumnType::Vector(d) => TypeName::Vector(d),
                    };
                    ColumnInfo {
                        name: c.name.clone(),
                        ty,
                        search: c.search.is_on(),
                        embed: c.embed,
                    }
                })
                .collect(),
        )
    }
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

    /// The embedder's name (`hashing-384`, `all-MiniLM-L6-v2`).
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

    /// As [`Session::run_with`], but an error comes with what the
    /// statements before it did (they stay done: a created relation, a
    /// committed batch), so a caller can report both.
    pub fn run_script(
        &mut self,
        script: &str,
        params: &HashMap<String, Value>,
        limits: &Limits,
    ) -> ScriptRun {
        let parsed = match parse_each(script) {
            Ok(parsed) => parsed,
            Err(e) => return ScriptRun::failed(e.into()),
        };
        if let Some(e) = parsed.iter().find_map(|(_, s)| s.as_ref().err()) {
            return ScriptRun::failed(e.clone().into());
        }
        let mut outputs = Vec::new();
        let mut error = None;
        self.run_parsed(
            script,
            parsed,
            params,
            limits,
            |_, _, result| match result {
                Ok(output) => {
                    outputs.push(output);
                    true
                }
                Err(e) => {
                    error = Some(e);
                    false
                }
            },
        );
        ScriptRun { outputs, error }
    }

    /// Runs a script step by step, handing each step's result to `each`
    /// with the span of the text it ran, as soon as it is ready: a shell
    /// prints as it goes, times each step and shows an error in place.
    /// A step is one statement, a run of consecutive facts (one
    /// transaction: a bad fact refuses the whole run), or a statement that
    /// does not parse (its error; the steps around it still run). `each`
    /// returns whether to go on. Only text that cannot even be split into
    /// tokens (an unterminated string) is the `Err`, and then nothing ran.
    pub fn run_each(
        &mut self,
        script: &str,
        params: &HashMap<String, Value>,
        limits: &Limits,
        each: impl FnMut(&Session, Span, Result<Output>) -> bool,
    ) -> Result<()> {
        let parsed = parse_each(script)?;
        self.run_parsed(script, parsed, params, limits, each);
        Ok(())
    }

    fn run_parsed(
        &mut self,
        script: &str,
        parsed: Vec<ParsedStatement>,
        params: &HashMap<String, Value>,
        limits: &Limits,
        mut each: impl FnMut(&Session, Span, Result<Output>) -> bool,
    ) {
        self.script += 1;
        let params = to_vals(params);
        // A run of facts is one transaction whatever goes wrong inside it,
        // a fact that does not parse included: the run is the facts and
        // the broken statements that are not plainly something else.
        let in_run = |(span, s): &ParsedStatement| match s {
            Ok(Statement::Fact(_)) => true,
            Ok(_) => false,
            Err(_) => looks_like_fact(script.get(span.start..span.end).unwrap_or("")),
        };
        let is_fact = |(_, s): &ParsedStatement| matches!(s, Ok(Statement::Fact(_)));
        let mut at = 0;
        while at < parsed.len() {
            let run = parsed[at..].iter().take_while(|p| in_run(p)).count();
            let facts = parsed[at..at + run].iter().any(is_fact);
            let end = if facts { at + run } else { at + 1 };
            let span = parsed[at].0.to(parsed[end - 1].0);
            let broken = parsed[at..end].iter().find_map(|(_, s)| s.as_ref().err());
            let result = match (&parsed[at].1, broken) {
                (_, Some(e)) => Err(e.clone().into()),
                (Ok(Statement::Fact(_)), None) => {
                    self.fact_batch(parsed[at..end].iter().map(|(_, s)| s), &params)
                }
                (Ok(statement), None) => self
                    .statement(statement, &params, limits)
                    .map_err(|e| e.at(parsed[at].0)),
                (Err(e), None) => Err(e.clone().into()),
            };
            if !each(self, span, result) {
                break;
            }
            at = end;
        }
    }

    /// One transaction for a run of facts: all of them or none.
    fn fact_batch<'s>(
        &mut self,
        facts: impl Iterator<Item = &'s std::result::Result<Statement, chronolog_ql::ParseError>>,
        params: &FxHashMap<String, Val>,
    ) -> Result<Output> {
        let store = self.store.clone();
        let mut txn = store.begin();
        for statement in facts {
            if let Ok(Statement::Fact(fact)) = statement {
                self.fact(&mut txn, fact, params)
                    .map_err(|e| e.at(fact.span))?;
            }
        }
        let info = txn.commit()?;
        self.after_commit();
        Ok(Output::Committed(info))
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
                let schema = Schema::new(
                    create.name.text.clone(),
                    create
                        .columns
                        .iter()
                        .map(|c| ColumnDef {
                            name: c.name.text.clone(),
                            ty: column_type(c.ty),
                            key: c.key,
                            nullable: c.nullable,
                            search: match c.search {
                                None => TextSearch::Off,
                                Some(Analyzer::English) => TextSearch::English,
                                Some(Analyzer::Simple) => TextSearch::Simple,
                            },
                            embed: c.embed,
                        })
                        .collect(),
                );
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

    /// A value as a person reads it in a table: as [`Session::render`],
    /// but a float to six significant digits. Scores computed with SIMD
    /// differ in their last bits from one CPU to another; seventeen digits
    /// help no reader, and would make every transcript CPU-dependent.
    /// (JSON and CSV keep full precision.)
    pub fn render_display(&self, value: &Val) -> String {
        match value {
            Val::Float(x) => float_display(*x),
            other => self.render(other),
        }
    }

    /// A fact a commit withdrew whole, as a fact statement a person can
    /// read and re-enter: `w(alice, a) valid 2021-01-01 .. inf`.
    pub fn render_replaced(&self, replaced: &Replaced) -> String {
        let name = self
            .store
            .schema(replaced.relation)
            .map_or_else(|_| format!("#{}", replaced.relation.0), |s| s.name.clone());
        let values: Vec<String> = replaced
            .values
            .iter()
            .map(|v| self.render(&Val::from_ref(v.as_ref())))
            .collect();
        let bound = |t: Timestamp| match t {
            Timestamp::MIN => "-inf".to_string(),
            Timestamp::MAX => "inf".to_string(),
            t => t.to_string(),
        };
        format!(
            "{name}({}) valid {} .. {}",
            values.join(", "),
            bound(replaced.valid.from),
            bound(replaced.valid.to)
        )
    }

    /// A value as text: symbols by name, times as ISO dates.
    pub fn render(&self, value: &Val) -> String {
        match value {
            Val::Null => "null".into(),
            Val::Bool(b) => b.to_string(),
            Val::Int(i) => i.to_string(),
            Val::Float(x) => format!("{x}"),
            Val::Str(s) => s.to_string(),
            Val::Sym(id) => match self.symbols.virtual_name(*id) {
                Some(name) => name.to_string(),
                None => self
                    .store
                    .symbol_name(chronolog_storage::Symbol(*id))
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| format!("#{id}")),
            },
            Val::Bytes(b) => format!("bytes[{}]", b.len()),
            Val::Time(t) => Timestamp(*t).to_string(),
            Val::Vector(v) => format!("vec<{}>", v.len()),
            Val::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|v| self.render(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn fact(
        &self,
        txn: &mut WriteTxn<'_>,
        fact: &ast::Fact,
        params: &FxHashMap<String, Val>,
    ) -> Result<()> {
        let name = &fact.atom.name;
        let rel = self.store.relation_id(&name.text).map_err(|_| {
            CompileError::new(
                CompileErrorKind::UnknownRelation(name.text.clone()),
                name.span,
            )
        })?;
        let schema = self.store.schema(rel)?;
        if schema.arity() != fact.atom.args.len() {
            return Err(CompileError::new(
                CompileErrorKind::Arity {
                    relation: name.text.clone(),
                    columns: schema.arity(),
                    arguments: fact.atom.args.len(),
                },
                fact.atom.span,
            )
            .into());
        }
        let mut values = Vec::with_capacity(schema.arity());
        for (arg, col) in fact.atom.args.iter().zip(&schema.columns) {
            let value = self.fact_value(txn, arg, col.ty, params)?;
            if !(value.as_ref().fits(col.ty) || (col.nullable && value == Value::Null)) {
                let expected = if col.nullable {
                    format!("{} or null", col.ty)
                } else {
                    col.ty.to_string()
                };
                return Err(CompileError::new(
                    CompileErrorKind::ColumnType {
                        relation: schema.name.clone(),
                        column: col.name.clone(),
                        expected,
                        got: value.describe(),
                    },
                    arg.span(),
                )
                .into());
            }
            values.push(value);
        }
        let time = |e: &Expr| -> Result<Timestamp> {
            match self.const_of(e, params)? {
                Constant::Time(t) => Ok(Timestamp(t)),
                _ => Err(CompileError::new(CompileErrorKind::ExpectedTime, e.span()).into()),
            }
        };
        // Without a clause a fact holds from its transaction on (XTDB's
        // rule): stating it never rewrites what was believed before it.
        let valid = match &fact.valid {
            None => None,
            Some(ValidClause::Always(_)) => Some(Interval::ALWAYS),
            Some(ValidClause::Range(from, None)) => Some(Interval::starting(time(from)?)),
            Some(ValidClause::Range(from, Some(to))) => Some(
                Interval::new(time(from)?, time(to)?)
                    .map_err(|e| Error::from(e).at(from.span().to(to.span())))?,
            ),
        };
        match (fact.kind, valid) {
            (FactKind::Assert, Some(valid)) => txn.assert(rel, values, valid, None)?,
            (FactKind::Assert, None) => txn.assert_from_commit(rel, values, None)?,
            (FactKind::Retract, Some(valid)) => txn.retract(rel, values, valid)?,
            (FactKind::Retract, None) => txn.retract_from_commit(rel, values)?,
            (FactKind::Correct, _) => txn.correct(rel, values)?,
        }
        Ok(())
    }

    fn const_of(&self, e: &Expr, params: &FxHashMap<String, Val>) -> Result<Constant> {
        Ok(match e {
            Expr::Const(c, _) => constant(c),
            Expr::Ident(n) => self
                .lets
                .get(&n.text)
                .cloned()
                .unwrap_or(Constant::Sym(n.text.clone())),
            Expr::Param(p) => match params.get(&p.text) {
                Some(Val::Time(t)) => Constant::Time(*t),
                Some(Val::Int(i)) => Constant::Int(*i),
                Some(Val::Float(x)) => Constant::Float(*x),
                Some(Val::Str(s)) => Constant::Str(s.to_string()),
                Some(Val::Bool(b)) => Constant::Bool(*b),
                Some(Val::Null) => Constant::Null,
                // `{"sym": "alice"}`: the symbol of that name, known to the
                // store or not yet.
                Some(Val::Sym(id)) => Constant::Sym(match self.symbols.virtual_name(*id) {
                    Some(name) => name.to_string(),
                    None => self
                        .store
                        .symbol_name(chronolog_storage::Symbol(*id))?
                        .to_string(),
                }),
                Some(_) => {
                    return Err(
                        CompileError::new(CompileErrorKind::ParamNotStorable, p.span).into(),
                    );
                }
                None => return Err(Error::MissingParam(p.text.clone())),
            },
            Expr::Var(_) | Expr::Wildcard(_) => {
                return Err(CompileError::new(CompileErrorKind::VariableInFact, e.span()).into());
            }
            Expr::Neg(..) | Expr::Binary(..) => {
                return Err(CompileError::new(CompileErrorKind::ExpressionInFact, e.span()).into());
            }
        })
    }

    fn fact_value(
        &self,
        txn: &mut WriteTxn<'_>,
        e: &Expr,
        ty: ColumnType,
        params: &FxHashMap<String, Val>,
    ) -> Result<Value> {
        let c = self.const_of(e, params)?;
        let mismatch = |what: &str| -> Error {
            CompileError::new(
                CompileErrorKind::ValueType {
                    expected: ty.to_string(),
                    got: what.to_string(),
                },
                e.span(),
            )
            .into()
        };
        Ok(match (c, ty) {
            (Constant::Sym(name), ColumnType::Sym) | (Constant::Str(name), ColumnType::Sym) => {
                Value::Sym(
                    txn.symbol(&name)
                        .map_err(|err| Error::from(err).at(e.span()))?,
                )
            }
            (Constant::Sym(name), _) => return Err(mismatch(&format!("the name `{name}`"))),
            (Constant::Int(i), ColumnType::Float) => Value::Float(i as f64),
            (Constant::Int(i), _) => Value::Int(i),
            (Constant::Float(x), _) => Value::Float(x),
            (Constant::Str(s), _) => Value::str(s),
            (Constant::Time(t), _) => Value::Time(Timestamp(t)),
            (Constant::Bool(b), _) => Value::Bool(b),
            (Constant::Null, _) => Value::Null,
        })
    }
}

/// What [`Session::run_script`] did: the outputs of the statements that
/// ran, in order, and the error that stopped it, if one did.
#[derive(Debug)]
pub struct ScriptRun {
    /// One output per statement (or run of facts) that succeeded.
    pub outputs: Vec<Output>,
    /// Why the script stopped early; the statements in `outputs` ran and
    /// stay done.
    pub error: Option<Error>,
}

impl ScriptRun {
    fn failed(error: Error) -> ScriptRun {
        ScriptRun {
            outputs: Vec::new(),
            error: Some(error),
        }
    }
}

/// Whether the text of a statement that does not parse is meant as a fact
/// (not a query, a command, a `let` or a rule): it then belongs to the run
/// of facts around it, which it aborts.
fn looks_like_fact(text: &str) -> bool {
    let text = text.trim_start();
    !(text.starts_with("?-")
        || text.starts_with(':')
        || text.starts_with("let ")
        || text.contains(":-"))
}

/// `x` to six significant digits, trailing zeros dropped (`0.306786`,
/// `1250`, `3.33333e-7`).
fn float_display(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-4..=15).contains(&magnitude) {
        return format!("{x:.5e}");
    }
    let decimals = (5 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn column_type(ty: TypeName) -> ColumnType {
    match ty {
        TypeName::Int => ColumnType::Int,
        TypeName::Float => ColumnType::Float,
        TypeName::Str => ColumnType::Str,
        TypeName::Sym => ColumnType::Sym,
        TypeName::Bool => ColumnType::Bool,
        TypeName::Bytes => ColumnType::Bytes,
        TypeName::Time => ColumnType::Time,
        TypeName::Vector(d) => ColumnType::Vector(d),
    }
}

fn to_vals(params: &HashMap<String, Value>) -> FxHashMap<String, Val> {
    params
        .iter()
        .map(|(k, v)| (k.clone(), Val::from_ref(v.as_ref())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::float_display;

    #[test]
    fn floats_show_six_significant_digits() {
        assert_eq!(float_display(0.3067860007286072), "0.306786");
        assert_eq!(float_display(0.3067859709262848), "0.306786");
        assert_eq!(float_display(-0.021437322720885277), "-0.0214373");
        assert_eq!(float_display(1250.0), "1250");
        assert_eq!(float_display(33.333333333), "33.3333");
        assert_eq!(float_display(0.5), "0.5");
        assert_eq!(float_display(0.0), "0");
        assert_eq!(float_display(3.3333333e-7), "3.33333e-7");
    }
}
