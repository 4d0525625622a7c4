//! `VectorArena`: fixed-dimension `f32` vectors end to end in one
//! contiguous allocation, with an int8 copy for fast first passes.
//!
//! Row `i`'s vector is `values[i * dim..(i + 1) * dim]`: appending allocates
//! nothing per row and a scan streams memory. Each row also keeps an int8
//! quantisation (`round(x * 127 / max|x|)`), its scale (`max|x| / 127`)
//! and its exact L2 norm, from which a scan can estimate a dot product, a
//! cosine or an L2 distance in a quarter of the bytes, then re-score the
//! few best candidates exactly.
//!
//! Each row also keeps its *sign code*: two bit planes, one bit per
//! dimension for "positive" and one for "negative" (zero sets neither).
//! The agreement of two codes (`popcount` of matching signs minus
//! mismatching ones) ranks rows by angle in 1/16 of the int8 bytes, the
//! first pass of a scan over many rows.

/// Vectors of one dimension, row by row.
#[derive(Debug, Default, Clone)]
pub struct VectorArena {
    dim: usize,
    values: Vec<f32>,
    quantized: Vec<i8>,
    scales: Vec<f32>,
    norms: Vec<f32>,
    /// Per row `2 * sign_words(dim)` words: positive plane, then negative.
    signs: Vec<u64>,
}

/// Words per sign plane of a `dim`-float vector.
pub fn sign_words(dim: usize) -> usize {
    dim.div_ceil(64)
}

/// Appends the sign code of `v` (positive plane, then negative) to `out`.
pub fn sign_code(v: &[f32], out: &mut Vec<u64>) {
    let words = sign_words(v.len());
    let at = out.len();
    out.resize(at + 2 * words, 0);
    let (positive, negative) = out[at..].split_at_mut(words);
    for (i, &x) in v.iter().enumerate() {
        if x > 0.0 {
            positive[i / 64] |= 1 << (i % 64);
        } else if x < 0.0 {
            negative[i / 64] |= 1 << (i % 64);
        }
    }
}

/// Rows `first_row..first_row + len` of an arena, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct VectorBlock<'a> {
    /// The id of the block's first row.
    pub first_row: u32,
    /// Floats per vector.
    pub dim: usize,
    /// `len * dim` floats.
    pub values: &'a [f32],
    /// `len * dim` int8 values.
    pub quantized: &'a [i8],
    /// Per row: the float one int8 step stands for.
    pub scales: &'a [f32],
    /// Per row: the exact L2 norm.
    pub norms: &'a [f32],
    /// Per row: the sign code, `2 * sign_words(dim)` words.
    pub signs: &'a [u64],
}

impl VectorBlock<'_> {
    /// Rows in the block.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether the block has no rows.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The vector of the block's `i`-th row.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// The int8 copy of the block's `i`-th row.
    pub fn quantized(&self, i: usize) -> &[i8] {
        &self.quantized[i * self.dim..(i + 1) * self.dim]
    }

    /// The sign code of the block's `i`-th row.
    pub fn signs(&self, i: usize) -> &[u64] {
        let w = 2 * sign_words(self.dim);
        &self.signs[i * w..(i + 1) * w]
    }
}

/// The int8 quantisation of `v`, with its scale.
pub fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        out.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let k = 127.0 / max;
    out.extend(v.iter().map(|x| (x * k).round().clamp(-127.0, 127.0) as i8));
    max / 127.0
}

impl VectorArena {
    /// An empty arena of `dim`-float vectors.
    pub fn new(dim: usize) -> VectorArena {
        VectorArena {
            dim,
            ..VectorArena::default()
        }
    }

    /// Floats per vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Appends a row (`v.len()` must be `dim`; a wrong length stores zeros,
    /// so rows stay aligned).
    pub fn push(&mut self, v: &[f32]) {
        if v.len() != self.dim {
            self.push_zero();
            return;
        }
        self.values.extend_from_slice(v);
        let scale = quantize(v, &mut self.quantized);
        self.scales.push(scale);
        self.norms.push(v.iter().map(|x| x * x).sum::<f32>().sqrt());
        sign_code(v, &mut self.signs);
    }

    /// Appends an all-zero row (a null or erased value).
    pub fn push_zero(&mut self) {
        self.values.extend(std::iter::repeat_n(0.0, self.dim));
        self.quantized.extend(std::iter::repeat_n(0, self.dim));
        self.scales.push(0.0);
        self.norms.push(0.0);
        let w = 2 * sign_words(self.dim);
        self.signs.extend(std::iter::repeat_n(0, w));
    }

    /// Zeroes row `row` (purge).
    pub fn zero(&mut self, row: usize) {
        if row < self.len() {
            let span = row * self.dim..(row + 1) * self.dim;
            self.values[span.clone()].fill(0.0);
            self.quantized[span].fill(0);
            self.scales[row] = 0.0;
            self.norms[row] = 0.0;
            let w = 2 * sign_words(self.dim);
            self.signs[row * w..(row + 1) * w].fill(0);
        }
    }

    /// Row `row`'s vector.
    pub fn get(&self, row: usize) -> &[f32] {
        &self.values[row * self.dim..(row + 1) * self.dim]
    }

    /// Rows `range` (clamped to what is held), borrowed.
    pub fn block(&self, range: std::ops::Range<usize>) -> VectorBlock<'_> {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        VectorBlock {
            first_row: start as u32,
            dim: self.dim,
            values: &self.values[start * self.dim..end * self.dim],
            quantized: &self.quantized[start * self.dim..end * self.dim],
            scales: &self.scales[start..end],
            norms: &self.norms[start..end],
            signs: &self.signs[start * 2 * sign_words(self.dim)..end * 2 * sign_words(self.dim)],
        }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.values.capacity() * 4
            + self.quantized.capacity()
            + (self.scales.capacity() + self.norms.capacity()) * 4
            + self.signs.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantisation_round_trips_within_one_step() {
        let mut arena = VectorArena::new(4);
        arena.push(&[0.5, -1.0, 0.25, 0.0]);
        arena.push(&[1.0, 2.0]);
        let b = arena.block(0..10);
        assert_eq!(b.len(), 2);
        let scale = b.scales[0];
        for (q, x) in b.quantized(0).iter().zip(b.vector(0)) {
            assert!((f32::from(*q) * scale - x).abs() <= scale / 2.0 + 1e-6);
        }
        assert!((b.norms[0] - (0.25f32 + 1.0 + 0.0625).sqrt()).abs() < 1e-6);
        assert_eq!(b.vector(1), &[0.0; 4], "a wrong length stores zeros");
        arena.zero(0);
        assert_eq!(arena.get(0), &[0.0; 4]);
        assert_eq!(arena.block(1..2).first_row, 1);
        assert_eq!(
            arena.block(0..1).signs(0),
            &[0, 0],
            "a zeroed row has no signs"
        );
    }

    #[test]
    fn sign_codes_set_one_plane_per_nonzero_dimension() {
        let mut v = vec![0.0f32; 70];
        v[0] = 0.5;
        v[1] = -2.0;
        v[69] = 1.0;
        let mut code = Vec::new();
        sign_code(&v, &mut code);
        assert_eq!(code.len(), 4);
        assert_eq!(code[0], 1, "dimension 0 is positive");
        assert_eq!(code[1], 1 << 5, "dimension 69 is positive");
        assert_eq!(code[2], 2, "dimension 1 is negative");
        assert_eq!(code[3], 0);
        let mut arena = VectorArena::new(70);
        arena.push(&v);
        assert_eq!(arena.block(0..1).signs(0), code.as_slice());
    }
}
