//! A two-column relation as a graph: its values numbered densely, its
//! edges laid out as an adjacency array (CSR), the nodes' order by value.
//! What a closure or a reach searches (`exec/closure.rs`); a stored
//! relation's graph is built once and kept with its cached copy
//! (`frozen.rs`), so a repeated search pays only for the search.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use crate::frozen::Kind;
use crate::order::SymbolOrder;
use crate::radix::sort_by_low_bits;
use crate::val::Val;

/// Nodes by number, and the edges from each.
pub(crate) struct Graph {
    ids: Ids,
    nodes: Vec<Val>,
    /// The edges from node `u` go to `targets[offsets[u]..offsets[u + 1]]`.
    offsets: Vec<u32>,
    targets: Vec<u32>,
    /// Node numbers in value order (symbols by name), made by the first
    /// search that needs them (a whole closure; a reach that finds most
    /// nodes).
    by_value: OnceLock<Vec<u32>>,
}

/// Value to node number: by the bits of a scalar column's kind (both
/// columns of one kind, the common case: ids, ints), through a table when
/// the bits span little more than the edges do, else by value.
enum Ids {
    /// `table[bits - least]`, `NONE` where no node has those bits.
    Dense(Kind, u64, Vec<u32>),
    Bits(Kind, FxHashMap<u64, u32>),
    Vals(FxHashMap<Val, u32>),
}

/// No node.
const NONE: u32 = u32::MAX;

impl Graph {
    /// The graph of `edges` (`(from, to)` pairs; duplicates are harmless),
    /// every value a scalar of `kind` given as its bits.
    pub(crate) fn of_bits(kind: Kind, edges: impl Iterator<Item = (u64, u64)> + Clone) -> Graph {
        let (least, most, count) = edges
            .clone()
            .fold((u64::MAX, 0u64, 0usize), |(lo, hi, n), (a, b)| {
                (lo.min(a).min(b), hi.max(a).max(b), n + 1)
            });
        let mut nodes = Vec::new();
        let mut numbered = Vec::with_capacity(count);
        let span = most.wrapping_sub(least);
        if count > 0 && span < (4 * count as u64).max(1024) {
            // Small ids or ints: a table instead of hashing.
            let mut table = vec![NONE; span as usize + 1];
            for (a, b) in edges {
                let mut id = |bits: u64| {
                    let slot = &mut table[(bits - least) as usize];
                    if *slot == NONE {
                        nodes.push(kind.val(bits));
                        *slot = (nodes.len() - 1) as u32;
                    }
                    *slot
                };
                numbered.push((id(a), id(b)));
            }
            return Graph::laid_out(Ids::Dense(kind, least, table), nodes, &numbered);
        }
        let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
        for (a, b) in edges {
            let mut id = |bits: u64| {
                *ids.entry(bits).or_insert_with(|| {
                    nodes.push(kind.val(bits));
                    (nodes.len() - 1) as u32
                })
            };
            numbered.push((id(a), id(b)));
        }
        Graph::laid_out(Ids::Bits(kind, ids), nodes, &numbered)
    }

    /// The graph of `edges` of any values.
    pub(crate) fn of_vals(edges: impl ExactSizeIterator<Item = (Val, Val)>) -> Graph {
        let mut ids: FxHashMap<Val, u32> = FxHashMap::default();
        let mut nodes = Vec::new();
        let mut numbered = Vec::with_capacity(edges.len());
        for (a, b) in edges {
            let mut id = |v: Val| {
                *ids.entry(v).or_insert_with_key(|v| {
                    nodes.push(v.clone());
                    (nodes.len() - 1) as u32
                })
            };
            numbered.push((id(a), id(b)));
        }
        Graph::laid_out(Ids::Vals(ids), nodes, &numbered)
    }

