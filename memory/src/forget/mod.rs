//! Forgetting a subject, an erasure: every message that names it (in any
//! case, possessive included, a person also by a first or last name alone
//! when unambiguous), every fact about it or whose value names it, its
//! entity and aliases, and the index entries, embeddings and log bytes of
//! all of them go in one purge. Nothing unrelated goes: a fact whose value
//! does not name the subject but whose sentence did is recorded again with
//! the subject cut from its sentence, and the passage of the message after
//! an erased one is written again without it.

mod plan;
mod subject;

use chronolog_engine::Engine;

use crate::consolidate::passage::{self, Said};
use crate::error::Result;
use crate::schema::Relations;

/// What [`crate::Memory::forget`] erased.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForgetReport {
    /// Messages that named the subject.
    pub episodes: usize,
    /// Fact versions erased: about the subject, or with it as their value.
    pub facts: usize,
    /// Facts kept, recorded again with the subject cut from the sentence
    /// they were read from.
    pub rewritten: usize,
    /// Names it went by.
    pub aliases: usize,
    /// Rows erased in all, across relations.
    pub rows: usize,
    /// The written forms looked for (lower case): the name given, the
    /// entities' names and aliases, a person's first or last name.
    pub forms: Vec<String>,
}

impl ForgetReport {
    /// The report as JSON (`{"episodes", "facts", "rewritten", "aliases",
    /// "rows", "forms"}`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "episodes": self.episodes,
            "facts": self.facts,
            "rewritten": self.rewritten,
            "aliases": self.aliases,
            "rows": self.rows,
            "forms": self.forms,
        })
    }
}

/// Erases `subject` and everything that names it from `tenant`'s memory.
/// `multilingual` says the tenant's passages are in the multilingual space
/// (a rewritten passage goes there too).
pub(crate) fn forget(
    engine: &Engine,
    tenant: &str,
    subject: &str,
    multilingual: bool,
) -> Result<ForgetReport> {
    let store = engine.store();
    let subject = subject::resolve(store, tenant, subject)?;
    let plan = plan::Plan::of(store, tenant, &subject)?;
    let mut report = ForgetReport {
        episodes: plan.episodes,
        facts: plan.facts,
        rewritten: plan.kept.len(),
        aliases: plan.aliases,
        rows: 0,
        forms: subject.forms.forms(),
    };
    if plan.is_empty() {
        return Ok(report);
    }
    let names: Vec<&str> = plan.names.iter().map(String::as_str).collect();
    let reason = format!("forget: a subject of tenant {tenant}");
    report.rows = store
        .erase(&names, &plan.rows, &reason)
        .map_err(chronolog_engine::Error::from)?
        .rows;
    // What stays is written again without the subject. Not in the purge's
    // batch (a purge rewrites the log; this is a commit after it): a crash
    // between the two loses these rows, never leaves the subject.
    let rel = Relations::of(store)?;
    engine.session().write(|txn| {
        for kept in &plan.kept {
            let values = kept.fact.to_values(txn)?;
            txn.assert(rel.fact, values, kept.valid, None)?;
        }
        for follower in &plan.followers {
            let said = Said {
                episode: &follower.id,
                tenant,
                role: &follower.role,
                at: follower.at,
                text: &follower.text,
            };
            passage::write(txn, &rel, &said, passage::text(None, &said), multilingual)?;
        }
        Ok(())
    })?;
    Ok(report)
}
