//! What a correction gives back.
//!
//! `correct X` means "X was never said". Withdrawing X's rows is not enough
//! in a keyed relation: asserting X cut short or replaced the facts that
//! held X's key before it, and with X gone they must be whole again. The
//! rule, for each transaction `t` that wrote a row of X during X's current
//! run of belief (the transactions since X last had no believed row, and
//! the one now being planned):
//!
//! > X took, at `t`, the valid time that another value of the slot held
//! > just before `t`, no longer held just after `t`, and that X held just
//! > after `t`.
//!
//! Each such piece goes back to the value that lost it wherever no believed
//! row of the slot holds it once X is withdrawn; newer takings first, so a
//! piece X took twice goes back to the fact it took it from last. What
//! comes back is a continuation row (same values and provenance,
//! `supersedes` the row it continues); a row cut or closed earlier in the
//! same transaction is instead un-cut or un-closed, so an assert and its
//! correction in one transaction change nothing.
//!
//! The rule reads a transaction's effect, not its operations: when one
//! transaction both asserted X and retracted another fact of the same key,
//! the retracted time under X counts as taken by X.

use super::{Candidate, Planner, Target, slot_hash};
use crate::error::Result;
use crate::relation::{Relation, RowId};
use crate::store::RelationId;
use crate::time::{Interval, Timestamp};
use crate::value::Value;

/// Valid time a correction gives back, and the stored row whose fact lost it.
pub(super) struct Taken {
    row: RowId,
    piece: Interval,
}

