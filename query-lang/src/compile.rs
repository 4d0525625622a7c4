//! Resolution, safety, stratification and step ordering: an `ast::Query`
//! plus the rules in scope becomes a [`Plan`].
//!
//! * **Resolution**: every atom names a stored relation (asked of the
//!   [`Catalog`]) or a relation derived by rules, with the right arity;
//!   lowercase names become `let` values or symbols.
//! * **Safety**: every variable in a head, a negation or a comparison is bound
//!   by a positive atom (or by `X = expr` once `expr` is bound).
//! * **Stratification**: derived relations are grouped into strongly
//!   connected components of the dependency graph, dependencies first; a
//!   negated or aggregated dependency inside a component is rejected, naming
//!   the cycle.
//! * **Step order**: atoms in source order; each filter, assignment and
//!   negation runs as soon as its variables are bound.

use std::collections::HashMap;

use crate::ast::{self, Expr, HeadArg, Literal, Rule, TypeName};
use crate::error::{CompileError, CompileErrorKind};
use crate::plan::*;
use crate::scc::tarjan;
use crate::span::Span;

/// What the compiler needs to know about stored relations.
pub trait Catalog {
    /// The columns of stored relation `name`, if it exists.
    fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>>;
}

/// One stored column, as the compiler sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: TypeName,
    /// Indexed for `bm25`.
    pub search: bool,
    /// Embedded for `near`.
    pub embed: bool,
}

impl ColumnInfo {
    /// A plain column.
    pub fn new(name: impl Into<String>, ty: TypeName) -> ColumnInfo {
        ColumnInfo {
            name: name.into(),
            ty,
            search: false,
            embed: false,
        }
    }
}

/// `let` bindings in scope.
pub type Lets = HashMap<String, Constant>;

/// Name of the query's own output relation in plans.
pub const OUTPUT: &str = "?";

/// Compiles `query` against the `rules` in scope.
pub fn compile_query(
    query: &ast::Query,
    rules: &[Rule],
    lets: &Lets,
    catalog: &dyn Catalog,
) -> Result<Plan, CompileError> {
    let mut by_head: HashMap<&str, Vec<&Rule>> = HashMap::new();
    for rule in rules {
        by_head
            .entry(rule.head.name.text.as_str())
            .or_default()
            .push(rule);
    }
    // `?- rrf(...) limit 10.`: a lone retrieval operator's rows are the
    // answer, as (Id, Score, Rank) in rank order.
    let normalized;
    let query = match query.body.as_slice() {
        [Literal::Ranked(ranked, None, span)] => {
            let var = |text: &str| {
                Expr::Var(ast::Name {
                    text: text.into(),
                    span: *span,
                })
            };
            let mut q = query.clone();
            q.body = vec![Literal::Ranked(
                ranked.clone(),
                Some(vec![var("Id"), var("Score"), var("Rank")]),
                *span,
            )];
            if q.order_by.is_empty() {
                q.order_by.push((
                    ast::Name {
                        text: "Rank".into(),
                        span: *span,
                    },
                    false,
                ));
            }
            normalized = q;
            &normalized
        }
        _ => query,
    };
    let mut c = Compiler {
        by_head,
        lets,
        catalog,
        derived: Vec::new(),
        index: HashMap::new(),
    };
    if query.history {
        match query.body.as_slice() {
            [Literal::Atom(atom)] if catalog.stored(&atom.name.text).is_some() => {}
            _ => {
                return Err(CompileError::new(
                    CompileErrorKind::HistoryNeedsOneAtom,
                    query.span,
                ));
            }
        }
        // `history` lists every version on both axes; a time-travel
        // modifier would silently change nothing, so it is refused.
        if let Some(t) = query.as_of.as_ref().or(query.known_at.as_ref()) {
            return Err(CompileError::new(
                CompileErrorKind::HistoryTakesNoTimeAxes,
                t.span(),
            ));
        }
    }
    // Discover every derived relation the query depends on.
    for lit in &query.body {
        match lit {
            Literal::Atom(a) | Literal::Not(a, _) => c.visit(a)?,
            Literal::Ranked(r, binds, span) => c.check_ranked(r, binds.as_deref(), *span)?,
            Literal::Compare(..) => {}
        }
    }
    let output = c.derived.len();
    let columns = output_columns(&query.body);
    c.derived.push(Derived {
        name: OUTPUT.into(),
        arity: columns.len(),
    });
    let strata = c.stratify(output, query)?;
    let as_of = query.as_of.as_ref().map(|e| c.time_term(e)).transpose()?;
    let known_at = query
        .known_at
        .as_ref()
        .map(|e| c.time_term(e))
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
        derived: c.derived,
        strata,
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

/// The query's variables in order of first appearance (not `_`-prefixed).
fn output_columns(body: &[Literal]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |e: &Expr| {
        walk_vars(e, &mut |name| {
            if !name.starts_with('_') && !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        })
    };
    for lit in body {
        match lit {
            Literal::Atom(a) => a.args.iter().for_each(&mut add),
            Literal::Compare(l, _, r, _) => {
                add(l);
                add(r);
            }
            Literal::Ranked(_, binds, _) => binds.iter().flatten().for_each(&mut add),
            Literal::Not(..) => {}
        }
    }
    out
}

/// The expressions a retrieval operator needs bound before it runs.
fn ranked_inputs<'e>(r: &'e ast::Ranked, out: &mut Vec<&'e Expr>) {
    match r {
        ast::Ranked::Near { query, filters, .. } | ast::Ranked::Bm25 { query, filters, .. } => {
            out.push(query);
            out.extend(filters.iter().map(|(_, value)| value));
        }
        ast::Ranked::Hops { start, .. } => out.push(start),
        ast::Ranked::Rrf { inputs, .. } => inputs.iter().for_each(|(_, i)| ranked_inputs(i, out)),
    }
}

