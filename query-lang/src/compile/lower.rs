//! Lowering, the last pass: each rule of each stratum becomes a list of
//! steps over numbered slots. Atoms run in source order; each filter,
//! assignment, negation and retrieval operator runs as soon as its inputs
//! are bound, and a variable used before anything binds it is an error
//! (safety). `let` names become their values, other lowercase names
//! symbols; retrieval operators are checked against the catalog.

use super::resolve::Resolved;
use super::stratify::Strata;
use super::vars::{output_columns, walk_vars, walk_vars_spanned};
use super::{Catalog, ColumnInfo, Lets, MAX_RANKED_K, constant};
use crate::ast::{self, Expr, HeadArg, Literal, TypeName};
use crate::error::{CompileError, CompileErrorKind};
use crate::plan::*;
use crate::span::Span;

/// Lowers a stratified query to the plan the engine runs.
pub fn lower(
    resolved: &Resolved<'_>,
    strata: &Strata,
    lets: &Lets,
    catalog: &dyn Catalog,
) -> Result<Plan, CompileError> {
    let l = Lowerer {
        resolved,
        lets,
        catalog,
    };
    let query = resolved.query.as_ref();
    let output = resolved.output();
    let mut plan_strata = Vec::with_capacity(strata.components.len());
    for component in &strata.components {
        let mut rules = Vec::new();
        for &i in &component.relations {
            if i == output {
                rules.push(l.compile_query_rule(output, query)?);
            } else {
                for rule in &resolved.rules[i] {
                    let compiled = l.compile_rule(i, &rule.head.args, &rule.body, rule.span)?;
                    // A rule defined again (a script run twice) derives
                    // nothing new; kept twice, it would hide a closure's
                    // shape from the planner.
                    if !rules.contains(&compiled) {
                        rules.push(compiled);
                    }
                }
            }
        }
        plan_strata.push(Stratum {
            relations: component.relations.clone(),
            rules,
            recursive: component.recursive,
            closure: None,
        });
    }
    let columns = output_columns(&query.body);
    let as_of = query.as_of.as_ref().map(|e| l.time_term(e)).transpose()?;
    let known_at = query
        .known_at
        .as_ref()
        .map(|e| l.time_term(e))
        .transpose()?;
    let mut order_by = Vec::new();
    for (var, desc) in &query.order_by {
        let Some(col) = columns.iter().position(|c| *c == var.text) else {
            return Err(CompileError::new(
                CompileErrorKind::OrderByNotOutput(var.text.clone()),
                var.span,
            ));
        };
        order_by.push((col, *desc));
    }
    Ok(Plan {
        derived: resolved.derived.clone(),
        strata: plan_strata,
        columns,
        as_of,
        known_at,
        history: query.history,
        order_by,
        limit: query.limit.as_ref().map(|l| match l {
            ast::Count::Fixed(n) => Count::Fixed(*n),
            ast::Count::Param(name) => Count::Param(name.text.clone()),
        }),
    })
}

struct Lowerer<'r, 'q> {
    resolved: &'r Resolved<'q>,
    lets: &'r Lets,
    catalog: &'r dyn Catalog,
}

impl Lowerer<'_, '_> {
    /// A ranked operator's `column = value` restrictions, each column
    /// resolved to its position in `rel`.
    fn ranked_filters(
        &self,
        rel: &ast::Name,
        cols: &[ColumnInfo],
        filters: &[(ast::Name, Expr)],
        slots: &[String],
    ) -> Result<Vec<(usize, Term)>, CompileError> {
        filters
            .iter()
            .map(|(column, value)| {
                let position =
                    cols.iter()
                        .position(|c| c.name == column.text)
                        .ok_or_else(|| {
                            CompileError::new(
                                CompileErrorKind::UnknownColumn {
                                    rel: rel.text.clone(),
                                    column: column.text.clone(),
                                },
                                column.span,
                            )
                        })?;
                Ok((position, self.term(value, slots)?))
            })
            .collect()
    }

