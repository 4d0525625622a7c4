//! `hops(start, n [, [rel, ...]])`: breadth first over links both ways
//! (`graph.rs`); a node at distance `d` scores `1/d`; the start itself is
//! not returned.

use chronolog_ql::plan::HopsPlan;
use chronolog_storage::RelationId;

use super::graph;
use super::{At, Ranking, Retrieval};
use crate::error::{Result, RetrievalError};
use crate::val::Val;

/// The nodes within `plan.depth` links of `start` over `edges` (the
/// linking relations, resolved when the query was bound), nearer first.
pub(super) fn run(
    retrieval: &Retrieval,
    at: &At<'_>,
    plan: &HopsPlan,
    edges: &[RelationId],
    start: Val,
) -> Result<Ranking> {
    let start = match start {
        Val::Sym(s) => s,
        other => {
            return Err(RetrievalError::HopsInput(format!("{other:?}")).into());
        }
    };
    let mut graphs = Vec::with_capacity(edges.len());
    for &rel in edges {
        graphs.push(
            retrieval
                .graphs
                .adjacency(at.snapshot, rel, at.valid, at.known)?,
        );
    }
    Ok(graph::walk(&graphs, start, plan.depth)
        .into_iter()
        .map(|(node, distance)| (Val::Sym(node), 1.0 / f64::from(distance)))
        .collect())
}
