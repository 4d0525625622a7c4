//! What a consolidation pass did, counted claim by claim.

use super::conflict::Outcome;

/// What a consolidation pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Episodes read.
    pub episodes: usize,
    /// Claims the extractor found.
    pub claims: usize,
    /// New fact versions written.
    pub facts: usize,
    /// Claims that restated a fact (reinforced, not duplicated).
    pub restated: usize,
    /// Facts ended ("I quit").
    pub ended: usize,
    /// Facts withdrawn as mistakes ("I never joined").
    pub withdrawn: usize,
    /// Pairs left contested by the adjudicator.
    pub contested: usize,
    /// Claims whose predicate was read as a paraphrase of a one-valued
    /// slot ("is_employed_at" as "works_at").
    pub paraphrased: usize,
    /// Values that elaborate the current one ("Google Zurich" after
    /// "Google"): kept beside it and linked, not a conflict.
    pub elaborated: usize,
    /// Claims dropped (a pronoun with no clear referent, nothing to end).
    pub dropped: usize,
    /// Facts reinforced because searches returned them.
    pub reinforced: usize,
}

/// Passes add up: a caller that consolidates in several passes (one per
/// conversation, say) reports their sum.
impl std::ops::AddAssign<&Report> for Report {
    fn add_assign(&mut self, other: &Report) {
        self.episodes += other.episodes;
        self.claims += other.claims;
        self.facts += other.facts;
        self.restated += other.restated;
        self.ended += other.ended;
        self.withdrawn += other.withdrawn;
        self.contested += other.contested;
        self.paraphrased += other.paraphrased;
        self.elaborated += other.elaborated;
        self.dropped += other.dropped;
        self.reinforced += other.reinforced;
    }
}

impl Report {
    /// The report as JSON (`{"episodes", "claims", "facts", "restated",
    /// "ended", "withdrawn", "contested", "paraphrased", "elaborated",
    /// "dropped", "reinforced"}`), as the bindings and the server hand it
    /// out.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "episodes": self.episodes,
            "claims": self.claims,
            "facts": self.facts,
            "restated": self.restated,
            "ended": self.ended,
            "withdrawn": self.withdrawn,
            "contested": self.contested,
            "paraphrased": self.paraphrased,
            "elaborated": self.elaborated,
            "dropped": self.dropped,
            "reinforced": self.reinforced,
        })
    }

    /// Counts what one claim came to.
    pub(super) fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Asserted => self.facts += 1,
            Outcome::Elaborated => {
                self.elaborated += 1;
                self.facts += 1;
            }
            Outcome::Contested => {
                self.contested += 1;
                self.facts += 1;
            }
            Outcome::Restated => self.restated += 1,
            Outcome::Ended => self.ended += 1,
            Outcome::Withdrawn => self.withdrawn += 1,
            Outcome::Dropped => self.dropped += 1,
        }
    }
}