    /// A retrieval input that is a constant of the wrong kind is an error
    /// here, with its span, rather than at run time.
    fn ranked_input(
        &self,
        e: &Expr,
        slots: &[String],
        wanted: &'static str,
        fits: fn(&Constant) -> bool,
    ) -> Result<Term, CompileError> {
        let term = self.term(e, slots)?;
        match &term {
            Term::Const(c) if !fits(c) => Err(CompileError::new(
                CompileErrorKind::RankedInput {
                    wanted,
                    got: c.to_string(),
                },
                e.span(),
            )),
            _ => Ok(term),
        }
    }

    /// Resolves a retrieval operator against the catalog.
    fn ranked_plan(&self, r: &ast::Ranked, slots: &[String]) -> Result<RankedPlan, CompileError> {
        let columns = |rel: &ast::Name| {
            self.catalog.stored(&rel.text).ok_or_else(|| {
                CompileError::new(
                    CompileErrorKind::UnknownStoredRelation(rel.text.clone()),
                    rel.span,
                )
            })
        };
        Ok(match r {
            ast::Ranked::Near {
                rel,
                query,
                k,
                metric,
                filters,
                span,
            } => {
                let k = count(k, *span)?;
                let cols = columns(rel)?;
                let filters = self.ranked_filters(rel, &cols, filters, slots)?;
                let vector_column = cols
                    .iter()
                    .position(|c| matches!(c.ty, TypeName::Vector(_)));
                let text_column = cols.iter().position(|c| c.embed);
                if vector_column.is_none() && text_column.is_none() {
                    return Err(CompileError::new(
                        CompileErrorKind::NothingToNear(rel.text.clone()),
                        rel.span,
                    ));
                }
                let metric = match metric {
                    None => Metric::Cosine,
                    Some(m) => Metric::from_name(&m.text).ok_or_else(|| {
                        CompileError::new(CompileErrorKind::UnknownMetric(m.text.clone()), m.span)
                    })?,
                };
                RankedPlan::Near(NearPlan {
                    rel: rel.text.clone(),
                    vector_column,
                    text_column,
                    query: self.ranked_input(
                        query,
                        slots,
                        "text or a vector `$parameter`",
                        |c| matches!(c, Constant::Str(_)),
                    )?,
                    k,
                    metric,
                    filters,
                })
            }
            ast::Ranked::Bm25 {
                rel,
                query,
                k,
                filters,
                span,
            } => {
                let k = count(k, *span)?;
                let cols = columns(rel)?;
                let filters = self.ranked_filters(rel, &cols, filters, slots)?;
                let columns: Vec<usize> = cols
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.search)
                    .map(|(i, _)| i)
                    .collect();
                if columns.is_empty() {
                    return Err(CompileError::new(
                        CompileErrorKind::NoSearchColumn(rel.text.clone()),
                        rel.span,
                    ));
                }
                RankedPlan::Bm25(Bm25Plan {
                    rel: rel.text.clone(),
                    columns,
                    query: self.ranked_input(query, slots, "text to search for", |c| {
                        matches!(c, Constant::Str(_))
                    })?,
                    k,
                    filters,
                })
            }
            ast::Ranked::Top {
                rel,
                column,
                k,
                filters,
                span,
            } => {
                let k = count(k, *span)?;
                let cols = columns(rel)?;
                let filters = self.ranked_filters(rel, &cols, filters, slots)?;
                let column = column_of(rel, &cols, column, "a number or a time", |t| {
                    matches!(t, TypeName::Int | TypeName::Float | TypeName::Time)
                })?;
                RankedPlan::Top(TopPlan {
                    rel: rel.text.clone(),
                    column,
                    k,
                    filters,
                })
            }
            ast::Ranked::Decayed {
                rel,
                column,
                since,
                half_life,
                k,
                filters,
                span,
            } => {
                let k = count(k, *span)?;
                let cols = columns(rel)?;
                let filters = self.ranked_filters(rel, &cols, filters, slots)?;
                let column = column_of(rel, &cols, column, "a number", |t| {
                    matches!(t, TypeName::Int | TypeName::Float)
                })?;
                let since =
                    column_of(rel, &cols, since, "a time", |t| matches!(t, TypeName::Time))?;
                RankedPlan::Decayed(DecayedPlan {
                    rel: rel.text.clone(),
                    column,
                    since,
                    half_life: self.ranked_input(half_life, slots, "a number of days", |c| {
                        matches!(c, Constant::Int(_) | Constant::Float(_))
                    })?,
                    k,
                    filters,
                })
            }
            ast::Ranked::Hops {
                start,
                depth,
                edges,
                span,
            } => {
                for e in edges {
                    if columns(e)?.len() < 2 {
                        return Err(CompileError::new(
                            CompileErrorKind::CannotLink(e.text.clone()),
                            e.span,
                        ));
                    }
                }
                let depth = u32::try_from(*depth)
                    .ok()
                    .filter(|d| *d <= 64)
                    .ok_or_else(|| CompileError::new(CompileErrorKind::TooManyHops, *span))?;
                RankedPlan::Hops(HopsPlan {
                    start: self.ranked_input(start, slots, "a symbol to start from", |c| {
                        matches!(c, Constant::Sym(_))
                    })?,
                    depth,
                    edges: edges.iter().map(|e| e.text.clone()).collect(),
                })
            }
            ast::Ranked::Rrf { inputs, k, span } => {
                let mut plans = Vec::with_capacity(inputs.len());
                for (w, input) in inputs {
                    if !w.is_finite() || *w < 0.0 {
                        return Err(CompileError::new(CompileErrorKind::BadRrfWeight, *span));
                    }
                    plans.push((*w, self.ranked_plan(input, slots)?));
                }
                RankedPlan::Rrf(RrfPlan {
                    inputs: plans,
                    k: k.unwrap_or(RRF_K),
                })
            }
        })
    }

    fn rel_ref(&self, name: &str) -> RelRef {
        match self.resolved.index.get(name) {
            Some(&i) => RelRef::Derived(i),
            None => RelRef::Stored(name.to_string()),
        }
    }

    fn compile_query_rule(
        &self,
        output: usize,
        query: &ast::Query,
    ) -> Result<RulePlan, CompileError> {
        let head: Vec<HeadArg> = output_columns(&query.body)
            .into_iter()
            .map(|v| {
                HeadArg::Term(Expr::Var(ast::Name {
                    text: v,
                    span: query.span,
                }))
            })
            .collect();
        self.compile_rule(output, &head, &query.body, query.span)
    }

    fn compile_rule(
        &self,
        head: usize,
        head_args: &[HeadArg],
        body: &[Literal],
        span: Span,
    ) -> Result<RulePlan, CompileError> {
        let mut slots: Vec<String> = Vec::new();
        let mut steps = Vec::new();
        // An aggregate ranges over the body's matches, not over the values
        // its variables happen to take: two people of age 30 add 60 to
        // `sum(A) :- age(_, A)`. A `_` becomes a hidden slot, so matches
        // that differ only there stay apart (as in Souffle).
        let aggregates = head_args
            .iter()
            .any(|a| matches!(a, HeadArg::Aggregate(..)));
        let mut pending: Vec<&Literal> = body.iter().collect();
        if pending.is_empty() {
            return Err(CompileError::new(CompileErrorKind::EmptyBody, span));
        }
        while !pending.is_empty() {
            let bound = |name: &str, slots: &[String]| slots.iter().any(|s| s == name);
            let all_bound = |e: &Expr, slots: &[String]| {
                let mut ok = true;
                walk_vars(e, &mut |v| ok &= bound(v, slots));
                ok
            };
            // 1. A filter, assignment or negation whose inputs are bound.
            let ready = pending.iter().position(|lit| match lit {
                Literal::Compare(l, op, r, _) => {
                    (all_bound(l, &slots) && all_bound(r, &slots))
                        || (*op == ast::CompareOp::Eq
                            && ((matches!(l, Expr::Var(v) if !bound(&v.text, &slots))
                                && all_bound(r, &slots))
                                || (matches!(r, Expr::Var(v) if !bound(&v.text, &slots))
                                    && all_bound(l, &slots))))
                }
                Literal::Not(a, _) => a.args.iter().all(|e| all_bound(e, &slots)),
                Literal::Ranked(r, _, _) => r.inputs().iter().all(|e| all_bound(e, &slots)),
                Literal::Atom(_) => false,
            });
            let pick = ready.or_else(|| {
                pending
                    .iter()
                    .position(|lit| matches!(lit, Literal::Atom(_)))
            });
            let Some(pick) = pick else {
                // Only filters and negations are left, with unbound inputs.
                return Err(unsafe_error(pending[0], &slots));
            };
            let lit = pending.remove(pick);
            match lit {
                Literal::Atom(a) => {
                    let (args, same) = self.match_args(&a.args, &mut slots, aggregates)?;
                    steps.push(Step::Atom {
                        rel: self.rel_ref(&a.name.text),
                        args,
                        negated: false,
                    });
                    steps.extend(same);
                }
                Literal::Not(a, _) => {
                    let args = a
                        .args
                        .iter()
                        .map(|e| match e {
                            Expr::Wildcard(_) => Ok(Arg::Any),
                            other => Ok(Arg::Bound(self.term(other, &slots)?)),
                        })
                        .collect::<Result<Vec<_>, CompileError>>()?;
                    steps.push(Step::Atom {
                        rel: self.rel_ref(&a.name.text),
                        args,
                        negated: true,
                    });
                }
                Literal::Ranked(r, binds, _) => {
                    let op = self.ranked_plan(r, &slots)?;
                    let (args, same) =
                        self.match_args(binds.as_deref().unwrap_or_default(), &mut slots, false)?;
                    steps.push(Step::Ranked { op, args });
                    steps.extend(same);
                }
                Literal::Compare(l, op, r, _) => {
                    let unbound_var = |e: &Expr, slots: &[String]| match e {
                        Expr::Var(v) if !bound(&v.text, slots) => Some(v.text.clone()),
                        _ => None,
                    };
                    if let (ast::CompareOp::Eq, Some(v)) = (op, unbound_var(l, &slots)) {
                        let value = self.term(r, &slots)?;
                        slots.push(v);
                        steps.push(Step::Assign(slots.len() - 1, value));
                    } else if let (ast::CompareOp::Eq, Some(v)) = (op, unbound_var(r, &slots)) {
                        let value = self.term(l, &slots)?;
                        slots.push(v);
                        steps.push(Step::Assign(slots.len() - 1, value));
                    } else {
                        steps.push(Step::Filter(
                            self.term(l, &slots)?,
                            *op,
                            self.term(r, &slots)?,
                        ));
                    }
                }
            }
        }
        let mut head_terms = Vec::with_capacity(head_args.len());
        for arg in head_args {
            head_terms.push(match arg {
                HeadArg::Term(Expr::Wildcard(s)) => {
                    return Err(CompileError::new(CompileErrorKind::WildcardInHead, *s));
                }
                HeadArg::Term(e) => {
                    let mut missing = None;
                    walk_vars(e, &mut |v| {
                        if missing.is_none() && !slots.iter().any(|s| s == v) {
                            missing = Some(v.to_string());
                        }
                    });
                    if let Some(v) = missing {
                        return Err(CompileError::new(
                            CompileErrorKind::UnboundHeadVariable(v),
                            e.span(),
                        ));
                    }
                    HeadTerm::Value(self.term(e, &slots)?)
                }
                HeadArg::Aggregate(agg, var, _) => {
                    match slots.iter().position(|s| *s == var.text) {
                        Some(slot) => HeadTerm::Aggregate(*agg, slot),
                        None => {
                            return Err(CompileError::new(
                                CompileErrorKind::UnboundHeadVariable(var.text.clone()),
                                var.span,
                            ));
                        }
                    }
                }
            });
        }
        Ok(RulePlan {
            head,
            head_terms,
            steps,
            slots,
        })
    }

    /// How a positive atom's (or a ranked relation's) arguments match: `_`
    /// matches anything, a variable's first occurrence binds a new slot,
    /// anything else must be bound already and is compared. An argument
    /// that refers to a variable bound by this same atom (`e(X, X)`,
    /// `e(X, X + 1)`) cannot be a key for the atom's own lookup: it binds a
    /// hidden slot (`#n`), and a filter after the atom compares the two.
    /// With `keep_wildcards`, a `_` binds a hidden slot too (see
    /// `compile_rule`). Returns the arguments and those filters.
    fn match_args(
        &self,
        exprs: &[Expr],
        slots: &mut Vec<String>,
        keep_wildcards: bool,
    ) -> Result<(Vec<Arg>, Vec<Step>), CompileError> {
        let before = slots.len();
        let mut args = Vec::with_capacity(exprs.len());
        let mut same = Vec::new();
        for e in exprs {
            args.push(match e {
                Expr::Wildcard(_) if keep_wildcards => {
                    slots.push(format!("#{}", slots.len()));
                    Arg::Bind(slots.len() - 1)
                }
                Expr::Wildcard(_) => Arg::Any,
                Expr::Var(v) if !slots.contains(&v.text) => {
                    slots.push(v.text.clone());
                    Arg::Bind(slots.len() - 1)
                }
                other => {
                    let mut bound = true;
                    let mut here = false;
                    walk_vars(other, &mut |v| match slots.iter().position(|s| s == v) {
                        Some(i) => here |= i >= before,
                        None => bound = false,
                    });
                    if !bound {
                        return Err(unsafe_in(other, slots));
                    }
                    let term = self.term(other, slots)?;
                    if here {
                        slots.push(format!("#{}", slots.len()));
                        let hidden = slots.len() - 1;
                        same.push(Step::Filter(term, ast::CompareOp::Eq, Term::Slot(hidden)));
                        Arg::Bind(hidden)
                    } else {
                        Arg::Bound(term)
                    }
                }
            });
        }
        Ok((args, same))
    }

    /// An expression whose variables are bound, as a plan term.
    fn term(&self, e: &Expr, slots: &[String]) -> Result<Term, CompileError> {
        Ok(match e {
            Expr::Var(v) => match slots.iter().position(|s| *s == v.text) {
                Some(i) => Term::Slot(i),
                None => return Err(unsafe_in(e, slots)),
            },
            Expr::Wildcard(s) => {
                return Err(CompileError::new(
                    CompileErrorKind::WildcardInExpression,
                    *s,
                ));
            }
            Expr::Ident(n) => Term::Const(
                self.lets
                    .get(&n.text)
                    .cloned()
                    .unwrap_or_else(|| Constant::Sym(n.text.clone())),
            ),
            Expr::Param(p) => Term::Param(p.text.clone()),
            Expr::Const(c, _) => Term::Const(constant(c)),
            Expr::Binary(a, op, b, _) => Term::Arith(
                Box::new(self.term(a, slots)?),
                *op,
                Box::new(self.term(b, slots)?),
            ),
            Expr::Neg(a, _) => Term::Neg(Box::new(self.term(a, slots)?)),
        })
    }

    /// An `as_of` / `known_at` argument: a constant, `let` name or parameter.
    fn time_term(&self, e: &Expr) -> Result<Term, CompileError> {
        let term = self
            .term(e, &[])
            .map_err(|_| CompileError::new(CompileErrorKind::ExpectedTime, e.span()))?;
        match &term {
            Term::Const(Constant::Time(_)) | Term::Param(_) => Ok(term),
            Term::Const(Constant::Sym(name)) => Err(CompileError::new(
                CompileErrorKind::UnboundTimeName(name.clone()),
                e.span(),
            )),
            _ => Err(CompileError::new(CompileErrorKind::ExpectedTime, e.span())),
        }
    }
}

