//! An extraction rule: one way a language says a fact, as a regular
//! expression over a sentence. The shape is shared; what a rule's
//! predicate can be (a fixed one, a family word mapped, an event verb) is
//! each language's own `Predicate`.

use regex::Regex;

use crate::claim::{Claim, ClaimKind};

/// How a rule's match becomes a claim.
pub(crate) struct Rule<P> {
    pub(crate) re: Regex,
    pub(crate) predicate: P,
    pub(crate) kind: ClaimKind,
    /// The entity kind its object is, where the rule knows it.
    pub(crate) object_kind: Option<&'static str>,
    pub(crate) confidence: f64,
    /// Objects the pattern reads that name nothing the rule means ("I
    /// started working": no pastime); a match with one is left for a
    /// later rule to read.
    pub(crate) rejects: Option<fn(&str) -> bool>,
}

impl<P> Rule<P> {
    /// Compiles a pattern whose placeholders the language has already put
    /// in. The tables are constants: a pattern that does not compile is a
    /// bug every test run meets on first use, not an input error.
    pub(crate) fn new(
        pattern: &str,
        predicate: P,
        kind: ClaimKind,
        object_kind: Option<&'static str>,
        confidence: f64,
    ) -> Self {
        Rule {
            re: Regex::new(pattern).unwrap_or_else(|e| unreachable!("bad rule {pattern}: {e}")),
            predicate,
            kind,
            object_kind,
            confidence,
            rejects: None,
        }
    }

    /// The rule, leaving a match whose object `rejects` says names
    /// nothing it means for a later rule.
    pub(crate) fn rejecting(self, rejects: fn(&str) -> bool) -> Self {
        Rule {
            rejects: Some(rejects),
            ..self
        }
    }

    /// Whether the claims a match made stand: none has an object the rule
    /// rejects.
    pub(crate) fn accepts(&self, claims: &[Claim]) -> bool {
        self.rejects
            .is_none_or(|rejects| !claims.iter().any(|c| rejects(&c.object)))
    }
}
