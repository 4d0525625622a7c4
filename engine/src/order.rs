//! The order of values as users see it: symbols by their names.
//!
//! A symbol is a dense id in interning order, which is what joins and hash
//! probes want (equality and hashing by id are sound: one name, one id).
//! Ordering is not: `p(zed). p(mike). p(alice).` must sort alice, mike,
//! zed whatever was stored first. So wherever values are ordered (the
//! answer's sort, `order by`, `<`, `min`/`max`), the symbols involved are
//! ranked by name once, and compared by rank.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use crate::val::Val;

/// Ranks by name for a set of symbols; other values order as `Val` does.
#[derive(Default)]
pub(crate) struct SymbolOrder {
    ranks: FxHashMap<u32, u32>,
}

impl SymbolOrder {
    /// Ranks the symbols among `values` by name; `name` gives a symbol's
    /// name (`None` for an unknown id, which then sorts after every name,
    /// by id).
    pub(crate) fn of<'v, 'n>(
        values: impl IntoIterator<Item = &'v Val>,
        name: impl Fn(u32) -> Option<&'n str>,
    ) -> SymbolOrder {
        let mut ids: Vec<u32> = values
            .into_iter()
            .filter_map(|v| match v {
                Val::Sym(s) => Some(*s),
                _ => None,
            })
            .collect();
        if ids.is_empty() {
            return SymbolOrder::default();
        }
        ids.sort_unstable();
        ids.dedup();
        let mut named: Vec<(Option<&str>, u32)> =
            ids.into_iter().map(|id| (name(id), id)).collect();
        // Named symbols by name (ties cannot happen but break by id), then
        // unnamed ones by id.
        named.sort_unstable_by(|(a, x), (b, y)| match (a, b) {
            (Some(a), Some(b)) => a.cmp(b).then(x.cmp(y)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => x.cmp(y),
        });
        let ranks = named
            .into_iter()
            .enumerate()
            .map(|(rank, (_, id))| (id, rank as u32))
            .collect();
        SymbolOrder { ranks }
    }

    /// A symbol's place among the ranked ones (an unranked one after them,
    /// by id).
    pub(crate) fn rank(&self, id: u32) -> u64 {
        match self.ranks.get(&id) {
            Some(&r) => u64::from(r),
            None => (1 << 32) + u64::from(id),
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
        let names = ["zed", "mike", "alice"];
        let vals = [Val::Sym(0), Val::Sym(1), Val::Sym(2), Val::Int(3)];
        let order = SymbolOrder::of(&vals, |id| names.get(id as usize).copied());
        let mut sorted = vals.to_vec();
        sorted.sort_by(|a, b| order.cmp(a, b));
        assert_eq!(
            sorted,
            vec![Val::Int(3), Val::Sym(2), Val::Sym(1), Val::Sym(0)],
            "alice, mike, zed; other types keep their place (ints before symbols)"
        );
        assert_eq!(order.cmp(&Val::Sym(0), &Val::Sym(0)), Ordering::Equal);
    }
}
