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
//!
//! A recursive stratum the planner marked as a transitive closure or one
//! node's reach is searched instead (`closure.rs`), unless the strategy is
//! naive (kept to check the others against).
//!
//! The executor, file by file: `physical.rs` (the plan's names resolved and
//! terms bound before evaluation starts), `limits.rs` (what stops a query),
//! `steps.rs` (a rule's steps over batches of bindings), `stored.rs`
//! (reading stored relations), `aggregate.rs`, `history.rs`, `terms.rs`
//! (values of terms, comparisons).

mod aggregate;
mod closure;
mod history;
mod limits;
mod physical;
mod steps;
mod stored;
mod terms;

use std::ops::Range;
use std::sync::Arc;

use chronolog_ql::plan::Plan;
use chronolog_storage::{Snapshot, Timestamp};
use rustc_hash::FxHashMap;

use crate::batch::Batch;
use crate::error::{Result, RuntimeError};
use crate::order::SymbolOrder;
use crate::relation::Relation;
use crate::retrieval::Retrieval;
use crate::rows::Rows;
use crate::stored_cache::StoredCache;
use crate::val::{Tuple, Val};

use limits::MEMORY_CHECK_EVERY;
pub use limits::{Limits, Strategy, default_query_memory};
pub(crate) use physical::Physical;
use physical::{BoundRel, BoundRule, BoundStep};
use steps::{RuleRun, Sink, Source};
use stored::StoredReads;
use stored::coerce_key;
use terms::resolve_limit;

/// Runs plans against one snapshot.
pub(crate) struct Executor<'a> {
    pub snapshot: &'a Snapshot,
    pub params: &'a FxHashMap<String, Val>,
    pub limits: &'a Limits,
    /// Symbols named by the query: interned id, or a virtual one.
    pub symbols: &'a mut crate::symbols::SymbolResolver,
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
    /// A query with `limit N` and no order over its whole answer stops
    /// deriving its output relation (this index) at `N` rows.
    enough_at: Option<(usize, usize)>,
    /// That many rows were derived: the steps unwind without more work.
    enough: bool,
    /// Relations a search derived, in value order.
    searched: Vec<usize>,
    /// Relations a search derived whose values own no memory.
    plain: Vec<usize>,
    /// Bytes of the graph a search is walking that no relation holds (a
    /// derived relation's, built for the search): the budget counts them.
    walking: usize,
}

impl<'a> Executor<'a> {
    pub(crate) fn new(
        snapshot: &'a Snapshot,
        params: &'a FxHashMap<String, Val>,
        limits: &'a Limits,
        symbols: &'a mut crate::symbols::SymbolResolver,
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
            enough_at: None,
            enough: false,
            searched: Vec::new(),
            plain: Vec::new(),
            walking: 0,
        }
    }
}

