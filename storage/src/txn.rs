//! Write transactions and the rules that turn assertions into row changes.
//!
//! A [`WriteTxn`] buffers operations (each checked against the schema when it
//! is added, so a bad one is rejected alone and changes nothing); `commit`
//! plans their effect on the slots they touch, writes that plan to the log
//! under one transaction time, and applies it. Three kinds of change exist:
//! append a row, cut a row (end its valid interval earlier, from this
//! transaction on), and close a row (withdraw it from this transaction on).
//!
//! The rules, for a slot (key values, or the whole tuple without keys) whose
//! currently believed rows have pairwise disjoint valid intervals, and a new
//! interval `I = [a, b)`:
//!
//! * **assert** `X` over `I`: if a row already says `X` over all of `I`,
//!   nothing happens. Otherwise, for each row overlapping `I`: a same-valued
//!   row is closed and merged into the new one; a different-valued row that
//!   starts before `a` is cut at `a`; one that starts at or after `a` is
//!   closed; and if it runs past `b`, its part after `b` is re-appended as a
//!   remainder. The new row supersedes the row it cut short (else the first
//!   row it replaced). This is the functional replacement: `old.valid_to =
//!   new.valid_from`, `new.supersedes = old`. A remainder supersedes the
//!   row it was split from: the same fact going on after the interruption.
//! * **retract** `X` over `I`: the fact stops being true in the world during
//!   `I`: rows saying `X` are cut at `a` (or closed if they start inside
//!   `I`), keeping any part after `b` as a remainder.
//! * **correct** `X`: we were wrong. Every believed row saying `X` is closed in
//!   transaction time with nothing kept, so as of later transaction times the
//!   fact was never true, while queries `known_at` earlier still see it.

use parking_lot::MutexGuard;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{Error, Result};
use crate::log::{Append, Change};
use crate::relation::{NONE, NewRow, RowId};
use crate::store::{RelationId, State, Store, WriterState};
use crate::time::{Interval, Timestamp};
use crate::value::{Symbol, Value};

/// A batch of writes that commits atomically under one transaction time.
/// Dropping it without `commit` discards it.
pub struct WriteTxn<'s> {
    store: &'s Store,
    writer: MutexGuard<'s, WriterState>,
    ops: Vec<Op>,
}

/// What a commit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    /// The commit's transaction time; for a commit that changed nothing, the
    /// previous commit's.
    pub tx: Timestamp,
    /// Rows appended (new facts and remainders).
    pub rows_added: usize,
    /// Rows whose valid interval was cut short.
    pub rows_cut: usize,
    /// Rows whose transaction interval was closed.
    pub rows_closed: usize,
}

#[derive(Debug)]
enum Op {
    Assert {
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        provenance: u32,
    },
    Retract {
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
    },
    Correct {
        rel: RelationId,
        values: Vec<Value>,
    },
}

