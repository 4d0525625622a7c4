//! Every number the memory was tuned with, in one place: the fusion's
//! weights and offset, the channels' depths, what a context leads with,
//! the gate's thresholds, salience's half-life and steps, the paraphrase
//! margins. Each field says why it has its value and on what data it was
//! chosen ("dev" is LoCoMo conversations 1-5, `chronolog eval locomo
//! --all`, docs/evaluation.md). A [`Tuning`] lives in [`crate::Options`];
//! `explain` prints it, and the evaluation harness varies any field by
//! name (`--set rrf_k=20`) to measure it.

use std::fmt::{self, Write as _};

/// A field name [`Tuning::set`] does not know, or a value it cannot read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TuningError {
    /// No field has that name.
    #[error("no tuning field `{0}` (the fields: {1})")]
    Unknown(String, String),
    /// The value is not a number of the field's kind.
    #[error("tuning field `{field}` takes a {kind}, not {value:?}")]
    BadValue {
        /// The field.
        field: String,
        /// `number` or `whole number`.
        kind: &'static str,
        /// What was given.
        value: String,
    },
    /// `name=value` was expected.
    #[error("expected `name=value`, got {0:?}")]
    NotAssignment(String),
}

/// A field's value kind, for reading it from text.
trait Field: Sized + fmt::Display {
    const KIND: &'static str;
    fn parse(text: &str) -> Option<Self>;
}

impl Field for f64 {
    const KIND: &'static str = "number";
    fn parse(text: &str) -> Option<f64> {
        text.parse().ok().filter(|v: &f64| v.is_finite())
    }
}

impl Field for usize {
    const KIND: &'static str = "whole number";
    fn parse(text: &str) -> Option<usize> {
        text.parse().ok()
    }
}

