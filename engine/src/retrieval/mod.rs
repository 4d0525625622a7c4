//! Retrieval operators: ranked relations of `(id, score, rank)` found by
//! meaning (`near`), by words (`bm25`) and by links (`hops`), and fused by
//! reciprocal rank (`rrf`). Each reads the query's snapshot at its as-of
//! and known-at instants: rows not live there are never returned.
//!
//! A row's id is its first column's value (an episode's id, a person), so
//! different operators' results over the same things fuse by equality, and
//! a ranked relation joins back to its relation (`episode(Id, Text)`).

pub mod embed;
pub(crate) mod graph;
pub(crate) mod indexes;
#[cfg(feature = "minilm")]
pub mod minilm;
pub(crate) mod text;
pub(crate) mod vector;

use crate::order::SymbolOrder;
use std::sync::Arc;

use parking_lot::Mutex;

use chronolog_ql::MAX_RANKED_K;
use chronolog_ql::plan::{Count, Metric, RankedPlan, Term};
use chronolog_storage::{ColumnType, RelationId, RowId, Snapshot, Timestamp};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::val::Val;
use graph::GraphCache;
use indexes::Indexes;
use vector::{Column, Hit, LiveBits, Precision};

/// Live rows above which `near` scans a smaller code first: the sign
/// codes for text embedded by the session's embedder (whose recall with
/// them is measured), the int8 copy for vectors callers store (whose
/// distribution is unknown, and int8 keeps magnitudes).
const FIRST_PASS_AFTER_ROWS: u64 = 50_000;

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
                    return Err(Error::Retrieval(format!(
                        "k (`${name}`) must be an integer, got {other:?}"
                    )));
                }
            },
        };
        match u64::try_from(n) {
            Ok(k) if (1..=MAX_RANKED_K).contains(&k) => Ok(k as usize),
            _ => Err(Error::Retrieval(format!(
                "k must be between 1 and {MAX_RANKED_K}, got {n}"
            ))),
        }
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
    /// Runs `op`, given the values of its [`input_terms`] in order.
    pub(crate) fn rank(
        &self,
        op: &RankedPlan,
        at: &At<'_>,
        inputs: &mut std::vec::IntoIter<Val>,
    ) -> Result<Ranking> {
        let mut next = || {
            inputs
                .next()
                .ok_or_else(|| Error::Internal("a retrieval input is missing".into()))
        };
        match op {
            RankedPlan::Near {
                rel,
                vector_column,
                text_column,
                k,
                metric,
                ..
            } => {
                let query = next()?;
                self.near(
                    at,
                    rel,
                    *vector_column,
                    *text_column,
                    &query,
                    at.k(k)?,
                    *metric,
                )
            }
            RankedPlan::Bm25 { rel, k, .. } => {
                let text = match next()? {
                    Val::Str(s) => s,
                    other => {
                        return Err(Error::Retrieval(format!(
                            "bm25 needs text to search for, got {other:?}"
                        )));
                    }
                };
                let id = at.snapshot.store().relation_id(rel)?;
                let Some(index) = self.indexes.text(id) else {
                    return Ok(Vec::new());
                };
                let live = at.live(id)?;
                let live_rows = live.len() as usize;
                let mut search = |want: usize| -> Result<Vec<(RowId, f32)>> {
                    let hits = index.search(&text, want, live.clone())?;
                    Ok(hits.iter().map(|h| (h.row, h.score)).collect())
                };
                at.top_ids(id, at.k(k)?, live_rows, &mut search)
            }
            RankedPlan::Hops { depth, edges, .. } => {
                let start = match next()? {
                    Val::Sym(s) => s,
                    other => {
                        return Err(Error::Retrieval(format!(
                            "hops starts from a symbol, got {other:?}"
                        )));
                    }
                };
                self.hops(at, start, *depth, edges)
            }
            RankedPlan::Rrf { inputs: ops, k } => {
                let mut lists = Vec::with_capacity(ops.len());
                for (w, input) in ops {
                    lists.push((*w, self.rank(input, at, inputs)?));
                }
                let mut fused = rrf(&lists, *k as f64);
                // Ties in name order, as every ordering of symbols is.
                if fused.iter().any(|(id, _)| matches!(id, Val::Sym(_))) {
                    let names = SymbolOrder::new(at.snapshot.store(), &[]);
                    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| names.cmp(&a.0, &b.0)));
                }
                Ok(fused)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn near(
        &self,
        at: &At<'_>,
        rel: &str,
        vector_column: Option<usize>,
        text_column: Option<usize>,
        query: &Val,
        k: usize,
        metric: Metric,
    ) -> Result<Ranking> {
        let id = at.snapshot.store().relation_id(rel)?;
        let live = self.live_bits(id, at.live(id)?);
        let large = live.count() > FIRST_PASS_AFTER_ROWS;
        let precision = match (large, query) {
            (false, _) => Precision::Exact,
            (true, Val::Str(_)) => Precision::Sign,
            (true, _) => Precision::Int8,
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Text is embedded once, however many rounds `top_ids` takes.
        let embedded: Option<Vec<f32>> = match (query, vector_column, text_column) {
            (Val::Vector(_), Some(_), _) => None,
            (Val::Str(text), _, Some(_)) => {
                let embedder = self.indexes.embedder().clone();
                embedder.embed(&[text])?.pop()
            }
            _ => None,
        };
        let live_rows = live.count() as usize;
        let mut search = |want: usize| -> Result<Vec<(RowId, f32)>> {
            let hits: Vec<Hit> = match (query, vector_column, text_column) {
                (Val::Vector(v), Some(column), _) => {
                    let dim = match at.snapshot.store().schema(id)?.columns[column].ty {
                        ColumnType::Vector(d) => d as usize,
                        _ => 0,
                    };
                    if v.len() != dim {
                        return Err(Error::Retrieval(format!(
                            "near({rel}, ...) needs a vector of {dim} floats, got {}",
                            v.len()
                        )));
                    }
                    let source = Column {
                        snapshot: at.snapshot,
                        rel: id,
                        column,
                    };
                    vector::top_k(&source, &live, v, want, metric, precision, threads)?
                }
                (Val::Str(_), _, Some(column)) => {
                    let v = embedded.as_deref().unwrap_or_default();
                    let Some(index) = self.indexes.embeddings(id, column) else {
                        return Ok(Vec::new());
                    };
                    let index = index.read();
                    vector::top_k(&index.vectors, &live, v, want, metric, precision, threads)?
                }
                (Val::Str(_), _, None) => {
                    return Err(Error::Retrieval(format!(
                        "near({rel}, \"text\", ...) needs an `embed` column in `{rel}`; give it a vector instead"
                    )));
                }
                (Val::Vector(_), None, _) => {
                    return Err(Error::Retrieval(format!(
                        "`{rel}` has no vector column; give near text to embed"
                    )));
                }
                (other, _, _) => {
                    return Err(Error::Retrieval(format!(
                        "near needs a vector or text, got {other:?}"
                    )));
                }
            };
            Ok(hits.iter().map(|h| (h.row, h.score)).collect())
        };
        at.top_ids(id, k, live_rows, &mut search)
    }

    fn hops(&self, at: &At<'_>, start: u32, depth: u32, edges: &[String]) -> Result<Ranking> {
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
                return Err(Error::Retrieval(format!(
                    "hops walks relations whose first two columns are symbols; `{name}` is not one"
                )));
            }
            graphs.push(
                self.graphs
                    .adjacency(at.snapshot, rel, at.valid, at.known)?,
            );
        }
        Ok(graph::walk(&graphs, start, depth)
            .into_iter()
            .map(|(node, distance)| (Val::Sym(node), 1.0 / f64::from(distance)))
            .collect())
    }
}