/// A ranked operator's `k` for the plan: a number is checked now, a
/// `$parameter` when the plan runs (against the same bounds).
fn count(k: &ast::Count, span: Span) -> Result<Count, CompileError> {
    match k {
        ast::Count::Fixed(n) => {
            check_k(*n, span)?;
            Ok(Count::Fixed(*n))
        }
        ast::Count::Param(name) => Ok(Count::Param(name.text.clone())),
    }
}

/// The position of `column` in `rel`, which must hold values `fits`
/// accepts (`wanted` names them in the error).
fn column_of(
    rel: &ast::Name,
    cols: &[ColumnInfo],
    column: &ast::Name,
    wanted: &'static str,
    fits: fn(&TypeName) -> bool,
) -> Result<usize, CompileError> {
    let Some(position) = cols.iter().position(|c| c.name == column.text) else {
        return Err(CompileError::new(
            CompileErrorKind::UnknownColumn {
                rel: rel.text.clone(),
                column: column.text.clone(),
            },
            column.span,
        ));
    };
    if !fits(&cols[position].ty) {
        return Err(CompileError::new(
            CompileErrorKind::RankedColumnType {
                rel: rel.text.clone(),
                column: column.text.clone(),
                wanted,
            },
            column.span,
        ));
    }
    Ok(position)
}

