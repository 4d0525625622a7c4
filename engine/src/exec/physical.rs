//! The physical stage, between a logical [`Plan`] and its evaluation.
//!
//! A plan names relations and symbols and leaves terms as written. Two
//! things are worked out from it, each as early as it can be:
//!
//! * [`Physical`], from the plan alone, once when a query is prepared: each
//!   rule's [`Shape`] (which step binds which slot, each atom's key
//!   columns, the head as a projection), how many rules define each
//!   relation, and whether the answer is a derived relation as it stands.
//! * [`BoundRule`]s, once per execution, against that execution's snapshot
//!   and parameters: stored relations as ids with their column types,
//!   symbol constants as the store's ids (or virtual ones), `$parameters`
//!   as their values, and whether a rule may append without the set probe
//!   (`distinct.rs`, which reads the relations' keys). A commit between two
//!   executions may intern a symbol or create a relation, so none of this
//!   outlives the execution.
//!
//! Evaluation then never goes back to storage by name, never hashes a
//! symbol name or parameter name per binding, and never recomputes a shape
//! per fixpoint round.

use chronolog_ql::ast::{ArithOp, CompareOp};
use chronolog_ql::plan::{Arg, HeadTerm, Plan, RelRef, RulePlan, Step, Term};

use super::Executor;
use super::stored::StoredReads;
use crate::batch::Shape;
use crate::distinct::head_is_distinct;
use crate::error::{Error, Result};
use crate::retrieval::bound::BoundRanked;
use crate::val::Val;

/// What a plan needs at run time that depends on the plan alone.
#[derive(Clone, Debug)]
pub(crate) struct Physical {
    /// Per rule, strata flattened in order: its shape.
    shapes: Vec<Shape>,
    /// Per derived relation: how many rules define it.
    rules_per_head: Vec<usize>,
    /// The query's answer is this derived relation, columns in this order
    /// (see [`passthrough`]).
    pub(super) passthrough: Option<(usize, Vec<usize>)>,
}

impl Physical {
    /// Works out the physical shape of `plan`; fails only on a plan that
    /// breaks the compiler's guarantees (an internal error).
    pub(crate) fn of(plan: &Plan) -> Result<Physical> {
        let mut rules_per_head = vec![0usize; plan.derived.len()];
        let mut shapes = Vec::new();
        for rule in plan.strata.iter().flat_map(|s| &s.rules) {
            *rules_per_head
                .get_mut(rule.head)
                .ok_or_else(|| Error::Internal("a rule for an unknown relation".into()))? += 1;
            shapes.push(Shape::of(rule)?);
        }
        Ok(Physical {
            shapes,
            rules_per_head,
            passthrough: plan.strata.last().and_then(|s| passthrough(&s.rules)),
        })
    }
}

/// A term bound for one execution: constants and parameters are values.
#[derive(Clone, Debug)]
pub(super) enum Operand {
    /// The binding's value in this slot.
    Slot(usize),
    /// A constant or parameter's value.
    Value(Val),
    /// `a op b`.
    Arith(Box<Operand>, ArithOp, Box<Operand>),
    /// `-a`.
    Neg(Box<Operand>),
}

/// An atom's argument, bound.
#[derive(Debug)]
pub(super) enum BoundArg {
    /// Binds (or, already bound, checks) a slot: which one, the rule's
    /// `Shape` says.
    Bind,
    /// `_`.
    Any,
    /// Must equal this value: a lookup key.
    Key(Operand),
}

/// The relation an atom reads, by number.
#[derive(Clone, Copy, Debug)]
pub(super) enum BoundRel {
    /// A derived relation of the plan.
    Derived(usize),
    /// An index into the executor's stored-relation reads.
    Stored(usize),
}

/// A step with its names resolved and its terms bound.
#[derive(Debug)]
pub(super) enum BoundStep<'p> {
    Filter(Operand, CompareOp, Operand),
    Assign(usize, Operand),
    Atom {
        rel: BoundRel,
        args: Vec<BoundArg>,
        negated: bool,
    },
    Ranked {
        op: BoundRanked<'p>,
        /// The operator's inputs, in the order `Retrieval::rank` takes them.
        inputs: Vec<Operand>,
        args: Vec<BoundArg>,
    },
}

