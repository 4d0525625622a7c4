//! Stratification, the second pass: derived relations are grouped into
//! strongly connected components of the dependency graph, dependencies
//! first; a negated or aggregated dependency inside a component is
//! rejected, naming the cycle.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

use super::resolve::{ReadRel, Resolved};
use crate::error::{CompileError, CompileErrorKind};
use crate::scc::tarjan;
use crate::span::Span;

/// The evaluation order of a resolved query: the input of [`super::lower`].
#[derive(Clone, Debug, PartialEq)]
pub struct Strata {
    /// Components in evaluation order; the last holds the query's output.
    pub components: Vec<Component>,
    /// The derived relations' names, for printing.
    names: Vec<String>,
}

/// Derived relations evaluated together.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    /// Their numbers (as in [`Resolved::derived`]).
    pub relations: Vec<usize>,
    /// Whether they depend on themselves (and need a fixpoint).
    pub recursive: bool,
}

/// An edge `from -> to`: relation `from` reads relation `to`.
struct Edge {
    to: usize,
    /// Negated or aggregated: `to` must be complete before `from` runs.
    strict: bool,
    span: Span,
}

/// Orders the derived relations of `resolved` into strata.
pub fn stratify(resolved: &Resolved<'_>) -> Result<Strata, CompileError> {
    let edges: Vec<Vec<Edge>> = resolved
        .reads
        .iter()
        .map(|reads| {
            reads
                .iter()
                .filter_map(|r| match r.rel {
                    ReadRel::Derived(to) => Some(Edge {
                        to,
                        strict: r.negated || r.aggregated,
                        span: r.span,
                    }),
                    ReadRel::Stored(_) => None,
                })
                .collect()
        })
        .collect();
    let adjacency: Vec<Vec<usize>> = edges
        .iter()
        .map(|es| es.iter().map(|e| e.to).collect())
        .collect();
    let mut components = Vec::new();
    for scc in tarjan(&adjacency) {
        let members: HashSet<usize> = scc.iter().copied().collect();
        let mut recursive = false;
        for &i in &scc {
            for e in &edges[i] {
                if members.contains(&e.to) {
                    recursive = true;
                    if e.strict {
                        let cycle = cycle_names(resolved, i, e.to, &edges, &members);
                        return Err(CompileError::new(
                            CompileErrorKind::NegationThroughRecursion(cycle),
                            e.span,
                        ));
                    }
                }
            }
        }
        components.push(Component {
            relations: scc,
            recursive,
        });
    }
    Ok(Strata {
        components,
        names: resolved.derived.iter().map(|d| d.name.clone()).collect(),
    })
}

/// `a -> b -> ... -> a` for an edge `from -> to` inside one component.
fn cycle_names(
    resolved: &Resolved<'_>,
    from: usize,
    to: usize,
    edges: &[Vec<Edge>],
    members: &HashSet<usize>,
) -> Vec<String> {
    // Breadth-first path from `to` back to `from` within the component.
    let mut prev: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([to]);
    while let Some(x) = queue.pop_front() {
        if x == from {
            break;
        }
        for e in &edges[x] {
            let y = e.to;
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
    let name = |i: usize| resolved.derived[i].name.as_str();
    let mut names: Vec<&str> = vec![name(from)];
    names.extend(path.iter().map(|&i| name(i)));
    if names.first() != names.last() {
        names.push(name(from));
    }
    names.dedup();
    names.into_iter().map(str::to_string).collect()
}

/// One line per stratum, in evaluation order.
impl fmt::Display for Strata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "strata")?;
        for (i, c) in self.components.iter().enumerate() {
            let names: Vec<String> = c
                .relations
                .iter()
                .map(|&r| format!("#{r} {}", self.names[r]))
                .collect();
            let kind = if c.recursive { " (recursive)" } else { "" };
            writeln!(f, "  {i}: {}{kind}", names.join(", "))?;
        }
        Ok(())
    }
}
