//! Aggregation over a rule's bindings (as Souffle: over the matches,
//! not over distinct values).

use chronolog_ql::ast::Aggregate;
use chronolog_ql::plan::HeadTerm;
use smallvec::SmallVec;

use super::physical::BoundRule;
use super::*;
use crate::batch::Batch;
use crate::error::{Error, Result};
use crate::ops::apply_aggregate;
use crate::radix::sort_by_low_bits;
use crate::relation::Relation;
use crate::rows::canonical_order;
use crate::val::{Tuple, Val};

impl Executor<'_> {
    /// The head tuples of a rule that aggregates, from its bindings (each
    /// distinct binding counts once: answers are sets).
    pub(super) fn aggregate(
        &mut self,
        rule: &BoundRule<'_>,
        bindings: &Batch,
    ) -> Result<Vec<Tuple>> {
        // Distinct bindings in value order: a fixed order, since `collect`
        // lists and float sums depend on it.
        let symbols = self.symbol_order();
        let mut order =
            canonical_order(bindings.cells(), bindings.width(), bindings.len(), &symbols);
        order.dedup_by(|a, b| bindings.row(*a as usize) == bindings.row(*b as usize));
        // Each binding's group: its head values, numbered by a relation
        // used as a dictionary.
        let key_arity = rule.head.len();
        let mut groups = Relation::new(key_arity);
        let mut members: Vec<(u64, u32)> = Vec::with_capacity(order.len());
        let mut key: SmallVec<[Val; 4]> = SmallVec::new();
        for &at in &order {
            let b = bindings.row(at as usize);
            key.clear();
            for t in &rule.head {
                key.push(self.value(t, b)?);
            }
            members.push((u64::from(groups.find_or_insert(&key)), at));
        }
        // Stable: a group's bindings stay in value order.
        sort_by_low_bits(&mut members, 32);
        let mut out = Vec::with_capacity(groups.len() as usize);
        let mut inputs: Vec<Val> = Vec::new();
        for span in members.chunk_by(|a, b| a.0 == b.0) {
            let mut keys = groups.row(span[0].0 as u32).iter();
            let mut tuple = Vec::with_capacity(rule.plan.head_terms.len());
            for h in &rule.plan.head_terms {
                match h {
                    HeadTerm::Value(_) => tuple.push(keys.next().cloned().unwrap_or(Val::Null)),
                    HeadTerm::Aggregate(agg, slot) => {
                        inputs.clear();
                        for &(_, at) in span {
                            let v = bindings
                                .row(at as usize)
                                .get(*slot)
                                .ok_or_else(|| Error::Internal("unbound variable".into()))?;
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
                .plan
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
}
