//! Resolution, the first pass: every atom the query can reach names a
//! stored relation (asked of the [`Catalog`]) or a relation derived by
//! rules, with the right arity. The derived relations are numbered in the
//! order they are first reached (depth first, source order), the query's
//! own output last, and each one's reads are listed for stratification.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use super::vars::output_columns;
use super::{Catalog, OUTPUT};
use crate::ast::{self, Expr, HeadArg, Literal, Rule};
use crate::error::{CompileError, CompileErrorKind};
use crate::plan::Derived;
use crate::span::Span;

/// A query whose relations are all known: the input of [`super::stratify`].
#[derive(Debug)]
pub struct Resolved<'q> {
    /// The query, with a lone retrieval operator given its `(Id, Score,
    /// Rank)` columns and rank order.
    pub query: Cow<'q, ast::Query>,
    /// Every derived relation the query reaches; the last is its output.
    pub derived: Vec<Derived>,
    /// Per derived relation, the rules that define it (none for the output).
    pub rules: Vec<Vec<&'q Rule>>,
    /// Per derived relation, what its rules (the query's body, for the
    /// output) read, in source order.
    pub reads: Vec<Vec<Read>>,
    /// Derived relation numbers by name.
    pub index: HashMap<String, usize>,
}

/// One atom in a rule body, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    /// The relation read.
    pub rel: ReadRel,
    /// Under `not`.
    pub negated: bool,
    /// By a rule with an aggregate head: the whole relation must be known
    /// before the rule runs, as for a negation.
    pub aggregated: bool,
    /// Where, for errors.
    pub span: Span,
}

/// The relation an atom reads.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadRel {
    /// A stored relation, by name.
    Stored(String),
    /// A derived relation, by number.
    Derived(usize),
}

impl Resolved<'_> {
    /// The number of the query's own output relation.
    pub fn output(&self) -> usize {
        self.derived.len() - 1
    }
}

/// Resolves `query` against the `rules` in scope and the stored relations.
pub fn resolve<'q>(
    query: &'q ast::Query,
    rules: &'q [Rule],
    catalog: &dyn Catalog,
) -> Result<Resolved<'q>, CompileError> {
    let query = normalize(query);
    if query.history {
        check_history(&query, catalog)?;
    }
    let by_head = super::rules_by_head(rules);
    let mut r = Resolver {
        by_head,
        catalog,
        derived: Vec::new(),
        rules: Vec::new(),
        index: HashMap::new(),
    };
    for lit in &query.body {
        match lit {
            Literal::Atom(a) | Literal::Not(a, _) => r.visit(a)?,
            Literal::Ranked(_, binds, span) => check_ranked(binds.as_deref(), *span)?,
            Literal::Compare(..) => {}
        }
    }
    r.derived.push(Derived {
        name: OUTPUT.into(),
        arity: output_columns(&query.body).len(),
    });
    r.rules.push(Vec::new());
    let mut reads = Vec::with_capacity(r.derived.len());
    for rules in &r.rules {
        let mut list = Vec::new();
        for rule in rules {
            let aggregated = rule
                .head
                .args
                .iter()
                .any(|a| matches!(a, HeadArg::Aggregate(..)));
            list.extend(r.reads_of(&rule.body, aggregated));
        }
        reads.push(list);
    }
    if let Some(last) = reads.last_mut() {
        *last = r.reads_of(&query.body, false).collect();
    }
    Ok(Resolved {
        query,
        derived: r.derived,
        rules: r.rules,
        reads,
        index: r.index,
    })
}

/// `?- rrf(...) limit 10.`: a lone retrieval operator's rows are the
/// answer, as (Id, Score, Rank) in rank order.
fn normalize(query: &ast::Query) -> Cow<'_, ast::Query> {
    let [Literal::Ranked(ranked, None, span)] = query.body.as_slice() else {
        return Cow::Borrowed(query);
    };
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
    Cow::Owned(q)
}

/// `history` reads one stored relation and lists every version on both
/// axes; a time-travel modifier would silently change nothing, so it is
/// refused.
fn check_history(query: &ast::Query, catalog: &dyn Catalog) -> Result<(), CompileError> {
    match query.body.as_slice() {
        [Literal::Atom(atom)] if catalog.stored(&atom.name.text).is_some() => {}
        _ => {
            return Err(CompileError::new(
                CompileErrorKind::HistoryNeedsOneAtom,
                query.span,
            ));
        }
    }
    if let Some(t) = query.as_of.as_ref().or(query.known_at.as_ref()) {
        return Err(CompileError::new(
            CompileErrorKind::HistoryTakesNoTimeAxes,
            t.span(),
        ));
    }
    Ok(())
}

