//! Values of terms: constants, parameters, arithmetic, comparisons,
//! and the time and count arguments of a query.

use std::sync::Arc;

use chronolog_ql::ast::CompareOp;
use chronolog_ql::plan::{Constant, Count, Term};
use chronolog_storage::Timestamp;
use rustc_hash::FxHashMap;

use super::physical::Operand;
use super::*;
use crate::error::{Error, Result, RuntimeError};
use crate::ops::{arith, compare};
use crate::order::SymbolOrder;
use crate::val::Val;

impl Executor<'_> {
    pub(super) fn time_of(&mut self, term: &Term, what: &'static str) -> Result<Timestamp> {
        match self.eval(term, &[])? {
            Val::Time(t) => Ok(Timestamp(t)),
            other => Err(RuntimeError::NeedsTime {
                what,
                got: format!("{other:?}"),
            }
            .into()),
        }
    }

    /// Symbols in name order (see `order.rs`), the query's own names
    /// among them; made once per query, when first needed.
    pub(super) fn symbol_order(&mut self) -> Arc<SymbolOrder> {
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
    pub(super) fn compare(&mut self, a: &Val, op: CompareOp, b: &Val) -> Result<bool> {
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
                return Err(RuntimeError::TimeVersusNumber(
                    self.render_plain(a),
                    self.render_plain(b),
                )
                .into());
            }
            _ => compare(a, op, b),
        })
    }

    /// A value as text for an error message.
    pub(super) fn render_plain(&self, v: &Val) -> String {
        match v {
            Val::Time(t) => Timestamp(*t).to_string(),
            Val::Int(i) => i.to_string(),
            Val::Float(x) => x.to_string(),
            other => format!("{other:?}"),
        }
    }

    /// Evaluates a plan term under one row of bindings, for the few terms
    /// evaluated once per query (times, `history` keys); the rules' terms
    /// are bound first (`physical.rs`) and evaluated by [`Executor::value`].
    pub(super) fn eval(&mut self, term: &Term, bindings: &[Val]) -> Result<Val> {
        let operand = self.operand(term)?;
        self.value(&operand, bindings)
    }

    /// Evaluates a bound term under one row of bindings (slots a term
    /// reads are bound: `Shape::of` checked).
    pub(super) fn value(&self, operand: &Operand, bindings: &[Val]) -> Result<Val> {
        Ok(match operand {
            Operand::Slot(s) => bindings
                .get(*s)
                .cloned()
                .ok_or_else(|| Error::Internal("unbound variable".into()))?,
            Operand::Value(v) => v.clone(),
            Operand::Neg(a) => match self.value(a, bindings)? {
                Val::Int(i) => Val::Int(
                    i.checked_neg()
                        .ok_or_else(|| Error::from(RuntimeError::Overflow(format!("-({i})"))))?,
                ),
                Val::Float(x) => Val::Float(-x),
                other => return Err(RuntimeError::CannotNegate(format!("{other:?}")).into()),
            },
            Operand::Arith(a, op, b) => {
                let (a, b) = (self.value(a, bindings)?, self.value(b, bindings)?);
                arith(&a, *op, &b)?
            }
        })
    }

    pub(super) fn constant(&mut self, c: &Constant) -> Val {
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

/// A query's `limit`, its `$parameter` looked up: a non-negative integer.
pub(super) fn resolve_limit(
    limit: Option<&Count>,
    params: &FxHashMap<String, Val>,
) -> Result<Option<u64>> {
    match limit {
        None => Ok(None),
        Some(Count::Fixed(n)) => Ok(Some(*n)),
        Some(Count::Param(name)) => match params.get(name) {
            None => Err(Error::MissingParam(name.clone())),
            Some(Val::Int(n)) if *n >= 0 => Ok(Some(*n as u64)),
            Some(other) => Err(RuntimeError::BadLimit {
                name: name.clone(),
                got: format!("{other:?}"),
            }
            .into()),
        },
    }
}
