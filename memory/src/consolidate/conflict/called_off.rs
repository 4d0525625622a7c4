//! A plan called off ("we're not moving after all", "I turned down the
//! offer"): what was to hold from after the message is withdrawn, and
//! what it would have ended holds on.

use chronolog_engine::{Interval, Timestamp};

use super::{Claimed, Outcome, Plan, SlotState, Version};

/// "We're not moving after all": the versions of the slot (of the value
/// named, or any) that were to start after the message are withdrawn, and
/// the version they cut holds on until the next that stands.
pub(super) fn decide(
    claimed: &Claimed<'_>,
    state: &SlotState,
    same: &dyn Fn(&Version) -> bool,
) -> (Vec<Plan>, Outcome) {
    let planned: Vec<&Version> = state
        .versions
        .iter()
        .filter(|v| same(v) && v.row.valid.from > claimed.said_at)
        .collect();
    let Some(start) = planned.iter().map(|v| v.row.valid.from).min() else {
        return (Vec::new(), Outcome::Dropped);
    };
    let stands = |v: &&Version| !planned.iter().any(|p| p.row.values == v.row.values);
    let mut plans: Vec<Plan> = planned
        .iter()
        .map(|v| Plan::Withdraw {
            values: v.row.values.clone(),
        })
        .collect();
    if let Some(cut) = state
        .versions
        .iter()
        .filter(stands)
        .find(|v| v.row.valid.to == start)
    {
        let next = state
            .versions
            .iter()
            .filter(stands)
            .map(|v| v.row.valid.from)
            .filter(|&from| from >= start)
            .min()
            .unwrap_or(Timestamp::MAX);
        plans.push(Plan::Resume {
            values: cut.row.values.clone(),
            valid: Interval {
                from: cut.row.valid.from,
                to: next,
            },
            provenance: cut.row.provenance,
        });
    }
    (plans, Outcome::Withdrawn)
}
