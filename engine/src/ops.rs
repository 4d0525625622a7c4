//! The scalar operations of the language: comparison, arithmetic and
//! aggregate functions over `Val`s.

use chronolog_ql::ast::{Aggregate, ArithOp, CompareOp};

use crate::error::{Error, Result};
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
    let bad = || Error::Runtime(format!("cannot compute {a:?} {op:?} {b:?}"));
    Ok(match (a, b) {
        (Val::Int(x), Val::Int(y)) => match op {
            ArithOp::Add => Val::Int(x.checked_add(*y).ok_or_else(bad)?),
            ArithOp::Sub => Val::Int(x.checked_sub(*y).ok_or_else(bad)?),
            ArithOp::Mul => Val::Int(x.checked_mul(*y).ok_or_else(bad)?),
            ArithOp::Div if *y == 0 => return Err(Error::Runtime("division by zero".into())),
            ArithOp::Div => Val::Int(x / y),
        },
        // Time plus or minus a duration in microseconds.
        (Val::Time(t), Val::Int(d)) if matches!(op, ArithOp::Add | ArithOp::Sub) => {
            Val::Time(if op == ArithOp::Add {
                t.saturating_add(*d)
            } else {
                t.saturating_sub(*d)
            })
        }
        (Val::Time(x), Val::Time(y)) if op == ArithOp::Sub => Val::Int(x - y),
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

pub(crate) fn apply_aggregate(agg: Aggregate, values: &[Val]) -> Result<Val> {
    Ok(match agg {
        Aggregate::Count => Val::Int(values.len() as i64),
        Aggregate::Collect => Val::List(values.to_vec().into()),
        Aggregate::Min => values.iter().min().cloned().unwrap_or(Val::Null),
        Aggregate::Max => values.iter().max().cloned().unwrap_or(Val::Null),
        Aggregate::Sum | Aggregate::Mean => {
            let mut int_sum: i64 = 0;
            let mut float_sum = 0.0;
            let mut all_int = true;
            for v in values {
                match v {
                    Val::Int(i) => {
                        int_sum = int_sum.wrapping_add(*i);
                        float_sum += *i as f64;
                    }
                    Val::Float(x) => {
                        all_int = false;
                        float_sum += x;
                    }
                    other => return Err(Error::Runtime(format!("cannot sum {other:?}"))),
                }
            }
            match agg {
                Aggregate::Sum if all_int => Val::Int(int_sum),
                Aggregate::Sum => Val::Float(float_sum),
                _ if values.is_empty() => Val::Null,
                _ => Val::Float(float_sum / values.len() as f64),
            }
        }
    })
}