    fn laid_out(ids: Ids, nodes: Vec<Val>, edges: &[(u32, u32)]) -> Graph {
        let n = nodes.len();
        let mut offsets = vec![0u32; n + 1];
        for &(a, _) in edges {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut targets = vec![0u32; edges.len()];
        let mut fill = offsets.clone();
        for &(a, b) in edges {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Graph {
            ids,
            nodes,
            offsets,
            targets,
            by_value: OnceLock::new(),
        }
    }

    /// Nodes.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The number of the node equal to `v` (an int finds an integral
    /// float's node and the reverse, as `=` does).
    pub(crate) fn id(&self, v: &Val) -> Option<u32> {
        match &self.ids {
            Ids::Dense(kind, least, table) => {
                let at = kind.code(v)?.checked_sub(*least)?;
                table
                    .get(usize::try_from(at).ok()?)
                    .copied()
                    .filter(|&u| u != NONE)
            }
            Ids::Bits(kind, ids) => ids.get(&kind.code(v)?).copied(),
            Ids::Vals(ids) => ids.get(v).copied(),
        }
    }

    /// Node `u`'s value.
    #[inline]
    pub(crate) fn node(&self, u: u32) -> &Val {
        &self.nodes[u as usize]
    }

    /// The nodes an edge from `u` leads to.
    #[inline]
    pub(crate) fn targets(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.targets[self.offsets[u] as usize..self.offsets[u + 1] as usize]
    }

    /// Node numbers in value order, symbols by name (`symbols` orders
    /// every symbol the store held when it was made; later ones do not
    /// change how earlier ones order, so the order made once stays true).
    pub(crate) fn by_value(&self, symbols: &SymbolOrder) -> &[u32] {
        self.by_value.get_or_init(|| {
            let nodes = &self.nodes;
            // Ints, times or symbols alone: a radix sort of their keys.
            const FLIP: u64 = 1 << 63;
            let key = |v: &Val| match v {
                Val::Int(i) => Some((0, (*i as u64) ^ FLIP)),
                Val::Time(t) => Some((1, (*t as u64) ^ FLIP)),
                Val::Sym(s) => Some((2, symbols.rank(*s))),
                _ => None,
            };
            let kind = nodes.first().and_then(key).map(|(k, _)| k);
            let keys: Option<Vec<(u64, u32)>> = (0..nodes.len() as u32)
                .map(|u| match key(&nodes[u as usize]) {
                    Some((k, x)) if Some(k) == kind => Some((x, u)),
                    _ => None,
                })
                .collect();
            match keys {
                Some(mut keys) => {
                    sort_by_low_bits(&mut keys, 64);
                    keys.into_iter().map(|(_, u)| u).collect()
                }
                None => {
                    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
                    order.sort_unstable_by(|&a, &b| {
                        symbols.cmp(&nodes[a as usize], &nodes[b as usize])
                    });
                    order
                }
            }
        })
    }

    /// Puts `found` (node numbers) in value order: picked from every node
    /// in that order when they are most of them (`is_found` says which),
    /// else sorted by value.
    pub(crate) fn in_value_order(
        &self,
        found: &mut Vec<u32>,
        is_found: impl Fn(u32) -> bool,
        symbols: &SymbolOrder,
    ) {
        if found.len() * 16 >= self.len() {
            found.clear();
            found.extend(
                self.by_value(symbols)
                    .iter()
                    .copied()
                    .filter(|&u| is_found(u)),
            );
        } else {
            found.sort_unstable_by(|&a, &b| symbols.cmp(self.node(a), self.node(b)));
        }
    }

    /// Bytes held (what a cached graph costs).
    pub(crate) fn bytes(&self) -> usize {
        let ids = match &self.ids {
            Ids::Dense(_, _, table) => table.capacity() * 4,
            Ids::Bits(_, ids) => ids.capacity() * 16,
            Ids::Vals(ids) => ids.capacity() * (std::mem::size_of::<Val>() + 8),
        };
        ids + self.nodes.capacity() * std::mem::size_of::<Val>()
            + (self.offsets.capacity() + self.targets.capacity()) * 4
            + self.by_value.get().map_or(0, |o| o.capacity() * 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_order_by_value_whatever_their_types() {
        let symbols = SymbolOrder::default();
        let ints =
            Graph::of_vals([(Val::Int(3), Val::Int(-7)), (Val::Int(0), Val::Int(3))].into_iter());
        let order: Vec<&Val> = ints
            .by_value(&symbols)
            .iter()
            .map(|&u| ints.node(u))
            .collect();
        assert_eq!(order, [&Val::Int(-7), &Val::Int(0), &Val::Int(3)]);
        let mixed = Graph::of_vals(
            [
                (Val::Str("b".into()), Val::Int(2)),
                (Val::Float(1.5), Val::Str("a".into())),
            ]
            .into_iter(),
        );
        let order: Vec<&Val> = mixed
            .by_value(&symbols)
            .iter()
            .map(|&u| mixed.node(u))
            .collect();
        let mut want: Vec<&Val> = order.clone();
        want.sort_by(|a, b| symbols.cmp(a, b));
        assert_eq!(order, want);
    }

    #[test]
    fn sparse_bits_are_hashed_and_dense_ones_tabled() {
        let sparse = Graph::of_bits(Kind::Int, [(1u64, 1u64 << 40), (1 << 40, 7)].into_iter());
        assert!(matches!(sparse.ids, Ids::Bits(..)));
        let dense = Graph::of_bits(Kind::Int, [(5u64, 6u64), (6, 9)].into_iter());
        assert!(matches!(dense.ids, Ids::Dense(..)));
        for g in [&sparse, &dense] {
            assert_eq!(g.len(), 3);
            assert_eq!(g.id(&Val::Int(2)), None);
            assert_eq!(g.id(&Val::Int(-1)), None);
        }
        let six = dense.id(&Val::Int(6)).expect("six");
        assert_eq!(
            dense
                .targets(six)
                .iter()
                .map(|&t| dense.node(t))
                .collect::<Vec<_>>(),
            [&Val::Int(9)]
        );
        assert_eq!(
            sparse.id(&Val::Int(7)).map(|u| sparse.node(u)),
            Some(&Val::Int(7))
        );
    }

    #[test]
    fn edges_by_bits_and_by_value_give_one_graph() {
        let pairs = [(1i64, 2i64), (2, 3), (1, 3), (3, 1), (1, 2)];
        let symbols = SymbolOrder::default();
        let bits = Graph::of_bits(Kind::Int, pairs.iter().map(|&(a, b)| (a as u64, b as u64)));
        let vals = Graph::of_vals(pairs.iter().map(|&(a, b)| (Val::Int(a), Val::Int(b))));
        for g in [&bits, &vals] {
            assert_eq!(g.len(), 3);
            let one = g.id(&Val::Int(1)).expect("node 1");
            let mut to: Vec<&Val> = g.targets(one).iter().map(|&t| g.node(t)).collect();
            to.sort();
            assert_eq!(to, [&Val::Int(2), &Val::Int(2), &Val::Int(3)]);
            // As `=` does: the float 3.0 is the int 3.
            assert_eq!(g.id(&Val::Float(3.0)), g.id(&Val::Int(3)));
            assert_eq!(g.id(&Val::Int(9)), None);
            let order: Vec<&Val> = g.by_value(&symbols).iter().map(|&u| g.node(u)).collect();
            assert_eq!(order, [&Val::Int(1), &Val::Int(2), &Val::Int(3)]);
        }
    }
}
