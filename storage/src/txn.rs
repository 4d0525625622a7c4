//! Write transactions and the rules that turn assertions into row changes.
//!
//! A [`WriteTxn`] buffers operations (each checked against the schema when it
//! is added, so a bad one is rejected alone and changes nothing); `commit`
//! plans their effect on the slots they touch, writes that plan to the log
//! under one transaction time, and applies it. Only two kinds of change
//! exist: append a row, and close a row's transaction interval.
//!
//! The rules, for a slot (key values, or the whole tuple without keys) whose
//! currently believed rows have pairwise disjoint valid intervals:
//!
//! * **assert** `X` over `I`: if a row already says `X` over all of `I`,
//!   nothing happens. Otherwise every row overlapping `I` is closed; the parts
//!   of a different-valued row outside `I` are re-appended as remainders; a
//!   same-valued row is merged into `I`. The new row supersedes the row it cut
//!   short (the remainder ending where `I` starts), or else the first row it
//!   replaced. This is the functional replacement: `old.valid_to =
//!   new.valid_from`, `new.supersedes = old`.
//! * **retract** `X` over `I`: the fact stops being true in the world during
//!   `I`. Rows saying `X` and overlapping `I` are closed and their parts
//!   outside `I` re-appended.
//! * **correct** `X`: we were wrong. Every believed row saying `X` is closed in
//!   transaction time with no remainder, so as of later transaction times the
//!   fact was never true, while queries `known_at` earlier still see it.

use parking_lot::MutexGuard;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::{Error, Result};
use crate::log::{Append, Change};
use crate::relation::{NONE, NewRow, Relation, RowId};
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
            Some(sym) => {
                self.store.inner.symbols.read().name(sym)?;
                sym.0
            }
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
        if let Some(valid) = valid {
            if valid.from >= valid.to {
                return Err(Error::EmptyInterval {
                    from: valid.from,
                    to: valid.to,
                });
            }
        }
        let state = self.store.inner.state.read();
        let relation = state.relation(rel)?;
        relation
            .schema
            .check_tuple(values.iter().map(Value::as_ref))?;
        let symbols = self.store.inner.symbols.read();
        for value in values {
            if let Value::Sym(sym) = value {
                symbols.name(*sym)?;
            }
        }
        Ok(())
    }

    /// Makes every operation durable and visible, atomically, under one new
    /// transaction time.
    pub fn commit(mut self) -> Result<CommitInfo> {
        let plan = {
            let state = self.store.inner.state.read();
            let mut planner = Planner::new(&state);
            for op in &self.ops {
                planner.apply(op)?;
            }
            planner.finish()?
        };
        let rows_added = plan.0.iter().map(|a| a.rows.len()).sum();
        let rows_closed = plan.1.len();
        if rows_added == 0 && rows_closed == 0 {
            return Ok(CommitInfo {
                tx: Timestamp(self.writer.last_tx),
                rows_added,
                rows_closed,
            });
        }
        let change = Change::Commit {
            appends: plan.0,
            closes: plan.1,
        };
        let tx = self.store.commit_change(&mut self.writer, change)?;
        Ok(CommitInfo {
            tx,
            rows_added,
            rows_closed,
        })
    }
}

/// A row that the plan will append, or that an existing row stands for.
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
}

/// A believed row of the slot being changed, stored or pending.
struct Candidate {
    target: Target,
    valid: Interval,
    same_values: bool,
}

struct Planner<'a> {
    state: &'a State,
    pending: Vec<PendingRow>,
    closes: Vec<(u32, RowId)>,
    closed: FxHashSet<(u32, RowId)>,
    /// Pending rows by (relation, hash of slot values), so that a large batch
    /// plans in linear time.
    pending_by_slot: FxHashMap<(u32, u64), Vec<usize>>,
}

impl<'a> Planner<'a> {
    fn new(state: &'a State) -> Planner<'a> {
        Planner {
            state,
            pending: Vec::new(),
            closes: Vec::new(),
            closed: FxHashSet::default(),
            pending_by_slot: FxHashMap::default(),
        }
    }

    fn apply(&mut self, op: &Op) -> Result<()> {
        match op {
            Op::Assert {
                rel,
                values,
                valid,
                provenance,
            } => self.assert(*rel, values, *valid, *provenance),
            Op::Retract { rel, values, valid } => self.retract(*rel, values, *valid),
            Op::Correct { rel, values } => self.correct(*rel, values),
        }
    }

    /// Believed rows in the slot of `values`, sorted by valid start.
    fn candidates(&self, rel: RelationId, values: &[Value]) -> Result<Vec<Candidate>> {
        let relation = self.state.relation(rel)?;
        let mut out: Vec<Candidate> = relation
            .live_slot_rows(values)
            .into_iter()
            .filter(|&row| !self.closed.contains(&(rel.0, row)))
            .map(|row| Candidate {
                target: Target::Stored(row),
                valid: relation.valid(row),
                same_values: relation.row_equals(row, values),
            })
            .collect();
        let slot = &relation.slot_columns;
        let key = (rel.0, slot_hash(slot, values));
        for &i in self
            .pending_by_slot
            .get(&key)
            .map_or(&[][..], Vec::as_slice)
        {
            let p = &self.pending[i];
            if !p.dropped && slot.iter().all(|&c| p.values[c] == values[c]) {
                out.push(Candidate {
                    target: Target::Pending(i),
                    valid: p.valid,
                    same_values: p.values == values,
                });
            }
        }
        out.sort_by_key(|c| c.valid.from);
        Ok(out)
    }

    fn relation(&self, rel: RelationId) -> Result<&'a Relation> {
        self.state.relation(rel)
    }

