//! Demand for a bound argument: `?- reach(alice, Y).` over
//! `reach(X, Y) :- e(X, Y). reach(X, Y) :- reach(X, Z), e(Z, Y).` needs
//! only the tuples whose first argument is `alice`, and the recursion never
//! changes that argument, so the rules can be specialised to it:
//! `reach[0=alice](alice, Y) :- e(alice, Y).` and
//! `reach[0=alice](alice, Y) :- reach[0=alice](alice, Z), e(Z, Y).`, which
//! touch only what `alice` reaches. (The general rewrite is magic sets;
//! this is its case where the binding passes through the recursion
//! unchanged, the shape of every reachability, ancestry and
//! part-of query.)
//!
//! A position `i` of a derived relation `p` is *invariant* when every rule
//! of `p` has a plain variable `V` there in its head, and every atom of
//! `p` in those rules' bodies has the same `V` there; and `p` is not
//! mutually recursive with another relation (whose rules would need the
//! binding too). Then `{t in p : t[i] = c}` is the least fixpoint of `p`'s
//! rules with `V` replaced by `c`, and the query reads that relation
//! instead. Anything else (an aggregate head, a retrieval operator in a
//! rule, a negated or unbound use) is left as written.

use std::collections::{HashMap, HashSet};

use crate::ast::{self, Atom, Expr, HeadArg, Literal, Rule};

/// The query with each bound atom of an invariant relation reading its
/// specialised copy, and the rules with those copies added; `None` when
/// nothing is specialised.
pub(super) fn specialise(query: &ast::Query, rules: &[Rule]) -> Option<(ast::Query, Vec<Rule>)> {
    // Most queries bind no argument of a derived relation: they cost one
    // pass over the body, nothing is copied.
    let candidate = query.body.iter().any(|lit| {
        matches!(lit, Literal::Atom(a)
            if a.args.iter().any(bound)
                && rules.iter().any(|r| r.head.name.text == a.name.text))
    });
    if !candidate {
        return None;
    }
    let by_head = super::rules_by_head(rules);
    let mut query = query.clone();
    let mut added: Vec<Rule> = Vec::new();
    let mut made: HashSet<String> = HashSet::new();
    for lit in &mut query.body {
        let Literal::Atom(atom) = lit else { continue };
        let Some(defining) = by_head.get(atom.name.text.as_str()) else {
            continue;
        };
        if mutually_recursive(&atom.name.text, defining, &by_head) {
            continue;
        }
        let bound_at: Vec<usize> = (0..atom.args.len())
            .filter(|&i| bound(&atom.args[i]))
            .collect();
        // A position the recursion keeps is specialised as written; a
        // closure, whichever way it recurses, is rewritten in the form
        // that keeps the bound position (`closure_edge`).
        let (i, rewritten) = if let Some(&i) = bound_at
            .iter()
            .find(|&&i| invariant(&atom.name.text, i, defining))
        {
            (i, None)
        } else if let (Some(&i), Some(edge)) = (
            bound_at.first(),
            closure_edge(&atom.name.text, defining, &by_head),
        ) {
            (
                i,
                Some(closure_keeping(&atom.name.text, edge, defining[0], i)),
            )
        } else {
            continue;
        };
        let value = atom.args[i].clone();
        let name = format!("{}[{i}={}]", atom.name.text, show(&value));
        if made.insert(name.clone()) {
            match &rewritten {
                Some(rules) => added.extend(
                    rules
                        .iter()
                        .map(|rule| specialised(rule, &atom.name.text, &name, i, &value)),
                ),
                None => added.extend(
                    defining
                        .iter()
                        .map(|rule| specialised(rule, &atom.name.text, &name, i, &value)),
                ),
            }
        }
        atom.name.text = name;
    }
    if added.is_empty() {
        return None;
    }
    let mut all = rules.to_vec();
    all.extend(added);
    Some((query, all))
}

