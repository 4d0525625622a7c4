//! The graph workloads as the peers that are not databases write them:
//! ascent (Datalog compiled by a Rust macro into nested loops over
//! hash-indexed vectors, sequential here) and a hand-written search over
//! a CSR adjacency array, the floor no general engine reaches. Each
//! returns its answer's size, so a report can check all engines agree.

#![allow(missing_docs)] // ascent! generates public items without docs.

use ascent::ascent;

ascent! {
    /// `t(X, Y) :- e(X, Y). t(X, Y) :- t(X, Z), e(Z, Y).`
    pub struct Closure;
    relation e(i64, i64);
    relation t(i64, i64);
    t(x, y) <-- e(x, y);
    t(x, y) <-- t(x, z), e(z, y);
}

ascent! {
    /// `reach(Y) :- e(S, Y). reach(Y) :- reach(X), e(X, Y).` from one start.
    pub struct Reach;
    relation start(i64);
    relation e(i64, i64);
    relation reach(i64);
    reach(y) <-- start(s), e(s, y);
    reach(y) <-- reach(x), e(x, y);
}

ascent! {
    /// `sg(X, Y) :- e(P, X), e(P, Y), X != Y.
    /// sg(X, Y) :- e(A, X), sg(A, B), e(B, Y).`
    pub struct SameGeneration;
    relation e(i64, i64);
    relation sg(i64, i64);
    sg(x, y) <-- e(p, x), e(p, y), if x != y;
    sg(x, y) <-- e(a, x), sg(a, b), e(b, y);
}

ascent! {
    /// `tri(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X).`
    pub struct Triangles;
    relation e(i64, i64);
    relation tri(i64, i64, i64);
    tri(x, y, z) <-- e(x, y), e(y, z), e(z, x);
}

ascent! {
    /// The nodes `start` does not reach: `reach` as [`Reach`], then
    /// `unreached(Y) :- node(Y), not reach(Y).` (stratified).
    pub struct Unreached;
    relation start(i64);
    relation e(i64, i64);
    relation node(i64);
    relation reach(i64);
    relation unreached(i64);
    node(x) <-- e(x, _);
    node(y) <-- e(_, y);
    reach(y) <-- start(s), e(s, y);
    reach(y) <-- reach(x), e(x, y);
    unreached(y) <-- node(y), !reach(y);
}

/// The pairs of the same generation over `edges`, by ascent.
pub fn ascent_same_generation(edges: &[(i64, i64)]) -> usize {
    let mut program = SameGeneration {
        e: edges.to_vec(),
        ..Default::default()
    };
    program.run();
    program.sg.len()
}

/// The nodes of the same generation as `node`, by ascent: the whole
/// relation, then its rows from `node` (ascent has no demand-driven
/// evaluation; this is what a query binding an argument costs it).
pub fn ascent_same_generation_of(edges: &[(i64, i64)], node: i64) -> usize {
    let mut program = SameGeneration {
        e: edges.to_vec(),
        ..Default::default()
    };
    program.run();
    program.sg.iter().filter(|(x, _)| *x == node).count()
}

/// The directed triangles of `edges` (each once per rotation), by ascent.
pub fn ascent_triangles(edges: &[(i64, i64)]) -> usize {
    let mut program = Triangles {
        e: edges.to_vec(),
        ..Default::default()
    };
    program.run();
    program.tri.len()
}

/// The nodes of `edges` that `start` does not reach, by ascent.
pub fn ascent_unreached(edges: &[(i64, i64)], start: i64) -> usize {
    let mut program = Unreached {
        e: edges.to_vec(),
        start: vec![(start,)],
        ..Default::default()
    };
    program.run();
    program.unreached.len()
}

/// The pairs of the transitive closure of `edges`, by ascent.
pub fn ascent_closure(edges: &[(i64, i64)]) -> usize {
    let mut program = Closure {
        e: edges.to_vec(),
        ..Default::default()
    };
    program.run();
    program.t.len()
}

/// The nodes reachable from `start` over `edges`, by ascent.
pub fn ascent_reach(edges: &[(i64, i64)], start: i64) -> usize {
    let mut program = Reach {
        e: edges.to_vec(),
        start: vec![(start,)],
        ..Default::default()
    };
    program.run();
    program.reach.len()
}

/// A graph as compressed sparse rows: the successors of `n` are
/// `targets[offsets[n]..offsets[n + 1]]`, duplicates kept.
pub struct Csr {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Csr {
    /// The CSR of `edges` over nodes `0..nodes`.
    pub fn new(nodes: usize, edges: &[(i64, i64)]) -> Csr {
        let mut offsets = vec![0usize; nodes + 1];
        for &(a, _) in edges {
            offsets[a as usize + 1] += 1;
        }
        for n in 0..nodes {
            offsets[n + 1] += offsets[n];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(a, b) in edges {
            targets[next[a as usize]] = b as u32;
            next[a as usize] += 1;
        }
        Csr { offsets, targets }
    }

    /// How many nodes a path of one edge or more reaches from `start`
    /// (breadth first; `seen` is scratch, cleared here).
    pub fn reach(&self, start: usize, seen: &mut Vec<bool>, queue: &mut Vec<u32>) -> usize {
        seen.clear();
        seen.resize(self.offsets.len() - 1, false);
        queue.clear();
        let mut reached = 0;
        let mut push_successors = |n: usize, queue: &mut Vec<u32>, seen: &mut Vec<bool>| {
            for &m in &self.targets[self.offsets[n]..self.offsets[n + 1]] {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    reached += 1;
                    queue.push(m);
                }
            }
        };
        push_successors(start, queue, seen);
        let mut at = 0;
        while at < queue.len() {
            let n = queue[at] as usize;
            at += 1;
            push_successors(n, queue, seen);
        }
        reached
    }

    /// The pairs of the transitive closure: a search from every node.
    pub fn closure(&self) -> usize {
        let (mut seen, mut queue) = (Vec::new(), Vec::new());
        (0..self.offsets.len() - 1)
            .map(|n| self.reach(n, &mut seen, &mut queue))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_peer_agrees_on_a_small_graph() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 4 hangs off it; 5 is alone.
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 2)];
        let csr = Csr::new(6, &edges);
        // 0, 1, 2 each reach 0..=4 (5 nodes); 3 reaches 4; 4 and 5 none.
        assert_eq!(csr.closure(), 16);
        assert_eq!(ascent_closure(&edges), 16);
        let (mut seen, mut queue) = (Vec::new(), Vec::new());
        assert_eq!(csr.reach(3, &mut seen, &mut queue), 1);
        assert_eq!(ascent_reach(&edges, 0), 5);
        assert_eq!(csr.reach(0, &mut seen, &mut queue), 5);
        // 0, 1, 2 form one triangle, found from each of its three nodes.
        assert_eq!(ascent_triangles(&edges), 3);
        // From 3, only 4 is reached: 0, 1, 2 and 3 are not (5 has no edge).
        assert_eq!(ascent_unreached(&edges, 3), 4);
        // 2 alone has two children (0 and 3): (0, 3), (3, 0), and their
        // children's (1, 4), (4, 1).
        assert_eq!(ascent_same_generation(&edges), 4);
    }
}
