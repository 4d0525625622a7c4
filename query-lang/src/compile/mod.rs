//! Compilation: an `ast::Query` plus the rules in scope becomes a
//! [`Plan`], in three passes, each returning the typed value the next
//! takes and each printable (`Display`) so a golden test can show it:
//!
//! 1. [`resolve`] (`resolve.rs`): every atom names a stored relation (asked
//!    of the [`Catalog`]) or a relation derived by rules, with the right
//!    arity → [`Resolved`], the derived relations and what each reads.
//! 2. [`stratify`] (`stratify.rs`): strongly connected components of the
//!    dependency graph, dependencies first; a negated or aggregated
//!    dependency inside a component is rejected, naming the cycle →
//!    [`Strata`].
//! 3. [`lower`] (`lower.rs`): each rule becomes steps over numbered slots;
//!    atoms in source order, each filter, assignment, negation and
//!    retrieval operator as soon as its inputs are bound. Safety (every
//!    variable bound before use) is checked here, and `let` names become
//!    their values → [`Plan`].
//!
//! Then rewrites keep the answer and change the work. Before the passes,
//! a query that binds an argument of a derived relation reads only what
//! the binding demands: `demand.rs` specialises a relation whose bound
//! argument the recursion keeps (or a closure, rewritten to keep it), and
//! otherwise `magic.rs` passes the bindings down by magic sets. After
//! them, `closure.rs` marks a recursion that is a transitive closure or
//! one node's reach, for the executor to search.

mod closure;
mod demand;
mod lower;
mod magic;
mod resolve;
mod stratify;
mod vars;

#[cfg(test)]
mod tests;

use std::collections::HashMap;

pub use lower::lower;
pub use resolve::{Read, ReadRel, Resolved, resolve};
pub use stratify::{Component, Strata, stratify};

use crate::ast::{self, Rule, TypeName};
use crate::error::CompileError;
use crate::plan::{Constant, Plan};

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

/// Compiles `query` against the `rules` in scope: the three passes in
/// order, each taking what the one before returns.
pub fn compile_query(
    query: &ast::Query,
    rules: &[Rule],
    lets: &Lets,
    catalog: &dyn Catalog,
) -> Result<Plan, CompileError> {
    // A bound argument the recursion keeps reads a specialised copy of its
    // relation (`demand.rs`). A program that does not compile is reported
    // as written: the copy is tried only when it does.
    // Any other bound argument of a derived relation is passed down by
    // magic sets (`magic.rs`).
    let rewritten = demand::specialise(query, rules)
        .into_iter()
        .chain(std::iter::once_with(|| magic::rewrite(query, rules)).flatten());
    for (query, rules) in rewritten {
        let plan = resolve(&query, &rules, catalog).and_then(|resolved| {
            let strata = stratify(&resolved)?;
            lower(&resolved, &strata, lets, catalog)
        });
        if let Ok(mut plan) = plan {
            closure::recognise(&mut plan);
            return Ok(plan);
        }
    }
    let resolved = resolve(query, rules, catalog)?;
    let strata = stratify(&resolved)?;
    let mut plan = lower(&resolved, &strata, lets, catalog)?;
    // A recursion that is a closure or a reach is searched, not joined.
    closure::recognise(&mut plan);
    Ok(plan)
}

/// Each derived relation's rules by its name, in source order.
fn rules_by_head(rules: &[Rule]) -> HashMap<&str, Vec<&Rule>> {
    let mut by_head: HashMap<&str, Vec<&Rule>> = HashMap::new();
    for rule in rules {
        by_head
            .entry(rule.head.name.text.as_str())
            .or_default()
            .push(rule);
    }
    by_head
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

/// The most rows one retrieval operator may be asked for. The operators
/// never allocate more than the live rows, whatever `k` says; this bound
/// turns a typo or an overflowed number into an error instead of "all".
pub const MAX_RANKED_K: u64 = 10_000_000;
