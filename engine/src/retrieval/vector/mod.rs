//! Exact top-k vector search over an arena, filtered first by a snapshot's
//! live rows, then scored (so invalidated or not-yet-true rows never cost
//! recall, as they do in filtered approximate indexes).
//!
//! One kernel serves every metric: the dot product (simsimd), with each
//! row's stored L2 norm turning it into a cosine or an L2 distance. The
//! int8 path scores the quantised copy (a quarter of the bytes), keeps
//! `OVERSAMPLE` times `k` candidates, and re-scores those exactly, so its
//! final order is the exact one whenever the true top-k are among the
//! candidates. Large scans split the rows across threads.
//!
//! The sign path goes further for large relations under cosine: it ranks
//! every live row by the agreement of sign codes (two bits per dimension,
//! see `chronolog_storage::sign_code`; a popcount per word), keeps the best
//! `SIGN_OVERSAMPLE` times `k` (at least `SIGN_MIN_CANDIDATES`) by a
//! counting select, and re-scores those exactly. It reads 1/16 of the int8
//! bytes; what it can miss, and how often, is measured in
//! `tests/tests/retrieval.rs` and stated in `docs/benchmarks.md`.

mod int8;
mod sign;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use chronolog_ql::plan::Metric;
use chronolog_storage::{RelationId, Snapshot, VectorArena, VectorBlock, quantize};
use roaring::RoaringBitmap;
use simsimd::SpatialSimilarity;

use crate::error::{Error, Result, RetrievalError};
use int8::int8_kernel;
use sign::sign_candidates;

/// Candidates the int8 pass keeps per wanted row.
pub const OVERSAMPLE: usize = 4;

/// Candidates the sign pass keeps per wanted row.
pub const SIGN_OVERSAMPLE: usize = 50;

/// Candidates the sign pass keeps at least.
pub const SIGN_MIN_CANDIDATES: usize = 1000;

/// Rows per thread below which a scan stays on one thread.
const ROWS_PER_THREAD: usize = 65_536;

/// A scored row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The row id.
    pub row: u32,
    /// Higher is closer.
    pub score: f32,
}

/// Orders hits worst first, so a max-heap of `Worst` pops the worst hit;
/// on equal scores the higher row id is worse (ties go to older rows).
#[derive(Clone, Copy, PartialEq)]
struct Worst(Hit);

impl Eq for Worst {}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.0.row.cmp(&other.0.row))
    }
}

/// Keeps the best `k` hits seen.
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    /// The score a hit must beat to enter (when full).
    #[inline]
    fn floor(&self) -> f32 {
        if self.heap.len() < self.k {
            f32::NEG_INFINITY
        } else {
            self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score)
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, hit: Hit) {
        if self.k == 0 || hit.score.is_nan() || hit.score < self.floor() {
            return;
        }
        self.heap.push(Worst(hit));
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    fn merge(&mut self, other: TopK) {
        for w in other.heap {
            self.push(w.0);
        }
    }

    /// Best first; equal scores by ascending row id.
    pub(crate) fn into_sorted(self) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self.heap.into_iter().map(|w| w.0).collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
        hits
    }
}

/// A query vector prepared for one metric.
pub(crate) struct Query<'a> {
    vector: &'a [f32],
    norm: f32,
    quantized: Vec<i8>,
    /// `quantized` widened once, so the scan sign-extends only the rows.
    widened: Vec<i16>,
    scale: f32,
    metric: Metric,
}