/// A constant the query fixes: a literal, a symbol or `let`, a parameter.
fn bound(arg: &Expr) -> bool {
    matches!(arg, Expr::Const(..) | Expr::Ident(_) | Expr::Param(_))
}

fn show(value: &Expr) -> String {
    match value {
        Expr::Ident(n) => n.text.clone(),
        Expr::Param(n) => format!("${}", n.text),
        Expr::Const(c, _) => match c {
            ast::Const::Int(i) => i.to_string(),
            ast::Const::Float(x) => x.to_string(),
            ast::Const::Str(s) => format!("{s:?}"),
            ast::Const::Time(t) => format!("@{t}"),
            ast::Const::Bool(b) => b.to_string(),
            ast::Const::Null => "null".into(),
        },
        _ => "?".into(),
    }
}

/// Whether position `i` of `p` is passed through every rule of `p`
/// unchanged.
fn invariant(p: &str, i: usize, defining: &[&Rule]) -> bool {
    defining.iter().all(|rule| {
        let Some(HeadArg::Term(Expr::Var(v))) = rule.head.args.get(i) else {
            return false;
        };
        if rule
            .head
            .args
            .iter()
            .any(|a| !matches!(a, HeadArg::Term(_)))
        {
            return false;
        }
        // Bound by a positive atom, so the rule is safe whatever the
        // query binds: a program is accepted or refused as written.
        let bound_in_body = rule.body.iter().any(|lit| {
            matches!(lit, Literal::Atom(a)
                if a.args.iter().any(|e| matches!(e, Expr::Var(w) if w.text == v.text)))
        });
        bound_in_body
            && rule.body.iter().all(|lit| match lit {
                Literal::Atom(a) if a.name.text == p => {
                    matches!(a.args.get(i), Some(Expr::Var(w)) if w.text == v.text)
                }
                Literal::Not(a, _) => a.name.text != p,
                Literal::Ranked(..) => false,
                _ => true,
            })
    })
}

/// The edge atom when `p`'s rules are the transitive closure of one
/// relation, up to variable names and atom order: `p(X, Y) :- e(X, Y).`
/// and one of `p(X, Y) :- p(X, Z), e(Z, Y).` (left-linear), `e(X, Z),
/// p(Z, Y)` (right-linear) or `p(X, Z), p(Z, Y)` (doubling). All three
/// derive the same relation, so a bound position any of them changes is
/// kept by another ([`closure_keeping`]), and the executor searches it
/// (`closure.rs`).
pub(super) fn closure_edge<'r>(
    p: &str,
    defining: &[&'r Rule],
    by_head: &HashMap<&str, Vec<&Rule>>,
) -> Option<&'r Atom> {
    let [first, second] = defining else {
        return None;
    };
    let vars = |args: &[Expr]| -> Option<(String, String)> {
        match args {
            [Expr::Var(a), Expr::Var(b)] if a.text != b.text => {
                Some((a.text.clone(), b.text.clone()))
            }
            _ => None,
        }
    };
    let head = |rule: &Rule| -> Option<(String, String)> {
        match &rule.head.args[..] {
            [HeadArg::Term(a), HeadArg::Term(b)] => vars(&[a.clone(), b.clone()]),
            _ => None,
        }
    };
    let atoms = |rule: &'r Rule| -> Option<Vec<&'r Atom>> {
        rule.body
            .iter()
            .map(|lit| match lit {
                Literal::Atom(a) => Some(a),
                _ => None,
            })
            .collect()
    };
    let reads_own = |rule: &Rule| body_relations(rule).any(|name| name == p);
    let (base, step) = match (reads_own(first), reads_own(second)) {
        (false, true) => (*first, *second),
        (true, false) => (*second, *first),
        _ => return None,
    };
    let [edge] = atoms(base)?[..] else {
        return None;
    };
    if edge.name.text == p || vars(&edge.args)? != head(base)? {
        return None;
    }
    let (x, y) = head(step)?;
    let [a, b] = atoms(step)?[..] else {
        return None;
    };
    // `a` goes from X to Z and `b` from Z to Y, in either written order.
    let (a, b) = match (vars(&a.args)?, vars(&b.args)?) {
        ((ax, az), (bz, by)) if ax == x && by == y && az == bz => (a, b),
        ((bz, by), (ax, az)) if ax == x && by == y && az == bz => (b, a),
        _ => return None,
    };
    let (_, z) = vars(&a.args)?;
    let is = |atom: &Atom, name: &str| atom.name.text == name;
    let shaped = z != x
        && z != y
        && ((is(a, p) && is(b, p))
            || (is(a, p) && is(b, &edge.name.text))
            || (is(a, &edge.name.text) && is(b, p)));
    (shaped && !mutually_recursive(p, defining, by_head)).then_some(edge)
}

