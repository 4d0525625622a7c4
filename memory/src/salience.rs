//! Salience: how much a memory should count when there is too much to
//! show. It starts from the message (asked to be remembered, about the
//! speaker themself, strong feelings), halves every half-life without
//! reinforcement, and rises when a fact is restated or retrieved. Fading
//! lowers eligibility in stages; it never removes history.

use chronolog_engine::{Interval, RelationId, Store, Timestamp, WriteTxn};

use crate::error::Result;
use crate::schema::Salience;
use crate::tuning::Tuning;

/// How eligible a memory is as its salience fades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Below 0.1: answered by `history` and as-of queries; in a context
    /// a dormant fact keeps a quarter of its score, so it leads only when
    /// it matches far better than any active one.
    Dormant,
    /// 0.1 to 0.3: keeps half its score in a context, ranked below active
    /// memories that match about as well.
    Fading,
    /// 0.3 and above.
    Active,
}

/// The stage of a (decayed) score.
pub fn stage(score: f64) -> Stage {
    if score >= 0.3 {
        Stage::Active
    } else if score >= 0.1 {
        Stage::Fading
    } else {
        Stage::Dormant
    }
}

/// `score` set at `last`, decayed to `now` with a half-life in days: the
/// engine's `decayed` operator's formula, so the salience channel (which
/// ranks by that operator) and the stages agree.
pub fn decayed(score: f64, last: Timestamp, now: Timestamp, half_life_days: f64) -> f64 {
    chronolog_engine::decay(score, last, now, half_life_days)
}

/// A slot's salience as stored: score, times reinforced, when last set.
pub(crate) type Level = (f64, i64, Timestamp);

/// Sets a slot's salience row.
pub(crate) fn write(
    txn: &mut WriteTxn<'_>,
    rel: RelationId,
    slot: &str,
    tenant: &str,
    (score, reinforced, last): Level,
) -> chronolog_engine::Result<()> {
    let row = Salience {
        slot: slot.to_string(),
        tenant: tenant.to_string(),
        score,
        reinforced,
        last,
    };
    let values = row.to_values(txn)?;
    txn.assert(rel, values, Interval::ALWAYS, None)?;
    Ok(())
}

/// A slot's salience row, if it has one.
pub(crate) fn read(store: &Store, rel: RelationId, slot: &str) -> Result<Option<Level>> {
    crate::view::first_keyed(store, rel, Salience::SLOT, slot, |s| s)?
        .map(|r| Salience::from_values(store, &r.values).map(|s| (s.score, s.reinforced, s.last)))
        .transpose()
}

/// The row after a reinforcement at `at`: `tuning.reinforcement` more than
/// the decayed score, one more reinforcement.
pub(crate) fn reinforced(current: Option<Level>, at: Timestamp, tuning: &Tuning) -> Level {
    let (score, count, last) = current.unwrap_or((0.5, 0, at));
    // A restatement older than the last one (out of order) does not decay.
    let now = if at > last { at } else { last };
    let score = (decayed(score, last, now, tuning.half_life_days) + tuning.reinforcement).min(1.0);
    (score, count + 1, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salience_halves_each_half_life_and_fades_in_stages() {
        let t0 = Timestamp::parse("2024-01-01").expect("time");
        let t30 = Timestamp::parse("2024-01-31").expect("time");
        let t120 = Timestamp::parse("2024-04-30").expect("time");
        assert!((decayed(0.8, t0, t30, 30.0) - 0.4).abs() < 1e-9);
        assert_eq!(stage(decayed(0.8, t0, t30, 30.0)), Stage::Active);
        assert_eq!(stage(decayed(0.8, t0, t120, 30.0)), Stage::Dormant);
        assert_eq!(stage(0.2), Stage::Fading);
    }
}
