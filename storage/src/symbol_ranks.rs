//! Symbols in name order. Ids are dense in interning order, which is what
//! equality and hashing want; sorting wants names. The order is kept beside
//! the symbol table and brought up to date lazily, merging only the
//! symbols interned since it was last asked for, so a query that sorts
//! pays an `Arc` clone, not a sort of every name.

use std::sync::Arc;

use crate::symbols::Interner;
use crate::value::Symbol;

/// Every stored symbol's place in name order, as of when it was made.
#[derive(Default, Debug)]
pub struct SymbolRanks {
    /// `rank[id]`: how many stored names sort before symbol `id`'s.
    rank: Vec<u32>,
    /// Ids in name order.
    sorted: Vec<u32>,
}

impl SymbolRanks {
    /// Symbol `id`'s place in name order; `None` for an id interned after
    /// these ranks were made.
    pub fn rank(&self, id: u32) -> Option<u32> {
        self.rank.get(id as usize).copied()
    }

    /// How many symbols these ranks cover.
    pub fn len(&self) -> usize {
        self.rank.len()
    }

    /// Whether they cover none.
    pub fn is_empty(&self) -> bool {
        self.rank.is_empty()
    }

    /// Ranks for `table`, reusing `old` (made for a prefix of the same ids
    /// with the same names): the new ids are sorted and each is placed
    /// among the old by a binary search. A store that writes between
    /// queries (a memory records what each search returned) interns a
    /// few names before nearly every query; a merge that compared every
    /// old name took about half of a LongMemEval search over 250
    /// tenants, growing with every tenant's names. Now the names read are the new ones' and a
    /// logarithm of the old ones'; the rest is copying ids.
    pub(crate) fn updated(old: &SymbolRanks, table: &Interner) -> SymbolRanks {
        let name = |id: u32| table.name_ref(Symbol(id)).unwrap_or("");
        let mut new: Vec<u32> = (old.rank.len() as u32..table.len()).collect();
        new.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut sorted = Vec::with_capacity(old.sorted.len() + new.len());
        // Old ranks stand below the first place a new id takes.
        let mut first_moved = None;
        let mut from = 0;
        for &id in &new {
            let key = (name(id), id);
            let at = from + old.sorted[from..].partition_point(|&o| (name(o), o) < key);
            sorted.extend_from_slice(&old.sorted[from..at]);
            first_moved.get_or_insert(sorted.len());
            sorted.push(id);
            from = at;
        }
        sorted.extend_from_slice(&old.sorted[from..]);
        let mut rank = Vec::with_capacity(sorted.len());
        rank.extend_from_slice(&old.rank);
        rank.resize(sorted.len(), 0);
        let first_moved = first_moved.unwrap_or(sorted.len());
        for (r, &id) in sorted.iter().enumerate().skip(first_moved) {
            rank[id as usize] = r as u32;
        }
        SymbolRanks { rank, sorted }
    }

    /// How many of the covered names sort before `name`: where a name the
    /// store does not know would fall.
    pub(crate) fn position(&self, table: &Interner, name: &str) -> u32 {
        self.sorted
            .partition_point(|&id| table.name_ref(Symbol(id)).unwrap_or("") < name) as u32
    }
}

/// The cache of the latest ranks; reset by a purge (a purged name reads
/// differently).
pub(crate) type RankCache = parking_lot::Mutex<Arc<SymbolRanks>>;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Ranks made from nothing: every id sorted by (name, id).
    fn from_scratch(table: &Interner) -> SymbolRanks {
        let name = |id: u32| table.name_ref(Symbol(id)).unwrap_or("");
        let mut sorted: Vec<u32> = (0..table.len()).collect();
        sorted.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut rank = vec![0u32; sorted.len()];
        for (r, &id) in sorted.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        SymbolRanks { rank, sorted }
    }

    proptest! {
        /// However names arrive (one at a time between queries, in
        /// batches, purged between), ranks brought up to date batch by
        /// batch are the ranks a full sort gives.
        #[test]
        fn ranks_updated_batch_by_batch_equal_a_full_sort(
            batches in prop::collection::vec(
                prop::collection::vec("[a-d]{0,3}|[xyz ]{1,2}|é|柏", 0..6),
                1..12,
            ),
            purge in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        ) {
            let mut table = Interner::default();
            let mut ranks = SymbolRanks::default();
            for (i, batch) in batches.iter().enumerate() {
                for name in batch {
                    table.intern(name).expect("intern");
                }
                if i == 1 && table.len() > 0 {
                    for at in &purge {
                        table.redact(Symbol(at.index(table.len() as usize) as u32));
                    }
                    // A purge resets the cache: its names read differently.
                    ranks = SymbolRanks::default();
                }
                ranks = SymbolRanks::updated(&ranks, &table);
                let expected = from_scratch(&table);
                prop_assert_eq!(&ranks.sorted, &expected.sorted);
                prop_assert_eq!(&ranks.rank, &expected.rank);
            }
        }
    }
}
