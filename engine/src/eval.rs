//! The executor: runs a [`Plan`] against one storage snapshot.
//!
//! Strata run in order. A non-recursive stratum runs each rule once; a
//! recursive one runs semi-naively: after a first full round, each round
//! evaluates every rule once per recursive atom, with that atom reading only
//! the tuples new in the previous round (`delta`) and the others reading
//! everything so far, until a round adds nothing. A rule's steps run a
//! batch of bindings at a time (`batch.rs`). Derived relations are sets of
//! tuples with hash indexes built on demand per bound-column pattern
//! (`relation.rs`); stored relations are read through the storage scan API
//! (value indexes for bound columns, the validity bitmap for the as-of
//! filter), one lookup per binding, until a query has looked one up often
//! enough to copy it whole into a grouped, columnar form (`frozen.rs`). No
//! storage lock is held across a step.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chronolog_ql::ast::{Aggregate, CompareOp};
use chronolog_ql::plan::{Arg, Constant, Count, HeadTerm, Plan, RelRef, RulePlan, Step, Term};
use chronolog_storage::{ColumnType, RelationId, Snapshot, Timestamp, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::batch::{BATCH_ROWS, Batch, Bind, Shape};
use crate::distinct::head_is_distinct;
use crate::error::{Error, Result};
use crate::frozen::{Column, Frozen, Run};
use crate::ops::{apply_aggregate, arith, compare};
use crate::order::SymbolOrder;
use crate::radix::sort_by_low_bits;
use crate::relation::{Positions, Relation};
use crate::retrieval::{At, Retrieval, input_terms};
use crate::rows::{Rows, canonical_order};
use crate::stored_cache::{Materialized, StoredCache};
use crate::val::{Tuple, Val};

/// How recursive strata are evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Each round joins only against the previous round's new tuples.
    #[default]
    SemiNaive,
    /// Each round re-evaluates every rule over everything: slow, obviously
    /// correct, and kept to check semi-naive evaluation against.
    Naive,
}

/// Bounds on one query's work, so a runaway recursion can be stopped, and
/// how to evaluate it. The default bounds memory (see
/// [`default_query_memory`]) and nothing else.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Evaluation strategy for recursive strata.
    pub strategy: Strategy,
    /// Stop after deriving this many tuples in total.
    pub max_derived: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this flag is set (Ctrl-C in the REPL).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Stop when the query's derived relations hold more than this many
    /// bytes, with an error naming the largest, before the operating
    /// system's out-of-memory killer ends the whole process.
    pub max_memory: Option<usize>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            strategy: Strategy::default(),
            max_derived: None,
            deadline: None,
            cancel: None,
            max_memory: Some(default_query_memory()),
        }
    }
}

/// The memory one query may fill with derived tuples by default: a quarter
/// of the machine's RAM (read once from `/proc/meminfo`), at least 256 MiB;
/// 4 GiB where the RAM cannot be read.
pub fn default_query_memory() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
                kib.checked_mul(1024)
            });
        match total {
            Some(bytes) => (bytes / 4).max(256 << 20),
            None => 4 << 30,
        }
    })
}

/// Derived tuples between two measurements of the query's memory.
const MEMORY_CHECK_EVERY: u64 = 16_384;

/// Where an atom's matches come from.
enum Source {
    /// Every row of a derived relation in a range (no bound column).
    DerivedRange(usize, Range<u32>),
    /// Positions in a derived relation.
    Derived(usize, Positions),
    /// A run of rows of a stored relation materialized for this query (an
    /// index into `Executor::stored`).
    Stored(usize, Run),
    /// Rows read through the storage API.
    Read(Vec<Tuple>),
}

impl Source {
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        match self {
            Source::DerivedRange(_, range) => range.len(),
            Source::Derived(_, p) => p.len(),
            Source::Stored(_, run) => run.rows.len(),
            Source::Read(rows) => rows.len(),
        }
    }
}

/// What a rule evaluation collects at its leaves.
enum Sink {
    /// Add head tuples to the head relation at once (rules without
    /// aggregates); remembers whether any was new.
    Insert(bool),
    /// Append head tuples known to be distinct (see `distinct.rs`) without
    /// the set probe; remembers whether any was appended.
    Append(bool),
    /// Whole bindings, to aggregate afterwards.
    Bindings(Batch),
}

/// Runs plans against one snapshot.
pub(crate) struct Executor<'a> {
    pub snapshot: &'a Snapshot,
    pub params: &'a FxHashMap<String, Val>,
    pub limits: &'a Limits,
    /// Symbols named by the query: interned id, or a virtual one.
    pub symbols: &'a mut crate::session::SymbolResolver,
    valid: Timestamp,
    known: Timestamp,
    derived: Vec<Relation>,
    /// The derived relations' names, for errors.
    derived_names: Vec<String>,
    derived_count: u64,
    /// `derived_count` at the next measurement of memory.
    next_memory_check: u64,
    /// Steps taken, so that cancel and deadline are polled every few
    /// thousand steps whether or not anything new is derived.
    ticks: u64,
    /// `ticks` at the next poll.
    next_poll: u64,
    /// Batches done with, kept for their buffers.
    spare: Vec<Batch>,
    /// Stored relations read by this query, materialized once they are read
    /// often (a join or a recursion) so later lookups hit a hash index.
    stored: Vec<StoredReads>,
    /// Materialized relations kept between queries.
    cache: &'a StoredCache,
    /// Retrieval indexes and caches.
    retrieval: &'a Retrieval,
    /// Symbols in name order, once a query needs it.
    symbol_order: Option<Arc<SymbolOrder>>,
}

