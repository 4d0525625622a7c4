//! A ranked operator with its relations resolved once per execution (the
//! bind stage, `exec/physical.rs`), not by name each time it runs: an
//! operator inside a rule runs once per binding of its inputs.

use chronolog_ql::plan::RankedPlan;
use chronolog_storage::{ColumnType, RelationId, Schema, Store};

use crate::error::{Result, RetrievalError};

/// `op` with the relations it reads as ids.
#[derive(Debug)]
pub(crate) struct BoundRanked<'p> {
    pub(crate) op: &'p RankedPlan,
    /// `near`, `bm25`, `top`, `decayed`: the relation read; `hops`: the
    /// linking relations walked; `rrf`: none.
    pub(crate) rels: Vec<RelationId>,
    /// `rrf`'s inputs, bound in turn.
    pub(crate) inputs: Vec<BoundRanked<'p>>,
}

impl<'p> BoundRanked<'p> {
    /// Resolves `op`'s relations in `store` as it stands now.
    pub(crate) fn bind(op: &'p RankedPlan, store: &Store) -> Result<BoundRanked<'p>> {
        let one = |name: &str| -> Result<Vec<RelationId>> { Ok(vec![store.relation_id(name)?]) };
        let (rels, inputs) = match op {
            RankedPlan::Near(p) => (one(&p.rel)?, Vec::new()),
            RankedPlan::Bm25(p) => (one(&p.rel)?, Vec::new()),
            RankedPlan::Top(p) => (one(&p.rel)?, Vec::new()),
            RankedPlan::Decayed(p) => (one(&p.rel)?, Vec::new()),
            RankedPlan::Hops(p) if p.edges.is_empty() => {
                let mut rels = Vec::new();
                for schema in store.relations() {
                    if links(&schema) {
                        rels.push(store.relation_id(&schema.name)?);
                    }
                }
                (rels, Vec::new())
            }
            RankedPlan::Hops(p) => {
                let mut rels = Vec::with_capacity(p.edges.len());
                for name in &p.edges {
                    let rel = store.relation_id(name)?;
                    if !links(&store.schema(rel)?) {
                        return Err(RetrievalError::NotLinks(name.clone()).into());
                    }
                    rels.push(rel);
                }
                (rels, Vec::new())
            }
            RankedPlan::Rrf(p) => (
                Vec::new(),
                p.inputs
                    .iter()
                    .map(|(_, input)| BoundRanked::bind(input, store))
                    .collect::<Result<_>>()?,
            ),
        };
        Ok(BoundRanked { op, rels, inputs })
    }

    /// The one relation a `near`, `bm25`, `top` or `decayed` reads.
    pub(crate) fn rel(&self) -> Result<RelationId> {
        self.rels.first().copied().ok_or_else(|| {
            crate::error::Error::Internal("a ranked operator bound without its relation".into())
        })
    }
}

/// Whether a relation links nodes: its first two columns are symbols.
fn links(schema: &Schema) -> bool {
    schema.columns.len() >= 2
        && schema.columns[0].ty == ColumnType::Sym
        && schema.columns[1].ty == ColumnType::Sym
}
