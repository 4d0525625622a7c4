//! Walks over the variables of expressions and bodies, shared by the
//! passes.

use crate::ast::{Expr, Literal};
use crate::span::Span;

/// The query's variables in order of first appearance (not `_`-prefixed).
pub(super) fn output_columns(body: &[Literal]) -> Vec<String> {
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

/// Calls `f` on each variable of `e`, in order.
pub(super) fn walk_vars(e: &Expr, f: &mut impl FnMut(&str)) {
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

/// [`walk_vars`], with each variable's span.
pub(super) fn walk_vars_spanned(e: &Expr, f: &mut impl FnMut(&str, Span)) {
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
