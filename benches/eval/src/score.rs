//! Scoring one question's retrieval against its evidence, and the sums
//! the tables are made of.

use std::collections::{BTreeMap, HashMap, HashSet};

use chronolog_engine::Timestamp;
use chronolog_memory::{Context, ItemKind};
use serde_json::{Value as Json, json};

use super::data::{Conversation, Qa, Turn, session_of, turn_line};
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
    /// Of those, the ones whose right output is an abstention.
    unanswerable: usize,
    with_evidence: usize,
    recall: [f64; 4],
    /// Questions whose every evidence turn is in the top k.
    recall_all: [f64; 4],
    session_recall: [f64; 4],
    /// Questions with answer sessions (not abstentions).
    with_sessions: usize,
    /// Questions with an answer session among the first k sessions
    /// ranked (LongMemEval's recall_any@k), at each of [`SESSION_KS`].
    session_any: [usize; 2],
    ndcg10: f64,
    covered: [usize; 4],
    /// Questions whose answer is a short span ([`answer_forms`]).
    extractive: usize,
    /// Of those, the ones whose context holds the answer, at each budget.
    contained: [usize; 4],
    /// Questions whose short answer an evidence message spells.
    stated: usize,
    /// Of those, the ones whose context holds the answer, at each budget.
    stated_contained: [usize; 4],
    abstained: usize,
    context_ratio: f64,
}

/// The ks session recall_any is measured at.
const SESSION_KS: [usize; 2] = [5, 10];

/// One question's retrieval, as the sums need it.
pub(super) struct Scored<'a> {
    /// Turns ranked, as (dia id, session id).
    pub(super) ranked: &'a [&'a (String, String)],
    /// Whether the context covers the evidence, at each of [`BUDGETS`].
    pub(super) covered: &'a [bool],
    /// Whether the context holds the answer, at each of [`BUDGETS`]; `None`
    /// for an answer that is not a short span, or a baseline.
    pub(super) contained: Option<&'a [bool]>,
    /// An evidence message spells the answer.
    pub(super) stated: bool,
    /// The context at 2,000 tokens (a baseline has none).
    pub(super) context: Option<&'a Context>,
    /// The search took this long (0: not timed).
    pub(super) micros: u64,
    /// The whole history, rendered, in tokens.
    pub(super) full_tokens: usize,
}

