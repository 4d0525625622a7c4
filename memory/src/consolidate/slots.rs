//! What the store believes now about the slot a claim names: its
//! versions, its elaborations, the one value an ending describes, and
//! whether a bounded past period is already held. Read by a pass before
//! each claim is decided (`conflict::decide`).

use chronolog_engine::{Store, Timestamp, Value};

use super::conflict::{SlotState, Version};
use super::extract::{Claim, ClaimKind, is_functional};
use crate::error::Result;
use crate::ids::{Slot, normalize};
use crate::names::NameForms;
use crate::schema::{Elaborates, Fact, Relations};

/// The store as a pass reads slots.
pub(super) struct Slots<'a> {
    pub store: &'a Store,
    pub rel: Relations,
}

impl Slots<'_> {
    /// What the store believes now about `slot` and its elaborations.
    pub(super) fn state(&self, slot: Slot, object: &str) -> Result<SlotState> {
        let base = slot.to_string();
        let elaboration = slot.elaborated_by(&normalize(object)).to_string();
        let mut elaborations = Vec::new();
        let store = self.store;
        if let Some(sym) = store.symbol(&base) {
            let links = store
                .snapshot()
                .scan(self.rel.elaborates)
                .eq(Elaborates::BASE, Value::Sym(sym))
                .collect()
                .map_err(chronolog_engine::Error::from)?;
            for link in links {
                let link = Elaborates::from_values(store, &link.values)?;
                elaborations.extend(self.believed(&link.slot)?);
            }
        }
        Ok(SlotState {
            versions: self.believed(&base)?,
            elaboration: self.believed(&elaboration)?,
            elaborations,
            slot,
        })
    }

    /// Whether `claim` is a past period of a one-valued predicate from a
    /// start not said ("I worked at IBM until 2020") whose value the slot
    /// already holds over it ("I work at IBM", said in 2018): the ending
    /// that comes with it bounds that value; a second, many-valued
    /// version of it would say the same twice.
    pub(super) fn held_already(
        &self,
        claim: &Claim,
        subject: &str,
        predicate: &str,
    ) -> Result<bool> {
        let Some(valid) = claim.valid else {
            return Ok(false);
        };
        if claim.kind != ClaimKind::Happened
            || valid.from != Timestamp::MIN
            || !is_functional(&claim.predicate)
        {
            return Ok(false);
        }
        let end = valid.to.unwrap_or(Timestamp::MAX);
        let object = normalize(&claim.object);
        Ok(self
            .believed(&Slot::one(subject, predicate).to_string())?
            .iter()
            .any(|v| normalize(&v.fact.object) == object && v.row.valid.from < end))
    }

    /// The one slot of `subject`'s `predicate` that holds now and whose
    /// value or sentence names `word` ("dog" in "My dog Rex"), with its
    /// value; `None` when none or several do.
    pub(super) fn described(
        &self,
        subject: &str,
        predicate: &str,
        word: &str,
    ) -> Result<Option<(Slot, String)>> {
        let store = self.store;
        let (Some(subject), Some(predicate)) = (store.symbol(subject), store.symbol(predicate))
        else {
            return Ok(None);
        };
        let words = NameForms::new([word]);
        let rows = store
            .snapshot()
            .scan(self.rel.fact)
            .eq(Fact::SUBJECT, Value::Sym(subject))
            .eq(Fact::PREDICATE, Value::Sym(predicate))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let mut found: Option<(Slot, String)> = None;
        for row in rows {
            let fact = Fact::from_values(store, &row.values)?;
            if row.valid.to != Timestamp::MAX
                || !(words.occur_in(&fact.object) || words.occur_in(&fact.text))
            {
                continue;
            }
            let Some(slot) = Slot::parse(&fact.slot) else {
                continue;
            };
            match &found {
                Some((other, _)) if *other != slot => return Ok(None),
                _ => found = Some((slot, fact.object)),
            }
        }
        Ok(found)
    }

    /// The versions of `slot` believed now, over all valid time.
    pub(super) fn believed(&self, slot: &str) -> Result<Vec<Version>> {
        let store = self.store;
        let Some(sym) = store.symbol(slot) else {
            return Ok(Vec::new());
        };
        let rows = store
            .snapshot()
            .scan(self.rel.fact)
            .history()
            .eq(Fact::SLOT, Value::Sym(sym))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        rows.into_iter()
            .filter(|row| row.tx.to == Timestamp::MAX)
            .map(|row| {
                Ok(Version {
                    fact: Fact::from_values(store, &row.values)?,
                    row,
                })
            })
            .collect()
    }
}
