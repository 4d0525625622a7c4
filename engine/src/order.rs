//! The order of values as users see it: symbols by their names.
//!
//! A symbol is a dense id in interning order, which is what joins and hash
//! probes want (equality and hashing by id are sound: one name, one id).
//! Ordering is not: `p(zed). p(mike). p(alice).` must sort alice, mike,
//! zed whatever was stored first. So wherever values are ordered (the
//! answer's sort, `order by`, `<`, `min`/`max`), the symbols involved are
//! compared by their rank in name order, which the store keeps up to date
//! (`Store::symbol_ranks`).

use std::cmp::Ordering;
use std::sync::Arc;

use chronolog_storage::{Store, SymbolRanks};
use rustc_hash::FxHashMap;

use crate::val::Val;

/// Symbol keys in name order; other values order as `Val` does.
#[derive(Default)]
pub(crate) struct SymbolOrder {
    /// The store's symbols in name order (shared, kept by the store).
    stored: Option<Arc<SymbolRanks>>,
    /// Keys of names a query uses that the store does not know, placed
    /// among the stored ones.
    virtual_keys: FxHashMap<u32, u64>,
}

/// Room for query-only names between two stored ones.
const GAP: u32 = 20;

impl SymbolOrder {
    /// The order of the store's symbols and of `virtual_names` (`(id,
    /// name)` of symbols only a query knows).
    pub(crate) fn new(store: &Store, virtual_names: &[(u32, &str)]) -> SymbolOrder {
        let stored = store.symbol_ranks();
        let mut virtual_keys = FxHashMap::default();
        if !virtual_names.is_empty() {
            let names: Vec<&str> = virtual_names.iter().map(|(_, n)| *n).collect();
            let positions = store.symbol_positions(&stored, &names);
            // Several unknown names at one place: by name among themselves.
            let mut placed: Vec<(u32, &str, u32)> = virtual_names
                .iter()
                .zip(positions)
                .map(|(&(id, name), at)| (at, name, id))
                .collect();
            placed.sort_unstable();
            let mut previous = None;
            let mut offset = 0u64;
            for (at, _, id) in placed {
                offset = if previous == Some(at) { offset + 1 } else { 1 };
                previous = Some(at);
                virtual_keys.insert(id, (u64::from(at) << GAP) + offset.min((1 << GAP) - 1));
            }
        }
        SymbolOrder {
            stored: Some(stored),
            virtual_keys,
        }
    }

    /// A symbol's key: stored symbols by rank, query-only ones between
    /// them, ids no one knows after all of them.
    pub(crate) fn rank(&self, id: u32) -> u64 {
        if let Some(r) = self.stored.as_ref().and_then(|s| s.rank(id)) {
            return (u64::from(r) + 1) << GAP;
        }
        match self.virtual_keys.get(&id) {
            Some(&key) => key,
            None => (1 << 62) + u64::from(id),
        }
    }

    /// Compares as `Val::cmp` does, except that two symbols compare by
    /// name.
    pub(crate) fn cmp(&self, a: &Val, b: &Val) -> Ordering {
        match (a, b) {
            (Val::Sym(x), Val::Sym(y)) => self.rank(*x).cmp(&self.rank(*y)),
            (Val::List(x), Val::List(y)) => x
                .iter()
                .zip(y.iter())
                .map(|(a, b)| self.cmp(a, b))
                .find(|o| o.is_ne())
                .unwrap_or(x.len().cmp(&y.len())),
            _ => a.cmp(b),
        }
    }

    /// Compares two rows value by value.
    pub(crate) fn cmp_rows(&self, a: &[Val], b: &[Val]) -> Ordering {
        a.iter()
            .zip(b)
            .map(|(x, y)| self.cmp(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(a.len().cmp(&b.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_order_by_name_not_by_id() {
        let store = Store::in_memory();
        let mut txn = store.begin();
        let ids: Vec<u32> = ["zed", "mike", "alice"]
            .iter()
            .map(|n| txn.symbol(n).map(|s| s.0))
            .collect::<chronolog_storage::Result<_>>()
            .expect("intern");
        txn.commit().expect("commit");
        // A query-only name, between alice and mike.
        let order = SymbolOrder::new(&store, &[(u32::MAX - 1, "bob")]);
        let mut vals: Vec<Val> = ids.iter().map(|&i| Val::Sym(i)).collect();
        vals.push(Val::Sym(u32::MAX - 1));
        vals.push(Val::Int(3));
        vals.sort_by(|a, b| order.cmp(a, b));
        assert_eq!(
            vals,
            vec![
                Val::Int(3),
                Val::Sym(ids[2]),
                Val::Sym(u32::MAX - 1),
                Val::Sym(ids[1]),
                Val::Sym(ids[0])
            ],
            "alice, bob, mike, zed; other types keep their place (ints before symbols)"
        );
        assert_eq!(
            order.cmp(&Val::Sym(ids[0]), &Val::Sym(ids[0])),
            Ordering::Equal
        );
    }
}