impl<'s> WriteTxn<'s> {
    pub(crate) fn new(store: &'s Store, writer: MutexGuard<'s, WriterState>) -> WriteTxn<'s> {
        WriteTxn {
            store,
            writer,
            ops: Vec::new(),
        }
    }

    /// Interns `name`. The symbol becomes durable with the next commit.
    pub fn symbol(&mut self, name: &str) -> Result<Symbol> {
        self.store.inner.symbols.write().intern(name)
    }

    /// Asserts that `values` hold over valid time `valid`, citing `provenance`
    /// (an episode id, a user, a document) when given.
    pub fn assert(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        provenance: Option<Symbol>,
    ) -> Result<()> {
        self.check(rel, &values, Some(valid))?;
        let provenance = match provenance {
            Some(sym) if self.store.inner.symbols.read().contains(sym) => sym.0,
            Some(sym) => return Err(Error::UnknownSymbol { id: sym.0 }),
            None => NONE,
        };
        self.ops.push(Op::Assert {
            rel,
            values,
            valid,
            provenance,
        });
        Ok(())
    }

    /// Says that `values` stopped (or stops) being true during `valid`.
    pub fn retract(&mut self, rel: RelationId, values: Vec<Value>, valid: Interval) -> Result<()> {
        self.check(rel, &values, Some(valid))?;
        self.ops.push(Op::Retract { rel, values, valid });
        Ok(())
    }

    /// Withdraws every believed row saying exactly `values`: it was a mistake.
    pub fn correct(&mut self, rel: RelationId, values: Vec<Value>) -> Result<()> {
        self.check(rel, &values, None)?;
        self.ops.push(Op::Correct { rel, values });
        Ok(())
    }

    fn check(&self, rel: RelationId, values: &[Value], valid: Option<Interval>) -> Result<()> {
        if let Some(valid) = valid
            && valid.from >= valid.to
        {
            return Err(Error::EmptyInterval {
                from: valid.from,
                to: valid.to,
            });
        }
        let state = self.store.inner.state.read();
        let relation = state.relation(rel)?;
        relation
            .schema
            .check_tuple(values.iter().map(Value::as_ref))?;
        let symbols = self.store.inner.symbols.read();
        for value in values {
            if let Value::Sym(sym) = value
                && !symbols.contains(*sym)
            {
                return Err(Error::UnknownSymbol { id: sym.0 });
            }
        }
        Ok(())
    }

    /// Makes every operation durable and visible, atomically, under one new
    /// transaction time.
    pub fn commit(mut self) -> Result<CommitInfo> {
        let ops = std::mem::take(&mut self.ops);
        let plan = {
            let state = self.store.inner.state.read();
            let mut planner = Planner::new(&state);
            for op in ops {
                planner.apply(op)?;
            }
            planner.finish()?
        };
        let info = |tx| CommitInfo {
            tx,
            rows_added: plan.appends.iter().map(|a| a.rows.len()).sum(),
            rows_cut: plan.cuts.len(),
            rows_closed: plan.closes.len(),
        };
        let unchanged = info(Timestamp(self.writer.last_tx));
        if unchanged.rows_added + unchanged.rows_cut + unchanged.rows_closed == 0 {
            return Ok(unchanged);
        }
        let change = Change::Commit {
            appends: plan.appends,
            cuts: plan.cuts,
            closes: plan.closes,
        };
        let tx = self.store.commit_change(&mut self.writer, change)?;
        Ok(CommitInfo { tx, ..unchanged })
    }
}

/// A believed row of a slot: stored, or pending in this transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    Stored(RowId),
    Pending(usize),
}

struct PendingRow {
    rel: u32,
    values: Vec<Value>,
    valid: Interval,
    supersedes: Option<Target>,
    provenance: u32,
    /// Replaced later in the same transaction: it never becomes visible.
    dropped: bool,
    /// The previous pending row of the same (relation, slot hash).
    next_in_slot: usize,
}

/// A believed row of the slot being changed, with its current interval.
#[derive(Clone, Copy)]
struct Candidate {
    target: Target,
    valid: Interval,
    same_values: bool,
}

/// What a commit will do, in the log's terms.
struct Plan {
    appends: Vec<Append>,
    cuts: Vec<(u32, RowId, i64)>,
    closes: Vec<(u32, RowId)>,
}

struct Planner<'a> {
    state: &'a State,
    pending: Vec<PendingRow>,
    /// Newest pending row per (relation, slot hash); older ones chain through
    /// `next_in_slot`, so a large batch plans in linear time.
    slot_heads: FxHashMap<(u32, u64), usize>,
    /// Planned valid ends of stored rows.
    cuts: FxHashMap<(u32, RowId), i64>,
    closes: Vec<(u32, RowId)>,
    closed: FxHashSet<(u32, RowId)>,
    scratch: Vec<RowId>,
    found: Vec<Candidate>,
}

