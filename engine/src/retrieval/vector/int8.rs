//! The int8 pass: the quantised copy of every live row scored against a
//! widened query, in a kernel compiled for AVX2 when the CPU has it.

use chronolog_storage::VectorBlock;

use super::{Hit, LiveBits, Query, TopK};

pub(super) type Int8Kernel = fn(&VectorBlock<'_>, &LiveBits, &Query<'_>, &mut TopK);

/// The int8 scan compiled for AVX2 when the CPU has it: the whole block in
/// one function, with the dot product inlined, where a library call per
/// 384-byte row spent more on the call than on the arithmetic.
#[allow(unsafe_code)]
pub(super) fn int8_kernel() -> Int8Kernel {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return |block, live, q, top| {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { int8_scan_avx2(block, live, q, top) }
        };
    }
    int8_scan
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn int8_scan_avx2(block: &VectorBlock<'_>, live: &LiveBits, q: &Query<'_>, top: &mut TopK) {
    int8_scan(block, live, q, top)
}

#[inline(always)]
fn int8_scan(block: &VectorBlock<'_>, live: &LiveBits, q: &Query<'_>, top: &mut TopK) {
    let dim = block.dim;
    if dim == 0 {
        return;
    }
    for (i, codes) in block.quantized.chunks_exact(dim).enumerate() {
        let row = block.first_row + i as u32;
        if !live.contains(row) {
            continue;
        }
        let dot = dot_i8(&q.widened, codes) as f32 * q.scale * block.scales[i];
        top.push(Hit {
            row,
            score: q.score(dot, block.norms[i]),
        });
    }
}

/// The dot product of a widened query and an int8 row (LLVM makes it
/// `vpmovsxbw` + `vpmaddwd` under AVX2). Exact: at most 127 * 127 * dim,
/// far inside `i32` for any real dim.
#[inline(always)]
fn dot_i8(query: &[i16], row: &[i8]) -> i32 {
    query
        .iter()
        .zip(row)
        .map(|(&x, &y)| i32::from(x) * i32::from(i16::from(y)))
        .sum()
}
