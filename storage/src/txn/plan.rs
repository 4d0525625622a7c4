//! The planner: turns a transaction's operations into row changes (appends,
//! cuts, closes) against the believed rows of each slot, seeing the
//! operations before it in the same transaction.

use rustc_hash::{FxHashMap, FxHashSet};

mod give_back;

use super::{Op, Replaced};
use crate::error::{Error, Result};
use crate::log::Append;
use crate::log::NewRow;
use crate::relation::{NONE, RowId};
use crate::store::{RelationId, State};
use crate::time::{Interval, Timestamp};
use crate::value::Value;

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
pub(super) struct Plan {
    pub(super) appends: Vec<Append>,
    pub(super) cuts: Vec<(u32, RowId, i64)>,
    pub(super) closes: Vec<(u32, RowId)>,
    pub(super) replaced: Vec<Replaced>,
}

pub(super) struct Planner<'a> {
    state: &'a State,
    pending: Vec<PendingRow>,
    /// Newest pending row per (relation, slot hash); older ones chain through
    /// `next_in_slot`, so a large batch plans in linear time.
    slot_heads: FxHashMap<(u32, u64), usize>,
    /// Planned valid ends of stored rows.
    cuts: FxHashMap<(u32, RowId), i64>,
    closes: Vec<(u32, RowId)>,
    closed: FxHashSet<(u32, RowId)>,
    /// Stored rows of another fact that an assert withdrew whole.
    replaced: Vec<(u32, RowId)>,
    scratch: Vec<RowId>,
    found: Vec<Candidate>,
}

impl<'a> Planner<'a> {
    pub(super) fn new(state: &'a State) -> Planner<'a> {
        Planner {
            state,
            pending: Vec::new(),
            slot_heads: FxHashMap::default(),
            cuts: FxHashMap::default(),
            closes: Vec::new(),
            closed: FxHashSet::default(),
            replaced: Vec::new(),
            scratch: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Plans `op` in a commit at transaction time `tx`.
    pub(super) fn apply(&mut self, op: Op, tx: i64) -> Result<()> {
        match op {
            Op::Assert {
                rel,
                values,
                valid,
                provenance,
            } => self.assert(rel, values, valid.at(tx), provenance),
            Op::Retract { rel, values, valid } => self.retract(rel, &values, valid.at(tx)),
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
                if let Target::Stored(row) = c.target
                    && c.valid.to <= valid.to
                {
                    self.replaced.push((rel.0, row));
                }
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

    /// Withdraws every believed row saying `values`, then gives back to the
    /// other facts of the slot the valid time those rows' assertions took
    /// from them (see `give_back`).
    fn correct(&mut self, rel: RelationId, values: &[Value]) -> Result<()> {
        let candidates = self.candidates(rel, values)?;
        let taken = self.taken_by(rel, values, &candidates)?;
        for c in candidates.iter().filter(|c| c.same_values) {
            self.withdraw(rel, c.target);
        }
        self.recycle(candidates);
        self.give_back(rel, values, taken)
    }

    /// Assigns row ids to surviving pending rows and resolves links.
    pub(super) fn finish(self) -> Result<Plan> {
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
        // Reported only if still withdrawn (a correction may have given it
        // back), once, with what it was.
        let mut replaced = Vec::new();
        let mut seen = FxHashSet::default();
        for (rel, row) in self.replaced {
            if self.closed.contains(&(rel, row)) && seen.insert((rel, row)) {
                let relation = self.state.relation(RelationId(rel))?;
                replaced.push(Replaced {
                    relation: RelationId(rel),
                    row,
                    values: (0..relation.schema.arity())
                        .map(|c| relation.value(row, c).to_owned())
                        .collect(),
                    valid: relation.valid(row),
                });
            }
        }
        Ok(Plan {
            appends,
            cuts,
            closes: self.closes,
            replaced,
        })
    }
}

/// The operations without the assertions a later `correct` of the same
/// fact in the same transaction withdraws: "X was never said" covers what
/// this transaction said of X before, so an assert and its correction in
/// one batch plan as if the assert had never been written (the facts the
/// assert would have cut stay whole, whether stored or pending).
pub(super) fn without_corrected(ops: Vec<Op>) -> Vec<Op> {
    let whole = |values: &[Value]| -> u64 {
        let columns: Vec<usize> = (0..values.len()).collect();
        slot_hash(&columns, values)
    };
    // Each correction's place, by the hash of the fact it withdraws.
    let mut corrections: FxHashMap<(u32, u64), Vec<usize>> = FxHashMap::default();
    for (at, op) in ops.iter().enumerate() {
        if let Op::Correct { rel, values } = op {
            corrections
                .entry((rel.0, whole(values)))
                .or_default()
                .push(at);
        }
    }
    if corrections.is_empty() {
        return ops;
    }
    let withdrawn_later = |at: usize, rel: RelationId, values: &[Value]| {
        corrections
            .get(&(rel.0, whole(values)))
            .is_some_and(|places| {
                places.iter().any(|&c| {
                    c > at
                        && matches!(&ops[c], Op::Correct { values: v, .. } if v.as_slice() == values)
                })
            })
    };
    let keep: Vec<bool> = ops
        .iter()
        .enumerate()
        .map(|(at, op)| match op {
            Op::Assert { rel, values, .. } => !withdrawn_later(at, *rel, values),
            _ => true,
        })
        .collect();
    ops.into_iter()
        .zip(keep)
        .filter_map(|(op, keep)| keep.then_some(op))
        .collect()
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
