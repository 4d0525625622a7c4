//! Retrieval operators: ranked relations of `(id, score, rank)` found by
//! meaning (`near`), by words (`bm25`), by a column's value (`top`, and
//! `decayed` for a value that fades with time) and by links (`hops`), and
//! fused by reciprocal rank (`rrf`). Each reads the query's snapshot at
//! its as-of and known-at instants: rows not live there are never
//! returned.
//!
//! A row's id is its first column's value (an episode's id, a person), so
//! different operators' results over the same things fuse by equality, and
//! a ranked relation joins back to its relation (`episode(Id, Text)`).
//!
//! One file per operator (`near.rs`, `bm25.rs`, `top.rs`, `decayed.rs`,
//! `hops.rs`, `rrf.rs`), each with one `run`; a new operator is a new
//! `RankedPlan` variant with its own plan struct and a new file here.

#[cfg(feature = "bge")]
pub mod bge;
pub(crate) mod bound;
pub(crate) mod default_embedder;
pub mod embed;
pub(crate) mod graph;
pub(crate) mod indexes;
pub(crate) mod language;
#[cfg(feature = "minilm")]
pub mod minilm;
pub(crate) mod model_files;
#[cfg(any(feature = "bge", feature = "reranker"))]
pub(crate) mod onnx;
#[cfg(feature = "potion")]
pub mod potion;
pub mod rerank;
#[cfg(feature = "usem")]
pub(crate) mod sentencepiece;
pub(crate) mod text;
#[cfg(feature = "usem")]
pub mod usem;
pub(crate) mod vector;
pub mod words;

mod analyzers;
mod bm25;
mod by_value;
mod decayed;
mod hops;
mod near;
mod rrf;
mod top;

pub use decayed::decay;
pub use rrf::rrf;

use std::sync::Arc;

use parking_lot::Mutex;

use chronolog_ql::MAX_RANKED_K;
use chronolog_ql::plan::{Count, RankedPlan, Term};
use chronolog_storage::{ColumnType, RelationId, RowId, Snapshot, Symbol, Timestamp, Value};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result, RetrievalError};
use crate::val::Val;
use bound::BoundRanked;
use graph::GraphCache;
use indexes::Indexes;
use vector::LiveBits;

/// One ranked row: an id and its score (higher is better); its rank is its
/// position in the list, from 1.
pub type Ranking = Vec<(Val, f64)>;

/// What retrieval keeps for an engine, shared by its sessions: the
/// background indexes and the caches built from them.
pub(crate) struct Retrieval {
    pub graphs: GraphCache,
    pub indexes: Indexes,
    /// The live-row bit set `near` built last, per relation: rebuilding
    /// it walks every live row, so it is kept while the validity index
    /// hands out the same bitmap.
    live_bits: Mutex<Vec<CachedLiveBits>>,
}

/// Live bits and the (relation, live rows) they were built from.
type CachedLiveBits = (RelationId, Arc<roaring::RoaringBitmap>, Arc<LiveBits>);

impl Retrieval {
    pub(crate) fn new(indexes: Indexes) -> Retrieval {
        Retrieval {
            graphs: GraphCache::default(),
            indexes,
            live_bits: Mutex::new(Vec::new()),
        }
    }

    fn live_bits(&self, rel: RelationId, live: Arc<roaring::RoaringBitmap>) -> Arc<LiveBits> {
        if let Some((_, _, bits)) = self
            .live_bits
            .lock()
            .iter()
            .find(|(r, l, _)| *r == rel && Arc::ptr_eq(l, &live))
        {
            return bits.clone();
        }
        let bits = Arc::new(LiveBits::new(&live));
        let mut cached = self.live_bits.lock();
        cached.retain(|(r, _, _)| *r != rel);
        cached.push((rel, live, bits.clone()));
        bits
    }
}

/// Where a ranked operator runs: the query's snapshot and instants, and
/// its parameters (a `k` may be one).
pub(crate) struct At<'a> {
    pub snapshot: &'a Snapshot,
    pub valid: Timestamp,
    pub known: Timestamp,
    pub params: &'a FxHashMap<String, Val>,
}

