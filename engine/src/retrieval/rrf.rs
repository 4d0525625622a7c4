//! `rrf(A, B, ..., k = 60)`: reciprocal-rank fusion of full candidate
//! lists; an id's score is the sum over the inputs it appears in of
//! `weight / (k + rank)`.

use chronolog_ql::plan::RrfPlan;
use rustc_hash::FxHashMap;

use super::bound::BoundRanked;
use super::{At, Ranking, Retrieval};
use crate::error::Result;
use crate::order::SymbolOrder;
use crate::val::Val;

/// Runs each input (taking its values from `inputs`, in order) and fuses
/// them; tied ids in name order, as every ordering of symbols is.
pub(super) fn run(
    retrieval: &Retrieval,
    at: &At<'_>,
    plan: &RrfPlan,
    bound: &[BoundRanked<'_>],
    inputs: &mut std::vec::IntoIter<Val>,
) -> Result<Ranking> {
    let mut lists = Vec::with_capacity(plan.inputs.len());
    for ((w, _), input) in plan.inputs.iter().zip(bound) {
        lists.push((*w, retrieval.rank(input, at, inputs)?));
    }
    let mut fused = rrf(&lists, plan.k as f64);
    if fused.iter().any(|(id, _)| matches!(id, Val::Sym(_))) {
        let names = SymbolOrder::new(at.snapshot.store(), &[]);
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| names.cmp(&a.0, &b.0)));
    }
    Ok(fused)
}

/// Reciprocal-rank fusion: an id's score is the sum, over the lists it is
/// in, of `weight / (k + rank)` (ranks from 1). Best first; equal scores
/// in value order (symbols by id here, with no names at hand; the
/// language's `rrf` operator orders tied symbols by name).
pub fn rrf(lists: &[(f64, Ranking)], k: f64) -> Ranking {
    let mut scores: FxHashMap<Val, f64> = FxHashMap::default();
    for (weight, list) in lists {
        for (rank, (id, _)) in list.iter().enumerate() {
            *scores.entry(id.clone()).or_insert(0.0) += weight / (k + (rank + 1) as f64);
        }
    }
    let mut fused: Ranking = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_follows_the_formula_and_breaks_ties_by_id() {
        let list = |ids: &[u32]| ids.iter().map(|&i| (Val::Sym(i), 0.0)).collect::<Ranking>();
        let fused = rrf(&[(1.0, list(&[1, 2, 3])), (2.0, list(&[3, 4]))], 60.0);
        let score = |id: u32| fused.iter().find(|(v, _)| *v == Val::Sym(id)).map(|x| x.1);
        assert_eq!(score(1), Some(1.0 / 61.0));
        assert_eq!(score(2), Some(1.0 / 62.0));
        assert_eq!(score(3), Some(1.0 / 63.0 + 2.0 / 61.0));
        assert_eq!(score(4), Some(2.0 / 62.0));
        let order: Vec<Val> = fused.iter().map(|x| x.0.clone()).collect();
        assert_eq!(
            order,
            vec![Val::Sym(3), Val::Sym(4), Val::Sym(1), Val::Sym(2)]
        );
        // Equal scores: ascending ids.
        let tie = rrf(&[(1.0, list(&[9])), (1.0, list(&[5]))], 60.0);
        assert_eq!(tie[0].0, Val::Sym(5));
    }
}
