//! Strongly connected components of the relation dependency graph, for
//! stratification.

/// Tarjan's strongly connected components, in reverse topological order of
/// the condensation: a component comes after every component it reads.
/// Iterative, with an explicit stack of (node, next edge): a chain of tens
/// of thousands of rules must not recurse that deep.
pub(crate) fn tarjan(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut index: Vec<Option<usize>> = vec![None; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root].is_some() {
            continue;
        }
        calls.push((root, 0));
        while let Some(&mut (v, ref mut k)) = calls.last_mut() {
            if *k == 0 && index[v].is_none() {
                index[v] = Some(next);
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*k) {
                *k += 1;
                match index[w] {
                    None => calls.push((w, 0)),
                    Some(iw) if on_stack[w] => low[v] = low[v].min(iw),
                    Some(_) => {}
                }
                continue;
            }
            // Every edge of `v` is done: pop it, and pass its low link up.
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if Some(low[v]) == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                scc.sort_unstable();
                out.push(scc);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_after_what_they_read() {
        // 0 -> 1 -> 2 -> 1, 3 alone; edges point from a reader to what it reads.
        let edges = vec![vec![1], vec![2], vec![1], vec![]];
        let sccs = tarjan(&edges);
        let pos = |v: usize| sccs.iter().position(|c| c.contains(&v)).expect("present");
        assert_eq!(sccs.iter().find(|c| c.contains(&1)).map(Vec::len), Some(2));
        assert!(pos(1) < pos(0), "a component comes after what it reads");
        assert_eq!(sccs.len(), 3);
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let sccs = tarjan(&edges);
        assert_eq!(sccs.len(), n);
        assert_eq!(sccs[0], vec![n - 1], "what is read comes first");
    }
}
