//! Writing a claim's [`Plan`] into the transaction of its episode: the
//! fact row, its provenance and graph links, its salience.

use chronolog_engine::{Interval, Timestamp, WriteTxn};

use super::conflict::Plan;
use super::extract::{Claim, Subject};
use crate::salience;
use crate::schema::{About, Contested, Elaborates, Fact, Relations, Source};

/// The episode whose claims are being written.
pub(super) struct Written<'a> {
    pub episode: &'a str,
    pub tenant: &'a str,
    pub at: Timestamp,
    /// Whether the message asked to be remembered (salience starts higher).
    pub emphasised: bool,
}

/// Writes `plan`.
pub(super) fn apply(
    txn: &mut WriteTxn<'_>,
    rel: &Relations,
    plan: &Plan,
    written: &Written<'_>,
) -> chronolog_engine::Result<()> {
    match plan {
        Plan::Assert {
            slot,
            subject,
            object_entity,
            claim,
            valid,
            contested_with,
            elaborates,
        } => {
            let row = Fact {
                slot: slot.clone(),
                tenant: written.tenant.to_string(),
                subject: subject.clone(),
                predicate: claim.predicate.clone(),
                object: claim.object.clone(),
                text: claim.text.clone(),
                confidence: claim.confidence,
            };
            let values = row.to_values(txn)?;
            let provenance = txn.symbol(written.episode)?;
            txn.assert(rel.fact, values, *valid, Some(provenance))?;
            link(
                txn,
                rel,
                slot,
                written.episode,
                subject,
                object_entity.as_deref(),
                &claim.object,
            )?;
            let score = initial(claim, written.emphasised);
            salience::write(
                txn,
                rel.salience,
                slot,
                written.tenant,
                (score, 1, written.at),
            )?;
            if let Some(base) = elaborates {
                let row = Elaborates {
                    slot: slot.clone(),
                    base: base.clone(),
                };
                let values = row.to_values(txn)?;
                txn.assert(rel.elaborates, values, Interval::ALWAYS, None)?;
            }
            if let Some(other) = contested_with {
                let row = Contested {
                    slot: slot.clone(),
                    other: other.clone(),
                };
                let values = row.to_values(txn)?;
                txn.assert(rel.contested, values, Interval::ALWAYS, None)?;
            }
        }
        Plan::Restate {
            slot,
            subject,
            object_entity,
            claim,
            salience,
        } => {
            link(
                txn,
                rel,
                slot,
                written.episode,
                subject,
                object_entity.as_deref(),
                &claim.object,
            )?;
            salience::write(txn, rel.salience, slot, written.tenant, *salience)?;
        }
        Plan::End { values, valid } => {
            txn.retract(rel.fact, values.clone(), *valid)?;
        }
        Plan::Withdraw { values } => {
            txn.correct(rel.fact, values.clone())?;
        }
        Plan::Resume {
            values,
            valid,
            provenance,
        } => {
            txn.assert(rel.fact, values.clone(), *valid, *provenance)?;
        }
    }
    Ok(())
}

/// The provenance and graph links of a slot's value.
fn link(
    txn: &mut WriteTxn<'_>,
    rel: &Relations,
    slot: &str,
    episode: &str,
    subject: &str,
    object_entity: Option<&str>,
    object: &str,
) -> chronolog_engine::Result<()> {
    let source = Source {
        slot: slot.to_string(),
        episode: episode.to_string(),
        object: object.to_string(),
    };
    let values = source.to_values(txn)?;
    txn.assert(rel.source, values, Interval::ALWAYS, None)?;
    for entity in std::iter::once(subject).chain(object_entity) {
        let about = About {
            slot: slot.to_string(),
            entity: entity.to_string(),
        };
        let values = about.to_values(txn)?;
        txn.assert(rel.about, values, Interval::ALWAYS, None)?;
    }
    Ok(())
}

/// The salience a new fact starts with: more when the message asked to
/// be remembered, when it is about the speaker, and for tastes.
fn initial(claim: &Claim, emphasised: bool) -> f64 {
    let mut score: f64 = 0.5;
    if emphasised {
        score += 0.3;
    }
    if claim.subject == Subject::Speaker {
        score += 0.1;
    }
    if matches!(claim.predicate.as_str(), "likes" | "dislikes")
        || claim.predicate.starts_with("favorite_")
    {
        score += 0.05;
    }
    score.min(1.0)
}