/// The closure of `edge` written so that position `i` passes through the
/// recursion: left-linear for the first, right-linear for the second.
fn closure_keeping(p: &str, edge: &Atom, like: &Rule, i: usize) -> Vec<Rule> {
    let var = |text: &str| {
        Expr::Var(ast::Name {
            text: text.into(),
            span: like.span,
        })
    };
    let atom = |name: &str, from: &str, to: &str| {
        Literal::Atom(Atom {
            name: ast::Name {
                text: name.into(),
                span: edge.span,
            },
            args: vec![var(from), var(to)],
            span: edge.span,
        })
    };
    let rule = |body: Vec<Literal>| Rule {
        head: ast::Head {
            name: ast::Name {
                text: p.into(),
                span: like.head.name.span,
            },
            args: vec![HeadArg::Term(var("X")), HeadArg::Term(var("Y"))],
            span: like.head.span,
        },
        body,
        span: like.span,
    };
    let e = edge.name.text.as_str();
    let step = if i == 0 {
        vec![atom(p, "X", "Z"), atom(e, "Z", "Y")]
    } else {
        vec![atom(e, "X", "Z"), atom(p, "Z", "Y")]
    };
    vec![rule(vec![atom(e, "X", "Y")]), rule(step)]
}

/// Whether a relation `p`'s rules read reads `p` back (other than `p`
/// reading itself).
fn mutually_recursive(p: &str, defining: &[&Rule], by_head: &HashMap<&str, Vec<&Rule>>) -> bool {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = Vec::new();
    for rule in defining {
        for name in body_relations(rule) {
            if name != p && seen.insert(name) {
                stack.push(name);
            }
        }
    }
    while let Some(q) = stack.pop() {
        for rule in by_head.get(q).into_iter().flatten() {
            for name in body_relations(rule) {
                if name == p {
                    return true;
                }
                if seen.insert(name) {
                    stack.push(name);
                }
            }
        }
    }
    false
}

fn body_relations(rule: &Rule) -> impl Iterator<Item = &str> {
    rule.body.iter().filter_map(|lit| match lit {
        Literal::Atom(a) | Literal::Not(a, _) => Some(a.name.text.as_str()),
        _ => None,
    })
}

/// `rule` for `p` as a rule for `name`: its variable at position `i`
/// replaced by `value` everywhere, and `p` read as `name`.
fn specialised(rule: &Rule, p: &str, name: &str, i: usize, value: &Expr) -> Rule {
    let Some(HeadArg::Term(Expr::Var(v))) = rule.head.args.get(i) else {
        return rule.clone();
    };
    let var = v.text.clone();
    let mut rule = rule.clone();
    rule.head.name.text = name.to_string();
    for arg in &mut rule.head.args {
        if let HeadArg::Term(e) = arg {
            substitute(e, &var, value);
        }
    }
    for lit in &mut rule.body {
        match lit {
            Literal::Atom(a) | Literal::Not(a, _) => {
                rename(a, p, name);
                for e in &mut a.args {
                    substitute(e, &var, value);
                }
            }
            Literal::Compare(a, _, b, _) => {
                substitute(a, &var, value);
                substitute(b, &var, value);
            }
            Literal::Ranked(..) => {}
        }
    }
    rule
}

