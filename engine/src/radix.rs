//! A stable LSD radix sort of `(key, row)` pairs, for the two places the
//! engine orders many integer keys: grouping a stored relation by key hash
//! (`frozen.rs`) and putting an answer in order (`rows.rs`). A comparison
//! sort of 20,000 pairs cost ~250 instructions a pair; this costs a few per
//! pair per byte of key that actually varies.

/// Sorts `entries` by the low `bits` bits of their key (a multiple of 8, at
/// most 64), stably: pairs with equal keys keep their order. Passes run
/// only over the bytes in which some keys differ.
pub(crate) fn sort_by_low_bits(entries: &mut Vec<(u64, u32)>, bits: u32) {
    debug_assert!(bits.is_multiple_of(8) && bits <= 64);
    if entries.len() < 2 || bits == 0 {
        return;
    }
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // Only bytes that differ between keys order anything: small ints, ids
    // and dates vary in two or three of their eight.
    let (any, all) = entries
        .iter()
        .fold((0u64, u64::MAX), |(any, all), e| (any | e.0, all & e.0));
    let varying = (any ^ all) & mask;
    let digits: Vec<u32> = (0..bits / 8)
        .filter(|d| (varying >> (8 * d)) & 0xff != 0)
        .collect();
    if digits.is_empty() {
        return;
    }
    let mut counts = vec![[0usize; 256]; digits.len()];
    for &(key, _) in entries.iter() {
        for (count, &d) in counts.iter_mut().zip(&digits) {
            count[((key >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    let mut other = vec![(0u64, 0u32); entries.len()];
    for (count, &d) in counts.iter_mut().zip(&digits) {
        let mut at = 0;
        for c in count.iter_mut() {
            let k = *c;
            *c = at;
            at += k;
        }
        for &e in entries.iter() {
            let slot = &mut count[((e.0 >> (8 * d)) & 0xff) as usize];
            other[*slot] = e;
            *slot += 1;
        }
        std::mem::swap(entries, &mut other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_like_a_stable_comparison_sort(
            keys in prop::collection::vec(any::<u64>(), 0..300),
            narrow in any::<bool>(),
        ) {
            // Narrow keys share their high bytes (the skipped digits) and
            // repeat (stability shows).
            let mut entries: Vec<(u64, u32)> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (if narrow { k % 37 } else { k }, i as u32))
                .collect();
            for bits in [32, 64] {
                let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let mut expected = entries.clone();
                expected.sort_by_key(|e| e.0 & mask);
                let mut got = entries.clone();
                sort_by_low_bits(&mut got, bits);
                prop_assert_eq!(&got, &expected);
            }
            entries.clear();
        }
    }
}