impl Planner<'_> {
    /// What the assertions of `values` took from the other facts of their
    /// slot, newest first. `candidates` are the slot's believed rows now.
    pub(super) fn taken_by(
        &self,
        rel: RelationId,
        values: &[Value],
        candidates: &[Candidate],
    ) -> Result<Vec<Taken>> {
        let relation = self.state.relation(rel)?;
        if relation.slot_columns.len() == values.len() {
            // The slot is the whole tuple: it holds no other fact to restore.
            return Ok(Vec::new());
        }
        let mut taken = Vec::new();

        // This transaction: stored rows of other facts it cut or closed.
        let x_now: Vec<Interval> = candidates
            .iter()
            .filter(|c| c.same_values)
            .map(|c| c.valid)
            .collect();
        let mut touched: Vec<RowId> = self
            .cuts
            .keys()
            .chain(self.closed.iter())
            .filter(|&&(r, _)| r == rel.0)
            .map(|&(_, row)| row)
            .filter(|&row| in_slot(relation, row, values) && !relation.slot_row_equals(row, values))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        for row in touched {
            let before = relation.valid(row);
            let after = match self.cuts.get(&(rel.0, row)) {
                Some(&to) if !self.closed.contains(&(rel.0, row)) => vec![Interval {
                    from: before.from,
                    to: Timestamp(to),
                }],
                _ => Vec::new(),
            };
            // Still held by another row of the same fact (a remainder).
            let mut kept = after;
            kept.extend(
                candidates
                    .iter()
                    .filter(|c| self.same_fact(rel, c.target, row))
                    .map(|c| c.valid),
            );
            for lost in subtract(before, &kept) {
                push_overlaps(&mut taken, row, lost, &x_now);
            }
        }

        // Earlier transactions of X's current run of belief.
        let mut rows = Vec::new();
        relation.slot_rows(values, false, &mut rows);
        let (xs, ys): (Vec<RowId>, Vec<RowId>) = rows
            .iter()
            .partition(|&&row| relation.slot_row_equals(row, values));
        if !xs.iter().any(|&row| relation.tx_to(row) == i64::MAX) {
            return Ok(taken);
        }
        let mut spans: Vec<(i64, i64)> = xs
            .iter()
            .map(|&row| (relation.tx_from(row), relation.tx_to(row)))
            .collect();
        spans.sort_unstable_by_key(|&(_, to)| std::cmp::Reverse(to));
        let mut run_start = i64::MAX;
        for (from, to) in spans {
            if to < run_start {
                break;
            }
            run_start = run_start.min(from);
        }
        let mut txs: Vec<i64> = xs
            .iter()
            .map(|&row| relation.tx_from(row))
            .filter(|&t| t >= run_start)
            .collect();
        txs.sort_unstable_by(|a, b| b.cmp(a));
        txs.dedup();
        let fact_of = facts(relation, &ys);
        let believed =
            |row: RowId, at: i64| relation.tx_from(row) <= at && at < relation.tx_to(row);
        let mut kept: Vec<Vec<Interval>> = Vec::new();
        for t in txs {
            let x_then: Vec<Interval> = xs
                .iter()
                .filter(|&&row| believed(row, t))
                .map(|&row| relation.valid_at(row, t))
                .collect();
            kept.iter_mut().for_each(Vec::clear);
            kept.resize(fact_of.iter().max().map_or(0, |&f| f + 1), Vec::new());
            for (i, &row) in ys.iter().enumerate() {
                if believed(row, t) {
                    kept[fact_of[i]].push(relation.valid_at(row, t));
                }
            }
            for (i, &row) in ys.iter().enumerate() {
                if believed(row, t - 1) {
                    let before = relation.valid_at(row, t - 1);
                    for lost in subtract(before, &kept[fact_of[i]]) {
                        push_overlaps(&mut taken, row, lost, &x_then);
                    }
                }
            }
        }
        Ok(taken)
    }

    /// Gives each taken piece back to its fact where no believed row of the
    /// slot of `values` holds it.
    pub(super) fn give_back(
        &mut self,
        rel: RelationId,
        values: &[Value],
        taken: Vec<Taken>,
    ) -> Result<()> {
        if taken.is_empty() {
            return Ok(());
        }
        let candidates = self.candidates(rel, values)?;
        let mut held: Vec<Interval> = candidates.iter().map(|c| c.valid).collect();
        self.recycle(candidates);
        for Taken { row, piece } in taken {
            for part in subtract(piece, &held) {
                held.push(part);
                self.restore(rel, row, part)?;
            }
        }
        Ok(())
    }

    /// Makes `row`'s fact true again over `piece`: un-cuts or un-closes the
    /// row when this transaction cut or closed it there, else appends a
    /// continuation of it.
    fn restore(&mut self, rel: RelationId, row: RowId, piece: Interval) -> Result<()> {
        let whole = self.state.relation(rel)?.valid(row);
        let key = (rel.0, row);
        if self.closed.contains(&key) {
            if piece.from == whole.from {
                let (end, absorbed) = self.rejoin(rel, row, piece.to)?;
                if end == whole.to {
                    self.closed.remove(&key);
                    self.closes.retain(|&c| c != key);
                    return Ok(());
                }
                absorbed
                    .into_iter()
                    .for_each(|i| self.pending[i].dropped = false);
            }
        } else if let Some(&to) = self.cuts.get(&key)
            && to == piece.from.0
        {
            let (end, _) = self.rejoin(rel, row, piece.to)?;
            if end >= whole.to {
                self.cuts.remove(&key);
            } else {
                self.cuts.insert(key, end.0);
            }
            return Ok(());
        }
        let (values, _, provenance) = self.carry(rel, Target::Stored(row))?;
        self.push(rel, values, piece, Some(Target::Stored(row)), provenance)?;
        Ok(())
    }

    /// Drops the pending continuations of `row` (remainders, restorations)
    /// that run on from `end` without a gap; returns where the run ends and
    /// what was dropped.
    fn rejoin(
        &mut self,
        rel: RelationId,
        row: RowId,
        mut end: Timestamp,
    ) -> Result<(Timestamp, Vec<usize>)> {
        let relation = self.state.relation(rel)?;
        let values: Vec<Value> = (0..relation.schema.arity())
            .map(|c| relation.value(row, c).to_owned())
            .collect();
        let mut absorbed = Vec::new();
        'next: loop {
            let mut i = self
                .slot_heads
                .get(&(rel.0, slot_hash(&relation.slot_columns, &values)))
                .copied()
                .unwrap_or(usize::MAX);
            while i != usize::MAX {
                let p = &self.pending[i];
                if !p.dropped
                    && p.valid.from == end
                    && p.values == values
                    && self.continues(p.supersedes, row)
                {
                    end = p.valid.to;
                    self.pending[i].dropped = true;
                    absorbed.push(i);
                    continue 'next;
                }
                i = p.next_in_slot;
            }
            return Ok((end, absorbed));
        }
    }

    /// Whether `link`, passing through rows dropped in this transaction,
    /// leads to the stored row `row`.
    fn continues(&self, mut link: Option<Target>, row: RowId) -> bool {
        for _ in 0..=self.pending.len() {
            match link {
                Some(Target::Stored(r)) => return r == row,
                Some(Target::Pending(i)) if self.pending[i].dropped => {
                    link = self.pending[i].supersedes
                }
                _ => return false,
            }
        }
        false
    }

    /// Whether `target` says the same fact (all values) as stored `row`.
    fn same_fact(&self, rel: RelationId, target: Target, row: RowId) -> bool {
        let Ok(relation) = self.state.relation(rel) else {
            return false;
        };
        match target {
            Target::Stored(other) => same_values(relation, other, row),
            Target::Pending(i) => self.pending[i]
                .values
                .iter()
                .enumerate()
                .all(|(c, v)| relation.value(row, c) == v.as_ref()),
        }
    }
}

