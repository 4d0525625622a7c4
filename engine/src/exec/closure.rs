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
                if graph.values_are_plain() {
                    self.plain.push(relation);
                }
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

    /// Every `(x, y)` with a path from `x` to `y` in `graph`, or the
    /// first `enough` of them.
    fn close(&mut self, graph: &Graph, relation: usize, enough: usize) -> Result<()> {
        if enough == usize::MAX && self.limits.threads > 1 {
            self.close_on_threads(graph, relation)
        } else {
            self.close_in_order(graph, relation, enough)
        }
    }

    /// The closure's first `enough` pairs on this thread, appended as each
    /// source's search finds them. (For the whole closure on one thread,
    /// faster than [`Executor::close_on_threads`]'s two passes: 224 against
    /// 237 ms for 2,000 nodes.)
    fn close_in_order(&mut self, graph: &Graph, relation: usize, enough: usize) -> Result<()> {
        let n = graph.len();
        let symbols = self.symbol_order();
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

    /// The whole closure on `self.limits.threads` threads, in two passes.
    /// The sources (in value order) are cut into as many runs, each
    /// searched on a thread of its own into node numbers (4 bytes a pair
    /// where its values take 32); then, the answer's size known, one
    /// buffer is made for it and each thread writes its run's values into
    /// its own part of it, taking the new pages' faults side by side. Rows
    /// of each thread's own cost a copy of all but the first run's after
    /// the search, on one thread (57 of 160 ms for the closure of 2,000
    /// nodes on two threads). The threads watch the limits together (cancel,
    /// deadline, tuples, and the memory budget, which counts each pair at
    /// its final size) and stop at the first one passed.
    fn close_on_threads(&mut self, graph: &Graph, relation: usize) -> Result<()> {
        use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
        let symbols = &self.symbol_order();
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
        // A run's reaches, or the limit it stopped at.
        let search_run = |run: &[u32]| -> Result<Reaches> {
            let mut seen = vec![0u32; n];
            let mut found = Vec::new();
            let mut reaches = Reaches::default();
            for (mark, &source) in (1..).zip(run) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if let Err(e) = limits
                    .check_interrupts()
                    .and_then(|()| limits.check_derived(tuples.load(Ordering::Relaxed)))
                {
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
                let before = reaches.bytes();
                reaches.counts.push(found.len() as u32);
                reaches.targets.extend_from_slice(&found);
                tuples.fetch_add(found.len() as u64, Ordering::Relaxed);
                let grown = reaches.bytes() - before + found.len() * tuple_bytes;
                bytes.fetch_add(grown, Ordering::Relaxed);
            }
            Ok(reaches)
        };
        let runs: Vec<&[u32]> = sources.chunks(per_thread).collect();
        let reaches = on_threads(runs.clone(), search_run)
            .into_iter()
            .collect::<Result<Vec<Reaches>>>()?;
        // What the threads counted: the reaches and the answer to come.
        self.check_memory_with(Some((relation, bytes.into_inner().saturating_sub(held))))?;
        let pairs: usize = reaches.iter().map(|r| r.targets.len()).sum();
        let cells = fill_on_threads(graph, &runs, &reaches, 2 * pairs)?;
        drop(reaches);
        self.derived[relation].append_distinct(cells);
        self.counted(pairs)
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

/// One run's reaches: for each source searched, in order, how many nodes
/// it reaches, and those nodes' numbers end to end in value order.
#[derive(Default)]
struct Reaches {
    counts: Vec<u32>,
    targets: Vec<u32>,
}

impl Reaches {
    fn bytes(&self) -> usize {
        (self.counts.capacity() + self.targets.capacity()) * std::mem::size_of::<u32>()
    }
}

/// `work` done for each item, the first on this thread and each other on
/// a thread of its own, the results in the items' order (a thread that
/// panicked answers an internal error).
fn on_threads<I: Send, T: Send>(
    items: Vec<I>,
    work: impl Fn(I) -> Result<T> + Sync,
) -> Vec<Result<T>> {
    let work = &work;
    std::thread::scope(|scope| {
        let mut items = items.into_iter();
        let Some(first) = items.next() else {
            return Vec::new();
        };
        let others: Vec<_> = items.map(|item| scope.spawn(move || work(item))).collect();
        let mut results = vec![work(first)];
        for handle in others {
            results.push(
                handle
                    .join()
                    .unwrap_or_else(|_| Err(Error::Internal("a closure's thread panicked".into()))),
            );
        }
        results
    })
}

/// The closure's rows, `cells` values end to end: each run's reaches
/// written by a thread of its own straight into its part of one buffer,
/// so no thread's rows are copied after it and the pages are first
/// touched on every thread at once.
#[allow(unsafe_code)]
fn fill_on_threads(
    graph: &Graph,
    runs: &[&[u32]],
    reaches: &[Reaches],
    cells: usize,
) -> Result<Vec<Val>> {
    use std::mem::MaybeUninit;
    let mut out: Vec<Val> = Vec::with_capacity(cells);
    let mut spare = &mut out.spare_capacity_mut()[..cells];
    let mut parts = Vec::with_capacity(runs.len());
    for (&run, reach) in runs.iter().zip(reaches) {
        let (part, rest) = std::mem::take(&mut spare).split_at_mut(2 * reach.targets.len());
        spare = rest;
        parts.push((run, reach, part));
    }
    // A part's values, written; how many.
    let fill = |(run, reach, cells): (&[u32], &Reaches, &mut [MaybeUninit<Val>])| {
        let mut cells = cells.chunks_exact_mut(2);
        let mut targets = reach.targets.iter();
        let mut written = 0;
        for (&source, &count) in run.iter().zip(&reach.counts) {
            let x = graph.node(source);
            for (&y, pair) in targets.by_ref().take(count as usize).zip(cells.by_ref()) {
                pair[0].write(x.clone());
                pair[1].write(graph.node(y));
                written += 2;
            }
        }
        Ok(written)
    };
    let written: usize = on_threads(parts, fill).into_iter().sum::<Result<usize>>()?;
    if written != cells {
        // Never: the parts are cut to the reaches. Values written are
        // leaked, not read.
        return Err(Error::Internal(format!(
            "a closure wrote {written} of its {cells} values"
        )));
    }
    // SAFETY: the first `cells` slots of `out`'s spare capacity were cut
    // into the parts; each part writes at most its own slots and `written`
    // counts the writes, so a sum equal to `cells` means every slot.
    unsafe { out.set_len(cells) };
    Ok(out)
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
