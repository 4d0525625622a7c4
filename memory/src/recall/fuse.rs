//! The channels' rankings fused by the engine's reciprocal-rank fusion
//! (`chronolog_engine::rrf`, the operator the language's `rrf` runs),
//! each channel weighted by the memory's tuning: mechanism in the engine,
//! policy (the weights, `rrf_k`) here.

use chronolog_engine::{Val, rrf};

use super::channels::Ranked;
use crate::tuning::Tuning;

/// An id's score is the sum over channels of `weight / (rrf_k + rank)`
/// (ranks from 1); best first, ties by id (ids are text here, so in
/// their names' order).
pub(super) fn fuse(rankings: &[Ranked], tuning: &Tuning) -> Vec<(String, f64)> {
    let lists: Vec<(f64, Vec<(Val, f64)>)> = rankings
        .iter()
        .map(|r| {
            let ids = r
                .items
                .iter()
                .map(|(id, score)| (Val::Str(id.as_str().into()), *score))
                .collect();
            (r.channel.weight(tuning), ids)
        })
        .collect();
    rrf(&lists, tuning.rrf_k)
        .into_iter()
        .filter_map(|(id, score)| match id {
            Val::Str(id) => Some((id.to_string(), score)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::Channel;

    #[test]
    fn fusion_weights_each_channel_and_breaks_ties_by_name() {
        let ranked = |channel, ids: &[&str]| Ranked {
            channel,
            items: ids.iter().map(|id| (id.to_string(), 0.0)).collect(),
        };
        let tuning = Tuning::default();
        let fused = fuse(
            &[
                ranked(Channel::EpisodeWords, &["t/e2", "t/e1"]),
                ranked(Channel::Graph, &["t/e1", "t/e3"]),
                ranked(Channel::Recency, &["t/e4", "t/e5"]),
                ranked(Channel::Salience, &["t/e5", "t/e4"]),
            ],
            &tuning,
        );
        let ids: Vec<&str> = fused.iter().map(|(id, _)| id.as_str()).collect();
        // e1 is second for words but first in the graph: it passes e2.
        assert_eq!(ids, ["t/e1", "t/e2", "t/e3", "t/e4", "t/e5"]);
        let words = tuning.weight_episode_words;
        assert_eq!(fused[1].1, words / (tuning.rrf_k + 1.0));
        // e4 and e5 tie (first in one tie-breaker channel, second in the
        // other): by name.
        assert_eq!(fused[3].1, fused[4].1);
    }
}
