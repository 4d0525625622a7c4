//! Recognising the recursions a graph search computes. A recursive
//! stratum of one relation whose rules are, up to variable names and atom
//! order,
//!
//! ```text
//! t(X, Y) :- e(X, Y).        t(X, Z) :- t(X, Y), e(Y, Z).   (or e(X, Y), t(Y, Z); or t(X, Y), t(Y, Z))
//! r(Y) :- e(c, Y).           r(Z) :- r(Y), e(Y, Z).         (what c reaches)
//! r(X) :- e(X, c).           r(X) :- e(X, Y), r(Y).         (what reaches c)
//! ```
//!
//! is the transitive closure of `e`, or one node's reach along it (the
//! form `demand.rs` leaves a closure asked from a bound node in). Such a
//! stratum gets a [`Closure`]: the executor searches `e`'s edges from each
//! source instead of joining round by round, and derives the same set.
//! Anything else (a filter, a third atom, a constant in the step, a
//! negation) is left to the fixpoint.

use crate::plan::{Arg, Closure, HeadTerm, Plan, RelRef, RulePlan, Step, Stratum, Term};

/// Marks every stratum of `plan` that is a closure or a reach.
pub(crate) fn recognise(plan: &mut Plan) {
    for stratum in &mut plan.strata {
        if stratum.recursive
            && let [rel] = stratum.relations[..]
            && let Some(arity) = plan.derived.get(rel).map(|d| d.arity)
        {
            stratum.closure = closure_of(stratum, rel, arity);
        }
    }
}

/// An atom's relation and the slots (or constants) of its two columns.
struct Atom<'a> {
    rel: &'a RelRef,
    args: &'a [Arg],
}

fn atoms(rule: &RulePlan) -> Option<Vec<Atom<'_>>> {
    rule.steps
        .iter()
        .map(|step| match step {
            Step::Atom {
                rel,
                args,
                negated: false,
            } => Some(Atom { rel, args }),
            _ => None,
        })
        .collect()
}

/// The slot an argument binds or reads.
fn slot(arg: &Arg) -> Option<usize> {
    match arg {
        Arg::Bind(s) | Arg::Bound(Term::Slot(s)) => Some(*s),
        Arg::Bound(_) | Arg::Any => None,
    }
}

/// The slots of a two-column atom's arguments.
fn pair(atom: &Atom<'_>) -> Option<(usize, usize)> {
    match atom.args {
        [a, b] => Some((slot(a)?, slot(b)?)),
        _ => None,
    }
}

/// The head's slots, when every head column is a plain variable.
fn head(rule: &RulePlan) -> Option<Vec<usize>> {
    rule.head_terms
        .iter()
        .map(|t| match t {
            HeadTerm::Value(Term::Slot(s)) => Some(*s),
            _ => None,
        })
        .collect()
}

fn closure_of(stratum: &Stratum, rel: usize, arity: usize) -> Option<Closure> {
    let own = RelRef::Derived(rel);
    let [first, second] = &stratum.rules[..] else {
        return None;
    };
    let reads_own = |r: &RulePlan| atoms(r).is_some_and(|a| a.iter().any(|a| *a.rel == own));
    let (base_at, base, step) = match (reads_own(first), reads_own(second)) {
        (false, true) => (0, first, second),
        (true, false) => (1, second, first),
        _ => return None,
    };
    let [edge] = &atoms(base)?[..] else {
        return None;
    };
    if *edge.rel == own {
        return None;
    }
    let [a, b] = &atoms(step)?[..] else {
        return None;
    };
    let is_edge = |x: &Atom<'_>| x.rel == edge.rel && x.args.len() == 2;
    let is_own = |x: &Atom<'_>| *x.rel == own;
    let closure = |from, backward, pinned| {
        Some(Closure {
            edges: edge.rel.clone(),
            base: base_at,
            from,
            backward,
            pinned,
        })
    };
    if arity == 2
        && let Some(pinned) = pinned_column(base)
    {
        // A closure asked from a bound node (`demand.rs`): one column
        // holds the node itself, the other what is reached.
        let free = 1 - pinned;
        let constant = match &base.head_terms[pinned] {
            HeadTerm::Value(t @ (Term::Const(_) | Term::Param(_))) => t.clone(),
            _ => return None,
        };
        let same =
            |r: &RulePlan| matches!(&r.head_terms[pinned], HeadTerm::Value(t) if *t == constant);
        let (own_atom, edge_atom) = own_step_atoms(a, b, is_own, is_edge)?;
        if !same(base)
            || !same(step)
            || !matches!(&own_atom.args[pinned], Arg::Bound(t) if *t == constant)
        {
            return None;
        }
        let own_free = Atom {
            rel: own_atom.rel,
            args: std::slice::from_ref(&own_atom.args[free]),
        };
        let free_head = |r: &RulePlan| match &r.head_terms[free] {
            HeadTerm::Value(Term::Slot(s)) => Some(vec![*s]),
            _ => None,
        };
        let (from, backward) = reach(
            edge,
            (&own_free, edge_atom),
            &free_head(base)?,
            &free_head(step)?,
            Some(&constant),
        )?;
        return closure(Some(from), backward, Some(pinned));
    }
    let base_head = head(base)?;
    let step_head = head(step)?;
    match arity {
        2 => {
            // t(X, Y) :- e(X, Y).
            let (x, y) = pair(edge)?;
            if x == y || base_head != [x, y] {
                return None;
            }
            // A path, then one more step: a chain X -> Y -> Z whose ends
            // are the head, whichever atom is the edge.
            let chain = |left: &Atom<'_>, right: &Atom<'_>| -> bool {
                let (Some((p, q)), Some((r, s))) = (pair(left), pair(right)) else {
                    return false;
                };
                q == r && p != q && q != s && p != s && step_head == [p, s]
            };
            let linear = (is_own(a) && is_edge(b) || is_edge(a) && is_own(b))
                && (chain(a, b) || chain(b, a));
            let doubling = is_own(a) && is_own(b) && (chain(a, b) || chain(b, a));
            (linear || doubling).then_some(())?;
            closure(None, false, None)
        }
        1 => reach(
            edge,
            own_step_atoms(a, b, is_own, is_edge)?,
            &base_head,
            &step_head,
            None,
        )
        .and_then(|(from, backward)| closure(Some(from), backward, None)),
        _ => None,
    }
}

