//! Datalog for a tenant's key: a query is run only when every row it can
//! read is the tenant's own.
//!
//! The check is syntactic and conservative. Every atom (negated or not)
//! must name a relation with a `tenant` column and put the tenant there:
//! `$tenant` (which the server binds to the key's tenant; a caller may not
//! pass it) or the tenant's name written as a symbol. Every retrieval
//! operator that reads a relation (`near`, `bm25`, `top`, `decayed`) must
//! restrict it the same way (`tenant = $tenant`), since an operator's rows
//! are ranked before any join could filter them; `hops`, which walks every
//! link relation, is refused. A query that passes reads the tenant's rows
//! only, whatever else it says; one that does not is refused with the
//! atom that failed, before anything runs.

use chronolog_engine::Store;
use chronolog_ql::ast::{Atom, Expr, Literal, Name, Ranked, Statement};

/// The parameter a tenant's query names its tenant by.
pub const TENANT_PARAM: &str = "tenant";

/// `Ok` when `text` (one query) reads only `tenant`'s rows of `store`.
pub fn check(store: &Store, text: &str, tenant: &str) -> Result<(), String> {
    let program = chronolog_ql::parse(text).map_err(|e| e.to_string())?;
    let [Statement::Query(query)] = program.statements.as_slice() else {
        return Err(
            "send one query (`?- ...`): a tenant's key may not define, write or \
                    run several statements"
                .into(),
        );
    };
    for literal in &query.body {
        match literal {
            Literal::Atom(atom) | Literal::Not(atom, _) => atom_is_scoped(store, atom, tenant)?,
            Literal::Compare(..) => {}
            Literal::Ranked(ranked, _, _) => ranked_is_scoped(store, ranked, tenant)?,
        }
    }
    Ok(())
}

fn atom_is_scoped(store: &Store, atom: &Atom, tenant: &str) -> Result<(), String> {
    let column = tenant_column(store, &atom.name)?;
    match atom.args.get(column) {
        Some(arg) if names_tenant(arg, tenant) => Ok(()),
        _ => Err(format!(
            "`{}(...)`: a tenant's key reads its own rows only: put `${TENANT_PARAM}` as its \
             tenant (argument {}), e.g. `{}`",
            atom.name.text,
            column + 1,
            example(&atom.name.text, column, atom.args.len())
        )),
    }
}

fn ranked_is_scoped(store: &Store, ranked: &Ranked, tenant: &str) -> Result<(), String> {
    let (rel, filters) = match ranked {
        Ranked::Near { rel, filters, .. }
        | Ranked::Bm25 { rel, filters, .. }
        | Ranked::Top { rel, filters, .. }
        | Ranked::Decayed { rel, filters, .. } => (rel, filters),
        Ranked::Hops { .. } => {
            return Err("`hops` walks every tenant's links: a tenant's key may not use it".into());
        }
        Ranked::Rrf { inputs, .. } => {
            for (_, input) in inputs {
                ranked_is_scoped(store, input, tenant)?;
            }
            return Ok(());
        }
    };
    tenant_column(store, rel)?;
    let scoped = filters
        .iter()
        .any(|(column, value)| column.text == "tenant" && names_tenant(value, tenant));
    if scoped {
        Ok(())
    } else {
        Err(format!(
            "a search of `{}` reads every tenant's rows unless it is restricted: add \
             `tenant = ${TENANT_PARAM}` to its arguments",
            rel.text
        ))
    }
}

/// The position of `rel`'s `tenant` column; a relation without one is
/// nobody's and not a tenant's to read.
fn tenant_column(store: &Store, rel: &Name) -> Result<usize, String> {
    let id = store
        .relation_id(&rel.text)
        .map_err(|_| format!("no relation `{}`", rel.text))?;
    let schema = store.schema(id).map_err(|e| e.to_string())?;
    schema.column_index("tenant").ok_or_else(|| {
        format!(
            "`{}` has no tenant column: a tenant's key may not read it",
            rel.text
        )
    })
}

fn names_tenant(arg: &Expr, tenant: &str) -> bool {
    match arg {
        Expr::Param(name) => name.text == TENANT_PARAM,
        Expr::Ident(name) => name.text == tenant,
        _ => false,
    }
}

fn example(rel: &str, column: usize, arity: usize) -> String {
    let args: Vec<&str> = (0..arity.max(column + 1))
        .map(|i| if i == column { "$tenant" } else { "_" })
        .collect();
    format!("?- {rel}({}).", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Store {
        let mut session = chronolog_engine::Session::in_memory();
        session
            .run(
                ":create notes(id: str key, tenant: sym, text: str search).
                 :create shared(a: sym, b: sym).",
            )
            .expect("schema");
        session.store().clone()
    }

    #[test]
    fn a_query_passes_only_when_every_read_is_the_tenants() {
        let store = store();
        for ok in [
            "?- notes(I, $tenant, X).",
            "?- notes(I, alice, X), not notes(I, $tenant, \"x\").",
            "?- bm25(notes, \"cello\", 5, tenant = $tenant) as (I, S, R), notes(I, $tenant, X).",
            "?- rrf(bm25(notes, \"a\", 5, tenant = alice), top(notes, id, 3, tenant = $tenant)) as (I, S, R).",
        ] {
            assert_eq!(check(&store, ok, "alice"), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("?- notes(I, T, X).", "put `$tenant`"),
            ("?- notes(I, bob, X).", "put `$tenant`"),
            ("?- notes(I, $tenant, X), notes(J, _, Y).", "argument 2"),
            ("?- shared(A, B).", "no tenant column"),
            ("?- bm25(notes, \"cello\", 5) as (I, S, R).", "restricted"),
            ("?- hops(alice, 2) as (I, S, R).", "hops"),
            ("r(X) :- notes(X, $tenant, _).", "one query"),
            ("?- nothing(X).", "no relation"),
        ] {
            let error = check(&store, bad, "alice").expect_err(bad);
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