fn walk_vars(e: &Expr, f: &mut impl FnMut(&str)) {
    match e {
        Expr::Var(n) => f(&n.text),
        Expr::Binary(a, _, b, _) => {
            walk_vars(a, f);
            walk_vars(b, f);
        }
        Expr::Neg(a, _) => walk_vars(a, f),
        _ => {}
    }
}

struct Compiler<'a> {
    by_head: HashMap<&'a str, Vec<&'a Rule>>,
    lets: &'a Lets,
    catalog: &'a dyn Catalog,
    derived: Vec<Derived>,
    index: HashMap<String, usize>,
}

impl<'a> Compiler<'a> {
    /// Checks an atom's relation and arity, registering derived relations
    /// and, depth first, what their rules read. Iterative: a chain of
    /// 40,000 rules must not be 40,000 stack frames.
    fn visit(&mut self, atom: &ast::Atom) -> Result<(), CompileError> {
        let rules_of = std::mem::take(&mut self.by_head);
        let result = self.visit_with(&rules_of, atom);
        self.by_head = rules_of;
        result
    }

    fn visit_with(
        &mut self,
        rules_of: &HashMap<&'a str, Vec<&'a Rule>>,
        atom: &ast::Atom,
    ) -> Result<(), CompileError> {
        // Atoms still to check, the next on top; a rule's atoms are pushed
        // in reverse so they come off in order (the recursive preorder).
        let mut pending: Vec<&ast::Atom> = vec![atom];
        while let Some(atom) = pending.pop() {
            let name = atom.name.text.as_str();
            if let Some(columns) = self.catalog.stored(name) {
                if let Some(rules) = rules_of.get(name) {
                    return Err(CompileError::new(
                        CompileErrorKind::DerivesIntoStored(name.to_string()),
                        rules[0].head.span,
                    ));
                }
                check_arity(name, columns.len(), atom)?;
                continue;
            }
            if let Some(&i) = self.index.get(name) {
                check_arity(name, self.derived[i].arity, atom)?;
                continue;
            }
            let Some(rules) = rules_of.get(name) else {
                return Err(CompileError::new(
                    CompileErrorKind::UnknownRelation(name.to_string()),
                    atom.name.span,
                ));
            };
            let arity = rules[0].head.args.len();
            for rule in rules {
                if rule.head.args.len() != arity {
                    return Err(CompileError::new(
                        CompileErrorKind::RuleArities {
                            relation: name.to_string(),
                            first: arity,
                            other: rule.head.args.len(),
                        },
                        rule.head.span,
                    ));
                }
            }
            check_arity(name, arity, atom)?;
            self.index.insert(name.to_string(), self.derived.len());
            self.derived.push(Derived {
                name: name.to_string(),
                arity,
            });
            let mut children = Vec::new();
            for rule in rules {
                for lit in &rule.body {
                    match lit {
                        Literal::Atom(a) | Literal::Not(a, _) => children.push(a),
                        Literal::Ranked(r, binds, span) => {
                            self.check_ranked(r, binds.as_deref(), *span)?
                        }
                        Literal::Compare(..) => {}
                    }
                }
            }
            pending.extend(children.into_iter().rev());
        }
        Ok(())
    }

