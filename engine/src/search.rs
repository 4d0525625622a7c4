//! The retrieval operators from Rust, for programs that hold vectors or
//! want control the language leaves to the engine (precision, threads,
//! batches). Each runs at one instant, like a query: `at: None` is
//! now/now.

use chronolog_ql::plan::{Metric, RankedPlan, Term};
use chronolog_storage::{AsOf, ColumnType};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result, RetrievalError};
use crate::retrieval::bound::BoundRanked;
use crate::retrieval::vector::{self, Column, LiveBits};
use crate::retrieval::{At, Ranking};
use crate::session::Session;

pub use crate::retrieval::vector::Precision;

/// How `Session::near_vector` scans.
#[derive(Clone, Copy, Debug)]
pub struct NearOptions {
    /// How vectors compare.
    pub metric: Metric,
    /// Exact `f32` scoring, or an int8 first pass with exact re-scoring.
    pub precision: Precision,
    /// Threads to split the scan across (1: the calling thread only).
    pub threads: usize,
}

impl Default for NearOptions {
    fn default() -> NearOptions {
        NearOptions {
            metric: Metric::Cosine,
            precision: Precision::Exact,
            threads: 1,
        }
    }
}

/// The rows of `rel` live at `at`, as a bit set for the scan.
fn live_bits(
    snapshot: &chronolog_storage::Snapshot,
    rel: chronolog_storage::RelationId,
    at: AsOf,
) -> Result<LiveBits> {
    let live = snapshot
        .scan(rel)
        .as_of(at.valid)
        .known_at(at.known)
        .live_rows()?;
    Ok(LiveBits::new(&live))
}

impl Session {
    fn instant(&self, at: Option<AsOf>) -> (chronolog_storage::Snapshot, AsOf) {
        let snapshot = self.store().snapshot();
        let at = at.unwrap_or(AsOf {
            valid: snapshot.now(),
            known: snapshot.tx(),
        });
        (snapshot, at)
    }

    fn vector_column(&self, rel: &str) -> Result<(chronolog_storage::RelationId, usize, usize)> {
        let id = self.store().relation_id(rel)?;
        let schema = self.store().schema(id)?;
        schema
            .columns
            .iter()
            .enumerate()
            .find_map(|(c, col)| match col.ty {
                ColumnType::Vector(d) => Some((id, c, d as usize)),
                _ => None,
            })
            .ok_or_else(|| Error::from(RetrievalError::NoVectorColumn(rel.to_string())))
    }

    /// The `k` rows of `rel` whose vector column is closest to `query`,
    /// as `(id, score)` best first.
    pub fn near_vector(
        &self,
        rel: &str,
        query: &[f32],
        k: usize,
        options: NearOptions,
        at: Option<AsOf>,
    ) -> Result<Ranking> {
        let (id, column, dim) = self.vector_column(rel)?;
        if query.len() != dim {
            return Err(RetrievalError::QueryDimension {
                rel: rel.to_string(),
                dim,
                got: query.len(),
            }
            .into());
        }
        let (snapshot, at) = self.instant(at);
        let live = live_bits(&snapshot, id, at)?;
        let source = Column {
            snapshot: &snapshot,
            rel: id,
            column,
        };
        let hits = vector::top_k(
            &source,
            &live,
            query,
            k,
            options.metric,
            options.precision,
            options.threads,
        )?;
        let no_params = FxHashMap::default();
        let at = At {
            snapshot: &snapshot,
            valid: at.valid,
            known: at.known,
            params: &no_params,
        };
        at.ids(
            id,
            &hits.iter().map(|h| (h.row, h.score)).collect::<Vec<_>>(),
        )
    }

    /// `near_vector` for many queries at once: the rows are read once and
    /// scored against the whole batch with matrix products.
    pub fn near_batch(
        &self,
        rel: &str,
        queries: &[Vec<f32>],
        k: usize,
        metric: Metric,
        at: Option<AsOf>,
    ) -> Result<Vec<Ranking>> {
        let (id, column, _) = self.vector_column(rel)?;
        let (snapshot, at) = self.instant(at);
        let live = live_bits(&snapshot, id, at)?;
        let source = Column {
            snapshot: &snapshot,
            rel: id,
            column,
        };
        let batches = vector::top_k_batch(&source, &live, queries, k, metric)?;
        let no_params = FxHashMap::default();
        let at = At {
            snapshot: &snapshot,
            valid: at.valid,
            known: at.known,
            params: &no_params,
        };
        batches
            .iter()
            .map(|hits| {
                at.ids(
                    id,
                    &hits.iter().map(|h| (h.row, h.score)).collect::<Vec<_>>(),
                )
            })
            .collect()
    }

    /// Runs a retrieval operator built in Rust (`RankedPlan`), its inputs
    /// given as constants.
    pub fn rank(&mut self, op: &RankedPlan, at: Option<AsOf>) -> Result<Ranking> {
        self.catch_up_indexes(op.searches_text())?;
        let (snapshot, at) = self.instant(at);
        let mut inputs = Vec::new();
        for term in op.input_terms() {
            inputs.push(match term {
                Term::Const(c) => self.constant_value(c),
                other => {
                    return Err(RetrievalError::NotConstant(format!("{other:?}")).into());
                }
            });
        }
        let no_params = FxHashMap::default();
        let at = At {
            snapshot: &snapshot,
            valid: at.valid,
            known: at.known,
            params: &no_params,
        };
        let bound = BoundRanked::bind(op, snapshot.store())?;
        self.retrieval().rank(&bound, &at, &mut inputs.into_iter())
    }
}