impl At<'_> {
    /// A ranked operator's `k`, its `$parameter` looked up and held to the
    /// bounds a written `k` is held to at compile time.
    fn k(&self, k: &Count) -> Result<usize> {
        let n = match k {
            Count::Fixed(n) => return Ok(usize::try_from(*n).unwrap_or(usize::MAX)),
            Count::Param(name) => match self.params.get(name) {
                None => return Err(Error::MissingParam(name.clone())),
                Some(Val::Int(n)) => *n,
                Some(other) => {
                    return Err(RetrievalError::KNotInteger {
                        name: name.clone(),
                        got: format!("{other:?}"),
                    }
                    .into());
                }
            },
        };
        match u64::try_from(n) {
            Ok(k) if (1..=MAX_RANKED_K).contains(&k) => Ok(k as usize),
            _ => Err(RetrievalError::KOutOfRange {
                max: MAX_RANKED_K,
                got: n,
            }
            .into()),
        }
    }

    /// The rows a `near` or `bm25` searches: those live at the query's
    /// instants and, when the operator names `column = value` filters,
    /// holding those values (through the column postings: filter first).
    /// A value no stored row can hold (an unknown symbol) leaves nothing.
    fn live_where(
        &self,
        rel: RelationId,
        filters: &[(usize, Val)],
    ) -> Result<Arc<roaring::RoaringBitmap>> {
        if filters.is_empty() {
            return self.live(rel);
        }
        let store = self.snapshot.store();
        let types = store.column_types(rel)?;
        let mut scan = self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known);
        for (column, value) in filters {
            let value = match (types.get(*column), value) {
                (Some(ColumnType::Sym), Val::Str(name)) => store.symbol(name).map(Value::Sym),
                (Some(ColumnType::Sym), Val::Sym(s)) => store
                    .symbol_name(Symbol(*s))
                    .ok()
                    .map(|_| Value::Sym(Symbol(*s))),
                (Some(ColumnType::Str), Val::Sym(s)) => store
                    .symbol_name(Symbol(*s))
                    .ok()
                    .map(|name| Value::str(name.as_ref())),
                (Some(ColumnType::Float), Val::Int(i)) => Some(Value::Float(*i as f64)),
                (Some(ColumnType::Int), Val::Float(x)) if x.fract() == 0.0 => {
                    Some(Value::Int(*x as i64))
                }
                (Some(_), v) => v.to_value(),
                (None, _) => None,
            };
            match value {
                Some(value) => scan = scan.eq(*column, value),
                None => return Ok(Arc::new(roaring::RoaringBitmap::new())),
            }
        }
        Ok(Arc::new(scan.bitmap()?))
    }

    fn live(&self, rel: RelationId) -> Result<Arc<roaring::RoaringBitmap>> {
        Ok(self
            .snapshot
            .scan(rel)
            .as_of(self.valid)
            .known_at(self.known)
            .live_rows()?)
    }

    /// The ids (first column values) of `hits`' rows, best first, each id
    /// once (several live rows of a keyless relation may share one).
    /// The best `k` ids (first-column values) of `rel`: `search(n)` gives
    /// the best `n` rows, and several rows may share an id (chunks of one
    /// document), so rows are asked for until `k` distinct ids are found or
    /// the live rows run out. `k` counts ids, never rows.
    pub(crate) fn top_ids(
        &self,
        rel: RelationId,
        k: usize,
        live_rows: usize,
        search: &mut dyn FnMut(usize) -> Result<Vec<(RowId, f32)>>,
    ) -> Result<Ranking> {
        let mut want = k.min(live_rows);
        loop {
            let hits = search(want)?;
            let mut ranked = self.ids(rel, &hits)?;
            if ranked.len() >= k || hits.len() < want || want >= live_rows {
                ranked.truncate(k);
                return Ok(ranked);
            }
            want = want.saturating_mul(2).min(live_rows);
        }
    }

    pub(crate) fn ids(&self, rel: RelationId, hits: &[(RowId, f32)]) -> Result<Ranking> {
        let rows: Vec<RowId> = hits.iter().map(|h| h.0).collect();
        let mut first: FxHashMap<RowId, Val> = FxHashMap::default();
        self.snapshot.read_rows(rel, &rows, |row| {
            first.insert(row.id(), Val::from_ref(row.value(0)));
        })?;
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(hits.len());
        for &(row, score) in hits {
            if let Some(id) = first.remove(&row)
                && seen.insert(id.clone())
            {
                out.push((id, f64::from(score)));
            }
        }
        Ok(out)
    }
}

impl Retrieval {
    /// Runs `op`, given the values of its [`RankedPlan::input_terms`] in
    /// order.
    pub(crate) fn rank(
        &self,
        bound: &BoundRanked<'_>,
        at: &At<'_>,
        inputs: &mut std::vec::IntoIter<Val>,
    ) -> Result<Ranking> {
        let mut next = || {
            inputs
                .next()
                .ok_or_else(|| Error::Internal("a retrieval input is missing".into()))
        };
        match bound.op {
            RankedPlan::Near(plan) => {
                let query = next()?;
                let filters = filter_values(&plan.filters, &mut next)?;
                near::run(self, at, plan, bound.rel()?, &query, &filters)
            }
            RankedPlan::Bm25(plan) => {
                let query = next()?;
                let filters = filter_values(&plan.filters, &mut next)?;
                bm25::run(self, at, plan, bound.rel()?, query, &filters)
            }
            RankedPlan::Top(plan) => {
                let filters = filter_values(&plan.filters, &mut next)?;
                top::run(at, plan, bound.rel()?, &filters)
            }
            RankedPlan::Decayed(plan) => {
                let half_life = next()?;
                let filters = filter_values(&plan.filters, &mut next)?;
                decayed::run(at, plan, bound.rel()?, half_life, &filters)
            }
            RankedPlan::Hops(plan) => hops::run(self, at, plan, &bound.rels, next()?),
            RankedPlan::Rrf(plan) => rrf::run(self, at, plan, &bound.inputs, inputs),
        }
    }
}

/// The values of an operator's `column = value` filters, taken from its
/// evaluated inputs.
fn filter_values(
    filters: &[(usize, Term)],
    next: &mut impl FnMut() -> Result<Val>,
) -> Result<Vec<(usize, Val)>> {
    filters
        .iter()
        .map(|(column, _)| Ok((*column, next()?)))
        .collect()
}
