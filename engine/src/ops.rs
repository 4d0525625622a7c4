//! The scalar operations of the language: comparison, arithmetic and
//! aggregate functions over `Val`s.

use chronolog_ql::ast::{Aggregate, ArithOp, CompareOp};

use crate::error::{Error, Result, RuntimeError};
use crate::order::SymbolOrder;
use crate::val::Val;

pub(crate) fn compare(a: &Val, op: CompareOp, b: &Val) -> bool {
    let o = a.cmp(b);
    match op {
        CompareOp::Eq => o.is_eq(),
        CompareOp::Ne => o.is_ne(),
        CompareOp::Lt => o.is_lt(),
        CompareOp::Le => o.is_le(),
        CompareOp::Gt => o.is_gt(),
        CompareOp::Ge => o.is_ge(),
    }
}

pub(crate) fn arith(a: &Val, op: ArithOp, b: &Val) -> Result<Val> {
    let bad = || Error::from(RuntimeError::CannotCompute(format!("{a:?} {op:?} {b:?}")));
    let overflow = || Error::from(RuntimeError::Overflow(format!("{a:?} {op:?} {b:?}")));
    Ok(match (a, b) {
        (Val::Int(x), Val::Int(y)) => Val::Int(
            match op {
                ArithOp::Add => x.checked_add(*y),
                ArithOp::Sub => x.checked_sub(*y),
                ArithOp::Mul => x.checked_mul(*y),
                ArithOp::Div if *y == 0 => {
                    return Err(RuntimeError::DivisionByZero.into());
                }
                // i64::MIN / -1 is the one quotient that overflows.
                ArithOp::Div => x.checked_div(*y),
            }
            .ok_or_else(overflow)?,
        ),
        // Time plus or minus a duration in microseconds.
        (Val::Time(t), Val::Int(d)) if matches!(op, ArithOp::Add | ArithOp::Sub) => Val::Time(
            if op == ArithOp::Add {
                t.checked_add(*d)
            } else {
                t.checked_sub(*d)
            }
            .ok_or_else(overflow)?,
        ),
        (Val::Time(x), Val::Time(y)) if op == ArithOp::Sub => {
            Val::Int(x.checked_sub(*y).ok_or_else(overflow)?)
        }
        _ => {
            let (x, y) = (a.as_f64().ok_or_else(bad)?, b.as_f64().ok_or_else(bad)?);
            Val::Float(match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => x / y,
            })
        }
    })
}

/// An aggregate over `values`; `symbols` orders symbols by name for `min`
/// and `max`.
pub(crate) fn apply_aggregate(
    agg: Aggregate,
    values: &[Val],
    symbols: &SymbolOrder,
) -> Result<Val> {
    Ok(match agg {
        Aggregate::Count => Val::Int(values.len() as i64),
        Aggregate::Collect => Val::List(values.to_vec().into()),
        Aggregate::Min => values
            .iter()
            .min_by(|a, b| symbols.cmp(a, b))
            .cloned()
            .unwrap_or(Val::Null),
        Aggregate::Max => values
            .iter()
            .max_by(|a, b| symbols.cmp(a, b))
            .cloned()
            .unwrap_or(Val::Null),
        Aggregate::Sum | Aggregate::Mean => {
            let mut int_sum: i64 = 0;
            let mut float_sum = 0.0;
            let mut all_int = true;
            let mut overflowed = false;
            for v in values {
                match v {
                    Val::Int(i) => {
                        // An overflowing int sum is an error only where the
                        // sum stays an int (a float anywhere makes it one).
                        match int_sum.checked_add(*i) {
                            Some(sum) => int_sum = sum,
                            None => overflowed = true,
                        }
                        float_sum += *i as f64;
                    }
                    Val::Float(x) => {
                        all_int = false;
                        float_sum += x;
                    }
                    other => return Err(RuntimeError::CannotSum(format!("{other:?}")).into()),
                }
            }
            match agg {
                Aggregate::Sum if all_int && overflowed => {
                    return Err(RuntimeError::Overflow("the sum".into()).into());
                }
                Aggregate::Sum if all_int => Val::Int(int_sum),
                Aggregate::Sum => Val::Float(float_sum),
                _ if values.is_empty() => Val::Null,
                _ => Val::Float(float_sum / values.len() as f64),
            }
        }
    })
}
