//! Sweeps (`--sweep rrf_k=5,10,20`): one tuning field at several values,
//! the others at the run's tuning, every question asked at each over one
//! consolidation, and the value fitted by cross-validation so the figure
//! a fitted constant earns is read on questions it was not fitted on:
//! leave one conversation out on LoCoMo, five folds of the questions on
//! LongMemEval (each question is its own haystack). The objective is the
//! headline: evidence coverage at 2,000 tokens over the answerable
//! questions, turn R@5 breaking ties, then the run's own value. Each
//! value's searches are also timed one at a time, as the run's are, so
//! what a value costs is read beside what it covers. Values run one
//! after another and timings drift with that order (about a tenth over
//! three values on LoCoMo): a smaller difference is not the value's.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Result;
use chronolog_memory::{Memory, Options, Tuning};
use serde_json::{Value as Json, json};

use super::score::percentile;
use super::{Asked, Asking, Config, Dataset, MAIN_BUDGET};

/// What one question scored at one value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Outcome {
    /// The fold the question is left out in.
    pub(crate) fold: usize,
    /// `(covered at 2,000, recall at 5)` for an answerable question with
    /// evidence.
    pub(crate) answerable: Option<(bool, f64)>,
    /// Whether the gold answer is in the context at 2,000 tokens, for an
    /// answerable question whose answer a context can spell.
    pub(crate) contained: Option<bool>,
    /// An evidence message spells that answer (`Asked::stated`).
    pub(crate) stated: bool,
    /// Whether the search abstained.
    pub(crate) abstained: bool,
    /// Whether the right answer was an abstention.
    pub(crate) unanswerable: bool,
}

/// The folds: a LoCoMo conversation each, or the LongMemEval questions
/// by their place modulo five.
pub(crate) fn fold_of(dataset: Dataset, conversation: usize) -> usize {
    match dataset {
        Dataset::Locomo => conversation,
        Dataset::LongMemEval => conversation % 5,
    }
}

/// One question's outcome from what its searches returned.
pub(crate) fn outcome(
    asked: &Asked,
    evidence: &[String],
    unanswerable: bool,
    dia_of: &HashMap<String, (String, String)>,
    fold: usize,
) -> Outcome {
    let answerable = (!unanswerable && !evidence.is_empty()).then(|| {
        let top: Vec<&str> = asked
            .main
            .ranked_episodes
            .iter()
            .filter_map(|id| dia_of.get(id))
            .take(5)
            .map(|(dia, _)| dia.as_str())
            .collect();
        let found = evidence
            .iter()
            .filter(|e| top.contains(&e.as_str()))
            .count();
        (
            asked.covered[MAIN_BUDGET],
            found as f64 / evidence.len() as f64,
        )
    });
    let contained = asked
        .contained
        .as_ref()
        .filter(|_| !unanswerable)
        .map(|c| c[MAIN_BUDGET]);
    Outcome {
        fold,
        answerable,
        contained,
        stated: asked.stated,
        abstained: asked.main.abstain,
        unanswerable,
    }
}

/// Coverage and R@5 over the answerable questions `keep` admits.
fn objective(outcomes: &[Outcome], keep: impl Fn(&Outcome) -> bool) -> (f64, f64) {
    let (mut n, mut covered, mut recall) = (0usize, 0usize, 0.0);
    for o in outcomes.iter().filter(|o| keep(o)) {
        if let Some((c, r)) = o.answerable {
            n += 1;
            covered += usize::from(c);
            recall += r;
        }
    }
    let n = n.max(1) as f64;
    (covered as f64 / n, recall / n)
}

/// The best value's index on the questions `keep` admits; ties go to the
/// run's own value (`current`; the first value when the run's is not
/// among them), then to the earlier value.
fn best(
    per_value: &[Vec<Outcome>],
    current: usize,
    keep: impl Fn(&Outcome) -> bool + Copy,
) -> usize {
    let scores: Vec<(f64, f64)> = per_value.iter().map(|o| objective(o, keep)).collect();
    let mut best = current;
    for (i, &(c, r)) in scores.iter().enumerate() {
        let (bc, br) = scores[best];
        if c > bc + 1e-12 || ((c - bc).abs() <= 1e-12 && r > br + 1e-12) {
            best = i;
        }
    }
    best
}

