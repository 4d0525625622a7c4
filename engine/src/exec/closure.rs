//! Closures and reaches by graph search: a stratum the planner marked
//! with a [`Closure`] (`query-lang/src/compile/closure.rs`) derives the
//! same set as its fixpoint, but by breadth-first search over the edges
//! instead of joining paths with edges round by round.
//!
//! - The whole closure numbers the nodes densely, lays the edges out as an
//!   adjacency array, and searches from every node with an edge: each
//!   pair is found once, appended without a set probe.
//! - One node's reach walks the edge relation's own index (a stored
//!   relation's grouped copy, kept between queries; a derived relation's
//!   hash index) from that node, marking what it has seen.
//!
//! Both read the edges as the query's instant sees them (as of, known at)
//! and count every derived tuple against the query's limits.

use chronolog_ql::plan::Closure;
use rustc_hash::{FxHashMap, FxHashSet};

use super::physical::{BoundRel, BoundRule, BoundStep};
use super::stored::coerce_key;
use super::*;
use crate::error::{Error, Result};
use crate::val::Val;

/// Tuples derived between two checks of the limits.
const CHECK_EVERY: usize = 4096;

impl Executor<'_> {
    /// Derives `relation` (the stratum's one relation) as `closure` says,
    /// reading the edges the way the stratum's base rule reads them.
    pub(super) fn search(
        &mut self,
        closure: &Closure,
        rules: &[BoundRule<'_>],
        relation: usize,
    ) -> Result<()> {
        let Some(BoundStep::Atom { rel: edges, .. }) =
            rules.get(closure.base).and_then(|r| r.steps.first())
        else {
            return Err(Error::Internal(
                "a closure whose base rule reads no edges".into(),
            ));
        };
        let edges = *edges;
        match &closure.from {
            None => self.close(edges, relation),
            Some(from) => {
                let from = self.eval(from, &[])?;
                self.reach(edges, relation, from, closure)
            }
        }
    }

    /// Every `(x, y)` with a path from `x` to `y` along `edges`.
    fn close(&mut self, edges: BoundRel, relation: usize) -> Result<()> {
        // Nodes numbered in order of appearance; the edges as an adjacency
        // array (`targets[offsets[u]..offsets[u + 1]]`).
        let pairs = self.edge_pairs(edges)?;
        let mut ids: FxHashMap<Val, u32> = FxHashMap::default();
        let mut nodes: Vec<Val> = Vec::new();
        let mut id = |v: Val| -> u32 {
            *ids.entry(v).or_insert_with_key(|v| {
                nodes.push(v.clone());
                (nodes.len() - 1) as u32
            })
        };
        let numbered: Vec<(u32, u32)> = pairs.into_iter().map(|(a, b)| (id(a), id(b))).collect();
        let n = nodes.len();
        let mut offsets = vec![0u32; n + 1];
        for &(a, _) in &numbered {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut targets = vec![0u32; numbered.len()];
        let mut fill = offsets.clone();
        for &(a, b) in &numbered {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        drop(numbered);
        // Sources, and each source's nodes, in the answer's order (by
        // value, symbols by name): the pairs come out sorted, and the
        // answer is not sorted again.
        let symbols = self.symbol_order();
        let mut by_value: Vec<u32> = (0..n as u32).collect();
        by_value.sort_unstable_by(|&a, &b| symbols.cmp(&nodes[a as usize], &nodes[b as usize]));
        let mut rank = vec![0u32; n];
        for (r, &node) in by_value.iter().enumerate() {
            rank[node as usize] = r as u32;
        }
        // `seen[v] == source + 1`: v was reached from this source.
        let mut seen = vec![0u32; n];
        let mut queue: Vec<u32> = Vec::new();
        let mut pending = 0usize;
        for &source in &by_value {
            let (start, end) = (offsets[source as usize], offsets[source as usize + 1]);
            if start == end {
                continue;
            }
            let mark = source + 1;
            queue.clear();
            // Paths of one edge or more: the source itself only if a cycle
            // leads back to it.
            for &t in &targets[start as usize..end as usize] {
                if seen[t as usize] != mark {
                    seen[t as usize] = mark;
                    queue.push(t);
                }
            }
            let mut at = 0;
            while at < queue.len() {
                let u = queue[at] as usize;
                at += 1;
                for &t in &targets[offsets[u] as usize..offsets[u + 1] as usize] {
                    if seen[t as usize] != mark {
                        seen[t as usize] = mark;
                        queue.push(t);
                    }
                }
            }
            // What was reached, in value order: picked from every node in
            // that order when it is most of them, else sorted.
            if queue.len() * 16 >= n {
                queue.clear();
                queue.extend(by_value.iter().filter(|&&v| seen[v as usize] == mark));
            } else {
                queue.sort_unstable_by_key(|&v| rank[v as usize]);
            }
            let out = &mut self.derived[relation];
            let x = &nodes[source as usize];
            for &y in &queue {
                out.push_distinct([x.clone(), nodes[y as usize].clone()]);
            }
            pending += queue.len();
            if pending >= CHECK_EVERY {
                self.counted(pending)?;
                pending = 0;
            }
        }
        self.counted(pending)
    }

    /// Every node a path along `edges` reaches from `from` (backwards,
    /// every node from which a path reaches it), beside `from` itself in
    /// the column `closure.pinned` names, if any.
    fn reach(
        &mut self,
        edges: BoundRel,
        relation: usize,
        from: Val,
        closure: &Closure,
    ) -> Result<()> {
        let (key_col, next_col) = if closure.backward { (1, 0) } else { (0, 1) };
        // The relation keeps the value as the rule's head writes it; the
        // search looks it up as the edges hold it.
        let given = from.clone();
        let Some(from) = self.edge_key(edges, key_col, from)? else {
            return Ok(());
        };
        let mut seen: FxHashSet<Val> = FxHashSet::default();
        let mut queue: Vec<Val> = Vec::new();
        let mut next: Vec<Val> = Vec::new();
        self.neighbours(edges, key_col, next_col, &from, &mut next)?;
        for v in next.drain(..) {
            if seen.insert(v.clone()) {
                queue.push(v);
            }
        }
        let mut at = 0;
        while at < queue.len() {
            let u = queue[at].clone();
            at += 1;
            self.neighbours(edges, key_col, next_col, &u, &mut next)?;
            for v in next.drain(..) {
                if !seen.contains(&v) {
                    seen.insert(v.clone());
                    queue.push(v);
                }
            }
            if at % CHECK_EVERY == 0 {
                self.tick(CHECK_EVERY)?;
            }
        }
        let found = queue.len();
        let out = &mut self.derived[relation];
        for v in queue {
            match closure.pinned {
                None => out.push_distinct([v]),
                Some(0) => out.push_distinct([given.clone(), v]),
                Some(_) => out.push_distinct([v, given.clone()]),
            }
        }
        self.counted(found)
    }

    /// The `next_col` values of the edges whose `key_col` is `node`, into
    /// `out`.
    fn neighbours(
        &mut self,
        edges: BoundRel,
        key_col: usize,
        next_col: usize,
        node: &Val,
        out: &mut Vec<Val>,
    ) -> Result<()> {
        match edges {
            BoundRel::Derived(r) => {
                let rel = &mut self.derived[r];
                let len = rel.len();
                for row in rel.positions(&[key_col], std::slice::from_ref(node), 0..len) {
                    out.push(rel.row(row)[next_col].clone());
                }
            }
            BoundRel::Stored(id) => {
                if self.stored[id].materialized.is_none() {
                    let rel = self.stored[id].rel;
                    let m = self.materialize(rel)?;
                    self.stored[id].materialized = Some(m);
                }
                let Some(m) = self.stored[id].materialized.as_mut() else {
                    return Ok(());
                };
                let run = m.relation.run(&[key_col], std::slice::from_ref(node));
                let column = &m.relation.columns(run.pattern)[next_col];
                out.extend(run.rows.map(|row| column.get(row)));
            }
        }
        Ok(())
    }

    /// `value` as the edges' column `col` holds it (a lookup agrees with
    /// `=`: `3.0` finds the int 3, a string the symbol of its name);
    /// `None` when no stored value can equal it.
    fn edge_key(&mut self, edges: BoundRel, col: usize, value: Val) -> Result<Option<Val>> {
        match edges {
            BoundRel::Derived(_) => Ok(Some(value)),
            BoundRel::Stored(id) => {
                let reads = &self.stored[id];
                let key = std::slice::from_ref(&value);
                Ok(coerce_key(self.snapshot.store(), &reads.types, &[col], key)
                    .and_then(|k| k.first().cloned()))
            }
        }
    }

    /// Every `(first, second)` tuple of a two-column relation, as the
    /// query's instant sees it.
    fn edge_pairs(&mut self, edges: BoundRel) -> Result<Vec<(Val, Val)>> {
        match edges {
            BoundRel::Derived(r) => {
                let rel = &self.derived[r];
                Ok((0..rel.len())
                    .map(|i| {
                        let row = rel.row(i);
                        (row[0].clone(), row[1].clone())
                    })
                    .collect())
            }
            BoundRel::Stored(id) => {
                let Source::Stored(id, run) = self.scan_stored(id, &[], &[])? else {
                    return Err(Error::Internal(
                        "a stored relation read whole was not materialized".into(),
                    ));
                };
                let Some(m) = &self.stored[id].materialized else {
                    return Ok(Vec::new());
                };
                let columns = m.relation.columns(run.pattern);
                Ok(run
                    .rows
                    .map(|row| (columns[0].get(row), columns[1].get(row)))
                    .collect())
            }
        }
    }

    /// Counts `n` tuples derived by a search against the query's limits.
    fn counted(&mut self, n: usize) -> Result<()> {
        self.derived_count += n as u64;
        self.tick(n)?;
        self.check_limits()
    }
}