impl<'a> Planner<'a> {
    fn new(state: &'a State) -> Planner<'a> {
        Planner {
            state,
            pending: Vec::new(),
            slot_heads: FxHashMap::default(),
            cuts: FxHashMap::default(),
            closes: Vec::new(),
            closed: FxHashSet::default(),
            scratch: Vec::new(),
            found: Vec::new(),
        }
    }

    fn apply(&mut self, op: Op) -> Result<()> {
        match op {
            Op::Assert {
                rel,
                values,
                valid,
                provenance,
            } => self.assert(rel, values, valid, provenance),
            Op::Retract { rel, values, valid } => self.retract(rel, &values, valid),
            Op::Correct { rel, values } => self.correct(rel, &values),
        }
    }

    /// Believed rows in the slot of `values`, sorted by valid start. The
    /// returned buffer is the planner's own; hand it back with `recycle`.
    fn candidates(&mut self, rel: RelationId, values: &[Value]) -> Result<Vec<Candidate>> {
        let relation = self.state.relation(rel)?;
        let mut stored = std::mem::take(&mut self.scratch);
        stored.clear();
        relation.live_slot_rows(values, &mut stored);
        let mut out = std::mem::take(&mut self.found);
        out.clear();
        for &row in &stored {
            if self.closed.contains(&(rel.0, row)) {
                continue;
            }
            let mut valid = relation.valid(row);
            if let Some(&to) = self.cuts.get(&(rel.0, row)) {
                valid.to = Timestamp(to);
            }
            out.push(Candidate {
                target: Target::Stored(row),
                valid,
                same_values: relation.slot_row_equals(row, values),
            });
        }
        self.scratch = stored;
        let slot = &relation.slot_columns;
        let mut next = self
            .slot_heads
            .get(&(rel.0, slot_hash(slot, values)))
            .copied()
            .unwrap_or(usize::MAX);
        while next != usize::MAX {
            let p = &self.pending[next];
            if !p.dropped && slot.iter().all(|&c| p.values[c] == values[c]) {
                out.push(Candidate {
                    target: Target::Pending(next),
                    valid: p.valid,
                    same_values: p.values == values,
                });
            }
            next = p.next_in_slot;
        }
        if out.len() > 1 {
            out.sort_by_key(|c| c.valid.from);
        }
        Ok(out)
    }

    fn recycle(&mut self, candidates: Vec<Candidate>) {
        self.found = candidates;
    }

    /// Values, link and provenance of a candidate, for a remainder.
    fn carry(&self, rel: RelationId, target: Target) -> Result<(Vec<Value>, Option<Target>, u32)> {
        Ok(match target {
            Target::Stored(row) => {
                let r = self.state.relation(rel)?;
                let values = (0..r.schema.arity())
                    .map(|c| r.value(row, c).to_owned())
                    .collect();
                let provenance = r.provenance(row).map_or(NONE, |s| s.0);
                (values, r.supersedes(row).map(Target::Stored), provenance)
            }
            Target::Pending(i) => {
                let p = &self.pending[i];
                (p.values.clone(), p.supersedes, p.provenance)
            }
        })
    }

    fn link_of(&self, rel: RelationId, target: Target) -> Result<Option<Target>> {
        Ok(match target {
            Target::Stored(row) => self
                .state
                .relation(rel)?
                .supersedes(row)
                .map(Target::Stored),
            Target::Pending(i) => self.pending[i].supersedes,
        })
    }

    fn withdraw(&mut self, rel: RelationId, target: Target) {
        match target {
            Target::Stored(row) => {
                if self.closed.insert((rel.0, row)) {
                    self.closes.push((rel.0, row));
                    self.cuts.remove(&(rel.0, row));
                }
            }
            Target::Pending(i) => self.pending[i].dropped = true,
        }
    }

    fn cut(&mut self, rel: RelationId, target: Target, valid_to: Timestamp) {
        match target {
            Target::Stored(row) => {
                self.cuts.insert((rel.0, row), valid_to.0);
            }
            Target::Pending(i) => self.pending[i].valid.to = valid_to,
        }
    }

    /// Re-appends the part of `c` after `end`, if it runs past it.
    /// Re-appends the part of `c` after `end` (a remainder): the same fact,
    /// going on after an interruption. Its `supersedes` names the row it
    /// was split from (which now ends at the interruption's start, or is
    /// withdrawn), never that row's own predecessor, which it never
    /// touched.
    fn keep_after(&mut self, rel: RelationId, c: &Candidate, end: Timestamp) -> Result<()> {
        if c.valid.to > end {
            let (values, _, provenance) = self.carry(rel, c.target)?;
            let right = Interval {
                from: end,
                to: c.valid.to,
            };
            self.push(rel, values, right, Some(c.target), provenance)?;
        }
        Ok(())
    }

    fn push(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        supersedes: Option<Target>,
        provenance: u32,
    ) -> Result<Target> {
        let hash = slot_hash(&self.state.relation(rel)?.slot_columns, &values);
        let index = self.pending.len();
        let next_in_slot = self
            .slot_heads
            .insert((rel.0, hash), index)
            .unwrap_or(usize::MAX);
        self.pending.push(PendingRow {
            rel: rel.0,
            values,
            valid,
            supersedes,
            provenance,
            dropped: false,
            next_in_slot,
        });
        Ok(Target::Pending(index))
    }

    fn assert(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        provenance: u32,
    ) -> Result<()> {
        let candidates = self.candidates(rel, &values)?;
        if candidates
            .iter()
            .any(|c| c.same_values && c.valid.covers(&valid))
        {
            self.recycle(candidates);
            return Ok(());
        }
        let mut span = valid;
        let mut cut_short = None; // the row now ending where `valid` starts
        let mut replaced = None; // the first different-valued row closed
        let mut merged_link = None; // what a merged same-valued row superseded
        for c in candidates.iter().filter(|c| c.valid.overlaps(&valid)) {
            if c.same_values {
                span = Interval {
                    from: span.from.min(c.valid.from),
                    to: span.to.max(c.valid.to),
                };
                merged_link = merged_link.or(self.link_of(rel, c.target)?);
                self.withdraw(rel, c.target);
                continue;
            }
            self.keep_after(rel, c, valid.to)?;
            if c.valid.from < valid.from {
                self.cut(rel, c.target, valid.from);
                cut_short = Some(c.target);
            } else {
                self.withdraw(rel, c.target);
                replaced = replaced.or(Some(c.target));
            }
        }
        let link = cut_short.or(replaced).or(merged_link);
        self.recycle(candidates);
        self.push(rel, values, span, link, provenance)?;
        Ok(())
    }

    fn retract(&mut self, rel: RelationId, values: &[Value], valid: Interval) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        for c in candidates
            .iter()
            .filter(|c| c.same_values && c.valid.overlaps(&valid))
        {
            self.keep_after(rel, c, valid.to)?;
            if c.valid.from < valid.from {
                self.cut(rel, c.target, valid.from);
            } else {
                self.withdraw(rel, c.target);
            }
        }
        self.recycle(candidates);
        Ok(())
    }

