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
    /// Node `u` is the value whose bits are `least + u`: ints, times or
    /// bools spanning little more than the edges do, whose bits within
    /// the span order as their values do. No numbering and no table; a
    /// number in the span no edge touches is a node without edges.
    Span(Kind, u64),
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
        // The bits span little more than the edges do.
        let dense = count > 0 && span < (4 * count as u64).max(1024);
        if dense && kind != Kind::Sym {
            let n = span as usize + 1;
            let from = |bits: u64| (bits - least) as u32;
            let numbered = edges.map(|(a, b)| (from(a), from(b)));
            return Graph::laid_out(Ids::Span(kind, least), Vec::new(), n, numbered);
        }
        if dense {
            // Small symbol ids: a table instead of hashing.
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
            let n = nodes.len();
            return Graph::laid_out(
                Ids::Dense(kind, least, table),
                nodes,
                n,
                numbered.into_iter(),
            );
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
        let n = nodes.len();
        Graph::laid_out(Ids::Bits(kind, ids), nodes, n, numbered.into_iter())
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
        let n = nodes.len();
        Graph::laid_out(Ids::Vals(ids), nodes, n, numbered.into_iter())
    }

    /// The adjacency array of `n` nodes' `edges`, by node number.
    fn laid_out(
        ids: Ids,
        nodes: Vec<Val>,
        n: usize,
        edges: impl Iterator<Item = (u32, u32)> + Clone,
    ) -> Graph {
        let mut offsets = vec![0u32; n + 1];
        let mut count = 0;
        for (a, _) in edges.clone() {
            offsets[a as usize + 1] += 1;
            count += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut targets = vec![0u32; count];
        let mut fill = offsets.clone();
        for (a, b) in edges {
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

    /// Nodes (with [`Ids::Span`], every number in the span).
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of the node equal to `v` (an int finds an integral
    /// float's node and the reverse, as `=` does).
    pub(crate) fn id(&self, v: &Val) -> Option<u32> {
        match &self.ids {
            Ids::Span(kind, least) => {
                let at = kind.code(v)?.checked_sub(*least)?;
                u32::try_from(at)
                    .ok()
                    .filter(|&u| (u as usize) < self.len())
            }
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

    /// Whether every node's value owns no memory (numbers, times, bools,
    /// symbols): then so does every answer made of them.
    pub(crate) fn values_are_plain(&self) -> bool {
        match self.ids {
            Ids::Vals(_) => self.nodes.iter().all(Val::is_plain),
            _ => true,
        }
    }

    /// Node `u`'s value.
    #[inline]
    pub(crate) fn node(&self, u: u32) -> Val {
        match self.ids {
            Ids::Span(kind, least) => kind.val(least + u64::from(u)),
            _ => self.nodes[u as usize].clone(),
        }
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
            if let Ids::Span(..) = self.ids {
                return (0..self.len() as u32).collect();
            }
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
        if let Ids::Span(..) = self.ids {
            // Numbers in value order already.
            if found.len() * 16 >= self.len() {
                found.clear();
                found.extend((0..self.len() as u32).filter(|&u| is_found(u)));
            } else {
                found.sort_unstable();
            }
        } else if found.len() * 16 >= self.len() {
            found.clear();
            found.extend(
                self.by_value(symbols)
                    .iter()
                    .copied()
                    .filter(|&u| is_found(u)),
            );
        } else {
            found.sort_unstable_by(|&a, &b| {
                symbols.cmp(&self.nodes[a as usize], &self.nodes[b as usize])
            });
        }
    }

    /// Bytes held (what a cached graph costs).
    pub(crate) fn bytes(&self) -> usize {
        let ids = match &self.ids {
            Ids::Span(..) => 0,
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
        let order: Vec<Val> = ints
            .by_value(&symbols)
            .iter()
            .map(|&u| ints.node(u))
            .collect();
        assert_eq!(order, [Val::Int(-7), Val::Int(0), Val::Int(3)]);
        let mixed = Graph::of_vals(
            [
                (Val::Str("b".into()), Val::Int(2)),
                (Val::Float(1.5), Val::Str("a".into())),
            ]
            .into_iter(),
        );
        let order: Vec<Val> = mixed
            .by_value(&symbols)
            .iter()
            .map(|&u| mixed.node(u))
            .collect();
        let mut want: Vec<Val> = order.clone();
        want.sort_by(|a, b| symbols.cmp(a, b));
        assert_eq!(order, want);
    }

    #[test]
    fn sparse_bits_are_hashed_dense_symbols_tabled_and_dense_ints_spanned() {
        let sparse = Graph::of_bits(
            Kind::Int,
            [(1u64 << 40, 6u64), (6, 9), (1 << 40, 7)].into_iter(),
        );
        assert!(matches!(sparse.ids, Ids::Bits(..)));
        let tabled = Graph::of_bits(Kind::Sym, [(5u64, 6u64), (6, 9)].into_iter());
        assert!(matches!(tabled.ids, Ids::Dense(..)));
        let spanned = Graph::of_bits(Kind::Int, [(5u64, 6u64), (6, 9), (9, 7)].into_iter());
        assert!(matches!(spanned.ids, Ids::Span(..)));
        // A span numbers every value between its least and its most.
        assert_eq!((sparse.len(), tabled.len(), spanned.len()), (4, 3, 5));
        for g in [&sparse, &spanned] {
            assert_eq!(g.id(&Val::Int(2)), None);
            assert_eq!(g.id(&Val::Int(-1)), None);
            assert_eq!(g.id(&Val::Int(10)), None);
            assert_eq!(g.id(&Val::Int(7)).map(|u| g.node(u)), Some(Val::Int(7)));
            let six = g.id(&Val::Int(6)).expect("six");
            let to: Vec<Val> = g.targets(six).iter().map(|&t| g.node(t)).collect();
            assert_eq!(to, [Val::Int(9)]);
        }
        // A number in the span no edge touches is a node without edges.
        let eight = spanned.id(&Val::Int(8)).expect("in the span");
        assert!(spanned.targets(eight).is_empty());
    }

    #[test]
    fn a_span_orders_by_value_negative_ints_and_times_included() {
        let symbols = SymbolOrder::default();
        let negative = [(-3i64, -9i64), (-9, -4), (-3, -4)];
        let g = Graph::of_bits(
            Kind::Int,
            negative.iter().map(|&(a, b)| (a as u64, b as u64)),
        );
        assert!(matches!(g.ids, Ids::Span(..)));
        let order: Vec<Val> = g
            .by_value(&symbols)
            .iter()
            .map(|&u| g.node(u))
            .filter(|v| [-9, -4, -3].iter().any(|&i| *v == Val::Int(i)))
            .collect();
        assert_eq!(order, [Val::Int(-9), Val::Int(-4), Val::Int(-3)]);
        let mut found = vec![
            g.id(&Val::Int(-3)).expect("-3"),
            g.id(&Val::Int(-9)).expect("-9"),
        ];
        let is_found = |u: u32| [-3, -9].iter().any(|&i| g.node(u) == Val::Int(i));
        g.in_value_order(&mut found, is_found, &symbols);
        assert_eq!(
            found.iter().map(|&u| g.node(u)).collect::<Vec<_>>(),
            [Val::Int(-9), Val::Int(-3)]
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
            let mut to: Vec<Val> = g.targets(one).iter().map(|&t| g.node(t)).collect();
            to.sort();
            assert_eq!(to, [Val::Int(2), Val::Int(2), Val::Int(3)]);
            // As `=` does: the float 3.0 is the int 3.
            assert_eq!(g.id(&Val::Float(3.0)), g.id(&Val::Int(3)));
            assert_eq!(g.id(&Val::Int(9)), None);
            let order: Vec<Val> = g.by_value(&symbols).iter().map(|&u| g.node(u)).collect();
            assert_eq!(order, [Val::Int(1), Val::Int(2), Val::Int(3)]);
        }
    }
}
