//! The sign pass: every live row ranked by how many of its sign-code bits
//! agree with the query's (a popcount per word), the best kept by a
//! counting select, for `top_k` to re-score exactly.

use chronolog_storage::{VectorBlock, sign_code, sign_words};

use super::{LiveBits, Vectors};
use crate::error::Result;

/// The `want` live rows whose sign codes agree most with the query's (all
/// of them when fewer are live), in row order. Every row's agreement goes
/// into a histogram, so the cut-off is found without sorting: rows above
/// it are kept, and rows at it in row order until `want` (deterministic).
pub(super) fn sign_candidates(
    source: &dyn Vectors,
    live: &LiveBits,
    query: &[f32],
    want: usize,
) -> Result<Vec<u32>> {
    let mut code = Vec::new();
    sign_code(query, &mut code);
    let dim = sign_words(query.len()) as i32 * 64;
    let mut histogram = vec![0usize; 2 * dim as usize + 1];
    let mut scored: Vec<(u32, i32)> = Vec::with_capacity(live.count() as usize);
    let agreements = agreement_kernel();
    source.blocks(0..live.end(), &mut |block| {
        if block.dim != query.len() {
            return;
        }
        agreements(&block, live, &code, &mut scored);
    })?;
    for &(_, a) in &scored {
        histogram[(a + dim) as usize] += 1;
    }
    let mut cut = -dim;
    let mut above = 0;
    for bin in (0..histogram.len()).rev() {
        if above + histogram[bin] >= want {
            cut = bin as i32 - dim;
            break;
        }
        above += histogram[bin];
    }
    let mut at_cut = want.saturating_sub(above);
    Ok(scored
        .into_iter()
        .filter(|&(_, a)| {
            a > cut
                || (a == cut && at_cut > 0 && {
                    at_cut -= 1;
                    true
                })
        })
        .map(|(row, _)| row)
        .collect())
}

type AgreementKernel = fn(&VectorBlock<'_>, &LiveBits, &[u64], &mut Vec<(u32, i32)>);

/// The agreement loop compiled for the `popcnt` instruction when the CPU
/// has it (without it, `count_ones` is a dozen shifts and masks per word).
/// With `int8_kernel`, the engine's `unsafe` for SIMD: calling a function
/// compiled for a CPU feature, after checking at run time that the CPU
/// has it. (The other two set a buffer's length: `exec/closure.rs`, a
/// closure written on threads, and `rows.rs`, an answer of plain values
/// dropped.)
#[allow(unsafe_code)]
fn agreement_kernel() -> AgreementKernel {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        return |block, live, code, out| {
            // SAFETY: the CPU has `popcnt`, checked just above.
            unsafe { agreements_popcnt(block, live, code, out) }
        };
    }
    agreements
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn agreements_popcnt(
    block: &VectorBlock<'_>,
    live: &LiveBits,
    code: &[u64],
    out: &mut Vec<(u32, i32)>,
) {
    agreements(block, live, code, out)
}

/// `(row, agreement)` for each live row of `block`: the number of
/// dimensions where both signs match minus those where they are opposite.
/// Common dimensions get a loop unrolled for their word count, with the
/// query's words in registers.
#[inline(always)]
fn agreements(block: &VectorBlock<'_>, live: &LiveBits, code: &[u64], out: &mut Vec<(u32, i32)>) {
    match code.len() / 2 {
        2 => agreements_of::<2>(block, live, code, out),
        4 => agreements_of::<4>(block, live, code, out),
        6 => agreements_of::<6>(block, live, code, out),
        8 => agreements_of::<8>(block, live, code, out),
        12 => agreements_of::<12>(block, live, code, out),
        16 => agreements_of::<16>(block, live, code, out),
        _ => agreements_any(block, live, code, out),
    }
}

#[inline(always)]
fn agreements_of<const W: usize>(
    block: &VectorBlock<'_>,
    live: &LiveBits,
    code: &[u64],
    out: &mut Vec<(u32, i32)>,
) {
    let mut qp = [0u64; W];
    let mut qn = [0u64; W];
    qp.copy_from_slice(&code[..W]);
    qn.copy_from_slice(&code[W..2 * W]);
    for (i, x) in block.signs.chunks_exact(2 * W).enumerate() {
        let row = block.first_row + i as u32;
        if !live.contains(row) {
            continue;
        }
        let (mut agree, mut oppose) = (0u32, 0u32);
        for w in 0..W {
            let (xp, xn) = (x[w], x[W + w]);
            agree += ((qp[w] & xp) | (qn[w] & xn)).count_ones();
            oppose += ((qp[w] & xn) | (qn[w] & xp)).count_ones();
        }
        out.push((row, agree as i32 - oppose as i32));
    }
}

#[inline(always)]
fn agreements_any(
    block: &VectorBlock<'_>,
    live: &LiveBits,
    code: &[u64],
    out: &mut Vec<(u32, i32)>,
) {
    let words = code.len() / 2;
    let (qp, qn) = code.split_at(words);
    for (i, x) in block.signs.chunks_exact(2 * words).enumerate() {
        let row = block.first_row + i as u32;
        if !live.contains(row) {
            continue;
        }
        let (xp, xn) = x.split_at(words);
        let (mut agree, mut oppose) = (0u32, 0u32);
        for w in 0..words {
            agree += ((qp[w] & xp[w]) | (qn[w] & xn[w])).count_ones();
            oppose += ((qp[w] & xn[w]) | (qn[w] & xp[w])).count_ones();
        }
        out.push((row, agree as i32 - oppose as i32));
    }
}