fn check_k(k: u64, span: Span) -> Result<(), CompileError> {
    if k == 0 || k > MAX_RANKED_K {
        return Err(CompileError::new(
            CompileErrorKind::KOutOfRange {
                max: MAX_RANKED_K,
                got: k,
            },
            span,
        ));
    }
    Ok(())
}

fn unsafe_in(e: &Expr, slots: &[String]) -> CompileError {
    let mut found = None;
    walk_vars_spanned(e, &mut |name, span| {
        if found.is_none() && !slots.iter().any(|s| s == name) {
            found = Some((name.to_string(), span));
        }
    });
    let (name, span) = found.unwrap_or_else(|| ("?".into(), e.span()));
    CompileError::new(CompileErrorKind::UnsafeVariable(name), span)
}

fn unsafe_error(lit: &Literal, slots: &[String]) -> CompileError {
    match lit {
        Literal::Compare(l, _, r, _) => {
            let probe = |e: &Expr| {
                let mut hit = false;
                walk_vars(e, &mut |v| hit |= !slots.iter().any(|s| s == v));
                hit
            };
            if probe(l) {
                unsafe_in(l, slots)
            } else {
                unsafe_in(r, slots)
            }
        }
        Literal::Not(a, _) => a
            .args
            .iter()
            .find(|e| {
                let mut hit = false;
                walk_vars(e, &mut |v| hit |= !slots.iter().any(|s| s == v));
                hit
            })
            .map_or_else(
                || CompileError::new(CompileErrorKind::Unsafe("negation"), a.span),
                |e| unsafe_in(e, slots),
            ),
        Literal::Ranked(r, _, span) => r
            .inputs()
            .into_iter()
            .find(|e| {
                let mut hit = false;
                walk_vars(e, &mut |v| hit |= !slots.iter().any(|s| s == v));
                hit
            })
            .map_or_else(
                || CompileError::new(CompileErrorKind::Unsafe("retrieval operator"), *span),
                |e| unsafe_in(e, slots),
            ),
        Literal::Atom(a) => CompileError::new(CompileErrorKind::Unsafe("atom"), a.span),
    }
}
