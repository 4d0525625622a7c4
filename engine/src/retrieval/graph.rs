//! `hops(start, n)`: the nodes within `n` links of `start`, breadth first
//! with roaring bitmaps as the visited set and the frontiers.
//!
//! A linking relation's first two columns are symbols (`knows(a, b)`,
//! `mentions(episode, entity)`); links are walked both ways, so an episode
//! reaches the entities it mentions and, one hop further, the other
//! episodes that mention them. The rows live at the query's instant become
//! a compressed adjacency list (CSR over symbol ids), kept between queries
//! while the same rows are live, as materialized relations are.

use std::sync::Arc;

use parking_lot::Mutex;

use chronolog_storage::{RelationId, Snapshot, Timestamp, ValueRef};
use roaring::RoaringBitmap;

use crate::error::Result;

/// Undirected adjacency over symbol ids: node `n`'s neighbours are
/// `targets[offsets[n]..offsets[n + 1]]`.
#[derive(Debug, Default)]
pub(crate) struct Adjacency {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Adjacency {
    /// From directed links, each stored both ways.
    pub(crate) fn build(links: &[(u32, u32)]) -> Adjacency {
        let nodes = links
            .iter()
            .map(|&(a, b)| a.max(b) as usize + 1)
            .max()
            .unwrap_or(0);
        let mut offsets = vec![0u32; nodes + 1];
        for &(a, b) in links {
            offsets[a as usize + 1] += 1;
            offsets[b as usize + 1] += 1;
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; links.len() * 2];
        for &(a, b) in links {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
            targets[fill[b as usize] as usize] = a;
            fill[b as usize] += 1;
        }
        Adjacency { offsets, targets }
    }

    #[inline]
    fn neighbors(&self, node: u32) -> &[u32] {
        let n = node as usize;
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&lo), Some(&hi)) => &self.targets[lo as usize..hi as usize],
            _ => &[],
        }
    }

    fn heap_bytes(&self) -> usize {
        (self.offsets.capacity() + self.targets.capacity()) * 4
    }
}

/// `(node, distance)` for every node within `depth` links of `start`
/// (itself excluded), by distance, then by node id.
pub(crate) fn walk(graphs: &[Arc<Adjacency>], start: u32, depth: u32) -> Vec<(u32, u32)> {
    let mut visited = RoaringBitmap::new();
    visited.insert(start);
    let mut frontier = RoaringBitmap::new();
    frontier.insert(start);
    let mut out = Vec::new();
    for distance in 1..=depth {
        let mut next = RoaringBitmap::new();
        for node in &frontier {
            for g in graphs {
                for &n in g.neighbors(node) {
                    if !visited.contains(n) {
                        next.insert(n);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        visited |= &next;
        out.extend(next.iter().map(|n| (n, distance)));
        frontier = next;
    }
    out
}

/// Adjacency lists built by earlier queries, by (relation, live rows),
/// shared by every session of an engine. A graph is built outside the lock,
/// so two sessions asking for the same new graph at once may both build it;
/// one copy is kept.
#[derive(Default)]
pub(crate) struct GraphCache {
    entries: Mutex<Vec<CachedGraph>>,
}

/// A graph and the (relation, live rows) it was built from.
type CachedGraph = (RelationId, Arc<RoaringBitmap>, Arc<Adjacency>);

/// Adjacency bytes kept between queries at most.
const MAX_CACHED_BYTES: usize = 256 << 20;

impl GraphCache {
    /// The adjacency of `rel` at (`valid`, `known`), built if not cached.
    pub(crate) fn adjacency(
        &self,
        snapshot: &Snapshot,
        rel: RelationId,
        valid: Timestamp,
        known: Timestamp,
    ) -> Result<Arc<Adjacency>> {
        let scan = snapshot.scan(rel).as_of(valid).known_at(known);
        let live = scan.live_rows()?;
        {
            let mut entries = self.entries.lock();
            if let Some(at) = entries
                .iter()
                .position(|(r, l, _)| *r == rel && (Arc::ptr_eq(l, &live) || **l == *live))
            {
                let entry = entries.remove(at);
                let graph = entry.2.clone();
                entries.push(entry);
                return Ok(graph);
            }
        }
        let mut links = Vec::with_capacity(live.len() as usize);
        scan.for_each(|row| {
            if let (ValueRef::Sym(a), ValueRef::Sym(b)) = (row.value(0), row.value(1)) {
                links.push((a.0, b.0));
            }
        })?;
        let graph = Arc::new(Adjacency::build(&links));
        let mut entries = self.entries.lock();
        entries.retain(|(r, _, _)| *r != rel);
        entries.push((rel, live, graph.clone()));
        let mut total: usize = entries.iter().map(|e| e.2.heap_bytes()).sum();
        while total > MAX_CACHED_BYTES && entries.len() > 1 {
            total -= entries.remove(0).2.heap_bytes();
        }
        Ok(graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_both_ways_by_distance_then_id() {
        // 0 - 1 - 2 - 3, and 4 - 1
        let g = Arc::new(Adjacency::build(&[(0, 1), (1, 2), (2, 3), (4, 1)]));
        assert_eq!(walk(std::slice::from_ref(&g), 0, 1), vec![(1, 1)]);
        assert_eq!(
            walk(std::slice::from_ref(&g), 0, 2),
            vec![(1, 1), (2, 2), (4, 2)]
        );
        assert_eq!(
            walk(std::slice::from_ref(&g), 3, 9),
            vec![(2, 1), (1, 2), (0, 3), (4, 3)]
        );
        assert!(
            walk(&[g], 99, 3).is_empty(),
            "an unknown node reaches nothing"
        );
    }

    #[test]
    fn several_relations_link_together() {
        let a = Arc::new(Adjacency::build(&[(0, 1)]));
        let b = Arc::new(Adjacency::build(&[(1, 2)]));
        assert_eq!(walk(&[a, b], 0, 2), vec![(1, 1), (2, 2)]);
    }
}