    /// A retrieval operator inside a larger body must name its columns.
    fn check_ranked(
        &self,
        _ranked: &ast::Ranked,
        binds: Option<&[Expr]>,
        span: Span,
    ) -> Result<(), CompileError> {
        match binds {
            None => Err(CompileError::new(
                CompileErrorKind::RankedColumnsUnnamed,
                span,
            )),
            Some(b) if b.is_empty() || b.len() > 3 => Err(CompileError::new(
                CompileErrorKind::RankedColumns(b.len()),
                span,
            )),
            Some(_) => Ok(()),
        }
    }

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
        match self.index.get(name) {
            Some(&i) => RelRef::Derived(i),
            None => RelRef::Stored(name.to_string()),
        }
    }

    /// Groups derived relations into strata (Tarjan's SCCs come out
    /// dependencies first) and compiles their rules.
    fn stratify(&self, output: usize, query: &ast::Query) -> Result<Vec<Stratum>, CompileError> {
        let n = self.derived.len();
        // edges[i] = (j, strict, span): relation i reads relation j.
        let mut edges: Vec<Vec<(usize, bool, Span)>> = vec![Vec::new(); n];
        let mut add_edges = |head: usize, body: &[Literal], aggregates: bool| {
            for lit in body {
                let (atom, negated, span) = match lit {
                    Literal::Atom(a) => (a, false, a.span),
                    Literal::Not(a, s) => (a, true, *s),
                    Literal::Compare(..) | Literal::Ranked(..) => continue,
                };
                if let Some(&j) = self.index.get(&atom.name.text) {
                    edges[head].push((j, negated || aggregates, span));
                }
            }
        };
        for (name, &i) in &self.index {
            for rule in &self.by_head[name.as_str()] {
                let aggregates = rule
                    .head
                    .args
                    .iter()
                    .any(|a| matches!(a, HeadArg::Aggregate(..)));
                add_edges(i, &rule.body, aggregates);
            }
        }
        add_edges(output, &query.body, false);
        let sccs = tarjan(&edges);
        let mut strata = Vec::new();
        for scc in sccs {
            let members: std::collections::HashSet<usize> = scc.iter().copied().collect();
            let mut recursive = false;
            for &i in &scc {
                for &(j, strict, span) in &edges[i] {
                    if members.contains(&j) {
                        recursive = true;
                        if strict {
                            let cycle = self.cycle_names(i, j, &edges, &members);
                            return Err(CompileError::new(
                                CompileErrorKind::NegationThroughRecursion(cycle),
                                span,
                            ));
                        }
                    }
                }
            }
            let mut rules = Vec::new();
            for &i in &scc {
                if i == output {
                    rules.push(self.compile_query_rule(output, query)?);
                } else {
                    for rule in &self.by_head[self.derived[i].name.as_str()] {
                        rules.push(self.compile_rule(i, &rule.head.args, &rule.body, rule.span)?);
                    }
                }
            }
            strata.push(Stratum {
                relations: scc,
                rules,
                recursive,
            });
        }
        Ok(strata)
    }

    /// `a -> b -> ... -> a` for an edge `from -> to` inside one component.
    fn cycle_names(
        &self,
        from: usize,
        to: usize,
        edges: &[Vec<(usize, bool, Span)>],
        members: &std::collections::HashSet<usize>,
    ) -> Vec<String> {
        // Breadth-first path from `to` back to `from` within the component.
        let mut prev: HashMap<usize, usize> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([to]);
        while let Some(x) = queue.pop_front() {
            if x == from {
                break;
            }
            for &(y, _, _) in &edges[x] {
                if members.contains(&y) && y != to && !prev.contains_key(&y) {
                    prev.insert(y, x);
                    queue.push_back(y);
                }
            }
        }
        let mut path = vec![from];
        let mut at = from;
        while at != to {
            match prev.get(&at) {
                Some(&p) => {
                    path.push(p);
                    at = p;
                }
                None => break,
            }
        }
        path.reverse();
        let mut names: Vec<&str> = vec![self.derived[from].name.as_str()];
        names.extend(path.iter().map(|&i| self.derived[i].name.as_str()));
        if names.first() != names.last() {
            names.push(self.derived[from].name.as_str());
        }
        names.dedup();
        names.into_iter().map(str::to_string).collect()
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
                Literal::Ranked(r, _, _) => {
                    let mut inputs = Vec::new();
                    ranked_inputs(r, &mut inputs);
                    inputs.iter().all(|e| all_bound(e, &slots))
                }
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

/// A literal from the AST as a plan constant.
pub fn constant(c: &ast::Const) -> Constant {
    match c {
        ast::Const::Int(i) => Constant::Int(*i),
        ast::Const::Float(x) => Constant::Float(*x),
        ast::Const::Str(s) => Constant::Str(s.clone()),
        ast::Const::Time(t) => Constant::Time(*t),
        ast::Const::Bool(b) => Constant::Bool(*b),
        ast::Const::Null => Constant::Null,
    }
}

fn check_arity(name: &str, arity: usize, atom: &ast::Atom) -> Result<(), CompileError> {
    if atom.args.len() != arity {
        return Err(CompileError::new(
            CompileErrorKind::Arity {
                relation: name.to_string(),
                columns: arity,
                arguments: atom.args.len(),
            },
            atom.span,
        ));
    }
    Ok(())
}

/// The most rows one retrieval operator may be asked for. The operators
/// never allocate more than the live rows, whatever `k` says; this bound
/// turns a typo or an overflowed number into an error instead of "all".
pub const MAX_RANKED_K: u64 = 10_000_000;

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

fn walk_vars_spanned(e: &Expr, f: &mut impl FnMut(&str, Span)) {
    match e {
        Expr::Var(n) => f(&n.text, n.span),
        Expr::Binary(a, _, b, _) => {
            walk_vars_spanned(a, f);
            walk_vars_spanned(b, f);
        }
        Expr::Neg(a, _) => walk_vars_spanned(a, f),
        _ => {}
    }
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
        Literal::Ranked(r, _, span) => {
            let mut inputs = Vec::new();
            ranked_inputs(r, &mut inputs);
            inputs
                .into_iter()
                .find(|e| {
                    let mut hit = false;
                    walk_vars(e, &mut |v| hit |= !slots.iter().any(|s| s == v));
                    hit
                })
                .map_or_else(
                    || CompileError::new(CompileErrorKind::Unsafe("retrieval operator"), *span),
                    |e| unsafe_in(e, slots),
                )
        }
        Literal::Atom(a) => CompileError::new(CompileErrorKind::Unsafe("atom"), a.span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Statement;
    use crate::parse;

    struct Stored;
    impl Catalog for Stored {
        fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>> {
            let sym = |n: &str| ColumnInfo::new(n, TypeName::Sym);
            match name {
                "works_at" => Some(vec![sym("person"), sym("company")]),
                "knows" => Some(vec![sym("a"), sym("b")]),
                "blocked" => Some(vec![sym("who")]),
                "episode" => Some(vec![
                    sym("id"),
                    ColumnInfo {
                        search: true,
                        embed: true,
                        ..ColumnInfo::new("text", TypeName::Str)
                    },
                ]),
                "doc" => Some(vec![sym("id"), ColumnInfo::new("v", TypeName::Vector(3))]),
                _ => None,
            }
        }
    }

    fn compile(src: &str) -> Result<Plan, CompileError> {
        let program = parse(src).expect("parse");
        let mut rules = Vec::new();
        let mut lets = Lets::new();
        let mut last = None;
        for st in program.statements {
            match st {
                Statement::Rule(r) => rules.push(r),
                Statement::Let(l) => {
                    if let Expr::Const(c, _) = &l.value {
                        lets.insert(l.name.text.clone(), constant(c));
                    }
                }
                Statement::Query(q) => last = Some(q),
                _ => {}
            }
        }
        compile_query(&last.expect("a query"), &rules, &lets, &Stored)
    }

    #[test]
    fn a_long_chain_of_rules_compiles_on_a_small_stack() {
        let n = 40_000;
        let mut src = String::new();
        for i in 0..n {
            src.push_str(&format!("r{i}(X) :- r{}(X).\n", i + 1));
        }
        src.push_str(&format!("r{n}(X) :- knows(X, _).\n?- r0(X)."));
        let plan = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || compile(&src).map(|p| p.strata.len()))
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        assert_eq!(plan.expect("compile"), n + 2);
    }

    #[test]
    fn explains_a_recursive_rule_with_negation() {
        let plan = compile(
            "reach(X, Y) :- knows(X, Y).
             reach(X, Y) :- reach(X, Z), knows(Z, Y).
             ?- reach(alice, Y), not blocked(Y).",
        )
        .expect("compile");
        assert_eq!(
            plan.to_string(),
            "query (Y)
  stratum 0 [reach] (semi-naive fixpoint)
    rule reach(X, Y)
      join scan knows(X, Y)
    rule reach(X, Y)
      join read reach(X, Z)
      join scan knows(=Z, Y)
  stratum 1 [?] (once)
    rule ?(Y)
      join read reach(=alice, Y)
      anti-join scan blocked(=Y)
"
        );
    }

    #[test]
    fn the_design_card_query_resolves_let_names() {
        let plan = compile("let t1 = 2022-01-01. ?- works_at(x, Y) as_of t1.").expect("compile");
        assert_eq!(
            plan.as_of,
            Some(Term::Const(Constant::Time(1_640_995_200_000_000)))
        );
        assert_eq!(plan.columns, vec!["Y"]);
    }

    #[test]
    fn the_design_card_retrieval_query_compiles_to_a_ranked_step() {
        let plan = compile(
            r#"?- rrf(near(episode, "where does alice work", 20),
                      bm25(episode, "alice work", 20),
                      hops(alice, 2)) limit 10."#,
        )
        .expect("compile");
        assert_eq!(
            plan.to_string(),
            r#"query (Id, Score, Rank) order by Rank limit 10
  stratum 0 [?] (once)
    rule ?(Id, Score, Rank)
      rank rrf(k=60, near(episode, "where does alice work", 20, cosine), bm25(episode, "alice work", 20), hops(alice, 2)) as (Id, Score, Rank)
"#
        );
        let plan = compile(
            "?- near(doc, $v, 5, l2) as (D, S), episode(D, T), rrf(2 * hops(D, 1, [knows]), k = 10) as (N).",
        )
        .expect("compile");
        assert_eq!(plan.columns, vec!["D", "S", "T", "N"]);
        assert!(
            plan.to_string()
                .contains("rank rrf(k=10, 2*hops(D, 1, [knows])) as (N)")
        );
    }

    #[test]
    fn rejects_what_cannot_run() {
        let msg = |src: &str| compile(src).expect_err("should fail").kind.to_string();
        assert_eq!(msg("?- lives_in(X, Y)."), "unknown relation `lives_in`");
        assert_eq!(
            msg("?- works_at(X)."),
            "`works_at` has 2 columns, got 1 arguments"
        );
        assert_eq!(
            msg("?- works_at(X, Y), Z > 3."),
            "variable `Z` is unsafe: it is not bound by a positive atom before it is used"
        );
        assert_eq!(
            msg("p(X) :- knows(X, _), not q(X). q(X) :- knows(X, _), not p(X). ?- p(X)."),
            "negation or aggregation through recursion: p -> q -> p"
        );
        assert_eq!(
            msg("p(X, Y) :- knows(X, _). ?- p(X, Y)."),
            "variable `Y` in the head is not bound by the body"
        );
        assert_eq!(
            msg("?- works_at(X, Y) as_of soon."),
            "`soon` is not bound by `let`; expected a time"
        );
        assert_eq!(
            msg("?- near(knows, \"x\", 3) as (I)."),
            "`knows` has no vector column and no `embed` column for `near`"
        );
        assert_eq!(
            msg("?- bm25(doc, \"x\", 3) as (I)."),
            "`doc` has no `search` column for `bm25`"
        );
        assert_eq!(
            msg("?- near(doc, $v, 3, manhattan) as (I)."),
            "unknown metric `manhattan`: expected `cosine`, `dot` or `l2`"
        );
        assert_eq!(
            msg("?- knows(X, Y), hops(X, 2)."),
            "name the ranked columns, e.g. `as (Id, Score, Rank)`"
        );
        assert_eq!(
            msg("?- hops(X, 2) as (N), N != X."),
            "variable `X` is unsafe: it is not bound by a positive atom before it is used"
        );
        assert_eq!(
            msg("?- hops(alice, 2) as (A, B, C, D)."),
            "a ranked relation has three columns (id, score, rank); got 4 names"
        );
        assert_eq!(
            msg("?- history knows(X, Y), knows(Y, X)."),
            "`history` takes exactly one atom of a stored relation"
        );
    }
}