impl Executor<'_> {
    /// Hands the stored relations this query materialized to the cache.
    pub(crate) fn finish(self) {
        for reads in self.stored {
            if let Some(m) = reads.materialized {
                self.cache.put(m);
            }
        }
    }

    /// Runs `plan`, whose physical stage is `physical` (`Physical::of`
    /// the same plan).
    pub(crate) fn run(&mut self, plan: &Plan, physical: &Physical) -> Result<Rows> {
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
                return Err(RuntimeError::KnownAtInFuture {
                    known,
                    last: self.snapshot.tx(),
                }
                .into());
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
        let rules = self.bind(plan, physical)?;
        let passthrough = physical.passthrough.clone();
        let limit = resolve_limit(plan.limit.as_ref(), self.params)?;
        let mut next_rule = 0;
        for (i, stratum) in plan.strata.iter().enumerate() {
            let rules = &rules[next_rule..next_rule + stratum.rules.len()];
            next_rule += stratum.rules.len();
            let last = i + 1 == plan.strata.len();
            if last && passthrough.is_some() {
                continue;
            }
            // `limit N` without `order by`: the answer is the first N rows
            // found, so the query's own rules stop there (the strata before
            // it are complete: a negation or an aggregate reads them whole).
            if last
                && !stratum.recursive
                && plan.order_by.is_empty()
                && rules
                    .iter()
                    .all(|r| r.head() == output && !r.plan.aggregates())
            {
                self.enough_at = limit.map(|n| (output, usize::try_from(n).unwrap_or(usize::MAX)));
                if self.enough_at.is_some_and(|(_, n)| n == 0) {
                    continue;
                }
            }
            if stratum.recursive && self.limits.strategy == Strategy::Naive {
                self.naive_fixpoint(rules)?;
            } else if let Some(closure) = &stratum.closure {
                // The answer is this relation's rows, unordered and cut to
                // N: the search stops at N (its first N are the answer's).
                let relation = stratum.relations[0];
                let enough = match &passthrough {
                    Some((rel, _)) if *rel == relation && plan.order_by.is_empty() => {
                        limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX))
                    }
                    _ => None,
                };
                self.search(closure, rules, relation, enough)?;
                self.searched.push(relation);
            } else if stratum.recursive {
                self.fixpoint(rules, &stratum.relations)?;
            } else {
                for rule in rules {
                    let distinct = rule.distinct && self.derived[rule.head()].len() == 0;
                    self.eval_rule_with(rule, None, distinct)?;
                }
            }
        }
        let mut ordered = false;
        let mut plain = false;
        let (cells, len) = match passthrough {
            // `?- rel(X, Y).` over a derived relation: its rows are the answer.
            Some((rel, order)) => {
                let relation = std::mem::replace(&mut self.derived[rel], Relation::new(0));
                let identity = order.len() == relation.arity()
                    && order.iter().enumerate().all(|(i, &c)| i == c);
                // A search derives its relation in value order: the
                // answer's own, when nothing orders it otherwise.
                ordered = identity && self.searched.contains(&rel) && plan.order_by.is_empty();
                plain = identity && self.plain.contains(&rel);
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
        if ordered {
            #[cfg(debug_assertions)]
            {
                let symbols = self.symbol_order();
                let width = plan.columns.len().max(1);
                debug_assert!(
                    cells
                        .chunks(width)
                        .zip(cells.chunks(width).skip(1))
                        .all(|(a, b)| symbols.cmp_rows(a, b).is_le()),
                    "a search's rows out of value order"
                );
            }
            let rows = Rows::in_order(plan.columns.clone(), cells, len, limit);
            return Ok(if plain { rows.of_plain_values() } else { rows });
        }
        let symbols = self.symbol_order();
        Ok(Rows::sorted(
            plan.columns.clone(),
            cells,
            len,
            &plan.order_by,
            limit,
            &symbols,
        ))
    }

    pub(super) fn add(&mut self, rel: usize, tuple: Tuple) -> Result<bool> {
        let added = self.derived[rel].insert(&tuple);
        if added {
            self.derived_count += 1;
            self.check_limits()?;
        }
        Ok(added)
    }

    /// Naive evaluation: every rule over everything, until nothing changes.
    fn naive_fixpoint(&mut self, rules: &[BoundRule<'_>]) -> Result<()> {
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
    fn fixpoint(&mut self, rules: &[BoundRule<'_>], members: &[usize]) -> Result<()> {
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
                    let BoundStep::Atom {
                        rel: BoundRel::Derived(r),
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
    fn eval_rule(
        &mut self,
        rule: &BoundRule<'_>,
        delta: Option<(usize, Range<u32>)>,
    ) -> Result<bool> {
        self.eval_rule_with(rule, delta, false)
    }

    /// [`Executor::eval_rule`], appending without the set probe when
    /// `distinct` (the head relation is empty, no other rule adds to it,
    /// and `head_is_distinct` holds).
    fn eval_rule_with(
        &mut self,
        rule: &BoundRule<'_>,
        delta: Option<(usize, Range<u32>)>,
        distinct: bool,
    ) -> Result<bool> {
        let width = rule.plan.slots.len();
        let mut sink = if rule.plan.aggregates() {
            Sink::Bindings(Batch::new(width))
        } else if distinct {
            Sink::Append(false)
        } else {
            Sink::Insert(false)
        };
        let mut start = Batch::start(width);
        let run = RuleRun {
            rule,
            delta: &delta,
        };
        self.run_steps(&run, 0, &mut start, &mut sink)?;
        match sink {
            Sink::Insert(added) | Sink::Append(added) => Ok(added),
            Sink::Bindings(all) => {
                let mut added = false;
                for t in self.aggregate(rule, &all)? {
                    added |= self.add(rule.head(), t)?;
                }
                Ok(added)
            }
        }
    }

    /// An empty batch, reusing the buffer of an earlier one (each step of
    /// a recursion would otherwise grow a fresh one per hand-off).
    pub(super) fn spare_batch(&mut self, width: usize) -> Batch {
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
}
