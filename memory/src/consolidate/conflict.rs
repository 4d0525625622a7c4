//! The conflict ladder: what one claim does to its slot, decided from
//! the slot's versions believed now. Cheapest first (the Engram ladder):
//! a restatement reinforces rather than duplicates; a value contained in
//! the known one, or containing it, is a restatement or an elaboration,
//! not a conflict; a new value of a one-valued slot cuts the old one
//! where it starts (the store's key rule, and the new row supersedes it);
//! a value learned out of order is bounded by the next one known, so it
//! never cuts a newer fact; an ending cuts the value it names; a
//! withdrawal is a `correct`, which gives back what the value had cut;
//! and two values claiming the same instant go to the [`Adjudicator`].
//!
//! [`decide`] reads nothing: the pass reads the slot ([`SlotState`]) and
//! applies the plans ([`super::apply`]).

use chronolog_engine::{Interval, RowVersion, Symbol, Timestamp, Value};

use super::extract::{Claim, ClaimKind};
use crate::error::Result;
use crate::ids::{Slot, normalize};
use crate::salience::Level;
use crate::schema::Fact;
use crate::when::When;

mod called_off;

/// Two values of a one-valued slot that claim the same start: which wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The new value replaces the old from its start.
    Replace,
    /// Both stay, marked contested.
    KeepBoth,
}

/// Settles what the rules cannot: two values of one slot from the same
/// instant. An LLM can stand here; the default keeps both.
pub trait Adjudicator: Send + Sync {
    /// `old` is believed now; `new` is claimed by `claim`.
    fn decide(&self, old: &str, new: &Claim) -> Decision;
}

/// The default adjudicator: keeps both values, marked contested.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeepBoth;

impl Adjudicator for KeepBoth {
    fn decide(&self, _old: &str, _new: &Claim) -> Decision {
        Decision::KeepBoth
    }
}

/// What a claim does, counted for the pass's [`super::Report`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A new value (an elaboration or a contested one included).
    Asserted,
    /// A new value kept beside the one it elaborates.
    Elaborated,
    /// A new value kept beside the one it contests.
    Contested,
    /// The value again.
    Restated,
    /// A value ended.
    Ended,
    /// A value withdrawn.
    Withdrawn,
    /// Nothing to end or withdraw.
    Dropped,
}

/// One stored version of a fact: the row as stored (to cut or withdraw)
/// and its typed columns.
#[derive(Clone, Debug)]
pub(super) struct Version {
    pub row: RowVersion,
    pub fact: Fact,
}

/// What the store believes now about one claim's slot, read before the
/// claim is decided.
#[derive(Debug)]
pub(super) struct SlotState {
    /// The slot the claim's subject and predicate name.
    pub slot: Slot,
    /// Its versions believed now, over all valid time.
    pub versions: Vec<Version>,
    /// The versions believed now of the slot that would hold the claim's
    /// object as an elaboration of this one.
    pub elaboration: Vec<Version>,
    /// The versions believed now of every fact elaborating this slot.
    pub elaborations: Vec<Version>,
}

/// What consolidation does to the store for one claim.
#[derive(Debug)]
pub(super) enum Plan {
    /// A new value of a slot, over `valid`.
    Assert {
        slot: String,
        subject: String,
        object_entity: Option<String>,
        claim: Claim,
        valid: Interval,
        contested_with: Option<String>,
        /// The slot whose value this one elaborates.
        elaborates: Option<String>,
    },
    /// The same value again: a new source and a reinforcement (the
    /// salience row it leaves).
    Restate {
        slot: String,
        subject: String,
        object_entity: Option<String>,
        claim: Claim,
        salience: Level,
    },
    /// A value stops holding.
    End { values: Vec<Value>, valid: Interval },
    /// A value was a mistake.
    Withdraw { values: Vec<Value> },
    /// A value holds on, where a plan called off would have ended it:
    /// its version again over `valid` (its own start on), from its own
    /// source.
    Resume {
        values: Vec<Value>,
        valid: Interval,
        provenance: Option<Symbol>,
    },
}

/// The claim being decided, with what the pass resolved for it.
pub(super) struct Claimed<'a> {
    pub claim: &'a Claim,
    /// The subject's entity id.
    pub subject: &'a str,
    /// The object's entity id, when the object is one.
    pub object_entity: Option<String>,
    /// Whether the slot holds one value at a time.
    pub functional: bool,
    /// When the message was said.
    pub said_at: Timestamp,
    /// An ending of a value never held records it as past; not when the
    /// message itself tells the value's period ("I worked at IBM until
    /// 2020" is a period and its end).
    pub records_past: bool,
}

const DAY: i64 = 24 * 3600 * 1_000_000;

