//! Magic sets: a query that binds an argument of a derived relation
//! (`?- sg(alice, Y).`, `?- start(S), path(S, Y).`) derives only the
//! tuples its bindings can reach. Where `demand.rs` needs the binding to
//! pass through the recursion unchanged, this is the general rewrite
//! (Bancilhon, Maier, Sagiv and Ullman, 1986), with bindings passed left
//! to right through each rule body:
//!
//! ```text
//! sg(X, Y) :- e(P, X), e(P, Y), X != Y.          ?- sg(1, Y).
//! sg(X, Y) :- e(A, X), sg(A, B), e(B, Y).
//! ```
//!
//! becomes, for the binding pattern `bf` (first argument bound),
//!
//! ```text
//! demand sg/bf(V) :- V = 1.                          (the query's seed)
//! sg/bf(X, Y) :- demand sg/bf(X), e(P, X), e(P, Y), X != Y.
//! sg/bf(X, Y) :- demand sg/bf(X), e(A, X), sg/bf(A, B), e(B, Y).
//! demand sg/bf(A) :- demand sg/bf(X), e(A, X).       (what the body asks)
//! ```
//!
//! and `sg/bf` holds exactly the tuples of `sg` whose first argument is
//! demanded, so the query reads it in place of `sg`.
//!
//! Only positive atoms are adorned. A negated atom, and any relation that
//! aggregates in its head, reads a retrieval operator, or is a closure
//! the executor searches (`closure.rs` computes a whole closure faster
//! than demand would restrict it), is read as written: computed in full
//! in its own stratum. So the rewrite adds no negation through recursion
//! and the program stays stratified.

use std::collections::{HashMap, HashSet, VecDeque};

use super::demand::closure_edge;
use crate::ast::{self, Atom, CompareOp, Expr, HeadArg, Literal, Name, Rule};

/// The query reading the adorned relations its bindings demand, and the
/// rules with the adorned and demand rules added; `None` when the query
/// binds no argument of an adornable derived relation.
pub(super) fn rewrite(query: &ast::Query, rules: &[Rule]) -> Option<(ast::Query, Vec<Rule>)> {
    // Most queries bind no argument of a derived relation: one pass over
    // the body, nothing copied.
    let reads_derived = query.body.iter().any(|lit| {
        matches!(lit, Literal::Atom(a) if rules.iter().any(|r| r.head.name.text == a.name.text))
    });
    if query.history || !reads_derived {
        return None;
    }
    let by_head = super::rules_by_head(rules);
    let mut magic = Magic {
        by_head,
        queue: VecDeque::new(),
        queued: HashSet::new(),
        added: Vec::new(),
        fresh: 0,
    };
    let mut query = query.clone();
    let mut bound: HashSet<String> = HashSet::new();
    let mut before: Vec<Literal> = Vec::new();
    for lit in &mut query.body {
        if let Literal::Atom(atom) = lit
            && let Some(adornment) = magic.adornment(atom, &bound)
        {
            let seed = magic.demand_rule(atom, &adornment, before.clone());
            magic.added.push(seed);
            atom.name.text = magic.adorned(&atom.name.text, &adornment);
        }
        bind(lit, &mut bound);
        before.push(lit.clone());
    }
    if magic.added.is_empty() {
        return None;
    }
    while let Some((p, adornment)) = magic.queue.pop_front() {
        let defining = magic.by_head.get(p.as_str()).cloned().unwrap_or_default();
        for rule in defining {
            magic.adorn(rule, &adornment);
        }
    }
    let mut all = rules.to_vec();
    all.extend(magic.added);
    Some((query, all))
}

struct Magic<'r> {
    by_head: HashMap<&'r str, Vec<&'r Rule>>,
    /// Adorned relations whose rules are still to be written.
    queue: VecDeque<(String, Vec<bool>)>,
    queued: HashSet<String>,
    added: Vec<Rule>,
    /// Numbers the variables the rewrite introduces.
    fresh: usize,
}