/// A retrieval operator inside a larger body must name its columns.
fn check_ranked(binds: Option<&[Expr]>, span: Span) -> Result<(), CompileError> {
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

struct Resolver<'q, 'c> {
    by_head: HashMap<&'q str, Vec<&'q Rule>>,
    catalog: &'c dyn Catalog,
    derived: Vec<Derived>,
    rules: Vec<Vec<&'q Rule>>,
    index: HashMap<String, usize>,
}

impl<'q> Resolver<'q, '_> {
    /// Checks an atom's relation and arity, registering derived relations
    /// and, depth first, what their rules read. Iterative: a chain of
    /// 40,000 rules must not be 40,000 stack frames.
    fn visit(&mut self, atom: &ast::Atom) -> Result<(), CompileError> {
        // Atoms still to check, the next on top; a rule's atoms are pushed
        // in reverse so they come off in order (the recursive preorder).
        let mut pending: Vec<&ast::Atom> = vec![atom];
        while let Some(atom) = pending.pop() {
            let name = atom.name.text.as_str();
            if let Some(columns) = self.catalog.stored(name) {
                if let Some(rules) = self.by_head.get(name) {
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
            let Some(rules) = self.by_head.get(name) else {
                return Err(CompileError::new(
                    CompileErrorKind::UnknownRelation(name.to_string()),
                    atom.name.span,
                ));
            };
            let rules: Vec<&'q Rule> = rules.clone();
            let arity = rules[0].head.args.len();
            for rule in &rules {
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
            for rule in &rules {
                for lit in &rule.body {
                    match lit {
                        Literal::Atom(a) | Literal::Not(a, _) => children.push(a),
                        Literal::Ranked(_, binds, span) => check_ranked(binds.as_deref(), *span)?,
                        Literal::Compare(..) => {}
                    }
                }
            }
            self.rules.push(rules);
            pending.extend(children.into_iter().rev());
        }
        Ok(())
    }

    /// The atoms of `body` as reads (every relation is known by now).
    fn reads_of<'b>(
        &'b self,
        body: &'b [Literal],
        aggregated: bool,
    ) -> impl Iterator<Item = Read> + 'b {
        body.iter().filter_map(move |lit| {
            let (atom, negated, span) = match lit {
                Literal::Atom(a) => (a, false, a.span),
                Literal::Not(a, s) => (a, true, *s),
                Literal::Compare(..) | Literal::Ranked(..) => return None,
            };
            let rel = match self.index.get(&atom.name.text) {
                Some(&j) => ReadRel::Derived(j),
                None => ReadRel::Stored(atom.name.text.clone()),
            };
            Some(Read {
                rel,
                negated,
                aggregated,
                span,
            })
        })
    }
}

/// One line per derived relation: its number, name and arity, how many
/// rules define it, and what they read (`not` for a negation, `agg` for a
/// read by an aggregating rule, `stored` for a stored relation).
impl fmt::Display for Resolved<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "resolved")?;
        for (i, d) in self.derived.iter().enumerate() {
            let reads: Vec<String> = self.reads[i]
                .iter()
                .map(|r| {
                    let mut s = String::new();
                    if r.negated {
                        s.push_str("not ");
                    }
                    if r.aggregated {
                        s.push_str("agg ");
                    }
                    match &r.rel {
                        ReadRel::Stored(name) => s.push_str(&format!("{name} (stored)")),
                        ReadRel::Derived(j) => {
                            s.push_str(&format!("#{j} {}", self.derived[*j].name))
                        }
                    }
                    s
                })
                .collect();
            let source = if i == self.output() {
                "the query".to_string()
            } else {
                let n = self.rules[i].len();
                format!("{n} rule{}", if n == 1 { "" } else { "s" })
            };
            write!(f, "  #{i} {}/{} from {source}", d.name, d.arity)?;
            if reads.is_empty() {
                writeln!(f)?;
            } else {
                writeln!(f, ": reads {}", reads.join(", "))?;
            }
        }
        Ok(())
    }
}