/// After this many keyed lookups of one stored relation in one query, it is
/// read in full once and indexed in memory; until then each lookup goes
/// through the storage value index (cheapest for point queries).
const MATERIALIZE_AFTER: u32 = 64;

struct StoredReads {
    name: String,
    /// The relation's column types, to bring lookup keys to them.
    types: Vec<ColumnType>,
    lookups: u32,
    materialized: Option<Materialized>,
}

/// One evaluation of a rule: the rule, its shape, and which atom (if any)
/// reads only a delta.
struct RuleRun<'r> {
    rule: &'r RulePlan,
    shape: &'r Shape,
    delta: &'r Option<(usize, Range<u32>)>,
}

impl<'a> Executor<'a> {
    pub(crate) fn new(
        snapshot: &'a Snapshot,
        params: &'a FxHashMap<String, Val>,
        limits: &'a Limits,
        symbols: &'a mut crate::session::SymbolResolver,
        cache: &'a StoredCache,
        retrieval: &'a Retrieval,
    ) -> Executor<'a> {
        Executor {
            snapshot,
            params,
            limits,
            symbols,
            valid: snapshot.now(),
            known: snapshot.tx(),
            derived: Vec::new(),
            derived_names: Vec::new(),
            derived_count: 0,
            next_memory_check: MEMORY_CHECK_EVERY,
            ticks: 0,
            next_poll: 4096,
            spare: Vec::new(),
            stored: Vec::new(),
            cache,
            retrieval,
            symbol_order: None,
        }
    }

    /// Hands the stored relations this query materialized to the cache.
    pub(crate) fn finish(self) {
        for reads in self.stored {
            if let Some(m) = reads.materialized {
                self.cache.put(m);
            }
        }
    }

    fn time_of(&mut self, term: &Term, what: &str) -> Result<Timestamp> {
        match self.eval(term, &[])? {
            Val::Time(t) => Ok(Timestamp(t)),
            other => Err(Error::Runtime(format!(
                "{what} needs a time, got {other:?}"
            ))),
        }
    }

    pub(crate) fn run(&mut self, plan: &Plan) -> Result<Rows> {
        if let Some(t) = &plan.as_of {
            self.valid = self.time_of(t, "as_of")?;
        }
        if let Some(t) = &plan.known_at {
            let known = self.time_of(t, "known_at")?;
            // Every later commit gets a transaction time after both the last
            // one and the wall clock, so up to there an answer is final;
            // past it, the next write would change it.
            let horizon = self.snapshot.tx().max(self.snapshot.now());
            if known > horizon {
                return Err(Error::Runtime(format!(
                    "known_at {known} is in the future (the last commit is {}): what will be known then is not known yet",
                    self.snapshot.tx()
                )));
            }
            self.known = known;
        }
        if plan.history {
            return self.history(plan);
        }
        self.derived = plan
            .derived
            .iter()
            .map(|d| Relation::new(d.arity))
            .collect();
        self.derived_names = plan.derived.iter().map(|d| d.name.clone()).collect();
        let output = plan.derived.len() - 1;
        let mut rules_per_head = vec![0usize; plan.derived.len()];
        for rule in plan.strata.iter().flat_map(|s| &s.rules) {
            rules_per_head[rule.head] += 1;
        }
        let passthrough = plan.strata.last().and_then(|s| passthrough(&s.rules));
        for (i, stratum) in plan.strata.iter().enumerate() {
            if i + 1 == plan.strata.len() && passthrough.is_some() {
                continue;
            }
            if stratum.recursive && self.limits.strategy == Strategy::Naive {
                self.naive_fixpoint(&stratum.rules)?;
            } else if stratum.recursive {
                self.fixpoint(&stratum.rules, &stratum.relations)?;
            } else {
                for rule in &stratum.rules {
                    let distinct = rules_per_head[rule.head] == 1
                        && self.derived[rule.head].len() == 0
                        && head_is_distinct(rule, self.snapshot.store());
                    self.eval_rule_with(rule, None, distinct)?;
                }
            }
        }
        let (cells, len) = match passthrough {
            // `?- rel(X, Y).` over a derived relation: its rows are the answer.
            Some((rel, order)) => {
                let relation = std::mem::replace(&mut self.derived[rel], Relation::new(0));
                let identity = order.len() == relation.arity()
                    && order.iter().enumerate().all(|(i, &c)| i == c);
                let len = relation.len() as usize;
                let arity = relation.arity();
                let cells = relation.into_cells();
                if identity {
                    (cells, len)
                } else {
                    let mut out = Vec::with_capacity(len * order.len());
                    for at in 0..len {
                        let row = &cells[at * arity..(at + 1) * arity];
                        out.extend(order.iter().map(|&c| row[c].clone()));
                    }
                    (out, len)
                }
            }
            None => {
                let relation = std::mem::replace(&mut self.derived[output], Relation::new(0));
                let len = relation.len() as usize;
                (relation.into_cells(), len)
            }
        };
        let symbols = self.symbol_order();
        Ok(Rows::sorted(
            plan.columns.clone(),
            cells,
            len,
            &plan.order_by,
            resolve_limit(plan.limit.as_ref(), self.params)?,
            &symbols,
        ))
    }

    fn add(&mut self, rel: usize, tuple: Tuple) -> Result<bool> {
        let added = self.derived[rel].insert(&tuple);
        if added {
            self.derived_count += 1;
            self.check_limits()?;
        }
        Ok(added)
    }

    fn check_limits(&mut self) -> Result<()> {
        if let Some(max) = self.limits.max_derived
            && self.derived_count > max
        {
            return Err(Error::LimitExceeded(format!(
                "more than {max} derived tuples"
            )));
        }
        if self.derived_count >= self.next_memory_check {
            self.next_memory_check = self.derived_count + MEMORY_CHECK_EVERY;
            self.check_memory()?;
        }
        Ok(())
    }

    /// Measures the derived relations against the memory budget.
    fn check_memory(&self) -> Result<()> {
        let Some(budget) = self.limits.max_memory else {
            return Ok(());
        };
        let sizes = self.derived.iter().map(Relation::heap_bytes);
        let total: usize = sizes.clone().sum();
        if total <= budget {
            return Ok(());
        }
        let (largest, bytes) = sizes
            .enumerate()
            .max_by_key(|&(_, b)| b)
            .map(|(i, b)| (self.derived_names.get(i).map_or("?", String::as_str), b))
            .unwrap_or(("?", 0));
        let mib = |b: usize| b >> 20;
        let largest = match largest {
            chronolog_ql::OUTPUT => "the answer".to_string(),
            rule => format!("`{rule}`"),
        };
        Err(Error::LimitExceeded(format!(
            "the memory budget of {} MiB: the derived relations hold {} MiB, most of it in {largest} ({} MiB)",
            mib(budget),
            mib(total),
            mib(bytes)
        )))
    }

    /// Cancel (Ctrl-C) and the deadline: an atomic load and, rarely, a
    /// clock read. Polled every 4,096 steps and at every round of a
    /// fixpoint, so a runaway query stops within milliseconds.
    fn check_interrupts(&self) -> Result<()> {
        if let Some(flag) = &self.limits.cancel
            && flag.load(Ordering::Relaxed)
        {
            return Err(Error::Cancelled);
        }
        if let Some(deadline) = self.limits.deadline
            && Instant::now() >= deadline
        {
            return Err(Error::LimitExceeded("the time limit".into()));
        }
        Ok(())
    }

    /// Naive evaluation: every rule over everything, until nothing changes.
    fn naive_fixpoint(&mut self, rules: &[RulePlan]) -> Result<()> {
        loop {
            self.check_interrupts()?;
            let mut changed = false;
            for rule in rules {
                changed |= self.eval_rule(rule, None)?;
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// Semi-naive evaluation of one recursive stratum. The delta of a
    /// relation is the range of rows it gained in the previous round.
    fn fixpoint(&mut self, rules: &[RulePlan], members: &[usize]) -> Result<()> {
        let lens = |this: &Self| -> FxHashMap<usize, u32> {
            members
                .iter()
                .map(|&r| (r, this.derived[r].len()))
                .collect()
        };
        let before = lens(self);
        for rule in rules {
            self.eval_rule(rule, None)?;
        }
        let mut delta: FxHashMap<usize, std::ops::Range<u32>> = FxHashMap::default();
        let mut mark = lens(self);
        for &r in members {
            delta.insert(r, before[&r]..mark[&r]);
        }
        while delta.values().any(|d| !d.is_empty()) {
            self.check_interrupts()?;
            for rule in rules {
                for (at, step) in rule.steps.iter().enumerate() {
                    let Step::Atom {
                        rel: RelRef::Derived(r),
                        negated: false,
                        ..
                    } = step
                    else {
                        continue;
                    };
                    let Some(range) = delta.get(r).filter(|d| !d.is_empty()).cloned() else {
                        continue;
                    };
                    self.eval_rule(rule, Some((at, range)))?;
                }
            }
            let now = lens(self);
            for &r in members {
                delta.insert(r, mark[&r]..now[&r]);
            }
            mark = now;
        }
        Ok(())
    }

    /// Evaluates a rule's body and adds the head tuples it derives to the
    /// head relation as it goes (appending is safe mid-evaluation: lookups
    /// copy row positions, and new rows land past every delta range). Says
    /// whether anything new was added. With `delta = (step, range)`, the atom
    /// at that step reads only the rows of its relation in `range`.
    fn eval_rule(&mut self, rule: &RulePlan, delta: Option<(usize, Range<u32>)>) -> Result<bool> {
        self.eval_rule_with(rule, delta, false)
    }

    /// [`Executor::eval_rule`], appending without the set probe when
    /// `distinct` (the head relation is empty, no other rule adds to it,
    /// and `head_is_distinct` holds).
    fn eval_rule_with(
        &mut self,
        rule: &RulePlan,
        delta: Option<(usize, Range<u32>)>,
        distinct: bool,
    ) -> Result<bool> {
        let shape = Shape::of(rule)?;
        let width = rule.slots.len();
        let mut sink = if rule.aggregates() {
            Sink::Bindings(Batch::new(width))
        } else if distinct {
            Sink::Append(false)
        } else {
            Sink::Insert(false)
        };
        let mut start = Batch::start(width);
        let run = RuleRun {
            rule,
            shape: &shape,
            delta: &delta,
        };
        self.run_steps(&run, 0, &mut start, &mut sink)?;
        match sink {
            Sink::Insert(added) | Sink::Append(added) => Ok(added),
            Sink::Bindings(all) => {
                let mut added = false;
                for t in self.aggregate(rule, &all)? {
                    added |= self.add(rule.head, t)?;
                }
                Ok(added)
            }
        }
    }

    /// An empty batch, reusing the buffer of an earlier one (each step of
    /// a recursion would otherwise grow a fresh one per hand-off).
    fn spare_batch(&mut self, width: usize) -> Batch {
        match self.spare.pop() {
            Some(mut b) if b.width() == width => {
                b.clear();
                b
            }
            // Small at first: a point query needs a row or two, and a
            // batch that grows is kept for the next step.
            _ => Batch::with_capacity(width, 16),
        }
    }

    /// Counts `rows` steps taken and polls cancel and the deadline every
    /// 4,096 of them.
    fn tick(&mut self, rows: usize) -> Result<()> {
        self.ticks += rows as u64;
        if self.ticks >= self.next_poll {
            self.next_poll = self.ticks + 4096;
            self.check_interrupts()?;
        }
        Ok(())
    }

    /// Runs step `i` and the steps after it on the bindings in `input`
    /// (which it may reorder, filter or overwrite).
    fn run_steps(
        &mut self,
        run: &RuleRun<'_>,
        i: usize,
        input: &mut Batch,
        sink: &mut Sink,
    ) -> Result<()> {
        if input.len() == 0 {
            return Ok(());
        }
        self.tick(input.len())?;
        let Some(step) = run.rule.steps.get(i) else {
            return self.emit(run, input, sink);
        };
        match step {
            Step::Filter(a, op, b) => {
                let mut keep = Vec::with_capacity(input.len());
                for r in 0..input.len() {
                    let row = input.row(r);
                    let (a, b) = (self.eval(a, row)?, self.eval(b, row)?);
                    keep.push(self.compare(&a, *op, &b)?);
                }
                input.retain(&keep);
                self.run_steps(run, i + 1, input, sink)
            }
            Step::Assign(slot, term) => {
                for r in 0..input.len() {
                    let v = self.eval(term, input.row(r))?;
                    input.set(r, *slot, v);
                }
                self.run_steps(run, i + 1, input, sink)
            }
            Step::Atom {
                rel,
                args,
                negated: true,
            } => {
                let mut keep = Vec::with_capacity(input.len());
                for r in 0..input.len() {
                    let source = self.source(run, i, rel, args, input.row(r))?;
                    keep.push(source.is_empty());
                }
                input.retain(&keep);
                self.run_steps(run, i + 1, input, sink)
            }
            Step::Atom { rel, args, .. } => {
                let binds = &run.shape.binds[i];
                let mut out = self.spare_batch(input.width());
                for r in 0..input.len() {
                    let source = self.source(run, i, rel, args, input.row(r))?;
                    let n = source.len();
                    let mut k = 0;
                    while k < n {
                        let end = n.min(k + BATCH_ROWS.saturating_sub(out.len()).max(1));
                        self.extend(&source, k..end, input.row(r), binds, &mut out);
                        k = end;
                        if out.len() >= BATCH_ROWS {
                            self.run_steps(run, i + 1, &mut out, sink)?;
                            out.clear();
                        }
                    }
                }
                let done = self.run_steps(run, i + 1, &mut out, sink);
                self.spare.push(out);
                done
            }
            Step::Ranked { op, args } => {
                let binds = &run.shape.binds[i];
                let mut out = Batch::new(input.width());
                for r in 0..input.len() {
                    let parent = input.row(r);
                    let ranking = {
                        let mut inputs = Vec::new();
                        for term in input_terms(op) {
                            inputs.push(self.eval(term, parent)?);
                        }
                        let at = At {
                            snapshot: self.snapshot,
                            valid: self.valid,
                            known: self.known,
                            params: self.params,
                        };
                        self.retrieval.rank(op, &at, &mut inputs.into_iter())?
                    };
                    // A ranked row is (id, score, rank); the plan names
                    // at most those three columns.
                    let column =
                        |values: &[Val; 3], c: usize| values.get(c).cloned().unwrap_or(Val::Null);
                    'ranks: for (rank, (id, score)) in ranking.into_iter().enumerate() {
                        let values = [id, Val::Float(score), Val::Int(rank as i64 + 1)];
                        for (c, a) in args.iter().enumerate() {
                            if let Arg::Bound(t) = a
                                && self.eval(t, parent)? != column(&values, c)
                            {
                                continue 'ranks;
                            }
                        }
                        out.push_match(parent, binds, |c| column(&values, c));
                    }
                    if out.len() >= BATCH_ROWS {
                        self.run_steps(run, i + 1, &mut out, sink)?;
                        out.clear();
                    }
                }
                self.run_steps(run, i + 1, &mut out, sink)
            }
        }
    }

    /// The matches of the atom at step `i` for the bindings in `row`.
    fn source(
        &mut self,
        run: &RuleRun<'_>,
        i: usize,
        rel: &RelRef,
        args: &[Arg],
        row: &[Val],
    ) -> Result<Source> {
        let cols = &run.shape.key_columns[i];
        let mut key: SmallVec<[Val; 4]> = SmallVec::with_capacity(cols.len());
        for &c in cols {
            key.push(match &args[c] {
                Arg::Bound(Term::Slot(s)) => row[*s].clone(),
                Arg::Bound(other) => self.eval(other, row)?,
                Arg::Bind(_) | Arg::Any => {
                    return Err(Error::Runtime("a key column without a term".into()));
                }
            });
        }
        Ok(match rel {
            RelRef::Derived(r) => {
                let range = match run.delta {
                    Some((at, range)) if *at == i => range.clone(),
                    _ => 0..self.derived[*r].len(),
                };
                if cols.is_empty() {
                    Source::DerivedRange(*r, range)
                } else {
                    Source::Derived(*r, self.derived[*r].positions(cols, &key, range))
                }
            }
            RelRef::Stored(name) => self.scan_stored(name, cols, &key)?,
        })
    }

    /// Appends `parent` extended by each match `span` of `source` to `out`.
    fn extend(
        &self,
        source: &Source,
        span: Range<usize>,
        parent: &[Val],
        binds: &[Bind],
        out: &mut Batch,
    ) {
        match source {
            Source::DerivedRange(r, range) => {
                let rel = &self.derived[*r];
                for k in span {
                    let row = rel.row(range.start + k as u32);
                    out.push_match(parent, binds, |c| row[c].clone());
                }
            }
            Source::Derived(r, positions) => {
                let rel = &self.derived[*r];
                for &p in &positions[span] {
                    let row = rel.row(p);
                    out.push_match(parent, binds, |c| row[c].clone());
                }
            }
            Source::Stored(id, run) => {
                let Some(m) = &self.stored[*id].materialized else {
                    return;
                };
                let columns = m.relation.columns(run.pattern);
                for k in span {
                    let row = run.rows.start + k as u32;
                    out.push_match(parent, binds, |c| columns[c].get(row));
                }
            }
            Source::Read(rows) => {
                for row in &rows[span] {
                    out.push_match(parent, binds, |c| row[c].clone());
                }
            }
        }
    }

    /// Adds the head tuple of each binding in `batch` (or, for a rule that
    /// aggregates, keeps the bindings).
    fn emit(&mut self, run: &RuleRun<'_>, batch: &Batch, sink: &mut Sink) -> Result<()> {
        let rule = run.rule;
        let append = matches!(sink, Sink::Append(_));
        match sink {
            Sink::Bindings(all) => {
                for r in 0..batch.len() {
                    all.push_match(batch.row(r), &[], |_| Val::Null);
                }
            }
            Sink::Insert(added) | Sink::Append(added) => {
                let mut tuple: SmallVec<[Val; 4]> = SmallVec::new();
                for r in 0..batch.len() {
                    let row = batch.row(r);
                    // Most derivations in a recursion rediscover known
                    // tuples: probe before copying one.
                    let new = match &run.shape.head_slots {
                        Some(slots) if !append => {
                            self.derived[rule.head].insert_projected(row, slots)
                        }
                        _ => {
                            tuple.clear();
                            for h in &rule.head_terms {
                                if let HeadTerm::Value(term) = h {
                                    tuple.push(match term {
                                        Term::Slot(s) => row[*s].clone(),
                                        other => self.eval(other, row)?,
                                    });
                                }
                            }
                            if append {
                                self.derived[rule.head].push_distinct(tuple.drain(..));
                                true
                            } else {
                                self.derived[rule.head].insert(&tuple)
                            }
                        }
                    };
                    if new {
                        *added = true;
                        self.derived_count += 1;
                        self.check_limits()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Rows of a stored relation live at the query's (valid, known) whose
    /// columns `cols` equal `key`.
    fn scan_stored(&mut self, name: &str, cols: &[usize], key: &[Val]) -> Result<Source> {
        // A query reads few stored relations: a short list beats a map.
        let id = match self.stored.iter().position(|s| s.name == name) {
            Some(id) => id,
            None => {
                let store = self.snapshot.store();
                self.stored.push(StoredReads {
                    name: name.to_string(),
                    types: store.column_types(store.relation_id(name)?)?,
                    lookups: 0,
                    materialized: None,
                });
                self.stored.len() - 1
            }
        };
        let Some(key) = coerce_key(self.snapshot.store(), &self.stored[id].types, cols, key) else {
            return Ok(Source::Read(Vec::new()));
        };
        let key = key.as_ref();
        let reads = &mut self.stored[id];
        reads.lookups += 1;
        if reads.materialized.is_none() && (cols.is_empty() || reads.lookups > MATERIALIZE_AFTER) {
            let m = self.materialize(name)?;
            self.stored[id].materialized = Some(m);
        }
        if let Some(m) = self.stored[id].materialized.as_mut() {
            return Ok(Source::Stored(id, m.relation.run(cols, key)));
        }
        Ok(Source::Read(self.read_storage(name, cols, key)?))
    }

    /// Every row of a stored relation live at the query's instant, from the
    /// cache when the same rows were materialized before; read column by
    /// column (one typed pass each) into a columnar copy.
    fn materialize(&mut self, name: &str) -> Result<Materialized> {
        let store = self.snapshot.store();
        let rel: RelationId = store.relation_id(name)?;
        let live = self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known)
            .live_rows()?;
        if let Some(relation) = self.cache.take(rel, &live) {
            return Ok(Materialized {
                rel,
                live,
                relation,
            });
        }
        let arity = store.arity(rel)?;
        let all: Vec<usize> = (0..arity).collect();
        let columns: Vec<Column> = self
            .snapshot
            .gather(rel, &all, &live)?
            .into_iter()
            .map(Column::from_gathered)
            .collect();
        // Rows, as read: a purge during the read leaves its rows out.
        let len = columns.first().map_or(live.len() as usize, Column::len);
        let relation = Frozen::new(len as u32, columns);
        Ok(Materialized {
            rel,
            live,
            relation,
        })
    }

    /// Reads matching rows through the storage scan API.
    fn read_storage(&mut self, name: &str, cols: &[usize], key: &[Val]) -> Result<Vec<Tuple>> {
        let store = self.snapshot.store();
        let rel: RelationId = store.relation_id(name)?;
        let mut scan = self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known);
        for (&c, v) in cols.iter().zip(key) {
            match v.to_value() {
                // A virtual symbol (unknown to the store) matches nothing.
                Some(Value::Sym(s)) if self.symbols.is_virtual(s.0) => return Ok(Vec::new()),
                Some(value) => scan = scan.eq(c, value),
                None => return Ok(Vec::new()),
            }
        }
        let mut out = Vec::new();
        let arity = store.arity(rel)?;
        scan.for_each(|row| {
            let t: Vec<Val> = (0..arity).map(|c| Val::from_ref(row.value(c))).collect();
            out.push(t.into_boxed_slice());
        })?;
        // Equality on unindexed columns and int/float coercions are
        // re-checked here.
        out.retain(|t| cols.iter().zip(key).all(|(&c, v)| t[c] == *v));
        Ok(out)
    }

    /// The head tuples of a rule that aggregates, from its bindings (each
    /// distinct binding counts once: answers are sets).
    fn aggregate(&mut self, rule: &RulePlan, bindings: &Batch) -> Result<Vec<Tuple>> {
        // Distinct bindings in value order: a fixed order, since `collect`
        // lists and float sums depend on it.
        let symbols = self.symbol_order();
        let mut order =
            canonical_order(bindings.cells(), bindings.width(), bindings.len(), &symbols);
        order.dedup_by(|a, b| bindings.row(*a as usize) == bindings.row(*b as usize));
        // Each binding's group: its head values, numbered by a relation
        // used as a dictionary.
        let key_arity = rule
            .head_terms
            .iter()
            .filter(|h| matches!(h, HeadTerm::Value(_)))
            .count();
        let mut groups = Relation::new(key_arity);
        let mut members: Vec<(u64, u32)> = Vec::with_capacity(order.len());
        let mut key: SmallVec<[Val; 4]> = SmallVec::new();
        for &at in &order {
            let b = bindings.row(at as usize);
            key.clear();
            for h in &rule.head_terms {
                if let HeadTerm::Value(t) = h {
                    key.push(self.eval(t, b)?);
                }
            }
            members.push((u64::from(groups.find_or_insert(&key)), at));
        }
        // Stable: a group's bindings stay in value order.
        sort_by_low_bits(&mut members, 32);
        let mut out = Vec::with_capacity(groups.len() as usize);
        let mut inputs: Vec<Val> = Vec::new();
        for span in members.chunk_by(|a, b| a.0 == b.0) {
            let mut keys = groups.row(span[0].0 as u32).iter();
            let mut tuple = Vec::with_capacity(rule.head_terms.len());
            for h in &rule.head_terms {
                match h {
                    HeadTerm::Value(_) => tuple.push(keys.next().cloned().unwrap_or(Val::Null)),
                    HeadTerm::Aggregate(agg, slot) => {
                        inputs.clear();
                        for &(_, at) in span {
                            let v = bindings
                                .row(at as usize)
                                .get(*slot)
                                .ok_or_else(|| Error::Runtime("unbound variable".into()))?;
                            inputs.push(v.clone());
                        }
                        tuple.push(apply_aggregate(*agg, &inputs, &symbols)?);
                    }
                }
            }
            out.push(tuple.into_boxed_slice());
        }
        // Ungrouped, over nothing: `count` and `sum` of nothing are 0 and
        // `collect` is empty; `min`, `max` and `mean` have no value, so no
        // row.
        if key_arity == 0 && out.is_empty() {
            let empty: Option<Vec<Val>> = rule
                .head_terms
                .iter()
                .map(|h| match h {
                    HeadTerm::Aggregate(Aggregate::Count | Aggregate::Sum, _) => Some(Val::Int(0)),
                    HeadTerm::Aggregate(Aggregate::Collect, _) => {
                        Some(Val::List(Vec::new().into()))
                    }
                    _ => None,
                })
                .collect();
            out.extend(empty.map(Vec::into_boxed_slice));
        }
        Ok(out)
    }

    /// `history rel(args)`: every version of the matching stored rows.
    fn history(&mut self, plan: &Plan) -> Result<Rows> {
        let rule = plan
            .strata
            .last()
            .and_then(|s| s.rules.first())
            .ok_or_else(|| Error::Runtime("history plan without a rule".into()))?;
        let Some(Step::Atom {
            rel: RelRef::Stored(name),
            args,
            ..
        }) = rule.steps.first()
        else {
            return Err(Error::Runtime("history needs one stored atom".into()));
        };
        let store = self.snapshot.store();
        let rel = store.relation_id(name)?;
        let mut scan = self.snapshot.scan(rel).history();
        let types = store.column_types(rel)?;
        let mut checks = Vec::new();
        for (c, a) in args.iter().enumerate() {
            if let Arg::Bound(t) = a {
                let v = self.eval(t, &[])?;
                let Some(v) = coerce_key(store, &types, &[c], std::slice::from_ref(&v))
                    .and_then(|k| k.first().cloned())
                else {
                    return Ok(Rows::from_rows(history_columns(plan), Vec::new()));
                };
                match v.to_value() {
                    Some(Value::Sym(s)) if self.symbols.is_virtual(s.0) => {
                        return Ok(Rows::from_rows(history_columns(plan), Vec::new()));
                    }
                    Some(value) => scan = scan.eq(c, value),
                    None => {}
                }
                checks.push((c, v));
            }
        }
        // Each version's bindings (every slot, hidden ones included) and
        // its bi-temporal columns, before the filters that compare
        // arguments bound by the atom itself (`history e(X, X)`).
        let mut versions: Vec<(Vec<Val>, [Val; 7])> = Vec::new();
        scan.for_each(|row| {
            let mut slots: Vec<Option<Val>> = vec![None; rule.slots.len()];
            for (c, a) in args.iter().enumerate() {
                if let Arg::Bind(s) = a {
                    let v = Val::from_ref(row.value(c));
                    if slots[*s].get_or_insert_with(|| v.clone()) != &v {
                        return;
                    }
                }
            }
            if !checks
                .iter()
                .all(|(c, v)| Val::from_ref(row.value(*c)) == *v)
            {
                return;
            }
            let (valid, tx) = (row.valid(), row.tx());
            let times = [
                Val::Time(valid.from.0),
                Val::Time(valid.to.0),
                Val::Time(tx.from.0),
                Val::Time(tx.to.0),
                Val::Int(i64::from(row.id())),
                row.supersedes()
                    .map_or(Val::Null, |r| Val::Int(i64::from(r))),
                row.provenance().map_or(Val::Null, |p| Val::Sym(p.0)),
            ];
            versions.push((
                slots.into_iter().map(|s| s.unwrap_or(Val::Null)).collect(),
                times,
            ));
        })?;
        let mut rows = Vec::with_capacity(versions.len());
        'version: for (bindings, times) in versions {
            for step in &rule.steps[1..] {
                if let Step::Filter(a, op, b) = step {
                    let (a, b) = (self.eval(a, &bindings)?, self.eval(b, &bindings)?);
                    if !self.compare(&a, *op, &b)? {
                        continue 'version;
                    }
                }
            }
            let mut out: Vec<Val> = bindings.into_iter().take(plan.columns.len()).collect();
            out.extend(times);
            rows.push(out);
        }
        let columns = history_columns(plan);
        if plan.order_by.is_empty() {
            // Versions in the order they were written, the first `limit`.
            let limit = resolve_limit(plan.limit.as_ref(), self.params)?;
            rows.truncate(limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)));
            return Ok(Rows::from_rows(columns, rows));
        }
        let len = rows.len();
        let cells: Vec<Val> = rows.into_iter().flatten().collect();
        let symbols = self.symbol_order();
        Ok(Rows::sorted(
            columns,
            cells,
            len,
            &plan.order_by,
            resolve_limit(plan.limit.as_ref(), self.params)?,
            &symbols,
        ))
    }

    /// Symbols in name order (see `order.rs`), the query's own names
    /// among them; made once per query, when first needed.
    fn symbol_order(&mut self) -> Arc<SymbolOrder> {
        if let Some(order) = &self.symbol_order {
            return order.clone();
        }
        let names = self.symbols.virtual_names();
        let order = Arc::new(SymbolOrder::new(self.snapshot.store(), &names));
        self.symbol_order = Some(order.clone());
        order
    }

    /// A comparison as the language defines it: `compare`, except that two
    /// symbols order by name (equality stays by id: one name, one id).
    fn compare(&mut self, a: &Val, op: CompareOp, b: &Val) -> Result<bool> {
        Ok(match (a, b, op) {
            (
                Val::Sym(_),
                Val::Sym(_),
                CompareOp::Lt | CompareOp::Le | CompareOp::Gt | CompareOp::Ge,
            ) => {
                let o = self.symbol_order().cmp(a, b);
                match op {
                    CompareOp::Lt => o.is_lt(),
                    CompareOp::Le => o.is_le(),
                    CompareOp::Gt => o.is_gt(),
                    _ => o.is_ge(),
                }
            }
            // A time is not a number: `T > 2021-3-1` (the int 2017) is a
            // typo to report, not a comparison every time passes.
            (Val::Time(_), Val::Int(_) | Val::Float(_), _)
            | (Val::Int(_) | Val::Float(_), Val::Time(_), _) => {
                return Err(Error::Runtime(format!(
                    "cannot compare a time with a number ({} and {}); write times as dates (2021-03-01)",
                    self.render_plain(a),
                    self.render_plain(b)
                )));
            }
            _ => compare(a, op, b),
        })
    }

    /// A value as text for an error message.
    fn render_plain(&self, v: &Val) -> String {
        match v {
            Val::Time(t) => Timestamp(*t).to_string(),
            Val::Int(i) => i.to_string(),
            Val::Float(x) => x.to_string(),
            other => format!("{other:?}"),
        }
    }

    /// Evaluates a term under one row of bindings (slots a term reads are
    /// bound: `Shape::of` checked).
    fn eval(&mut self, term: &Term, bindings: &[Val]) -> Result<Val> {
        Ok(match term {
            Term::Slot(s) => bindings
                .get(*s)
                .cloned()
                .ok_or_else(|| Error::Runtime("unbound variable".into()))?,
            Term::Const(c) => self.constant(c),
            Term::Param(p) => self
                .params
                .get(p)
                .cloned()
                .ok_or_else(|| Error::MissingParam(p.clone()))?,
            Term::Neg(a) => match self.eval(a, bindings)? {
                Val::Int(i) => Val::Int(i.checked_neg().ok_or_else(|| {
                    Error::Runtime(format!("integer overflow: -({i}) does not fit in an int"))
                })?),
                Val::Float(x) => Val::Float(-x),
                other => return Err(Error::Runtime(format!("cannot negate {other:?}"))),
            },
            Term::Arith(a, op, b) => {
                let (a, b) = (self.eval(a, bindings)?, self.eval(b, bindings)?);
                arith(&a, *op, &b)?
            }
        })
    }

    fn constant(&mut self, c: &Constant) -> Val {
        match c {
            Constant::Int(i) => Val::Int(*i),
            Constant::Float(x) => Val::Float(*x),
            Constant::Str(s) => Val::Str(Arc::from(s.as_str())),
            Constant::Sym(name) => Val::Sym(self.symbols.resolve(self.snapshot.store(), name)),
            Constant::Time(t) => Val::Time(*t),
            Constant::Bool(b) => Val::Bool(*b),
            Constant::Null => Val::Null,
        }
    }
}

/// When the query's own rule is a single atom over a derived relation with
/// distinct variables, its answer is that relation (in `order` of columns),
/// and copying it into the output relation can be skipped.
fn passthrough(rules: &[RulePlan]) -> Option<(usize, Vec<usize>)> {
    let [rule] = rules else { return None };
    let [
        Step::Atom {
            rel: RelRef::Derived(rel),
            args,
            negated: false,
        },
    ] = rule.steps.as_slice()
    else {
        return None;
    };
    // Column of the atom that binds each slot.
    let mut column_of = vec![usize::MAX; rule.slots.len()];
    for (c, arg) in args.iter().enumerate() {
        match arg {
            Arg::Bind(slot) if column_of[*slot] == usize::MAX => column_of[*slot] = c,
            _ => return None,
        }
    }
    let order = rule
        .head_terms
        .iter()
        .map(|h| match h {
            HeadTerm::Value(Term::Slot(s)) => Some(column_of[*s]),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    Some((*rel, order))
}

/// A lookup key brought to the types of the columns it is compared with,
/// so that a lookup agrees with `=`: numbers compare numerically (`3.0`
/// finds the int `3`, `3` the float `3.0`, `3.5` no int), and a string
/// finds the symbol of that name and a symbol the string of its name.
/// `None` when no stored value can equal the key.
fn coerce_key<'k>(
    store: &chronolog_storage::Store,
    types: &[ColumnType],
    cols: &[usize],
    key: &'k [Val],
) -> Option<std::borrow::Cow<'k, [Val]>> {
    let fits = |ty: ColumnType, v: &Val| {
        !matches!(
            (ty, v),
            (ColumnType::Int, Val::Float(_))
                | (ColumnType::Float, Val::Int(_))
                | (ColumnType::Sym, Val::Str(_))
                | (ColumnType::Str, Val::Sym(_))
        )
    };
    let ty_of = |c: usize| types.get(c).copied().unwrap_or(ColumnType::Int);
    if cols.iter().zip(key).all(|(&c, v)| fits(ty_of(c), v)) {
        return Some(std::borrow::Cow::Borrowed(key));
    }
    let mut owned = Vec::with_capacity(key.len());
    for (&c, v) in cols.iter().zip(key) {
        owned.push(match (ty_of(c), v) {
            (ColumnType::Int, Val::Float(x)) => {
                if x.fract() != 0.0 || !(-9.2e18..9.2e18).contains(x) {
                    return None;
                }
                Val::Int(*x as i64)
            }
            (ColumnType::Float, Val::Int(i)) => Val::Float(*i as f64),
            (ColumnType::Sym, Val::Str(s)) => Val::Sym(store.symbol(s)?.0),
            (ColumnType::Str, Val::Sym(s)) => Val::Str(
                store
                    .symbol_name(chronolog_storage::Symbol(*s))
                    .ok()?
                    .as_ref()
                    .into(),
            ),
            _ => v.clone(),
        });
    }
    Some(std::borrow::Cow::Owned(owned))
}

fn history_columns(plan: &Plan) -> Vec<String> {
    let mut columns = plan.columns.clone();
    columns.extend(
        [
            "valid_from",
            "valid_to",
            "tx_from",
            "tx_to",
            "row",
            "supersedes",
            "provenance",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    columns
}

/// A query's `limit`, its `$parameter` looked up: a non-negative integer.
fn resolve_limit(limit: Option<&Count>, params: &FxHashMap<String, Val>) -> Result<Option<u64>> {
    match limit {
        None => Ok(None),
        Some(Count::Fixed(n)) => Ok(Some(*n)),
        Some(Count::Param(name)) => match params.get(name) {
            None => Err(Error::MissingParam(name.clone())),
            Some(Val::Int(n)) if *n >= 0 => Ok(Some(*n as u64)),
            Some(other) => Err(Error::Runtime(format!(
                "`limit ${name}` needs a row count (an integer >= 0), got {other:?}"
            ))),
        },
    }
}