fn in_slot(relation: &Relation, row: RowId, values: &[Value]) -> bool {
    relation
        .slot_columns
        .iter()
        .all(|&c| relation.value(row, c) == values[c].as_ref())
}

fn same_values(relation: &Relation, a: RowId, b: RowId) -> bool {
    (0..relation.schema.arity()).all(|c| relation.value(a, c) == relation.value(b, c))
}

/// For each row, the index of the first row saying the same fact.
fn facts(relation: &Relation, rows: &[RowId]) -> Vec<usize> {
    let mut firsts: Vec<RowId> = Vec::new();
    rows.iter()
        .map(|&row| {
            firsts
                .iter()
                .position(|&f| same_values(relation, f, row))
                .unwrap_or_else(|| {
                    firsts.push(row);
                    firsts.len() - 1
                })
        })
        .collect()
}

fn push_overlaps(taken: &mut Vec<Taken>, row: RowId, lost: Interval, by: &[Interval]) {
    for x in by {
        let from = lost.from.max(x.from);
        let to = lost.to.min(x.to);
        if from < to {
            taken.push(Taken {
                row,
                piece: Interval { from, to },
            });
        }
    }
}

/// `whole` minus every interval of `holes`, in order.
fn subtract(whole: Interval, holes: &[Interval]) -> Vec<Interval> {
    let mut parts = vec![whole];
    for hole in holes {
        parts = parts
            .into_iter()
            .flat_map(|p| {
                if !p.overlaps(hole) {
                    return vec![p];
                }
                let mut out = Vec::new();
                if p.from < hole.from {
                    out.push(Interval {
                        from: p.from,
                        to: hole.from,
                    });
                }
                if hole.to < p.to {
                    out.push(Interval {
                        from: hole.to,
                        to: p.to,
                    });
                }
                out
            })
            .collect();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(from: i64, to: i64) -> Interval {
        Interval {
            from: Timestamp(from),
            to: Timestamp(to),
        }
    }

    #[test]
    fn subtract_leaves_what_no_hole_covers() {
        assert_eq!(subtract(iv(0, 10), &[]), vec![iv(0, 10)]);
        assert_eq!(
            subtract(iv(0, 10), &[iv(2, 4), iv(6, 20)]),
            vec![iv(0, 2), iv(4, 6)]
        );
        assert_eq!(subtract(iv(0, 10), &[iv(-5, 20)]), vec![]);
        assert_eq!(subtract(iv(0, 10), &[iv(10, 20)]), vec![iv(0, 10)]);
    }
}