/// Sweeps `field` over `values`: each value's figures, the value fitted on
/// every question, and the left-out figure of the fold-by-fold fit.
pub(crate) fn sweep(
    memory: &Memory,
    asking: &Asking<'_>,
    folds: &[usize],
    tuning: &Tuning,
    field: &str,
    values: &[String],
) -> Result<Json> {
    let hybrid = Config {
        name: "hybrid",
        channels: chronolog_memory::Channel::ALL.to_vec(),
        abstain: true,
    };
    let mut per_value: Vec<Vec<Outcome>> = Vec::new();
    // Each value's search latency: (p50, p95) in microseconds.
    let mut latency: Vec<(u64, u64)> = Vec::new();
    let mut current = 0;
    for (i, value) in values.iter().enumerate() {
        let mut at = tuning.clone();
        at.set(field, value)?;
        if at == *tuning {
            current = i;
        }
        // A memory over the same engine reads the consolidated store with
        // this tuning; nothing is consolidated again.
        let reader = Memory::with_engine(
            memory.engine().clone(),
            Options {
                tuning: at.clone(),
                ..Options::manual()
            },
        )?;
        let asked = asking.ask_all(&reader, &hybrid, &at)?;
        let mut micros = Vec::with_capacity(asking.questions.len());
        for (conv, qa) in asking.questions {
            let options = asking.options(&hybrid, &at, conv, qa);
            let t = Instant::now();
            reader.search(&conv.id, &qa.question, &options)?;
            micros.push(t.elapsed().as_micros() as u64);
        }
        latency.push((percentile(&mut micros, 0.5), percentile(&mut micros, 0.95)));
        per_value.push(
            asking
                .questions
                .iter()
                .zip(&asked)
                .zip(folds)
                .map(|(((_, qa), a), &fold)| {
                    outcome(a, &qa.evidence, qa.unanswerable, asking.dia_of, fold)
                })
                .collect(),
        );
        eprintln!("swept {field}={value}");
    }
    let fold_count = folds.iter().max().map_or(0, |m| m + 1);
    let all = |_: &Outcome| true;
    let fitted = best(&per_value, current, all);
    // Each fold's questions scored at the value the other folds chose.
    let mut chosen = Vec::new();
    let (mut left_n, mut left_covered, mut left_recall) = (0usize, 0usize, 0.0);
    for fold in 0..fold_count {
        let pick = best(&per_value, current, |o: &Outcome| o.fold != fold);
        chosen.push(values[pick].clone());
        for o in per_value[pick].iter().filter(|o| o.fold == fold) {
            if let Some((c, r)) = o.answerable {
                left_n += 1;
                left_covered += usize::from(c);
                left_recall += r;
            }
        }
    }
    let rows: Vec<Json> = values
        .iter()
        .zip(&per_value)
        .zip(&latency)
        .map(|((value, outcomes), (p50, p95))| {
            let (covered, recall) = objective(outcomes, all);
            let unanswerable = outcomes.iter().filter(|o| o.unanswerable).count();
            let abstained = outcomes
                .iter()
                .filter(|o| o.unanswerable && o.abstained)
                .count();
            let answerable = outcomes.iter().filter(|o| !o.unanswerable).count();
            let wrongly = outcomes
                .iter()
                .filter(|o| !o.unanswerable && o.abstained)
                .count();
            let spelled: Vec<bool> = outcomes.iter().filter_map(|o| o.contained).collect();
            let contained =
                spelled.iter().filter(|c| **c).count() as f64 / spelled.len().max(1) as f64;
            let stated: Vec<bool> = outcomes
                .iter()
                .filter(|o| o.stated)
                .filter_map(|o| o.contained)
                .collect();
            let stated_contained =
                stated.iter().filter(|c| **c).count() as f64 / stated.len().max(1) as f64;
            json!({
                "value": value,
                "covered_at_2000": covered,
                "answer_in_context_at_2000": contained,
                "stated_answer_in_context_at_2000": stated_contained,
                "recall_at_5": recall,
                "abstained_unanswerable": abstained as f64 / unanswerable.max(1) as f64,
                "abstained_answerable": wrongly as f64 / answerable.max(1) as f64,
                "search_p50_ms": *p50 as f64 / 1000.0,
                "search_p95_ms": *p95 as f64 / 1000.0,
            })
        })
        .collect();
    let n = left_n.max(1) as f64;
    let (fitted_covered, fitted_recall) = objective(&per_value[fitted], all);
    Ok(json!({
        "field": field,
        "current": values[current],
        "values": rows,
        "fitted": values[fitted],
        "fitted_covered_at_2000": fitted_covered,
        "fitted_recall_at_5": fitted_recall,
        "folds": fold_count,
        "chosen_per_fold": chosen,
        "left_out_covered_at_2000": left_covered as f64 / n,
        "left_out_recall_at_5": left_recall / n,
    }))
}

