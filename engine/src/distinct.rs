//! When a rule's head tuples are distinct without a hash set.
//!
//! Deduplicating derived tuples is one hash probe per derivation into a set
//! that, for a large answer (`colleague` derives 900,000 pairs), outgrows
//! the caches. It can be skipped when no two derivations can produce the
//! same head tuple:
//!
//! * a join enumerates distinct combinations of rows, and rows are
//!   distinct (derived relations are sets; a stored relation's live rows
//!   at one instant are distinct), so if each atom's row is fixed by the
//!   values of its arguments, distinct combinations give distinct bindings;
//! * if, moreover, the head's values fix every such argument — through
//!   head variables, the key columns of functional stored relations (at one
//!   instant a key has at most one live row), assignments and equalities —
//!   then distinct bindings give distinct head tuples.
//!
//! So a rule is *distinct* when the variables fixed by its head, closed
//! under those dependencies, cover the argument that fixes each positive
//! atom's row: its key columns for a functional stored relation, every
//! column otherwise (and then no `_`). Only for a head with this one rule,
//! in a stratum that runs once, with no aggregate and no ranked operator
//! (whose rows are not checked here).

use chronolog_ql::ast::CompareOp;
use chronolog_ql::plan::{Arg, HeadTerm, RelRef, RulePlan, Step, Term};
use chronolog_storage::Store;

use crate::batch::term_is_bound;

/// Whether `rule`'s head tuples are distinct across its derivations (see
/// the module docs). `store` gives the key columns of stored relations.
pub(crate) fn head_is_distinct(rule: &RulePlan, store: &Store) -> bool {
    if rule.aggregates() {
        return false;
    }
    // Per positive atom: the columns that fix its row.
    let mut atoms: Vec<(&[Arg], Vec<usize>)> = Vec::new();
    for step in &rule.steps {
        match step {
            Step::Atom { negated: true, .. } | Step::Filter(..) | Step::Assign(..) => {}
            Step::Ranked { .. } => return false,
            Step::Atom { rel, args, .. } => {
                let fixing = match rel {
                    RelRef::Stored(name) => {
                        match store
                            .relation_id(name)
                            .and_then(|id| store.slot_columns(id))
                        {
                            Ok(columns) => columns,
                            Err(_) => return false,
                        }
                    }
                    RelRef::Derived(_) => (0..args.len()).collect(),
                };
                if fixing
                    .iter()
                    .any(|&c| matches!(args.get(c), Some(Arg::Any) | None))
                {
                    return false;
                }
                atoms.push((args, fixing));
            }
        }
    }

    let mut known = vec![false; rule.slots.len()];
    for h in &rule.head_terms {
        if let HeadTerm::Value(Term::Slot(s)) = h
            && let Some(k) = known.get_mut(*s)
        {
            *k = true;
        }
    }
    let fixed = |known: &[bool], arg: &Arg| match arg {
        Arg::Bind(s) => known.get(*s).copied().unwrap_or(false),
        Arg::Bound(t) => term_is_bound(t, known),
        Arg::Any => false,
    };
    loop {
        let mut changed = false;
        let mut learn = |known: &mut Vec<bool>, s: usize| {
            if let Some(k) = known.get_mut(s)
                && !*k
            {
                *k = true;
                changed = true;
            }
        };
        for (args, fixing) in &atoms {
            if fixing.iter().all(|&c| fixed(&known, &args[c])) {
                for arg in args.iter() {
                    match arg {
                        Arg::Bind(s) | Arg::Bound(Term::Slot(s)) => learn(&mut known, *s),
                        _ => {}
                    }
                }
            }
        }
        for step in &rule.steps {
            match step {
                Step::Assign(s, t) if term_is_bound(t, &known) => learn(&mut known, *s),
                Step::Filter(Term::Slot(a), CompareOp::Eq, Term::Slot(b)) => {
                    if known.get(*a) == Some(&true) {
                        learn(&mut known, *b);
                    }
                    if known.get(*b) == Some(&true) {
                        learn(&mut known, *a);
                    }
                }
                _ => {}
            }
        }
        if !changed {
            break;
        }
    }
    atoms
        .iter()
        .all(|(args, fixing)| fixing.iter().all(|&c| fixed(&known, &args[c])))
}

#[cfg(test)]
mod tests {
    use chronolog_storage::Store;

    use super::head_is_distinct;
    use crate::Session;

    /// Whether each rule of `query`'s plan (after `rules`) is distinct, by
    /// head relation name.
    fn verdicts(rules: &str, query: &str) -> Vec<(String, bool)> {
        let mut db = Session::new(Store::in_memory());
        db.run(
            ":create works_at(person: sym key, company: sym).
             :create knows(a: sym, b: sym).
             :create n(x: int).",
        )
        .expect("schema");
        if !rules.is_empty() {
            db.run(rules).expect("rules");
        }
        let prepared = db.prepare(query).expect("query");
        let plan = prepared.plan();
        plan.strata
            .iter()
            .flat_map(|s| &s.rules)
            .map(|r| {
                (
                    plan.derived[r.head].name.clone(),
                    head_is_distinct(r, db.store()),
                )
            })
            .collect()
    }