macro_rules! tuning {
    ($( $(#[$doc:meta])+ $field:ident: $ty:ty = $default:expr, )+) => {
        /// The memory's tuning: see the module's doc. `Default` is what was
        /// chosen; any field can be set by name ([`Tuning::set`]).
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub struct Tuning {
            $( $(#[$doc])+ pub $field: $ty, )+
        }

        impl Default for Tuning {
            fn default() -> Tuning {
                Tuning { $( $field: $default, )+ }
            }
        }

        impl Tuning {
            /// Every field's name, in declaration order.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),+];

            /// Sets the field `name` from text (`"20"`, `"0.3"`).
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), TuningError> {
                match name {
                    $(
                        stringify!($field) => {
                            self.$field = <$ty as Field>::parse(value.trim()).ok_or_else(|| {
                                TuningError::BadValue {
                                    field: name.to_string(),
                                    kind: <$ty as Field>::KIND,
                                    value: value.to_string(),
                                }
                            })?;
                            Ok(())
                        }
                    )+
                    _ => Err(TuningError::Unknown(name.to_string(), Self::FIELDS.join(", "))),
                }
            }

            /// Each field's name and value, in declaration order.
            pub fn values(&self) -> Vec<(&'static str, String)> {
                vec![$( (stringify!($field), self.$field.to_string()) ),+]
            }
        }
    };
}

tuning! {
    /// The context's default size in cl100k_base tokens: about a tenth of
    /// a LoCoMo conversation, where dev coverage reaches 0.81.
    budget: usize = 2_000,
    /// Candidates each channel contributes before fusion: past 20, dev R@20
    /// gained nothing and latency grew.
    k: usize = 20,
    /// A question for several things ("What books has Tim read?") looks
    /// this many times as deep: its evidence is many messages that each
    /// match a little (dev coverage at 2,000 tokens 0.809 -> 0.811).
    list_depth: usize = 2,
    /// The reciprocal-rank offset: 10, not the usual 60, so a first rank
    /// counts for more against the ones after it (dev R@5 0.347 -> 0.419).
    rrf_k: f64 = 10.0,
    /// Weight of `bm25` over episodes: the evidence is in the messages.
    weight_episode_words: f64 = 1.0,
    /// Weight of `near` over episodes (0.5 -> 0.3: dev R@5 0.419 -> 0.431).
    weight_episode_meaning: f64 = 0.3,
    /// `near` over what people said, sentence by sentence, each message by
    /// its best (`Channel::SentenceMeaning`). Swept 0 / 1 / 2 / 3: LoCoMo
    /// dev coverage at 2,000 0.822 / 0.821 / 0.828 / 0.829, R@5 0.738 /
    /// 0.739 / 0.736 / 0.733 (each conversation left out chose 2 or 3:
    /// 0.826 / 0.734); LongMemEval dev 0.881 / 0.902 / 0.898 / 0.902, R@5
    /// 0.815 / 0.825 / 0.826 / 0.828, answer in context 0.566 / 0.571 /
    /// 0.571 / 0.587 (folds chose 1 or 3: 0.898 / 0.825). 3 is best on
    /// both together. With the assistant's replies split too, LongMemEval
    /// fell to 0.872 / 0.794 at 2.
    weight_sentence_meaning: f64 = 3.0,
    /// Weight of `bm25` over a named speaker's messages: who did what is in
    /// that person's own words (dev R@5 0.482 without -> 0.617 with).
    weight_speaker_words: f64 = 2.0,
    /// Weight of `near` over a named speaker's messages, as its word twin.
    weight_speaker_meaning: f64 = 2.0,
    /// Weight of `bm25` and `near` over the user's own messages, for a
    /// question in the first person: what "I" did is in what I said, not
    /// in the answers to it. LongMemEval dev, coverage at 2,000 at 0 / 1
    /// / 2 / 3: 0.762 / 0.838 / 0.843 / 0.830 without the reranker (four
    /// folds of five chose 2), 0.791 / 0.843 / 0.847 / 0.860 with it.
    /// LoCoMo names its speakers: no user.
    weight_user: f64 = 2.0,
    /// Weight of `bm25` over facts: alone they find 5% of the evidence on
    /// dev; they reorder near the top.
    weight_fact_words: f64 = 0.3,
    /// Weight of `near` over facts (0.5 -> 0.15 on dev with the model).
    weight_fact_meaning: f64 = 0.15,
    /// Weight of `hops` from the question's entities (alone: 4% on dev).
    weight_graph: f64 = 0.1,
    /// Weight of the two channels over what was said in the period the
    /// question names, as the speaker channels (dev R@5 0.601 -> 0.604).
    weight_said_then: f64 = 2.0,
    /// Weight of the latest messages: a tie-breaker only.
    weight_recency: f64 = 0.02,
    /// Weight of the most salient facts: a tie-breaker only.
    weight_salience: f64 = 0.02,
    /// Matches the said-then channels look through for those said in the
    /// period (500: every dev period's messages are within it).
    said_then_candidates: usize = 500,
    /// A graph seed with more neighbours than this (a speaker, named in all
    /// their own messages) says nothing specific; its episodes are skipped.
    graph_max_neighbours: usize = 200,
    /// How many of the first candidate messages the reranker reads again
    /// with the question and reorders (0: none). A search's own
    /// `rerank_depth` overrides it. LoCoMo dev conversation 1, depth 0 /
    /// 10 / 20: R@5 0.563 / 0.663 / 0.691, search p50 6 / 460 / 825 ms on
    /// the 2-core VM (all five conversations at 30: R@5 0.617 -> 0.718).
    rerank_depth: usize = 20,
    /// How much of a long message the reranker reads: its first this many
    /// characters, cut at a word (0: as much as the model takes, 256
    /// tokens with the question). Shorter pairs run faster: the long
    /// messages' pairs are a search's slowest tail. On all 250
    /// LongMemEval dev questions at 700 / 600 / 500, coverage at 2,000
    /// 0.877 / 0.872 / 0.881, R@5 0.819 / 0.815 / 0.815, p95 352-363 /
    /// 307-310 / 287-289 ms (four folds of five chose 500; left out
    /// 0.877 / 0.817); 300 covers less (0.706 against 0.728 at 700, an
    /// earlier sweep). LoCoMo's messages are shorter: 700 and 500 read
    /// the same (docs/evaluation.md).
    rerank_chars: usize = 500,
    /// Room (in characters) the reranker gives the message before a
    /// candidate, whole and said by someone else, out of what
    /// `rerank_chars` leaves: "A sunset by the lake" answers "What did
    /// Melanie paint?" only after "What did you paint?". 0 reads the
    /// message alone. LoCoMo dev R@5 0.719 -> 0.738,
    /// coverage at 2,000 0.820 -> 0.821 (every conversation left out chose
    /// 300); LongMemEval dev every figure equal (its messages before seldom
    /// fit whole; the tail of a long one, tried, cost 1.3 points there).
    rerank_before_chars: usize = 300,
    /// How much text (in characters, every message read together) the
    /// reranker reads in one search: the messages are read in fused order
    /// while they fit, so a question whose candidates are long messages
    /// has fewer read (0: no limit, `rerank_depth` alone). The model's
    /// time grows with what it reads: about 0.4 ms a token on one core of
    /// this 2-core AVX2 machine, so 20 messages of 500 characters take
    /// about 0.5 s. Swept none / 5,000 / 4,000: LoCoMo dev coverage at
    /// 2,000 0.829 / 0.830 / 0.830, p95 483 / 428 / 367 ms; LongMemEval
    /// dev 0.919 / 0.915 / 0.911, R@5 0.825 / 0.822 / 0.770, p95 541 /
    /// 522 / 434 ms: off, since LongMemEval loses at every value
    /// (docs/evaluation.md, "Where a search's time goes with the
    /// reranker").
    rerank_budget_chars: usize = 0,
    /// The gate abstains when the reranker read every candidate message,
    /// the best scores below this (a logit: ms-marco's irrelevant pairs
    /// sit near -11), and no fact the question asks about by its
    /// predicate holds. Read every candidate: on LongMemEval dev, a floor
    /// over the first 20 alone abstained on 10 answerable questions whose
    /// evidence ranked lower. On both dev sets the channels find more
    /// candidates than the reranker reads, so the floor changes none of
    /// their answers: docs/evaluation.md, "The evidence gate".
    evidence_floor: f64 = -9.0,
    /// At or above this reranker score the word gates defer: a paraphrase
    /// sharing no word with memory ("Do I eat meat?" beside "I've been
    /// vegetarian for five years", -5.7) is judged on its meaning. The
    /// word gates ask whether anything is *about* the question, less than
    /// whether a message answers it (0, the model's even odds). Both dev
    /// sets decide alike anywhere in (-9.1, -2.7]; -7 sits between the
    /// paraphrases users ask (-2.2 to -5.7) and the unanswerable everyday
    /// questions (-9.2 to -11.2).
    evidence_answers: f64 = -7.0,
    /// The most facts a context leads with.
    max_facts: usize = 8,
    /// One leading fact per this many tokens of budget (2 at 500, 8 at
    /// 2,000), at least one: dev coverage at 500 tokens 0.22 with 8 facts,
    /// 0.41 with this rule.
    tokens_per_leading_fact: usize = 250,
    /// A fact leads only with at least this share of the best fact's score
    /// (dev coverage at 500 tokens 0.051 -> 0.388 with the 8-fact cap).
    fact_min_share: f64 = 0.5,
    /// The most values of one entity's asked predicate that lead at the
    /// best fact's score, in the order asked facts lead (the value the
    /// question names, then the reranker's score of each fact, then fused
    /// order: `recall/asked.rs`); the rest keep their own score. Eight of
    /// Tim's tastes filled "What instruments does Tim play?". Swept in
    /// fused order 1 / 2 / 3 / all (docs/evaluation.md, forty-ninth
    /// session): not a gain on both datasets; in the reranker's order
    /// (fiftieth session) 3 and all the same on LoCoMo, so every value
    /// leads and the reranker orders them.
    values_asked_lead: usize = 1000,
    /// Past values shown under a leading fact when the question asks about
    /// the past.
    past_per_fact: usize = 2,
    /// The messages said around the best few come after this many best
    /// messages: a budget's first messages are better spent on the best
    /// matches (neighbours first cost 0.035 of dev coverage at 500).
    neighbours_after: usize = 10,
    /// How many of the best messages bring their neighbours (dev coverage
    /// at 2,000 tokens 0.766 -> 0.780 with 5 anchors, 2 places).
    neighbour_anchors: usize = 5,
    /// How many places either side of an anchor, in its session.
    neighbour_window: usize = 2,
    /// A neighbour's score against its anchor's: what goes first should
    /// the joined text overrun the budget.
    neighbour_share: f64 = 0.5,
    /// A message longer than about this many tokens (estimated, not
    /// counted) is shown in a context by its sentences that share the
    /// most words with the question, within that many (0: every message
    /// whole). LongMemEval dev at 0 / 100 / 150 / 250 / 400, coverage at
    /// 2,000 and the answers an evidence message spells that the context
    /// holds, reranker on: 0.847 / 0.894 / 0.885 / 0.877 / 0.872, 0.948 /
    /// 0.927 / 0.948 / 0.958 / 0.948; off: 0.843 / 0.872 / 0.860 / 0.860
    /// / 0.847, 0.958 / 0.927 / 0.948 / 0.969 / 0.958. 250 is the value
    /// that covers more and hides no spelled answer with the reranker on
    /// or off (100 covers most and cuts the sentence after a match that
    /// holds the answer). LoCoMo's messages are shorter: unchanged.
    excerpt_tokens: usize = 250,
    /// A fading fact keeps this share of its score in a context: it ranks
    /// below active ones that match about as well.
    fading_weight: f64 = 0.5,
    /// A dormant fact keeps this share: it leads only when it matches far
    /// better than any active one.
    dormant_weight: f64 = 0.25,
    /// Below this ratio of the named person's best matches to anyone
    /// else's, the question is about someone else and the gate abstains
    /// (0.75 / 0.85 / 0.95: dev adversarial abstained 55 / 62 / 69%,
    /// answerable wrongly 5 / 9 / 13%).
    owners_words_ratio: f64 = 0.75,
    /// How many of each side's best matches the ownership gate sums: with
    /// two, one strong echo no longer outweighs the person's own words.
    owners_best: usize = 2,
    /// Messages each of the ownership gate's two word searches looks at.
    owners_candidates: usize = 20,
    /// Salience halves in this many days without reinforcement (Engram's
    /// default order of magnitude; not fitted: LoCoMo spans months).
    half_life_days: f64 = 30.0,
    /// What a restatement or a retrieval adds to salience (cap 1).
    reinforcement: f64 = 0.2,
    /// How many messages back a pronoun may refer to a person named.
    pronoun_reach: usize = 3,
    /// The least cosine similarity, by all-MiniLM-L6-v2 (the judge
    /// whatever embeds the memory), of a free predicate to the nearest of
    /// a slot's exemplars for it to map there ("resides at" is 0.90 from
    /// "resides in"; "hails from" 0.53 from "is from" is not mapped).
    paraphrase_similarity: f64 = 0.66,
    /// The least lead of that exemplar over the nearest exemplar of any
    /// other class (another slot, or a relation that is none): "resides
    /// near" is 0.86 from "resides in" with a lead of 0.07 over "lives
    /// near", "former manager" 0.77 from "manager" with 0.05, "home city"
    /// 0.72 from "hometown" with 0.12; "originally from" leads by 0.17,
    /// "employed at" by 0.21. Read off the held-out phrases of
    /// `memory/tests/paraphrase.rs`: midway between its largest wrong lead
    /// (0.12) and its smallest right one (0.17).
    paraphrase_margin: f64 = 0.15,
}

impl Tuning {
    /// Applies `name=value` assignments, as the command line gives them.
    pub fn with_assignments<'a>(
        mut self,
        assignments: impl IntoIterator<Item = &'a str>,
    ) -> Result<Tuning, TuningError> {
        for assignment in assignments {
            let (name, value) = assignment
                .split_once('=')
                .ok_or_else(|| TuningError::NotAssignment(assignment.to_string()))?;
            self.set(name.trim(), value)?;
        }
        Ok(self)
    }

    /// One `name = value` line per field, for `explain` and reports.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (name, value) in self.values() {
            let _ = writeln!(out, "  {name} = {value}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_set_by_name_and_bad_input_changes_nothing() {
        let tuning = Tuning::default()
            .with_assignments(["rrf_k=20", " k = 30"])
            .expect("assignments");
        assert_eq!((tuning.rrf_k, tuning.k), (20.0, 30));
        let mut same = tuning.clone();
        assert!(matches!(
            same.set("rrf", "1"),
            Err(TuningError::Unknown(..))
        ));
        assert!(matches!(
            same.set("k", "-1"),
            Err(TuningError::BadValue { .. })
        ));
        assert!(matches!(
            same.set("rrf_k", "NaN"),
            Err(TuningError::BadValue { .. })
        ));
        assert_eq!(same, tuning);
        assert!(Tuning::default().with_assignments(["k"]).is_err());
        assert_eq!(Tuning::FIELDS.len(), Tuning::default().values().len());
        assert!(Tuning::default().to_text().contains("  budget = 2000\n"));
    }
}