impl<'a> Query<'a> {
    pub(crate) fn new(vector: &'a [f32], metric: Metric) -> Query<'a> {
        let mut quantized = Vec::with_capacity(vector.len());
        let scale = quantize(vector, &mut quantized);
        Query {
            vector,
            norm: vector.iter().map(|x| x * x).sum::<f32>().sqrt(),
            widened: quantized.iter().map(|&x| i16::from(x)).collect(),
            quantized,
            scale,
            metric,
        }
    }

    /// The score of a row from its dot product with the query and its norm.
    #[inline]
    fn score(&self, dot: f32, norm: f32) -> f32 {
        match self.metric {
            Metric::Dot => dot,
            Metric::Cosine => {
                let d = self.norm * norm;
                if d == 0.0 { 0.0 } else { dot / d }
            }
            Metric::L2 => -(self.norm * self.norm + norm * norm - 2.0 * dot)
                .max(0.0)
                .sqrt(),
        }
    }

    #[inline]
    fn exact(&self, v: &[f32], norm: f32) -> f32 {
        let dot = f32::dot(self.vector, v).unwrap_or(0.0) as f32;
        self.score(dot, norm)
    }

    #[inline]
    fn approximate(&self, q: &[i8], scale: f32, norm: f32) -> f32 {
        let dot = i8::dot(&self.quantized, q).unwrap_or(0.0) as f32 * self.scale * scale;
        self.score(dot, norm)
    }
}

/// Live rows as a flat bit set: one test per row, no container search.
pub(crate) struct LiveBits {
    words: Vec<u64>,
    count: u64,
}

impl LiveBits {
    pub(crate) fn new(live: &RoaringBitmap) -> LiveBits {
        let len = live.max().map_or(0, |m| m as usize / 64 + 1);
        let mut words = vec![0u64; len];
        for row in live {
            words[row as usize / 64] |= 1 << (row % 64);
        }
        LiveBits {
            words,
            count: live.len(),
        }
    }

    /// Live rows.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    #[inline]
    pub(crate) fn contains(&self, row: u32) -> bool {
        self.words
            .get(row as usize / 64)
            .is_some_and(|w| w & (1 << (row % 64)) != 0)
    }

    /// One past the highest live row.
    pub(crate) fn end(&self) -> u32 {
        (self.words.len() * 64) as u32
    }
}

/// How a scan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Score every live row in `f32`.
    Exact,
    /// Score the int8 copy, re-score the best candidates in `f32`.
    Int8,
    /// Rank by sign codes, re-score the best candidates in `f32` (for
    /// cosine over many rows; other metrics fall back to `Int8`, since
    /// signs say nothing of magnitudes).
    Sign,
}

