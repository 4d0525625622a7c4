//! Closures and reaches by graph search: a stratum the planner marked
//! with a [`Closure`] (`query-lang/src/compile/closure.rs`) derives the
//! same set as its fixpoint, but by breadth-first search over the edges
//! instead of joining paths with edges round by round.
//!
//! The edges are a [`Graph`]: values numbered densely, an adjacency array,
//! the nodes' order by value. A stored relation's graph is built once per
//! cached copy and reused by every later query at the same instant; a
//! derived relation's is built for the query. The whole closure searches
//! from every node with an edge, in value order; one node's reach searches
//! from that node. Either way each node is found once per source, its
//! tuples appended in the answer's order without a set probe (so the
//! answer is not sorted again), and counted against the query's limits.

use std::sync::Arc;

use chronolog_ql::plan::Closure;

use super::physical::{BoundRel, BoundRule, BoundStep};
use super::stored::coerce_key;
use super::*;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::val::Val;

/// Tuples derived between two checks of the limits.
const CHECK_EVERY: usize = 4096;

impl Executor<'_> {
    /// Derives `relation` (the stratum's one relation) as `closure` says,
    /// reading the edges the way the stratum's base rule reads them; with
    /// `enough`, only its first that many tuples in value order (a query
    /// whose answer is the relation cut to that many, in no other order).
    pub(super) fn search(
        &mut self,
        closure: &Closure,
        rules: &[BoundRule<'_>],
        relation: usize,
        enough: Option<usize>,
    ) -> Result<()> {
        let enough = enough.unwrap_or(usize::MAX);
        let Some(BoundStep::Atom { rel: edges, .. }) =
            rules.get(closure.base).and_then(|r| r.steps.first())
        else {
            return Err(Error::Internal(
                "a closure whose base rule reads no edges".into(),
            ));
        };
        let edges = *edges;
        match &closure.from {
            None => {
                let graph = self.graph(edges, false)?;
                let closed = self.close(&graph, relation, enough);
                self.walking = 0;
                closed
            }
            Some(from) => {
                let from = self.eval(from, &[])?;
                let reached = self.reach(edges, relation, from, closure, enough);
                self.walking = 0;
                reached
            }
        }
    }

    /// Every `(x, y)` with a path from `x` to `y` in `graph` (the first
    /// `enough` of them).
    fn close(&mut self, graph: &Graph, relation: usize, enough: usize) -> Result<()> {
        let n = graph.len();
        let symbols = self.symbol_order();
        if self.limits.threads > 1 && enough == usize::MAX {
            return self.close_on_threads(graph, relation, &symbols);
        }
        // `seen[v] == mark`: v was reached from the current source.
        let mut seen = vec![0u32; n];
        let mut found: Vec<u32> = Vec::new();
        let mut pending = 0usize;
        let mut derived = 0usize;
        for (mark, &source) in (1..).zip(graph.by_value(&symbols)) {
            if derived >= enough {
                break;
            }
            if graph.targets(source).is_empty() {
                continue;
            }
            search_from(graph, source, mark, &mut seen, &mut found);
            graph.in_value_order(&mut found, |u| seen[u as usize] == mark, &symbols);
            found.truncate(enough - derived);
            derived += found.len();
            let out = &mut self.derived[relation];
            let x = graph.node(source);
            for &y in &found {
                out.push_distinct([x.clone(), graph.node(y)]);
            }
            pending += found.len();
            if pending >= CHECK_EVERY {
                self.counted(pending)?;
                pending = 0;
            }
        }
        self.counted(pending)
    }

    /// [`Executor::close`] on `self.limits.threads` threads: the sources
    /// (in value order) cut into as many runs, each searched on its own
    /// thread into rows of its own, then appended in order. The threads
    /// watch the limits together (cancel, deadline, tuples, the memory
    /// budget) and stop at the first one passed.
    fn close_on_threads(
        &mut self,
        graph: &Graph,
        relation: usize,
        symbols: &crate::order::SymbolOrder,
    ) -> Result<()> {
        use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
        let n = graph.len();
        let sources: Vec<u32> = graph
            .by_value(symbols)
            .iter()
            .copied()
            .filter(|&s| !graph.targets(s).is_empty())
            .collect();
        let threads = self.limits.threads.min(sources.len()).max(1);
        let per_thread = sources.len().div_ceil(threads).max(1);
        let held = self.held_bytes();
        let tuples = AtomicU64::new(self.derived_count);
        let bytes = AtomicUsize::new(held);
        let stop = AtomicBool::new(false);
        let limits = self.limits;
        let tuple_bytes = 2 * std::mem::size_of::<Val>();
        // A run's rows, or the limit it stopped at.
        let search_run = |run: &[u32]| -> Result<Vec<Val>> {
            let mut seen = vec![0u32; n];
            let mut found = Vec::new();
            let mut cells: Vec<Val> = Vec::new();
            for (mark, &source) in (1..).zip(run) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let passed = || -> Option<Error> {
                    if limits
                        .cancel
                        .as_ref()
                        .is_some_and(|f| f.load(Ordering::Relaxed))
                    {
                        return Some(Error::Cancelled);
                    }
                    if limits
                        .deadline
                        .is_some_and(|d| std::time::Instant::now() >= d)
                    {
                        return Some(Error::LimitExceeded("the time limit".into()));
                    }
                    let derived = tuples.load(Ordering::Relaxed);
                    if let Some(max) = limits.max_derived
                        && derived > max
                    {
                        return Some(Error::LimitExceeded(format!(
                            "more than {max} derived tuples"
                        )));
                    }
                    None
                };
                if let Some(e) = passed() {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                if limits
                    .max_memory
                    .is_some_and(|budget| bytes.load(Ordering::Relaxed) > budget)
                {
                    // Said by the caller, which names the relation.
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                search_from(graph, source, mark, &mut seen, &mut found);
                graph.in_value_order(&mut found, |u| seen[u as usize] == mark, symbols);
                let before = cells.capacity();
                let x = graph.node(source);
                for &y in &found {
                    cells.push(x.clone());
                    cells.push(graph.node(y));
                }
                tuples.fetch_add(found.len() as u64, Ordering::Relaxed);
                let grown = (cells.capacity() - before) * (tuple_bytes / 2);
                bytes.fetch_add(grown, Ordering::Relaxed);
            }
            Ok(cells)
        };
        let runs: Vec<Result<Vec<Val>>> =
            std::thread::scope(|scope| {
                let mut chunks = sources.chunks(per_thread);
                let first = chunks.next().unwrap_or(&[]);
                let others: Vec<_> = chunks
                    .map(|run| scope.spawn(move || search_run(run)))
                    .collect();
                let mut runs = vec![search_run(first)];
                for handle in others {
                    runs.push(handle.join().unwrap_or_else(|_| {
                        Err(Error::Internal("a search thread panicked".into()))
                    }));
                }
                runs
            });
        let mut parts = Vec::with_capacity(runs.len());
        for run in runs {
            parts.push(run?);
        }
        let pending: usize = parts
            .iter()
            .map(|p| p.capacity() * std::mem::size_of::<Val>())
            .sum();
        self.check_memory_with(Some((relation, pending)))?;
        for part in parts {
            let found = part.len() / 2;
            self.derived[relation].append_distinct(part);
            self.counted(found)?;
        }
        Ok(())
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
        enough: usize,
    ) -> Result<()> {
        // The relation keeps the value as the rule's head writes it; the
        // search looks it up as the edges hold it.
        let given = from.clone();
        let key_col = usize::from(closure.backward);
        let Some(key) = self.edge_key(edges, key_col, from)? else {
            return Ok(());
        };
        let graph = self.graph(edges, closure.backward)?;
        let Some(source) = graph.id(&key) else {
            return Ok(());
        };
        let mut seen = vec![0u32; graph.len()];
        let mut found = Vec::new();
        search_from(&graph, source, 1, &mut seen, &mut found);
        let symbols = self.symbol_order();
        graph.in_value_order(&mut found, |u| seen[u as usize] == 1, &symbols);
        found.truncate(enough);
        let out = &mut self.derived[relation];
        for &v in &found {
            let v = graph.node(v);
            match closure.pinned {
                None => out.push_distinct([v]),
                Some(0) => out.push_distinct([given.clone(), v]),
                Some(_) => out.push_distinct([v, given.clone()]),
            }
        }
        self.counted(found.len())
    }

    /// The edges as a graph, forward or `backward`: a stored relation's
    /// kept with its cached copy, a derived relation's built now.
    fn graph(&mut self, edges: BoundRel, backward: bool) -> Result<Arc<Graph>> {
        let (from, to) = if backward { (1, 0) } else { (0, 1) };
        match edges {
            BoundRel::Derived(r) => {
                let rel = &self.derived[r];
                let pairs = (0..rel.len()).map(|i| {
                    let row = rel.row(i);
                    (row[from].clone(), row[to].clone())
                });
                let graph = Graph::of_vals(pairs);
                // Held only while the search walks it.
                self.walking = graph.bytes();
                self.check_memory()?;
                Ok(Arc::new(graph))
            }
            BoundRel::Stored(id) => {
                // Read whole (or found in the cache) as a join would.
                self.scan_stored(id, &[], &[])?;
                let graph = self.stored[id]
                    .materialized
                    .as_mut()
                    .and_then(|m| m.relation.graph(backward))
                    .ok_or_else(|| {
                        Error::Internal("a closure's edges are not a two-column relation".into())
                    })?;
                // Kept with the copy, so counted with it.
                self.check_memory()?;
                Ok(graph)
            }
        }
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

    /// Counts `n` tuples derived by a search against the query's limits.
    fn counted(&mut self, n: usize) -> Result<()> {
        self.derived_count += n as u64;
        self.tick(n)?;
        self.check_limits()
    }
}

/// Breadth-first search of `graph` from `source` along one edge or more:
/// every node reached is marked `seen[v] = mark` and listed in `found`
/// (`source` itself only if a cycle leads back to it).
fn search_from(graph: &Graph, source: u32, mark: u32, seen: &mut [u32], found: &mut Vec<u32>) {
    found.clear();
    for &t in graph.targets(source) {
        if seen[t as usize] != mark {
            seen[t as usize] = mark;
            found.push(t);
        }
    }
    let mut at = 0;
    while at < found.len() {
        let u = found[at];
        at += 1;
        for &t in graph.targets(u) {
            if seen[t as usize] != mark {
                seen[t as usize] = mark;
                found.push(t);
            }
        }
    }
}