impl Magic<'_> {
    /// Which of `atom`'s arguments `bound` fixes, when its relation is
    /// adornable and at least one is.
    fn adornment(&self, atom: &Atom, bound: &HashSet<String>) -> Option<Vec<bool>> {
        let defining = self.by_head.get(atom.name.text.as_str())?;
        let adornment: Vec<bool> = atom.args.iter().map(|a| is_bound(a, bound)).collect();
        if !adornment.iter().any(|&b| b) {
            return None;
        }
        let plain = defining.iter().all(|rule| {
            rule.head.args.len() == adornment.len()
                && rule.head.args.iter().zip(&adornment).all(|(arg, &b)| {
                    matches!(arg, HeadArg::Term(Expr::Var(_)))
                        || (!b && matches!(arg, HeadArg::Term(_)))
                        || (b && matches!(arg, HeadArg::Term(e) if is_bound(e, &HashSet::new())))
                })
                && !rule
                    .body
                    .iter()
                    .any(|lit| matches!(lit, Literal::Ranked(..)))
        });
        let searched = closure_edge(&atom.name.text, defining, &self.by_head).is_some();
        (plain && !searched).then_some(adornment)
    }

    fn adorned(&mut self, p: &str, adornment: &[bool]) -> String {
        let name = format!("{p}/{}", pattern(adornment));
        if self.queued.insert(name.clone()) {
            self.queue.push_back((p.to_string(), adornment.to_vec()));
        }
        name
    }

    /// `demand p/α(bound args) :- body.`, a bound argument that is not a
    /// variable first equated to a fresh one (a rule needs a condition).
    fn demand_rule(&mut self, atom: &Atom, adornment: &[bool], mut body: Vec<Literal>) -> Rule {
        let mut args = Vec::new();
        for (arg, _) in atom.args.iter().zip(adornment).filter(|(_, b)| **b) {
            if let Expr::Var(_) = arg {
                args.push(HeadArg::Term(arg.clone()));
                continue;
            }
            let var = Expr::Var(Name {
                text: format!("#demand{}", self.fresh),
                span: arg.span(),
            });
            self.fresh += 1;
            body.push(Literal::Compare(
                var.clone(),
                CompareOp::Eq,
                arg.clone(),
                arg.span(),
            ));
            args.push(HeadArg::Term(var));
        }
        Rule {
            head: ast::Head {
                name: Name {
                    text: demand_name(&atom.name.text, adornment),
                    span: atom.name.span,
                },
                args,
                span: atom.span,
            },
            body,
            span: atom.span,
        }
    }

    /// `rule` for `p` as a rule for `p/α`: first what is demanded of it,
    /// then its body with each atom it binds an argument of adorned, and
    /// for each such atom a rule saying what this body demands of it.
    fn adorn(&mut self, rule: &Rule, adornment: &[bool]) {
        let name = self.adorned(&rule.head.name.text, adornment);
        let demanded: Vec<Expr> = rule
            .head
            .args
            .iter()
            .zip(adornment)
            .filter(|(_, b)| **b)
            .filter_map(|(arg, _)| match arg {
                HeadArg::Term(e) => Some(e.clone()),
                HeadArg::Aggregate(..) => None,
            })
            .collect();
        let mut bound = HashSet::new();
        for e in &demanded {
            if let Expr::Var(v) = e {
                bound.insert(v.text.clone());
            }
        }
        let mut body = vec![Literal::Atom(Atom {
            name: Name {
                text: demand_name(&rule.head.name.text, adornment),
                span: rule.head.name.span,
            },
            args: demanded,
            span: rule.head.span,
        })];
        for lit in &rule.body {
            let mut lit = lit.clone();
            if let Literal::Atom(atom) = &mut lit
                && let Some(inner) = self.adornment(atom, &bound)
            {
                let demand = self.demand_rule(atom, &inner, body.clone());
                self.added.push(demand);
                atom.name.text = self.adorned(&atom.name.text, &inner);
            }
            bind(&lit, &mut bound);
            body.push(lit);
        }
        let mut head = rule.head.clone();
        head.name.text = name;
        self.added.push(Rule {
            head,
            body,
            span: rule.span,
        });
    }
}

/// `bf`: which arguments are bound (b) or free (f).
fn pattern(adornment: &[bool]) -> String {
    adornment
        .iter()
        .map(|&b| if b { 'b' } else { 'f' })
        .collect()
}

fn demand_name(p: &str, adornment: &[bool]) -> String {
    format!("demand {p}/{}", pattern(adornment))
}