/// The step's atom on the stratum's own relation and its edge atom, in
/// that order, whichever comes first in the body.
fn own_step_atoms<'a, 'b>(
    a: &'b Atom<'a>,
    b: &'b Atom<'a>,
    is_own: impl Fn(&Atom<'_>) -> bool,
    is_edge: impl Fn(&Atom<'_>) -> bool,
) -> Option<(&'b Atom<'a>, &'b Atom<'a>)> {
    match (is_own(a) && is_edge(b), is_edge(a) && is_own(b)) {
        (true, false) => Some((a, b)),
        (false, true) => Some((b, a)),
        _ => None,
    }
}

/// The column of a two-column relation whose base rule's head is a
/// constant (or parameter), if exactly one is.
fn pinned_column(base: &RulePlan) -> Option<usize> {
    let fixed = |t: &HeadTerm| matches!(t, HeadTerm::Value(Term::Const(_) | Term::Param(_)));
    match &base.head_terms[..] {
        [a, b] if fixed(a) && !fixed(b) => Some(0),
        [a, b] if !fixed(a) && fixed(b) => Some(1),
        _ => None,
    }
}

/// One node's reach: the base reads the edges from (or, backwards, to) a
/// constant, `r(Y) :- e(c, Y)`, and the step takes one more edge from what
/// is reached, `r(Z) :- r(Y), e(Y, Z)`. `own` and `edge` are the step's
/// atoms, `own` with the reached column alone; `pinned` is the constant
/// the relation keeps in its other column, which must be the edges' too.
/// The constant and whether the search goes backwards.
fn reach(
    edge: &Atom<'_>,
    (own, edge_step): (&Atom<'_>, &Atom<'_>),
    base_head: &[usize],
    step_head: &[usize],
    pinned: Option<&Term>,
) -> Option<(Term, bool)> {
    let [from_arg, to_arg] = edge.args else {
        return None;
    };
    let constant = |arg: &Arg| match arg {
        Arg::Bound(t @ (Term::Const(_) | Term::Param(_))) => Some(t.clone()),
        _ => None,
    };
    let [reached] = own.args else {
        return None;
    };
    let reached = slot(reached)?;
    let (p, q) = pair(edge_step)?;
    if p == q {
        return None;
    }
    let (c, backward) = match (constant(from_arg), constant(to_arg)) {
        // r(Y) :- e(c, Y).   r(Z) :- r(Y), e(Y, Z).
        (Some(c), None) if base_head == [slot(to_arg)?] && p == reached && step_head == [q] => {
            (c, false)
        }
        // r(X) :- e(X, c).   r(X) :- e(X, Y), r(Y).
        (None, Some(c)) if base_head == [slot(from_arg)?] && q == reached && step_head == [p] => {
            (c, true)
        }
        _ => return None,
    };
    if pinned.is_some_and(|t| *t != c) {
        return None;
    }
    Some((c, backward))
}