    fn query_verdict(query: &str) -> bool {
        verdicts("", query).last().expect("a rule").1
    }

    #[test]
    fn a_join_on_a_key_column_is_distinct_by_its_head() {
        // X fixes C (key), C and Y fix the second row.
        assert!(query_verdict("?- works_at(X, C), works_at(Y, C), X != Y."));
        // One row per person: the key alone fixes the row, `_` or not.
        assert!(query_verdict("?- works_at(X, _)."));
        assert!(query_verdict("?- works_at(X, C)."));
        // An equality carries knowledge across.
        assert!(query_verdict("?- n(X), n(Y), X = Y."));
    }

    #[test]
    fn heads_that_lose_a_row_fixing_value_are_not_distinct() {
        let rule = |rule: &str, head: &str| {
            verdicts(rule, &format!("?- {head}."))
                .into_iter()
                .find(|(n, _)| head.starts_with(n.as_str()))
                .map(|(_, d)| d)
        };
        // Y is not in the head, and C does not fix it.
        assert_eq!(
            rule("q(X) :- works_at(X, C), works_at(Y, C).", "q(X)"),
            Some(false)
        );
        // `_` in a relation without a key: many rows per X.
        assert_eq!(rule("q(X) :- knows(X, _).", "q(X)"), Some(false));
        // Z is computed from X, but Z does not give X back.
        assert_eq!(rule("q(Z) :- n(X), Z = X * 0.", "q(Z)"), Some(false));
        // The company alone does not fix the person.
        assert_eq!(rule("q(C) :- works_at(_, C).", "q(C)"), Some(false));
    }

    #[test]
    fn derived_atoms_and_aggregates() {
        let v = verdicts(
            "pair(X, Y) :- knows(X, Y).
             firsts(X) :- pair(X, _).
             total(count(X)) :- n(X).",
            // `firsts(Z)`, not `firsts(X)`: a bound argument would read
            // the demanded copy (`firsts/b`, magic sets).
            "?- pair(X, Y), firsts(Z), total(N).",
        );
        let of = |name: &str| v.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
        assert_eq!(of("pair"), Some(true));
        assert_eq!(of("firsts"), Some(false));
        assert_eq!(of("total"), Some(false));
    }

    #[test]
    fn answers_are_the_same_sets_either_way() {
        // Each query against the same rule written twice (two rules for a
        // head always go through the set).
        let mut db = Session::new(Store::in_memory());
        db.run(
            ":create works_at(person: sym key, company: sym).
             :create knows(a: sym, b: sym).
             works_at(ann, acme) valid 2019-01-01. works_at(bob, acme) valid 2019-01-01.
             works_at(cat, zeta) valid 2019-01-01.
             works_at(ann, zeta) valid 2020-01-01 .. 2021-01-01.
             knows(ann, bob). knows(ann, cat). knows(bob, cat).
             knows(cat, ann) valid 2019-01-01 .. 2021-01-01.
             knows(cat, ann) valid 2020-01-01 .. 2022-01-01.",
        )
        .expect("data");
        let mut rows = |q: &str| -> Vec<Vec<crate::Val>> {
            match db.run(q).expect("query").pop() {
                Some(crate::Output::Rows(rows)) => rows.to_vecs(),
                other => panic!("not rows: {other:?}"),
            }
        };
        for (i, (head, body)) in [
            ("X, Y", "works_at(X, C), works_at(Y, C), X != Y"),
            ("X", "works_at(X, C), works_at(Y, C)"),
            ("X", "knows(X, _)"),
            ("C", "works_at(_, C)"),
            ("X, Y, C", "works_at(X, C), works_at(Y, C)"),
            // The same tuple asserted over overlapping valid times is one
            // live row (the store merges them), so this stays distinct.
            ("X, Y", "knows(X, Y)"),
        ]
        .into_iter()
        .enumerate()
        {
            for (j, when) in ["", " as_of 2020-06-01"].into_iter().enumerate() {
                let once = rows(&format!(
                    "once{i}_{j}({head}) :- {body}. ?- once{i}_{j}({head}){when}."
                ));
                let twice = rows(&format!(
                    "twice{i}_{j}({head}) :- {body}. twice{i}_{j}({head}) :- {body}.
                     ?- twice{i}_{j}({head}){when}."
                ));
                assert_eq!(once, twice, "{head} :- {body}{when}");
                assert!(!once.is_empty());
            }
        }
    }
}
