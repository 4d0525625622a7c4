//! Fact statements lowered to writes: a fact's relation and arity
//! checked, each argument made a value of its column's type (symbols
//! interned in the transaction, `$parameters` and `let`s substituted),
//! and its valid interval read.

use chronolog_ql::ast::{self, Expr, FactKind, ValidClause};
use chronolog_ql::plan::Constant;
use chronolog_ql::{CompileError, CompileErrorKind, constant};
use chronolog_storage::{ColumnType, Interval, Timestamp, Value, WriteTxn};
use rustc_hash::FxHashMap;

use super::Session;
use crate::error::{Error, Result};
use crate::val::Val;

impl Session {
    /// Checks `fact` against its relation and writes it into `txn`.
    pub(super) fn fact(
        &self,
        txn: &mut WriteTxn<'_>,
        fact: &ast::Fact,
        params: &FxHashMap<String, Val>,
    ) -> Result<()> {
        let name = &fact.atom.name;
        let rel = self.store.relation_id(&name.text).map_err(|_| {
            CompileError::new(
                CompileErrorKind::UnknownRelation(name.text.clone()),
                name.span,
            )
        })?;
        let schema = self.store.schema(rel)?;
        if schema.arity() != fact.atom.args.len() {
            return Err(CompileError::new(
                CompileErrorKind::Arity {
                    relation: name.text.clone(),
                    columns: schema.arity(),
                    arguments: fact.atom.args.len(),
                },
                fact.atom.span,
            )
            .into());
        }
        let mut values = Vec::with_capacity(schema.arity());
        for (arg, col) in fact.atom.args.iter().zip(&schema.columns) {
            let value = self.fact_value(txn, arg, col.ty, params)?;
            if !(value.as_ref().fits(col.ty) || (col.nullable && value == Value::Null)) {
                let expected = if col.nullable {
                    format!("{} or null", col.ty)
                } else {
                    col.ty.to_string()
                };
                return Err(CompileError::new(
                    CompileErrorKind::ColumnType {
                        relation: schema.name.clone(),
                        column: col.name.clone(),
                        expected,
                        got: value.describe(),
                    },
                    arg.span(),
                )
                .into());
            }
            values.push(value);
        }
        let time = |e: &Expr| -> Result<Timestamp> {
            match self.const_of(e, params)? {
                Constant::Time(t) => Ok(Timestamp(t)),
                _ => Err(CompileError::new(CompileErrorKind::ExpectedTime, e.span()).into()),
            }
        };
        // Without a clause a fact holds from its transaction on (XTDB's
        // rule): stating it never rewrites what was believed before it.
        let valid = match &fact.valid {
            None => None,
            Some(ValidClause::Always(_)) => Some(Interval::ALWAYS),
            Some(ValidClause::Range(from, None)) => Some(Interval::starting(time(from)?)),
            Some(ValidClause::Range(from, Some(to))) => Some(
                Interval::new(time(from)?, time(to)?.as_valid_end())
                    .map_err(|e| Error::from(e).at(from.span().to(to.span())))?,
            ),
        };
        match (fact.kind, valid) {
            (FactKind::Assert, Some(valid)) => txn.assert(rel, values, valid, None)?,
            (FactKind::Assert, None) => txn.assert_from_commit(rel, values, None)?,
            (FactKind::Retract, Some(valid)) => txn.retract(rel, values, valid)?,
            (FactKind::Retract, None) => txn.retract_from_commit(rel, values)?,
            (FactKind::Correct, _) => txn.correct(rel, values)?,
        }
        Ok(())
    }

    fn const_of(&self, e: &Expr, params: &FxHashMap<String, Val>) -> Result<Constant> {
        Ok(match e {
            Expr::Const(c, _) => constant(c),
            Expr::Ident(n) => self
                .lets
                .get(&n.text)
                .cloned()
                .unwrap_or(Constant::Sym(n.text.clone())),
            Expr::Param(p) => match params.get(&p.text) {
                Some(Val::Time(t)) => Constant::Time(*t),
                Some(Val::Int(i)) => Constant::Int(*i),
                Some(Val::Float(x)) => Constant::Float(*x),
                Some(Val::Str(s)) => Constant::Str(s.to_string()),
                Some(Val::Bool(b)) => Constant::Bool(*b),
                Some(Val::Null) => Constant::Null,
                // `{"sym": "alice"}`: the symbol of that name, known to the
                // store or not yet.
                Some(Val::Sym(id)) => Constant::Sym(match self.symbols.virtual_name(*id) {
                    Some(name) => name.to_string(),
                    None => self
                        .store
                        .symbol_name(chronolog_storage::Symbol(*id))?
                        .to_string(),
                }),
                Some(_) => {
                    return Err(
                        CompileError::new(CompileErrorKind::ParamNotStorable, p.span).into(),
                    );
                }
                None => return Err(Error::MissingParam(p.text.clone())),
            },
            Expr::Var(_) | Expr::Wildcard(_) => {
                return Err(CompileError::new(CompileErrorKind::VariableInFact, e.span()).into());
            }
            Expr::Neg(..) | Expr::Binary(..) => {
                return Err(CompileError::new(CompileErrorKind::ExpressionInFact, e.span()).into());
            }
        })
    }

    fn fact_value(
        &self,
        txn: &mut WriteTxn<'_>,
        e: &Expr,
        ty: ColumnType,
        params: &FxHashMap<String, Val>,
    ) -> Result<Value> {
        let c = self.const_of(e, params)?;
        let mismatch = |what: &str| -> Error {
            CompileError::new(
                CompileErrorKind::ValueType {
                    expected: ty.to_string(),
                    got: what.to_string(),
                },
                e.span(),
            )
            .into()
        };
        Ok(match (c, ty) {
            (Constant::Sym(name), ColumnType::Sym) | (Constant::Str(name), ColumnType::Sym) => {
                Value::Sym(
                    txn.symbol(&name)
                        .map_err(|err| Error::from(err).at(e.span()))?,
                )
            }
            (Constant::Sym(name), _) => return Err(mismatch(&format!("the name `{name}`"))),
            (Constant::Int(i), ColumnType::Float) => Value::Float(i as f64),
            (Constant::Int(i), _) => Value::Int(i),
            (Constant::Float(x), _) => Value::Float(x),
            (Constant::Str(s), _) => Value::str(s),
            (Constant::Time(t), _) => Value::Time(Timestamp(t)),
            (Constant::Bool(b), _) => Value::Bool(b),
            (Constant::Null, _) => Value::Null,
        })
    }
}
