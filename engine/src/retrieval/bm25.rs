//! `bm25(rel, words, k)`: tantivy's BM25 over `rel`'s `search` columns
//! (`text.rs`), the words taken as words, never as query syntax.

use chronolog_ql::plan::Bm25Plan;
use chronolog_storage::{RelationId, RowId};

use super::{At, Ranking, Retrieval};
use crate::error::{Result, RetrievalError};
use crate::val::Val;

/// The best `plan.k` ids of `plan.rel` for the words `text`, among the
/// live rows that pass `filters`.
pub(super) fn run(
    retrieval: &Retrieval,
    at: &At<'_>,
    plan: &Bm25Plan,
    id: RelationId,
    text: Val,
    filters: &[(usize, Val)],
) -> Result<Ranking> {
    let text = match text {
        Val::Str(s) => s,
        other => {
            return Err(RetrievalError::Bm25Input(format!("{other:?}")).into());
        }
    };
    let Some(index) = retrieval.indexes.text(id) else {
        return Ok(Vec::new());
    };
    let live = at.live_where(id, filters)?;
    let live_rows = live.len() as usize;
    let mut search = |want: usize| -> Result<Vec<(RowId, f32)>> {
        let hits = index.search(&text, want, live.clone())?;
        Ok(hits.iter().map(|h| (h.row, h.score)).collect())
    };
    at.top_ids(id, at.k(&plan.k)?, live_rows, &mut search)
}