fn rename(atom: &mut Atom, p: &str, name: &str) {
    if atom.name.text == p {
        atom.name.text = name.to_string();
    }
}

fn substitute(e: &mut Expr, var: &str, value: &Expr) {
    match e {
        Expr::Var(n) if n.text == var => *e = value.clone(),
        Expr::Binary(a, _, b, _) => {
            substitute(a, var, value);
            substitute(b, var, value);
        }
        Expr::Neg(a, _) => substitute(a, var, value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::tests::program;

    fn heads(rules: &[Rule]) -> Vec<String> {
        rules.iter().map(|r| r.head.name.text.clone()).collect()
    }

    #[test]
    fn a_bound_argument_the_recursion_keeps_is_specialised() {
        let (query, rules) = program(
            "reach(X, Y) :- e(X, Y). reach(X, Y) :- reach(X, Z), e(Z, Y). ?- reach(alice, Y).",
        );
        let (query, all) = specialise(&query, &rules).expect("specialised");
        assert_eq!(heads(&all)[2..], ["reach[0=alice]", "reach[0=alice]"]);
        let Literal::Atom(a) = &query.body[0] else {
            panic!("an atom")
        };
        assert_eq!(a.name.text, "reach[0=alice]");
        // The recursive atom reads the copy, its first argument the constant.
        let Literal::Atom(r) = &all[3].body[0] else {
            panic!("an atom")
        };
        assert_eq!(r.name.text, "reach[0=alice]");
        assert!(matches!(&r.args[0], Expr::Ident(n) if n.text == "alice"));
    }

    #[test]
    fn a_closure_is_rewritten_to_keep_the_bound_position() {
        // Each of these changes the bound position, and each is the
        // closure of `e`: read as the form that keeps it.
        for (text, name, recursive) in [
            (
                "t(X, Y) :- e(X, Y). t(X, Y) :- e(X, Z), t(Z, Y). ?- t(1, Y).",
                "t[0=1]",
                ["t[0=1]", "e"],
            ),
            (
                "t(A, B) :- e(A, B). t(A, B) :- t(C, B), t(A, C). ?- t(1, Y).",
                "t[0=1]",
                ["t[0=1]", "e"],
            ),
            (
                "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y). ?- t(X, 4).",
                "t[1=4]",
                ["e", "t[1=4]"],
            ),
        ] {
            let (query, rules) = program(text);
            let (query, all) = specialise(&query, &rules).expect(text);
            let Literal::Atom(a) = &query.body[0] else {
                panic!("an atom")
            };
            assert_eq!(a.name.text, name, "{text}");
            let step: Vec<&str> = all[3]
                .body
                .iter()
                .map(|lit| match lit {
                    Literal::Atom(a) => a.name.text.as_str(),
                    _ => "?",
                })
                .collect();
            assert_eq!(step, recursive, "{text}");
        }
    }

    #[test]
    fn what_the_recursion_changes_or_aggregates_is_left_as_written() {
        for text in [
            // The second argument changes through the recursion, which
            // is no closure (a filter in the step).
            "reach(X, Y) :- e(X, Y). reach(X, Y) :- reach(X, Z), e(Z, Y), Y > 1. ?- reach(X, bob).",
            // A closure asked from a node another relation binds.
            "t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), t(Z, Y). ?- s(A), t(A, Y).",
            // An aggregate head.
            "d(X, count(Y)) :- e(X, Y). ?- d(1, N).",
            // Mutual recursion through another relation.
            "a(X, Y) :- e(X, Y). a(X, Y) :- b(X, Y). b(X, Y) :- a(X, Z), e(Z, Y). ?- a(1, Y).",
            // Nothing bound.
            "reach(X, Y) :- e(X, Y). ?- reach(X, Y).",
            // Unsafe as written (X bound by nothing): refused as written.
            "p(X, Y) :- e(Y, Z). ?- p(1, Y).",
        ] {
            let (query, rules) = program(text);
            assert!(specialise(&query, &rules).is_none(), "{text}");
        }
    }
}