impl Stats {
    /// Adds one question; returns (recall@5, covered at 2,000) for its row.
    pub(super) fn add(&mut self, qa: &Qa, scored: &Scored) -> (f64, bool) {
        let Scored {
            ranked,
            covered,
            contained,
            stated,
            context: answer,
            micros,
            full_tokens,
        } = *scored;
        if qa.unanswerable {
            self.unanswerable.questions += 1;
            if let Some(context) = answer {
                self.unanswerable.abstained += usize::from(context.abstain);
            }
        }
        let sums = self.by_category.entry(qa.category.clone()).or_default();
        sums.questions += 1;
        sums.unanswerable += usize::from(qa.unanswerable);
        if let Some(context) = answer {
            sums.abstained += usize::from(context.abstain);
            sums.context_ratio += context.tokens as f64 / full_tokens.max(1) as f64;
        }
        if micros > 0 {
            self.micros.push(micros);
        }
        // An unanswerable question's "answer" is what it falsely presumes.
        if let (Some(contained), false) = (contained, qa.unanswerable) {
            sums.extractive += 1;
            sums.stated += usize::from(stated);
            for (i, c) in contained.iter().enumerate() {
                sums.contained[i] += usize::from(*c);
                sums.stated_contained[i] += usize::from(*c && stated);
            }
        }
        if !qa.unanswerable && !qa.answer_sessions.is_empty() {
            sums.with_sessions += 1;
            let mut sessions: Vec<&str> = Vec::new();
            for (_, session) in ranked {
                if !sessions.contains(&session.as_str()) {
                    sessions.push(session);
                }
            }
            for (i, k) in SESSION_KS.iter().enumerate() {
                let hit = sessions
                    .iter()
                    .take(*k)
                    .any(|s| qa.answer_sessions.iter().any(|a| a == s));
                sums.session_any[i] += usize::from(hit);
            }
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
            sums.recall_all[i] += f64::from(u8::from(hit == 1.0));
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
        for s in self.by_category.values() {
            // A category of unanswerable questions only (LoCoMo's 5,
            // LongMemEval's abstention) is reported apart.
            if s.unanswerable < s.questions {
                answerable.absorb(s);
            }
        }
        let show = |s: &Sums| {
            let n = s.with_evidence.max(1) as f64;
            // A share of nothing is no number (a category without answer
            // sessions, say).
            let ratio = |c: usize, n: usize| (n > 0).then(|| c as f64 / n as f64);
            json!({
                "questions": s.questions,
                "recall": KS.iter().zip(s.recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "recall_all": KS.iter().zip(s.recall_all).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "session_recall": KS.iter().zip(s.session_recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "session_recall_any": SESSION_KS.iter().zip(s.session_any).map(|(k, c)| (format!("@{k}"), ratio(c, s.with_sessions))).collect::<BTreeMap<_, _>>(),
                "ndcg@10": s.ndcg10 / n,
                "coverage": BUDGETS.iter().zip(s.covered).map(|(b, c)| (format!("{b}"), c as f64 / n)).collect::<BTreeMap<_, _>>(),
                "extractive_questions": s.extractive,
                "containment": BUDGETS.iter().zip(s.contained).map(|(b, c)| (format!("{b}"), ratio(c, s.extractive))).collect::<BTreeMap<_, _>>(),
                "stated_questions": s.stated,
                "containment_stated": BUDGETS.iter().zip(s.stated_contained).map(|(b, c)| (format!("{b}"), ratio(c, s.stated))).collect::<BTreeMap<_, _>>(),
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

impl Sums {
    fn absorb(&mut self, s: &Sums) {
        self.questions += s.questions;
        self.unanswerable += s.unanswerable;
        self.with_evidence += s.with_evidence;
        self.with_sessions += s.with_sessions;
        self.extractive += s.extractive;
        self.stated += s.stated;
        self.abstained += s.abstained;
        self.ndcg10 += s.ndcg10;
        self.context_ratio += s.context_ratio;
        for i in 0..KS.len() {
            self.recall[i] += s.recall[i];
            self.recall_all[i] += s.recall_all[i];
            self.session_recall[i] += s.session_recall[i];
        }
        for i in 0..BUDGETS.len() {
            self.covered[i] += s.covered[i];
            self.contained[i] += s.contained[i];
            self.stated_contained[i] += s.stated_contained[i];
        }
        for i in 0..SESSION_KS.len() {
            self.session_any[i] += s.session_any[i];
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

/// Words an answer may spell a small number with, by value.
const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// Words at most in a short-span answer.
const SPAN_WORDS: usize = 6;

/// The normalised spellings a gold answer may take in a context, when the
/// answer is a short span (a name, a number, a date: at most
/// [`SPAN_WORDS`] words); `None` for an answer a reader must compose (a
/// sentence, a judgement). The first sentence is the answer ("54 days.
/// 55 days ... is also acceptable."), a parenthesis an alternative
/// ("University of California, Los Angeles (UCLA)"), and a small number
/// is also its word ("6" and "six").
pub(super) fn answer_forms(answer: &str) -> Option<Vec<String>> {
    let first = answer.split(". ").next().unwrap_or(answer);
    if normalise(first).split(' ').count() > SPAN_WORDS {
        return None;
    }
    let mut spans = vec![first.to_string()];
    if let (Some(open), Some(close)) = (first.find('('), first.rfind(')'))
        && open < close
    {
        spans = vec![
            format!("{}{}", &first[..open], &first[close + 1..]),
            first[open + 1..close].to_string(),
        ];
    }
    let mut forms: Vec<String> = Vec::new();
    for span in spans {
        let span = normalise(&span);
        if span.is_empty() {
            continue;
        }
        let words: Vec<&str> = span.split(' ').collect();
        let swap = |to_digits: bool| -> String {
            words
                .iter()
                .map(
                    |w| match (to_digits, NUMBER_WORDS.iter().position(|n| n == w)) {
                        (true, Some(n)) => n.to_string(),
                        (false, _) => w
                            .parse::<usize>()
                            .ok()
                            .and_then(|n| NUMBER_WORDS.get(n))
                            .map_or(w.to_string(), |n| n.to_string()),
                        _ => w.to_string(),
                    },
                )
                .collect::<Vec<_>>()
                .join(" ")
        };
        for form in [swap(true), swap(false), span.clone()] {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    (!forms.is_empty()).then_some(forms)
}

/// Whether a context's text holds one of an answer's forms, as whole words.
pub(super) fn contains_answer(context: &str, forms: &[String]) -> bool {
    let text = format!(" {} ", normalise(context));
    forms.iter().any(|f| text.contains(&format!(" {f} ")))
}

/// Lower case, digits' thousands commas and ordinal suffixes dropped
/// ("3,000" 3000, "15th" 15), every other mark a space, one space between
/// words, no leading article.
fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut out = String::with_capacity(lower.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let digit_before = i > 0 && chars[i - 1].is_ascii_digit();
        if c == ',' && digit_before && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
            i += 1;
            continue;
        }
        if digit_before {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let ends = chars.get(i + 2).is_none_or(|c| !c.is_alphanumeric());
            if ends && ["st", "nd", "rd", "th"].contains(&rest.as_str()) {
                i += 2;
                continue;
            }
        }
        out.push(if c.is_alphanumeric() { c } else { ' ' });
        i += 1;
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let words = match words.first() {
        Some(&("the" | "a" | "an")) if words.len() > 1 => &words[1..],
        _ => &words[..],
    };
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(answer: &str) -> Vec<String> {
        answer_forms(answer).unwrap_or_default()
    }

    #[test]
    fn short_answers_have_their_usual_spellings() {
        assert_eq!(forms("six"), ["6", "six"]);
        assert_eq!(forms("12"), ["12", "twelve"]);
        assert_eq!(forms("3,000 miles"), ["3000 miles"]);
        assert_eq!(forms("The Hoop Dance"), ["hoop dance"]);
        assert_eq!(
            forms("University of California, Los Angeles (UCLA)"),
            ["university of california los angeles", "ucla"]
        );
        assert_eq!(
            forms("54 days. 55 days (including the last day) is also acceptable."),
            ["54 days"]
        );
    }

    #[test]
    fn composed_answers_are_not_spans() {
        assert_eq!(
            answer_forms("You increased the limit (from one cup to two cups)"),
            None
        );
        assert_eq!(answer_forms("  "), None);
    }

    #[test]
    fn containment_is_by_whole_words_in_any_spelling() {
        let f = forms("six");
        assert!(contains_answer("I've worn them 6 times now.", &f));
        assert!(contains_answer("Worn six times!", &f));
        assert!(!contains_answer("worn sixteen times", &f));
        assert!(contains_answer(
            "We drove 3,000 miles in all.",
            &forms("3,000 miles")
        ));
        assert!(contains_answer("on March 15th, 2023", &forms("March 15")));
        assert!(contains_answer(
            "Went to UCLA.",
            &forms("University of California, Los Angeles (UCLA)")
        ));
        assert!(!contains_answer("", &f));
    }
}