/// Whether a relation links nodes: its first two columns are symbols.
fn links(schema: &chronolog_storage::Schema) -> bool {
    schema.columns.len() >= 2
        && schema.columns[0].ty == ColumnType::Sym
        && schema.columns[1].ty == ColumnType::Sym
}

/// The terms a retrieval operator needs evaluated, in the order
/// [`Retrieval::rank`] consumes them.
pub(crate) fn input_terms(op: &RankedPlan) -> Vec<&Term> {
    fn walk<'p>(op: &'p RankedPlan, out: &mut Vec<&'p Term>) {
        match op {
            RankedPlan::Near { query, .. } | RankedPlan::Bm25 { query, .. } => out.push(query),
            RankedPlan::Hops { start, .. } => out.push(start),
            RankedPlan::Rrf { inputs, .. } => inputs.iter().for_each(|(_, i)| walk(i, out)),
        }
    }
    let mut out = Vec::new();
    walk(op, &mut out);
    out
}

/// Reciprocal-rank fusion: an id's score is the sum, over the lists it is
/// in, of `weight / (k + rank)` (ranks from 1). Best first; equal scores
/// in value order (symbols by id here, with no names at hand; the
/// language's `rrf` operator orders tied symbols by name).
pub fn rrf(lists: &[(f64, Ranking)], k: f64) -> Ranking {
    let mut scores: FxHashMap<Val, f64> = FxHashMap::default();
    for (weight, list) in lists {
        for (rank, (id, _)) in list.iter().enumerate() {
            *scores.entry(id.clone()).or_insert(0.0) += weight / (k + (rank + 1) as f64);
        }
    }
    let mut fused: Ranking = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_follows_the_formula_and_breaks_ties_by_id() {
        let list = |ids: &[u32]| ids.iter().map(|&i| (Val::Sym(i), 0.0)).collect::<Ranking>();
        let fused = rrf(&[(1.0, list(&[1, 2, 3])), (2.0, list(&[3, 4]))], 60.0);
        let score = |id: u32| fused.iter().find(|(v, _)| *v == Val::Sym(id)).map(|x| x.1);
        assert_eq!(score(1), Some(1.0 / 61.0));
        assert_eq!(score(2), Some(1.0 / 62.0));
        assert_eq!(score(3), Some(1.0 / 63.0 + 2.0 / 61.0));
        assert_eq!(score(4), Some(2.0 / 62.0));
        let order: Vec<Val> = fused.iter().map(|x| x.0.clone()).collect();
        assert_eq!(
            order,
            vec![Val::Sym(3), Val::Sym(4), Val::Sym(1), Val::Sym(2)]
        );
        // Equal scores: ascending ids.
        let tie = rrf(&[(1.0, list(&[9])), (1.0, list(&[5]))], 60.0);
        assert_eq!(tie[0].0, Val::Sym(5));
    }
}
