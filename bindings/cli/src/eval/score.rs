//! Scoring one question's retrieval against its evidence, and the sums
//! the tables are made of.

use std::collections::{BTreeMap, HashMap, HashSet};

use chronolog_engine::Timestamp;
use chronolog_memory::{Context, ItemKind};
use serde_json::{Value as Json, json};

use super::data::{Conversation, Qa, Turn, turn_line};
use super::{BUDGETS, KS};

/// Whether every evidence turn is in the context (as a message, or as the
/// source of a fact it shows).
pub(super) fn covers(
    context: &Context,
    evidence: &[String],
    dia_of: &HashMap<String, (String, String)>,
) -> bool {
    if evidence.is_empty() || context.abstain {
        return false;
    }
    let mut inside: HashSet<&str> = HashSet::new();
    for item in &context.items {
        let ids: Vec<&String> = match item.kind {
            ItemKind::Episode => vec![&item.id],
            ItemKind::Fact => item.sources.iter().collect(),
        };
        for id in ids {
            if let Some((dia, _)) = dia_of.get(id) {
                inside.insert(dia.as_str());
            }
        }
    }
    evidence.iter().all(|e| inside.contains(e.as_str()))
}

/// Whether the first turns of `ranked` that fit in `budget` tokens hold
/// all the evidence (for the baselines, which have no facts).
pub(super) fn prefix_covers(
    ranked: &[&(String, String)],
    evidence: &[String],
    budget: usize,
    conv: &Conversation,
) -> bool {
    if evidence.is_empty() {
        return false;
    }
    let by_dia: HashMap<&str, &Turn> = conv.turns.iter().map(|t| (t.dia_id.as_str(), t)).collect();
    let mut spent = chronolog_memory::MessageBudget::new();
    let mut inside = HashSet::new();
    for (dia, _) in ranked {
        let Some(turn) = by_dia.get(dia.as_str()) else {
            continue;
        };
        let at = turn.at.unwrap_or(Timestamp::MIN);
        let tokens = chronolog_memory::count_tokens(&turn_line(turn));
        if spent.used() + spent.cost(at, tokens) > budget {
            break;
        }
        spent.take(at, tokens);
        inside.insert(dia.as_str());
    }
    evidence.iter().all(|e| inside.contains(e.as_str()))
}

/// Sums of the per-question metrics, per category.
#[derive(Default)]
pub(super) struct Stats {
    by_category: BTreeMap<String, Sums>,
    unanswerable: Sums,
    micros: Vec<u64>,
}

#[derive(Default, Clone)]
struct Sums {
    questions: usize,
    with_evidence: usize,
    recall: [f64; 4],
    session_recall: [f64; 4],
    ndcg10: f64,
    covered: [usize; 4],
    abstained: usize,
    context_ratio: f64,
}