    fn correct(&mut self, rel: RelationId, values: &[Value]) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        for c in candidates.iter().filter(|c| c.same_values) {
            self.withdraw(rel, c.target);
        }
        self.recycle(candidates);
        Ok(())
    }

    /// Assigns row ids to surviving pending rows and resolves links.
    fn finish(self) -> Result<Plan> {
        let mut next_row: FxHashMap<u32, u32> = FxHashMap::default();
        let mut row_of: Vec<u32> = vec![NONE; self.pending.len()];
        for (i, p) in self.pending.iter().enumerate() {
            if p.dropped {
                continue;
            }
            let next = match next_row.get_mut(&p.rel) {
                Some(n) => n,
                None => next_row
                    .entry(p.rel)
                    .or_insert(self.state.relation(RelationId(p.rel))?.len()),
            };
            if *next == NONE {
                return Err(Error::LimitReached {
                    what: format!("relation #{} is full (2^32 - 1 rows)", p.rel),
                });
            }
            row_of[i] = *next;
            *next += 1;
        }
        // A link to a row dropped within this transaction passes through to
        // what that row superseded.
        let resolve = |mut link: Option<Target>| -> u32 {
            for _ in 0..=self.pending.len() {
                match link {
                    None => return NONE,
                    Some(Target::Stored(row)) => return row,
                    Some(Target::Pending(i)) if row_of[i] != NONE => return row_of[i],
                    Some(Target::Pending(i)) => link = self.pending[i].supersedes,
                }
            }
            NONE
        };
        let links: Vec<u32> = self.pending.iter().map(|p| resolve(p.supersedes)).collect();
        let mut appends: Vec<Append> = Vec::new();
        let mut append_of: FxHashMap<u32, usize> = FxHashMap::default();
        for ((p, row), supersedes) in self.pending.into_iter().zip(row_of).zip(links) {
            if p.dropped {
                continue;
            }
            let new = NewRow {
                values: p.values,
                valid_from: p.valid.from.0,
                valid_to: p.valid.to.0,
                supersedes,
                provenance: p.provenance,
            };
            let at = *append_of.entry(p.rel).or_insert_with(|| {
                appends.push(Append {
                    relation: p.rel,
                    first_row: row,
                    rows: Vec::new(),
                });
                appends.len() - 1
            });
            appends[at].rows.push(new);
        }
        let mut cuts: Vec<(u32, RowId, i64)> = self
            .cuts
            .into_iter()
            .map(|((rel, row), to)| (rel, row, to))
            .collect();
        cuts.sort_unstable();
        Ok(Plan {
            appends,
            cuts,
            closes: self.closes,
        })
    }
}

/// Hash of the slot columns' values; equal slots hash equally.
fn slot_hash(slot: &[usize], values: &[Value]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for &c in slot {
        match &values[c] {
            Value::Null => 0u8.hash(&mut h),
            Value::Bool(b) => b.hash(&mut h),
            Value::Int(i) => i.hash(&mut h),
            Value::Float(x) => x.to_bits().hash(&mut h),
            Value::Str(s) => s.hash(&mut h),
            Value::Sym(s) => s.hash(&mut h),
            Value::Bytes(b) => b.hash(&mut h),
            Value::Time(t) => t.hash(&mut h),
            Value::Vector(v) => v.iter().for_each(|x| x.to_bits().hash(&mut h)),
        }
    }
    h.finish()
}
