//! `hops(start, n [, [rel, ...]])`: breadth first over links both ways
//! (`graph.rs`); a node at distance `d` scores `1/d`; the start itself is
//! not returned.

use chronolog_ql::plan::HopsPlan;
use chronolog_storage::ColumnType;

use super::graph;
use super::{At, Ranking, Retrieval};
use crate::error::{Result, RetrievalError};
use crate::val::Val;

/// The nodes within `plan.depth` links of `start`, nearer first.
pub(super) fn run(
    retrieval: &Retrieval,
    at: &At<'_>,
    plan: &HopsPlan,
    start: Val,
) -> Result<Ranking> {
    let start = match start {
        Val::Sym(s) => s,
        other => {
            return Err(RetrievalError::HopsInput(format!("{other:?}")).into());
        }
    };
    let (depth, edges) = (plan.depth, &plan.edges);
    let store = at.snapshot.store();
    let names: Vec<String> = if edges.is_empty() {
        store
            .relations()
            .into_iter()
            .filter(links)
            .map(|s| s.name)
            .collect()
    } else {
        edges.to_vec()
    };
    let mut graphs = Vec::with_capacity(names.len());
    for name in &names {
        let rel = store.relation_id(name)?;
        if !links(&store.schema(rel)?) {
            return Err(RetrievalError::NotLinks(name.clone()).into());
        }
        graphs.push(
            retrieval
                .graphs
                .adjacency(at.snapshot, rel, at.valid, at.known)?,
        );
    }
    Ok(graph::walk(&graphs, start, depth)
        .into_iter()
        .map(|(node, distance)| (Val::Sym(node), 1.0 / f64::from(distance)))
        .collect())
}

/// Whether a relation links nodes: its first two columns are symbols.
fn links(schema: &chronolog_storage::Schema) -> bool {
    schema.columns.len() >= 2
        && schema.columns[0].ty == ColumnType::Sym
        && schema.columns[1].ty == ColumnType::Sym
}