impl Stats {
    /// Adds one question; returns (recall@5, covered at 2,000) for its row.
    pub(super) fn add(
        &mut self,
        qa: &Qa,
        ranked: &[&(String, String)],
        covered: &[bool],
        answer: Option<&Context>,
        micros: u64,
        full_tokens: usize,
    ) -> (f64, bool) {
        if qa.unanswerable {
            self.unanswerable.questions += 1;
            if let Some(context) = answer {
                self.unanswerable.abstained += usize::from(context.abstain);
            }
        }
        let sums = self.by_category.entry(qa.category.clone()).or_default();
        sums.questions += 1;
        if let Some(context) = answer {
            sums.abstained += usize::from(context.abstain);
            sums.context_ratio += context.tokens as f64 / full_tokens.max(1) as f64;
        }
        if micros > 0 {
            self.micros.push(micros);
        }
        let evidence: HashSet<&str> = qa.evidence.iter().map(String::as_str).collect();
        if evidence.is_empty() {
            return (0.0, false);
        }
        sums.with_evidence += 1;
        let sessions: HashSet<String> = qa.evidence.iter().map(|e| session_of(e)).collect();
        let mut r5 = 0.0;
        for (i, k) in KS.iter().enumerate() {
            let top: HashSet<&str> = ranked.iter().take(*k).map(|(d, _)| d.as_str()).collect();
            let hit =
                evidence.iter().filter(|e| top.contains(*e)).count() as f64 / evidence.len() as f64;
            sums.recall[i] += hit;
            if *k == 5 {
                r5 = hit;
            }
            let top_sessions: HashSet<&str> =
                ranked.iter().take(*k).map(|(_, s)| s.as_str()).collect();
            sums.session_recall[i] += sessions
                .iter()
                .filter(|s| top_sessions.contains(s.as_str()))
                .count() as f64
                / sessions.len() as f64;
        }
        let dcg: f64 = ranked
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, (d, _))| evidence.contains(d.as_str()))
            .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
            .sum();
        let ideal: f64 = (0..evidence.len().min(10))
            .map(|i| 1.0 / ((i + 2) as f64).log2())
            .sum();
        sums.ndcg10 += dcg / ideal;
        for (i, c) in covered.iter().enumerate() {
            sums.covered[i] += usize::from(*c);
        }
        (r5, covered.get(2).copied().unwrap_or(false))
    }

    pub(super) fn summary(&self) -> Json {
        let mut answerable = Sums::default();
        for (cat, s) in &self.by_category {
            if !self.unanswerable_categories().contains(cat) {
                answerable.questions += s.questions;
                answerable.with_evidence += s.with_evidence;
                answerable.abstained += s.abstained;
                answerable.ndcg10 += s.ndcg10;
                answerable.context_ratio += s.context_ratio;
                for i in 0..4 {
                    answerable.recall[i] += s.recall[i];
                    answerable.session_recall[i] += s.session_recall[i];
                    answerable.covered[i] += s.covered[i];
                }
            }
        }
        let show = |s: &Sums| {
            let n = s.with_evidence.max(1) as f64;
            json!({
                "questions": s.questions,
                "recall": KS.iter().zip(s.recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "session_recall": KS.iter().zip(s.session_recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "ndcg@10": s.ndcg10 / n,
                "coverage": BUDGETS.iter().zip(s.covered).map(|(b, c)| (format!("{b}"), c as f64 / n)).collect::<BTreeMap<_, _>>(),
                "abstained": s.abstained as f64 / s.questions.max(1) as f64,
                "context_to_full": s.context_ratio / s.questions.max(1) as f64,
            })
        };
        let mut micros = self.micros.clone();
        json!({
            "answerable": show(&answerable),
            "by_category": self.by_category.iter().map(|(c, s)| (c.clone(), show(s))).collect::<BTreeMap<_, _>>(),
            "unanswerable_abstained": self.unanswerable.abstained as f64 / self.unanswerable.questions.max(1) as f64,
            "unanswerable_questions": self.unanswerable.questions,
            "search_p50_us": percentile(&mut micros, 0.5),
            "search_p95_us": percentile(&mut micros, 0.95),
        })
    }
}

impl Stats {
    /// Categories made only of unanswerable questions (LoCoMo's 5); a
    /// LongMemEval type mixes both, and its `_abs` questions are counted
    /// apart by `unanswerable`.
    fn unanswerable_categories(&self) -> Vec<String> {
        if self.by_category.contains_key("5") && self.unanswerable.questions > 0 {
            vec!["5".to_string()]
        } else {
            Vec::new()
        }
    }
}

/// The `p` quantile (0 to 1) of `values`, nearest rank; 0 when empty.
pub(super) fn percentile(values: &mut [u64], p: f64) -> u64 {
    values.sort_unstable();
    values
        .get(((values.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(0)
}

/// "D3:12" -> "D3".
fn session_of(dia_id: &str) -> String {
    dia_id.split(':').next().unwrap_or(dia_id).to_string()
}
