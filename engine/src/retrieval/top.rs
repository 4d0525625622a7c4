//! `top(rel, column, k)`: the live rows with the largest values of a
//! number or time column (a tenant's latest messages by sequence number),
//! each scored by that value.

use chronolog_ql::plan::TopPlan;
use chronolog_storage::RelationId;

use super::by_value::{best, number};
use super::{At, Ranking};
use crate::error::Result;
use crate::val::Val;

/// The best `plan.k` ids of `plan.rel` by `plan.column`, among the live
/// rows that pass `filters`.
pub(super) fn run(
    at: &At<'_>,
    plan: &TopPlan,
    rel: RelationId,
    filters: &[(usize, Val)],
) -> Result<Ranking> {
    let live = at.live_where(rel, filters)?;
    best(at, rel, &live, at.k(&plan.k)?, |row| {
        number(row.value(plan.column))
    })
}
