//! `near(rel, query, k [, metric])`: the rows nearest a vector, or text
//! embedded by the model of the column's space, among the rows live at the query's
//! instants. Exact under `FIRST_PASS_AFTER_ROWS` live rows; above, a first
//! pass over a smaller code (sign codes for text, int8 for vectors) picks
//! candidates that are then scored exactly.

use chronolog_ql::plan::NearPlan;
use chronolog_storage::{ColumnType, RelationId, RowId};

use super::vector::{self, Column, Hit, Precision};
use super::{At, Ranking, Retrieval};
use crate::error::{Result, RetrievalError};
use crate::marks::{ColumnMarks, Embedding};
use crate::val::Val;

/// Live rows above which `near` scans a smaller code first: the sign
/// codes for text embedded by the session's embedder (whose recall with
/// them is measured), the int8 copy for vectors callers store (whose
/// distribution is unknown, and int8 keeps magnitudes).
const FIRST_PASS_AFTER_ROWS: u64 = 50_000;

/// The best `plan.k` ids of `plan.rel` for `query` (a vector, or text to
/// embed), among the live rows that pass `filters`.
pub(super) fn run(
    retrieval: &Retrieval,
    at: &At<'_>,
    plan: &NearPlan,
    id: RelationId,
    query: &Val,
    filters: &[(usize, Val)],
) -> Result<Ranking> {
    let NearPlan {
        rel,
        vector_column,
        text_column,
        metric,
        ..
    } = plan;
    let (vector_column, text_column, metric) = (*vector_column, *text_column, *metric);
    let k = at.k(&plan.k)?;
    // Filtered rows are a fresh set each query: not worth caching bits for.
    let live = if filters.is_empty() {
        retrieval.live_bits(id, at.live(id)?)
    } else {
        std::sync::Arc::new(super::vector::LiveBits::new(&*at.live_where(id, filters)?))
    };
    let large = live.count() > FIRST_PASS_AFTER_ROWS;
    let precision = match (large, query) {
        (false, _) => Precision::Exact,
        (true, Val::Str(_)) => Precision::Sign,
        (true, _) => Precision::Int8,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Checked once, not in each round `top_ids` takes.
    if let (Val::Vector(v), Some(column)) = (query, vector_column) {
        let dim = match at.snapshot.store().column_types(id)?.get(column) {
            Some(ColumnType::Vector(d)) => *d as usize,
            _ => 0,
        };
        if v.len() != dim {
            return Err(RetrievalError::NearDimension {
                rel: rel.clone(),
                dim,
                got: v.len(),
            }
            .into());
        }
    }
    // Text is embedded once, however many rounds `top_ids` takes.
    let embedded: Option<Vec<f32>> = match (query, vector_column, text_column) {
        (Val::Vector(_), Some(_), _) => None,
        (Val::Str(text), _, Some(column)) => {
            let space = at
                .snapshot
                .store()
                .schema(id)
                .ok()
                .and_then(|schema| schema.columns.get(column).map(ColumnMarks::of))
                .map_or(Embedding::Default, |marks| marks.embed);
            let embedder = retrieval.indexes.embedder_for(space).clone();
            embedder.embed(&[text])?.pop()
        }
        _ => None,
    };
    let live_rows = live.count() as usize;
    let mut search = |want: usize| -> Result<Vec<(RowId, f32)>> {
        let hits: Vec<Hit> = match (query, vector_column, text_column) {
            (Val::Vector(v), Some(column), _) => {
                let source = Column {
                    snapshot: at.snapshot,
                    rel: id,
                    column,
                };
                vector::top_k(&source, &live, v, want, metric, precision, threads)?
            }
            (Val::Str(_), _, Some(column)) => {
                let v = embedded.as_deref().unwrap_or_default();
                let Some(index) = retrieval.indexes.embeddings(id, column) else {
                    return Ok(Vec::new());
                };
                let index = index.read();
                vector::top_k(&index.vectors, &live, v, want, metric, precision, threads)?
            }
            // A vector against an `embed` column: one the caller embedded
            // with this engine's embedder (`Engine::embed`), once for many
            // searches.
            (Val::Vector(v), None, Some(column)) => {
                let Some(index) = retrieval.indexes.embeddings(id, column) else {
                    return Ok(Vec::new());
                };
                let index = index.read();
                let dim = index.vectors.dim();
                if !index.vectors.is_empty() && v.len() != dim {
                    return Err(RetrievalError::NearDimension {
                        rel: rel.clone(),
                        dim,
                        got: v.len(),
                    }
                    .into());
                }
                let precision = if precision == Precision::Int8 {
                    Precision::Sign
                } else {
                    precision
                };
                vector::top_k(&index.vectors, &live, v, want, metric, precision, threads)?
            }
            (Val::Str(_), _, None) => {
                return Err(RetrievalError::NoEmbedColumn(rel.clone()).into());
            }
            (Val::Vector(_), None, None) => {
                return Err(RetrievalError::NoVectorColumnForNear(rel.clone()).into());
            }
            (other, _, _) => {
                return Err(RetrievalError::NearInput(format!("{other:?}")).into());
            }
        };
        Ok(hits.iter().map(|h| (h.row, h.score)).collect())
    };
    at.top_ids(id, k, live_rows, &mut search)
}
