//! `decayed(rel, column, since, half_life, k)`: the live rows with the
//! largest values of a number column once each has halved every
//! `half_life` days from its `since` time to the query's `as_of` instant:
//! salience that fades unless it is reinforced, ranked in the engine.

use chronolog_ql::plan::DecayedPlan;
use chronolog_storage::{RelationId, Timestamp, ValueRef};

use super::by_value::{best, number};
use super::{At, Ranking};
use crate::error::{Result, RetrievalError};
use crate::val::Val;

const MICROS_PER_DAY: f64 = 86_400e6;

/// The best `plan.k` ids of `plan.rel` by decayed value, among the live
/// rows that pass `filters`.
pub(super) fn run(
    at: &At<'_>,
    plan: &DecayedPlan,
    rel: RelationId,
    half_life: Val,
    filters: &[(usize, Val)],
) -> Result<Ranking> {
    let half_life = match half_life {
        Val::Int(days) => days as f64,
        Val::Float(days) if !days.is_nan() => days,
        other => return Err(RetrievalError::HalfLifeInput(format!("{other:?}")).into()),
    };
    let live = at.live_where(rel, filters)?;
    best(at, rel, &live, at.k(&plan.k)?, |row| {
        let ValueRef::Time(since) = row.value(plan.since) else {
            return None;
        };
        Some(decay(
            number(row.value(plan.column))?,
            since,
            at.valid,
            half_life,
        ))
    })
}

/// `value` set at `since`, halved every `half_life_days` until `now`. A
/// `since` after `now` does not grow it; a half-life of zero or less (or
/// an infinite one) keeps it whole.
pub fn decay(value: f64, since: Timestamp, now: Timestamp, half_life_days: f64) -> f64 {
    if half_life_days <= 0.0 || half_life_days.is_infinite() {
        return value;
    }
    let days = now.micros().saturating_sub(since.micros()).max(0) as f64 / MICROS_PER_DAY;
    value * 0.5f64.powf(days / half_life_days)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(n: i64) -> Timestamp {
        Timestamp(n * 86_400_000_000)
    }

    #[test]
    fn a_value_halves_every_half_life_and_never_grows() {
        assert_eq!(decay(8.0, day(0), day(30), 30.0), 4.0);
        assert_eq!(decay(8.0, day(0), day(90), 30.0), 1.0);
        assert_eq!(decay(8.0, day(10), day(0), 30.0), 8.0);
        assert_eq!(decay(8.0, day(0), day(90), 0.0), 8.0);
        assert_eq!(decay(8.0, day(0), day(90), -1.0), 8.0);
        assert_eq!(
            decay(8.0, Timestamp(i64::MIN), Timestamp(i64::MAX), 1.0),
            0.0
        );
    }
}