/// What `claimed` does to its slot. `reinforce` gives the salience row a
/// restatement of a slot leaves (two in one pass build on each other).
pub(super) fn decide(
    claimed: &Claimed<'_>,
    state: &SlotState,
    adjudicator: &dyn Adjudicator,
    reinforce: &mut dyn FnMut(&str) -> Result<Level>,
) -> Result<(Vec<Plan>, Outcome)> {
    let claim = claimed.claim;
    let object = normalize(&claim.object);
    let from = start(claim, claimed.said_at, &state.versions);
    let same = |v: &Version| {
        v.fact.predicate == claim.predicate
            && (claim.object.is_empty() || normalize(&v.fact.object) == object)
    };
    let base = state.versions.iter().find(|v| {
        claimed.functional && claim.kind == ClaimKind::Holds && v.row.valid.contains(from)
    });
    if let Some(base) = base
        && let Some(decided) = contained(claimed, state, base, from, reinforce)?
    {
        return Ok(decided);
    }
    match claim.kind {
        ClaimKind::Holds | ClaimKind::Happened => {
            new_value(claimed, state, base, from, adjudicator, reinforce)
        }
        ClaimKind::Ended => {
            let Some(v) = state
                .versions
                .iter()
                .find(|v| same(v) && v.row.valid.contains(from))
            else {
                // "I work at Google", then "I left Google last month": the
                // value held from when it was said, up to this message, is
                // the later word's to correct (withdrawn, not cut, so no
                // empty interval remains). One that ended before this
                // message, or began after it, is another period.
                let corrected: Vec<&Version> = state
                    .versions
                    .iter()
                    .filter(|v| {
                        same(v)
                            && v.row.valid.from > from
                            && v.row.valid.from <= claimed.said_at
                            && v.row.valid.to > claimed.said_at
                    })
                    .collect();
                // "I used to live in Oslo", "I left Google" of a value the
                // memory never held, or held only as corrected: it held
                // until then, from a time unknown ("我们分手了" names no
                // value: the one corrected). A value held from later is
                // left to stand.
                let never_held = !state.versions.iter().any(same);
                let object = match corrected.first() {
                    Some(v) if claim.object.is_empty() => v.fact.object.clone(),
                    _ => claim.object.clone(),
                };
                let withdrawn = corrected.iter().map(|v| Plan::Withdraw {
                    values: v.row.values.clone(),
                });
                if claimed.records_past
                    && !object.is_empty()
                    && (never_held || !corrected.is_empty())
                {
                    let past = Claim {
                        kind: ClaimKind::Happened,
                        object,
                        valid: Some(When {
                            from: Timestamp::MIN,
                            to: Some(from),
                            stretch: false,
                        }),
                        ..claim.clone()
                    };
                    let claimed = Claimed {
                        claim: &past,
                        subject: claimed.subject,
                        object_entity: claimed.object_entity.clone(),
                        functional: claimed.functional,
                        said_at: claimed.said_at,
                        records_past: false,
                    };
                    let (past, outcome) = new_value(
                        &claimed,
                        state,
                        None,
                        Timestamp::MIN,
                        adjudicator,
                        reinforce,
                    )?;
                    return Ok(if corrected.is_empty() {
                        (past, outcome)
                    } else {
                        (withdrawn.chain(past).collect(), Outcome::Ended)
                    });
                }
                let outcome = if corrected.is_empty() {
                    Outcome::Dropped
                } else {
                    Outcome::Ended
                };
                return Ok((withdrawn.collect(), outcome));
            };
            let end = Plan::End {
                values: v.row.values.clone(),
                valid: Interval {
                    from,
                    to: v.row.valid.to,
                },
            };
            Ok((vec![end], Outcome::Ended))
        }
        ClaimKind::CalledOff => Ok(called_off::decide(claimed, state, &same)),
        ClaimKind::Withdrawn => {
            let plans: Vec<Plan> = state
                .versions
                .iter()
                .filter(|v| same(v))
                .map(|v| Plan::Withdraw {
                    values: v.row.values.clone(),
                })
                .collect();
            let outcome = if plans.is_empty() {
                Outcome::Dropped
            } else {
                Outcome::Withdrawn
            };
            Ok((plans, outcome))
        }
    }
}

