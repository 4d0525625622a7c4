//! Batches of partial bindings, and which slots each step of a rule binds.
//!
//! The executor runs a rule's steps a batch at a time: a step takes the
//! bindings that reached it (up to [`BATCH_ROWS`] rows), filters them or
//! extends each with the matches of an atom, and hands the result to the
//! next step. Compared with walking one binding at a time down the steps,
//! the per-binding work is a copy of a short row and no call, and a
//! lookup's matches are copied out in one tight loop.
//!
//! A row holds every slot of the rule. Which slots are bound before each
//! step is fixed by the plan (steps run in order and a slot is bound by its
//! first occurrence), so [`Shape`] works it out once per evaluation; slots
//! not bound yet hold `Null`, which is never read.

use chronolog_ql::plan::{Arg, HeadTerm, RulePlan, Step, Term};
use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::val::Val;

/// Rows a step collects before handing them on: enough to amortize the
/// hand-off, few enough that a batch of a wide rule stays in cache.
pub(crate) const BATCH_ROWS: usize = 1024;

/// Partial bindings of one rule, row after row, `width` slots each.
pub(crate) struct Batch {
    width: usize,
    cells: Vec<Val>,
    len: usize,
}

impl Batch {
    /// An empty batch of rows of `width` slots.
    pub(crate) fn new(width: usize) -> Batch {
        Batch {
            width,
            cells: Vec::new(),
            len: 0,
        }
    }

    /// An empty batch with room for `rows` rows.
    pub(crate) fn with_capacity(width: usize, rows: usize) -> Batch {
        Batch {
            width,
            cells: Vec::with_capacity(width * rows),
            len: 0,
        }
    }

    /// One row with nothing bound: where a rule's evaluation starts.
    pub(crate) fn start(width: usize) -> Batch {
        Batch {
            width,
            cells: vec![Val::Null; width],
            len: 1,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[Val] {
        &self.cells[i * self.width..(i + 1) * self.width]
    }

    /// Sets slot `slot` of row `i`.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, slot: usize, v: Val) {
        self.cells[i * self.width + slot] = v;
    }

    pub(crate) fn clear(&mut self) {
        self.cells.clear();
        self.len = 0;
    }

    /// Appends `parent` extended by one match: for each `(column, slot,
    /// check)` of `binds`, `value(column)` is written to `slot`, or with
    /// `check` must equal what the slot holds (`p(X, X)`, or `X` bound by an
    /// earlier step); on a mismatch nothing is appended.
    #[inline]
    pub(crate) fn push_match(
        &mut self,
        parent: &[Val],
        binds: &[Bind],
        value: impl Fn(usize) -> Val,
    ) {
        let start = self.cells.len();
        self.cells.extend_from_slice(parent);
        for b in binds {
            let v = value(b.column);
            let cell = &mut self.cells[start + b.slot];
            if b.check {
                if *cell != v {
                    self.cells.truncate(start);
                    return;
                }
            } else {
                *cell = v;
            }
        }
        self.len += 1;
    }

    /// The rows end to end.
    pub(crate) fn cells(&self) -> &[Val] {
        &self.cells
    }

    /// Keeps the rows whose flag in `keep` is set, in order.
    pub(crate) fn retain(&mut self, keep: &[bool]) {
        debug_assert_eq!(keep.len(), self.len);
        let w = self.width;
        let mut to = 0;
        for (from, &k) in keep.iter().enumerate() {
            if k {
                if to != from {
                    for c in 0..w {
                        self.cells.swap(to * w + c, from * w + c);
                    }
                }
                to += 1;
            }
        }
        self.cells.truncate(to * w);
        self.len = to;
    }
}

/// One `Bind` argument of an atom or a ranked step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bind {
    /// The column of the matched row.
    pub column: usize,
    /// The slot it binds or checks.
    pub slot: usize,
    /// The slot is bound already: compare instead of binding.
    pub check: bool,
}

/// How a rule's steps bind its slots.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// Per step: its `Bind` arguments (empty for filters, assignments and
    /// negated atoms, which bind nothing).
    pub binds: Vec<SmallVec<[Bind; 4]>>,
    /// Per step: the columns of an atom bound to a term (its lookup key).
    pub key_columns: Vec<SmallVec<[usize; 4]>>,
    /// The slot of each head column, when every head column is a variable
    /// (the head tuple is then a projection of the binding).
    pub head_slots: Option<SmallVec<[usize; 4]>>,
}

impl Shape {
    /// Works out the shape of `rule`, checking that every term reads only
    /// slots bound before it (the planner guarantees this; an unbound read
    /// would otherwise see a placeholder).
    pub(crate) fn of(rule: &RulePlan) -> Result<Shape> {
        let mut bound = vec![false; rule.slots.len()];
        let mut binds = Vec::with_capacity(rule.steps.len());
        let mut key_columns = Vec::with_capacity(rule.steps.len());
        let check_term = |bound: &[bool], t: &Term| -> Result<()> {
            if term_is_bound(t, bound) {
                Ok(())
            } else {
                Err(Error::Internal("unbound variable".into()))
            }
        };
        for step in &rule.steps {
            let mut step_binds = SmallVec::new();
            let mut keys = SmallVec::new();
            match step {
                Step::Filter(a, _, b) => {
                    check_term(&bound, a)?;
                    check_term(&bound, b)?;
                }
                Step::Assign(slot, term) => {
                    check_term(&bound, term)?;
                    mark(&mut bound, *slot)?;
                }
                Step::Atom { args, negated, .. } => {
                    for (c, a) in args.iter().enumerate() {
                        match a {
                            Arg::Bound(t) => {
                                check_term(&bound, t)?;
                                keys.push(c);
                            }
                            // A negated atom's `Bind` arguments are wildcards.
                            Arg::Bind(slot) if !negated => {
                                bind(&mut bound, &mut step_binds, c, *slot)?;
                            }
                            Arg::Bind(_) | Arg::Any => {}
                        }
                    }
                }
                Step::Ranked { op, args } => {
                    for t in op.input_terms() {
                        check_term(&bound, t)?;
                    }
                    for (c, a) in args.iter().enumerate() {
                        match a {
                            Arg::Bound(t) => check_term(&bound, t)?,
                            Arg::Bind(slot) => bind(&mut bound, &mut step_binds, c, *slot)?,
                            Arg::Any => {}
                        }
                    }
                }
            }
            binds.push(step_binds);
            key_columns.push(keys);
        }
        let head_slots = rule
            .head_terms
            .iter()
            .map(|h| match h {
                HeadTerm::Value(Term::Slot(s)) if *s < bound.len() => Some(*s),
                _ => None,
            })
            .collect();
        Ok(Shape {
            binds,
            key_columns,
            head_slots,
        })
    }
}