    /// Values, link and provenance of a candidate, for its remainders.
    fn carry(&self, rel: RelationId, target: Target) -> Result<(Vec<Value>, Option<Target>, u32)> {
        Ok(match target {
            Target::Stored(row) => {
                let r = self.relation(rel)?;
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

    fn withdraw(&mut self, rel: RelationId, target: Target) {
        match target {
            Target::Stored(row) => {
                if self.closed.insert((rel.0, row)) {
                    self.closes.push((rel.0, row));
                }
            }
            Target::Pending(i) => self.pending[i].dropped = true,
        }
    }

    fn push(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        supersedes: Option<Target>,
        provenance: u32,
    ) -> Result<Target> {
        let hash = slot_hash(&self.relation(rel)?.slot_columns, &values);
        self.pending_by_slot
            .entry((rel.0, hash))
            .or_default()
            .push(self.pending.len());
        self.pending.push(PendingRow {
            rel: rel.0,
            values,
            valid,
            supersedes,
            provenance,
            dropped: false,
        });
        Ok(Target::Pending(self.pending.len() - 1))
    }

    fn assert(
        &mut self,
        rel: RelationId,
        values: &[Value],
        valid: Interval,
        provenance: u32,
    ) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        if candidates
            .iter()
            .any(|c| c.same_values && c.valid.covers(&valid))
        {
            return Ok(());
        }
        let mut span = valid;
        let mut cut_short = None; // the remainder ending where `valid` starts
        let mut replaced = None; // the first different-valued row replaced
        let mut merged_link = None; // what a merged same-valued row superseded
        for c in candidates.iter().filter(|c| c.valid.overlaps(&valid)) {
            let (old_values, link, old_provenance) = self.carry(rel, c.target)?;
            self.withdraw(rel, c.target);
            if c.same_values {
                span = Interval {
                    from: span.from.min(c.valid.from),
                    to: span.to.max(c.valid.to),
                };
                merged_link = merged_link.or(link);
                continue;
            }
            replaced = replaced.or(Some(c.target));
            if c.valid.from < valid.from {
                let left = Interval {
                    from: c.valid.from,
                    to: valid.from,
                };
                cut_short = Some(self.push(rel, old_values.clone(), left, link, old_provenance)?);
            }
            if c.valid.to > valid.to {
                let right = Interval {
                    from: valid.to,
                    to: c.valid.to,
                };
                self.push(rel, old_values, right, link, old_provenance)?;
            }
        }
        let link = cut_short.or(replaced).or(merged_link);
        self.push(rel, values.to_vec(), span, link, provenance)?;
        Ok(())
    }

    fn retract(&mut self, rel: RelationId, values: &[Value], valid: Interval) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        for c in candidates
            .iter()
            .filter(|c| c.same_values && c.valid.overlaps(&valid))
        {
            let (old_values, link, provenance) = self.carry(rel, c.target)?;
            self.withdraw(rel, c.target);
            if c.valid.from < valid.from {
                let left = Interval {
                    from: c.valid.from,
                    to: valid.from,
                };
                self.push(rel, old_values.clone(), left, link, provenance)?;
            }
            if c.valid.to > valid.to {
                let right = Interval {
                    from: valid.to,
                    to: c.valid.to,
                };
                self.push(rel, old_values, right, link, provenance)?;
            }
        }
        Ok(())
    }

    fn correct(&mut self, rel: RelationId, values: &[Value]) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        for c in candidates.iter().filter(|c| c.same_values) {
            self.withdraw(rel, c.target);
        }
        Ok(())
    }

    /// Assigns row ids to surviving pending rows and resolves links.
    fn finish(self) -> Result<(Vec<Append>, Vec<(u32, RowId)>)> {
        let mut next_row: FxHashMap<u32, u32> = FxHashMap::default();
        let mut row_of: Vec<Option<RowId>> = vec![None; self.pending.len()];
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
            row_of[i] = Some(*next);
            *next += 1;
        }
        // A link to a row dropped within this transaction passes through to
        // what that row superseded.
        let resolve = |mut link: Option<Target>| -> u32 {
            for _ in 0..=self.pending.len() {
                match link {
                    None => return NONE,
                    Some(Target::Stored(row)) => return row,
                    Some(Target::Pending(i)) => match row_of[i] {
                        Some(row) => return row,
                        None => link = self.pending[i].supersedes,
                    },
                }
            }
            NONE
        };
        let mut appends: Vec<Append> = Vec::new();
        for (i, p) in self.pending.iter().enumerate() {
            let Some(row) = row_of[i] else { continue };
            let new = NewRow {
                values: p.values.clone(),
                valid_from: p.valid.from.0,
                valid_to: p.valid.to.0,
                supersedes: resolve(p.supersedes),
                provenance: p.provenance,
            };
            match appends.iter_mut().find(|a| a.relation == p.rel) {
                Some(a) => a.rows.push(new),
                None => appends.push(Append {
                    relation: p.rel,
                    first_row: row,
                    rows: vec![new],
                }),
            }
        }
        Ok((appends, self.closes))
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