/// A rule ready to run in one execution.
pub(super) struct BoundRule<'p> {
    /// The logical rule (head relation, slots, aggregates).
    pub(super) plan: &'p RulePlan,
    pub(super) shape: &'p Shape,
    pub(super) steps: Vec<BoundStep<'p>>,
    /// The head's value terms, in order (aggregates apart).
    pub(super) head: Vec<Operand>,
    /// The only rule of its head and `head_is_distinct`: while the head
    /// relation is empty, its tuples can be appended without the set
    /// probe.
    pub(super) distinct: bool,
}

impl BoundRule<'_> {
    /// The relation it derives into.
    pub(super) fn head(&self) -> usize {
        self.plan.head
    }
}

impl Executor<'_> {
    /// Binds every rule of `plan`, strata flattened in order.
    pub(super) fn bind<'p>(
        &mut self,
        plan: &'p Plan,
        physical: &'p Physical,
    ) -> Result<Vec<BoundRule<'p>>> {
        let rules: Vec<&RulePlan> = plan.strata.iter().flat_map(|s| &s.rules).collect();
        if rules.len() != physical.shapes.len() {
            return Err(Error::Internal("a physical plan of another plan".into()));
        }
        let mut bound = Vec::with_capacity(rules.len());
        for (rule, shape) in rules.into_iter().zip(&physical.shapes) {
            let steps = rule
                .steps
                .iter()
                .map(|step| self.bind_step(step))
                .collect::<Result<Vec<_>>>()?;
            let head = rule
                .head_terms
                .iter()
                .filter_map(|h| match h {
                    HeadTerm::Value(t) => Some(self.operand(t)),
                    HeadTerm::Aggregate(..) => None,
                })
                .collect::<Result<Vec<_>>>()?;
            let distinct = physical.rules_per_head.get(rule.head) == Some(&1)
                && head_is_distinct(rule, self.snapshot.store());
            bound.push(BoundRule {
                plan: rule,
                shape,
                steps,
                head,
                distinct,
            });
        }
        Ok(bound)
    }

    fn bind_step<'p>(&mut self, step: &'p Step) -> Result<BoundStep<'p>> {
        Ok(match step {
            Step::Filter(a, op, b) => BoundStep::Filter(self.operand(a)?, *op, self.operand(b)?),
            Step::Assign(slot, t) => BoundStep::Assign(*slot, self.operand(t)?),
            Step::Atom { rel, args, negated } => BoundStep::Atom {
                rel: match rel {
                    RelRef::Derived(r) => BoundRel::Derived(*r),
                    RelRef::Stored(name) => BoundRel::Stored(self.stored_reads(name)?),
                },
                args: self.bind_args(args)?,
                negated: *negated,
            },
            Step::Ranked { op, args } => BoundStep::Ranked {
                op: BoundRanked::bind(op, self.snapshot.store())?,
                inputs: op
                    .input_terms()
                    .into_iter()
                    .map(|t| self.operand(t))
                    .collect::<Result<_>>()?,
                args: self.bind_args(args)?,
            },
        })
    }

    fn bind_args(&mut self, args: &[Arg]) -> Result<Vec<BoundArg>> {
        args.iter()
            .map(|a| {
                Ok(match a {
                    Arg::Bind(_) => BoundArg::Bind,
                    Arg::Any => BoundArg::Any,
                    Arg::Bound(t) => BoundArg::Key(self.operand(t)?),
                })
            })
            .collect()
    }

    /// `term` with its constants and parameters as values.
    pub(super) fn operand(&mut self, term: &Term) -> Result<Operand> {
        Ok(match term {
            Term::Slot(s) => Operand::Slot(*s),
            Term::Const(c) => Operand::Value(self.constant(c)),
            Term::Param(p) => Operand::Value(
                self.params
                    .get(p)
                    .cloned()
                    .ok_or_else(|| Error::MissingParam(p.clone()))?,
            ),
            Term::Arith(a, op, b) => {
                Operand::Arith(Box::new(self.operand(a)?), *op, Box::new(self.operand(b)?))
            }
            Term::Neg(a) => Operand::Neg(Box::new(self.operand(a)?)),
        })
    }

    /// The index of `name` among the stored relations this execution
    /// reads, registering it (its id and column types) on first sight.
    fn stored_reads(&mut self, name: &str) -> Result<usize> {
        if let Some(i) = self.stored.iter().position(|s| s.name == name) {
            return Ok(i);
        }
        let store = self.snapshot.store();
        let rel = store.relation_id(name)?;
        self.stored.push(StoredReads {
            name: name.to_string(),
            rel,
            types: store.column_types(rel)?,
            lookups: 0,
            materialized: None,
        });
        Ok(self.stored.len() - 1)
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