/// A value that holds, or an event: a restatement when it overlaps the
/// same value, else a new version bounded by the next one known and, when
/// it clashes with a value from the same instant, the adjudicator's call.
fn new_value(
    claimed: &Claimed<'_>,
    state: &SlotState,
    base: Option<&Version>,
    from: Timestamp,
    adjudicator: &dyn Adjudicator,
    reinforce: &mut dyn FnMut(&str) -> Result<Level>,
) -> Result<(Vec<Plan>, Outcome)> {
    let claim = claimed.claim;
    let object = normalize(&claim.object);
    let same = |v: &Version| {
        v.fact.predicate == claim.predicate
            && (claim.object.is_empty() || normalize(&v.fact.object) == object)
    };
    let slot = state.slot.to_string();
    let mut to = match (claim.kind, claim.valid.and_then(|w| w.to)) {
        (ClaimKind::Happened, Some(to)) => to,
        (ClaimKind::Happened, None) => Timestamp(from.micros().saturating_add(DAY)),
        _ => Timestamp::MAX,
    };
    let overlapping = |v: &Version| v.row.valid.from < to && from < v.row.valid.to;
    if state.versions.iter().any(|v| same(v) && overlapping(v)) {
        let salience = reinforce(&slot)?;
        return Ok((
            vec![restate(claimed, slot, claim.clone(), salience)],
            Outcome::Restated,
        ));
    }
    // Learned out of order: end where the next known value begins.
    if let Some(next) = state
        .versions
        .iter()
        .map(|v| v.row.valid.from)
        .filter(|&start| start > from)
        .min()
    {
        to = to.min(next);
    }
    let clash = state
        .versions
        .iter()
        .find(|v| claimed.functional && v.row.valid.from == from && !same(v));
    let mut asserted = slot.clone();
    let mut contested_with = None;
    let mut outcome = Outcome::Asserted;
    if let Some(old) = clash
        && adjudicator.decide(&old.fact.object, claim) == Decision::KeepBoth
    {
        contested_with = Some(slot.clone());
        asserted = state.slot.contested_by(&object).to_string();
        outcome = Outcome::Contested;
    }
    let mut plans = Vec::new();
    // A new value ends the old one's elaborations with it.
    if let (Some(base), None) = (base, &contested_with) {
        for v in state
            .elaborations
            .iter()
            .filter(|v| v.row.valid.contains(from))
        {
            plans.push(Plan::End {
                values: v.row.values.clone(),
                valid: Interval {
                    from,
                    to: v.row.valid.to.min(base.row.valid.to),
                },
            });
        }
    }
    plans.push(Plan::Assert {
        slot: asserted,
        subject: claimed.subject.to_string(),
        object_entity: claimed.object_entity.clone(),
        claim: claim.clone(),
        valid: Interval { from, to },
        contested_with,
        elaborates: None,
    });
    Ok((plans, outcome))
}

/// When the claim's value starts: its own time, or the message's. "I
/// moved to Bergen last week": the move is somewhere in that week; if
/// another value is known to have started inside it, the change came
/// after that, and the week's end is the start.
fn start(claim: &Claim, said_at: Timestamp, versions: &[Version]) -> Timestamp {
    let from = claim.valid.map_or(said_at, |w| w.from);
    if claim.kind == ClaimKind::Holds
        && let Some(period_end) = claim.valid.and_then(|w| w.to)
        && versions
            .iter()
            .any(|v| v.row.valid.from > from && v.row.valid.from < period_end)
    {
        return period_end;
    }
    from
}

/// Containment is elaboration, not conflict: "Google" then "Google
/// Zurich" says more about the same value, and "Google" after "Google
/// Zurich" says less. `None` when neither value contains the other.
fn contained(
    claimed: &Claimed<'_>,
    state: &SlotState,
    base: &Version,
    from: Timestamp,
    reinforce: &mut dyn FnMut(&str) -> Result<Level>,
) -> Result<Option<(Vec<Plan>, Outcome)>> {
    let claim = claimed.claim;
    let object = normalize(&claim.object);
    let base_object = normalize(&base.fact.object);
    let slot = state.slot.to_string();
    if contains_words(&base_object, &object) {
        // Less said than known: a restatement of the value known.
        let salience = reinforce(&slot)?;
        let mut claim = claim.clone();
        claim.object = base.fact.object.clone();
        return Ok(Some((
            vec![restate(claimed, slot, claim, salience)],
            Outcome::Restated,
        )));
    }
    if !contains_words(&object, &base_object) {
        return Ok(None);
    }
    let elaboration = state.slot.elaborated_by(&object).to_string();
    if state.elaboration.iter().any(|v| v.row.valid.contains(from)) {
        let salience = reinforce(&elaboration)?;
        let plan = restate(claimed, elaboration, claim.clone(), salience);
        return Ok(Some((vec![plan], Outcome::Restated)));
    }
    let plan = Plan::Assert {
        slot: elaboration,
        subject: claimed.subject.to_string(),
        object_entity: claimed.object_entity.clone(),
        claim: claim.clone(),
        valid: Interval {
            from,
            to: base.row.valid.to,
        },
        contested_with: None,
        elaborates: Some(slot),
    };
    Ok(Some((vec![plan], Outcome::Elaborated)))
}

/// The same value said again: its slot, reinforced to `salience`.
fn restate(claimed: &Claimed<'_>, slot: String, claim: Claim, salience: Level) -> Plan {
    Plan::Restate {
        slot,
        subject: claimed.subject.to_string(),
        object_entity: claimed.object_entity.clone(),
        claim,
        salience,
    }
}

/// Whether every word of `part` is among the words of `whole`, and
/// `whole` has more: "google zurich" contains "google".
fn contains_words(whole: &str, part: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (whole, part) = (words(whole), words(part));
    !part.is_empty() && whole.len() > part.len() && part.iter().all(|w| whole.contains(w))
}
