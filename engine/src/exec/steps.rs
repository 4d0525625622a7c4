//! A rule's steps, run over batches of bindings: where an atom's matches
//! come from, how each step extends or filters the batch, and what the
//! rule's head receives.

use std::ops::Range;

use smallvec::SmallVec;

use super::physical::{BoundArg, BoundRel, BoundRule, BoundStep, Operand};
use super::*;
use crate::batch::{BATCH_ROWS, Batch, Bind};
use crate::error::{Error, Result};
use crate::frozen::Run;
use crate::relation::Positions;
use crate::retrieval::At;
use crate::val::{Tuple, Val};

/// Where an atom's matches come from.
pub(super) enum Source {
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
pub(super) enum Sink {
    /// Add head tuples to the head relation at once (rules without
    /// aggregates); remembers whether any was new.
    Insert(bool),
    /// Append head tuples known to be distinct (see `distinct.rs`) without
    /// the set probe; remembers whether any was appended.
    Append(bool),
    /// Whole bindings, to aggregate afterwards.
    Bindings(Batch),
}

/// One evaluation of a rule: the rule, and which atom (if any) reads only
/// a delta.
pub(super) struct RuleRun<'r, 'p> {
    pub(super) rule: &'r BoundRule<'p>,
    pub(super) delta: &'r Option<(usize, Range<u32>)>,
}

/// Stack a recursive step must have left before it recurses, and what
/// is added on the heap when it has not (as rustc does for deep trees).
pub(crate) const STACK_RED_ZONE: usize = 64 * 1024;
/// See [`STACK_RED_ZONE`].
pub(crate) const STACK_GROWTH: usize = 1024 * 1024;

impl Executor<'_> {
    /// Runs step `i` and the steps after it on the bindings in `input`
    /// (which it may reorder, filter or overwrite). Each step calls the
    /// next, so a body of 10,000 atoms is 10,000 frames deep: the stack
    /// grows on the heap (`stacker`) before it runs out, on whatever thread
    /// the host runs the query.
    pub(super) fn run_steps(
        &mut self,
        run: &RuleRun<'_, '_>,
        i: usize,
        input: &mut Batch,
        sink: &mut Sink,
    ) -> Result<()> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
            self.run_step(run, i, input, sink)
        })
    }

    fn run_step(
        &mut self,
        run: &RuleRun<'_, '_>,
        i: usize,
        input: &mut Batch,
        sink: &mut Sink,
    ) -> Result<()> {
        if input.len() == 0 || self.enough {
            return Ok(());
        }
        self.tick(input.len())?;
        let Some(step) = run.rule.steps.get(i) else {
            return self.emit(run, input, sink);
        };
        match step {
            BoundStep::Filter(a, op, b) => {
                let mut keep = Vec::with_capacity(input.len());
                for r in 0..input.len() {
                    let row = input.row(r);
                    let (a, b) = (self.value(a, row)?, self.value(b, row)?);
                    keep.push(self.compare(&a, *op, &b)?);
                }
                input.retain(&keep);
                self.run_steps(run, i + 1, input, sink)
            }
            BoundStep::Assign(slot, term) => {
                for r in 0..input.len() {
                    let v = self.value(term, input.row(r))?;
                    input.set(r, *slot, v);
                }
                self.run_steps(run, i + 1, input, sink)
            }
            BoundStep::Atom {
                rel,
                args,
                negated: true,
            } => {
                let mut keep = Vec::with_capacity(input.len());
                for r in 0..input.len() {
                    let source = self.source(run, i, *rel, args, input.row(r))?;
                    keep.push(source.is_empty());
                }
                input.retain(&keep);
                self.run_steps(run, i + 1, input, sink)
            }
            BoundStep::Atom { rel, args, .. } => {
                let binds = &run.rule.shape.binds[i];
                let mut out = self.spare_batch(input.width());
                for r in 0..input.len() {
                    let source = self.source(run, i, *rel, args, input.row(r))?;
                    let n = source.len();
                    let mut k = 0;
                    while k < n {
                        let end = n.min(k + BATCH_ROWS.saturating_sub(out.len()).max(1));
                        self.extend(&source, k..end, input.row(r), binds, &mut out);
                        k = end;
                        if out.len() >= BATCH_ROWS {
                            self.run_steps(run, i + 1, &mut out, sink)?;
                            out.clear();
                            if self.enough {
                                self.spare.push(out);
                                return Ok(());
                            }
                        }
                    }
                }
                let done = self.run_steps(run, i + 1, &mut out, sink);
                self.spare.push(out);
                done
            }
            BoundStep::Ranked { op, inputs, args } => {
                let binds = &run.rule.shape.binds[i];
                let mut out = Batch::new(input.width());
                for r in 0..input.len() {
                    let parent = input.row(r);
                    let ranking = {
                        let inputs = inputs
                            .iter()
                            .map(|term| self.value(term, parent))
                            .collect::<Result<Vec<Val>>>()?;
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
                            if let BoundArg::Key(t) = a
                                && self.value(t, parent)? != column(&values, c)
                            {
                                continue 'ranks;
                            }
                        }
                        out.push_match(parent, binds, |c| column(&values, c));
                    }
                    if out.len() >= BATCH_ROWS {
                        self.run_steps(run, i + 1, &mut out, sink)?;
                        out.clear();
                        if self.enough {
                            return Ok(());
                        }
                    }
                }
                self.run_steps(run, i + 1, &mut out, sink)
            }
        }
    }

    /// The matches of the atom at step `i` for the bindings in `row`.
    pub(super) fn source(
        &mut self,
        run: &RuleRun<'_, '_>,
        i: usize,
        rel: BoundRel,
        args: &[BoundArg],
        row: &[Val],
    ) -> Result<Source> {
        let cols = &run.rule.shape.key_columns[i];
        let mut key: SmallVec<[Val; 4]> = SmallVec::with_capacity(cols.len());
        for &c in cols {
            key.push(match &args[c] {
                BoundArg::Key(Operand::Slot(s)) => row[*s].clone(),
                BoundArg::Key(other) => self.value(other, row)?,
                BoundArg::Bind | BoundArg::Any => {
                    return Err(Error::Internal("a key column without a term".into()));
                }
            });
        }
        Ok(match rel {
            BoundRel::Derived(r) => {
                let range = match run.delta {
                    Some((at, range)) if *at == i => range.clone(),
                    _ => 0..self.derived[r].len(),
                };
                if cols.is_empty() {
                    Source::DerivedRange(r, range)
                } else {
                    Source::Derived(r, self.derived[r].positions(cols, &key, range))
                }
            }
            BoundRel::Stored(id) => self.scan_stored(id, cols, &key)?,
        })
    }

    /// Appends `parent` extended by each match `span` of `source` to `out`.
    pub(super) fn extend(
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
    pub(super) fn emit(
        &mut self,
        run: &RuleRun<'_, '_>,
        batch: &Batch,
        sink: &mut Sink,
    ) -> Result<()> {
        let rule = run.rule;
        let head = rule.head();
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
                    let new = match &rule.shape.head_slots {
                        Some(slots) if !append => self.derived[head].insert_projected(row, slots),
                        _ => {
                            tuple.clear();
                            for term in &rule.head {
                                tuple.push(match term {
                                    Operand::Slot(s) => row[*s].clone(),
                                    other => self.value(other, row)?,
                                });
                            }
                            if append {
                                self.derived[head].push_distinct(tuple.drain(..));
                                true
                            } else {
                                self.derived[head].insert(&tuple)
                            }
                        }
                    };
                    if new {
                        *added = true;
                        self.derived_count += 1;
                        self.check_limits()?;
                        if self.enough_at.is_some_and(|(rel, n)| {
                            rel == head && self.derived[head].len() as usize >= n
                        }) {
                            self.enough = true;
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
