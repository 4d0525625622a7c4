//! Strongly connected components of the relation dependency graph, for
//! stratification.

use crate::span::Span;

/// Tarjan's strongly connected components, in reverse topological order of
/// the condensation: a component comes after every component it reads.
pub(crate) fn tarjan(edges: &[Vec<(usize, bool, Span)>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [Vec<(usize, bool, Span)>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.edges[v].len() {
            let w = s.edges[v][k].0;
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            scc.sort_unstable();
            s.out.push(scc);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_after_what_they_read() {
        let s = Span::default();
        // 0 -> 1 -> 2 -> 1, 3 alone; edges point from a reader to what it reads.
        let edges = vec![
            vec![(1, false, s)],
            vec![(2, false, s)],
            vec![(1, false, s)],
            vec![],
        ];
        let sccs = tarjan(&edges);
        let pos = |v: usize| sccs.iter().position(|c| c.contains(&v)).expect("present");
        assert_eq!(sccs.iter().find(|c| c.contains(&1)).map(Vec::len), Some(2));
        assert!(pos(1) < pos(0), "a component comes after what it reads");
        assert_eq!(sccs.len(), 3);
    }
}