fn bad_slot() -> Error {
    Error::Internal("a plan names a slot its rule does not have".into())
}

/// Column `column` binds `slot`, or checks it if an earlier argument or
/// step bound it.
fn bind(
    bound: &mut [bool],
    binds: &mut SmallVec<[Bind; 4]>,
    column: usize,
    slot: usize,
) -> Result<()> {
    let seen = bound.get_mut(slot).ok_or_else(bad_slot)?;
    binds.push(Bind {
        column,
        slot,
        check: *seen,
    });
    *seen = true;
    Ok(())
}

fn mark(bound: &mut [bool], slot: usize) -> Result<()> {
    *bound.get_mut(slot).ok_or_else(bad_slot)? = true;
    Ok(())
}

/// Whether every variable of `t` is bound (constants and parameters are).
pub(crate) fn term_is_bound(t: &Term, bound: &[bool]) -> bool {
    match t {
        Term::Slot(s) => bound.get(*s).copied().unwrap_or(false),
        Term::Const(_) | Term::Param(_) => true,
        Term::Arith(a, _, b) => term_is_bound(a, bound) && term_is_bound(b, bound),
        Term::Neg(a) => term_is_bound(a, bound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chronolog_ql::ast::CompareOp;
    use chronolog_ql::plan::RelRef;

    fn ints(v: &[i64]) -> Vec<Val> {
        v.iter().map(|&i| Val::Int(i)).collect()
    }

    #[test]
    fn a_match_binds_new_slots_and_checks_bound_ones() {
        let mut b = Batch::new(3);
        let parent = [Val::Int(7), Val::Null, Val::Null];
        // p(X, Y, Y) with X bound: column 0 checks X, 1 binds Y, 2 checks Y.
        let binds = [
            Bind {
                column: 0,
                slot: 0,
                check: true,
            },
            Bind {
                column: 1,
                slot: 1,
                check: false,
            },
            Bind {
                column: 2,
                slot: 1,
                check: true,
            },
        ];
        for row in [[7, 1, 1], [7, 2, 3], [8, 4, 4], [7, 5, 5]] {
            b.push_match(&parent, &binds, |c| Val::Int(row[c]));
        }
        assert_eq!(b.len(), 2);
        assert_eq!(b.row(0), &[Val::Int(7), Val::Int(1), Val::Null]);
        assert_eq!(b.row(1), &[Val::Int(7), Val::Int(5), Val::Null]);
        b.set(1, 2, Val::Int(9));
        b.retain(&[false, true]);
        assert_eq!(b.len(), 1);
        assert_eq!(b.row(0), ints(&[7, 5, 9]).as_slice());
    }

    #[test]
    fn zero_width_batches_count_rows() {
        let mut b = Batch::start(0);
        assert_eq!(b.len(), 1);
        b.push_match(&[], &[], |_| Val::Null);
        assert_eq!(b.len(), 2);
        b.retain(&[true, false]);
        assert_eq!(b.len(), 1);
        assert!(b.row(0).is_empty());
    }

    #[test]
    fn shapes_know_which_arguments_bind_and_which_check() {
        let rule = RulePlan {
            head: 0,
            head_terms: Vec::new(),
            steps: vec![
                Step::Atom {
                    rel: RelRef::Derived(0),
                    args: vec![Arg::Bind(0), Arg::Bind(0)],
                    negated: false,
                },
                Step::Atom {
                    rel: RelRef::Derived(1),
                    args: vec![Arg::Bound(Term::Slot(0)), Arg::Bind(1), Arg::Any],
                    negated: false,
                },
                Step::Atom {
                    rel: RelRef::Derived(2),
                    args: vec![Arg::Bind(2)],
                    negated: true,
                },
                Step::Filter(Term::Slot(1), CompareOp::Lt, Term::Slot(0)),
            ],
            slots: vec!["X".into(), "Y".into(), "Z".into()],
        };
        let shape = Shape::of(&rule).expect("shape");
        let b = |column, slot, check| Bind {
            column,
            slot,
            check,
        };
        assert_eq!(shape.binds[0].as_slice(), &[b(0, 0, false), b(1, 0, true)]);
        assert_eq!(shape.binds[1].as_slice(), &[b(1, 1, false)]);
        assert!(shape.binds[2].is_empty());
        assert_eq!(shape.key_columns[1].as_slice(), &[0]);
        assert_eq!(shape.head_slots.as_deref(), Some(&[][..]));

        // Reading a slot before any step binds it is an error, not a
        // placeholder.
        let mut bad = rule.clone();
        bad.steps.swap(0, 3);
        assert!(Shape::of(&bad).is_err());
    }
}