/// Whether `e`'s value is known once the variables in `bound` are.
fn is_bound(e: &Expr, bound: &HashSet<String>) -> bool {
    match e {
        Expr::Const(..) | Expr::Ident(_) | Expr::Param(_) => true,
        Expr::Var(v) => bound.contains(&v.text),
        Expr::Wildcard(_) => false,
        Expr::Binary(a, _, b, _) => is_bound(a, bound) && is_bound(b, bound),
        Expr::Neg(a, _) => is_bound(a, bound),
    }
}

/// Adds the variables `lit` binds once it has been read.
fn bind(lit: &Literal, bound: &mut HashSet<String>) {
    match lit {
        Literal::Atom(a) => {
            for arg in &a.args {
                if let Expr::Var(v) = arg {
                    bound.insert(v.text.clone());
                }
            }
        }
        Literal::Compare(a, CompareOp::Eq, b, _) => {
            for (x, y) in [(a, b), (b, a)] {
                if let Expr::Var(v) = x
                    && is_bound(y, bound)
                {
                    bound.insert(v.text.clone());
                }
            }
        }
        Literal::Ranked(_, Some(terms), _) => {
            for t in terms {
                if let Expr::Var(v) = t {
                    bound.insert(v.text.clone());
                }
            }
        }
        Literal::Not(..) | Literal::Compare(..) | Literal::Ranked(..) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tests::program;

    /// Each added rule as `head(args) :- body names`, for comparing.
    fn shown(rules: &[Rule]) -> Vec<String> {
        rules
            .iter()
            .map(|r| {
                let body: Vec<&str> = r
                    .body
                    .iter()
                    .map(|lit| match lit {
                        Literal::Atom(a) => a.name.text.as_str(),
                        Literal::Not(..) => "not",
                        Literal::Compare(..) => "compare",
                        Literal::Ranked(..) => "ranked",
                    })
                    .collect();
                format!("{} :- {}", r.head.name.text, body.join(", "))
            })
            .collect()
    }

    #[test]
    fn same_generation_asked_of_one_node_reads_only_what_it_demands() {
        let (query, rules) = program(
            "sg(X, Y) :- e(P, X), e(P, Y), X != Y. \
             sg(X, Y) :- e(A, X), sg(A, B), e(B, Y). ?- sg(1, Y).",
        );
        let (query, all) = rewrite(&query, &rules).expect("rewritten");
        let Literal::Atom(a) = &query.body[0] else {
            panic!("an atom")
        };
        assert_eq!(a.name.text, "sg/bf");
        assert_eq!(
            shown(&all[2..]),
            [
                "demand sg/bf :- compare",
                "sg/bf :- demand sg/bf, e, e, compare",
                "demand sg/bf :- demand sg/bf, e",
                "sg/bf :- demand sg/bf, e, sg/bf, e",
            ]
        );
    }

    #[test]
    fn a_binding_passes_from_an_earlier_atom_and_through_other_relations() {
        let (query, rules) = program(
            "p(X, Y) :- q(X, Z), r(Z, Y). q(X, Y) :- e(X, Y). q(X, Y) :- e(X, Z), q(Z, Y), Y > Z. \
             r(X, Y) :- e(X, Y), not f(Y). ?- s(A), p(A, Y).",
        );
        let (query, all) = rewrite(&query, &rules).expect("rewritten");
        let Literal::Atom(p) = &query.body[1] else {
            panic!("an atom")
        };
        assert_eq!(p.name.text, "p/bf");
        let added = shown(&all[4..]);
        assert_eq!(added[0], "demand p/bf :- s");
        assert!(added.contains(&"q/bf :- demand q/bf, e, q/bf, compare".to_string()));
        assert!(added.contains(&"r/bf :- demand r/bf, e, not".to_string()));
    }

    #[test]
    fn what_cannot_be_adorned_is_left_as_written() {
        for text in [
            // Nothing bound.
            "sg(X, Y) :- e(X, Y). ?- sg(X, Y).",
            // An aggregate head.
            "d(X, count(Y)) :- e(X, Y). ?- d(1, N).",
            // A closure, searched in full by the executor.
            "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y). ?- s(A), t(A, Y).",
            // Only under negation.
            "p(X) :- e(X, Y). ?- f(X), not p(X).",
            // Stored relations only.
            "?- e(1, Y).",
        ] {
            let (query, rules) = program(text);
            assert!(rewrite(&query, &rules).is_none(), "{text}");
        }
    }
}