/// Where vectors come from: a stored vector column, or an arena of
/// embeddings kept beside the store.
pub(crate) trait Vectors: Sync {
    /// Calls `f` on rows `rows`, block by block.
    fn blocks(&self, rows: std::ops::Range<u32>, f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()>;
    /// Calls `f` on a one-row block for each of `rows`.
    fn rows(&self, rows: &[u32], f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()>;
}

/// A vector column of a stored relation.
#[derive(Clone, Copy)]
pub(crate) struct Column<'s> {
    pub snapshot: &'s Snapshot,
    pub rel: RelationId,
    pub column: usize,
}

impl Vectors for Column<'_> {
    fn blocks(&self, rows: std::ops::Range<u32>, f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()> {
        Ok(self
            .snapshot
            .vector_blocks(self.rel, self.column, rows, f)?)
    }

    fn rows(&self, rows: &[u32], f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()> {
        Ok(self.snapshot.vector_rows(self.rel, self.column, rows, f)?)
    }
}

impl Vectors for VectorArena {
    fn blocks(&self, rows: std::ops::Range<u32>, f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()> {
        const BLOCK: u32 = 4096;
        let end = rows.end.min(self.len() as u32);
        let mut at = rows.start;
        while at < end {
            let stop = (at + BLOCK).min(end);
            f(self.block(at as usize..stop as usize));
            at = stop;
        }
        Ok(())
    }

    fn rows(&self, rows: &[u32], f: &mut dyn FnMut(VectorBlock<'_>)) -> Result<()> {
        for &row in rows {
            if (row as usize) < self.len() {
                f(self.block(row as usize..row as usize + 1));
            }
        }
        Ok(())
    }
}

fn scan_block(
    block: &VectorBlock<'_>,
    live: &LiveBits,
    q: &Query<'_>,
    precision: Precision,
    top: &mut TopK,
) {
    match precision {
        Precision::Exact => {
            for i in 0..block.len() {
                let row = block.first_row + i as u32;
                if live.contains(row) {
                    let score = q.exact(block.vector(i), block.norms[i]);
                    top.push(Hit { row, score });
                }
            }
        }
        Precision::Int8 | Precision::Sign => int8_kernel()(block, live, q, top),
    }
}

/// The `k` live rows closest to `query`, best first.
pub(crate) fn top_k(
    source: &dyn Vectors,
    live: &LiveBits,
    query: &[f32],
    k: usize,
    metric: Metric,
    precision: Precision,
    threads: usize,
) -> Result<Vec<Hit>> {
    // Never more than can be returned: `k` comes from the caller, and the
    // heap is sized by it.
    let k = k.min(live.count() as usize);
    let precision = match precision {
        Precision::Sign if metric != Metric::Cosine => Precision::Int8,
        other => other,
    };
    let q = Query::new(query, metric);
    if precision == Precision::Sign {
        let want = k.saturating_mul(SIGN_OVERSAMPLE).max(SIGN_MIN_CANDIDATES);
        let rows = sign_candidates(source, live, query, want)?;
        // Then as the int8 path from its scan on: the int8 copies of the
        // candidates (a quarter of their bytes), then the best exactly.
        let keep = k.saturating_mul(OVERSAMPLE).max(k + 16);
        let mut top = TopK::new(keep);
        source.rows(&rows, &mut |block| {
            top.push(Hit {
                row: block.first_row,
                score: q.approximate(block.quantized(0), block.scales[0], block.norms[0]),
            })
        })?;
        let rows: Vec<u32> = top.into_sorted().iter().map(|h| h.row).collect();
        return rescore(source, &q, &rows, k);
    }
    let keep = match precision {
        Precision::Exact => k,
        _ => k.saturating_mul(OVERSAMPLE).max(k + 16),
    };
    let end = live.end();
    let threads = threads
        .clamp(1, 64)
        .min((end as usize).div_ceil(ROWS_PER_THREAD).max(1));
    let per = end.div_ceil(threads as u32).max(1);
    let partial: Vec<Result<TopK>> = if threads == 1 {
        vec![scan_range(source, live, &q, precision, keep, 0..end)]
    } else {
        std::thread::scope(|s| {
            let q = &q;
            let handles: Vec<_> = (0..threads as u32)
                .map(|t| {
                    let range = t * per..((t + 1) * per).min(end);
                    s.spawn(move || scan_range(source, live, q, precision, keep, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Internal("a vector scan thread failed".into()))
                    })
                })
                .collect()
        })
    };
    let mut top = TopK::new(keep);
    for p in partial {
        top.merge(p?);
    }
    let candidates = top.into_sorted();
    if precision == Precision::Exact {
        return Ok(candidates);
    }
    let rows: Vec<u32> = candidates.iter().map(|h| h.row).collect();
    rescore(source, &q, &rows, k)
}

/// The best `k` of `rows`, scored exactly.
fn rescore(source: &dyn Vectors, q: &Query<'_>, rows: &[u32], k: usize) -> Result<Vec<Hit>> {
    let mut exact = TopK::new(k);
    source.rows(rows, &mut |block| {
        exact.push(Hit {
            row: block.first_row,
            score: q.exact(block.vector(0), block.norms[0]),
        });
    })?;
    Ok(exact.into_sorted())
}

fn scan_range(
    source: &dyn Vectors,
    live: &LiveBits,
    q: &Query<'_>,
    precision: Precision,
    keep: usize,
    rows: std::ops::Range<u32>,
) -> Result<TopK> {
    let mut top = TopK::new(keep);
    source.blocks(rows, &mut |block| {
        scan_block(&block, live, q, precision, &mut top)
    })?;
    Ok(top)
}

/// The `k` live rows closest to each of `queries` (all of one dimension),
/// scored block by block with one matrix product per block (faer): the
/// rows are read once for the whole batch instead of once per query.
pub(crate) fn top_k_batch(
    source: &dyn Vectors,
    live: &LiveBits,
    queries: &[Vec<f32>],
    k: usize,
    metric: Metric,
) -> Result<Vec<Vec<Hit>>> {
    use faer::{Accum, Mat, MatRef, Par};
    let k = k.min(live.count() as usize);
    let Some(dim) = queries.first().map(Vec::len) else {
        return Ok(Vec::new());
    };
    if queries.iter().any(|q| q.len() != dim) {
        return Err(Error::Retrieval(RetrievalError::MixedDimensions));
    }
    let prepared: Vec<Query<'_>> = queries.iter().map(|q| Query::new(q, metric)).collect();
    let flat: Vec<f32> = queries.iter().flatten().copied().collect();
    let q = MatRef::from_row_major_slice(&flat, queries.len(), dim);
    let mut tops: Vec<TopK> = queries.iter().map(|_| TopK::new(k)).collect();
    let mut failure = None;
    source.blocks(0..live.end(), &mut |block| {
        if block.dim != dim {
            failure.get_or_insert_with(|| {
                Error::from(RetrievalError::BatchDimension {
                    queries: dim,
                    vectors: block.dim,
                })
            });
            return;
        }
        let x = MatRef::from_row_major_slice(block.values, block.len(), dim);
        let mut dots = Mat::<f32>::zeros(block.len(), queries.len());
        faer::linalg::matmul::matmul(
            dots.as_mut(),
            Accum::Replace,
            x,
            q.transpose(),
            1.0,
            Par::Seq,
        );
        for i in 0..block.len() {
            let row = block.first_row + i as u32;
            if !live.contains(row) {
                continue;
            }
            for (j, top) in tops.iter_mut().enumerate() {
                top.push(Hit {
                    row,
                    score: prepared[j].score(dots[(i, j)], block.norms[i]),
                });
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(tops.into_iter().map(TopK::into_sorted).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_best_and_breaks_ties_by_row() {
        let mut top = TopK::new(3);
        for (row, score) in [(5, 0.5), (1, 0.9), (2, 0.5), (3, 0.1), (4, 0.95), (0, 0.5)] {
            top.push(Hit { row, score });
        }
        let rows: Vec<u32> = top.into_sorted().iter().map(|h| h.row).collect();
        assert_eq!(rows, vec![4, 1, 0]);
    }

    #[test]
    fn scores_follow_each_metric() {
        let v = [3.0f32, 4.0];
        let q = Query::new(&[3.0, 4.0], Metric::Cosine);
        assert!((q.exact(&v, 5.0) - 1.0).abs() < 1e-6);
        let q = Query::new(&[1.0, 0.0], Metric::Dot);
        assert!((q.exact(&v, 5.0) - 3.0).abs() < 1e-6);
        let q = Query::new(&[0.0, 0.0], Metric::L2);
        assert!((q.exact(&v, 5.0) + 5.0).abs() < 1e-6);
    }

    #[test]
    fn the_sign_pass_keeps_the_best_agreements_and_cuts_ties_by_row() {
        let mut arena = VectorArena::new(4);
        for v in [
            [1.0, 1.0, 1.0, 1.0],     // 0: agrees on 4
            [1.0, 1.0, 1.0, -1.0],    // 1: 2
            [-1.0, -1.0, -1.0, -1.0], // 2: -4
            [1.0, 1.0, 0.0, 0.0],     // 3: 2
            [1.0, 1.0, 1.0, 0.0],     // 4: 3, but not live
            [1.0, 1.0, -1.0, 1.0],    // 5: 2
        ] {
            arena.push(&v);
        }
        let live = LiveBits::new(&[0u32, 1, 2, 3, 5].into_iter().collect());
        let q = [0.5, 0.5, 0.5, 0.5];
        let rows = |want| sign_candidates(&arena, &live, &q, want).expect("scan");
        assert_eq!(rows(1), vec![0]);
        assert_eq!(rows(2), vec![0, 1], "ties at the cut go by row");
        assert_eq!(rows(4), vec![0, 1, 3, 5]);
        assert_eq!(rows(10), vec![0, 1, 2, 3, 5]);
        let best = top_k(&arena, &live, &q, 2, Metric::Cosine, Precision::Sign, 1).expect("scan");
        assert_eq!(best.iter().map(|h| h.row).collect::<Vec<_>>(), vec![0, 3]);
    }

    #[test]
    fn live_bits_match_the_bitmap() {
        let live: RoaringBitmap = [0u32, 63, 64, 1000].into_iter().collect();
        let bits = LiveBits::new(&live);
        assert!((0..1100).all(|r| bits.contains(r) == live.contains(r)));
        assert!(!bits.contains(1_000_000));
    }
}