/// The sweeps as markdown: a table per field, then its fit.
pub(crate) fn print(dataset: Dataset, sweeps: &[Json]) {
    let how = match dataset {
        Dataset::Locomo => "leave one conversation out",
        Dataset::LongMemEval => "five folds of the questions",
    };
    for s in sweeps {
        println!(
            "\n{} (the run's value {}):\n",
            s["field"].as_str().unwrap_or("?"),
            s["current"]
        );
        println!(
            "| value | cov@2000 | R@5 | answer in context @2000 | stated answer in context @2000 | abstained unanswerable / answerable | search p50 / p95 ms |"
        );
        println!("|---|---|---|---|---|---|---|");
        for row in s["values"].as_array().into_iter().flatten() {
            println!(
                "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} / {:.3} | {:.1} / {:.1} |",
                row["value"].as_str().unwrap_or("?"),
                row["covered_at_2000"].as_f64().unwrap_or(0.0),
                row["recall_at_5"].as_f64().unwrap_or(0.0),
                row["answer_in_context_at_2000"].as_f64().unwrap_or(0.0),
                row["stated_answer_in_context_at_2000"]
                    .as_f64()
                    .unwrap_or(0.0),
                row["abstained_unanswerable"].as_f64().unwrap_or(0.0),
                row["abstained_answerable"].as_f64().unwrap_or(0.0),
                row["search_p50_ms"].as_f64().unwrap_or(0.0),
                row["search_p95_ms"].as_f64().unwrap_or(0.0),
            );
        }
        println!(
            "\nfitted on every question: {} (cov@2000 {:.3}, R@5 {:.3}); {how}: chosen {} per fold, left-out cov@2000 {:.3}, R@5 {:.3}",
            s["fitted"],
            s["fitted_covered_at_2000"].as_f64().unwrap_or(0.0),
            s["fitted_recall_at_5"].as_f64().unwrap_or(0.0),
            s["chosen_per_fold"],
            s["left_out_covered_at_2000"].as_f64().unwrap_or(0.0),
            s["left_out_recall_at_5"].as_f64().unwrap_or(0.0),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(fold: usize, covered: bool) -> Outcome {
        Outcome {
            fold,
            answerable: Some((covered, if covered { 1.0 } else { 0.0 })),
            contained: None,
            stated: false,
            abstained: false,
            unanswerable: false,
        }
    }

    #[test]
    fn a_value_that_wins_only_on_one_fold_is_not_chosen_for_the_others() {
        // Value 0 covers one question each of folds 1 and 2, value 1 the
        // two of fold 0: on every question a tie (2 of 4, the same R@5),
        // which goes to the run's own value.
        let a = vec![
            question(0, false),
            question(0, false),
            question(1, true),
            question(2, true),
        ];
        let b = vec![
            question(0, true),
            question(0, true),
            question(1, false),
            question(2, false),
        ];
        let per_value = vec![a, b];
        assert_eq!(best(&per_value, 0, |_| true), 0);
        assert_eq!(best(&per_value, 1, |_| true), 1);
        // Fold 0 left out, folds 1 and 2 choose value 0, which covers
        // none of fold 0; fold 1 left out, folds 0 and 2 choose value 1.
        assert_eq!(best(&per_value, 0, |o| o.fold != 0), 0);
        assert_eq!(best(&per_value, 0, |o| o.fold != 1), 1);
        assert_eq!(objective(&per_value[0], |o| o.fold == 0), (0.0, 0.0));
    }

    #[test]
    fn folds_are_conversations_or_five_slices_of_questions() {
        assert_eq!(fold_of(Dataset::Locomo, 3), 3);
        assert_eq!(fold_of(Dataset::LongMemEval, 7), 2);
    }
}
