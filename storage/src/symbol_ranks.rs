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
    /// with the same names): the new ids are sorted and merged in.
    pub(crate) fn updated(old: &SymbolRanks, table: &Interner) -> SymbolRanks {
        let name = |id: u32| table.name_ref(Symbol(id)).unwrap_or("");
        let mut new: Vec<u32> = (old.rank.len() as u32..table.len()).collect();
        new.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut sorted = Vec::with_capacity(old.sorted.len() + new.len());
        let (mut i, mut j) = (0, 0);
        while i < old.sorted.len() && j < new.len() {
            if (name(old.sorted[i]), old.sorted[i]) <= (name(new[j]), new[j]) {
                sorted.push(old.sorted[i]);
                i += 1;
            } else {
                sorted.push(new[j]);
                j += 1;
            }
        }
        sorted.extend_from_slice(&old.sorted[i..]);
        sorted.extend_from_slice(&new[j..]);
        let mut rank = vec![0u32; sorted.len()];
        for (r, &id) in sorted.iter().enumerate() {
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
